"""Each warning code in words: one function per code, from its facts (deployah_plan/facts.py).

Every writer says a warning with `message`, and the JSON plan's `message` is the same text, so a
code is worded here and nowhere else. A function takes the code's facts and the warning (its
resource, whether it fails) and returns one line; names and values from a manifest are left as
they are, for each writer to escape as its medium needs.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, cast

import msgspec

from deployah_plan.facts import (
    ApiDeprecated, ApiNotServed, Atomic, Cascade, Collision, CrdChangeUnknown, CrdLive, CrdMissing, CrdNotCreated,
    CrdNotUpgraded, CrdVersionRemoved, CrdsUntouched, CreateNamespace, CreateNamespaceIgnored, DataLoss,
    DeprecatedFlag, Description, DroppedDocument, EmptyRender, EquivalentOnly, Field, ForceReplace, HistoryDeleted,
    HistoryPruned, HookCollision, HookCollisionRule, Immutable, InstallFlag, Judged, KeepFromManifest, KeepHistory,
    KindsNotChecked, KubeVersionAssumed, KubeVersionDefault, LookupOffline, Loss, NamespaceExists, NamespaceMissing,
    NamespaceTwice, NoHooks, NotServedRule, OwnershipCheck, OwnershipProblem, PreviousNotDeployed, ProblemKind,
    PvcExpandRefused, Quantity, Reinstall, ReleaseLabels, ReuseValuesOffline, Role, SchemaInvalid, SchemaProblem,
    SchemaType, SsaConflict, StoredVersions, SubchartsCarried, UninstallNotOwned, UnknownField, UnknownFieldRule,
    ValuesReused, VersionSource, WaitForJobs,
)
from deployah_plan.codes import Code, Severity
from deployah_plan.model import HelmAction, Ownership, ResourceRef, Warning
from deployah_plan.render.words import Wording, plural, readable_path

_SAYS: dict[Code, Callable[[Any, Warning], str]] = {}
says = Wording(_SAYS)  # @says(Code.X): the function that words code X


def message(warning: Warning) -> str:
    """The warning in one line: worded from its facts, or as written when it holds none."""
    if warning.facts is None:
        return warning.said
    return _SAYS[warning.code](warning.facts, warning)


def worded() -> frozenset[Code]:
    """The codes this module words (a test holds it to the table)."""
    return frozenset(_SAYS)


def _s(items: Any) -> str:
    return "s" if len(items) > 1 else ""


def _fields(fields: tuple[Field, ...]) -> str:
    return ", ".join(dict.fromkeys(readable_path(f.path, f.keys.items()) for f in fields))


# -- what Kubernetes does with the objects ------------------------------------------------------

@says(Code.IMMUTABLE)
def immutable(facts: Immutable, warning: Warning) -> str:
    return (f"{warning.resource}: this upgrade will fail: it changes immutable field{_s(facts.fields)} "
            f"{_fields(facts.fields)}; the object must be deleted and created again (or given a new name)")


_LOSES = {
    Loss.VOLUME: "its volume, and the data on it, goes too when the reclaim policy is Delete",
    Loss.NAMESPACE_OBJECTS: "every object in the namespace is deleted with it, whether Helm manages it or not",
    Loss.CUSTOM_RESOURCES: "every custom resource of that kind, in every namespace, is deleted with it",
}


@says(Code.DATA_LOSS)
def data_loss(facts: DataLoss, warning: Warning) -> str:
    return f"{warning.resource} is deleted: {_LOSES[facts.loses]}"


@says(Code.SSA_CONFLICT)
def ssa_conflict(facts: SsaConflict, warning: Warning) -> str:
    by: dict[tuple[str, ...], list[str]] = {}
    for f in facts.fields:
        by.setdefault(f.managers, []).append(readable_path(f.path, f.keys.items()))
    owned = "; ".join(f"{', '.join(paths)} (owned by {_managers(managers)})" for managers, paths in by.items())
    return (f"{warning.resource}: server-side apply conflicts on {owned}: the upgrade fails unless conflicts are "
            "forced (--force-conflicts takes the fields from those managers); the object is left as it is live, "
            "Helm still applies the release's other objects, then stops before deleting any object that leaves "
            "the release")


def _managers(managers: tuple[str, ...]) -> str:
    if not managers:
        return "another field manager"
    return ("field manager " if len(managers) == 1 else "field managers ") + ", ".join(managers)


# -- what the API server refuses (core/validate.py, commands/diff.py, commands/uninstall.py) ------
# (section: validate)

_SOURCE = {
    VersionSource.FLAG: "from --kube-version",
    VersionSource.NEWEST_KNOWN: "the newest version helm plan knows",
    VersionSource.TEMPLATE_DEFAULT: "helm template's default; set it with --kube-version",
    VersionSource.CLUSTER_DISCOVERY: "the cluster's discovery",
    VersionSource.CLUSTER_OPENAPI: "the cluster's OpenAPI",
}
_ROLE = {Role.RELEASE: "", Role.HOOK: "hook", Role.CHART_CRD: "chart CRD",
         Role.PREVIOUS_RELEASE: "previous release"}
_WANTS = {
    SchemaType.STRING: "a string", SchemaType.INTEGER: "an integer", SchemaType.NUMBER: "a number",
    SchemaType.BOOLEAN: "a boolean", SchemaType.QUANTITY: "a quantity (string or number)",
    SchemaType.INT_OR_STRING: "an integer or a string", SchemaType.OBJECT: "an object",
    SchemaType.LIST: "a list", SchemaType.MAP: "a map",
}
_FOUND = {"boolean": "a boolean", "integer": "an integer", "number": "a number", "string": "a string",
          "list": "a list", "object": "an object"}


def _judged(judged: Judged) -> str:
    return f"Kubernetes {judged.kube_version} ({_SOURCE[judged.source]})"


def _object(role: Role, warning: Warning) -> str:
    """The object a check names: "hook Job/ns/migrate", or the object alone."""
    what = _ROLE[role]
    return f"{what} {warning.resource}" if what else str(warning.resource)


def _no_matches(kind: str, api_version: str) -> str:
    return f"Helm fails with \"no matches for kind {kind} in version {api_version}\""


def _schema_path(path: tuple[str | int, ...]) -> str:
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        elif step.replace("-", "").replace("_", "").isalnum():
            out += f".{step}" if out else step
        else:
            out += f"[{step!r}]"
    return out


def _problem(problem: SchemaProblem) -> str:
    path = _schema_path(problem.path)
    if problem.problem is ProblemKind.REQUIRED:
        return f"{path} is required"
    if problem.problem is ProblemKind.UNKNOWN:
        return f"{path} is unknown" + (f" (did you mean {_schema_path(problem.near)}?)" if problem.near is not None else "")
    wants = _WANTS[problem.wants] if problem.wants is not None else "another type"
    return f"{path} is {_FOUND.get(problem.found, problem.found)} where the schema wants {wants}"


def _problems(problems: tuple[SchemaProblem, ...]) -> str:
    return "; ".join(_problem(p) for p in problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")


def _schema_of(judged: Judged | None, object_meta: bool = False) -> str:
    if judged is None:
        return "its CRD's schema"
    return f"the ObjectMeta schema of {_judged(judged)}" if object_meta else f"the schema of {_judged(judged)}"


@says(Code.API_NOT_SERVED)
def api_not_served(facts: ApiNotServed, warning: Warning) -> str:
    what = _object(facts.role, warning)
    if facts.rule is NotServedRule.CRD_VERSION or facts.judged is None:
        offered = ", ".join(facts.served) or "none"
        return (f"{what}: {facts.api_version} is not a version the chart's CRD for {facts.kind} serves (it serves "
                f"{offered}): {_no_matches(facts.kind, facts.api_version)}; use a served version")
    when = f" (removed in {facts.removed_in})" if facts.removed_in else ""
    fix = f"use {facts.replacement}" if facts.replacement else "move to a version the cluster serves"
    if facts.role is Role.PREVIOUS_RELEASE:
        fix = (f"the previous release's manifest must be rewritten first (the helm-mapkubeapis plugin does it), "
               f"and the chart must {fix}")
    said = f"{what}: {facts.api_version} {facts.kind} is not served by {_judged(facts.judged)}{when}"
    if facts.rule is NotServedRule.ASSUMED_VERSION:
        return f"{said}; pass --kube-version with your cluster's version to know whether Helm fails; {fix}"
    if facts.rule is NotServedRule.OFFLINE_DEFAULTS:
        return (f"{said}; rendered with helm's offline capabilities, a chart may pick another apiVersion against a "
                f"real cluster: plan with --kube-version or a cluster to know whether Helm fails; {fix}")
    return f"{said}: {_no_matches(facts.kind, facts.api_version)}; {fix}"


@says(Code.API_DEPRECATED)
def api_deprecated(facts: ApiDeprecated, warning: Warning) -> str:
    return (f"{facts.api_version} {facts.kind} is served by {_judged(facts.judged)}, and removed in Kubernetes "
            f"{facts.removed_in}" + (f": move to {facts.replacement}" if facts.replacement else ""))


@says(Code.CRD_MISSING)
def crd_missing(facts: CrdMissing, warning: Warning) -> str:
    if facts.chart_crd is not None:
        return (f"{_object(facts.role, warning)}: the cluster does not serve {facts.kind} in {facts.api_version}, "
                f"and its CRD is in the chart's crds/ ({facts.chart_crd}), which Helm creates only on install (without "
                f"--skip-crds): {_no_matches(facts.kind, facts.api_version)}; apply the CRD first (kubectl apply -f)")
    return (f"{_object(facts.role, warning)}: the cluster does not serve {facts.kind} in {facts.api_version} and no "
            f"CRD in this chart defines it: {_no_matches(facts.kind, facts.api_version)}; install the CRD first (or "
            "add it to the chart's crds/)")


@says(Code.SCHEMA_INVALID)
def schema_invalid(facts: SchemaInvalid, warning: Warning) -> str:
    return (f"{_object(facts.role, warning)}: the API server rejects it: {_problems(facts.problems)} (judged against "
            f"{_schema_of(facts.judged, facts.object_meta)}); fix the values or the template")


@says(Code.UNKNOWN_FIELD)
def unknown_field(facts: UnknownField, warning: Warning) -> str:
    what, fields = _object(facts.role, warning), _problems(facts.problems)
    if facts.rule is UnknownFieldRule.VALIDATION_DISABLED:
        return f"{what}: unknown fields, dropped by the API server (--disable-openapi-validation): {fields}"
    if facts.rule is UnknownFieldRule.STRICT:
        return (f"{what}: server-side apply with strict field validation rejects unknown fields: {fields} (judged "
                f"against {_schema_of(facts.judged, facts.object_meta)}); fix the field names, or pass --disable-openapi-validation to "
                "have them dropped")
    return (f"{what}: unknown fields, dropped by the API server with a warning (client-side apply): {fields} (judged "
            f"against {_schema_of(facts.judged, facts.object_meta)})")


@says(Code.KINDS_NOT_CHECKED)
def kinds_not_checked(facts: KindsNotChecked, warning: Warning) -> str:
    kinds = [f"{k.kind} ({k.api_version})" for k in facts.kinds]
    return (f"not checked offline: {', '.join(kinds[:5])}{', ...' if len(kinds) > 5 else ''} (no CRD in this chart "
            "defines them; plan with a cluster to check that it serves them)")


@says(Code.NAMESPACE_MISSING)
def namespace_missing(facts: NamespaceMissing, warning: Warning) -> str:
    return (f"namespace {facts.namespace} does not exist in the cluster: Helm fails with namespaces "
            f"\"{facts.namespace}\" not found; pass --create-namespace, or create the namespace first")


@says(Code.HOOK_COLLISION)
def hook_collision(facts: HookCollision, warning: Warning) -> str:
    policy = ", ".join(facts.delete_policies)
    if facts.rule is HookCollisionRule.EXISTS:
        return (f"hook {warning.resource} exists in the cluster and its delete policy ({policy}) lacks "
                "before-hook-creation: Helm fails creating it with \"already exists\"; delete it first, or add "
                "before-hook-creation to helm.sh/hook-delete-policy")
    if facts.rule is HookCollisionRule.EXISTS_SERVER_SIDE:
        return (f"hook {warning.resource} exists in the cluster and its delete policy ({policy}) lacks "
                "before-hook-creation: server-side apply updates the old object instead of running a new one")
    return (f"hook {warning.resource}: its delete policy ({policy}) lacks before-hook-creation, so an object left by "
            "an earlier run makes Helm fail with \"already exists\" (the live state was not read); add "
            "before-hook-creation to be safe")


@says(Code.KUBE_VERSION_ASSUMED)
def kube_version_assumed(facts: KubeVersionAssumed, warning: Warning) -> str:
    return (f"objects judged against Kubernetes {facts.kube_version}, the newest version helm plan knows: pass "
            "--kube-version with your cluster's version to judge against it")


@says(Code.KEEP_HISTORY)
def keep_history(facts: KeepHistory, warning: Warning) -> str:
    return f"--keep-history: revision {facts.revision} is kept, marked uninstalled"


@says(Code.UNINSTALL_NOT_OWNED)
def uninstall_not_owned(facts: UninstallNotOwned, warning: Warning) -> str:
    whose = f"belongs to release {facts.owner_release}" if facts.owner_release else "has no Helm ownership metadata"
    return (f"{warning.resource} {whose} ({ownership_reason(facts.problems)}): Helm 4 skips it, as not owned by "
            f"release {facts.release}, and it stays in the cluster")


@says(Code.CASCADE)
def cascade(facts: Cascade, warning: Warning) -> str:
    if facts.mode == "orphan":
        return ("--cascade orphan: the deleted objects' dependents (a Deployment's ReplicaSets and pods, a Job's "
                "pods) are left running, owned by nothing")
    return (f"--cascade {facts.mode}: each object is deleted only after the API server has deleted its dependents "
            "(a Deployment's ReplicaSets and pods, a Job's pods)")


@says(Code.HISTORY_DELETED)
def history_deleted(facts: HistoryDeleted, warning: Warning) -> str:
    return "the release's history is deleted with it (add --keep-history to keep it)"



# -- what Helm does with the release (core/planner.py, core/ownership.py) ----------------------
# (section: planner)

def _quantities(fields: tuple[Quantity, ...]) -> str:
    return ", ".join(f"{q.field.path.rpartition('/')[2]} {q.before} = {q.after}" for q in fields)


@says(Code.EQUIVALENT_ONLY)
def equivalent_only(facts: EquivalentOnly, warning: Warning) -> str:
    return f"{warning.resource}: only equal quantities written differently ({_quantities(facts.fields)}); not a change"


def _ownership_problem(problem: OwnershipProblem) -> str:
    """One refusal as Helm words it (pkg/action/validate.go requireValue)."""
    if problem.current is None:
        said = f'missing key "{problem.key}": must be set to "{problem.required}"'
    else:
        said = f'key "{problem.key}" must equal "{problem.required}": current value is "{problem.current}"'
    return f"{problem.metadata.value} validation error: {said}"


def ownership_reason(problems: tuple[OwnershipProblem, ...]) -> str:
    """Helm's error for a failed ownership check: "invalid ownership metadata; " and each refusal."""
    return "; ".join(["invalid ownership metadata", *(_ownership_problem(p) for p in problems)])


