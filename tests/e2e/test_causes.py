"""Why each change (core/causes.py, commands/causes.py), planned with real helm on charts of our
own: the new chart is rendered with the release's previous values too, and each change is the
chart's, the values' or both; with the values unchanged every change is the chart's, said once;
with the same chart every change is the values'; a value the chart makes anew has no cause."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import Store, run_plan, write_chart

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {chart: "{{ .Chart.Version }}"}
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: "nginx:{{ .Values.tag }}"
"""
CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: config}
data:
  mode: "{{ .Values.mode }}-{{ .Chart.Version }}"
  greeting: {{ .Values.greeting | quote }}
"""
EXTRA = '{{ if .Values.extra }}{apiVersion: v1, kind: ConfigMap, metadata: {name: extra}, data: {a: b}}{{ end }}\n'
LEGACY = '{{ if .Values.legacy }}{apiVersion: v1, kind: ConfigMap, metadata: {name: legacy}, data: {a: b}}{{ end }}\n'
OLD = "{apiVersion: v1, kind: ConfigMap, metadata: {name: old}, data: {a: b}}\n"
SERVICE = "{apiVersion: v1, kind: Service, metadata: {name: web}, spec: {selector: {app: web}, ports: [{port: 80}]}}\n"
SECRET = """\
apiVersion: v1
kind: Secret
metadata: {name: token}
data:
  token: {{ randAlphaNum 16 | b64enc | quote }}
  user: {{ .Values.greeting | b64enc | quote }}
