"""`helm upgrade`'s own flags beyond values and chart: what each one makes Helm do, so the plan
says it. Pure: the command (commands/upgrade.py) reads helm and the cluster and calls these.

Helm 3.19 and Helm 4.3 differ (each one's `helm upgrade --help`): Helm 4 renamed `--atomic` to
`--rollback-on-failure` and `--force` to `--force-replace` (both old names still work there,
deprecated), and added `--force-conflicts`, `--server-side` and `--wait=STRATEGY`. A flag the
helm at hand does not have is refused, as that helm would refuse it.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from msgspec import Struct

from deployah_plan.errors import UsageError
from deployah_plan.flags import Reach, helm_args
from deployah_plan.manifests import Document, Rendered
from deployah_plan.facts import (
    Atomic, CreateNamespace, CreateNamespaceIgnored, DeprecatedFlag, Description, HistoryPruned,
    InstallFlag, KubeVersionDefault, NamespaceExists, NamespaceTwice, NoHooks, ReleaseLabels, WaitForJobs,
)
from deployah_plan.codes import Severity
from deployah_plan.core.adoption import force_replace_note as force_replace_note  # its one maker (rollback uses it)
from deployah_plan.model import AppliedWith, ApplyMethod, ApplyReason, ResourceRef, Warning, warn


class ChartSource(Struct, frozen=True, kw_only=True):
    """`helm upgrade`'s repository flags (pkg/cmd/flags.go addChartPathOptionsFlags), given to
    the one `helm pull` that fetches a chart from a repository or an OCI registry."""

    username: str | None = None
    password: str | None = None  # never printed: Helm.run hides it in --debug lines
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    insecure_skip_tls_verify: bool = False
    plain_http: bool = False
    pass_credentials: bool = False
    verify: bool = False
    keyring: str | None = None

    def pull_args(self) -> list[str]:
        return helm_args(self, Reach.PULL)


HISTORY_MAX_DEFAULT = 10  # helm upgrade --history-max's default (Helm 3 and 4)
TIMEOUT_DEFAULT = "5m0s"  # helm upgrade --timeout's default


class DeployFlags(Struct, frozen=True, kw_only=True):
    """The rest of `helm upgrade`'s own flags. Each one either changes what Helm does, and so
    the plan (`no_hooks` .. `description`), or only how Helm waits and reports (the rest),
    which the plan accepts and, where a reader should know, mentions in a note.

    `wait` is "" when not given, "true" for Helm 3's bare `--wait`, or Helm 4's strategy
    (`watcher` for a bare `--wait`, `hookOnly`, `legacy`); `dry_run` likewise ("" or its value)."""

    install: bool = False
    no_hooks: bool = False
    create_namespace: bool = False
    post_renderer: str | None = None
    post_renderer_args: Sequence[str] = ()
    force: bool = False  # Helm 3's --force; Helm 4 keeps it as a deprecated --force-replace
    force_replace: bool = False  # Helm 4
    history_max: int | None = None  # None: helm's default (10)
    labels: Sequence[str] = ()  # as given: k=v[,k=v]; a value `null` removes the label
    dependency_update: bool = False
    skip_schema_validation: bool = False
    enable_dns: bool = False
    description: str | None = None
    wait: str = ""
    wait_for_jobs: bool = False
    atomic: bool = False  # Helm 3; Helm 4 keeps it as a deprecated --rollback-on-failure
    rollback_on_failure: bool = False  # Helm 4
    timeout: str | None = None
    cleanup_on_fail: bool = False
    dry_run: str = ""
    render_subchart_notes: bool = False
    hide_notes: bool = False
    hide_secret: bool = False

    def render_args(self) -> list[str]:
        """The flags that change the rendered objects, passed to the render itself so that helm
        applies them exactly as `helm upgrade` would: the post-renderer (Helm 3: a path or a
        binary on PATH, run on the manifests only; Helm 4: a postrenderer/v1 plugin, run on the
        manifests and, separately, on the hooks; pkg/action/action.go renderResources), the
        chart's values.schema.json check, DNS in templates, dependency update."""
        return helm_args(self, Reach.RENDER)