_ACTION_VERB = {HelmAction.INSTALL: "install", HelmAction.UPGRADE: "upgrade"}


@says(Code.OWNERSHIP)
def ownership(facts: OwnershipCheck, warning: Warning) -> str:
    ref, verb = warning.resource, _ACTION_VERB.get(facts.action, facts.action.value)
    if facts.ownership is Ownership.ADOPT:
        if facts.owner_release:
            return f"{ref} belongs to release {facts.owner_release}: --take-ownership adopts it into {facts.release}"
        return f"{ref} already exists in the cluster: helm adopts it into release {facts.release}"
    if facts.ownership is Ownership.OTHER_RELEASE:
        return (f"{ref} belongs to release {facts.owner_release}: this {verb} fails "
                f"({ownership_reason(facts.problems)}); add --take-ownership to take it over")
    return (f"{ref} exists in the cluster without Helm ownership metadata: this {verb} fails "
            f"({ownership_reason(facts.problems)}); add --take-ownership to adopt it, or delete it first")


@says(Code.COLLISION)
def collision(facts: Collision, warning: Warning) -> str:
    return (f"{warning.resource} is being deleted in the cluster (deletionTimestamp set): creating it collides with "
            "the deletion; wait for it to finish, then deploy")


@says(Code.CRD_VERSION_REMOVED)
def crd_version_removed(facts: CrdVersionRemoved, warning: Warning) -> str:
    versions = f"version{_s(facts.versions)} {', '.join(facts.versions)}"
    if facts.stored_versions is StoredVersions.LIVE:
        return (f"{warning.resource}: this upgrade will fail: it removes {versions}, which the cluster's "
                "status.storedVersions still lists (objects are stored in it), and the API server refuses that; "
                "migrate the stored objects to a kept version and remove it from status.storedVersions first")
    return (f"{warning.resource}: removes {versions}; if the cluster's status.storedVersions still lists it, the API "
            "server refuses the update (the live CRD was not read): migrate the stored objects to a kept version first")


