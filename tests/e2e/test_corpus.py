"""The chart corpus: real public charts at two releases each, planned through the real command
line on Helm 3 and Helm 4 and checked against invariants that need no expected output.

The corpus is not in the repository (tests/corpus/README.md says how to make one and why). This
tier runs over the folder `HELM_PLAN_CORPUS` names, `.cache/corpus` by default, and is skipped
when there is none. Its layout: one folder per chart holding two or more packaged releases
`<version>.tgz` (the two newest are planned, older to newer) and, when the chart needs one to
render, `values.yaml`, given to both releases.

For each chart and each helm, what the plan must say is derived here from helm's own renders,
split by Helm's rules written out below from Helm's sources (kind_sorter.go, hooks, crds/), never
by the planner:
- a no-op upgrade (the same chart and values as the release) changes only values the chart
  regenerates on every render;
- the upgrade creates, updates and deletes what an independent split of the two renders says, in
  Helm's kind order, and predicts no failure; nor does installing the newer release;
- every CRD of any `crds/` folder (a subchart's included) whose document changed is reported as
  changed;
- no value of a rendered Secret reaches any output;
- every output format renders, and the JSON plan is valid against the published schema.

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
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import ROOT, clean_env
from e2e.test_cases import validate

pytestmark = [pytest.mark.e2e, pytest.mark.corpus]

CORPUS = Path(os.environ.get("HELM_PLAN_CORPUS") or ROOT / ".cache" / "corpus")
TIMEOUT = float(os.environ.get("HELM_PLAN_CORPUS_TIMEOUT") or 300)
NAMESPACE = "corpus"
FORMATS = ("text", "markdown", "github", "gitlab", "codequality", "summary", "json")

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
    manifest, hooks, crds = [], [], {}
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
    manifest.sort(key=lambda item: _kind_rank(item[0][1], helm4))  # stable: template order within a kind
    return Split(manifest, hooks, crds)


def _stored(record: dict[str, Any], helm4: bool) -> Split:
    """The release as stored: its manifest and its hooks, read by the same rules."""
    hooks = "".join(f"---\n# Source: {h.get('path', '')}\n{h['manifest']}\n" for h in record.get("hooks") or [])
    return split(record["manifest"] + "\n" + hooks, helm4)


def _secret_values(*splits: Split) -> set[str]:
    """Every value of a rendered Secret long enough to be told apart, as the chart wrote it and
    decoded, less what the chart also writes outside Secrets."""
    values: set[str] = set()
    public: list[str] = []
    for part in splits:
        for obj in [o for _, o in part.manifest] + part.hooks:
            if obj.get("kind") != "Secret":
                public.append(json.dumps(obj))
                continue
            for key in ("data", "stringData"):
                for value in (obj.get(key) or {}).values():
                    if not isinstance(value, str):
                        continue
                    values.add(value)
                    if key == "data":
                        try:
                            values.add(base64.b64decode(value, validate=True).decode())
                        except (binascii.Error, UnicodeDecodeError):
                            pass
    seen = "\n".join(public)
    out = set()
    for value in values:
        for line in value.splitlines() or [value]:
            line = line.strip()
            if len(line) >= SECRET_MIN and line not in seen:
                out.add(line)
    return out


def _store(path: Path, record: dict[str, Any] | None) -> Path:
    stored = [] if record is None else [{**record, "version": 1, "info": {**record["info"], "status": "deployed"}}]
    path.write_text(json.dumps(stored, ensure_ascii=False))  # Helm 3 reads it as YAML: no \ud83d escapes
    return path


# --- the tier ---------------------------------------------------------------------------------

def _ref(ref: dict[str, Any]) -> tuple[str, str, str]:
    return ref["kind"], ref["namespace"], ref["name"]


def _ident(change: dict[str, Any]) -> Identity:
    ref = change["resource"]
    return ref["api_version"].rpartition("/")[0], ref["kind"], ref["namespace"], ref["name"]


def _check(chart: Chart, helm: Path, helm4: Path, tmp_path: Path) -> list[str]:
    found: list[str] = []
    budget = Budget(TIMEOUT)
    is4 = helm.parent.name.startswith("4")
    release = chart.name
    common = ["-n", NAMESPACE, *chart.flags()]
    # The release as Helm 4 records it (`install --dry-run=client -o json`; Helm 3's asks the
    # cluster for its version). Helm 3 renders some charts otherwise (jenkins hashes `toYaml` of
    # its values, whose text changed in Helm 4): on Helm 3, an object that two of its renders
    # agree on but that differs from Helm 4's record changes with the helm, not by itself.
    empty = _store(tmp_path / "empty.json", None)
    record = json.loads(_helm(helm4, empty, budget, "install", release, str(chart.prev), *common,
                              "--dry-run=client", "-o", "json"))
    before = _stored(record, is4)
    rendered = {side: split(_helm(helm, empty, budget, "template", release, str(path), *common, "--include-crds"), is4)
                for side, path in (("prev", chart.prev), ("next", chart.next))}
    by_helm: set[Identity] = set()
    if not is4:
        again = dict(split(_helm(helm, empty, budget, "template", release, str(chart.prev), *common), is4).manifest)
        stored = dict(before.manifest)
        by_helm = {ident for ident, obj in rendered["prev"].manifest
                   if again.get(ident) == obj and ident in stored and stored[ident] != obj}
    secrets = _secret_values(before, rendered["prev"], rendered["next"])
    outputs: dict[str, str] = {}

    # A no-op upgrade shows only what the chart regenerates on every render.
    done = _plan(helm, _store(tmp_path / "noop.json", record), budget, "upgrade", release, str(chart.prev),
                 *common, "-o", "json")
    if done.returncode != 0:
        found.append(f"no-op upgrade: exit {done.returncode}: {done.stderr[-500:]}")
    else:
        outputs["no-op json"] = done.stdout
        noop = json.loads(done.stdout)
        for change in noop["changes"]:
            if _ident(change) in by_helm:
                continue
            what = f"{change['action']} {change['resource']['kind']} {change['resource']['name']}"
            if change["action"] != "update":
                found.append(f"no-op upgrade: {what}")
            elif not all(f.get("regenerated") for f in change["fields"]):
                paths = [f["path"] for f in change["fields"] if not f.get("regenerated")]
                found.append(f"no-op upgrade: {what}: not marked regenerated: {paths[:5]}")
        for task in noop["tasks"]:
            for definition in task["definitions"]:
                what = f"hook {definition['action']} {definition['resource']['kind']} {definition['resource']['name']}"
                if definition["action"] in ("create", "delete"):
                    found.append(f"no-op upgrade: {what}")  # a hook named anew on each render
                elif not all(f.get("regenerated") for f in definition["fields"]):
                    paths = [f["path"] for f in definition["fields"] if not f.get("regenerated")]
                    found.append(f"no-op upgrade: {what}: not marked regenerated: {paths[:5]}")
        # Nothing really changes, so nothing is claimed of running things or put first.
        for item in noop["impact"]:
            if any(_ref(item["resource"]) == (i[1], i[2], i[3]) for i in by_helm):
                continue  # the object changes with the helm (above), and so may what reads it
            if (item.get("facts") or {}).get("regenerated") is True:
                continue  # claimed with its caveat: only values the chart regenerates drive it
            found.append(f"no-op upgrade: impact {item['kind']} {item['resource']['kind']} "
                         f"{item['resource']['name']}: {item['message'][:160]!r}")
        for item in noop["highlights"]:
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
    desired = rendered["next"].manifest
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

    # What matters names only what this upgrade applies or runs.
    acted = {_ref(c["resource"]) for c in doc["changes"]}
    acted |= {_ref(r) for t in doc["tasks"] if t["will_run"] for r in t["resources"]}
    for item in doc["highlights"]:
        idle = [r for r in map(_ref, item["resources"]) if r not in acted]
        if idle and len(idle) == len(item["resources"]):
            found.append(f"what matters: {item['what']} {item.get('after')!r:.100} names only what this upgrade "
                         f"neither applies nor runs: {idle[:3]}")

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
        if install["summary"]["create"] != len(desired):
            found.append(f"install: {install['summary']['create']} creates, Helm's split has {len(desired)} objects")

    # No value of a rendered Secret in any output.
    for name, text in outputs.items():
        leaked = sorted(s for s in secrets if s in text)
        if leaked:
            found.append(f"{name}: {len(leaked)} Secret values appear (first {len(leaked[0])} chars long)")
    return found


# What the tier found that issue 34 asks to fix, by chart ("*": any) and the start of the
# finding. A chart whose findings are all known is an expected failure, listed with -ra; one
# unknown finding fails it. Remove an entry with its fix: the chart then holds or fails again.
KNOWN: list[tuple[str, str, str]] = [
    # (chart or "*", the start of the finding as a regular expression, why: the point)
]


def _known(chart: str, finding: str) -> str | None:
    return next((why for name, pattern, why in KNOWN if name in ("*", chart) and re.match(pattern, finding)), None)


@pytest.mark.skipif(not CHARTS, reason=f"no chart corpus at {CORPUS}: set HELM_PLAN_CORPUS to a folder made as "
                                       "tests/corpus/README.md says")
@pytest.mark.parametrize("chart", CHARTS, ids=lambda c: f"{c.name}-{c.prev.stem}-{c.next.stem}")
def test_a_chart_of_the_corpus_holds_the_invariants(chart: Chart, helm: Path, helm4: Path, tmp_path: Path) -> None:
    found = _check(chart, helm, helm4, tmp_path)
    unknown = [f for f in found if _known(chart.name, f) is None]
    assert not unknown, f"{chart.name} {chart.prev.stem} -> {chart.next.stem}:\n  " + "\n  ".join(found)
    if found:
        pytest.xfail("known: " + "; ".join(sorted({str(_known(chart.name, f)) for f in found})))
