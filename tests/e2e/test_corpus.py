"""The chart corpus: real public charts at two releases each, planned through the real command
line on Helm 3 and Helm 4 and checked against invariants that need no expected output.

The corpus is not in the repository (tests/corpus/README.md says how to make one and why). This
tier runs over the folder `HELM_PLAN_CORPUS` names, by default `../shared/corpus` beside the clone
(where CI keeps it) or else `.cache/corpus`, and is skipped when there is none. Its layout: one
folder per chart holding two or more packaged releases `<version>.tgz` (the two newest are
planned, older to newer) and, when the chart needs one to render, `values.yaml`, given to both
releases. Each helm plans against a release record it made itself (`_record`).

For each chart and each helm, what the plan must say is derived here from helm's own renders,
split by Helm's rules written out below from Helm's sources (kind_sorter.go, hooks, crds/), never
by the planner:
- a no-op upgrade (the same chart and values as the release) changes what Helm's upgrade render
  of that chart really changes (`.Release.IsUpgrade`), and otherwise only values the chart
  regenerates on every render;
- the upgrade creates, updates and deletes what an independent split of the two renders says, in
  Helm's kind order, and predicts no failure; nor does installing the newer release;
- every CRD of any `crds/` folder (a subchart's included) whose document changed is reported as
  changed;
- no value of a rendered Secret reaches any output;
- every output format renders, and the JSON plan is valid against the published schema;
- every claim about running things, of every impact kind (restarts and their pod counts, config
  that reaches pods or not, Services that lose their pods, ports and routes removed, replicas an
  HPA scales, data at risk), agrees both ways with an independent judgment of the same renders
  (tests/judgments.py), on the upgrade and on the no-op upgrade.

Each chart is bounded in time (`HELM_PLAN_CORPUS_TIMEOUT` seconds, 300 by default). A chart's
failures are all gathered and reported together, so one run lists everything a chart finds.
"""
from __future__ import annotations

import base64
import binascii
import json
import os
import re
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Callable, Iterable

import pytest
import yaml

from conftest import ROOT, clean_env, run_plan
from deployah_plan.impacts import ImpactKind
from deployah_plan.render.writers import WRITERS
from judgments import Claim, Judgments, judge, leaves
from e2e.test_cases import validate
from kubeapi import FakeKube, Request

pytestmark = [pytest.mark.e2e, pytest.mark.corpus]

SHARED_CORPUS = ROOT.parent / "shared" / "corpus"  # where CI keeps it, beside the clone (read-only)


def _corpus() -> Path:
    """`HELM_PLAN_CORPUS`, else `../shared/corpus` when it exists, else `.cache/corpus`."""
    named = os.environ.get("HELM_PLAN_CORPUS")
    if named:
        return Path(named)
    return SHARED_CORPUS if SHARED_CORPUS.is_dir() else ROOT / ".cache" / "corpus"


CORPUS = _corpus()
TIMEOUT = float(os.environ.get("HELM_PLAN_CORPUS_TIMEOUT") or 300)
NAMESPACE = "corpus"
FORMATS = tuple(WRITERS)  # every -o choice of a plan command

# Helm 3's InstallOrder (pkg/releaseutil/kind_sorter.go); Helm 4 appends the two webhook kinds.
# Unknown kinds sort after all known kinds, alphabetically; the sort is stable.
INSTALL_ORDER = [
    "PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
    "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
    "PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole", "ClusterRoleList",
    "ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList", "Service",
    "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment", "HorizontalPodAutoscaler",
    "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService",
]
HELM4_APPENDS = ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]
HOOK_EVENTS = {"pre-install", "post-install", "pre-delete", "post-delete", "pre-upgrade", "post-upgrade",
               "pre-rollback", "post-rollback", "test", "test-success"}
# Kinds outside namespaces (Kubernetes API reference) that these charts use.
CLUSTER_SCOPED = {"ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "IngressClass", "Namespace",
                  "PriorityClass", "StorageClass", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
                  "APIService", "PersistentVolume", "CSIDriver", "RuntimeClass", "ValidatingAdmissionPolicy",
                  "ValidatingAdmissionPolicyBinding", "ClusterIssuer", "ClusterSecretStore", "PodSecurityPolicy",
                  "ClusterPolicy", "VolumeSnapshotClass", "GatewayClass", "FlowSchema", "PriorityLevelConfiguration"}
CRD_SOURCE = re.compile(r"^[^/]+(/charts/[^/]+)*/crds/")
GITHUB_COMMENT = 65_536  # characters a GitHub comment holds
GITHUB_ANNOTATIONS = 10  # warning, and error, annotations GitHub shows of one step
SECRET_MIN = 8  # shorter Secret values ("admin", "true") are words any output may hold for other reasons
SECRET_WORD = re.compile(r"""[^\s:"'`{}\[\](),;=]+""")  # a word of a Secret value: YAML, JSON and env punctuation apart

Identity = tuple[str, str, str, str]


def _version(path: Path) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", path.stem))


@dataclass(frozen=True)
class Chart:
    name: str
    prev: Path
    next: Path
    values: Path | None

    def flags(self) -> list[str]:
        return ["-f", str(self.values)] if self.values else []


def _charts() -> list[Chart]:
    if not CORPUS.is_dir():
        return []
    out = []
    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        packages = sorted(folder.glob("*.tgz"), key=_version)
        if len(packages) >= 2:
            values = folder / "values.yaml"
            out.append(Chart(folder.name, packages[-2], packages[-1], values if values.is_file() else None))
    return out


CHARTS = _charts()


class Budget:
    """What is left of one chart's time; a command that would outlast it is stopped."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        left = self.end - time.monotonic()
        if left <= 0:
            pytest.fail(f"the chart took more than {TIMEOUT:.0f} s (HELM_PLAN_CORPUS_TIMEOUT)")
        return left


def _run(args: list[str], budget: Budget, **env: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(args, capture_output=True, text=True, env=clean_env(**env), timeout=budget.left())
    except subprocess.TimeoutExpired:
        pytest.fail(f"the chart took more than {TIMEOUT:.0f} s (HELM_PLAN_CORPUS_TIMEOUT): {' '.join(args[:4])}")


def _helm(helm: Path, empty: Path, budget: Budget, *args: str) -> str:
    """helm ARGS with an empty memory store: Helm 3's client-side dry run still reads a store."""
    done = _run([str(helm), *args], budget, HELM_DRIVER="memory", HELM_MEMORY_DRIVER_DATA=str(empty))
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _plan(helm: Path, store: Path, budget: Budget, *args: str) -> subprocess.CompletedProcess[str]:
    """`helm-plan ARGS` as a user runs it: a new process, real helm, the release in a memory store."""
    return _run([sys.executable, "-m", "deployah_plan", *args], budget, HELM_BIN=str(helm), HELM_DRIVER="memory",
                HELM_MEMORY_DRIVER_DATA=str(store))