@says(Code.CRDS_UNTOUCHED)
def crds_untouched(facts: CrdsUntouched, warning: Warning) -> str:
    return "CRDs installed from the chart's crds/ directory are never deleted by helm uninstall"


@says(Code.CRD_NOT_UPGRADED)
def crd_not_upgraded(facts: CrdNotUpgraded, warning: Warning) -> str:
    said = f"chart CRD {facts.name} ({facts.source}) changed in the chart, but Helm never upgrades the chart's crds/: "
    if facts.hook is not None:
        hook = f"{facts.hook_resource}" if facts.hook_resource is not None else facts.hook
        return said + (f"the chart's hook {hook}, which runs on this upgrade, likely applies it (its name, labels, "
                       "image or command say so); check that it does before relying on it")
    return said + "apply it yourself (kubectl apply -f) before this upgrade if the new chart needs it"


@says(Code.CRD_NOT_CREATED)
def crd_not_created(facts: CrdNotCreated, warning: Warning) -> str:
    said = f"chart CRD {facts.name} ({facts.source}) is new in the chart, and Helm creates crds/ only on install: "
    if facts.live is CrdLive.DIFFERS:
        said += "the cluster already has it, and this upgrade leaves the cluster's copy, which differs from the chart's"
    elif facts.live is CrdLive.MISSING:
        said += "it is not in the cluster, and this upgrade does not create it"
    else:
        said += "this upgrade does not create it"
        if facts.custom_resources:
            said += (f", so the chart's {plural(facts.custom_resources, 'custom resource')} of its kind fail unless the "
                     "cluster already has it")
    if facts.hook is not None:
        hook = f"{facts.hook_resource}" if facts.hook_resource is not None else facts.hook
        return said + (f"; the chart's hook {hook}, which runs on this upgrade, likely applies it (its name, labels, "
                       "image or command say so): check that it does before relying on it")
    return said + "; apply it yourself (kubectl apply -f) before this upgrade if the new chart needs it"