# Labels Helm keeps for itself on a release record (pkg/storage/driver/util.go systemLabels);
# `helm upgrade --labels` refuses them after rendering (pkg/action/upgrade.go prepareUpgrade).
SYSTEM_LABELS = ("name", "owner", "status", "version", "createdAt", "modifiedAt")
WAIT_STRATEGIES = ("watcher", "hookOnly", "legacy")
_BOOLS = {"true": True, "1": True, "t": True, "false": False, "0": False, "f": False}


def _helm4_only(deploy: DeployFlags, server_side: str, force_conflicts: bool) -> list[str]:
    named = [flag for flag, on in (("--rollback-on-failure", deploy.rollback_on_failure),
                                   ("--force-replace", deploy.force_replace),
                                   ("--force-conflicts", force_conflicts),
                                   ("--server-side", server_side != "auto")) if on]
    if deploy.wait.lower() not in ("", "true", "false", "1", "0", "t", "f"):
        named.append(f"--wait={deploy.wait}")
    return named


def refuse_forced_both(force: bool, force_replace: bool, force_conflicts: bool) -> None:
    """Helm 4 refuses replacing and forcing conflicts together, with cobra's words, before it
    does anything (pkg/cmd/upgrade.go and rollback.go:

        cmd.MarkFlagsMutuallyExclusive("force-replace", "force-conflicts")
        cmd.MarkFlagsMutuallyExclusive("force", "force-conflicts")

    cobra checks the groups in the order of their sorted names: `force ...` first)."""
    if not force_conflicts:
        return
    for name, on in (("force", force), ("force-replace", force_replace)):
        if on:
            group = f"[{name} force-conflicts]"
            given = " ".join(sorted((name, "force-conflicts")))
            raise UsageError(f"if any flags in the group {group} are set none of the others can be; [{given}] were "
                             "all set")


def check_for_helm(deploy: DeployFlags, server_side: str, force_conflicts: bool, helm_major: int,
                   helm_version: str) -> list[Warning]:
    """Refuse what the helm at hand does not take, as it would; the notes its deprecations give."""
    if helm_major < 4:
        missing = _helm4_only(deploy, server_side, force_conflicts)
        if missing:
            helm3 = {"--rollback-on-failure": "--atomic", "--force-replace": "--force"}.get(missing[0])
            hint = f"Helm 3 spells it {helm3}" if helm3 else "drop it, or plan with Helm 4 (HELM_BIN)"
            raise UsageError(f"{missing[0]} is a Helm 4 flag, and helm {helm_version} does not have it", hint)
        if deploy.wait and deploy.wait.lower() not in _BOOLS:
            raise UsageError(f"--wait={deploy.wait}: Helm 3's --wait takes no strategy", "use --wait alone")
        return []
    refuse_forced_both(deploy.force, deploy.force_replace, force_conflicts)
    notes: list[Warning] = []
    if deploy.wait and deploy.wait not in WAIT_STRATEGIES and deploy.wait.lower() not in _BOOLS:
        raise UsageError(f"--wait={deploy.wait} is not a wait strategy",
                         "use --wait alone, or --wait=watcher, --wait=hookOnly or --wait=legacy")
    for old, new, on in (("--atomic", "--rollback-on-failure", deploy.atomic), ("--force", "--force-replace", deploy.force)):
        if on:
            notes.append(warn(DeprecatedFlag(flag=old, replacement=new)))
    return notes