# --- Helm's rules, applied to helm's renders --------------------------------------------------

@dataclass
class Split:
    manifest: list[tuple[Identity, dict[str, Any]]]  # in Helm's install order
    hooks: list[dict[str, Any]]
    crds: dict[str, dict[str, Any]]  # crds/ documents by name
    sources: dict[Identity, str]  # the template file of each manifest object (its `# Source:`)


def _no_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _no_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_no_nulls(v) for v in value]
    return value


def _identity(obj: dict[str, Any]) -> Identity:
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    kind = str(obj.get("kind", ""))
    meta = obj.get("metadata") or {}
    ns = "" if kind in CLUSTER_SCOPED else (meta.get("namespace") or NAMESPACE)
    return group, kind, ns, str(meta.get("name", ""))


class _Loader(yaml.CSafeLoader):
    """YAML 1.1 as the API server reads it, where `=` is a plain string (not PyYAML's value tag)."""


_Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))


def _documents(rendered: str) -> list[tuple[str, dict[str, Any]]]:
    """Each document of a render with the file it came from: a `# Source:` line names the file
    of every document up to the next one (a crds/ file is printed whole, its own `---` kept)."""
    out = []
    source = ""
    for chunk in re.split(r"(?m)^---\s*$", rendered):
        named = re.search(r"(?m)^# Source: (.+)$", chunk)
        if named:
            source = named.group(1).strip()
        doc = yaml.load(chunk, Loader=_Loader)
        if isinstance(doc, dict) and doc:
            out.append((source, doc))
    return out


def _kind_rank(kind: str, helm4: bool) -> tuple[int, str]:
    order = INSTALL_ORDER + (HELM4_APPENDS if helm4 else [])
    return (order.index(kind), "") if kind in order else (len(order), kind)


def split(rendered: str, helm4: bool) -> Split:
    manifest, hooks, crds, sources = [], [], {}, {}
    for source, doc in _documents(rendered):
        if CRD_SOURCE.match(source):
            crds[str(doc["metadata"]["name"])] = _no_nulls(doc)
            continue
        annotations = (doc.get("metadata") or {}).get("annotations") or {}
        events = {e.strip().lower() for e in str(annotations.get("helm.sh/hook", "")).split(",") if e.strip()}
        if events:
            if events <= HOOK_EVENTS:
                hooks.append(doc)
            continue  # an unknown event: Helm drops the document
        obj = _no_nulls(doc)
        ident = _identity(obj)
        if ident[2]:
            obj["metadata"]["namespace"] = ident[2]
        else:
            obj["metadata"].pop("namespace", None)
        manifest.append((ident, obj))
        sources[ident] = source
    manifest.sort(key=lambda item: _kind_rank(item[0][1], helm4))  # stable: template order within a kind
    return Split(manifest, hooks, crds, sources)


def _stored(record: dict[str, Any], helm4: bool) -> Split:
    """The release as stored: its manifest and its hooks, read by the same rules."""
    hooks = "".join(f"---\n# Source: {h.get('path', '')}\n{h['manifest']}\n" for h in record.get("hooks") or [])
    return split(record["manifest"] + "\n" + hooks, helm4)


def _hooks(part: Split) -> dict[Identity, dict[str, Any]]:
    return {_identity(obj): obj for obj in map(_no_nulls, part.hooks)}


_ABSENT = object()


def _upgrade_changes(stored: dict[Identity, dict[str, Any]], first: dict[Identity, dict[str, Any]],
                     second: dict[Identity, dict[str, Any]]) -> dict[Identity, str]:
    """What upgrading a release to the same chart and values really changes, and how: Helm's
    upgrade render (`.Release.IsUpgrade` true: istiod drops a webhook's `failurePolicy: Ignore`
    that it sets only on install), made twice, against the install record. A field changes where
    both upgrade renders agree and differ from the record; a field they disagree on is one the
    chart regenerates on every render, not a change of the upgrade's own. An object both renders
    hold and the record does not is created; one the record holds and neither render does, deleted."""
    out: dict[Identity, str] = {}
    for ident in stored.keys() | first.keys():
        if ident not in stored:
            if ident in second:
                out[ident] = "create"
        elif ident not in first:
            if ident not in second:
                out[ident] = "delete"
        elif ident in second:
            old, new, repeat = leaves(stored[ident]), leaves(first[ident]), leaves(second[ident])
            if any(old.get(k, _ABSENT) != new.get(k, _ABSENT) and new.get(k, _ABSENT) == repeat.get(k, _ABSENT)
                   for k in old.keys() | new.keys()):
                out[ident] = "update"
    return out


def _published(*packages: Path) -> str:
    """The text of every file of chart packages: what the chart itself publishes."""
    texts = []
    for package in packages:
        with tarfile.open(package) as archive:
            for member in archive.getmembers():
                handle = archive.extractfile(member) if member.isfile() else None
                if handle is not None:
                    texts.append(handle.read().decode("utf-8", "replace"))
    return "\n".join(texts)


def _secret_values(splits: Iterable[Split], published: str) -> set[str]:
    """What no output may show of the values of rendered Secrets, as the chart wrote them and
    decoded: each whole value of 8 characters or more that no other object holds; each line of
    one that holds a word written nowhere else, and each such word of 8 characters or more.
    Written elsewhere: in other objects, a Secret's metadata and keys, the template paths, and,
    for lines and words, the chart packages' files (`published`). jupyterhub keeps its values file
    in a Secret, where `singleuser:` names what a NetworkPolicy is also named after and
    kube-prometheus-stack's alertmanager config has a `templates:` key, while a password line or a
    generated token is written nowhere else."""
    values: set[str] = set()
    public: list[str] = []
    paths: list[str] = []
    for part in splits:
        paths += part.sources.values()
        for obj in [o for _, o in part.manifest] + part.hooks:
            if obj.get("kind") != "Secret":
                public += [json.dumps(obj), yaml.safe_dump(obj)]
                continue
            public.append(json.dumps({k: v for k, v in obj.items() if k not in ("data", "stringData")}))
            for key in ("data", "stringData"):
                for name, value in (obj.get(key) or {}).items():
                    public.append(str(name))
                    if not isinstance(value, str):
                        continue
                    values.add(value)
                    if key == "data":
                        try:
                            values.add(base64.b64decode(value, validate=True).decode())
                        except (binascii.Error, UnicodeDecodeError):
                            pass
    seen = "\n".join(public)
    known = "\n".join([seen, *paths, published])
    out = set()
    for value in values:
        if len(value.strip()) >= SECRET_MIN and value.strip() not in seen:
            out.add(value.strip())
        for line in value.splitlines():
            private = [word for word in SECRET_WORD.findall(line) if word not in known]
            if private and len(line.strip()) >= SECRET_MIN and line.strip() not in known:
                out.add(line.strip())
            out.update(word for word in private if len(word) >= SECRET_MIN)
    return out