@says(Code.CRD_CHANGE_UNKNOWN)
def crd_change_unknown(facts: CrdChangeUnknown, warning: Warning) -> str:
    names = ", ".join(facts.names)
    if facts.live is CrdLive.DIFFERS:
        return (f"dependency chart {facts.dependency}'s CRDs differ in the cluster from the new chart's ({names}), "
                "and Helm never upgrades crds/: apply them yourself (kubectl apply -f) before this upgrade if the "
                "new chart needs them")
    if facts.live is CrdLive.MISSING:
        return (f"dependency chart {facts.dependency}'s CRDs are not in the cluster ({names}), and Helm creates "
                "crds/ only on install: apply them yourself (kubectl apply -f) before this upgrade if the new chart "
                "needs them")
    return (f"dependency chart {facts.dependency} brings CRDs in its crds/ ({names}); the release record keeps no "
            "dependency charts and the live CRDs were not read, so whether they changed cannot be told, and Helm "
            "never upgrades crds/: compare them with the cluster's (kubectl diff -f) before this upgrade")


@says(Code.EMPTY_RENDER)
def empty_render(facts: EmptyRender, warning: Warning) -> str:
    hooks = f" (only {plural(facts.desired_hooks, 'hook')})" if facts.desired_hooks else ""
    n = facts.previous_resources
    return (f"the desired render has no resources{hooks} while the previous release has {plural(n, 'resource')}: "
            f"this deletes {'it' if n == 1 else f'all {n}'}; a failed render (a template that printed nothing) or a "
            "wrong values file is the likely cause: check the render before deploying")


