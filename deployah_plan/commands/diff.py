"""`helm plan diff PREVIOUS DESIRED`: plan from two rendered manifest files, offline.

For CI jobs without cluster credentials: PREVIOUS is what `helm get manifest` (plus
`helm get hooks`) printed, DESIRED what `helm template` printed; `-` reads standard input.
`--live FILE` adds drift and ownership from a saved `kubectl get -o yaml`.
"""
from __future__ import annotations

import os
from typing import Any, Mapping

from msgspec import Struct

from deployah_plan.planfile.inputs import Planned
from deployah_plan.release.api_target import check_version, newest_version, offline_target
from deployah_plan.core.diff import LINE_CONTEXT
from deployah_plan.core.planner import PlanRequest, make_plan
from deployah_plan.errors import PlanError, UsageError
from deployah_plan.flags import DIFF, request_fields
from deployah_plan.manifests import split_stream
from deployah_plan.yamlkube import Known
from deployah_plan.facts import KubeVersionAssumed, VersionSource
from deployah_plan.model import AppliedWith, ApplyMethod, ApplyReason, Header, warn
from deployah_plan.sources.cluster import load_live_file
from deployah_plan.sources.files import FileReader, describe
from deployah_plan.sources.helm import Helm


class DiffOptions(Struct, frozen=True, kw_only=True):
    previous: str
    desired: str
    # Without --release: the name `helm template` gives a release it is not told (release-name,
    # on Helm 3 and 4), which the rendered files then carry; never the word "release" itself,
    # which made the header read "upgrade release release".
    release: str = "release-name"
    namespace: str = "default"
    action: str = "auto"  # auto | install | upgrade
    kind_order: str = "auto"  # auto | helm3 | helm4
    skip_crds: bool = False
    live: str | None = None  # a saved live state file (- : standard input)
    take_ownership: bool = False
    apply_method: ApplyMethod = ApplyMethod.CSA  # how the release was installed (Helm 4)
    kube_version: str | None = None  # judge the objects against this Kubernetes version
    disable_openapi_validation: bool = False
    debug: bool = False  # print the helm call (`helm version`, for the kind order)
    line_context: int = LINE_CONTEXT  # --context: unchanged lines around a multi-line value's changes


def diff_options(params: Mapping[str, Any], *, debug: bool) -> DiffOptions:
    fields = request_fields(DIFF, params, "diff")
    fields["namespace"] = fields["namespace"] or os.environ.get("HELM_NAMESPACE") or "default"
    fields["apply_method"] = ApplyMethod(fields["apply_method"])
    return DiffOptions(previous=params["previous"], desired=params["desired"], debug=debug, **fields)


_MANIFEST_HINT = "pass a rendered manifest file (YAML text), or - to read standard input"


def _helm_major(kind_order: str, debug: bool) -> tuple[int, str]:
    """Helm 4 adds webhook kinds to its order; ask the helm at hand when not told."""
    if kind_order in ("helm3", "helm4"):
        return int(kind_order[-1]), ""
    try:
        version = Helm.find(debug=debug).version()
    except PlanError:  # no working helm is fine here: the files are all we need
        return 3, ""
    return int(version.split(".")[0]), version


def plan_diff(options: DiffOptions, reader: FileReader | None = None) -> Planned:
    """The plan from the files (nothing read from a release or a cluster); `reader` is the command's reader (it knows whether an ignore
    file already took standard input)."""
    # Helm refuses longer names (chartutil.ValidateReleaseName: 53; a namespace is a DNS label).
    for value, flag, most in ((options.release, "--release", 53), (options.namespace, "-n", 63)):
        if len(value) > most:
            raise UsageError(f"{flag} is {len(value):,} characters long, and Helm allows at most {most}",
                             f"pass a shorter {flag}")
    # Without --kube-version the objects are still judged: against the newest Kubernetes version
    # the table knows (its schemas are the strictest current ones), and the plan says so; a kind
    # that version no longer serves is then a warning, since the cluster's version is unknown.
    ssa = options.apply_method is ApplyMethod.SSA
    version = check_version(options.kube_version) if options.kube_version else newest_version()
    target = offline_target(version, VersionSource.FLAG if options.kube_version else VersionSource.NEWEST_KNOWN,
                            strict_fields=ssa and not options.disable_openapi_validation,
                            validate_fields=not options.disable_openapi_validation, client_side_hooks=not ssa,
                            assumed=not options.kube_version)
    notes = () if options.kube_version else (warn(KubeVersionAssumed(kube_version=version)),)
    reader = reader or FileReader()
    previous_text = reader.read(options.previous, "PREVIOUS manifest", _MANIFEST_HINT)
    desired_text = reader.read(options.desired, "DESIRED manifest", _MANIFEST_HINT)
    known = Known()  # the documents the two files share are read once
    previous = split_stream(previous_text, describe(options.previous), known)
    desired = split_stream(desired_text, describe(options.desired), known)
    empty = not (previous.resources or previous.hooks)
    fresh = options.action == "install" or (options.action == "auto" and empty)
    if fresh and not empty:
        raise UsageError("--action install was given but PREVIOUS holds objects", "drop --action install, or pass an empty PREVIOUS")
    live = load_live_file(options.live, reader) if options.live else None
    major, version = _helm_major(options.kind_order, options.debug)
    header = Header(release=options.release, namespace=options.namespace, revision=1 if fresh else 0,
                    fresh_install=fresh, helm_version=version, rendered_by="files",
                    applied_with=AppliedWith(options.apply_method, ApplyReason.GIVEN))
    return Planned(make_plan(PlanRequest(
        header, None if fresh else previous, desired, major, options.skip_crds, notes,
        live=live, live_source=options.live or "", live_reason="no live state given (--live FILE)",
        take_ownership=options.take_ownership, apply_method=options.apply_method, target=target,
        line_context=options.line_context,
    )))


__all__ = ["DiffOptions", "diff_options", "plan_diff"]
