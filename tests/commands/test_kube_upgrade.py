"""`helm plan kube-upgrade`'s timeouts read as Go durations (commands/kube_upgrade.py
`seconds`), and its progress line. The command end to end, with real helm, is tests/e2e/test_kube_upgrade.py."""
from __future__ import annotations

import io
import sys

import pytest

from deployah_plan.commands.kube_upgrade import seconds
from deployah_plan.errors import UsageError


# -- the fast tier ------------------------------------------------------------------------------

def test_timeouts_read_as_go_durations() -> None:
    assert seconds("300s") == 300 and seconds("5m") == 300 and seconds("1h30m") == 5400 and seconds("90") == 90
    for bad in ("", "5 minutes", "0s", "-1m"):
        with pytest.raises(UsageError):
            seconds(bad)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_line_rewrites_itself_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its own carriage return is written as one (it moves to the line's start); a name's is
    escaped like any other control character."""
    from deployah_plan.commands.kube_upgrade import _Progress
    from deployah_plan.release.inventory import Listed

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    progress = _Progress(2)
    progress.step(Listed("web", "apps", 1, "deployed", "web-1.0.0"))
    progress.step(Listed("cr\rname", "apps", 1, "deployed", "web-1.0.0"))
    progress.end()
    assert terminal.getvalue() == ("\rhelm plan: planned 1/2 releases (apps/web)\033[K"
                                   "\rhelm plan: planned 2/2 releases (apps/cr\\x0dname)\033[K\r\033[K")
