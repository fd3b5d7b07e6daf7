"""The words of the codes core/validate.py, commands/diff.py and commands/uninstall.py find: each
variant's facts -> the sentence it said before warnings carried facts, byte for byte."""
from __future__ import annotations

from deployah_plan.facts import (
    ApiDeprecated, ApiKind, ApiNotServed, CrdMissing, HistoryDeleted, HookCollision, HookCollisionRule, Judged,
    KeepHistory, KindsNotChecked, KubeVersionAssumed, NamespaceMissing, NotServedRule, ProblemKind, Role,
    SchemaInvalid, SchemaProblem, SchemaType, UnknownField, UnknownFieldRule, VersionSource,
)
from deployah_plan.model import ResourceRef, Severity, warn
from deployah_plan.render.words.warning import message

HPA = ResourceRef("autoscaling/v2beta2", "HorizontalPodAutoscaler", "ns", "h")
CM = ResourceRef("v1", "ConfigMap", "ns", "c")
WIDGET = ResourceRef("example.com/v2", "Widget", "ns", "w")
JOB = ResourceRef("batch/v1", "Job", "ns", "migrate")
V130 = Judged("1.30", VersionSource.FLAG)
V134 = Judged("1.34", VersionSource.FLAG)


def _not_served(rule: NotServedRule, role: Role = Role.RELEASE, judged: Judged | None = V130, replacement: str = "autoscaling/v2",
                removed_in: str = "1.26") -> ApiNotServed:
    return ApiNotServed(role=role, api_version="autoscaling/v2beta2", kind="HorizontalPodAutoscaler", rule=rule,
                        judged=judged, removed_in=removed_in, replacement=replacement, served=())


def _type(*path: str | int, found: str = "integer", wants: SchemaType = SchemaType.STRING) -> SchemaProblem:
    return SchemaProblem(path=path, problem=ProblemKind.TYPE, found=found, wants=wants)


# -- api-not-served -----------------------------------------------------------------------------

def test_api_not_served_by_the_target_fails() -> None:
    assert message(warn(_not_served(NotServedRule.TARGET), HPA, fails=True)) == (
        "HorizontalPodAutoscaler ns/h: autoscaling/v2beta2 HorizontalPodAutoscaler is not served by Kubernetes 1.30 "
        "(from --kube-version) (removed in 1.26): Helm fails with \"no matches for kind HorizontalPodAutoscaler in "
        "version autoscaling/v2beta2\"; use autoscaling/v2")


def test_api_not_served_without_replacement_nor_removal() -> None:
    facts = ApiNotServed(role=Role.RELEASE, api_version="apps/v1", kind="Widget", rule=NotServedRule.TARGET,
                         judged=V134, removed_in="", replacement="", served=())
    assert message(warn(facts, ResourceRef("apps/v1", "Widget", "ns", "w"), fails=True)) == (
        "Widget ns/w: apps/v1 Widget is not served by Kubernetes 1.34 (from --kube-version): Helm fails with \"no "
        "matches for kind Widget in version apps/v1\"; move to a version the cluster serves")


def test_api_not_served_in_the_previous_release_and_for_a_hook_and_a_chart_crd() -> None:
    assert message(warn(_not_served(NotServedRule.TARGET, Role.PREVIOUS_RELEASE), HPA, fails=True)) == (
        "previous release HorizontalPodAutoscaler ns/h: autoscaling/v2beta2 HorizontalPodAutoscaler is not served by "
        "Kubernetes 1.30 (from --kube-version) (removed in 1.26): Helm fails with \"no matches for kind "
        "HorizontalPodAutoscaler in version autoscaling/v2beta2\"; the previous release's manifest must be rewritten "
        "first (the helm-mapkubeapis plugin does it), and the chart must use autoscaling/v2")
    assert message(warn(_not_served(NotServedRule.TARGET, Role.HOOK), HPA, fails=True)).startswith(
        "hook HorizontalPodAutoscaler ns/h: autoscaling/v2beta2 HorizontalPodAutoscaler is not served")
    crd = ResourceRef("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition", "", "widgets.example.com")
    facts = ApiNotServed(role=Role.CHART_CRD, api_version="apiextensions.k8s.io/v1beta1", kind="CustomResourceDefinition",
                         rule=NotServedRule.TARGET, judged=Judged("1.25", VersionSource.FLAG), removed_in="1.22",
                         replacement="apiextensions.k8s.io/v1", served=())
    assert message(warn(facts, crd, fails=True)) == (
        "chart CRD CustomResourceDefinition widgets.example.com: apiextensions.k8s.io/v1beta1 CustomResourceDefinition "
        "is not served by Kubernetes 1.25 (from --kube-version) (removed in 1.22): Helm fails with \"no matches for "
        "kind CustomResourceDefinition in version apiextensions.k8s.io/v1beta1\"; use apiextensions.k8s.io/v1")