KEEP_NAMED = 3  # objects a keep-from-manifest note names; the rest are "..."


@says(Code.KEEP_FROM_MANIFEST)
def keep_from_manifest(facts: KeepFromManifest, warning: Warning) -> str:
    named = ", ".join(str(ref) for ref in facts.objects[:KEEP_NAMED])
    more = ", ..." if len(facts.objects) > KEEP_NAMED else ""
    return ("whether Helm keeps an object that leaves the release depends on the live object's "
            f"helm.sh/resource-policy annotation; where the live object was not read ({named}{more}), "
            "the previous manifest's was used")


@says(Code.DROPPED_DOCUMENT)
def dropped_document(facts: DroppedDocument, warning: Warning) -> str:
    where = facts.source or (f"{facts.kind}/{facts.name}" if facts.name else f"{facts.kind} (no name)")
    return f"{where}: unknown hook event {facts.event!r}; Helm skips this document"


# -- what a flag of the command changes (commands/upgrade_flags.py, commands/upgrade.py) --------
# (section: commands)

def _action(install: bool) -> str:
    return "install" if install else "upgrade"


@says(Code.DEPRECATED_FLAG)
def deprecated_flag(facts: DeprecatedFlag, warning: Warning) -> str:
    return f"{facts.flag} is deprecated in Helm 4 (it still works as {facts.replacement})"