"""
VALUES = 'replicas: {replicas}\ntag: "1.25"\nmode: a\ngreeting: hi\nextra: false\nlegacy: true\nauth: {{password: pw-{replicas}}}\n'


def _chart(root: Path, version: str, *, replicas: int, new: bool, secret: bool = False) -> Path:
    templates = {"deployment.yaml": DEPLOYMENT, "config.yaml": CONFIG, "extra.yaml": EXTRA, "legacy.yaml": LEGACY}
    templates.update({"service.yaml": SERVICE} if new else {"old.yaml": OLD})
    if secret:
        templates["secret.yaml"] = SECRET
    return write_chart(root / version, "app", templates, values=VALUES.format(replicas=replicas), version=version)


def _causes(doc: dict[str, Any]) -> dict[tuple[str, str, str], Any]:
    """(action, kind, name) -> the change's cause, or for an update its fields' {path: cause}."""
    out: dict[tuple[str, str, str], Any] = {}
    for c in doc["changes"]:
        key = (c["action"], c["resource"]["kind"], c["resource"]["name"])
        out[key] = ({f["path"]: f.get("cause") for f in c["fields"]} if c["action"] == "update" else c.get("cause"))
    return out


def _plan(store: Store, chart: Path, helm: Path, *flags: str, output: str = "json") -> Any:
    result = run_plan("upgrade", "app", str(chart), "-n", "shop", "-o", output, *flags, helm=helm, store=store)
    assert result.code == 0, result.err
    return result.json() if output == "json" else result.out


def test_each_change_is_the_charts_the_values_or_both(helm: Path, store: Store, tmp_path: Path) -> None:
    store.add("app", _chart(tmp_path, "1.0.0", replicas=1, new=False), "shop", flags=("--set", "greeting=hello"))
    v2 = _chart(tmp_path, "2.0.0", replicas=2, new=True)
    doc = _plan(store, v2, helm, "--set", "tag=1.27", "--set", "mode=b", "--set", "extra=true", "--set", "legacy=false",
                "--set", "greeting=hello")
    assert doc["attribution"] == "rendered"
    assert _causes(doc) == {
        ("update", "ConfigMap", "config"): {"/data/mode": "both"},  # a-1.0.0 -> a-2.0.0 -> b-2.0.0
        ("create", "ConfigMap", "extra"): "values",  # the values turn it on
        ("delete", "ConfigMap", "legacy"): "values",  # the values turn it off
        ("delete", "ConfigMap", "old"): "chart",  # the new chart has no such template
        ("create", "Service", "web"): "chart",  # the new chart adds it with the old values
        ("update", "Deployment", "web"): {
            "/metadata/labels/chart": "chart",
            "/spec/replicas": "chart",  # a chart default the user does not set: 1 -> 2
            "/spec/template/spec/containers/0/image": "values",
        },
    }
    web = next(c for c in doc["changes"] if c["resource"]["kind"] == "Deployment")
    assert web["cause"] == "both"  # its fields' causes differ
    # The chart's defaults that changed under keys the user does not set (greeting, tag, mode,
    # extra and legacy are set), a secret-looking one masked.
    web_ref = {"api_version": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "web"}
    assert doc["chart_defaults"] == [
        {"key": "auth.password", "op": "replace", "before": {"sensitive": True, "length": 4, "token": 1},
         "after": {"sensitive": True, "length": 4, "token": 2}, "moved": []},
        {"key": "replicas", "op": "replace", "before": 1, "after": 2, "moved": [web_ref]},
    ]
    text = _plan(store, v2, helm, "--set", "tag=1.27", "--set", "mode=b", "--set", "extra=true", "--set",
                 "legacy=false", "--set", "greeting=hello", "--no-color", output="text")
    # What matters: each object under each cause that moved one of its fields, in Helm's order.
    assert "  i from the chart upgrade: Service shop/web, Deployment shop/web, ConfigMap shop/old\n" in text, text
    assert "  i from your values: ConfigMap shop/extra, Deployment shop/web, ConfigMap shop/legacy\n" in text
    assert "  i from the chart upgrade and your values: ConfigMap shop/config\n" in text
    assert "  i chart default replicas 1 -> 2 (you do not set it): Deployment shop/web\n" in text
    assert "pw-" not in text
    image = next(line for line in text.splitlines() if "nginx:1.27" in line and "in Deployment" not in line)
    assert image.endswith("(from your values)")  # the Deployment's own cause is both: each field says its own
    markdown = _plan(store, v2, helm, "--set", "tag=1.27", "--set", "mode=b", "--set", "extra=true", "--set",
                     "legacy=false", "--set", "greeting=hello", output="markdown")
    assert "- `i` from your values: ConfigMap shop/extra, Deployment shop/web, ConfigMap shop/legacy" in markdown, markdown


def test_values_unchanged_everything_is_the_charts_said_once(helm: Path, store: Store, tmp_path: Path) -> None:
    store.add("app", _chart(tmp_path, "1.0.0", replicas=1, new=False), "shop", flags=("--set", "tag=1.27"))
    v2 = _chart(tmp_path, "2.0.0", replicas=2, new=True)
    for flags in ((), ("--reuse-values",), ("--reset-then-reuse-values",)):
        doc = _plan(store, v2, helm, *flags)
        assert doc["attribution"] == "chart", flags
        causes = _causes(doc)
        # --reuse-values keeps the old chart's defaults too (replicas stays 1): Helm's rule.
        replicas = {} if flags == ("--reuse-values",) else {"/spec/replicas": "chart"}
        assert causes[("update", "Deployment", "web")] == {"/metadata/labels/chart": "chart", **replicas}
        assert causes[("create", "Service", "web")] == "chart" and causes[("delete", "ConfigMap", "old")] == "chart"
    text = _plan(store, v2, helm, "--reuse-values", "--no-color", output="text")
    assert text.count("from the chart upgrade") == 1, text  # said once, on no object
    assert "every change is from the chart upgrade" in text


def test_the_same_values_file_again_is_no_values_change(helm: Path, store: Store, tmp_path: Path) -> None:
    given = tmp_path / "values.yaml"
    given.write_text("tag: '1.27'\nnested: {a: 1}\n")
    store.add("app", _chart(tmp_path, "1.0.0", replicas=1, new=False), "shop", flags=("-f", str(given)))
    v2 = _chart(tmp_path, "2.0.0", replicas=2, new=True)
    doc = _plan(store, v2, helm, "-f", str(given))
    assert doc["attribution"] == "chart"  # no render with the previous values: it would be this one
    assert _causes(doc)[("update", "Deployment", "web")] == {"/metadata/labels/chart": "chart", "/spec/replicas": "chart"}
    changed = tmp_path / "changed.yaml"
    changed.write_text("tag: '1.28'\nnested: {a: 1}\n")
    doc = _plan(store, v2, helm, "-f", str(changed))
    assert doc["attribution"] == "rendered"
    assert _causes(doc)[("update", "Deployment", "web")] == {
        "/metadata/labels/chart": "chart", "/spec/replicas": "chart", "/spec/template/spec/containers/0/image": "values"}


def test_the_same_chart_every_change_is_the_values(helm: Path, store: Store, tmp_path: Path) -> None:
    v1 = _chart(tmp_path, "1.0.0", replicas=1, new=False)
    store.add("app", v1, "shop")
    doc = _plan(store, v1, helm, "--set", "tag=1.27", "--set", "extra=true", "--set", "legacy=false")
    assert _causes(doc) == {
        ("create", "ConfigMap", "extra"): "values", ("delete", "ConfigMap", "legacy"): "values",
        ("update", "Deployment", "web"): {"/spec/template/spec/containers/0/image": "values"},
    }


def test_a_value_the_chart_makes_anew_takes_no_cause(helm: Path, store: Store, tmp_path: Path) -> None:
    store.add("app", _chart(tmp_path, "1.0.0", replicas=1, new=False, secret=True), "shop")
    v2 = _chart(tmp_path, "2.0.0", replicas=1, new=False, secret=True)
    doc = _plan(store, v2, helm, "--set", "greeting=hello")
    secret = next(c for c in doc["changes"] if c["resource"]["kind"] == "Secret")
    fields = {f["path"]: (f.get("regenerated", False), f.get("cause")) for f in secret["fields"]}
    assert fields == {"/data/token": (True, None), "/data/user": (False, "values")}
    assert _causes(doc)[("update", "ConfigMap", "config")] == {"/data/mode": "chart", "/data/greeting": "values"}


def test_an_install_has_no_cause(helm: Path, store: Store, tmp_path: Path) -> None:
    doc = _plan(store, _chart(tmp_path, "1.0.0", replicas=1, new=False), helm, "--set", "tag=1.27")
    assert doc["attribution"] == "none" and all("cause" not in c for c in doc["changes"])


def test_the_same_chart_word_for_word_is_not_rendered_again(helm: Path, store: Store, tmp_path: Path) -> None:
    # Issue 49 point 4: the chart's version and files unchanged, every cause is the values' and
    # no render with the previous values is made; the same version with a template edited is rendered.
    v1 = _chart(tmp_path, "1.0.0", replicas=1, new=False, secret=True)
    store.add("app", v1, "shop")
    doc = _plan(store, v1, helm, "--set", "tag=1.27", "--set", "extra=true")
    assert doc["attribution"] == "values"
    assert _causes(doc)[("update", "Deployment", "web")] == {"/spec/template/spec/containers/0/image": "values"}
    assert _causes(doc)[("create", "ConfigMap", "extra")] == "values"
    text = _plan(store, v1, helm, "--set", "tag=1.27", "--no-color", output="text")
    assert text.count("from your values") == 1 and "every change is from your values" in text, text
    (v1 / "templates" / "config.yaml").write_text(CONFIG.replace("greeting:", "hello: there\n  greeting:"))
    doc = _plan(store, v1, helm, "--set", "tag=1.27")
    assert doc["attribution"] == "rendered"
    assert _causes(doc)[("update", "ConfigMap", "config")] == {"/data/hello": "chart"}


HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  labels: {chart: "{{ .Chart.Version }}"}
  annotations: {"helm.sh/hook": pre-upgrade}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: "tool:{{ .Values.tag }}"
"""
NEW_HOOK = HOOK.replace("name: migrate\n  labels", "name: seed\n  labels")


