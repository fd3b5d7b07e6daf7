"""The notes on helm upgrade's own flags carry their facts (commands/upgrade_flags.py), from the
pure functions (no helm). The flags end to end on real Helm 3 and Helm 4 are
tests/e2e/test_upgrade_flags.py."""
from __future__ import annotations

from typing import Any


# -- the notes' facts, from the pure functions (no helm) -------------------------------------------

def _job(name: str) -> Any:
    from deployah_plan.manifests import Document
    return Document({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name}}, "t.yaml", 0)


def test_behaviour_notes_carry_their_facts() -> None:
    from deployah_plan import facts as found
    from deployah_plan.commands.upgrade_flags import DeployFlags, behaviour_notes
    from deployah_plan.manifests import Rendered

    deploy = DeployFlags(no_hooks=True, force=True, force_replace=True, description="d", atomic=True,
                         wait_for_jobs=True, timeout="3m")
    desired = Rendered((_job("a"), _job("b")))
    notes = behaviour_notes(deploy, 4, False, 3, desired, {"team": "shop", "old": "null"}, [1, 2], 3)
    assert [w.facts for w in notes] == [
        found.NoHooks(install=False), found.ForceReplace(flag="--force-replace"),
        found.ReleaseLabels(labels={"team": "shop", "old": None}, install=False, previous_revision=3),
        found.Description(description="d"), found.HistoryPruned(history_max=3, revisions=(1, 2)),
        found.Atomic(flag="--atomic", install=False, previous_revision=3),
        found.WaitForJobs(jobs=("a", "b"), waits=True, timeout="3m"),
    ]
    fresh = behaviour_notes(DeployFlags(force=True, wait_for_jobs=True), 3, True, 0, desired, {}, [], 10)
    assert [w.facts for w in fresh] == [found.ForceReplace(flag="--force"),
                                        found.WaitForJobs(jobs=("a", "b"), waits=False, timeout="5m0s"),
                                        found.InstallFlag()]


def test_namespace_notes_carry_their_facts() -> None:
    from deployah_plan import facts as found
    from deployah_plan.commands.upgrade_flags import DeployFlags, check_for_helm, namespace_notes
    from deployah_plan.manifests import Document, Rendered

    on = DeployFlags(create_namespace=True)
    empty = Rendered()
    declared = Rendered((Document({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}, "n.yaml", 0),))
    facts = [namespace_notes(on, fresh, "shop", exists, given)[1][0].facts
             for fresh, exists, given in ((False, None, empty), (True, True, empty), (True, False, declared),
                                          (True, False, empty), (True, None, empty))]
    assert facts == [found.CreateNamespaceIgnored(namespace="shop"), found.NamespaceExists(namespace="shop"),
                     found.NamespaceTwice(namespace="shop"), found.CreateNamespace(namespace="shop", checked=True),
                     found.CreateNamespace(namespace="shop", checked=False)]
    (twice,) = namespace_notes(on, True, "shop", False, declared)[1]
    assert twice.fails
    notes = check_for_helm(DeployFlags(atomic=True, force=True), "auto", False, 4, "4.0.0")
    assert [w.facts for w in notes] == [found.DeprecatedFlag(flag="--atomic", replacement="--rollback-on-failure"),
                                        found.DeprecatedFlag(flag="--force", replacement="--force-replace")]