@says(Code.CREATE_NAMESPACE_IGNORED)
def create_namespace_ignored(facts: CreateNamespaceIgnored, warning: Warning) -> str:
    return f"--create-namespace only applies to an install: release namespace {facts.namespace} is left as it is"


@says(Code.NAMESPACE_EXISTS)
def namespace_exists(facts: NamespaceExists, warning: Warning) -> str:
    return f"--create-namespace: namespace {facts.namespace} already exists, so helm leaves it as it is"


@says(Code.NAMESPACE_TWICE)
def namespace_twice(facts: NamespaceTwice, warning: Warning) -> str:
    return (f"--create-namespace creates namespace {facts.namespace} before the release, and the chart declares it "
            "too: creating the chart's copy will fail with \"already exists\"")


@says(Code.CREATE_NAMESPACE)
def create_namespace(facts: CreateNamespace, warning: Warning) -> str:
    note = (f"--create-namespace: helm creates namespace {facts.namespace} before installing; it is not part of the "
            "release, and helm uninstall leaves it")
    return note if facts.checked else note + " (whether it already exists was not checked: no cluster)"


@says(Code.NO_HOOKS)
def no_hooks(facts: NoHooks, warning: Warning) -> str:
    return f"--no-hooks: no hook runs on this {_action(facts.install)}"


@says(Code.FORCE_REPLACE)
def force_replace(facts: ForceReplace, warning: Warning) -> str:
    if facts.server_side:
        what = (f"on an install that adopts {plural(facts.adopted, 'existing object')} (updated, server-side)"
                if facts.adopted else "on a server-side apply")
        return (f"{facts.flag} {what}: Helm 4 fails with \"invalid operation: cannot use server-side "
                "apply and force replace together\" (after the pre-hooks run); add --server-side=false to replace "
                f"client-side, or drop {facts.flag}")
    return (f"{facts.flag}: each updated object is replaced (the whole rendered object is PUT) instead of patched, "
            "so fields only the live object has are dropped")


@says(Code.RELEASE_LABELS)
def release_labels(facts: ReleaseLabels, warning: Warning) -> str:
    shown = ", ".join(f"{k} removed" if v is None else f"{k}={v}" for k, v in sorted(facts.labels.items()))
    merged = "" if facts.install else f" (merged into revision {facts.previous_revision}'s labels, as helm merges them)"
    return f"--labels: the new revision's release labels: {shown}{merged}"


@says(Code.DESCRIPTION)
def description(facts: Description, warning: Warning) -> str:
    return f"--description: the new revision is recorded as {facts.description!r}"


@says(Code.HISTORY_PRUNED)
def history_pruned(facts: HistoryPruned, warning: Warning) -> str:
    listed = ", ".join(str(r) for r in facts.revisions)
    return (f"--history-max {facts.history_max}: helm deletes the record of revision{_s(facts.revisions)} {listed} "
            "(its oldest) when it records the new one; they can no longer be rolled back to")


@says(Code.ATOMIC)
def atomic(facts: Atomic, warning: Warning) -> str:
    undo = "helm uninstalls the release" if facts.install else f"helm rolls back to revision {facts.previous_revision}"
    return f"{facts.flag}: if this {_action(facts.install)} fails, {undo} (and waits for resources to be ready)"


_JOBS_SHOWN = 5  # the Jobs a --wait-for-jobs note names, then "..."


@says(Code.WAIT_FOR_JOBS)
def wait_for_jobs(facts: WaitForJobs, warning: Warning) -> str:
    shown = ", ".join(facts.jobs[:_JOBS_SHOWN]) + (", ..." if len(facts.jobs) > _JOBS_SHOWN else "")
    if facts.waits:
        return f"--wait-for-jobs: helm waits up to {facts.timeout} for Job{_s(facts.jobs)} {shown} to complete"
    return f"--wait-for-jobs has no effect without --wait: helm does not wait for Job{_s(facts.jobs)} {shown}"


@says(Code.INSTALL_FLAG)
def install_flag(facts: InstallFlag, warning: Warning) -> str:
    return "planned as helm upgrade --install: without --install, helm upgrade fails on a release that does not exist"


