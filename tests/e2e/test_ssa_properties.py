"""The plan's server-side apply predictions (core/server_side.py) against Kubernetes' own
structured-merge-diff (tests/ssa_reference.py) on generated ownership histories over real
objects from the chart corpus (Deployments, StatefulSets, ConfigMaps, Services, RBAC roles).

Each history: Helm applies the previous object; a person edits some fields (`kubectl-edit`,
an Update), a controller updates others (an Update), another applier applies some fields,
some at Helm's values (shared), some at its own (forced). Then Helm applies the desired
object: the previous one with values changed, fields removed, labels and keyed list entries
added and removed. The plan reads the live object with the managedFields the reference wrote,
and its predicted conflicts (manager and field) and kept fields must be the reference's.

Adoption (issue 46 point 3): an object another manager made, which Helm applies for the first
time, predicted by core/adoption.py the same way.

Issue 46 points 1, 2 and 3. The corpus is read through `helm template` of the fetched Helm 4; a
missing corpus skips these tests (CI has it), a missing reference as tests/e2e/test_ssa_reference.py.
"""
from __future__ import annotations

import copy
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

import ssa_reference
from conftest import Store, run_plan, write_chart
from kubeapi import FakeKube
from ssa_reference import Outcome, Step
from deployah_plan.core.adoption import adopt
from deployah_plan.core.diff import diff_objects, same
from deployah_plan.core.drift import resolve
from deployah_plan.core.ownership import stamped
from deployah_plan.core.server_side import Applied, apply, without_managed_fields
from deployah_plan.model import FieldOp
from e2e.test_corpus import CORPUS, _no_nulls

pytestmark = pytest.mark.e2e

CHARTS = ("argo-cd", "alertmanager", "cloudnative-pg")  # Deployments, StatefulSets, ConfigMaps, Services, RBAC
KINDS = {"Deployment", "StatefulSet", "ConfigMap", "Service", "ClusterRole", "Role", "ServiceAccount"}
CASES = 100
KEY_FIELDS = {"name", "containerPort", "protocol", "port", "mountPath", "devicePath", "ip", "topologyKey"}
IDENTITY = {("apiVersion",), ("kind",), ("metadata", "name"), ("metadata", "namespace")}


@pytest.fixture(autouse=True)
def _reference() -> None:
    ssa_reference.required()


@pytest.fixture(scope="session")
def corpus_objects(helm4: Path) -> list[dict[str, Any]]:
    """The objects of a few corpus charts' renders, of the kinds above (one `helm template` each)."""
    out: list[dict[str, Any]] = []
    for name in CHARTS:
        packages = sorted((CORPUS / name).glob("*.tgz"))
        if not packages:
            continue
        done = subprocess.run([str(helm4), "template", "ssa", str(packages[-1]), "--namespace", "props"],
                              capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            continue
        for doc in yaml.safe_load_all(done.stdout):
            if isinstance(doc, dict) and doc.get("kind") in KINDS:
                obj = _no_nulls(doc)
                obj.setdefault("metadata", {}).setdefault("namespace", "props")
                out.append(obj)
    if not out:
        pytest.skip(f"no corpus chart rendered from {CORPUS} ({', '.join(CHARTS)})")
    return out


# -- generating histories ------------------------------------------------------------------------------

Path_ = tuple[Any, ...]


def _leaves(value: Any, at: Path_ = (), in_list: bool = False) -> list[tuple[Path_, bool]]:
    """Every scalar leaf (its path, and whether a list is on the way)."""
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, (*at, k), in_list)]
    if isinstance(value, list):
        return [leaf for n, v in enumerate(value) for leaf in _leaves(v, (*at, n), True)]
    return [(at, in_list)]


def _editable(obj: dict[str, Any]) -> list[tuple[Path_, bool]]:
    return [(p, in_list) for p, in_list in _leaves(obj)
            if p[:2] not in IDENTITY and p[:1] not in IDENTITY and not (in_list and p[-1] in KEY_FIELDS)
            and p[:1] != ("status",)]


def _get(obj: Any, path: Path_) -> Any:
    for token in path:
        obj = obj[token]
    return obj


def _set(obj: Any, path: Path_, value: Any) -> None:
    _get(obj, path[:-1])[path[-1]] = value


def _other(value: Any, tag: str) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    return f"{value}-{tag}"


def _containers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    spec = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    return [c for c in spec.get("containers") or [] if isinstance(c, dict)]