def _store(path: Path, record: dict[str, Any] | None) -> Path:
    stored = [] if record is None else [{**record, "version": 1, "info": {**record["info"], "status": "deployed"}}]
    path.write_text(json.dumps(stored, ensure_ascii=False))  # Helm 3 reads it as YAML: no \ud83d escapes
    return path


# --- the release record, made by the helm under test -------------------------------------------

# A chart that prints what helm assumes of the cluster: `helm template` (no cluster) prints its
# defaults, `install` prints what the cluster it asked said.
PROBE = """apiVersion: v1
kind: ConfigMap
metadata:
  name: capabilities
data:
  kube: {{ toJson .Capabilities.KubeVersion | quote }}
  apis: {{ toJson (sortAlpha .Capabilities.APIVersions) | quote }}
"""


def _probe(folder: Path) -> Path:
    (folder / "templates").mkdir(parents=True, exist_ok=True)
    (folder / "Chart.yaml").write_text("apiVersion: v2\nname: capabilities\nversion: 0.1.0\n")
    (folder / "templates" / "capabilities.yaml").write_text(PROBE)
    return folder


def _capabilities(rendered: str) -> dict[str, Any]:
    doc = yaml.safe_load(rendered)
    return {key: json.loads(value) for key, value in doc["data"].items()}


def _answer(body: dict[str, Any]) -> Callable[[BaseHTTPRequestHandler, Request], None]:
    data = json.dumps(body).encode()

    def respond(handler: BaseHTTPRequestHandler, request: Request) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
    return respond


def _discovery(kube: FakeKube, capabilities: dict[str, Any]) -> None:
    """Make `kube` answer discovery as helm assumes offline: its default Kubernetes version, and
    its default API versions, each serving no resource (so the set helm builds is that list)."""
    version = capabilities["kube"]
    kube.script("/version", _answer({"major": version["Major"], "minor": version["Minor"],
                                     "gitVersion": version["Version"], "platform": "linux/amd64"}))
    groups: dict[str, list[str]] = {}
    for gv in capabilities["apis"]:
        group, _, ver = gv.rpartition("/")
        groups.setdefault(group, []).append(ver)
        path = f"/apis/{gv}" if group else f"/api/{gv}"
        kube.script(path, _answer({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv,
                                   "resources": []}))
    kube.script("/api", _answer({"kind": "APIVersions", "versions": groups.pop("", [])}))
    kube.script("/apis", _answer({"kind": "APIGroupList", "apiVersion": "v1", "groups": [
        {"name": g, "versions": [{"groupVersion": f"{g}/{v}", "version": v} for v in vs],
         "preferredVersion": {"groupVersion": f"{g}/{vs[0]}", "version": vs[0]}} for g, vs in groups.items()]}))


def _record(helm: Path, chart: Chart, tmp_path: Path, budget: Budget) -> dict[str, Any]:
    """The release record the helm under test makes of installing the older package
    (`install --dry-run=client -o json`). Helm 4's client-side dry run needs no cluster. Helm 3's
    asks one for its capabilities (`could not get server version from Kubernetes`): it is given
    a loopback server that answers discovery with the capabilities Helm 3 itself assumes offline
    (read from its `helm template` of a probe chart, and checked to come back the same), so the
    record is Helm 3's own render, for the same cluster the plan assumes offline."""
    empty = _store(tmp_path / "empty.json", None)
    args = ["install", chart.name, str(chart.prev), "-n", NAMESPACE, *chart.flags(), "--dry-run=client", "-o", "json"]
    if helm.parent.name.startswith("4"):
        return dict(json.loads(_helm(helm, empty, budget, *args)))
    probe = _probe(tmp_path / "capabilities")
    offline = _capabilities(_helm(helm, empty, budget, "template", "probe", str(probe)))
    with FakeKube(namespace=NAMESPACE) as kube:
        _discovery(kube, offline)
        config = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))

        def install(*install_args: str) -> dict[str, Any]:
            done = _run([str(helm), *install_args], budget, HELM_DRIVER="memory",
                        HELM_MEMORY_DRIVER_DATA=str(empty), KUBECONFIG=config)
            assert done.returncode == 0, done.stderr[-2000:]
            return dict(json.loads(done.stdout))
        served = _capabilities(install("install", "probe", str(probe), "-n", NAMESPACE, "--dry-run=client",
                                       "-o", "json")["manifest"])
        assert served == offline, f"the loopback cluster's capabilities {served} are not helm's offline {offline}"
        return install(*args)


# --- the plan's claims about running things, against the reference -----------------------------

RESTARTS = ("restart", "deferred-restart")
TRAFFIC = ("traffic-unmatched", "traffic-moved", "traffic-gap")


class _Any:
    """A fact the reference cannot know offline: equal to whatever the plan says."""

    def __eq__(self, other: object) -> bool:
        return True

    def __repr__(self) -> str:
        return "(any)"


ANY = _Any()


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _pvc_class(claim: Claim) -> tuple[Any, Any]:
    """A growing claim's class and what it allows; one that names no class has the cluster's
    default as it was when the claim was made, which no render says."""
    return (claim.storage_class, claim.expansion) if claim.storage_class is not None else (ANY, ANY)


# The other kinds, each held to the reference object by object: what the reference judges of each
# object, and the same facts as the plan's JSON gives them (its facts and counts).
Facts = dict[str, Any]
COMPARED: dict[str, tuple[Callable[[Judgments], dict[Identity, Any]], Callable[[Facts, Facts], Any]]] = {
    "no-restart": (
        lambda j: {i: w.replicas for i, w in j.workloads.items() if w.no_restart},
        lambda f, c: (f.get("replicas_before"), f.get("replicas_after"))),
    "replicas-reset": (
        lambda j: {i: (r.chart_replicas, _named(r.hpa), r.hpa_min, r.hpa_max, r.rule, r.chart_replicas)
                   for i, r in j.resets.items()},
        lambda f, c: (f.get("chart_replicas"), _named(_resource(f["hpa"])) if f.get("hpa") else None, f.get("hpa_min"),
                      f.get("hpa_max"), f.get("rule"), c.get("replicas"))),
    "traffic-port": (
        lambda j: {i: (sorted((p.port, p.protocol, p.rule, p.target_before, p.target_after) for p in ports), len(ports))
                   for i, ports in j.ports.items()},
        lambda f, c: (sorted((str(p["port"]), p["protocol"], p["rule"], _text(p.get("target_before")),
                              _text(p.get("target_after"))) for p in f.get("ports") or []), c.get("ports"))),
    "traffic-route": (
        lambda j: {i: (r.deleted, sorted((g.route, g.host, g.path, g.method, g.headers) for g in r.gone), len(r.gone))
                   for i, r in j.routes.items()},
        lambda f, c: (f.get("deleted"), sorted((r["route"], r.get("host") or "", r.get("path") or "", r.get("method") or "",
                                                tuple(r.get("headers") or ())) for r in f.get("routes") or []),
                      c.get("routes"))),
    "data-crd": (
        lambda j: {i: (c.resource_kind, c.group) for i, c in j.crds.items()},
        lambda f, c: (f.get("resource_kind"), f.get("group"))),
    "data-pvc-shrink": (
        lambda j: {i: (c.storage_before, c.storage_after) for i, c in j.claims.items() if c.shrinks},
        lambda f, c: (f.get("storage_before"), f.get("storage_after"))),
    "data-pvc-expand": (
        lambda j: {i: (c.storage_before, c.storage_after, *_pvc_class(c)) for i, c in j.claims.items() if not c.shrinks},
        lambda f, c: (f.get("storage_before"), f.get("storage_after"), f.get("storage_class"), f.get("expansion"))),
    "data-pvc-left": (
        lambda j: {i: (sorted(x.templates), x.replicas, x.claims_deleted, x.replicas * len(x.templates))
                   for i, x in j.left.items()},
        lambda f, c: (sorted(f.get("templates") or []), f.get("replicas"), f.get("claims_deleted"), c.get("claims"))),
}
JUDGED = RESTARTS + TRAFFIC + ("config-unreached", *COMPARED)  # every impact kind the reference judges


