"""`helm plan diff PREVIOUS DESIRED`: plan from two rendered manifest files, offline.

For CI jobs without cluster credentials: PREVIOUS is what `helm get manifest` (plus
`helm get hooks`) printed, DESIRED what `helm template` printed; `-` reads standard input.
`--live FILE` adds drift and ownership from a saved `kubectl get -o yaml`.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

from deployah_plan.commands.target import check_version, offline_target
from deployah_plan.core.planner import PlanRequest, make_plan
from deployah_plan.errors import PlanError, UsageError
from deployah_plan.manifests import split_stream
from deployah_plan.model import Header, Plan
from deployah_plan.sources.cluster import load_live_file
from deployah_plan.sources.helm import Helm


@dataclass(frozen=True)
class DiffOptions:
    previous: str
    desired: str
    release: str = "release"
    namespace: str = "default"
    action: str = "auto"  # auto | install | upgrade
    kind_order: str = "auto"  # auto | helm3 | helm4
    skip_crds: bool = False
    live: str | None = None  # a saved live state file (- : standard input)
    take_ownership: bool = False
    apply_method: str = "csa"  # csa | ssa: how the release was installed (Helm 4)
    kube_version: str | None = None  # judge the objects against this Kubernetes version
    disable_openapi_validation: bool = False


def _read(path: str, stdin_used: list[bool]) -> str:
    if path == "-":
        if stdin_used:
            raise UsageError("both files are '-'", "read at most one of PREVIOUS and DESIRED from standard input")
        stdin_used.append(True)
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        raise UsageError(f"manifest file {path} not found", "check the path, or pass - to read standard input") from None
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read {path}: {err}", "pass a rendered manifest file (YAML text)") from None


def _helm_major(kind_order: str) -> tuple[int, str]:
    """Helm 4 adds webhook kinds to its order; ask the helm at hand when not told."""
    if kind_order in ("helm3", "helm4"):
        return int(kind_order[-1]), ""
    try:
        version = Helm.find().version()
    except PlanError:  # no working helm is fine here: the files are all we need
        return 3, ""
    return int(version.split(".")[0]), version


def plan_diff(options: DiffOptions) -> Plan:
    target = None
    if options.kube_version:
        ssa = options.apply_method == "ssa"
        target = offline_target(check_version(options.kube_version), "from --kube-version",
                                strict_fields=ssa and not options.disable_openapi_validation,
                                validate_fields=not options.disable_openapi_validation, client_side_hooks=not ssa)
    used: list[bool] = []
    previous_text = _read(options.previous, used)
    desired_text = _read(options.desired, used)
    previous = split_stream(previous_text, options.previous if options.previous != "-" else "standard input")
    desired = split_stream(desired_text, options.desired if options.desired != "-" else "standard input")
    empty = not (previous.resources or previous.hooks)
    fresh = options.action == "install" or (options.action == "auto" and empty)
    if fresh and not empty:
        raise UsageError("--action install was given but PREVIOUS holds objects", "drop --action install, or pass an empty PREVIOUS")
    if options.live == "-" and used:
        raise UsageError("--live - and a manifest both read standard input", "read at most one of them from standard input")
    live = load_live_file(options.live) if options.live else None
    major, version = _helm_major(options.kind_order)
    header = Header(release=options.release, namespace=options.namespace, revision=1 if fresh else 0,
                    fresh_install=fresh, helm_version=version, rendered_by="files")
    return make_plan(PlanRequest(
        header, None if fresh else previous, desired, major, options.skip_crds,
        live=live, live_source=options.live or "", live_reason="no live state given (--live FILE)",
        take_ownership=options.take_ownership, apply_method=options.apply_method, target=target,
    ))


__all__ = ["DiffOptions", "plan_diff"]
