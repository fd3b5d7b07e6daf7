"""Real public charts (tests/realcharts.py: ../shared/charts), planned through the plugin installed into real helm, on
Helm 3 and Helm 4, against a real release record.

What the plan must say is derived here from Helm's own output, not from the planner:
- the previous release is what `helm install --dry-run=client -o json` (Helm 4) records, and
  the desired one is the same record for the new chart: Helm itself splits manifest and hooks,
  writes the manifest in its install order and stores the hooks pre-sorted by kind;
- identity is group, kind, namespace (the release's when the object names none; none for a
  cluster-scoped kind) and name; an object is updated when its content differs once null fields
  are taken as absent (the API server never stores a null);
- hooks run per event as Helm's execHook runs them: the stored hooks that list the event,
  sorted stably by weight, then name;
- chart CRDs are the documents of the chart's crds/ files, never applied on upgrade;
- applying the plan's field changes to the previous object gives the desired one.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from conftest import ROOT, clean_env
from deployah_plan.model import FieldChange, FieldOp
from deployah_plan.render.markdown import md
from core.test_diff_properties import _no_nulls, apply, normalised
from realcharts import NAMES, real_chart

# Kinds these charts use that live outside namespaces (Kubernetes API reference).
CLUSTER_SCOPED = {"ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "IngressClass", "Namespace",
                  "PriorityClass", "StorageClass", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
                  "APIService", "PersistentVolume"}
# argo-cd stamps its admin password's mtime with `now`; fixing it makes the chart deterministic.
EXTRA = {"argo-cd": ["--set", "configs.secret.argocdServerAdminPasswordMtime=2025-01-01T00:00:00Z"]}


@dataclass
class Case:
    name: str
    folder: Path
    release: str
    namespace: str
    values_prev: list[str] = field(default_factory=list)
    values_next: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, name: str) -> "Case":
        """The chart's case; a missing chart skips the test (fails it under CI=true)."""
        folder = real_chart(name)
        spec = yaml.safe_load((folder / "case.yaml").read_text())
        common = [str(folder / v) for v in spec.get("values", [])]
        return cls(name, folder, spec["release"], spec["namespace"],
                   common + [str(folder / v) for v in spec.get("values_prev", [])],
                   common + [str(folder / v) for v in spec.get("values_next", [])])

    def flags(self, side: str) -> list[str]:
        values = self.values_prev if side == "prev" else self.values_next
        return [arg for path in values for arg in ("-f", path)] + EXTRA.get(self.name, [])


@pytest.fixture
def case(request: pytest.FixtureRequest) -> Case:
    """The chart named by the test's parameter (`indirect`)."""
    return Case.load(request.param)


def _record(helm4: Path, case: Case, side: str) -> dict[str, Any]:
    done = subprocess.run([str(helm4), "install", case.release, str(case.folder / side), "-n", case.namespace,
                           "--dry-run=client", "-o", "json", *case.flags(side)],
                          capture_output=True, text=True, env=clean_env())
    assert done.returncode == 0, done.stderr
    record: dict[str, Any] = json.loads(done.stdout)
    return record


@pytest.fixture(scope="module")
def records(helm4: Path) -> dict[tuple[str, str], dict[str, Any]]:
    cases = [Case.load(name) for name in NAMES]
    return {(case.name, side): _record(helm4, case, side) for case in cases for side in ("prev", "next")}