def test_api_not_served_as_a_warning_when_the_version_is_assumed_or_capabilities_offline() -> None:
    head = ("HorizontalPodAutoscaler ns/h: autoscaling/v2beta2 HorizontalPodAutoscaler is not served by Kubernetes "
            "1.30 (from --kube-version) (removed in 1.26); ")
    assert message(warn(_not_served(NotServedRule.ASSUMED_VERSION), HPA)) == (
        head + "pass --kube-version with your cluster's version to know whether Helm fails; use autoscaling/v2")
    assert message(warn(_not_served(NotServedRule.OFFLINE_DEFAULTS), HPA)) == (
        head + "rendered with helm's offline capabilities, a chart may pick another apiVersion against a real cluster: "
        "plan with --kube-version or a cluster to know whether Helm fails; use autoscaling/v2")


def test_api_not_served_by_the_charts_crd() -> None:
    facts = ApiNotServed(role=Role.RELEASE, api_version="example.com/v2", kind="Widget", rule=NotServedRule.CRD_VERSION,
                         judged=None, removed_in="", replacement="", served=("example.com/v1", "example.com/v2beta1"))
    assert message(warn(facts, WIDGET, fails=True)) == (
        "Widget ns/w: example.com/v2 is not a version the chart's CRD for Widget serves (it serves example.com/v1, "
        "example.com/v2beta1): Helm fails with \"no matches for kind Widget in version example.com/v2\"; use a served "
        "version")
    none = ApiNotServed(role=Role.RELEASE, api_version="example.com/v2", kind="Widget", rule=NotServedRule.CRD_VERSION,
                        judged=None, removed_in="", replacement="", served=())
    assert "(it serves none)" in message(warn(none, WIDGET, fails=True))


def test_each_version_source_in_words() -> None:
    said = {source: message(warn(_not_served(NotServedRule.TARGET, judged=Judged("1.31", source)), HPA, fails=True))
            for source in VersionSource}
    assert {s: t.split(" (removed")[0].split("served by ")[1] for s, t in said.items()} == {
        VersionSource.FLAG: "Kubernetes 1.31 (from --kube-version)",
        VersionSource.NEWEST_KNOWN: "Kubernetes 1.31 (the newest version helm plan knows)",
        VersionSource.TEMPLATE_DEFAULT: "Kubernetes 1.31 (helm template's default; set it with --kube-version)",
        VersionSource.CLUSTER_DISCOVERY: "Kubernetes 1.31 (the cluster's discovery)",
        VersionSource.CLUSTER_OPENAPI: "Kubernetes 1.31 (the cluster's OpenAPI)",
    }


# -- api-deprecated, crd-missing, kinds-not-checked ---------------------------------------------

def test_api_deprecated() -> None:
    facts = ApiDeprecated(api_version="autoscaling/v2beta2", kind="HorizontalPodAutoscaler",
                          judged=Judged("1.25", VersionSource.FLAG), removed_in="1.26", replacement="autoscaling/v2")
    assert message(warn(facts, HPA)) == ("autoscaling/v2beta2 HorizontalPodAutoscaler is served by Kubernetes 1.25 "
                                         "(from --kube-version), and removed in Kubernetes 1.26: move to autoscaling/v2")
    psp = ApiDeprecated(api_version="policy/v1beta1", kind="PodSecurityPolicy", judged=Judged("1.24", VersionSource.FLAG),
                        removed_in="1.25", replacement="")
    assert message(warn(psp, ResourceRef("policy/v1beta1", "PodSecurityPolicy", "", "p"))) == (
        "policy/v1beta1 PodSecurityPolicy is served by Kubernetes 1.24 (from --kube-version), and removed in "
        "Kubernetes 1.25")


