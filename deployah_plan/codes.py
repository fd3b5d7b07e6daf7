"""Every warning code, declared once with everything that varies with it.

A `Code` member carries its wire value (what the JSON plan and `--fail-on warning:CODE` name),
the severity it is shown with, whether it predicts a failure (`Fails`) and which check makes
that prediction, whether that failure stops Helm before it applies any of the release's objects
(`stops`: then nothing rolls out, and the plan predicts no impact), the `--fail-on` gate family
that also matches it (`gate`), how an object's line
labels it (`label`), whether it is shown loud when it does not fail (`loud`), and the text the
published schema gives it (`description`). Gates, renderers and the schema's `warning_code`
list derive from this table (`scripts/gen-schema-codes` writes the list, from
scripts/schema_tables.py; a test keeps the two in step).

To add a code: add a member below, run `scripts/gen-schema-codes` (a new code is a minor
format version, see docs/output.md), and make the warning where the check finds it with
its facts (a `Facts` class in deployah_plan/facts.py), `model.warn(NewFacts(...), ...)`, and its
words (render/words/warning.py). A code that may predict a failure names that check
(`check`): the table is the list of failure checks, and a test holds each check to its code.

A warning rebuilt from JSON may hold a code this table does not know (a newer helm plan's):
`Code(value)` then answers a stand-in member (not listed in `Code`, `known` false) that keeps
the value, so the reader, the gates and the writers keep it as written (its `fails` and
severity are the document's).
"""
from __future__ import annotations

import enum
from typing import ClassVar

from msgspec import Struct


class Severity(enum.Enum):
    INFO = "info"
    WARNING = "warning"


class Fails(enum.Enum):
    """Whether a code predicts a failure: Helm stops on it and the action does not complete."""

    NEVER = "never"
    ALWAYS = "always"
    SOMETIMES = "sometimes"  # the check says, case by case (`warn(..., fails=True)`)


class _Entry(Struct, frozen=True):
    value: str
    description: str
    severity: Severity = Severity.INFO
    fails: Fails = Fails.NEVER
    check: str = ""  # the function that predicts the failure (module.function), when it may fail
    gate: str = ""  # a --fail-on family besides the code's own name and its CODE-... variants
    label: str | None = None  # on the object's line when it fails (None: the code itself; "": none)
    loud: bool = False  # shown like a failure although it is not one
    stops: bool = False  # its failure stops Helm before it applies any object of the release


_WARN = Severity.WARNING
_VALIDATE = "deployah_plan.core.validate"
_PLANNER = "deployah_plan.core.planner"


