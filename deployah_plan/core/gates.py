"""`--fail-on` gates: rules a plan must not match for a CI job to pass.

A gate is `WHAT` or `WHAT:KIND` (KIND may be `Kind.group` to name the group too):

    create, update, delete,  a resource change of that action (`delete:PersistentVolumeClaim`;
    retain                   retain: left in the cluster by helm.sh/resource-policy: keep)
    crd                      a CustomResourceDefinition is created, updated or deleted, or the
                             chart's crds/ will be created by this install
    drift                    the live cluster differs from the previous release
    ownership                an ownership failure or adoption, a collision with an object being
                             deleted, or a server-side apply conflict (warning codes `ownership`,
                             `collision`, `ssa-conflict`, and `ownership-...`)
    immutable                an update of an immutable field (code `immutable` or `immutable-...`)
    warning:CODE             any warning with that code (or of that family)

Only what the plan would really do is matched: ignored changes never match a gate. Gates read
only what a saved JSON plan keeps, so `helm plan show --fail-on` gives the same answer.
"""
from __future__ import annotations

from dataclasses import dataclass

from deployah_plan.errors import UsageError
from deployah_plan.model import Action, CRDLifecycle, Plan, ResourceRef

_ACTIONS = {"create": Action.CREATE, "update": Action.UPDATE, "delete": Action.DELETE, "retain": Action.RETAIN}
_WARNING_FAMILIES = ("ownership", "immutable")
# Warning codes that belong to a gate family besides the family's own name.
_ALSO = {"ownership": ("collision", "ssa-conflict")}
_NAMES = (*_ACTIONS, "crd", "drift", *_WARNING_FAMILIES, "warning:CODE")


@dataclass(frozen=True)
class Gate:
    text: str  # as the user wrote it
    what: str
    argument: str = ""


@dataclass(frozen=True)
class GateMatch:
    gate: Gate
    matched: tuple[str, ...]  # what matched, one short phrase each

    def __str__(self) -> str:
        shown = "; ".join(self.matched[:3]) + (f"; and {len(self.matched) - 3} more" if len(self.matched) > 3 else "")
        return f"--fail-on {self.gate.text} matched: {shown}"


def parse_gate(text: str) -> Gate:
    what, _, argument = text.strip().partition(":")
    if what in _ACTIONS or (what == "warning" and argument):
        return Gate(text, what, argument)
    if what in ("crd", "drift", *_WARNING_FAMILIES) and not argument:
        return Gate(text, what)
    raise UsageError(f"unknown --fail-on gate {text!r}", f"use one of {', '.join(_NAMES)}, or ACTION:KIND such as delete:PersistentVolumeClaim")


def _kind_matches(ref: ResourceRef, argument: str) -> bool:
    if not argument:
        return True
    kind, _, group = argument.partition(".")
    return ref.kind == kind and (not group or ref.group == group)


def _family(code: str, family: str) -> bool:
    return code == family or code.startswith(family + "-") or code in _ALSO.get(family, ())


def _matches(gate: Gate, plan: Plan) -> list[str]:
    if gate.what in _ACTIONS:
        return [f"{c.action.value} {c.resource}" for c in plan.changes
                if c.action is _ACTIONS[gate.what] and _kind_matches(c.resource, gate.argument)]
    if gate.what == "crd":
        changed = [f"{c.action.value} {c.resource}" for c in plan.changes
                   if c.resource.kind == "CustomResourceDefinition" and c.resource.group == "apiextensions.k8s.io"]
        return changed + [f"chart CRD {c.name} ({c.source})" for c in plan.chart_crds if c.lifecycle is CRDLifecycle.PROCESS]
    if gate.what == "drift":
        return [f"{d.kind.value} {d.resource}" for d in plan.drift]
    family = gate.argument if gate.what == "warning" else gate.what
    return [f"{w.code}: {w.message}" for w in plan.warnings if _family(w.code, family)]


def check_gates(plan: Plan, gates: list[Gate]) -> list[GateMatch]:
    """The gates that the plan matches, in the order given."""
    out = []
    for gate in gates:
        matched = _matches(gate, plan)
        if matched:
            out.append(GateMatch(gate, tuple(matched)))
    return out


__all__ = ["Gate", "GateMatch", "check_gates", "parse_gate"]
