"""Issue 46 points 4 and 5, the pure rules (no helm): which apply method an upgrade or a rollback
assumes and why (Helm 4's pkg/action getUpgradeServerSideValue, from the newest revision of any
status, or the rollback's target), the flags Helm 4 refuses together, --force-replace on a
server-side apply, what Helm 4.3's uninstall skips, and how the plan says and records the method.
End to end through real Helm 3 and 4: tests/e2e/test_apply_method.py."""
from __future__ import annotations

from typing import Any

import pytest

from deployah_plan.commands.upgrade_flags import applied, force_replace_note, refuse_forced_both
from deployah_plan.core.ownership import skipped_on_uninstall
from deployah_plan.errors import UsageError
from deployah_plan.facts import ForceReplace
from deployah_plan.model import AppliedWith, ApplyMethod, ApplyReason, Header, Ownership
from deployah_plan.planfile.read import header_of
from deployah_plan.planfile.write import header_doc
from deployah_plan.render.words.plan import applied_line

SSA, CSA = ApplyMethod.SSA, ApplyMethod.CSA


@pytest.mark.parametrize(("server_side", "helm_major", "fresh", "newest", "want"), [
    ("auto", 3, False, None, AppliedWith(CSA, ApplyReason.HELM3)),
    ("auto", 4, True, None, AppliedWith(SSA, ApplyReason.INSTALL)),
    ("false", 4, True, None, AppliedWith(CSA, ApplyReason.FLAG)),
    # The newest revision decides, whatever the deployed one the upgrade diffs against was.
    ("auto", 4, False, SSA, AppliedWith(SSA, ApplyReason.NEWEST, 7)),
    ("auto", 4, False, CSA, AppliedWith(CSA, ApplyReason.NEWEST, 7)),
    ("auto", 4, False, None, AppliedWith(CSA, ApplyReason.NEWEST, 7)),  # stored by Helm 3: no method
    ("true", 4, False, CSA, AppliedWith(SSA, ApplyReason.FLAG)),
    ("false", 4, False, SSA, AppliedWith(CSA, ApplyReason.FLAG)),
])
def test_the_method_an_upgrade_applies_with(server_side: str, helm_major: int, fresh: bool,
                                            newest: ApplyMethod | None, want: AppliedWith) -> None:
    assert applied(server_side, helm_major, fresh, newest, 7) == want


def test_a_rollback_applies_as_its_target_was_applied() -> None:
    from deployah_plan.commands.rollback import _applied
    from deployah_plan.sources.helm import StoredRelease

    target = StoredRelease("shop", "shop", 3, "superseded", "shop", "1.0.0", "", "", apply_method=SSA)
    assert _applied("auto", 4, target) == AppliedWith(SSA, ApplyReason.TARGET, 3)
    assert _applied("false", 4, target) == AppliedWith(CSA, ApplyReason.FLAG)
    assert _applied("auto", 4, StoredRelease("shop", "shop", 2, "superseded", "shop", "1.0.0", "", "")) == \
        AppliedWith(CSA, ApplyReason.TARGET, 2)
    assert _applied("auto", 3, target) == AppliedWith(CSA, ApplyReason.HELM3)


@pytest.mark.parametrize(("force", "force_replace", "group", "given"), [
    (False, True, "[force-replace force-conflicts]", "[force-conflicts force-replace]"),
    (True, False, "[force force-conflicts]", "[force force-conflicts]"),
    (True, True, "[force force-conflicts]", "[force force-conflicts]"),  # cobra checks `force ...` first
])
def test_replacing_and_forcing_conflicts_together_is_refused_with_helms_words(force: bool, force_replace: bool,
                                                                             group: str, given: str) -> None:
    with pytest.raises(UsageError) as refused:
        refuse_forced_both(force, force_replace, True)
    assert str(refused.value) == f"if any flags in the group {group} are set none of the others can be; {given} were all set"
    refuse_forced_both(force, force_replace, False)  # either alone is fine