class Code(str, enum.Enum):
    """A warning code: see the module docstring. The order is the schema's."""

    IMMUTABLE = _Entry(
        "immutable", "An update changes a field the API server will not change in place (a selector, a Job's "
        "template, a PVC's spec beyond a storage increase, ...): the upgrade fails unless the object is deleted and "
        "created again.", severity=_WARN, fails=Fails.ALWAYS, check="deployah_plan.core.lifecycle.consequences",
        gate="immutable", label="changes an immutable field")
    DATA_LOSS = _Entry(
        "data-loss", "A PersistentVolumeClaim, Namespace or CustomResourceDefinition is deleted, and the data it "
        "holds with it.", severity=_WARN, loud=True)
    OWNERSHIP = _Entry(
        "ownership", "An object the plan creates already exists in the cluster: adopted (info), or Helm's "
        "ownership check fails (warning: no Helm ownership metadata, or another release's).",
        fails=Fails.SOMETIMES, check=f"{_PLANNER}._ownership_warning", gate="ownership",
        label="",  # the line says "ownership" itself
        stops=True)  # pkg/action/upgrade.go and install.go: "Unable to continue", before any hook or apply
    COLLISION = _Entry(
        "collision", "An object the plan creates is being deleted in the cluster (deletionTimestamp set): creating "
        "it collides with the deletion.", severity=_WARN, fails=Fails.ALWAYS, check=f"{_PLANNER}._ownership_warning",
        gate="ownership", label="collides with a deletion")
    SSA_CONFLICT = _Entry(
        "ssa-conflict", "Server-side apply conflicts on fields another field manager owns: the upgrade fails unless "
        "conflicts are forced.", severity=_WARN, fails=Fails.ALWAYS, check=f"{_PLANNER}._ssa_conflicts", gate="ownership",
        label="server-side apply conflict")
    EQUIVALENT_ONLY = _Entry(
        "equivalent-only", "An object differs only by equal quantities written differently (1000m and 1): not a "
        "change.")
    KEEP_FROM_MANIFEST = _Entry(
        "keep-from-manifest", "Whether an object leaving the release is kept (helm.sh/resource-policy: keep) was "
        "read from the previous manifest, because the live object was not read.")
    CRD_NOT_UPGRADED = _Entry(
        "crd-not-upgraded", "A chart CRD (crds/) changed in the chart, but Helm never upgrades the chart's crds/: "
        "apply it yourself before the upgrade if the new chart needs it; when a hook that runs on this upgrade looks "
        "like it applies CRDs (its name, labels, image or command say so), that hook is named as likely applying it.",
        severity=_WARN)
    CRD_CHANGE_UNKNOWN = _Entry(
        "crd-change-unknown", "CRDs of a dependency chart's crds/ (charts/*/crds/): the release record does not keep "
        "dependency charts, so whether they changed since the previous revision cannot be told from it; Helm never "
        "upgrades crds/ either way. With the live CRDs read, those that differ from the chart's are named.",
        severity=_WARN)
    CRD_NOT_CREATED = _Entry(
        "crd-not-created", "A CRD new in the chart's crds/ on an upgrade: Helm creates crds/ only on install, so "
        "the upgrade does not create it, and custom resources of its kinds fail unless the cluster already has it "
        "(with the live CRDs read and it missing, they are predicted failures: crd-missing). When a hook that runs "
        "on this upgrade looks like it applies CRDs, that hook is named as likely creating it.", severity=_WARN)
    CRD_VERSION_REMOVED = _Entry(
        "crd-version-removed", "An applied CRD leaves out a version. With the live CRD read and that version still "
        "in its status.storedVersions, a predicted failure (the API server refuses the update); without the live "
        "CRD, a warning.", severity=_WARN, fails=Fails.SOMETIMES, check=f"{_PLANNER}._crd_versions",
        label="removes a stored CRD version")
    EMPTY_RENDER = _Entry(
        "empty-render", "The desired render has no resources while the previous release has some: every one of "
        "them would be deleted (a failed render or a wrong values file is the likely cause).", severity=_WARN,
        loud=True)
    CRDS_UNTOUCHED = _Entry(
        "crds-untouched", "helm uninstall never deletes the CRDs installed from the chart's crds/ directory.")
    DROPPED_DOCUMENT = _Entry(
        "dropped-document", "A rendered document Helm drops (an unknown hook event such as crd-install) was left "
        "out, as Helm leaves it out.")
    REUSE_VALUES_OFFLINE = _Entry(
        "reuse-values-offline", "--reuse-values with an offline render: the values are the previous release's "
        "computed values plus the overrides.")
    VALUES_REUSED = _Entry(
        "values-reused", "No values were given: as helm upgrade does, the previous revision's values are used again.")
    LOOKUP_OFFLINE = _Entry(
        "lookup-offline", "The chart calls `lookup`, which returns nothing in an offline render; plan with --render "
        "server for real answers.", severity=_WARN)
    SUBCHARTS_CARRIED = _Entry(
        "subcharts-carried", "helm plan kube-upgrade: the release's chart has subcharts, which Helm does not store "
        "with a release; the objects they made are carried from the stored manifest as they are (their apiVersions "
        "still judged), not rendered again for the target version.", severity=_WARN)
    PREVIOUS_NOT_DEPLOYED = _Entry(
        "previous-not-deployed", "No revision is deployed: the plan is made against the newest failed or superseded "
        "one, as helm upgrade does.")
    REINSTALL = _Entry(
        "reinstall", "The release was uninstalled with its history kept: helm upgrade --install installs it again.")
    KEEP_HISTORY = _Entry(
        "keep-history", "helm uninstall --keep-history: the release's revisions are kept, marked uninstalled.")
    HISTORY_DELETED = _Entry("history-deleted", "helm uninstall deletes the release's history with it.")
    UNINSTALL_NOT_OWNED = _Entry(
        "uninstall-not-owned", "Helm 4.3's uninstall skips an object of the release whose live labels and annotations "
        "do not name this release (another release's, or none): it stays in the cluster.", severity=_WARN)
    CASCADE = _Entry(
        "cascade", "helm uninstall --cascade orphan or foreground: how the deleted objects' dependents (a "
        "Deployment's ReplicaSets and pods, a Job's pods) go.")
    API_NOT_SERVED = _Entry(
        "api-not-served", "The target Kubernetes version does not serve this kind in this apiVersion: Helm fails "
        "before applying anything.", severity=_WARN, fails=Fails.SOMETIMES, check=f"{_VALIDATE}._Predictor.kind",
        stops=True)  # KubeClient.Build of the new manifest fails (pkg/action/upgrade.go, install.go)
    API_DEPRECATED = _Entry(
        "api-deprecated", "This apiVersion is served now and removed in a later Kubernetes version.", severity=_WARN)
    CRD_MISSING = _Entry(
        "crd-missing", "A custom resource whose CRD is neither in the cluster nor in the chart: Helm fails.",
        severity=_WARN, fails=Fails.ALWAYS, check=f"{_VALIDATE}._Predictor.kind", stops=True)  # as api-not-served
    KINDS_NOT_CHECKED = _Entry(
        "kinds-not-checked", "Custom kinds whose CRD is not in the chart, rendered offline: not checked.")
    KUBE_VERSION_ASSUMED = _Entry(
        "kube-version-assumed", "`helm plan diff` without --kube-version judged the objects against the newest "
        "Kubernetes version helm plan knows (named in the message); a kind that version does not serve is then a "
        "warning, not a predicted failure.")
    SCHEMA_INVALID = _Entry(
        "schema-invalid", "A value of the wrong type or a missing required field: the API server rejects the "
        "object.", severity=_WARN, fails=Fails.ALWAYS, check=f"{_VALIDATE}._Predictor.schema")
    UNKNOWN_FIELD = _Entry(
        "unknown-field", "A field the kind does not have: rejected with strict field validation (server-side "
        "apply), else dropped with a warning.", severity=_WARN, fails=Fails.SOMETIMES,
        check=f"{_VALIDATE}._Predictor.schema")
    NAMESPACE_MISSING = _Entry(
        "namespace-missing", "The release namespace does not exist and --create-namespace was not given.",
        severity=_WARN, fails=Fails.ALWAYS, check=f"{_VALIDATE}.namespace_warning")
    HOOK_COLLISION = _Entry(
        "hook-collision", "A hook without before-hook-creation whose previous object may remain: its creation fails "
        "with \"already exists\".", severity=_WARN, fails=Fails.SOMETIMES, check=f"{_VALIDATE}.hook_collisions")
    PVC_EXPAND_REFUSED = _Entry(
        "pvc-expand-refused", "A PersistentVolumeClaim asks for more storage and its StorageClass (read from the "
        "cluster or the release) does not allow volume expansion: the API server refuses it.", severity=_WARN,
        fails=Fails.ALWAYS, check="deployah_plan.core.impact.storage._pvc_size", label="volume expansion refused")
    CREATE_NAMESPACE = _Entry(
        "create-namespace", "helm upgrade --install --create-namespace creates the release namespace before an "
        "install (a create of kind Namespace in the plan, not part of the release).")
    NAMESPACE_EXISTS = _Entry(
        "namespace-exists", "--create-namespace on an install into a namespace that already exists: helm leaves it "
        "as it is.")
    NAMESPACE_TWICE = _Entry(
        "namespace-twice", "--create-namespace and a chart that declares the release namespace too: creating the "
        "chart's copy fails with \"already exists\".", severity=_WARN, fails=Fails.ALWAYS,
        check="deployah_plan.commands.upgrade_flags.namespace_notes")
    CREATE_NAMESPACE_IGNORED = _Entry(
        "create-namespace-ignored", "--create-namespace on an upgrade: helm creates a namespace only when it "
        "installs.")
    NO_HOOKS = _Entry("no-hooks", "--no-hooks: no hook runs on this action.")
    FORCE_REPLACE = _Entry(
        "force-replace", "--force (Helm 3) or --force-replace (Helm 4): updated objects are replaced, not patched; "
        "a predicted failure where Helm 4 updates server-side (an upgrade or rollback applied so, or a server-side "
        "install that adopts existing objects): Helm 4 refuses server-side apply and force replace together.",
        fails=Fails.SOMETIMES, check="deployah_plan.core.adoption.force_replace_note",
        stops=True)  # pkg/kube/client.go Update refuses the pair before it applies anything
    RELEASE_LABELS = _Entry("release-labels", "--labels: the release labels the new revision records.")
    DESCRIPTION = _Entry("description", "--description: the description the new revision records.")
    HISTORY_PRUNED = _Entry(
        "history-pruned", "--history-max: the stored revisions helm deletes when it records the new one.")
    ATOMIC = _Entry(
        "atomic", "--atomic or --rollback-on-failure: what helm does when the action fails (roll back, or uninstall "
        "an install).")
    WAIT_FOR_JOBS = _Entry(
        "wait-for-jobs", "--wait-for-jobs: the Jobs helm waits for (or that it does not wait for, without --wait).")
    INSTALL_FLAG = _Entry(
        "install-flag", "A release that does not exist, planned as helm upgrade --install: without --install, helm "
        "upgrade fails.")
    DEPRECATED_FLAG = _Entry(
        "deprecated-flag", "A flag the helm at hand still takes but deprecates (Helm 4: --atomic, --force).")
    # A render for a Kubernetes version nobody gave (helm template's own default).
    KUBE_VERSION_DEFAULT = _Entry(
        "kube-version-default", "The chart's templates read the cluster's Kubernetes version "
        "(`.Capabilities.KubeVersion`) and `helm template` rendered them for its own default version (named in "
        "the message, with the cluster's when the plan read it), as no --kube-version was given. The chart is "
        "rendered for a version three minors older too (Kubernetes' supported skew), with the same values: a "
        "warning, naming the objects that differ, when they differ (an image tag, an apiVersion), or when that "
        "render could not be made; info when both render the same. Plan with --kube-version, or with the "
        "cluster (--render server).", severity=_WARN)

    _value_: str
    description: str
    severity: Severity
    fails: Fails
    check: str
    gate: str
    label: str
    loud: bool
    stops: bool
    known: bool

    def __new__(cls, entry: _Entry) -> Code:
        member = str.__new__(cls, entry.value)
        member._value_ = entry.value
        member.description, member.severity, member.fails = entry.description, entry.severity, entry.fails
        member.check, member.gate, member.loud, member.stops = entry.check, entry.gate, entry.loud, entry.stops
        member.label = entry.value if entry.label is None else entry.label
        member.known = True
        return member

    # A code is its wire value wherever it is written: in a message, a gate match, the JSON plan.
    def __str__(self) -> str:
        return self._value_

    def __format__(self, spec: str) -> str:
        return format(self._value_, spec)

    __hash__ = str.__hash__  # equal to its value, so hashed as it

    @classmethod
    def _missing_(cls, value: object) -> Code | None:
        """A code this version does not know (a saved plan from a newer one): a stand-in that
        keeps the value. It is in the families its name starts with (`ownership-...`)."""
        if not isinstance(value, str):
            return None
        member = str.__new__(cls, value)
        member._name_, member._value_ = "UNKNOWN", value
        member.description, member.severity, member.fails, member.check = "", _WARN, Fails.SOMETIMES, ""
        member.gate, member.label, member.loud, member.stops, member.known = "", value, False, False, False
        return member

    def in_family(self, family: str) -> bool:
        """`--fail-on warning:FAMILY` matches this code: its own name, a `FAMILY-...` variant,
        or a code whose gate family it is (`ownership` takes `collision`)."""
        return self._value_ == family or self._value_.startswith(family + "-") or self.gate == family


class Facts(Struct, frozen=True, kw_only=True):
    """What a check found, as typed values: the base of each code's facts (deployah_plan/facts.py
    holds one class per code, its `code` the member it is the facts of). Facts carry no
    sentences: render/words/warning.py words each code from its facts, for every writer and
    for the JSON `message`."""

    code: ClassVar[Code]


# The --fail-on families that warning codes join besides their own names (`--fail-on ownership`).
GATES: tuple[str, ...] = tuple(dict.fromkeys(c.gate for c in Code if c.gate))


__all__ = ["GATES", "Code", "Facts", "Fails", "Severity"]
