"""The render that tells the chart's changes from the values' (core/causes.py): the new chart
with the release's previous user values, started beside the plan's other renders.

Which attribution a plan of `helm plan upgrade` gets:
- an install, none: there is nothing previous to move from; so too `helm plan kube-upgrade`,
  whose chart is the release's own;
- values that do not change (`--reuse-values`, or no values flag, which reuses them as
  `helm upgrade` does; `--reset-values` of a release that had none), every change is the
  chart's, with no more render;
- otherwise one more render, of the new chart with the previous user values (`helm get
  values`), in the mode of the first (`helm template`, or `helm upgrade --dry-run=server` with
  `--reset-values` and those values in a file of the plan's private folder:
  commands/upgrade.py `_Renderer.between`). A new chart that refuses the old values (a
  values schema, a `required`) leaves the plan without causes, not without a plan.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from msgspec import Struct

from deployah_plan.errors import HelmError, ManifestError
from deployah_plan.model import Attribution
from deployah_plan.sources.helm import ReleaseState, StoredRelease
from deployah_plan.sources.workers import Call, Workers

if TYPE_CHECKING:
    from deployah_plan.manifests import Rendered


class Between(Struct, frozen=True):
    """How the plan's causes are found, and the render that finds them (RENDERED only)."""

    attribution: Attribution = Attribution.NONE
    render: Rendered | None = None


class Request(Struct, frozen=True, kw_only=True):
    """What of the upgrade's request decides the attribution: whether values flags were given,
    --reset-values, and whether the chart is the release's own (`helm plan kube-upgrade`)."""

    values_given: bool
    reset_values: bool
    stored_chart: bool


def values_kept(request: Request, previous: dict[str, Any]) -> bool:
    """Whether `helm upgrade` renders with the release's own user values unchanged: no values
    flag (Helm reuses them, or --reuse-values, --reset-then-reuse-values), and not
    `--reset-values` of a release that had some."""
    if request.values_given:
        return False
    return not (request.reset_values and previous)


def start(pool: Workers, state_call: Call[ReleaseState], request: Request,
          read_values: Callable[[StoredRelease], dict[str, Any]],
          render: Callable[[dict[str, Any]], Rendered | None], after: Call[Any] | None = None) -> Call[Between]:
    """In a worker thread, once the release is read (and `after`, the first render when it
    updates the chart's dependencies): the attribution, and the render it needs (`render` of
    the previous user values; `read_values` reads them when the release read could not)."""
    def between() -> Between:
        current = state_call.result().current
        if current is None or request.stored_chart:
            return Between()
        previous = current.values if current.values is not None else read_values(current)
        if values_kept(request, previous):
            return Between(Attribution.CHART)
        if after is not None:
            after.result()
        try:
            documents = render(previous)
        except (HelmError, ManifestError):
            return Between()  # the new chart refuses the old values: no cause rather than a guess
        return Between(Attribution.RENDERED, documents) if documents is not None else Between()
    return pool.submit(between)
