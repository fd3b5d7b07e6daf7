"""`helm plan revision RELEASE REV1 [REV2]` and `helm plan releases RELEASE1 RELEASE2`: plans
between what Helm stored, with no chart, no render and no cluster read.

- Two revisions of one release: what going from REV1 to REV2 changes (REV2 omitted: the newest
  revision), planned as the upgrade from one stored manifest and hooks to the other. `helm plan
  revision shop 4 5` says what revision 5 did, for a post-mortem. As helm-diff's `revision`,
  the older of the two is the previous state whichever is given first.
- The newest revisions of two releases (`NAME` or `NAMESPACE/NAME`; the namespace defaults to
  -n): what turning the first into the second changes, e.g. staging against production.

The live state is not read: these plans are about the history, not the cluster now.
"""
from __future__ import annotations

from typing import Any, Mapping

from msgspec import Struct

from deployah_plan.core.diff import LINE_CONTEXT
from deployah_plan.core.planner import PlanRequest, make_plan
from deployah_plan.errors import ReleaseError, UsageError
from deployah_plan.flags import RELEASES, REVISION, request_fields
from deployah_plan.model import Header
from deployah_plan.planfile.inputs import Inputs, Planned
from deployah_plan.release.revisions import connect, newest, reader, rendered
from deployah_plan.release.store import Releases
from deployah_plan.sources.helm_commands import major
from deployah_plan.sources.helm import StoredRelease
from deployah_plan.yamlkube import Known

_NOT_LIVE = "not read: a plan between stored revisions is about the history, not the cluster now"


class RevisionOptions(Struct, frozen=True, kw_only=True):
    release: str
    first: int
    second: int = 0  # 0: the newest revision
    namespace: str | None = None
    kube_context: str | None = None
    kubeconfig: str | None = None
    debug: bool = False
    line_context: int = LINE_CONTEXT


class ReleasesOptions(Struct, frozen=True, kw_only=True):
    first: str  # NAME or NAMESPACE/NAME
    second: str
    namespace: str | None = None
    kube_context: str | None = None
    kubeconfig: str | None = None
    debug: bool = False
    line_context: int = LINE_CONTEXT


def revision_options(params: Mapping[str, Any], *, debug: bool) -> RevisionOptions:
    return RevisionOptions(release=params["release"], first=params["first"], second=params["second"], debug=debug,
                           **request_fields(REVISION, params, "revision"))


def releases_options(params: Mapping[str, Any], *, debug: bool) -> ReleasesOptions:
    return ReleasesOptions(first=params["first"], second=params["second"], debug=debug,
                           **request_fields(RELEASES, params, "releases"))


def _revision(releases: Releases, release: str, namespace: str, revision: int, helm_major: int) -> StoredRelease:
    found = releases.record(release, namespace, revision, helm_major) if revision > 0 else None
    if found is None:
        raise ReleaseError(f"release {release} has no revision {revision}",
                           f"`helm history {release} -n {namespace}` lists its revisions")
    return found


def _plan(before: StoredRelease, after: StoredRelease, context: str, helm_version: str, line_context: int) -> Planned:
    header = Header(
        release=after.name, namespace=after.namespace, kube_context=context, revision=after.revision,
        chart_name=after.chart_name, chart_version=after.chart_version, previous_revision=before.revision,
        previous_chart=f"{before.chart_name}-{before.chart_version}", helm_version=helm_version,
        rendered_by="release",
    )
    known = Known()  # the documents the two revisions share are read once
    plan = make_plan(PlanRequest(header, rendered(before, known=known), rendered(after, known=known),
                                 major(helm_version),
                                 apply_method=after.apply_method, live_reason=_NOT_LIVE, line_context=line_context))
    return Planned(plan, Inputs())  # nothing to verify later: the history does not move


def plan_revision(options: RevisionOptions) -> Planned:
    if options.first < 1 or options.second < 0:
        raise UsageError("a revision is a number from 1", f"`helm history {options.release}` lists them")
    helm, target = connect(options.namespace, options.kube_context, options.kubeconfig, options.debug)
    helm_version = helm.version()
    helm_major = major(helm_version)
    namespace = target.namespace
    releases = reader(helm, options.kube_context, options.kubeconfig)
    current = newest(releases, options.release, namespace, helm_major)
    low, high = sorted((options.first, options.second or current.revision))
    before = _revision(releases, options.release, namespace, low, helm_major)
    after = current if high == current.revision else _revision(releases, options.release, namespace, high, helm_major)
    return _plan(before, after, target.context, helm_version, options.line_context)


def _where(name: str, namespace: str) -> tuple[str, str]:
    """NAMESPACE/NAME or NAME (in `namespace`)."""
    space, _, release = name.rpartition("/")
    if not release or "/" in space:
        raise UsageError(f"{name!r} is not a release", "write NAME or NAMESPACE/NAME")
    return release, space or namespace


def plan_releases(options: ReleasesOptions) -> Planned:
    helm, target = connect(options.namespace, options.kube_context, options.kubeconfig, options.debug)
    helm_version = helm.version()
    helm_major = major(helm_version)
    releases = reader(helm, options.kube_context, options.kubeconfig)
    before = newest(releases, *_where(options.first, target.namespace), helm_major)
    after = newest(releases, *_where(options.second, target.namespace), helm_major)
    return _plan(before, after, target.context, helm_version, options.line_context)


__all__ = ["ReleasesOptions", "RevisionOptions", "plan_releases", "plan_revision", "releases_options",
           "revision_options"]