def test_hooks_take_their_cause_as_objects_do(helm: Path, store: Store, tmp_path: Path) -> None:
    # Issue 49 point 1: a hook's fields moved by the chart or the values, a hook the new chart adds.
    store.add("app", write_chart(tmp_path / "1", "app", {"hook.yaml": HOOK}, values='tag: "1"\n', version="1.0.0"),
              "shop")
    v2 = write_chart(tmp_path / "2", "app", {"hook.yaml": HOOK, "seed.yaml": NEW_HOOK}, values='tag: "1"\n', version="2.0.0")
    doc = _plan(store, v2, helm, "--set", "tag=2")
    hooks = {d["resource"]["name"]: (d.get("cause"), {f["path"]: f.get("cause") for f in d["fields"]})
             for t in doc["tasks"] for d in t["definitions"]}
    assert hooks == {
        "migrate": ("both", {"/metadata/labels/chart": "chart", "/spec/template/spec/containers/0/image": "values"}),
        "seed": ("both", {}),  # the new chart adds it with the old values, and the values change its image
    }
    text = _plan(store, v2, helm, "--set", "tag=2", "--no-color", output="text")
    line = next(line for line in text.splitlines() if "Job shop/migrate" in line and "will run" in line)
    assert line.endswith("[from the chart upgrade and your values]"), text
    image = next(line for line in text.splitlines() if "tool:2" in line and "containers" in line)
    assert image.endswith("(from your values)")  # its own, where it differs from the hook's
    doc = _plan(store, v2, helm)  # the values reused: every hook change is the chart's
    assert {d["resource"]["name"]: d.get("cause") for t in doc["tasks"] for d in t["definitions"]} == {
        "migrate": "chart", "seed": "chart"}
