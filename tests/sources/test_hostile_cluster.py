"""The cluster reader's time limits (sources/kubeconfig.py): durations read as helm reads them,
and a bad setting is a usage error. The reader against a hostile or broken API server on
loopback is tests/e2e/test_hostile_cluster.py."""
from __future__ import annotations


import pytest

from deployah_plan.sources.kubeconfig import resolve_settings


# -- 7. bounded in time --------------------------------------------------------------------------
#
# Each hostile side below would hold the read for far longer than its deadline. The reader must
# end it at the deadline, and the one-line error names the deadline that did; the time taken is
# checked against the deadline plus a margin wide enough for a loaded 2-core machine, which is
# still far below how long the hostile side lasts, so a reader that waits it out fails.


@pytest.mark.parametrize("value", ["soon", "-1", "0", "1x"])
def test_bad_timeout_settings_are_a_usage_error(value: str) -> None:
    from deployah_plan.errors import UsageError
    with pytest.raises(UsageError, match="HELM_PLAN_REQUEST_TIMEOUT"):
        resolve_settings({"HELM_PLAN_REQUEST_TIMEOUT": value})


def test_durations_read_as_helm_reads_them() -> None:
    settings = resolve_settings({"HELM_PLAN_REQUEST_TIMEOUT": "1m30s", "HELM_PLAN_CLUSTER_TIMEOUT": "45"})
    assert (settings.budget.request, settings.budget.total) == (90.0, 45.0)