def _change(rng: random.Random, obj: dict[str, Any], tag: str, count: int) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    leaves = _editable(out)
    for path, _ in rng.sample(leaves, min(count, len(leaves))):
        _set(out, path, _other(_get(out, path), tag))
    return out


def _desired(rng: random.Random, previous: dict[str, Any]) -> dict[str, Any]:
    """The next chart's object: values changed, map fields removed, a label added, env entries
    removed and added."""
    out = _change(rng, previous, "next", rng.randint(0, 3))
    removable = [p for p, in_list in _editable(out) if not in_list and not isinstance(p[-1], int)]
    for path in rng.sample(removable, min(rng.randint(0, 3), len(removable))):
        parent = _get(out, path[:-1])
        parent.pop(path[-1], None)
    if rng.random() < 0.3:
        out["metadata"].setdefault("labels", {})["release-next"] = "yes"
    for container in _containers(out):
        if container.get("env"):
            container["env"] = [e for e in container["env"] if rng.random() >= 0.3]
        if rng.random() < 0.3:
            container.setdefault("env", []).append({"name": "NEXT", "value": "1"})
    return out


def _partial(rng: random.Random, previous: dict[str, Any], tag: str) -> tuple[dict[str, Any], bool]:
    """Another applier's object: a few of Helm's map fields, some at Helm's value (shared),
    some at its own (taken from Helm: forced), and a label of its own."""
    out: dict[str, Any] = {k: previous[k] for k in ("apiVersion", "kind")}
    out["metadata"] = {k: previous["metadata"][k] for k in ("name", "namespace") if k in previous["metadata"]}
    out["metadata"]["labels"] = {"team": tag}
    plain = [p for p, in_list in _editable(previous) if not in_list]
    forced = False
    for path in rng.sample(plain, min(rng.randint(1, 3), len(plain))):
        node = out
        for token in path[:-1]:
            node = node.setdefault(token, {})
        value = _get(previous, path)
        if rng.random() < 0.5:
            value, forced = _other(value, tag), True
        node[path[-1]] = value
    containers = _containers(previous)
    if containers and rng.random() < 0.5:  # an entry of a keyed list: one of Helm's, or its own
        container = rng.choice(containers)
        env = [e for e in container.get("env") or [] if "value" in e]
        entry = dict(rng.choice(env)) if env and rng.random() < 0.7 else {"name": "OPS", "value": "1"}
        template = out.setdefault("spec", {}).setdefault("template", {})
        template.setdefault("spec", {})["containers"] = [{"name": container["name"], "env": [entry]}]
    return out, forced


def _history(rng: random.Random, previous: dict[str, Any]) -> list[Step]:
    steps = [Step("helm", "Apply", previous)]
    current = previous
    if rng.random() < 0.7:
        current = _change(rng, current, "edit", rng.randint(1, 3))
        for container in _containers(current):
            if rng.random() < 0.3:
                container.setdefault("env", []).append({"name": "INJECTED", "value": "1"})
        steps.append(Step("kubectl-edit", "Update", current))
    if rng.random() < 0.4:
        current = _change(rng, current, "ctl", 1)
        steps.append(Step("some-controller", "Update", current))
    if rng.random() < 0.6:
        partial, forced = _partial(rng, previous, "ops")
        steps.append(Step("ops", "Apply", partial, force=forced))
    return steps


# -- the plan's side ------------------------------------------------------------------------------------

def _live(outcome: Outcome) -> dict[str, Any]:
    """The object as the API server serves it: with the managedFields the reference wrote."""
    assert outcome.obj is not None
    live = copy.deepcopy(outcome.obj)
    live.setdefault("metadata", {})["managedFields"] = [
        {"manager": name, "operation": operation, "apiVersion": live["apiVersion"], "fieldsType": "FieldsV1",
         "fieldsV1": fields} for name, (operation, fields) in sorted(outcome.managers.items())]
    return live


def _conflicts(applied: Applied) -> set[tuple[str, str]]:
    return {(o.manager, "/".join(o.at)) for c in applied.conflicts for o in c.owners}


def _taken(before: Outcome, forced: Outcome) -> set[tuple[str, str]]:
    """The reference's conflicts, as the fields a forced apply took from each other manager
    (`merge.Updater.update` moves them from their managers to Helm's; a field the apply removes
    leaves every manager's set, and Helm's too). ssaref.go reports its conflicts so, since the
    packaged library's own messages reuse one path buffer (`ConflictsFromManagers` keeps `p`,
    not `p.Copy()`); the test counts them against its report."""
    return {(name, leaf) for name in before.managers if name != "helm"
            for leaf in (before.owned(name) - forced.owned(name)) & forced.owned("helm")}
