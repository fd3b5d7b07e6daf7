"""The API server a command's plan is judged against (core.validate.Target): the cluster's own
answers when it is read (sources/api_server.py), else a Kubernetes version and the committed
table (`--kube-version`, or the version helm itself assumes when it renders offline)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from deployah_plan.core.kube_api import parse_version, table
from deployah_plan.errors import PlanError, UsageError
from deployah_plan.manifests import Rendered
from deployah_plan.sources import helm_versions
from deployah_plan.sources.helm import Helm
from deployah_plan.sources.kubeconfig import ClusterSettings

if TYPE_CHECKING:  # core.validate is imported when a Target is made: not before helm has started
    from deployah_plan.core.validate import Target
    from deployah_plan.facts import VersionSource

__all__ = ["Target", "api_versions", "check_version", "cluster_target", "helm_default_version", "newest_version",
           "offline_target", "served_api_versions"]

_PROBE_CHART = "apiVersion: v2\nname: kube-version\nversion: 0.1.0\n"
_PROBE_TEMPLATE = "# {{ .Capabilities.KubeVersion.Version }}\n"


def check_version(text: str) -> str:
    if parse_version(text) is None:
        raise UsageError(f"--kube-version {text!r} is not a Kubernetes version", "give one like 1.31 or v1.31.2")
    return text.lstrip("v")


def helm_default_version(helm: Helm) -> str:
    """The Kubernetes version `helm template` assumes (its `.Capabilities.KubeVersion`), read by
    rendering a one-line chart (Helm 3 does not print it in `helm version`) once per binary
    (sources/helm_versions.py); "" when it cannot be read."""
    return helm_versions.remembered(helm.binary, "kube_version", lambda: _probe_default_version(helm))


def _probe_default_version(helm: Helm) -> str:
    from deployah_plan.sources.workdir import private_folder  # once per helm binary: its answer is remembered
    from pathlib import Path
    
    with private_folder("helm-plan-kv-") as tmp:
        chart = Path(tmp) / "kube-version"
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text(_PROBE_CHART)
        (chart / "templates" / "v.yaml").write_text(_PROBE_TEMPLATE)
        try:
            out = helm.template("probe", str(chart), "default", [], upgrade=False)
        except PlanError:
            return ""
    for line in out.splitlines():
        if line.startswith("# v") and parse_version(line[2:]):
            return line[3:].strip()
    return ""


def served_api_versions(version: str) -> list[str]:
    """What a cluster of that version lists in `.Capabilities.APIVersions` (each served group
    version, and each as `group/version/Kind`), alpha versions left out (off by default): given
    to `helm template` as --api-versions, so a chart that picks an apiVersion by capability
    renders as it would against that cluster rather than against helm's offline defaults."""
    parsed = parse_version(version)
    if parsed is None:
        return []
    api = table()
    out: dict[str, None] = {}
    for gvk in api.kinds:
        api_version, kind = gvk.split(" ")
        if "alpha" not in api_version and api.served(gvk, parsed[1]):
            out[api_version] = None
            out[f"{api_version}/{kind}"] = None
    return list(out)


def offline_target(version: str, source: VersionSource, *, strict_fields: bool, validate_fields: bool,
                   client_side_hooks: bool, create_namespace: bool = False, render_defaults: bool = False,
                   assumed: bool = False) -> Target:
    from deployah_plan.core.validate import Target

    return Target(version, source, table(), strict_fields=strict_fields, validate_fields=validate_fields,
                  client_side_hooks=client_side_hooks, create_namespace=create_namespace,
                  render_defaults=render_defaults, assumed=assumed)


def newest_version() -> str:
    """The newest Kubernetes version the committed table knows ("1.37")."""
    return f"1.{table().newest}"


def api_versions(streams: Iterable[Rendered | None]) -> list[str]:
    """Every apiVersion the streams use: the group versions to ask the cluster about."""
    found: dict[str, None] = {}
    for stream in streams:
        if stream is not None:
            for doc in (*stream.resources, *stream.hooks, *stream.crds):
                found[str(doc.obj.get("apiVersion", ""))] = None
    return list(found)


def cluster_target(settings: ClusterSettings, streams: Iterable[Rendered | None], namespace: str, *,
                   strict_fields: bool, validate_fields: bool, client_side_hooks: bool,
                   create_namespace: bool = False) -> Target | None:
    """The cluster's answers as a Target; None when it cannot be reached (the caller falls
    back to a version)."""
    from deployah_plan.core.validate import Target
    from deployah_plan.sources.api_server import read_api  # the Kubernetes client only when a cluster is read

    answers = read_api(settings, api_versions(streams), namespace)
    if not answers.reachable or parse_version(answers.version) is None:
        return None
    from deployah_plan.core.compact_schema import compact_definitions
    from deployah_plan.facts import VersionSource

    roots, types = compact_definitions(answers.schemas) if answers.schemas else ({}, {})
    source = VersionSource.CLUSTER_OPENAPI if answers.openapi else VersionSource.CLUSTER_DISCOVERY
    return Target(answers.version, source, table(), served=answers.served,
                  roots=roots if answers.openapi else None, types=types if answers.openapi else None,
                  namespace_exists=answers.namespace_exists, create_namespace=create_namespace,
                  strict_fields=strict_fields, validate_fields=validate_fields, client_side_hooks=client_side_hooks,
                  requests=answers.requests)