def test_crd_missing() -> None:
    ref = ResourceRef("example.com/v1", "Widget", "ns", "w")
    assert message(warn(CrdMissing(role=Role.RELEASE, api_version="example.com/v1", kind="Widget"), ref)) == (
        "Widget ns/w: the cluster does not serve Widget in example.com/v1 and no CRD in this chart defines it: Helm "
        "fails with \"no matches for kind Widget in version example.com/v1\"; install the CRD first (or add it to the "
        "chart's crds/)")
    assert message(warn(CrdMissing(role=Role.HOOK, api_version="example.com/v1", kind="Widget"), ref)).startswith(
        "hook Widget ns/w: the cluster does not serve")
    in_crds = CrdMissing(role=Role.RELEASE, api_version="example.com/v1", kind="Widget", chart_crd="app/crds/w.yaml")
    assert message(warn(in_crds, ref)) == (
        "Widget ns/w: the cluster does not serve Widget in example.com/v1, and its CRD is in the chart's crds/ "
        "(app/crds/w.yaml), which Helm creates only on install (without --skip-crds): Helm fails with \"no matches for "
        "kind Widget in version example.com/v1\"; apply the CRD first (kubectl apply -f)")


def test_kinds_not_checked_names_five() -> None:
    kinds = tuple(ApiKind(f"K{i}", f"k{i}.example.com/v1") for i in range(6))
    listed = ", ".join(f"K{i} (k{i}.example.com/v1)" for i in range(5))
    assert message(warn(KindsNotChecked(kinds=kinds[:5]))) == (
        f"not checked offline: {listed} (no CRD in this chart defines them; plan with a cluster to check that it "
        "serves them)")
    assert message(warn(KindsNotChecked(kinds=kinds))).startswith(f"not checked offline: {listed}, ... (no CRD")


# -- schema-invalid, unknown-field --------------------------------------------------------------

def test_schema_invalid_against_a_version_and_a_crd() -> None:
    facts = SchemaInvalid(role=Role.RELEASE, problems=(_type("data", "port"),), judged=V134)
    assert message(warn(facts, CM)) == (
        "ConfigMap ns/c: the API server rejects it: data.port is an integer where the schema wants a string (judged "
        "against the schema of Kubernetes 1.34 (from --kube-version)); fix the values or the template")
    crd = SchemaInvalid(role=Role.RELEASE, problems=(_type("spec", "size", found="string", wants=SchemaType.INTEGER),),
                        judged=None)
    assert message(warn(crd, WIDGET)) == (
        "Widget ns/w: the API server rejects it: spec.size is a string where the schema wants an integer (judged "
        "against its CRD's schema); fix the values or the template")
    live = SchemaInvalid(role=Role.RELEASE, judged=Judged("1.31", VersionSource.CLUSTER_OPENAPI),
                         problems=(_type("spec", "replicas", found="string", wants=SchemaType.INTEGER),))
    assert "(judged against the schema of Kubernetes 1.31 (the cluster's OpenAPI))" in message(warn(live, CM))


def test_five_problems_are_named_and_the_rest_counted() -> None:
    listed = "; ".join(f"data.{k} is an integer where the schema wants a string" for k in "abcde")
    for keys, more in (("abcde", ""), ("abcdef", "; and 1 more"), ("abcdefg", "; and 2 more")):
        facts = SchemaInvalid(role=Role.RELEASE, problems=tuple(_type("data", k) for k in keys), judged=V134)
        assert message(warn(facts, CM)) == (
            f"ConfigMap ns/c: the API server rejects it: {listed}{more} (judged against the schema of Kubernetes 1.34 "
            "(from --kube-version)); fix the values or the template")


