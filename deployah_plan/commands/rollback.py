"""`helm plan rollback RELEASE [REVISION]`: plan what `helm rollback` would do.

As pkg/action/rollback.go: the current release is the newest revision whatever its status;
the target is REVISION, or the one before the current when it is omitted (or 0), and must be
in the history ("release has no N version"). Helm then updates the cluster from the current
manifest to the target's, exactly as an upgrade does (creates, updates, deletes, keep read
from the live object), runs the target's pre-rollback and post-rollback hooks, and records
revision current + 1. Chart CRDs are not touched. With a cluster, the live state of both
revisions' kinds is read, as for an upgrade: drift, ownership of what comes back, keep.
"""
from __future__ import annotations

from typing import Any, Mapping

from msgspec import Struct

from deployah_plan.planfile.inputs import Inputs, Planned
from deployah_plan.release import live_objects as live_state
from deployah_plan.release.revisions import open_release, rendered
from deployah_plan.sources.helm_commands import major
from deployah_plan.core.diff import LINE_CONTEXT
from deployah_plan.core.planner import PlanRequest, live_scope, make_plan
from deployah_plan.errors import ReleaseError, UsageError
from deployah_plan.flags import ROLLBACK, request_fields
from deployah_plan.model import ApplyMethod, Header, HelmAction
from deployah_plan.sources.kubeconfig import resolve_settings
from deployah_plan.yamlkube import Known


class RollbackOptions(Struct, frozen=True, kw_only=True):
    release: str
    revision: int = 0  # 0: the revision before the current one
    no_hooks: bool = False
    no_drift: bool = False
    require_cluster: bool = False
    namespace: str | None = None
    kube_context: str | None = None
    kubeconfig: str | None = None
    debug: bool = False
    line_context: int = LINE_CONTEXT  # --context: unchanged lines around a multi-line value's changes


def rollback_options(params: Mapping[str, Any], *, debug: bool) -> RollbackOptions:
    return RollbackOptions(release=params["release"], revision=params["revision"], debug=debug,
                           **request_fields(ROLLBACK, params, "rollback"))


def plan_rollback(options: RollbackOptions) -> Planned:
    if options.revision < 0:
        raise UsageError(f"revision {options.revision} is negative", "give a revision from `helm history`, or none")
    releases, target, current, helm_version = open_release(options.release, options.namespace, options.kube_context,
                                                       options.kubeconfig, options.debug)
    namespace = target.namespace
    wanted = options.revision or current.revision - 1
    back = releases.record(options.release, namespace, wanted, major(helm_version)) if wanted > 0 else None
    if back is None:
        raise ReleaseError(f"release {options.release} has no revision {wanted} to roll back to",
                           f"`helm history {options.release} -n {namespace}` lists its revisions")
    settings = resolve_settings(namespace=namespace, context=options.kube_context, kubeconfig=options.kubeconfig)
    skipped = live_state.skipped_reason(options.no_drift, options.require_cluster, settings)
    known = Known()  # the documents the two revisions share are read once
    previous, desired = rendered(current, known=known), rendered(back, known=known)
    live = None if skipped else live_state.read(settings, live_scope([previous, desired], namespace))
    live = live_state.required(live, options.require_cluster)
    header = Header(
        release=options.release, namespace=namespace, kube_context=target.context,
        revision=current.revision + 1, chart_name=back.chart_name, chart_version=back.chart_version,
        previous_revision=current.revision, previous_chart=f"{current.chart_name}-{current.chart_version}",
        rollback_to=back.revision, helm_version=helm_version, rendered_by="release",
    )
    # Helm 4's rollback applies as the target revision was applied (--server-side auto:
    # pkg/action/rollback.go, getUpgradeServerSideValue with the target's ApplyMethod).
    apply_method = (back.apply_method or ApplyMethod.CSA) if major(helm_version) >= 4 else None
    inputs = Inputs(previous=current, newest_revision=current.revision, desired=desired, live=live,
                    release=options.release, live_streams=(previous, desired))
    return Planned(make_plan(PlanRequest(header, previous, desired, major(helm_version), action=HelmAction.ROLLBACK,
                                         hooks_disabled=options.no_hooks, live=live, live_source="cluster",
                                         live_reason=skipped, apply_method=apply_method,
                                         line_context=options.line_context)), inputs)