@pytest.fixture(scope="module")
def plugin(helm: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """helm with the plugin installed (`helm plugin install`), once per helm."""
    home = tmp_path_factory.mktemp("helm-home")
    env = clean_env(HELM_DATA_HOME=str(home / "data"), HELM_CONFIG_HOME=str(home / "config"),
                    HELM_CACHE_HOME=str(home / "cache"), PATH=os.environ["PATH"])
    env.pop("PYTHONPATH")
    installed = subprocess.run([str(helm), "plugin", "install", str(ROOT)], env=env, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    return env


def _plan(helm: Path, env: dict[str, str], store: Path, case: Case, chart: str, side: str,
          *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(helm), "plan", "upgrade", case.release, str(case.folder / chart), "-n", case.namespace,
         *case.flags(side), "-o", "json", "--show-secrets", *flags],
        env={**env, "HELM_DRIVER": "memory", "HELM_MEMORY_DRIVER_DATA": str(store)}, capture_output=True, text=True)


def _store(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    """A memory-driver store holding `records` as deployed revisions 1, 2, ..."""
    stored = []
    for revision, record in enumerate(records, 1):
        stored.append({**record, "version": revision, "info": {**record["info"], "status": "deployed"}})
    path = tmp_path / "releases.json"
    path.write_text(json.dumps(stored))
    return path


# --- Helm's rules applied to Helm's records ---------------------------------------------------

Identity = tuple[str, str, str, str]


def _identity(obj: dict[str, Any], namespace: str) -> Identity:
    group = obj["apiVersion"].rpartition("/")[0]
    ns = "" if obj["kind"] in CLUSTER_SCOPED else (obj["metadata"].get("namespace") or namespace)
    return group, obj["kind"], ns, obj["metadata"]["name"]


def _objects(manifest: str, namespace: str) -> dict[Identity, dict[str, Any]]:
    """The release manifest's objects in Helm's order, as the API server would hold them: the
    namespace Helm gives, no null fields."""
    out = {}
    for doc in yaml.load_all(manifest, Loader=yaml.CSafeLoader):  # libyaml: the same values, far faster
        if not doc:
            continue
        ident = _identity(doc, namespace)
        doc = _no_nulls(doc)
        if ident[2]:
            doc["metadata"]["namespace"] = ident[2]
        else:
            doc["metadata"].pop("namespace", None)
        out[ident] = doc
    return out


def _runs(record: dict[str, Any], event: str, namespace: str) -> list[str]:
    """Each hook that runs on `event`, named `Kind namespace/name` (`Kind name` when
    cluster-scoped), in the order Helm runs them."""
    hooks = [h for h in record.get("hooks") or [] if event in h["events"]]  # the stored order: kind first
    names = []
    for hook in sorted(hooks, key=lambda h: (h.get("weight", 0), h["name"])):
        ns = "" if hook["kind"] in CLUSTER_SCOPED else (yaml.safe_load(hook["manifest"])["metadata"].get("namespace")
                                                       or namespace)
        names.append(f"{hook['kind']} {ns}/{hook['name']}" if ns else f"{hook['kind']} {hook['name']}")
    return names


def _chart_crd_objects(helm4: Path, chart: Path) -> dict[str, Any]:
    """The CRDs Helm loads from the chart's crds/ (`helm show crds`: .helmignore applies), by name."""
    done = subprocess.run([str(helm4), "show", "crds", str(chart)], capture_output=True, text=True, env=clean_env())
    assert done.returncode == 0, done.stderr
    return {d["metadata"]["name"]: _no_nulls(d) for d in yaml.safe_load_all(done.stdout) if d}


def _chart_crds(helm4: Path, chart: Path) -> list[str]:
    return list(_chart_crd_objects(helm4, chart))


def _planned(doc: dict[str, Any]) -> dict[Identity, dict[str, Any]]:
    return {(c["resource"]["api_version"].rpartition("/")[0], c["resource"]["kind"], c["resource"]["namespace"],
             c["resource"]["name"]): c for c in doc["changes"]}


def _phase(doc: dict[str, Any], phase: str) -> list[str]:
    placed = [(r["position"], t["name"]) for t in doc["tasks"] for r in t["runs"] if r["phase"] == phase]
    return [name for _, name in sorted(placed)]


def _field_changes(change: dict[str, Any]) -> list[FieldChange]:
    return [FieldChange(f["path"], FieldOp(f["op"]), f["before"], f["after"],
                        keys=tuple((p, k) for p, k in (f.get("keys") or {}).items())) for f in change["fields"]]


def _check_upgrade(doc: dict[str, Any], case: Case, before: dict[str, Any], after: dict[str, Any]) -> None:
    previous, desired = _objects(before["manifest"], case.namespace), _objects(after["manifest"], case.namespace)
    planned = _planned(doc)
    creates = [i for i in desired if i not in previous]
    updates = [i for i in desired if i in previous and previous[i] != desired[i]]
    deletes = [i for i in previous if i not in desired]
    want = [("create", i) for i in creates] + [("update", i) for i in updates]
    # Helm applies in the order of its manifest (install kind order), then deletes in the previous one's.
    want = sorted(want, key=lambda item: list(desired).index(item[1])) + [("delete", i) for i in deletes]
    assert [(c["action"], ident) for ident, c in planned.items()] == want
    assert doc["summary"]["create"] == len(creates) and doc["summary"]["update"] == len(updates)
    assert doc["summary"]["delete"] + doc["summary"]["retain"] == len(deletes)
    for ident in updates:
        got = apply(previous[ident], _field_changes(planned[ident]))
        assert normalised(got) == normalised(desired[ident]), ident


# --- the tests --------------------------------------------------------------------------------

@pytest.mark.parametrize("case", NAMES, indirect=True)
def test_an_upgrade_of_a_real_chart_is_what_helm_does(case: Case, helm: Path, helm4: Path, plugin: dict[str, str],
                                                      records: dict[tuple[str, str], dict[str, Any]],
                                                      tmp_path: Path) -> None:
    before, after = records[(case.name, "prev")], records[(case.name, "next")]
    store = _store(tmp_path, [before])
    result = _plan(helm, plugin, store, case, "next", "next", "--detailed-exitcode")
    assert result.returncode == 2, result.stderr
    doc = json.loads(result.stdout)
    assert doc["helm_action"] == "upgrade"
    _check_upgrade(doc, case, before, after)
    assert [c["name"] for c in doc["chart_crds"]] == _chart_crds(helm4, case.folder / "next")
    assert {c["lifecycle"] for c in doc["chart_crds"]} <= {"not-on-upgrade"}
    # The previous chart's crds/ come from the release record: a CRD whose document differs
    # between the two charts is reported as changed (Helm will not apply it), each one once.
    old_crds = _chart_crd_objects(helm4, case.folder / "prev")
    new_crds = _chart_crd_objects(helm4, case.folder / "next")
    changed = {c["name"]: c["chart_changed"] for c in doc["chart_crds"]}
    assert changed == {name: (None if name not in old_crds else old_crds[name] != obj) for name, obj in new_crds.items()}
    warned = [w["message"].split()[2] for w in doc["warnings"] if w["code"] == "crd-not-upgraded"]
    assert warned == [name for name, was in changed.items() if was]
    # chart crds/ never become resources (argo-cd's CRDs under templates/crds/ are resources)
    assert not any(re.match(r"[^/]+(/charts/[^/]+)*/crds/", c["source"]) for c in doc["changes"])
    for event, phase in (("pre-upgrade", "preDeploy"), ("post-upgrade", "postDeploy")):
        assert _phase(doc, phase) == _runs(after, event, case.namespace), phase
    upgrade_hooks = [h for h in after.get("hooks") or [] if {"pre-upgrade", "post-upgrade"} & set(h["events"])]
    assert doc["summary"]["hooks_run"] == len(upgrade_hooks)
    assert doc["summary"]["predicted_failures"] == 0
    assert _restarts(doc) == _template_changes(before, after, case.namespace)


WORKLOADS = ("Deployment", "StatefulSet", "DaemonSet")


def _template_changes(before: dict[str, Any], after: dict[str, Any], namespace: str) -> dict[str, int]:
    """The workloads whose pod template differs between Helm's two records, with their replica
    count (the default, 1, when none is set): a Deployment or StatefulSet rolls its pods if and
    only if .spec.template changes (Kubernetes, "Deployments")."""
    old, new = _objects(before["manifest"], namespace), _objects(after["manifest"], namespace)
    return {f"{ident[1]}/{ident[3]}": obj["spec"].get("replicas", 1) for ident, obj in new.items()
            if ident[1] in WORKLOADS and ident in old and old[ident]["spec"].get("template") != obj["spec"].get("template")}


def _restarts(doc: dict[str, Any]) -> dict[str, int]:
    return {f"{i['resource']['kind']}/{i['resource']['name']}": i["counts"]["pods"] for i in doc["impact"]
            if i["kind"] == "restart"}


def test_argo_cd_rolls_its_config_with_checksum_annotations(helm: Path, plugin: dict[str, str],
                                                         records: dict[tuple[str, str], dict[str, Any]],
                                                         tmp_path: Path) -> None:
    """argo-cd annotates its pod templates with checksum/cm (a digest of argocd-cm): the config it
    changes reaches the pods through the rollout, so no config change is left unread."""
    case = Case.load("argo-cd")
    result = _plan(helm, plugin, _store(tmp_path, [records[(case.name, "prev")]]), case, "next", "next")
    assert result.returncode == 0, result.stderr
    impact = {(i["kind"], i["resource"]["name"]): i for i in json.loads(result.stdout)["impact"]}
    assert not [key for key in impact if key[0] == "config-unreached"]
    server = impact["restart", "argocd-repo-server"]
    assert any(d.startswith("its checksum annotation changed (checksum/cm") for d in server["details"])
    assert "it reads ConfigMap argocd/argocd-cm, whose data changes: the new pods see it" in server["details"]
    assert impact["restart", "argocd-notifications-controller"]["details"][0].startswith("Recreate: ")


@pytest.mark.parametrize("case", NAMES, indirect=True)
def test_a_no_op_upgrade_of_a_real_chart_plans_no_changes(case: Case, helm: Path, helm4: Path, plugin: dict[str, str],
                                                         records: dict[tuple[str, str], dict[str, Any]],
                                                         tmp_path: Path) -> None:
    before = records[(case.name, "prev")]
    store = _store(tmp_path, [before])
    result = _plan(helm, plugin, store, case, "prev", "prev", "--detailed-exitcode")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    doc = json.loads(result.stdout)
    assert doc["helm_action"] == "none" and doc["changes"] == []
    assert [c["name"] for c in doc["chart_crds"]] == _chart_crds(helm4, case.folder / "prev")
    assert all(c["chart_changed"] is False for c in doc["chart_crds"])
    assert doc["summary"]["hooks_run"] == sum(1 for h in before.get("hooks") or [] if "pre-upgrade" in h["events"]
                                             or "post-upgrade" in h["events"])


def test_installing_a_chart_with_crds_creates_them_first_and_never_as_resources(
        helm: Path, helm4: Path, plugin: dict[str, str], records: dict[tuple[str, str], dict[str, Any]],
        tmp_path: Path) -> None:
    case = Case.load("traefik")  # traefik: 25 CRD files, each starting with ---
    store = _store(tmp_path, [])
    result = _plan(helm, plugin, store, case, "next", "next")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["helm_action"] == "install"
    crds = _chart_crds(helm4, case.folder / "next")
    assert len(crds) == 25 and [c["name"] for c in doc["chart_crds"]] == crds
    assert {c["lifecycle"] for c in doc["chart_crds"]} == {"process"}
    desired = _objects(records[(case.name, "next")]["manifest"], case.namespace)
    assert [ident for ident in _planned(doc)] == list(desired)  # Helm's install order, CRDs apart
    assert _phase(doc, "preDeploy") == _runs(records[(case.name, "next")], "pre-install", case.namespace)
    # Each create carries the object Helm would create (--show-secrets: Secret values as they are).
    for ident, change in _planned(doc).items():
        got = _no_nulls(change["desired"])
        if ident[2]:
            got["metadata"]["namespace"] = ident[2]
        assert normalised(got) == normalised(desired[ident]), ident


def _changed_paths(doc: dict[str, Any], kind: str, name: str) -> Iterator[str]:
    for change in doc["changes"]:
        if (change["resource"]["kind"], change["resource"]["name"]) == (kind, name):
            yield from (f["path"] for f in change["fields"])


def test_a_field_that_goes_from_null_to_absent_is_no_change(helm: Path, plugin: dict[str, str],
                                                            records: dict[tuple[str, str], dict[str, Any]],
                                                            tmp_path: Path) -> None:
    """kube-state-metrics 7 renders `httpHeaders:` (null) in its probes; 8 leaves it out."""
    case = Case.load("kube-state-metrics")
    before, after = records[(case.name, "prev")], records[(case.name, "next")]

    def probe(record: dict[str, Any]) -> dict[str, Any]:
        deployment = next(d for d in yaml.safe_load_all(record["manifest"]) if d and d["kind"] == "Deployment")
        http_get: dict[str, Any] = deployment["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["httpGet"]
        return http_get

    assert "httpHeaders" in probe(before) and probe(before)["httpHeaders"] is None
    assert "httpHeaders" not in probe(after)
    result = _plan(helm, plugin, _store(tmp_path, [before]), case, "next", "next")
    doc = json.loads(result.stdout)
    assert not [p for p in _changed_paths(doc, "Deployment", "ksm-kube-state-metrics") if "httpHeaders" in p]


# --- what a reviewer reads --------------------------------------------------------------------

SCREEN = 40  # lines a reviewer sees before scrolling


def _images(manifest: str, namespace: str) -> dict[tuple[Identity, str], str]:
    """Every container's image in Helm's manifest, by object and container name."""
    out = {}
    for ident, obj in _objects(manifest, namespace).items():
        for path in (("spec",), ("spec", "template", "spec"), ("spec", "jobTemplate", "spec", "template", "spec")):
            spec: Any = obj
            for key in path:
                spec = spec.get(key) if isinstance(spec, dict) else None
            for container in (spec or {}).get("containers", []) + (spec or {}).get("initContainers", []) \
                    if isinstance(spec, dict) else ():
                out[(ident, container["name"])] = container["image"]
    return out


def _image_bumps(before: dict[str, Any], after: dict[str, Any], namespace: str) -> set[tuple[str, str]]:
    """(old image, new image) of every container Helm's two records run with another image,
    hooks included."""
    def all_images(record: dict[str, Any]) -> dict[tuple[Identity, str], str]:
        hooks = "".join("---\n" + h["manifest"] + "\n" for h in record.get("hooks") or [])
        return {**_images(record["manifest"], namespace), **_images(hooks, namespace)}
    old, new = all_images(before), all_images(after)
    return {(old[k], new[k]) for k in old.keys() & new.keys() if old[k] != new[k]}


def test_the_argo_cd_upgrade_shows_its_image_bumps_first_and_its_comment_fits(
        helm: Path, plugin: dict[str, str], records: dict[tuple[str, str], dict[str, Any]], tmp_path: Path) -> None:
    case = Case.load("argo-cd")
    before, after = records[(case.name, "prev")], records[(case.name, "next")]
    bumps = _image_bumps(before, after, case.namespace)
    assert len(bumps) == 2  # argocd v3.1.9 -> v3.4.4, redis 7.2 -> 8.2
    store = _store(tmp_path, [before])
    text = _plan(helm, plugin, store, case, "next", "next", "-o", "text").stdout
    screen = "\n".join(text.splitlines()[:SCREEN])
    assert "What matters" in screen
    for old, new in bumps:
        assert f'image "{old}" -> "{new}"' in screen, (old, new)
    comment = _plan(helm, plugin, store, case, "next", "next", "-o", "markdown").stdout
    assert len(comment) <= 65_536  # GitHub's limit for a comment
    for old, new in bumps:
        assert f'image "{old}" -\\> "{new}"' in comment, (old, new)
    # The Role whose rules changed keeps its details: RBAC is cut after CRD schema prose.
    role = next(line for line in comment.splitlines() if "Role argocd/argocd-applicationset-controller" in line
                and line.startswith("<details>"))
    assert role
    # What was cut, if anything, is named by object; CRDs go first.
    note = next((line for line in comment.splitlines() if line.startswith("> **Cut to fit")), "")
    assert not note or "CustomResourceDefinition" in note


COMMENT_BUDGET = 45_000  # argo-cd's comment was 50,410 characters; GitHub's cap is 65,536


def _name(resource: dict[str, Any]) -> str:
    """An object as the plan names it (ResourceRef's str)."""
    where = f"{resource['namespace']}/" if resource.get("namespace") else ""
    return f"{resource['kind']} {where}{resource['name']}"


@pytest.mark.parametrize("case", NAMES[:2], indirect=True)
def test_the_comment_of_a_real_chart_says_each_fact_once_and_names_every_change(
        case: Case, helm: Path, plugin: dict[str, str], records: dict[tuple[str, str], dict[str, Any]],
        tmp_path: Path) -> None:
    """traefik 37 -> 41 changes 21 of its chart CRDs; argo-cd 9 -> 10 updates 3 CRDs with
    hundreds of new fields. The comment fits well under GitHub's cap with nothing cut, names
    every changed object, says "Helm never upgrades crds/" once, and keeps the first screen for
    the summary, what matters and the impact; -o github makes at most 10 annotations a level."""
    store = _store(tmp_path, [records[(case.name, "prev")]])
    doc = json.loads(_plan(helm, plugin, store, case, "next", "next").stdout)
    comment = _plan(helm, plugin, store, case, "next", "next", "-o", "markdown").stdout
    assert len(comment) < COMMENT_BUDGET and "Cut to fit" not in comment
    resources = comment.split("#### Resources, in the order Helm applies them", 1)[1].split("\n#### ", 1)[0]
    for change in doc["changes"]:
        assert f"</code> {md(_name(change['resource']))}" in resources, change["resource"]
    assert not re.search(r"^- `", resources, re.M)  # one shape: every entry a <details>
    changed = [c["name"] for c in doc["chart_crds"] if c["chart_changed"]]
    # Once in what matters, and again among the warnings with every CRD named when what
    # matters names only the first 8 (words.NAMES).
    assert comment.count("Helm never upgrades the chart's crds/") == (0 if not changed else 1 if len(changed) <= 8 else 2)
    assert "apply it yourself" not in comment
    if len(changed) > 8:
        warnings = comment.split("#### Warnings", 1)[1]
        line = next(x for x in warnings.splitlines() if "Helm never upgrades the chart's crds/" in x)
        assert line.startswith(f"- ⚠️ {len(changed)} chart CRDs changed in the chart")
        folded = warnings.split(line, 1)[1].split("\n", 2)[1]
        assert [x.split(" (")[0] for x in re.findall(r"<li>(.+?)</li>", folded)] == changed
    assert "#### What matters" in comment and "#### What the deploy does" in comment
    heads = [comment.index(h) for h in ("**Plan:", "#### What matters", "#### What the deploy does", "#### Warnings",
                                        "#### Resources") if h in comment]  # argo-cd has no warnings
    assert heads == sorted(heads)
    annotations = _plan(helm, plugin, store, case, "next", "next", "-o", "github").stdout.splitlines()
    levels = [line.split(" ", 1)[0] for line in annotations]
    assert all(levels.count(level) <= 10 for level in set(levels))
    assert sum("(crd-not-upgraded)" in line for line in annotations) == (1 if changed else 0)


def test_a_created_object_shows_what_it_contains(helm: Path, plugin: dict[str, str],
                                                records: dict[tuple[str, str], dict[str, Any]],
                                                tmp_path: Path) -> None:
    """argo-cd 10 adds NetworkPolicies: the text shows their rules, not only their names."""
    case = Case.load("argo-cd")
    before, after = records[(case.name, "prev")], records[(case.name, "next")]
    desired, previous = _objects(after["manifest"], case.namespace), _objects(before["manifest"], case.namespace)
    created = [i for i in desired if i not in previous]
    assert created and {i[1] for i in created} == {"NetworkPolicy"}
    text = _plan(helm, plugin, _store(tmp_path, [before]), case, "next", "next", "-o", "text").stdout
    for ident in created:
        # The line may end with the change's cause ("[from the chart upgrade]"): the block starts after it.
        after_line = text.split(f"  + NetworkPolicy {ident[2]}/{ident[3]}  (create)", 1)[1].split("\n", 1)[1]
        block = re.split(r"\n {2}(?! )", after_line)[0]
        policy_types = desired[ident]["spec"]["policyTypes"]
        assert f"+   policyTypes: {json.dumps(policy_types)}" in block, ident
        selector = desired[ident]["spec"]["podSelector"]["matchLabels"]["app.kubernetes.io/name"]
        assert f'app.kubernetes.io/name: "{selector}"' in block, ident


def test_a_value_stamped_with_now_is_marked_regenerated(helm: Path, helm4: Path, plugin: dict[str, str],
                                                         tmp_path: Path) -> None:
    """argo-cd stamps its admin password's mtime with `now` (the pin in EXTRA is left out here):
    a no-op upgrade changes only that value, and the plan says it is the chart's doing."""
    case = Case.load("argo-cd")
    values = [arg for path in case.values_prev for arg in ("-f", path)]  # without EXTRA's pin
    done = subprocess.run([str(helm4), "install", case.release, str(case.folder / "prev"), "-n", case.namespace,
                           "--dry-run=client", "-o", "json", *values],
                          capture_output=True, text=True, env=clean_env())
    assert done.returncode == 0, done.stderr
    store = _store(tmp_path, [json.loads(done.stdout)])
    time.sleep(1.1)  # the stored release and the plan render in different seconds
    result = subprocess.run(
        [str(helm), "plan", "upgrade", case.release, str(case.folder / "prev"), "-n", case.namespace,
         *values, "-o", "json", "--detailed-exitcode"],
        env={**plugin, "HELM_DRIVER": "memory", "HELM_MEMORY_DRIVER_DATA": str(store)}, capture_output=True, text=True)
    assert result.returncode == 2, result.stderr
    doc = json.loads(result.stdout)
    (change,) = doc["changes"]
    assert (change["resource"]["kind"], change["resource"]["name"]) == ("Secret", "argocd-secret")
    assert [(f["path"], f.get("regenerated")) for f in change["fields"]] == [("/data/admin.passwordMtime", True)]
    assert doc["summary"]["regenerated"] == 1 and doc["summary"]["update"] == 1