def test_each_problem_in_words() -> None:
    said = {
        _type("name", found="boolean"): "name is a boolean where the schema wants a string",
        _type("size", found="list", wants=SchemaType.QUANTITY): "size is a list where the schema wants a quantity (string or number)",
        _type("port", found="object", wants=SchemaType.INT_OR_STRING): "port is an object where the schema wants an integer or a string",
        _type("on", found="number", wants=SchemaType.BOOLEAN): "on is a number where the schema wants a boolean",
        _type("child", found="string", wants=SchemaType.OBJECT): "child is a string where the schema wants an object",
        _type("items", found="object", wants=SchemaType.LIST): "items is an object where the schema wants a list",
        _type("labels", found="list", wants=SchemaType.MAP): "labels is a list where the schema wants a map",
        _type("ratio", found="string", wants=SchemaType.NUMBER): "ratio is a string where the schema wants a number",
        _type("when", found="datetime"): "when is datetime where the schema wants a string",
        _type("tags", 1): "tags[1] is an integer where the schema wants a string",
        _type("items", 1, "id", found="string", wants=SchemaType.INTEGER): "items[1].id is a string where the schema wants an integer",
        _type("labels", "app.kubernetes.io/name"): "labels['app.kubernetes.io/name'] is an integer where the schema wants a string",
        _type("labels", "max-surge_x"): "labels.max-surge_x is an integer where the schema wants a string",
        _type("labels", "-"): "labels['-'] is an integer where the schema wants a string",
        SchemaProblem(path=("items", 0, "id"), problem=ProblemKind.REQUIRED): "items[0].id is required",
        SchemaProblem(path=("a.b",), problem=ProblemKind.UNKNOWN): "['a.b'] is unknown",
        SchemaProblem(path=("spec", "nmae"), problem=ProblemKind.UNKNOWN, near=("spec", "name")):
            "spec.nmae is unknown (did you mean spec.name?)",
    }
    for problem, words in said.items():
        facts = SchemaInvalid(role=Role.RELEASE, problems=(problem,), judged=None)
        assert message(warn(facts, CM)) == (f"ConfigMap ns/c: the API server rejects it: {words} (judged against its "
                                            "CRD's schema); fix the values or the template")


def test_unknown_field_in_each_rule() -> None:
    field = (SchemaProblem(path=("dta",), problem=ProblemKind.UNKNOWN, near=("data",)),)
    strict = UnknownField(role=Role.RELEASE, rule=UnknownFieldRule.STRICT, problems=field, judged=V134)
    assert message(warn(strict, CM, fails=True)) == (
        "ConfigMap ns/c: server-side apply with strict field validation rejects unknown fields: dta is unknown (did you "
        "mean data?) (judged against the schema of Kubernetes 1.34 (from --kube-version)); fix the field names, or pass "
        "--disable-openapi-validation to have them dropped")
    client = UnknownField(role=Role.RELEASE, rule=UnknownFieldRule.CLIENT_SIDE, problems=field, judged=V134)
    assert message(warn(client, CM)) == (
        "ConfigMap ns/c: unknown fields, dropped by the API server with a warning (client-side apply): dta is unknown "
        "(did you mean data?) (judged against the schema of Kubernetes 1.34 (from --kube-version))")
    off = UnknownField(role=Role.RELEASE, rule=UnknownFieldRule.VALIDATION_DISABLED, problems=field, judged=V134)
    assert message(warn(off, CM, severity=Severity.INFO)) == (
        "ConfigMap ns/c: unknown fields, dropped by the API server (--disable-openapi-validation): dta is unknown (did "
        "you mean data?)")
    crd = UnknownField(role=Role.HOOK, rule=UnknownFieldRule.STRICT, judged=None,
                       problems=(SchemaProblem(path=("spec", "colour"), problem=ProblemKind.UNKNOWN),))
    assert message(warn(crd, WIDGET, fails=True)) == (
        "hook Widget ns/w: server-side apply with strict field validation rejects unknown fields: spec.colour is "
        "unknown (judged against its CRD's schema); fix the field names, or pass --disable-openapi-validation to have "
        "them dropped")
    six = UnknownField(role=Role.RELEASE, rule=UnknownFieldRule.STRICT, judged=V134,
                       problems=tuple(SchemaProblem(path=(f"zz{i}",), problem=ProblemKind.UNKNOWN) for i in range(6)))
    listed = "; ".join(f"zz{i} is unknown" for i in range(5))
    assert f"rejects unknown fields: {listed}; and 1 more (judged" in message(warn(six, CM, fails=True))


# -- namespace-missing, hook-collision ----------------------------------------------------------

def test_namespace_missing() -> None:
    assert message(warn(NamespaceMissing(namespace="shop"))) == (
        "namespace shop does not exist in the cluster: Helm fails with namespaces \"shop\" not found; pass "
        "--create-namespace, or create the namespace first")