def _resource(ref: dict[str, Any]) -> Identity:
    return ref["api_version"].rpartition("/")[0], ref["kind"], ref["namespace"], ref["name"]


def _named(ident: Identity) -> str:
    return f"{ident[1]} {ident[3]}"


def _names(idents: Iterable[Identity]) -> list[str]:
    return sorted(map(_named, idents))


def _shown(items: Iterable[Identity | str]) -> list[str]:
    return sorted(item if isinstance(item, str) else _named(item) for item in items)


def _disagreements(judged: Judgments, plan: dict[str, Any]) -> list[str]:
    """Each claim of the plan about running things (every impact kind) that the reference does
    not reach, with the facts it states, and each judgment of the reference the plan does not
    claim."""
    found: list[str] = []
    claims: dict[tuple[Identity, str], list[dict[str, Any]]] = {}
    for item in plan["impact"]:
        claims.setdefault((_resource(item["resource"]), item["kind"]), []).append(item)

    def plain(ident: Identity, *kinds: str) -> list[dict[str, Any]]:
        """The claims of these kinds, less those made with the caveat that only regenerated values drive them."""
        return [i for k in kinds for i in claims.get((ident, k), []) if (i.get("facts") or {}).get("regenerated") is not True]

    for (ident, kind), _ in sorted(claims.items()):
        if kind in RESTARTS and ident not in judged.workloads:
            found.append(f"{kind} {_named(ident)}: no pod template of it is both in the release and in the upgrade")
        if kind in TRAFFIC and ident not in judged.services:
            found.append(f"{kind} {_named(ident)}: no selector of it is both in the release and in the upgrade")

    for ident, work in sorted(judged.workloads.items()):
        said = plain(ident, *RESTARTS)
        kinds = [i["kind"] for i in said] or ["nothing"]
        why = ", ".join(work.real_paths[:3])
        if work.refused:
            if said:
                found.append(f"{said[0]['kind']} {_named(ident)}: the API server refuses the update (spec "
                             f"{', '.join(work.refused)} changes), so nothing restarts")
            continue
        if work.restarts:
            restart = [i for i in said if i["kind"] == "restart"]
            if not restart:
                found.append(f"restart {_named(ident)}: its pods restart ({why}) but the plan says {kinds}")
            else:
                facts = restart[0].get("facts") or {}
                if work.pods.per_node:
                    counted = facts.get("pods") is None and facts.get("hpa") is None
                    want = "one pod per node"
                elif work.pods.hpa_range is not None:
                    counted = (facts.get("hpa_min"), facts.get("hpa_max")) == work.pods.hpa_range
                    want = f"{work.pods.hpa_range[0]} to {work.pods.hpa_range[1]} pods (HPA)"
                else:
                    counted = facts.get("pods") == work.pods.replicas
                    want = f"{work.pods.replicas} pods"
                if not counted:
                    found.append(f"restart {_named(ident)}: {want} restart, the plan says pods {facts.get('pods')}, "
                                 f"HPA {facts.get('hpa_min')} to {facts.get('hpa_max')}")
        elif work.real and work.pods.none:
            if any(i["kind"] == "restart" for i in said):
                found.append(f"restart {_named(ident)}: at 0 replicas no pod restarts, but the plan says restart")
        elif work.real:
            if not any(i["kind"] == "deferred-restart" for i in said):
                found.append(f"deferred-restart {_named(ident)}: its pod template changes ({why}) and waits "
                             f"(OnDelete, paused or a partition), but the plan says {kinds}")
        elif said:
            how = "changes only by values that regenerate" if work.changed else "does not change"
            found.append(f"{said[0]['kind']} {_named(ident)}: its pod template {how}, but the plan claims it "
                         "without the regenerated caveat")
        caveated = [i for k in RESTARTS for i in claims.get((ident, k), [])]
        for item in (said or caveated)[:1]:  # what it says the pods read, with or without the caveat
            facts = item.get("facts") or {}
            checks: list[tuple[str, set[Any], set[Any]]] = [
                ("checksums", set(facts.get("checksums") or []), set(work.config_checksums)),
                ("regenerated_checksums", set(facts.get("regenerated_checksums") or []),
                 set(work.regenerated_checksums)),
                ("other_checksums", set(facts.get("other_checksums") or []), set(work.other_checksums)),
                ("reads", {_resource(r) for r in facts.get("reads") or []}, set(work.reads_changed)),
                ("regenerated_reads", {_resource(r) for r in facts.get("regenerated_reads") or []},
                 set(work.reads_regenerated))]
            for what, claimed, reached in checks:
                if claimed != reached:
                    found.append(f"{item['kind']} {_named(ident)}: {what} {_shown(claimed)}, the reference "
                                 f"{_shown(reached)}")

    for ident, config in sorted(judged.configs.items()):
        readers = config.readers_of(config.real_keys)
        moved = {r for r in readers if r in judged.workloads and judged.workloads[r].real}
        unreached = plain(ident, "config-unreached")
        if readers and not moved and not unreached:
            found.append(f"config-unreached {_named(ident)}: keys {sorted(config.real_keys)[:4]} really change, "
                         f"read by {_names(readers)} whose pods do not restart, but the plan says nothing")
        for item in unreached:
            consumers = {_resource(c["workload"]) for c in (item.get("facts") or {}).get("consumers") or []}
            if not readers:
                found.append(f"config-unreached {_named(ident)}: no key that really changes is read "
                             f"(changed: {sorted(config.real_keys)[:4]}, regenerated: "
                             f"{sorted(config.regenerated_keys)[:4]})")
            elif moved:
                found.append(f"config-unreached {_named(ident)}: {_names(moved)} read it and restart")
            elif consumers != readers:
                found.append(f"config-unreached {_named(ident)}: consumers {_names(consumers)}, the readers of "
                             f"its changed keys {_names(readers)}")

    for ident, service in sorted(judged.services.items()):
        traffic = sorted({i["kind"] for i in plain(ident, *TRAFFIC)})
        if service.unmatched and "traffic-unmatched" not in traffic:
            found.append(f"traffic-unmatched {_named(ident)}: its new selector matches no workload's pods "
                         f"(before: {_names(service.matched_before)}), but the plan says {traffic or 'nothing'}")
        elif service.moved and "traffic-moved" not in traffic:
            found.append(f"traffic-moved {_named(ident)}: it matches {_names(service.matched_after)} "
                         f"instead of {_names(service.matched_before)}, but the plan says {traffic or 'nothing'}")
        if service.drops and not service.unmatched and "traffic-gap" not in traffic:
            found.append(f"traffic {_named(ident)}: its new selector matches none of the running pods of "
                         f"{_names(service.matched_before)} until the rollout, but the plan says {traffic or 'nothing'}")
        for kind in traffic:
            if kind == "traffic-unmatched" and not service.unmatched or kind == "traffic-moved" and not service.moved:
                found.append(f"{kind} {_named(ident)}: the reference has it match {_names(service.matched_after)} "
                             f"after, {_names(service.matched_before)} before")
            elif kind == "traffic-gap" and not (service.drops and not service.unmatched):
                found.append(f"traffic-gap {_named(ident)}: the reference has its new selector match "
                             f"{_names(service.still_matched)} of the running pods of {_names(service.matched_before)}")

    for kind, (reached_of, claimed_of) in COMPARED.items():
        judgments = reached_of(judged)
        stated = {ident: [claimed_of(i.get("facts") or {}, i.get("counts") or {}) for i in items]
                  for (ident, k), items in claims.items() if k == kind}
        for ident in sorted(judgments.keys() | stated.keys()):
            said = stated.get(ident, [])
            if ident not in stated:
                found.append(f"{kind} {_named(ident)}: the reference judges {judgments[ident]}, but the plan says nothing")
            elif ident not in judgments:
                found.append(f"{kind} {_named(ident)}: claimed {said[0]}, but the reference judges none")
            elif len(said) > 1 or said[0] != judgments[ident]:
                found.append(f"{kind} {_named(ident)}: claimed {said if len(said) > 1 else said[0]}, the reference "
                             f"{judgments[ident]}")
    for kind in sorted({k for _, k in claims} - set(JUDGED)):
        found.append(f"{kind}: an impact kind the reference does not judge")
    return found


