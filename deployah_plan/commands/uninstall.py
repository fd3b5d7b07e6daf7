"""`helm plan uninstall RELEASE`: plan what `helm uninstall` would do.

As pkg/action/uninstall.go: the newest revision is uninstalled; a release already
uninstalled (kept with --keep-history) is refused, as helm refuses it. Its pre-delete hooks
run, every object of its manifest is deleted in Helm's uninstall kind order, except those
whose manifest carries `helm.sh/resource-policy: keep` (left in the cluster), then its
post-delete hooks run. Hooks themselves and the chart's crds/ are not deleted.

Helm 4.3 deletes only what the release owns (pkg/action/uninstall.go deleteRelease, through
verifyOwnershipBeforeDelete): with a cluster, the live objects are read, and one whose labels and
annotations are not this release's stays (core/planner.py); one not found is gone already, which
Helm skips (missing-live drift, not a delete). Helm 3 deletes them all, unread.
`--cascade` is checked as helm checks it (pkg/cmd/uninstall.go validateCascadeFlag).
"""
from __future__ import annotations

from typing import Any, Mapping

from msgspec import Struct

from deployah_plan.planfile.inputs import Inputs, Planned
from deployah_plan.release import live_objects as live_state
from deployah_plan.sources.kubeconfig import resolve_settings
from deployah_plan.release.revisions import open_release, rendered
from deployah_plan.sources.helm_commands import major
from deployah_plan.core.planner import PlanRequest, live_scope, make_plan
from deployah_plan.errors import ReleaseError, UsageError
from deployah_plan.flags import UNINSTALL, request_fields
from deployah_plan.manifests import Rendered
from deployah_plan.facts import Cascade, HistoryDeleted, KeepHistory
from deployah_plan.model import Header, HelmAction, warn


class UninstallOptions(Struct, frozen=True, kw_only=True):
    release: str
    no_hooks: bool = False
    keep_history: bool = False
    cascade: str = "background"
    no_drift: bool = False
    require_cluster: bool = False
    namespace: str | None = None
    kube_context: str | None = None
    kubeconfig: str | None = None
    debug: bool = False


def uninstall_options(params: Mapping[str, Any], *, debug: bool) -> UninstallOptions:
    return UninstallOptions(release=params["release"], debug=debug, **request_fields(UNINSTALL, params, "uninstall"))


CASCADES = ("background", "orphan", "foreground")


def plan_uninstall(options: UninstallOptions) -> Planned:
    if options.cascade not in CASCADES:  # helm's words (pkg/cmd/uninstall.go validateCascadeFlag)
        raise UsageError(f'invalid cascade value ({options.cascade}). Must be "background", "foreground", or "orphan"')
    _, target, current, helm_version = open_release(options.release, options.namespace, options.kube_context,
                                                    options.kubeconfig, options.debug)
    namespace = target.namespace
    if current.status == "uninstalled":
        raise ReleaseError(f"release {options.release} is already uninstalled (revision {current.revision}, "
                           "history kept)", "there is nothing to uninstall; `helm history` shows its revisions")
    notes = [warn(KeepHistory(revision=current.revision)) if options.keep_history else warn(HistoryDeleted())]
    if options.cascade != "background":
        notes.append(warn(Cascade(mode=options.cascade)))
    previous = rendered(current)
    live, skipped = None, _HELM3_READS_NOTHING
    if major(helm_version) >= 4:
        settings = resolve_settings(namespace=namespace, context=options.kube_context, kubeconfig=options.kubeconfig)
        skipped = live_state.skipped_reason(options.no_drift, options.require_cluster, settings)
        live = None if skipped else live_state.read(settings, live_scope([previous], namespace))
        live = live_state.required(live, options.require_cluster)
    header = Header(
        release=options.release, namespace=namespace, kube_context=target.context,
        revision=current.revision, previous_revision=current.revision,
        previous_chart=f"{current.chart_name}-{current.chart_version}", helm_version=helm_version,
        rendered_by="release",
    )
    plan = make_plan(PlanRequest(header, previous, Rendered(), major(helm_version), warnings=tuple(notes),
                                 action=HelmAction.UNINSTALL, hooks_disabled=options.no_hooks,
                                 apply_method=current.apply_method, live=live, live_source="cluster",
                                 live_reason=skipped))
    return Planned(plan, Inputs(previous=current, newest_revision=current.revision, live=live,
                                release=options.release, live_streams=(previous,)))


_HELM3_READS_NOTHING = "not needed: helm uninstall deletes what the release manifest lists and reads keep from it"
