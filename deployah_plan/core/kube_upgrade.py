"""What a Kubernetes upgrade does to one release, as one word (helm plan kube-upgrade).

A release's plan under the target version (commands/kube_upgrade.py) is read here for its
verdict, worst first:

- `will-fail`: the next `helm upgrade` fails even once the stored manifest is rewritten: an
  object the chart renders under the target version is refused (its API is not served, a schema
  or field it breaks, ...), or the chart itself refuses the version (its `kubeVersion`);
- `needs-manifest-rewrite`: only objects of the stored manifest are in APIs the target version no
  longer serves: Helm cannot build the current release from them ("unable to build kubernetes
  objects from current release manifest") until the manifest is rewritten (helm-mapkubeapis);
- `changes`: the chart renders differently under the target version (an apiVersion it picks
  by `.Capabilities`, say): the next upgrade changes those objects;
- `ready`: the next upgrade with the same chart and values changes nothing;
- `error`: the release could not be planned (what stopped it is said).
"""
from __future__ import annotations

import enum

from deployah_plan.facts import ApiNotServed, Role
from deployah_plan.model import Plan, Warning


class Verdict(enum.Enum):
    WILL_FAIL = "will-fail"
    NEEDS_REWRITE = "needs-manifest-rewrite"
    CHANGES = "changes"
    READY = "ready"
    ERROR = "error"


def stored_unserved(warning: Warning) -> bool:
    """A predicted failure on an object of the stored manifest (its API is not served)."""
    return warning.fails and isinstance(warning.facts, ApiNotServed) and warning.facts.role is Role.PREVIOUS_RELEASE


def verdict(plan: Plan) -> Verdict:
    failures = [w for w in plan.warnings if w.fails]
    if any(not stored_unserved(w) for w in failures):
        return Verdict.WILL_FAIL
    if failures:
        return Verdict.NEEDS_REWRITE
    return Verdict.CHANGES if plan.has_changes else Verdict.READY


__all__ = ["Verdict", "stored_unserved", "verdict"]
