"""Unit tests of deployah_plan/core/gates.py: what each `--fail-on` gate matches in a plan.

Fast (no helm, no API server): scripts/mutation runs these against mutants of gates.py. A gate
matches plan items; render/words/gate.py says them (tested here too, one line per item). The
command-line behaviour (exit 3, the message on stderr) is tested in tests/e2e/test_gates.py."""
from __future__ import annotations

import pytest

from deployah_plan.codes import Code, Fails
from deployah_plan.core.gates import Gate, GateMatch, Unanswered, Unevaluated, check_gates, parse_gate, unevaluated
from deployah_plan.errors import UsageError
from deployah_plan.impacts import ImpactKind
from deployah_plan.build import build_plan
from deployah_plan.model import (
    Action, CRDLifecycle, ChartCRD, DriftChange, DriftEffect, DriftKind, FieldChange, FieldOp, Header, HelmAction,
    Impact, LiveCheck, LiveGap, LiveStatus, Matched, ResourceChange, ResourceRef, Severity, Warning,
)
from deployah_plan.render.words.gate import match_text, matched_text, unevaluated_text

PVC = ResourceRef("v1", "PersistentVolumeClaim", "shop", "data")
DEPLOY = ResourceRef("apps/v1", "Deployment", "shop", "web")
INGRESS = ResourceRef("networking.k8s.io/v1", "Ingress", "shop", "web")
CM = ResourceRef("v1", "ConfigMap", "shop", "settings")
CRD = ResourceRef("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "widgets.example.com")
A_TO_2 = FieldChange("/a", FieldOp.REPLACE, 1, 2)
FAKE_CRD = ResourceRef("example.com/v1", "CustomResourceDefinition", "shop", "not-a-crd")


def _upgrade(changes: list[ResourceChange] = [], warnings: list[Warning] = [], *, crds: list[ChartCRD] = [],
             drift: list[DriftChange] = [], live: LiveCheck | None = None) -> object:
    return build_plan(Header("r", "shop", revision=2, previous_revision=1), HelmAction.UPGRADE, changes,
                      chart_crds=crds, warnings=warnings, drift=drift, live=live)


def _items(plan: object, *gates: str) -> dict[str, tuple[Matched, ...]]:
    """What each gate that matched matched."""
    return {m.gate.text: m.matched for m in check_gates(plan, [parse_gate(g) for g in gates])}  # type: ignore[arg-type]


def _matched(plan: object, *gates: str) -> dict[str, tuple[str, ...]]:
    """The same, each item as the gate's line says it."""
    return {text: tuple(matched_text(m) for m in items) for text, items in _items(plan, *gates).items()}


def _warning(code: Code, said: str, resource: ResourceRef | None = None, *, fails: bool = False) -> Warning:
    """A warning as a saved plan holds one without facts: its code and its message as written."""
    fails = fails or code.fails is Fails.ALWAYS
    return Warning(code, None, Severity.WARNING if fails else code.severity, resource, fails, said)


CHANGES = [
    ResourceChange(PVC, Action.DELETE, {"kind": "PersistentVolumeClaim"}, None),
    ResourceChange(DEPLOY, Action.UPDATE, {"a": 1}, {"a": 2}, (A_TO_2,)),
    ResourceChange(INGRESS, Action.CREATE, None, {"kind": "Ingress"}),
    ResourceChange(CM, Action.RETAIN, {"kind": "ConfigMap"}, None),
]


@pytest.mark.parametrize("text, what, argument", [
    ("delete", "delete", ""), ("DELETE:pvc", "delete", "pvc"), (" update: Deployment.apps ", "update", "Deployment.apps"),
    ("create:Ingress", "create", "Ingress"), ("retain", "retain", ""),
    ("failure", "failure", ""), ("failures", "failure", ""), ("Failures", "failure", ""), ("crd", "crd", ""),
    ("drift", "drift", ""), ("ownership", "ownership", ""), ("immutable", "immutable", ""),
    ("warning:lookup-offline", "warning", "lookup-offline"), ("warning: ownership ", "warning", "ownership"),
])
def test_parse_gate(text: str, what: str, argument: str) -> None:
    assert parse_gate(text) == Gate(text, what, argument)


@pytest.mark.parametrize("text, message, hint", [
    ("crd:x", "--fail-on 'crd:x': crd takes no argument", "write --fail-on crd"),
    ("drift:Deployment", "--fail-on 'drift:Deployment': drift takes no argument", "write --fail-on drift"),
    ("failure:x", "--fail-on 'failure:x': failure takes no argument", "write --fail-on failure"),
    ("ownership:x", "--fail-on 'ownership:x': ownership takes no argument", "write --fail-on ownership"),
    ("immutable:", "--fail-on 'immutable:': immutable takes no argument", "write --fail-on immutable"),
    ("warning", "unknown --fail-on gate 'warning'", "did you mean warning:CODE?"),
    ("warning: ", "unknown --fail-on gate 'warning: '", "did you mean warning:CODE?"),
    ("deletes", "unknown --fail-on gate 'deletes'", "did you mean delete?"),
    ("updated:Deployment", "unknown --fail-on gate 'updated:Deployment'", "did you mean update:Deployment?"),
    # Issue 48 point 7: a mistyped gate gets the nearest name, as a mistyped command does.
    ("restrat", "unknown --fail-on gate 'restrat'", "did you mean restart?"),
    ("Restrat:deploy", "unknown --fail-on gate 'Restrat:deploy'", "did you mean restart:deploy?"),
    ("delte:pvc", "unknown --fail-on gate 'delte:pvc'", "did you mean delete:pvc?"),
    ("drfit", "unknown --fail-on gate 'drfit'", "did you mean drift?"),
    ("warnign:lookup-offline", "unknown --fail-on gate 'warnign:lookup-offline'", "did you mean warning:lookup-offline?"),
    ("tarffic", "unknown --fail-on gate 'tarffic'", "did you mean traffic?"),
    ("nonsense", "unknown --fail-on gate 'nonsense'", ""),
    ("x:pvc", "unknown --fail-on gate 'x:pvc'", ""),
])
def test_bad_gates_say_what_to_write(text: str, message: str, hint: str) -> None:
    """A gate that takes no argument says how to write it; an unknown one lists every gate,
    after the nearest name when one is close (`hint` is then what comes first)."""
    every = ("use one of create, update, delete, retain, failure, crd, drift, immutable, ownership, warning:CODE, "
             "restart, deferred-restart, no-restart, config-unreached, replicas-reset, traffic-unmatched, "
             "traffic-moved, traffic-gap, traffic-port, traffic-route, data-crd, data-pvc-shrink, data-pvc-expand, data-pvc-left, "
             "traffic, data, or ACTION:KIND such as delete:pvc or update:Deployment.apps")
    with pytest.raises(UsageError) as caught:
        parse_gate(text)
    assert caught.value.message == message
    if hint.startswith("write "):
        assert caught.value.hint == hint
    else:
        assert caught.value.hint == (f"{hint} ({every})" if hint else every)


def test_action_gates_match_their_action_only() -> None:
    plan = _upgrade(CHANGES)
    assert _items(plan, "delete", "update", "create", "retain") == {
        "delete": (CHANGES[0],), "update": (CHANGES[1],), "create": (CHANGES[2],), "retain": (CHANGES[3],)}
    assert _matched(plan, "delete", "update", "create", "retain") == {
        "delete": ("delete PersistentVolumeClaim shop/data",),
        "update": ("update Deployment shop/web",),
        "create": ("create Ingress shop/web",),
        "retain": ("retain ConfigMap shop/settings",),
    }


@pytest.mark.parametrize("gate, matches", [
    ("delete:pvc", True), ("delete:PersistentVolumeClaims", True), ("delete:persistentvolumeclaim", True),
    ("delete:pv", False), ("delete:Deployment", False), ("delete:PersistentVolumeClaim.apps", False),
    ("update:Deployment.apps", True), ("update:deploy.APPS", True), ("update:Deployment.extensions", False),
    ("update:deployment", True), ("create:ing.networking.k8s.io", True), ("create:Ingress.extensions", False),
    ("create:IngressClass", False), ("update:DaemonSet", False),
])
def test_action_gates_match_a_kind_as_kubectl_names_it(gate: str, matches: bool) -> None:
    assert bool(_matched(_upgrade(CHANGES), gate)) is matches


def test_no_gate_matches_an_empty_plan() -> None:
    plan = _upgrade()
    assert check_gates(plan, [parse_gate(g) for g in ("create", "update", "delete", "retain", "crd", "drift",  # type: ignore[arg-type]
                                                      "failure", "ownership", "immutable", "warning:ownership")]) == []


def test_crd_gate_matches_crd_changes_and_chart_crds_that_will_be_processed() -> None:
    plan = _upgrade([ResourceChange(CRD, Action.UPDATE, {"a": 1}, {"a": 2}, (A_TO_2,)),
                     ResourceChange(FAKE_CRD, Action.CREATE, None, {"a": 1}),  # not apiextensions.k8s.io
                     *CHANGES],
                    crds=[ChartCRD("app/crds/a.yaml", "a.example.com", CRDLifecycle.PROCESS),
                          ChartCRD("app/crds/b.yaml", "b.example.com", CRDLifecycle.SKIP)])
    assert [type(m) for m in _items(plan, "crd")["crd"]] == [ResourceChange, ChartCRD]
    assert _matched(plan, "crd") == {"crd": ("update CustomResourceDefinition widgets.example.com",
                                             "chart CRD a.example.com (app/crds/a.yaml)")}


def test_drift_gate_names_each_drifted_object() -> None:
    live = LiveCheck(LiveStatus.CHECKED, "", "cluster")
    plan = _upgrade(drift=[DriftChange(DEPLOY, DriftKind.MISSING, DriftEffect.REVERTED)], live=live)
    assert _items(plan, "drift") == {"drift": plan.drift}  # type: ignore[attr-defined]
    assert _matched(plan, "drift") == {"drift": (f"{DriftKind.MISSING.value} Deployment shop/web",)}


FAILING_IMMUTABLE = _warning(Code.IMMUTABLE, "spec.selector cannot change", DEPLOY)
OWNED_ELSEWHERE = _warning(Code.OWNERSHIP, "owned by other/r", INGRESS, fails=True)
ADOPTED = _warning(Code.OWNERSHIP, "adopted into r", INGRESS)  # an adoption is not a failure
COLLIDES = _warning(Code.COLLISION, "being deleted", INGRESS)
SSA = _warning(Code.SSA_CONFLICT, "field manager kubectl owns .spec.replicas", DEPLOY)
LOOKUP = _warning(Code.LOOKUP_OFFLINE, "lookup returns nothing offline")
UNKNOWN_FIELD = _warning(Code.UNKNOWN_FIELD, "spec.foo is not a field")  # a warning, not a failure


def test_the_immutable_gate_matches_the_code_the_planner_emits() -> None:
    assert Code.IMMUTABLE.value == "immutable" and FAILING_IMMUTABLE.fails
    plan = _upgrade(CHANGES, [FAILING_IMMUTABLE, OWNED_ELSEWHERE])
    assert _items(plan, "immutable") == {"immutable": (FAILING_IMMUTABLE,)}
    assert _matched(plan, "immutable") == {"immutable": ("immutable: spec.selector cannot change",)}


def test_the_ownership_gate_matches_ownership_failures_collisions_and_ssa_conflicts() -> None:
    plan = _upgrade(CHANGES, [ADOPTED, OWNED_ELSEWHERE, COLLIDES, SSA, FAILING_IMMUTABLE, LOOKUP])
    assert _items(plan, "ownership") == {"ownership": (OWNED_ELSEWHERE, COLLIDES, SSA)}
    assert _matched(plan, "ownership") == {"ownership": (
        "ownership: owned by other/r", "collision: being deleted",
        "ssa-conflict: field manager kubectl owns .spec.replicas")}
    assert _matched(_upgrade(CHANGES, [ADOPTED]), "ownership") == {}


def test_the_failure_gate_matches_every_predicted_failure_and_nothing_else() -> None:
    plan = _upgrade(CHANGES, [ADOPTED, OWNED_ELSEWHERE, UNKNOWN_FIELD, FAILING_IMMUTABLE, LOOKUP])
    assert _items(plan, "failure") == {"failure": (OWNED_ELSEWHERE, FAILING_IMMUTABLE)}
    assert _matched(plan, "failure", "failures") == {
        "failure": ("ownership: owned by other/r", "immutable: spec.selector cannot change"),
        "failures": ("ownership: owned by other/r", "immutable: spec.selector cannot change"),
    }


def test_warning_gates_match_failures_or_not_by_code_or_family() -> None:
    newer = Warning(Code("ownership-stolen"), None, Severity.WARNING, said="a code from a newer plan")
    plan = _upgrade(CHANGES, [ADOPTED, COLLIDES, SSA, LOOKUP, newer])
    assert _matched(plan, "warning:ownership", "warning:lookup-offline", "warning:lookup", "warning:ssa",
                    "warning:collision", "warning:ownership-stolen", "warning:immutable") == {
        "warning:ownership": ("ownership: adopted into r", "collision: being deleted",
                              "ssa-conflict: field manager kubectl owns .spec.replicas",
                              "ownership-stolen: a code from a newer plan"),
        "warning:lookup-offline": ("lookup-offline: lookup returns nothing offline",),
        "warning:lookup": ("lookup-offline: lookup returns nothing offline",),
        "warning:ssa": ("ssa-conflict: field manager kubectl owns .spec.replicas",),
        "warning:collision": ("collision: being deleted",),
        "warning:ownership-stolen": ("ownership-stolen: a code from a newer plan",),
    }
    assert _matched(plan, "warning:owner", "warning:look") == {}  # a family is a whole word


def test_gates_keep_the_order_given() -> None:
    plan = _upgrade(CHANGES, [FAILING_IMMUTABLE])
    assert [m.gate.text for m in check_gates(plan, [parse_gate("update"), parse_gate("delete"),  # type: ignore[arg-type]
                                                    parse_gate("immutable"), parse_gate("create:Secret")])] == [
        "update", "delete", "immutable"]


@pytest.mark.parametrize("count, shown", [
    (1, "--fail-on delete matched: delete ConfigMap shop/m0"),
    (3, "--fail-on delete matched: delete ConfigMap shop/m0; delete ConfigMap shop/m1; delete ConfigMap shop/m2"),
    (4, "--fail-on delete matched: delete ConfigMap shop/m0; delete ConfigMap shop/m1; delete ConfigMap shop/m2; "
        "and 1 more"),
    (6, "--fail-on delete matched: delete ConfigMap shop/m0; delete ConfigMap shop/m1; delete ConfigMap shop/m2; "
        "and 3 more"),
])
def test_a_match_names_three_things_and_counts_the_rest(count: int, shown: str) -> None:
    deletes = tuple(ResourceChange(ResourceRef("v1", "ConfigMap", "shop", f"m{i}"), Action.DELETE, {"a": 1}, None)
                    for i in range(count))
    assert match_text(GateMatch(Gate("delete", "delete"), deletes)) == shown


@pytest.mark.parametrize("status, unanswered", [(LiveStatus.SKIPPED, True), (LiveStatus.UNREACHABLE, True),
                                                (LiveStatus.CHECKED, False), (LiveStatus.PARTIAL, False)])
def test_gates_that_need_the_live_state_say_when_it_was_not_read(status: LiveStatus, unanswered: bool) -> None:
    reason = "" if status in (LiveStatus.CHECKED, LiveStatus.PARTIAL) else "no cluster"
    gaps = (LiveGap("v1", "Secret", "shop", "forbidden"),) if status is LiveStatus.PARTIAL else ()
    plan = _upgrade(live=LiveCheck(status, reason, "cluster", gaps))
    gates = [parse_gate(g) for g in ("delete", "drift", "ownership", "failure", "immutable", "warning:ownership")]
    found = unevaluated(plan, gates)  # type: ignore[arg-type]
    assert found == ([Unevaluated(gates[1], Unanswered.DRIFT, "no cluster"),
                      Unevaluated(gates[2], Unanswered.CONFLICTS, "no cluster"),
                      Unevaluated(gates[3], Unanswered.CONFLICTS, "no cluster")] if unanswered else [])
    assert [unevaluated_text(u) for u in found] == ([
        "--fail-on drift: not evaluated: the live state was not read (no cluster)",
        "--fail-on ownership: ownership and drift conflicts not evaluated: the live state was not read",
        "--fail-on failure: ownership and drift conflicts not evaluated: the live state was not read",
    ] if unanswered else [])


def test_impact_gates_match_their_kind_or_family_and_the_objects_kind() -> None:
    sts = ResourceRef("apps/v1", "StatefulSet", "shop", "db")
    impacts = [Impact(ImpactKind.RESTART, sts, said="StatefulSet shop/db restarts 3 pods"),
               Impact(ImpactKind.DATA_PVC_SHRINK, PVC, said="PersistentVolumeClaim shop/data cannot shrink"),
               Impact(ImpactKind.CONFIG_UNREACHED, DEPLOY, said="Deployment shop/web reads no new config")]
    plan = build_plan(Header("r", "shop", revision=2, previous_revision=1), HelmAction.UPGRADE, CHANGES, impact=impacts)
    assert _items(plan, "restart", "data") == {"restart": (impacts[0],), "data": (impacts[1],)}
    assert _matched(plan, "restart", "restart:sts", "restart:deployment", "data", "data-pvc-shrink:pvc", "traffic",
                    "config-unreached:Deployment.apps", "config-unreached:Deployment.example.com") == {
        "restart": ("restart: StatefulSet shop/db restarts 3 pods",),
        "restart:sts": ("restart: StatefulSet shop/db restarts 3 pods",),
        "data": ("data-pvc-shrink: PersistentVolumeClaim shop/data cannot shrink",),
        "data-pvc-shrink:pvc": ("data-pvc-shrink: PersistentVolumeClaim shop/data cannot shrink",),
        "config-unreached:Deployment.apps": ("config-unreached: Deployment shop/web reads no new config",),
    }