def test_hook_collision_in_each_rule() -> None:
    exists = HookCollision(rule=HookCollisionRule.EXISTS, delete_policies=("hook-succeeded",))
    assert message(warn(exists, JOB, fails=True)) == (
        "hook Job ns/migrate exists in the cluster and its delete policy (hook-succeeded) lacks before-hook-creation: "
        "Helm fails creating it with \"already exists\"; delete it first, or add before-hook-creation to "
        "helm.sh/hook-delete-policy")
    ssa = HookCollision(rule=HookCollisionRule.EXISTS_SERVER_SIDE, delete_policies=("hook-succeeded", "hook-failed"))
    assert message(warn(ssa, JOB)) == (
        "hook Job ns/migrate exists in the cluster and its delete policy (hook-succeeded, hook-failed) lacks "
        "before-hook-creation: server-side apply updates the old object instead of running a new one")
    may = HookCollision(rule=HookCollisionRule.MAY_EXIST, delete_policies=("hook-failed",))
    assert message(warn(may, JOB, severity=Severity.INFO)) == (
        "hook Job ns/migrate: its delete policy (hook-failed) lacks before-hook-creation, so an object left by an "
        "earlier run makes Helm fail with \"already exists\" (the live state was not read); add before-hook-creation "
        "to be safe")


# -- kube-version-assumed (commands/diff.py), keep-history, history-deleted (commands/uninstall.py)

def test_kube_version_assumed() -> None:
    assert message(warn(KubeVersionAssumed(kube_version="1.37"))) == (
        "objects judged against Kubernetes 1.37, the newest version helm plan knows: pass --kube-version with your "
        "cluster's version to judge against it")


def test_uninstall_history() -> None:
    assert message(warn(KeepHistory(revision=4))) == "--keep-history: revision 4 is kept, marked uninstalled"
    assert message(warn(HistoryDeleted())) == "the release's history is deleted with it (add --keep-history to keep it)"


def test_each_facts_class_goes_through_the_json_plan_and_back_as_the_schema_says() -> None:
    import json
    from pathlib import Path

    import jsonschema

    from deployah_plan.build import build_plan
    from deployah_plan.model import Header, HelmAction
    from deployah_plan.planfile import write
    from deployah_plan.planfile.read import plan_of

    warnings = [
        warn(_not_served(NotServedRule.TARGET, Role.PREVIOUS_RELEASE), HPA, fails=True),
        warn(ApiNotServed(role=Role.RELEASE, api_version="example.com/v2", kind="Widget", rule=NotServedRule.CRD_VERSION,
                          judged=None, removed_in="", replacement="", served=("example.com/v1",)), WIDGET, fails=True),
        warn(ApiDeprecated(api_version="autoscaling/v2beta2", kind="HorizontalPodAutoscaler", judged=V134,
                           removed_in="1.26", replacement="autoscaling/v2"), HPA),
        warn(CrdMissing(role=Role.HOOK, api_version="example.com/v1", kind="Widget"), WIDGET),
        warn(SchemaInvalid(role=Role.CHART_CRD, judged=None, problems=(
            _type("tags", 1), SchemaProblem(path=("spec", "size"), problem=ProblemKind.REQUIRED))), WIDGET),
        warn(UnknownField(role=Role.RELEASE, rule=UnknownFieldRule.CLIENT_SIDE, judged=V134, problems=(
            SchemaProblem(path=("dta",), problem=ProblemKind.UNKNOWN, near=("data",)),)), CM),
        warn(KindsNotChecked(kinds=(ApiKind("Rule", "monitoring.example.com/v1"),))),
        warn(NamespaceMissing(namespace="shop")),
        warn(HookCollision(rule=HookCollisionRule.EXISTS, delete_policies=("hook-failed",)), JOB, fails=True),
        warn(KubeVersionAssumed(kube_version="1.37")),
        warn(KeepHistory(revision=3)),
        warn(HistoryDeleted()),
    ]
    plan = build_plan(Header(release="r", namespace="ns"), HelmAction.NONE, warnings=warnings)
    doc = json.loads(write.render(plan))
    schema = json.loads((Path(__file__).parents[2] / "deployah_plan" / "schema" / "plan.schema.json").read_text())
    jsonschema.validate(doc, schema)
    again = plan_of(doc)
    assert [w.facts for w in again.warnings] == [w.facts for w in plan.warnings]
    assert [message(w) for w in again.warnings] == [message(w) for w in plan.warnings]
