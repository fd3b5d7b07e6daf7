"""The warnings of `helm upgrade`'s own flags (commands/upgrade_flags.py) and of the upgrade
command (commands/upgrade.py), worded from their facts: each code and each variant, the
sentence exactly as the check wrote it before warnings carried facts."""
from __future__ import annotations

import pytest

from deployah_plan.facts import (
    Atomic, CreateNamespace, CreateNamespaceIgnored, DeprecatedFlag, Description, ForceReplace, HistoryPruned,
    InstallFlag, KubeVersionDefault, LookupOffline, NamespaceExists, NamespaceTwice, NoHooks, PreviousNotDeployed,
    Reinstall, ReleaseLabels, ReuseValuesOffline, SubchartsCarried, ValuesReused, WaitForJobs,
)
from deployah_plan.codes import Facts
from deployah_plan.model import ResourceRef, warn
from deployah_plan.render.words.warning import message

CASES: list[tuple[Facts, str]] = [
    (DeprecatedFlag(flag="--atomic", replacement="--rollback-on-failure"),
     "--atomic is deprecated in Helm 4 (it still works as --rollback-on-failure)"),
    (DeprecatedFlag(flag="--force", replacement="--force-replace"),
     "--force is deprecated in Helm 4 (it still works as --force-replace)"),
    (CreateNamespaceIgnored(namespace="shop"),
     "--create-namespace only applies to an install: release namespace shop is left as it is"),
    (NamespaceExists(namespace="shop"),
     "--create-namespace: namespace shop already exists, so helm leaves it as it is"),
    (NamespaceTwice(namespace="shop"),
     "--create-namespace creates namespace shop before the release, and the chart declares it too: creating the "
     "chart's copy will fail with \"already exists\""),
    (CreateNamespace(namespace="shop", checked=True),
     "--create-namespace: helm creates namespace shop before installing; it is not part of the release, and helm "
     "uninstall leaves it"),
    (CreateNamespace(namespace="shop", checked=False),
     "--create-namespace: helm creates namespace shop before installing; it is not part of the release, and helm "
     "uninstall leaves it (whether it already exists was not checked: no cluster)"),
    (NoHooks(install=True), "--no-hooks: no hook runs on this install"),
    (NoHooks(install=False), "--no-hooks: no hook runs on this upgrade"),
    (ForceReplace(flag="--force"),
     "--force: each updated object is replaced (the whole rendered object is PUT) instead of patched, so fields "
     "only the live object has are dropped"),
    (ForceReplace(flag="--force-replace"),
     "--force-replace: each updated object is replaced (the whole rendered object is PUT) instead of patched, so "
     "fields only the live object has are dropped"),
    (ForceReplace(flag="--force-replace", server_side=True),
     '--force-replace on a server-side apply: Helm 4 fails with "invalid operation: cannot use server-side apply and '
     'force replace together" (after the pre-hooks run); add --server-side=false to replace client-side, or drop '
     "--force-replace"),
    (ForceReplace(flag="--force-replace", server_side=True, adopted=2),
     "--force-replace on an install that adopts 2 existing objects (updated, server-side): Helm 4 fails with "
     '"invalid operation: cannot use server-side apply and force replace together" (after the pre-hooks run); add '
     "--server-side=false to replace client-side, or drop --force-replace"),
    (ReleaseLabels(labels={"team": "shop", "old": None}, install=True, previous_revision=0),
     "--labels: the new revision's release labels: old removed, team=shop"),
    (ReleaseLabels(labels={"team": "shop"}, install=False, previous_revision=3),
     "--labels: the new revision's release labels: team=shop (merged into revision 3's labels, as helm merges them)"),
    (Description(description="chart 8.4.0"), "--description: the new revision is recorded as 'chart 8.4.0'"),
    (HistoryPruned(history_max=3, revisions=(1,)),
     "--history-max 3: helm deletes the record of revision 1 (its oldest) when it records the new one; they can no "
     "longer be rolled back to"),
    (HistoryPruned(history_max=2, revisions=(1, 2)),
     "--history-max 2: helm deletes the record of revisions 1, 2 (its oldest) when it records the new one; they can "
     "no longer be rolled back to"),
    (Atomic(flag="--atomic", install=True, previous_revision=0),
     "--atomic: if this install fails, helm uninstalls the release (and waits for resources to be ready)"),
    (Atomic(flag="--rollback-on-failure", install=False, previous_revision=4),
     "--rollback-on-failure: if this upgrade fails, helm rolls back to revision 4 (and waits for resources to be "
     "ready)"),
    (WaitForJobs(jobs=("migrate-2",), waits=True, timeout="3m"),
     "--wait-for-jobs: helm waits up to 3m for Job migrate-2 to complete"),
    (WaitForJobs(jobs=tuple(f"j{n}" for n in range(6)), waits=True, timeout="5m0s"),
     "--wait-for-jobs: helm waits up to 5m0s for Jobs j0, j1, j2, j3, j4, ... to complete"),
    (WaitForJobs(jobs=("a", "b"), waits=False, timeout="5m0s"),
     "--wait-for-jobs has no effect without --wait: helm does not wait for Jobs a, b"),
    (InstallFlag(),
     "planned as helm upgrade --install: without --install, helm upgrade fails on a release that does not exist"),
    (ReuseValuesOffline(),
     "--reuse-values rendered offline: values are the previous release's computed values plus your overrides; "
     "Helm also ignores defaults that only the new chart has, which this render includes"),
    (ValuesReused(revision=2), "no values given: like helm upgrade, the values of revision 2 are used again"),
    (LookupOffline(chart="shop"),
     "chart shop calls `lookup`, which returns nothing when rendered offline; with a cluster, plan with --render "
     "server"),
    # Issue 45 point 3: the version a render offline was made for, and the real one.
    (KubeVersionDefault(chart="shop", kube_version="1.34.0"),
     "rendered for Kubernetes 1.34.0, helm template's default: the templates of chart shop read the cluster's "
     "version; pass --kube-version with your cluster's version to render for it"),
    (KubeVersionDefault(chart="shop", kube_version="1.37.0", cluster_version="1.31"),
     "rendered for Kubernetes 1.37.0, helm template's default: the templates of chart shop read the cluster's "
     "version, and the cluster runs 1.31; pass --kube-version 1.31 (or --render server) to render for it"),
    # Rendered for an older version too (issue 45 point 3): the objects that differ, or that none does.
    (KubeVersionDefault(chart="shop", kube_version="1.37.0", compared_version="1.34.0",
                        differing=(ResourceRef("apps/v1", "Deployment", "shop", "tools"),
                                   ResourceRef("batch/v1", "Job", "shop", "migrate")), differing_count=4),
     "rendered for Kubernetes 1.37.0, helm template's default; for 1.34.0 the templates of chart shop render "
     "Deployment shop/tools, Job shop/migrate and 2 more differently; pass --kube-version with your cluster's "
     "version to render for it"),
    (KubeVersionDefault(chart="shop", kube_version="1.37.0", compared_version="1.34.0"),
     "rendered for Kubernetes 1.37.0, helm template's default: the templates of chart shop read the cluster's "
     "version, and render the same objects for 1.34.0; pass --kube-version with your cluster's version to render "
     "for it"),
    (KubeVersionDefault(chart="shop", kube_version=""),
     "rendered for helm template's default Kubernetes version: the templates of chart shop read the cluster's "
     "version; pass --kube-version with your cluster's version to render for it"),
    (SubchartsCarried(chart="shop", subcharts=("redis", "db")),
     "chart shop has subcharts (redis, db), which Helm does not store with a release: their objects are carried from "
     "the stored manifest as they are (their apiVersions are still judged), not rendered again for the target "
     "version; plan the upgrade with the chart itself (helm plan upgrade --reuse-values --render template "
     "--kube-version) to see them rendered"),
    (PreviousNotDeployed(revision=3, status="failed"),
     "no deployed revision: planned against revision 3, whose status is failed, as helm upgrade does"),
    (Reinstall(release="shop"),
     "release shop was uninstalled with its history kept: helm upgrade --install installs it again"),
]


