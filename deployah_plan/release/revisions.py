"""What the release commands share: helm with the user's cluster flags, and stored revisions
turned into parsed streams for the planning core."""
from __future__ import annotations

from deployah_plan.errors import ReleaseError
from deployah_plan.manifests import Rendered, split_stream
from deployah_plan.sources.early import HelmCalls
from deployah_plan.sources.helm import Helm, StoredRelease
from deployah_plan.sources.helm_commands import major
from deployah_plan.sources.kubeconfig import KubeTarget, resolve_settings, resolve_target
from deployah_plan.release.store import Releases
from deployah_plan.yamlkube import Known


def connect(namespace: str | None, kube_context: str | None, kubeconfig: str | None,
            debug: bool, calls: HelmCalls | None = None) -> tuple[Helm, KubeTarget]:
    """The helm binary with the cluster flags the user gave, and the namespace and context
    they resolve to (as helm resolves them). `calls`: the command's helm processes
    (sources/early.py), when its owner gave them."""
    global_args: list[str] = []
    if kube_context:
        global_args += ["--kube-context", kube_context]
    if kubeconfig:
        global_args += ["--kubeconfig", kubeconfig]
    return Helm.find(global_args, debug, calls), resolve_target(namespace, kube_context, kubeconfig)


def rendered(release: StoredRelease, with_crds: bool = False, known: Known | None = None) -> Rendered:
    """A stored revision's manifest and hooks, split as Helm splits them; `with_crds` adds its
    chart's crds/ (what an upgrade compares the new chart's with). `known`: the documents of the
    plan's other side, taken where this one repeats them (yamlkube.py `Known`)."""
    manifest = split_stream(release.manifest, f"release {release.name} revision {release.revision}", known)
    hooks = split_stream(release.hooks_stream, f"hooks of release {release.name} revision {release.revision}", known)
    crds = split_stream(release.crds_stream, f"the crds/ of release {release.name} revision {release.revision}",
                        known)
    return Rendered(manifest.resources, hooks.hooks + manifest.hooks, crds.crds if with_crds else (),
                    manifest.dropped + hooks.dropped + (crds.dropped if with_crds else ()))


def reader(helm: Helm, kube_context: str | None, kubeconfig: str | None) -> Releases:
    """The release reads of a command (release/store.py): Helm's storage in the cluster the same
    flags name, or helm."""
    return Releases(helm, resolve_settings(context=kube_context, kubeconfig=kubeconfig))


def newest(releases: Releases, release: str, namespace: str, helm_major: int) -> StoredRelease:
    """The newest revision, whatever its status (what `helm rollback` and `helm uninstall`
    start from); a one-line error when there is none. `helm_major` 4 reads the apply method."""
    current = releases.record(release, namespace, None, helm_major)
    if current is None:
        raise ReleaseError(f"release {release} not found in namespace {namespace}",
                           f"check the name and the namespace; `helm list -n {namespace}` lists the releases")
    return current


def open_release(release: str, namespace: str | None, kube_context: str | None, kubeconfig: str | None,
                 debug: bool) -> tuple[Releases, KubeTarget, StoredRelease, str]:
    """The release reads, where the release is, its newest revision and helm's version. The
    version comes first: a Helm 4 record carries the apply method, which a Helm 3 template cannot
    read."""
    helm, target = connect(namespace, kube_context, kubeconfig, debug)
    helm_version = helm.version()
    releases = reader(helm, kube_context, kubeconfig)
    return releases, target, newest(releases, release, target.namespace, major(helm_version)), helm_version