@says(Code.REUSE_VALUES_OFFLINE)
def reuse_values_offline(facts: ReuseValuesOffline, warning: Warning) -> str:
    return ("--reuse-values rendered offline: values are the previous release's computed values plus your overrides; "
            "Helm also ignores defaults that only the new chart has, which this render includes")


@says(Code.VALUES_REUSED)
def values_reused(facts: ValuesReused, warning: Warning) -> str:
    return f"no values given: like helm upgrade, the values of revision {facts.revision} are used again"


@says(Code.SUBCHARTS_CARRIED)
def subcharts_carried(facts: SubchartsCarried, warning: Warning) -> str:
    return (f"chart {facts.chart} has subcharts ({', '.join(facts.subcharts)}), which Helm does not store with a "
            "release: their objects are carried from the stored manifest as they are (their apiVersions are still "
            "judged), not rendered again for the target version; plan the upgrade with the chart itself "
            "(helm plan upgrade --reuse-values --render template --kube-version) to see them rendered")


@says(Code.LOOKUP_OFFLINE)
def lookup_offline(facts: LookupOffline, warning: Warning) -> str:
    return (f"chart {facts.chart} calls `lookup`, which returns nothing when rendered offline; with a cluster, plan "
            "with --render server")


@says(Code.KUBE_VERSION_DEFAULT)
def kube_version_default(facts: KubeVersionDefault, warning: Warning) -> str:
    rendered = (f"rendered for Kubernetes {facts.kube_version}, helm template's default" if facts.kube_version
                else "rendered for helm template's default Kubernetes version")
    said = f"{rendered}: the templates of chart {facts.chart} read the cluster's version"
    if facts.compared_version and facts.differing_count:
        named = ", ".join(str(ref) for ref in facts.differing)
        more = facts.differing_count - len(facts.differing)
        said = (f"{rendered}; for {facts.compared_version} the templates of chart {facts.chart} render "
                f"{named}{f' and {more:,} more' if more > 0 else ''} differently")
    elif facts.compared_version:
        said += f", and render the same objects for {facts.compared_version}"
    if facts.cluster_version:
        return (f"{said}, and the cluster runs {facts.cluster_version}; pass --kube-version {facts.cluster_version} "
                "(or --render server) to render for it")
    return f"{said}; pass --kube-version with your cluster's version to render for it"


@says(Code.PREVIOUS_NOT_DEPLOYED)
def previous_not_deployed(facts: PreviousNotDeployed, warning: Warning) -> str:
    return (f"no deployed revision: planned against revision {facts.revision}, whose status is {facts.status}, as "
            "helm upgrade does")


@says(Code.REINSTALL)
def reinstall(facts: Reinstall, warning: Warning) -> str:
    return f"release {facts.release} was uninstalled with its history kept: helm upgrade --install installs it again"



# -- what the deploy does to running things (core/impact/) ------------------------------------
# (section: impact)

@says(Code.PVC_EXPAND_REFUSED)
def pvc_expand_refused(facts: PvcExpandRefused, warning: Warning) -> str:
    # The same line as the data-pvc-expand impact's for a StorageClass that refuses.
    return (f"{warning.resource}: storage {facts.storage_before} -> {facts.storage_after}: StorageClass "
            f"{facts.storage_class} does not allow volume expansion: the API server refuses it and this upgrade fails")


# -- warnings said together --------------------------------------------------------------------
# Warnings of one code whose facts differ only by the object they are about (21 chart CRDs
# that changed, the same rule broken by 5 objects) are said once, as one line with a count, the
# objects listed under it. They group by code and facts, never by their text: the facts with
# the object's own fields taken out must be equal (the object is `warning.resource`, and for a
# code about something that is no resource, the facts fields that name it, in _OBJECT_FACTS).

_OBJECT_FACTS: dict[Code, tuple[str, ...]] = {Code.CRD_NOT_UPGRADED: ("name", "source"),
                                               Code.CRD_NOT_CREATED: ("name", "source", "custom_resources")}
_MANY: dict[Code, Callable[[tuple[Warning, ...]], str]] = {}


# @says_many(Code.X): the function that words several warnings of code X at once (else
# `message` words the first with "N objects" for its object).
says_many = Wording(_MANY)


def importance(warning: Warning) -> int:
    """Where a warning goes among others, most important first: a predicted failure, a data
    loss (or any code shown loud), a warning, a note."""
    if warning.fails:
        return 0
    if warning.code.loud:
        return 1
    return 2 if warning.severity is Severity.WARNING else 3