@pytest.mark.parametrize(("facts", "said"), CASES, ids=[f"{f.code.value}-{n}" for n, (f, _) in enumerate(CASES)])
def test_each_flag_note_is_worded_from_its_facts(facts: Facts, said: str) -> None:
    assert message(warn(facts)) == said


def test_every_commands_code_has_a_case() -> None:
    import importlib
    import inspect
    import re

    from deployah_plan.commands import upgrade, upgrade_flags
    from deployah_plan.core import adoption  # --force-replace's note, made where an install's adoptions are known
    facts = importlib.import_module("deployah_plan.facts")
    made = {name for module in (upgrade, upgrade_flags, adoption) for name in dir(facts)
            if re.search(rf"\b{name}\(", inspect.getsource(module)) and isinstance(getattr(facts, name), type)
            and issubclass(getattr(facts, name), Facts) and getattr(facts, name) is not Facts}
    assert made == {type(f).__name__ for f, _ in CASES}


# -- drift: why each drift has its effect (core/drift.py), in the words the plan said before -------

from deployah_plan.model import (  # noqa: E402
    DriftChange, DriftEffect, DriftField, DriftKind, DriftReason, FieldChange, FieldOp, ResourceRef, SsaReason,
)
from deployah_plan.planfile.read import drift_reason_of, drift_ssa_of  # noqa: E402
from deployah_plan.render.words import drift as drift_words  # noqa: E402