def applied(server_side: str, helm_major: int, fresh: bool, newest: ApplyMethod | None,
            newest_revision: int) -> AppliedWith:
    """How this upgrade applies objects, and why. Helm 3: client-side, always. Helm 4, as
    pkg/action/upgrade.go decides it:

        serverSideApply, err := getUpgradeServerSideValue(u.ServerSideApply, lastRelease.ApplyMethod)
        // case "auto": return releaseApplyMethod == "ssa", nil

    where `lastRelease` is `Releases.Last(name)`, the newest revision of any status (`newest`,
    `newest_revision`), not the deployed one the upgrade diffs against. A fresh install
    (`upgrade --install` of a release that does not exist, or was uninstalled with its history
    kept) is server-side unless --server-side=false (pkg/cmd/upgrade.go: instClient.ServerSideApply = ... != "false")."""
    if helm_major < 4:  # Helm 3 has neither flag: check_for_helm refused them
        return AppliedWith(ApplyMethod.CSA, ApplyReason.HELM3)
    if server_side != "auto":
        return AppliedWith(ApplyMethod.SSA if server_side == "true" else ApplyMethod.CSA, ApplyReason.FLAG)
    if fresh:
        return AppliedWith(ApplyMethod.SSA, ApplyReason.INSTALL)
    return AppliedWith(newest or ApplyMethod.CSA, ApplyReason.NEWEST, newest_revision)


def check_dry_run(value: str) -> None:
    """`--dry-run` changes nothing here (a plan never writes), but a value helm refuses is refused."""
    if value and value not in ("client", "server", "none", "true", "false"):
        raise UsageError(f"--dry-run={value} is not a dry-run mode", "use --dry-run, --dry-run=client or --dry-run=server")


def parse_labels(given: Sequence[str]) -> dict[str, str]:
    """`--labels k=v[,k=v]` (repeatable, pflag stringToString: later wins), as helm reads it."""
    labels: dict[str, str] = {}
    for item in given:
        for pair in item.split(","):
            key, sep, value = pair.partition("=")
            if not sep or not key.strip():
                raise UsageError(f"--labels {item}: {pair!r} is not key=value", "write --labels key=value[,key=value]")
            labels[key.strip()] = value
    reserved = [k for k in labels if k in SYSTEM_LABELS]
    if reserved:
        raise UsageError(f"--labels: {reserved[0]} is a label Helm keeps for itself, and helm upgrade refuses it "
                         f"(reserved: {', '.join(SYSTEM_LABELS)})", "choose another label name")
    return labels


def pruned_revisions(history: Sequence[Mapping[str, Any]], history_max: int) -> list[int]:
    """The stored revisions Helm deletes when it records the new one: before writing it, it keeps
    history_max - 1 revisions, deleting the oldest first but never the newest deployed one
    (pkg/storage/storage.go Create, removeLeastRecent). 0 means no limit."""
    if history_max <= 0:
        return []
    keep = history_max - 1
    revisions = sorted(int(h["revision"]) for h in history)
    if len(revisions) <= keep:
        return []
    deployed = [int(h["revision"]) for h in history if h.get("status") == "deployed"]
    last_deployed = max(deployed) if deployed else None
    doomed: list[int] = []
    for revision in revisions:
        if len(revisions) - len(doomed) == keep:
            break
        if revision != last_deployed:
            doomed.append(revision)
    return doomed


NAMESPACE_SOURCE = "(helm --create-namespace)"


def with_namespace(desired: Rendered, namespace: str) -> Rendered:
    """The desired stream plus the Namespace `helm install --create-namespace` creates before
    anything else, as it builds it (pkg/action/install.go: v1 Namespace, label name=<ns>).
    It is not part of the release: it never enters the manifest, and uninstall leaves it."""
    obj = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace, "labels": {"name": namespace}}}
    return Rendered((Document(obj, NAMESPACE_SOURCE, -1), *desired.resources), desired.hooks, desired.crds,
                    desired.dropped)


def _has_namespace_template(desired: Rendered, namespace: str) -> bool:
    return any(d.obj.get("kind") == "Namespace" and (d.obj.get("metadata") or {}).get("name") == namespace
               for d in desired.resources)