def test_force_replace_fails_only_on_a_server_side_apply() -> None:
    failing = force_replace_note("--force-replace", True)
    assert failing.fails and failing.facts == ForceReplace(flag="--force-replace", server_side=True)
    from deployah_plan.render.words.warning import message
    assert "cannot use server-side apply and force replace together" in message(failing)
    assert not force_replace_note("--force", False).fails


def _live(annotations: dict[str, str], labels: dict[str, str] | None = None, **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "annotations": annotations, "labels": labels or {}, **meta}}


OURS = {"meta.helm.sh/release-name": "shop", "meta.helm.sh/release-namespace": "shop"}
HELM = {"app.kubernetes.io/managed-by": "Helm"}


def test_helm_4s_uninstall_skips_what_the_release_does_not_own() -> None:
    gone = skipped_on_uninstall(None, "shop", "shop")  # not found: already deleted, nothing to do
    assert gone is not None and gone.ownership is Ownership.ABSENT
    assert skipped_on_uninstall(_live(OURS, HELM), "shop", "shop") is None
    assert skipped_on_uninstall(_live(OURS, HELM, deletionTimestamp="2025-01-01T00:00:00Z"), "shop", "shop") is None
    other = skipped_on_uninstall(_live({**OURS, "meta.helm.sh/release-name": "blog"}, HELM), "shop", "shop")
    assert other is not None and other.ownership is Ownership.OTHER_RELEASE and other.owner_release == "shop/blog"
    bare = skipped_on_uninstall(_live({}), "shop", "shop")
    assert bare is not None and bare.ownership is Ownership.UNOWNED and len(bare.problems) == 3
    unlabelled = skipped_on_uninstall(_live(OURS), "shop", "shop")  # the managed-by label counts too
    assert unlabelled is not None and [p.key for p in unlabelled.problems] == ["app.kubernetes.io/managed-by"]


@pytest.mark.parametrize(("applied_with", "line"), [
    (AppliedWith(SSA, ApplyReason.NEWEST, 7), "apply: server-side (revision 7, the newest, was applied server-side; "
                                              "--server-side=auto)"),
    (AppliedWith(CSA, ApplyReason.NEWEST, 7), "apply: client-side, a three-way merge (revision 7, the newest, was "
                                              "applied client-side; --server-side=auto)"),
    (AppliedWith(SSA, ApplyReason.TARGET, 3), "apply: server-side (revision 3, the target, was applied server-side; "
                                              "--server-side=auto)"),
    (AppliedWith(CSA, ApplyReason.HELM3), "apply: client-side, a three-way merge (Helm 3)"),
    (AppliedWith(SSA, ApplyReason.FLAG), "apply: server-side (--server-side=true)"),
    (AppliedWith(CSA, ApplyReason.FLAG), "apply: client-side, a three-way merge (--server-side=false)"),
    (AppliedWith(SSA, ApplyReason.INSTALL), "apply: server-side (an install: Helm 4's default)"),
    (AppliedWith(SSA, ApplyReason.STORED, 4), "apply: server-side (as revision 4 was applied)"),
    (AppliedWith(CSA, ApplyReason.GIVEN), "apply: client-side, a three-way merge (--apply-method csa)"),
])
def test_the_head_says_which_method_and_why(applied_with: AppliedWith, line: str) -> None:
    assert applied_line(applied_with) == line


def test_the_json_records_the_method_and_reads_it_back() -> None:
    header = Header("shop", "shop", applied_with=AppliedWith(SSA, ApplyReason.NEWEST, 7))
    doc = header_doc(header)
    assert doc["apply_method"] == {"method": "ssa", "reason": "newest", "revision": 7}
    assert header_of(doc) == header
    assert header_doc(Header("shop", "shop"))["apply_method"] is None  # an uninstall applies nothing
    assert header_of({**doc, "apply_method": {"method": "ssa", "reason": "later", "revision": 1}}).applied_with is None
    assert header_of({k: v for k, v in doc.items() if k != "apply_method"}).applied_with is None  # before 1.8