def _every_kind() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A release and an upgrade of our own making where every impact kind but the config and
    Service-selector ones (held on the corpus) is reached once."""
    def meta(kind: str, api: str, name: str, **more: Any) -> dict[str, Any]:
        return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": NAMESPACE, **more}}

    def workload(name: str, replicas: int, image: str = "app:1", kind: str = "Deployment") -> dict[str, Any]:
        labels = {"app": name}
        return {**meta(kind, "apps/v1", name), "spec": {
            "replicas": replicas, "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": image}]}}}}

    def claim(name: str, size: str) -> dict[str, Any]:
        return {**meta("PersistentVolumeClaim", "v1", name), "spec": {
            "accessModes": ["ReadWriteOnce"], "storageClassName": "fast", "resources": {"requests": {"storage": size}}}}

    def ingress(*hosts: str) -> dict[str, Any]:
        backend = {"service": {"name": "web", "port": {"number": 80}}}
        return {**meta("Ingress", "networking.k8s.io/v1", "web"), "spec": {"rules": [
            {"host": h, "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": backend}]}} for h in hosts]}}

    def service(*ports: dict[str, Any]) -> dict[str, Any]:
        return {**meta("Service", "v1", "web"), "spec": {"selector": {"app": "web"}, "ports": list(ports)}}
    hpa = {**meta("HorizontalPodAutoscaler", "autoscaling/v2", "web"), "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "minReplicas": 2, "maxReplicas": 6}}
    route = {**meta("HTTPRoute", "gateway.networking.k8s.io/v1", "old"), "spec": {
        "hostnames": ["old.example"], "rules": [{"matches": [{"path": {"type": "PathPrefix", "value": "/api"}}]}]}}
    widgets = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": "widgets.example.com"},
               "spec": {"group": "example.com", "scope": "Namespaced", "names": {"kind": "Widget", "plural": "widgets"},
                        "versions": [{"name": "v1", "served": True, "storage": True}]}}
    fast = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "fast"},
            "provisioner": "example.com/disk", "allowVolumeExpansion": True}
    db = workload("db", 2, kind="StatefulSet")
    db["spec"]["serviceName"] = "db"
    db["spec"]["volumeClaimTemplates"] = [{"metadata": {"name": "data"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]
    api_after = workload("api", 3)
    api_after["metadata"]["labels"] = {"tier": "api"}
    before = [workload("web", 2), hpa, workload("api", 1), workload("worker", 1),
              service({"port": 80, "targetPort": 8080}, {"port": 9090}), ingress("a.example", "b.example"), route,
              widgets, fast, claim("small", "10Gi"), claim("big", "1Gi"), db]
    after = [workload("web", 2), hpa, api_after, workload("worker", 1, image="app:2"),
             service({"port": 80, "targetPort": "http"}), ingress("a.example"), fast, claim("small", "5Gi"),
             claim("big", "2Gi")]
    return before, after


def _planned(before: list[dict[str, Any]], after: list[dict[str, Any]], method: str,
             tmp_path: Path) -> tuple[Judgments, dict[str, Any]]:
    """The reference's judgment and the plan (`diff -o json`, applied `method`) of the same release
    and upgrade."""
    files = []
    for name, objs in (("before", before), ("after", after)):
        files.append(tmp_path / f"{name}.yaml")
        files[-1].write_text(yaml.safe_dump_all(objs))
    done = run_plan("diff", *map(str, files), "--release", "r", "-n", NAMESPACE, "--kind-order", "helm4",
                    "--apply-method", method, "-o", "json")
    assert done.code == 0, done.err
    objects = [{ident: obj for ident, obj in ((_identity(o), o) for o in objs)} for objs in (before, after)]
    return judge(objects[0], objects[1], objects[1], {}, server_side=method == "ssa"), done.json()


@pytest.mark.parametrize("method", ["csa", "ssa"])
def test_the_reference_and_the_plan_agree_on_every_kind_of_impact(method: str, tmp_path: Path) -> None:
    """The comparison reads the plan's JSON as the planner writes it, kind by kind: on a release
    and an upgrade where each kind the corpus seldom reaches is claimed once, the plan and the
    reference agree, fact by fact; on the same upgrade with one fact wrong, they do not."""
    judged, plan = _planned(*_every_kind(), method, tmp_path)
    assert {i["kind"] for i in plan["impact"]} == set(COMPARED) | {"restart"}
    assert _disagreements(judged, plan) == []
    for item in plan["impact"]:
        if item["kind"] == "traffic-port":
            item["facts"]["ports"] = item["facts"]["ports"][:1]
    assert [f.split(":")[0] for f in _disagreements(judged, plan)] == ["traffic-port Service web"]


def _object(kind: str, api: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": NAMESPACE}, "spec": spec}


_ROLLOUT = _object("Rollout", "argoproj.io/v1alpha1", "web", {"replicas": 2})
_ROLLOUT_HPA = _object("HorizontalPodAutoscaler", "autoscaling/v2", "web", {
    "scaleTargetRef": {"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "name": "web"}, "maxReplicas": 5})
_ANY_HOST = _object("HTTPRoute", "gateway.networking.k8s.io/v1", "web", {"rules": [{"matches": [{}]}]})
_ONE_HOST = _object("HTTPRoute", "gateway.networking.k8s.io/v1", "web", {"hostnames": ["a.example"],
                                                                          "rules": [{"matches": [{}]}]})
_NO_RULES = _object("HTTPRoute", "gateway.networking.k8s.io/v1", "web", {"hostnames": ["a.example"]})
_EXPANDS = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "provisioner": "example.com/disk",
            "metadata": {"name": "std", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}}}


def _claim(size: str) -> dict[str, Any]:
    return _object("PersistentVolumeClaim", "v1", "data", {"accessModes": ["ReadWriteOnce"],
                                                           "resources": {"requests": {"storage": size}}})


def _rules(*hosts: str) -> dict[str, Any]:
    return _object("Ingress", "networking.k8s.io/v1", "web", {"rules": [{"host": h} for h in hosts]})


@pytest.mark.parametrize(("before", "after"), [
    pytest.param([_rules("a.example", "b.example")], [_rules("a.example")], id="ingress-rules-without-paths"),
    pytest.param([_EXPANDS, _claim("1Gi")], [_EXPANDS, _claim("2Gi")], id="claim-naming-no-class"),
    # Helm 3 patches a custom resource by a JSON merge patch from the release to the upgrade,
    # which leaves the HPA's live count alone while the chart's is unchanged.
    pytest.param([_ROLLOUT, _ROLLOUT_HPA], [_ROLLOUT, _ROLLOUT_HPA], id="custom-resource-scaled-by-an-hpa"),
    # An HTTPRoute with no hostnames serves every host; given one, it serves no other.
    pytest.param([_ANY_HOST], [_ONE_HOST], id="httproute-gains-hostnames"),
    # The Gateway API defaults an HTTPRoute's rules to one match of PathPrefix /.
    pytest.param([_NO_RULES], [], id="httproute-without-rules-deleted"),
])
def test_the_reference_and_the_plan_agree_on_shapes_the_corpus_lacks(
        before: list[dict[str, Any]], after: list[dict[str, Any]], tmp_path: Path) -> None:
    assert _disagreements(*_planned(before, after, "csa", tmp_path)) == []


# --- the tier ---------------------------------------------------------------------------------

def _ref(ref: dict[str, Any]) -> tuple[str, str, str]:
    return ref["kind"], ref["namespace"], ref["name"]


def _ident(change: dict[str, Any]) -> Identity:
    ref = change["resource"]
    return ref["api_version"].rpartition("/")[0], ref["kind"], ref["namespace"], ref["name"]


def _what_matters(doc: dict[str, Any], comment: str) -> list[str]:
    """What matters says every warning that asks the reviewer to act (severity warning, the
    predicted failures among them), each in the line of its group, and every impact marked `!`
    whose object no failure or data loss is said of (issue 45 point 10); the comment's table
    counts each `!` below it once and the predicted failures apart."""
    found = []
    said = {"failure": 0, "data-loss": 0, "warning": 0}
    for item in doc["highlights"]:
        if item["what"] in said:
            said[item["what"]] += max(1, len(item["detail"]) - 1)  # its line, then each of a group named
    warnings = [w for w in doc["warnings"] if w["severity"] == "warning"]
    failures = sum(1 for w in warnings if w["predicted_failure"])
    if said["failure"] != failures or sum(said.values()) != len(warnings):
        found.append(f"what matters says {said} of {len(warnings)} warnings, {failures} of them predicted failures")
    alarmed = {_ref(r) for item in doc["highlights"] if item["what"] in ("failure", "data-loss")
               for r in item["resources"]}
    risks = {(item["detail"][0], _ref(r)) for item in doc["highlights"] if item["what"] == "risk"
             for r in item["resources"]}
    at_risk = [item for item in doc["impact"] if ImpactKind(item["kind"]).sign == "!"]
    for item in at_risk:
        if (item.get("facts") or {}).get("regenerated") is True or _ref(item["resource"]) in alarmed:
            continue
        if (item["kind"], _ref(item["resource"])) not in risks:
            found.append(f"what matters: impact {item['kind']} {item['resource']['name']} is not said")
    rows = [line.strip().strip("|").split("|") for line in comment.splitlines() if line.startswith("| ")][:2]
    table = {head.strip(): value.strip().strip("*") for head, value in zip(*rows)} if len(rows) == 2 else {}
    counted = {"Predicted failures": f"{failures:,}", "Warnings": f"{len(warnings) - failures + len(at_risk):,}"}
    if table and {k: table.get(k) for k in counted} != counted:
        found.append(f"markdown: the table counts {[table.get(k) for k in counted]}, the sections below {counted}")
    return found


def _check(chart: Chart, helm: Path, tmp_path: Path) -> list[str]:
    found: list[str] = []
    budget = Budget(TIMEOUT)
    is4 = helm.parent.name.startswith("4")
    release = chart.name
    common = ["-n", NAMESPACE, *chart.flags()]
    empty = _store(tmp_path / "empty.json", None)
    record = _record(helm, chart, tmp_path, budget)
    before = _stored(record, is4)
    server_side = record.get("apply_method") == "ssa"  # Helm 4 records it; an upgrade applies the same way

    def render(path: Path, *flags: str) -> Split:
        return split(_helm(helm, empty, budget, "template", release, str(path), *common, *flags), is4)
    rendered = {side: render(path, "--include-crds") for side, path in (("prev", chart.prev), ("next", chart.next))}
    # What `helm upgrade` renders (`.Release.IsUpgrade` true), twice for the older package: what
    # a real upgrade to the same chart and values changes in the release (`_upgrade_changes`).
    upgrade, upgrade_again = render(chart.next, "--is-upgrade"), render(chart.next, "--is-upgrade")
    same, again = render(chart.prev, "--is-upgrade"), render(chart.prev, "--is-upgrade")
    really = _upgrade_changes(dict(before.manifest), dict(same.manifest), dict(again.manifest))
    really_hooks = _upgrade_changes(_hooks(before), _hooks(same), _hooks(again))
    secrets = _secret_values([before, rendered["prev"], rendered["next"]], _published(chart.prev, chart.next))
    outputs: dict[str, str] = {}

    # A no-op upgrade shows what Helm's upgrade render really changes, and otherwise only what the
    # chart regenerates on every render.
    done = _plan(helm, _store(tmp_path / "noop.json", record), budget, "upgrade", release, str(chart.prev),
                 *common, "-o", "json")
    if done.returncode != 0:
        found.append(f"no-op upgrade: exit {done.returncode}: {done.stderr[-500:]}")
    else:
        outputs["no-op json"] = done.stdout
        noop = json.loads(done.stdout)
        noop_planned: set[Identity] = set()
        for change in noop["changes"]:
            what = f"{change['action']} {change['resource']['kind']} {change['resource']['name']}"
            ident = _ident(change)
            noop_planned.add(ident)
            action = "delete" if change["action"] == "retain" else change["action"]
            if ident in really:
                if action != really[ident]:
                    found.append(f"no-op upgrade: {what}: Helm's upgrade render says {really[ident]}")
            elif change["action"] != "update":
                found.append(f"no-op upgrade: {what}")
            elif not all(f.get("regenerated") for f in change["fields"]):
                paths = [f["path"] for f in change["fields"] if not f.get("regenerated")]
                found.append(f"no-op upgrade: {what}: not marked regenerated: {paths[:5]}")
        for ident in sorted(set(really) - noop_planned):
            found.append(f"no-op upgrade: {really[ident]} {ident[1]} {ident[3]} (Helm's upgrade render differs "
                         "from the release) is not planned")
        for task in noop["tasks"]:
            for definition in task["definitions"]:
                what = f"hook {definition['action']} {definition['resource']['kind']} {definition['resource']['name']}"
                if _ident(definition) in really_hooks:
                    if definition["action"] != really_hooks[_ident(definition)]:
                        found.append(f"no-op upgrade: {what}: Helm's upgrade render says "
                                     f"{really_hooks[_ident(definition)]}")
                elif definition["action"] in ("create", "delete"):
                    found.append(f"no-op upgrade: {what}")  # a hook named anew on each render
                elif not all(f.get("regenerated") for f in definition["fields"]):
                    paths = [f["path"] for f in definition["fields"] if not f.get("regenerated")]
                    found.append(f"no-op upgrade: {what}: not marked regenerated: {paths[:5]}")
        # What it claims of running things is what the reference judges of the same renders:
        # nothing, but where Helm's upgrade render really changes something, and the replicas an
        # HPA scales that every deploy sets back. Each claim of any kind is held to it.
        judged = judge(dict(before.manifest), dict(same.manifest), dict(again.manifest), same.sources, server_side)
        found += [f"no-op upgrade: {f}" for f in _disagreements(judged, noop)]
        # Nothing else really changes, so nothing else is put first.
        changing = {(i[1], i[2], i[3]) for i in [*really, *judged.resets, *(r.hpa for r in judged.resets.values())]}
        for item in noop["highlights"]:
            if item["resources"] and {_ref(r) for r in item["resources"]} <= changing:
                continue
            if item["what"] in ("warning", "risk"):
                continue  # a warning, or an impact held to the invariants above, said first (_what_matters)
            found.append(f"no-op upgrade: what matters: {item['what']} {item.get('after')!r:.120}")

    # The upgrade: one run prints text and saves the JSON plan; show renders every other format.
    store = _store(tmp_path / "releases.json", record)
    saved = tmp_path / "plan.json"
    done = _plan(helm, store, budget, "upgrade", release, str(chart.next), *common, "-o", "text", "--out", str(saved))
    if done.returncode != 0:
        return found + [f"upgrade: exit {done.returncode}: {done.stderr[-500:]}"]
    outputs["text"] = done.stdout
    doc = json.loads(saved.read_text())
    try:
        validate(doc)
    except AssertionError as e:
        found.append(f"upgrade JSON is not valid against the schema: {e}")
    for fmt in FORMATS:
        shown = _plan(helm, store, budget, "show", str(saved), "-o", fmt)
        if shown.returncode != 0 or (not shown.stdout.strip() and fmt != "github"):  # github: one line a finding
            found.append(f"show -o {fmt}: exit {shown.returncode}: {shown.stderr[-300:]}")
        outputs[f"show {fmt}"] = shown.stdout
    if len(outputs.get("show markdown", "")) > GITHUB_COMMENT:
        found.append(f"markdown: {len(outputs['show markdown'])} characters, more than a GitHub comment holds")
    annotations = outputs.get("show github", "").splitlines()
    for level in ("warning", "error"):
        count = sum(1 for line in annotations if line.startswith(f"::{level}"))
        if count > GITHUB_ANNOTATIONS:
            found.append(f"github: {count} {level} annotations; GitHub shows {GITHUB_ANNOTATIONS} a step")
    validate_shown = outputs.get("show json", "")
    if validate_shown:
        try:
            validate(json.loads(validate_shown))
        except (AssertionError, ValueError) as e:
            found.append(f"show -o json is not valid against the schema: {e}")

    # Counts and order: what an independent split of the two renders says.
    previous = dict(before.manifest)
    desired = upgrade.manifest
    want = [("create" if ident not in previous else "update", ident) for ident, obj in desired
            if ident not in previous or previous[ident] != obj]
    desired_ids = {ident for ident, _ in desired}
    want += [("delete", ident) for ident in previous if ident not in desired_ids]
    got = [("delete" if c["action"] == "retain" else c["action"], _ident(c)) for c in doc["changes"]]
    if sorted(got) != sorted(want):
        extra = sorted(set(got) - set(want))
        missing = sorted(set(want) - set(got))
        found.append(f"upgrade changes differ from Helm's split: planned but not in the split {extra[:6]}, "
                     f"in the split but not planned {missing[:6]}")
    elif got != want:
        first = next(n for n, (a, b) in enumerate(zip(got, want)) if a != b)
        found.append(f"upgrade order differs from Helm's kind order at {first}: planned {got[first]}, Helm {want[first]}")
    summary = doc["summary"]
    counts = {a: sum(1 for action, _ in want if action == a) for a in ("create", "update", "delete")}
    planned = {"create": summary["create"], "update": summary["update"], "delete": summary["delete"] + summary["retain"]}
    if planned != counts:
        found.append(f"upgrade summary {planned} != Helm's split {counts}")
    if summary["predicted_failures"]:
        found.append(f"upgrade: {summary['predicted_failures']} predicted failures: "
                     f"{[p.get('message', '')[:160] for p in doc.get('predicted_failures', [])][:3]}")

    # Every restart, config and traffic claim is what the reference judges of the same renders.
    judged = judge(dict(before.manifest), dict(upgrade.manifest), dict(upgrade_again.manifest), upgrade.sources,
                   server_side)
    found += [f"upgrade: {f}" for f in _disagreements(judged, doc)]
    if not any(w[1] == "DaemonSet" and work.changed for w, work in judged.workloads.items()):
        for name in ("text", "show markdown", "show summary"):
            if "per node" in outputs.get(name, ""):
                found.append(f"{name}: says pods restart per node, but no DaemonSet's pod template changes")

    # What matters names only what this upgrade applies or runs.
    acted = {_ref(c["resource"]) for c in doc["changes"]}
    acted |= {_ref(r) for t in doc["tasks"] if t["will_run"] for r in t["resources"]}
    for item in doc["highlights"]:
        if item["what"] in ("warning", "risk"):
            continue  # what asks the reviewer to act may be about an object left as it is
        idle = [r for r in map(_ref, item["resources"]) if r not in acted]
        if idle and len(idle) == len(item["resources"]):
            found.append(f"what matters: {item['what']} {item.get('after')!r:.100} names only what this upgrade "
                         f"neither applies nor runs: {idle[:3]}")

    found += _what_matters(doc, outputs.get("show markdown", ""))

    # An empty desired state (a failed render, a wrong values file) is warned about.
    previous_file = tmp_path / "previous.yaml"
    previous_file.write_text(record["manifest"] + "".join(f"\n---\n{h['manifest']}" for h in record.get("hooks") or []))
    (tmp_path / "nothing.yaml").write_text("")
    done = _plan(helm, empty, budget, "diff", str(previous_file), str(tmp_path / "nothing.yaml"),
                 "--release", release, "-n", NAMESPACE, "-o", "json")
    if done.returncode != 0:
        found.append(f"diff PREVIOUS EMPTY: exit {done.returncode}: {done.stderr[-300:]}")
    else:
        outputs["diff PREVIOUS EMPTY json"] = done.stdout
        warned = [w for w in json.loads(done.stdout)["warnings"]
                  if re.search(r"empty|no object", w["code"] + " " + w["message"], re.I)]
        if not warned:
            found.append("diff PREVIOUS EMPTY: deletes every object with no warning that the desired state is empty")

    # Every CRD of a crds/ folder whose document changed is reported as changed.
    old_crds, new_crds = rendered["prev"].crds, rendered["next"].crds
    reported = {c["name"]: c for c in doc["chart_crds"]}
    # A dependency's crds/: the release record keeps no dependency chart, so the plan cannot tell
    # whether they changed, and says so by name (crd-change-unknown).
    unknown = {n for w in doc["warnings"] if w["code"] == "crd-change-unknown" for n in w["facts"]["names"]}
    for name, obj in new_crds.items():
        if name not in reported:
            found.append(f"chart CRD {name} (in a crds/ folder of the newer chart) is not in chart_crds")
        elif name in old_crds and old_crds[name] != obj and reported[name].get("chart_changed") is not True \
                and name not in unknown:
            found.append(f"chart CRD {name} changed in the chart but is not reported as changed "
                         f"(lifecycle {reported[name].get('lifecycle')}, chart_changed {reported[name].get('chart_changed')})")

    # Installing the newer release predicts no failure, and creates what the split holds.
    done = _plan(helm, empty, budget, "upgrade", release, str(chart.next), *common,
                 "-o", "json")
    if done.returncode != 0:
        found.append(f"install: exit {done.returncode}: {done.stderr[-500:]}")
    else:
        outputs["install json"] = done.stdout
        install = json.loads(done.stdout)
        if install["summary"]["predicted_failures"]:
            found.append(f"install: {install['summary']['predicted_failures']} predicted failures: "
                         f"{[p.get('message', '')[:160] for p in install.get('predicted_failures', [])][:3]}")
        if install["summary"]["create"] != len(rendered["next"].manifest):
            found.append(f"install: {install['summary']['create']} creates, Helm's split has "
                         f"{len(rendered['next'].manifest)} objects")

    # No value of a rendered Secret in any output.
    for name, text in outputs.items():
        leaked = sorted(s for s in secrets if s in text)
        if leaked:
            found.append(f"{name}: {len(leaked)} Secret values appear (first {len(leaked[0])} chars long)")
    return found


# What the tier found that an issue asks to fix: the chart, on both helms or on one
# (`chart@3`, `chart@4`), and the start of the finding. A chart whose findings are all known is
# an expected failure, listed with -ra; one unknown finding fails it, and so does an entry that
# matches none of its findings on a helm it names (stale: the fix went in, remove it). So KNOWN
# only shrinks. Remove an entry with its fix: the chart then holds or fails again.
KNOWN: list[tuple[str, str, str]] = [
    # (chart, or chart@3 or chart@4 for one helm; the start of the finding as a regular expression;
    # why: the issue's point)
]


def _entries(chart: str, helm4: bool) -> list[tuple[str, str, str]]:
    """The KNOWN entries of this chart on this helm."""
    helm = "@4" if helm4 else "@3"
    return [entry for entry in KNOWN if entry[0] in (chart, chart + helm)]


def _known(chart: str, helm4: bool, finding: str) -> str | None:
    return next((why for _, pattern, why in _entries(chart, helm4) if re.match(pattern, finding)), None)


def _stale(chart: str, helm4: bool, found: list[str]) -> list[str]:
    """The KNOWN entries of this chart and helm that match none of its findings."""
    return [f"{name}: {pattern}" for name, pattern, _ in _entries(chart, helm4)
            if not any(re.match(pattern, f) for f in found)]


@pytest.mark.skipif(not CHARTS, reason=f"no chart corpus at {CORPUS}: set HELM_PLAN_CORPUS to a folder made as "
                                       "tests/corpus/README.md says")
@pytest.mark.parametrize("chart", CHARTS, ids=lambda c: f"{c.name}-{c.prev.stem}-{c.next.stem}")
def test_a_chart_of_the_corpus_holds_the_invariants(chart: Chart, helm: Path, tmp_path: Path) -> None:
    found = _check(chart, helm, tmp_path)
    helm4 = helm.parent.name.startswith("4")
    unknown = [f for f in found if _known(chart.name, helm4, f) is None]
    assert not unknown, f"{chart.name} {chart.prev.stem} -> {chart.next.stem}:\n  " + "\n  ".join(found)
    stale = _stale(chart.name, helm4, found)
    assert not stale, "KNOWN entries that match no finding of this chart on this helm (remove them, or " \
                      "name the helm they hold on):\n  " + "\n  ".join(stale)
    if found:
        pytest.xfail("known: " + "; ".join(sorted({str(_known(chart.name, helm4, f)) for f in found})))


def test_every_known_entry_names_a_chart_of_the_corpus() -> None:
    """An entry for a chart the corpus does not hold, or a helm that is not 3 or 4, is never
    checked: it would stay for ever."""
    if not CHARTS:
        pytest.skip(f"no chart corpus at {CORPUS}")
    names = {c.name for c in CHARTS}
    wrong = [name for name, _, _ in KNOWN if name.split("@")[0] not in names or name.count("@") > 1
             or "@" in name and name.split("@")[1] not in ("3", "4")]
    assert not wrong
