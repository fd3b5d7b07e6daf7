"""`--fail-on` gates: rules a plan must not match for a CI job to pass.

A gate is `WHAT` or `WHAT:KIND` (KIND may be `Kind.group` to name the group too):

    create, update, delete,  a resource change of that action (`delete:PersistentVolumeClaim`;
    retain                   retain: left in the cluster by helm.sh/resource-policy: keep). KIND is
                             matched as kubectl users type it: any case, plural, or a short
                             name (`delete:pvc`, `update:deployments`, `delete:Ingress.networking.k8s.io`)
    failure                  any predicted failure (the action would stop: immutable field,
                             ownership conflict, collision, server-side apply conflict)
    crd                      a CustomResourceDefinition is created, updated or deleted, or the
                             chart's crds/ will be created by this install
    drift                    the live cluster differs from the previous release; a plan that did
                             not read the live state cannot evaluate it (`unevaluated` says so)
    ownership                a predicted ownership failure: no Helm metadata, another release's
                             object, a collision with an object being deleted, or a server-side
                             apply conflict (an adoption by this release is not a failure)
    immutable                an update of an immutable field (a predicted failure)
    warning:CODE             any warning with that code (or of that family), failure or not
    IMPACT[:KIND]            what the deploy does to running things (core/impact.py): a kind of
                             impacts.ImpactKind (restart, config-unreached, replicas-reset, ...) or
                             its family (traffic, data); KIND names the object's kind as above
                             (`restart:statefulset`, `config-unreached:secret`); one that only
                             values the chart regenerates on every render drive never matches

Only what the plan would really do is matched: ignored changes never match a gate. Gates read
only what a saved JSON plan keeps, so `helm plan show --fail-on` gives the same answer.
"""
from __future__ import annotations


from deployah_plan.codes import GATES
from deployah_plan.errors import UsageError
from deployah_plan.kinds import kind_answers_to
from deployah_plan.impacts import IMPACT_GATES
from deployah_plan.model import (
    Action, CRDLifecycle, Gate, GateMatch, LiveStatus, Matched, Plan, ResourceRef, Unanswered, Unevaluated,
)

_ACTIONS = {"create": Action.CREATE, "update": Action.UPDATE, "delete": Action.DELETE, "retain": Action.RETAIN}
_NAMES = (*_ACTIONS, "failure", "crd", "drift", *GATES, "warning:CODE", *IMPACT_GATES)


def parse_gate(text: str) -> Gate:
    what, colon, argument = text.strip().partition(":")
    what = what.lower()
    if what in _ACTIONS or what in IMPACT_GATES:
        return Gate(text, what, argument.strip())
    if what == "warning" and argument.strip():
        return Gate(text, what, argument.strip())
    if what in ("failure", "failures", "crd", "drift", *GATES) and not colon:
        return Gate(text, "failure" if what == "failures" else what)
    if what in ("crd", "drift", "failure", *GATES):
        raise UsageError(f"--fail-on {text!r}: {what} takes no argument", f"write --fail-on {what}")
    every = f"use one of {', '.join(_NAMES)}, or ACTION:KIND such as delete:pvc or update:Deployment.apps"
    near = _nearest(what)
    if near:  # a typo gets what a mistyped command gets: the name it is closest to
        suggestion = f"{near}:{argument.strip()}" if argument.strip() else "warning:CODE" if near == "warning" else near
        raise UsageError(f"unknown --fail-on gate {text!r}", f"did you mean {suggestion}? ({every})")
    raise UsageError(f"unknown --fail-on gate {text!r}", every)


def _nearest(what: str) -> str | None:
    """The gate name closest to a mistyped one (`restrat`: restart), as click finds the command
    closest to a mistyped command; None when none is close."""
    import difflib  # only for a gate that does not exist: a plan imports none of it otherwise

    names = [name.partition(":")[0] for name in _NAMES]
    found = difflib.get_close_matches(what, names, n=1, cutoff=0.75)
    return found[0] if found else None


def _kind_matches(ref: ResourceRef, argument: str) -> bool:
    if not argument:
        return True
    kind, _, group = argument.partition(".")
    return kind_answers_to(ref.kind, kind) and (not group or ref.group == group.lower())


def _matches(gate: Gate, plan: Plan) -> list[Matched]:
    if gate.what in _ACTIONS:
        return [c for c in plan.changes if c.action is _ACTIONS[gate.what] and _kind_matches(c.resource, gate.argument)]
    if gate.what in IMPACT_GATES:
        # An impact driven only by values the chart regenerates on every render is no real change.
        return [i for i in plan.impact if i.kind.answers_to(gate.what) and not i.regenerated
                and _kind_matches(i.resource, gate.argument)]
    if gate.what == "crd":
        changed: list[Matched] = [c for c in plan.changes if c.resource.kind == "CustomResourceDefinition"
                                  and c.resource.group == "apiextensions.k8s.io"]
        return changed + [c for c in plan.chart_crds if c.lifecycle is CRDLifecycle.PROCESS]
    if gate.what == "drift":
        return list(plan.drift)
    if gate.what == "failure":
        return [w for w in plan.warnings if w.fails]
    if gate.what == "warning":
        return [w for w in plan.warnings if w.code.in_family(gate.argument)]
    return [w for w in plan.warnings if w.fails and w.code.in_family(gate.what)]


def unevaluated(plan: Plan, gates: list[Gate]) -> list[Unevaluated]:
    """Gates this plan cannot answer: a gate that matches nothing here may still match the real
    deploy. The drift gate needs the live state, and so do ownership and drift conflicts."""
    if plan.live.status in (LiveStatus.CHECKED, LiveStatus.PARTIAL):
        return []
    out = []
    for gate in gates:
        if gate.what == "drift":
            out.append(Unevaluated(gate, Unanswered.DRIFT, plan.live.reason))
        elif gate.what in ("ownership", "failure"):
            out.append(Unevaluated(gate, Unanswered.CONFLICTS, plan.live.reason))
    return out


def check_gates(plan: Plan, gates: list[Gate]) -> list[GateMatch]:
    """The gates that the plan matches, in the order given."""
    out = []
    for gate in gates:
        matched = _matches(gate, plan)
        if matched:
            out.append(GateMatch(gate, tuple(matched)))
    return out


__all__ = ["Gate", "GateMatch", "Matched", "Unanswered", "Unevaluated", "check_gates", "parse_gate", "unevaluated"]