def _group_key(warning: Warning) -> tuple[Any, ...] | None:
    facts = warning.facts
    fields = _OBJECT_FACTS.get(warning.code, ())
    if facts is None or (warning.resource is None and not fields):
        return None
    blank = msgspec.structs.replace(facts, **{name: "" for name in fields}) if fields else facts
    # Its repr names every field's value, as a key must (facts may hold lists, which do not hash).
    return (warning.code.value, warning.fails, warning.severity, repr(blank))


def grouped(warnings: Iterable[Warning]) -> list[tuple[Warning, ...]]:
    """The warnings in groups said as one line (see above), in order of first appearance; a
    warning alone is a group of one."""
    groups: dict[Any, list[Warning]] = {}
    for n, warning in enumerate(warnings):
        key = _group_key(warning)
        groups.setdefault(key if key is not None else n, []).append(warning)
    return [tuple(group) for group in groups.values()]


class _Several:
    """What a warning's words name as its object when they say several objects at once."""

    def __init__(self, count: int) -> None:
        self.count = count

    def __str__(self) -> str:
        return f"each of {self.count:,} objects"


def group_message(group: tuple[Warning, ...]) -> str:
    """A group of warnings (`grouped`) in one line: the warning's own for a group of one."""
    first = group[0]
    if len(group) == 1:
        return message(first)
    if first.code in _MANY:
        return _MANY[first.code](group)
    return message(msgspec.structs.replace(first, resource=cast(ResourceRef, _Several(len(group)))))


def member(warning: Warning) -> str:
    """The object a warning of a group is about, as the list under the group's line names it."""
    if isinstance(warning.facts, (CrdNotUpgraded, CrdNotCreated)):
        return f"{warning.facts.name} ({warning.facts.source})"
    return str(warning.resource)


@says_many(Code.CRD_NOT_UPGRADED)
def crds_not_upgraded(group: tuple[Warning, ...]) -> str:
    return (f"{len(group):,} chart CRDs changed in the chart, but Helm never upgrades the chart's crds/: apply them "
            "yourself (kubectl apply -f) before this upgrade if the new chart needs them")


@says_many(Code.CRD_NOT_CREATED)
def crds_not_created(group: tuple[Warning, ...]) -> str:
    facts = cast(CrdNotCreated, group[0].facts)
    said = f"{len(group):,} chart CRDs are new in the chart, and Helm creates crds/ only on install: "
    if facts.live is CrdLive.DIFFERS:
        said += "the cluster already has them, and this upgrade leaves the cluster's copies, which differ from the chart's"
    elif facts.live is CrdLive.MISSING:
        said += "they are not in the cluster, and this upgrade does not create them"
    else:
        said += "this upgrade does not create them"
        resources = sum(cast(CrdNotCreated, w.facts).custom_resources for w in group)
        if resources:
            said += (f", so the chart's {plural(resources, 'custom resource')} of their kinds fail unless the cluster "
                     "already has them")
    if facts.hook is not None:
        hook = f"{facts.hook_resource}" if facts.hook_resource is not None else facts.hook
        return said + f"; the chart's hook {hook}, which runs on this upgrade, likely applies them: check that it does"
    return said + "; apply them yourself (kubectl apply -f) before this upgrade if the new chart needs them"


def members_title(group: tuple[Warning, ...]) -> str:
    """What the list under a group's line is called."""
    what = "chart CRDs" if group[0].code in (Code.CRD_NOT_UPGRADED, Code.CRD_NOT_CREATED) else "objects"
    return f"the {len(group):,} {what}"


_LEVEL_WORD = {"error": "predicted failure", "warning": "warning", "notice": "note"}


def not_annotated(left: Mapping[str, int], annotations: int, limit: int) -> str:
    """Why some findings have no annotation (GitHub shows `limit` of each level per step)."""
    counts = ", ".join(plural(left[level], _LEVEL_WORD[level]) for level in _LEVEL_WORD if left.get(level))
    return (f"{sum(left.values())} of {annotations} findings not annotated ({counts}): GitHub shows at most {limit} "
            "annotations of each level per step; the most important are annotated, and the job summary (the plan as "
            "markdown) lists every one")


def warning_pointer(code: str, in_head: bool) -> str:
    """Under an object in the comment: its warning is said above, once (markdown)."""
    return f"{code}: {'said in what matters' if in_head else 'said among the warnings'}, above"