CM = ResourceRef("v1", "ConfigMap", "shop", "cfg")
REASONS = {
    DriftReason.RECREATED: "the upgrade creates it again",
    DriftReason.LEAVES_RELEASE: "it leaves the release: nothing to delete",
    DriftReason.ADOPTED: "the new chart declares it: Helm adopts it and applies the chart",
    DriftReason.UNTOUCHED: "not in the new chart either: Helm does not touch it",
    DriftReason.KEPT: "kept: the live object says helm.sh/resource-policy: keep",
    DriftReason.DELETED: "the upgrade deletes the object",
    DriftReason.THREE_WAY_MERGE: "three-way merge: Helm sets every field the new chart declares",
    DriftReason.MERGE_PATCH: ("a custom resource: Helm's JSON merge patch goes from the previous manifest to the new "
                              "one and ignores live drift"),
    DriftReason.SERVER_SIDE_APPLY: "server-side apply: ownership read from the live object's managedFields",
}
SSA_NOTES: list[tuple[SsaReason, tuple[str, ...], str]] = [
    (SsaReason.DECLARES_LIVE, (), "server-side apply: the new chart declares the live value"),
    (SsaReason.FORCED, ("ops",), "server-side apply sets it back: --force-conflicts takes it from field manager ops"),
    (SsaReason.CONFLICT, ("ops",), "server-side apply conflict: field manager ops owns it; the upgrade fails unless "
                                   "conflicts are forced (--force-conflicts)"),
    (SsaReason.CONFLICT, ("kubectl", "ops"), "server-side apply conflict: field manager kubectl, ops owns it; the "
                                             "upgrade fails unless conflicts are forced (--force-conflicts)"),
    (SsaReason.SETS_BACK, (), "server-side apply sets it back (no other field manager owns it)"),
    (SsaReason.GONE, (), "server-side apply: already gone, and no longer declared"),
    (SsaReason.OTHER_OWNS, ("ops",), "server-side apply leaves it: field manager ops owns it"),
    (SsaReason.REMOVES, (), "server-side apply removes it: Helm owned it and no longer declares it"),
]


def test_every_drift_reason_is_worded() -> None:
    assert set(REASONS) == set(DriftReason) and {r for r, _, _ in SSA_NOTES} == set(SsaReason)


@pytest.mark.parametrize(("why", "said"), list(REASONS.items()), ids=[r.value for r in REASONS])
def test_a_drift_reason_is_worded_and_read_back(why: DriftReason, said: str) -> None:
    assert drift_words.drift_reason(DriftChange(CM, DriftKind.MODIFIED, DriftEffect.MIXED, why=why)) == said
    assert drift_reason_of(said) is why


@pytest.mark.parametrize(("why", "managers", "said"), SSA_NOTES, ids=[f"{r.value}-{len(m)}" for r, m, _ in SSA_NOTES])
def test_a_server_side_apply_note_is_worded_and_read_back(why: SsaReason, managers: tuple[str, ...], said: str) -> None:
    change = FieldChange("/data/a", FieldOp.REPLACE, "1", "9")
    assert drift_words.drift_ssa(DriftField(change, DriftEffect.LEFT, why, managers)) == said
    assert drift_ssa_of(said) == (why, managers)


def test_no_reason_and_no_note_say_nothing() -> None:
    change = FieldChange("/data/a", FieldOp.REPLACE, "1", "9")
    assert drift_words.drift_reason(DriftChange(CM, DriftKind.MODIFIED, DriftEffect.MIXED)) == ""
    assert drift_words.drift_ssa(DriftField(change, DriftEffect.REVERTED)) == ""
    assert drift_reason_of("") is None and drift_ssa_of("") == (None, ())