def namespace_notes(deploy: DeployFlags, fresh: bool, namespace: str, exists: bool | None,
                    desired: Rendered) -> tuple[Rendered, list[Warning]]:
    """What --create-namespace does. Helm creates the namespace only when it installs (`upgrade
    --install` of a release that does not exist), and ignores an "already exists" answer.
    `exists` is None when the cluster was not asked."""
    if not fresh:
        if deploy.create_namespace:
            return desired, [warn(CreateNamespaceIgnored(namespace=namespace))]
        return desired, []
    if deploy.create_namespace:
        if exists:
            return desired, [warn(NamespaceExists(namespace=namespace))]
        if _has_namespace_template(desired, namespace):
            return desired, [warn(NamespaceTwice(namespace=namespace))]
        return with_namespace(desired, namespace), [warn(CreateNamespace(namespace=namespace,
                                                                         checked=exists is not None))]
    # Without it, a namespace the cluster does not have is a predicted failure of the planner's
    # own (core/validate.py namespace_warning).
    return desired, []


def _jobs(desired: Rendered) -> list[str]:
    return [str((d.obj.get("metadata") or {}).get("name", "")) for d in desired.resources if d.obj.get("kind") == "Job"]


def behaviour_notes(deploy: DeployFlags, helm_major: int, fresh: bool, previous_revision: int, desired: Rendered,
                    labels: Mapping[str, str], pruned: Sequence[int], history_max: int,
                    server_side: bool = False) -> list[Warning]:
    """Notes for the flags that change how Helm applies and records, not what it renders."""
    notes: list[Warning] = []
    if deploy.no_hooks:
        notes.append(warn(NoHooks(install=fresh)))
    if deploy.force or deploy.force_replace:
        # An install fails only if it adopts live objects: the planner says so (core/adoption.py).
        flag = "--force" if helm_major < 4 or not deploy.force_replace else "--force-replace"
        notes.append(force_replace_note(flag, server_side and not fresh))
    if labels:
        given = {k: None if v == "null" else v for k, v in labels.items()}
        notes.append(warn(ReleaseLabels(labels=given, install=fresh,
                                        previous_revision=0 if fresh else previous_revision)))
    if deploy.description is not None:
        notes.append(warn(Description(description=deploy.description)))
    if pruned:
        notes.append(warn(HistoryPruned(history_max=history_max, revisions=tuple(pruned))))
    waits = deploy.wait.lower() not in ("", "false", "0", "f", "hookonly")
    if deploy.atomic or deploy.rollback_on_failure:
        flag = "--rollback-on-failure" if deploy.rollback_on_failure else "--atomic"
        notes.append(warn(Atomic(flag=flag, install=fresh, previous_revision=0 if fresh else previous_revision)))
        waits = True
    jobs = _jobs(desired)
    if deploy.wait_for_jobs and jobs:
        notes.append(warn(WaitForJobs(jobs=tuple(jobs), waits=waits, timeout=deploy.timeout or TIMEOUT_DEFAULT)))
    if not deploy.install and fresh:
        notes.append(warn(InstallFlag()))
    return notes


def kube_version_note(chart: str, kube_default: str, cluster_version: str, older: str,
                      differing: tuple[ResourceRef, ...]) -> Warning:
    """No --kube-version, offline, for templates that read the cluster's version: rendered for
    helm template's default (and the cluster runs `cluster_version`, when the plan read it). A
    warning unless the render for the `older` version ("" when none was made) has the same
    objects (`differing` lists those it has differently)."""
    facts = KubeVersionDefault(chart=chart, kube_version=kube_default.lstrip("v"), cluster_version=cluster_version,
                               compared_version=older, differing=differing[:3], differing_count=len(differing))
    return warn(facts, severity=Severity.INFO if older and not differing else None)