def _cases(objects: list[dict[str, Any]], seed: int) -> list[tuple[dict[str, Any], list[Step], dict[str, Any]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(CASES):
        previous = rng.choice(objects)
        out.append((previous, _history(rng, previous), _desired(rng, previous)))
    return out


def test_the_plans_conflicts_and_kept_fields_are_the_api_servers(corpus_objects: list[dict[str, Any]]) -> None:
    cases = _cases(corpus_objects, seed=46)
    batch = []
    for previous, history, desired in cases:
        batch += [history, [*history, Step("helm", "Apply", desired)],
                  [*history, Step("helm", "Apply", desired, force=True)]]
    outcomes = ssa_reference.run(batch)
    checked = conflicted = kept_seen = 0
    for n, (previous, history, desired) in enumerate(cases):
        before, plain, forced = outcomes[3 * n: 3 * n + 3]
        if any(before.errors) or plain.errors[-1] or forced.errors[-1]:
            continue  # an object the schema refuses (the reference's error), not a case
        checked += 1
        live = _live(before)
        changes = diff_objects(previous, desired)
        applied = apply(live, desired, changes, force_conflicts=False)
        expected = _taken(before, forced)
        assert len(expected) == len(plain.conflicts[-1]), (n, expected, plain.conflicts[-1])
        predicted = _conflicts(applied)
        assert predicted == expected, (n, sorted(predicted - expected), sorted(expected - predicted))
        conflicted += bool(expected)
        assert forced.conflicts[-1] == []
        assert forced.obj is not None
        for change in applied.fields:
            if change.op is not FieldOp.REMOVE or resolve(live, change) is resolve({}, change):
                continue
            stays = resolve(forced.obj, change) is not resolve({}, change)
            assert bool(change.kept_by) == stays, (n, change, history, desired)
            kept_seen += stays
        with_force = apply(live, desired, changes, force_conflicts=True)
        taken = {m for c in with_force.fields for m in c.taken_from}
        assert taken <= {name for name, _ in expected}
    assert checked >= CASES * 3 // 4, f"only {checked} of {CASES} generated cases ran"
    # The cases exercise both rules, and conflict-free upgrades too.
    assert conflicted >= 5 and checked - conflicted >= 5 and kept_seen >= 3, (checked, conflicted, kept_seen)


# -- end to end: real Helm 4, the loopback API server computing managedFields with the reference -------

_TEMPLATE = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
{{- if .Values.tier }}
    tier: {{ .Values.tier }}
{{- end }}
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: app
          image: {{ .Values.image }}
"""


def _web(image: str, tier: str | None) -> dict[str, Any]:
    labels = {"app": "web", **({"tier": tier} if tier else {}), "app.kubernetes.io/managed-by": "Helm"}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "labels": labels,
                         "annotations": {"meta.helm.sh/release-name": "shop", "meta.helm.sh/release-namespace": "shop"}},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "app", "image": image}]}}}}


def test_helm_plan_upgrade_predicts_the_conflict_and_the_field_that_stays(helm4: Path, store: Store,
                                                                          tmp_path: Path) -> None:
    """Issue 46 points 1 and 2 through real Helm 4: the image edited by hand (kubectl-edit, an
    Update) conflicts with the chart's new image; the label the chart stops setting, which
    another applier (ops) also applied, stays."""
    v1 = write_chart(tmp_path / "v1", "shop", {"web.yaml": _TEMPLATE}, values="image: app:1\ntier: front\n")
    v2 = write_chart(tmp_path / "v2", "shop", {"web.yaml": _TEMPLATE}, values="image: app:2\n")
    store.add("shop", v1, "shop")
    first = _web("app:1", "front")
    edited = copy.deepcopy(first)
    edited["spec"]["template"]["spec"]["containers"][0]["image"] = "app:hotfix"
    ops = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "web", "namespace": "shop", "labels": {"tier": "front"}}}
    history = [Step("helm", "Apply", first), Step("kubectl-edit", "Update", edited), Step("ops", "Apply", ops)]
    upgrade, = ssa_reference.run([[*history, Step("helm", "Apply", _web("app:2", None))]])
    image = '.spec.template.spec.containers[name="app"].image'
    assert [(c.manager, c.field) for c in upgrade.conflicts[-1]] == [("kubectl-edit", image)]  # what Helm 4 meets
    with FakeKube(namespace="shop") as kube:
        kube.write(history)  # the object and its managedFields as the API server computes them
        kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
        args = ("upgrade", "shop", str(v2), "-n", "shop")
        text = run_plan(*args, "--no-color", "--fail-on", "failure", helm=helm4, store=store, KUBECONFIG=kubeconfig)
        doc = run_plan(*args, "-o", "json", helm=helm4, store=store, KUBECONFIG=kubeconfig)
        markdown = run_plan(*args, "-o", "markdown", helm=helm4, store=store, KUBECONFIG=kubeconfig)
        forced = run_plan(*args, "-o", "json", "--force-conflicts", helm=helm4, store=store, KUBECONFIG=kubeconfig)
    assert (doc.code, text.code) == (0, 3), (doc.err, text.err)  # a predicted failure: --fail-on failure stops
    plan = doc.json()
    assert plan["live"]["apply_method"] == "ssa"
    (conflict,) = [w for w in plan["warnings"] if w["code"] == "ssa-conflict"]
    assert conflict["facts"]["fields"] == [{"path": "/spec/template/spec/containers/0/image",
                                            "keys": {"/spec/template/spec/containers/0": {"name": "app"}},
                                            "managers": ["kubectl-edit"]}]
    assert ("Deployment shop/web: server-side apply conflicts on spec.template.spec.containers[name=app].image "
            "(owned by field manager kubectl-edit)") in text.out, text.out
    (change,) = plan["changes"]
    fields = {f["path"]: f for f in change["fields"]}
    assert fields["/metadata/labels/tier"]["kept_by"] == ["ops"]
    assert '= metadata.labels.tier: "front"  (stays: owned by ops)' in text.out, text.out
    assert '\n  metadata.labels.tier: "front"  (stays: owned by ops)\n' in markdown.out, markdown.out  # not a `-` line
    # --force-conflicts: no conflict; the image is taken from kubectl-edit.
    assert forced.code == 0, forced.err
    forced_plan = forced.json()
    assert not [w for w in forced_plan["warnings"] if w["code"] == "ssa-conflict"]
    image_change = next(f for f in forced_plan["changes"][0]["fields"] if f["path"].endswith("/image"))
    assert image_change["taken_from"] == ["kubectl-edit"]


# -- adoption: an object made outside Helm, which the chart now renders (issue 46 point 3) ------------

CREATORS = ("kubectl-client-side-apply", "kubectl-create", "before-first-apply")


def _adoption_history(rng: random.Random, made: dict[str, Any]) -> list[Step]:
    """An object someone else made (a creator's Update), then edited, updated by a controller,
    or partly applied by another applier; Helm never applied it."""
    steps = [Step(rng.choice(CREATORS), "Update", made)]
    current = made
    if rng.random() < 0.5:
        current = _change(rng, current, "edit", rng.randint(1, 3))
        steps.append(Step("kubectl-edit", "Update", current))
    if rng.random() < 0.3:
        current = _change(rng, current, "ctl", 1)
        steps.append(Step("some-controller", "Update", current))
    if rng.random() < 0.4:
        partial, forced = _partial(rng, made, "ops")
        steps.append(Step("ops", "Apply", partial, force=forced))
    return steps


def test_the_plans_adoption_is_the_api_servers(corpus_objects: list[dict[str, Any]]) -> None:
    """Helm's server-side apply of an object it adopts (core/adoption.py): the conflicts with
    the fields other managers own are the reference's, every field the plan shows set is set so
    by the reference, and everything the reference changes in the live object is a field the
    chart declares (nothing is pruned: Helm owned nothing)."""
    rng = random.Random(4603)
    cases = []
    for _ in range(CASES):
        made = rng.choice(corpus_objects)
        cases.append((_adoption_history(rng, made), _desired(rng, made)))
    batch = []
    for history, desired in cases:
        applied = stamped(desired, "ssa", "props")
        batch += [history, [*history, Step("helm", "Apply", applied)],
                  [*history, Step("helm", "Apply", applied, force=True)]]
    outcomes = ssa_reference.run(batch)
    checked = conflicted = 0
    for n, (history, desired) in enumerate(cases):
        before, plain, forced = outcomes[3 * n: 3 * n + 3]
        if any(before.errors) or plain.errors[-1] or forced.errors[-1]:
            continue
        checked += 1
        live = _live(before)
        adopted = adopt(live, desired, "ssa", "props", ssa=True, three_way_custom=False, force_conflicts=False)
        expected = _taken(before, forced)
        assert _conflicts(adopted) == expected, (n, sorted(_conflicts(adopted) ^ expected), history, desired)
        conflicted += bool(expected)
        assert forced.obj is not None
        applied = stamped(desired, "ssa", "props")
        for change in adopted.fields:
            assert change.op is not FieldOp.REMOVE and not change.kept_by, (n, change)
            assert same(resolve(forced.obj, change), change.after), (n, change)
        for change in diff_objects(without_managed_fields(live), forced.obj):
            if change.equivalent or change.op in (FieldOp.REORDER, FieldOp.RENAME):
                continue
            if change.op is FieldOp.REMOVE:  # only inside a value the chart sets whole (an atomic list)
                assert resolve(applied, change) is resolve({}, change), (n, change)
            else:
                assert same(resolve(applied, change), change.after), (n, change)
    assert checked >= CASES * 3 // 4, f"only {checked} of {CASES} generated cases ran"
    assert conflicted >= 5 and checked - conflicted >= 5, (checked, conflicted)


_CONFIG = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n"


@pytest.mark.parametrize("method", ["ssa", "csa"])
def test_helm_plan_upgrade_shows_an_adoption_as_the_change_to_the_live_object(helm4: Path, store: Store,
                                                                              tmp_path: Path, method: str) -> None:
    """Issue 46 point 3 through real Helm 4: a Deployment made by `kubectl apply` (client-side:
    an Update by kubectl-client-side-apply), which the chart now renders, adopted with
    --take-ownership. Server-side, the chart's new image conflicts with kubectl's; client-side
    (a release stored so), the three-way merge sets the image and leaves kubectl's label."""
    v1 = write_chart(tmp_path / "v1", "shop", {"settings.yaml": _CONFIG})
    v2 = write_chart(tmp_path / "v2", "shop", {"settings.yaml": _CONFIG, "web.yaml": _TEMPLATE},
                     values="image: app:2\n")
    store.add("shop", v1, "shop", flags=("--server-side=false",) if method == "csa" else ())
    made = _web("app:1", None)
    del made["metadata"]["annotations"]
    made["metadata"]["labels"] = {"app": "web", "team": "a"}
    history = [Step("kubectl-client-side-apply", "Update", made)]
    before, adopted = ssa_reference.run([history, [*history, Step("helm", "Apply", _web("app:2", None))]])
    image = '.spec.template.spec.containers[name="app"].image'
    assert [(c.manager, c.field) for c in adopted.conflicts[-1]] == [("kubectl-client-side-apply", image)]
    with FakeKube(namespace="shop") as kube:
        kube.put(_live(before))
        kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
        args = ("upgrade", "shop", str(v2), "-n", "shop", "--take-ownership")
        text = run_plan(*args, "--no-color", helm=helm4, store=store, KUBECONFIG=kubeconfig)
        doc = run_plan(*args, "-o", "json", helm=helm4, store=store, KUBECONFIG=kubeconfig)
    assert doc.code == 0, doc.err
    plan = doc.json()
    assert plan["live"]["apply_method"] == method
    (change,) = [c for c in plan["changes"] if c["resource"]["kind"] == "Deployment"]
    assert (change["action"], change["ownership"]) == ("create", "adopt")
    fields = {f["path"]: (f["op"], f["before"], f["after"]) for f in change["fields"]}
    assert fields["/spec/template/spec/containers/0/image"] == ("replace", "app:1", "app:2")
    assert fields["/metadata/labels/app.kubernetes.io~1managed-by"] == ("add", None, "Helm")
    assert not [p for p in fields if "team" in p]  # kubectl's label stays: nothing is deleted
    assert ('~ spec.template.spec.containers[name=app].image: "app:1" -> "app:2"') in text.out, text.out
    assert "replicas: 2" not in text.out  # no content of its own: the live object is changed, not created
    conflicts = [w for w in plan["warnings"] if w["code"] == "ssa-conflict"]
    if method == "csa":
        assert conflicts == []
        assert [i["kind"] for i in plan["impact"]] == ["restart"]
        return
    (conflict,) = conflicts
    assert conflict["resource"]["name"] == "web" and conflict["facts"]["fields"] == [
        {"path": "/spec/template/spec/containers/0/image",
         "keys": {"/spec/template/spec/containers/0": {"name": "app"}}, "managers": ["kubectl-client-side-apply"]}]
    assert plan["impact"] == []  # the apply fails: nothing rolls out
