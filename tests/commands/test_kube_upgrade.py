"""`helm plan kube-upgrade`'s timeouts read as Go durations (commands/kube_upgrade.py
`seconds`). The command end to end, with real helm, is tests/e2e/test_kube_upgrade.py."""
from __future__ import annotations


import pytest

from deployah_plan.commands.kube_upgrade import seconds
from deployah_plan.errors import UsageError


# -- the fast tier ------------------------------------------------------------------------------

def test_timeouts_read_as_go_durations() -> None:
    assert seconds("300s") == 300 and seconds("5m") == 300 and seconds("1h30m") == 5400 and seconds("90") == 90
    for bad in ("", "5 minutes", "0s", "-1m"):
        with pytest.raises(UsageError):
            seconds(bad)
