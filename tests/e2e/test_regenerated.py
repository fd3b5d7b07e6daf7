"""Values a chart makes anew on every render (core/regenerated.py), planned with real helm.

Sprig's `randAlphaNum` and `genCA` return new values on each call, and `now` the time of the
render; a checksum of a template holding one changes with it. So an upgrade with the same
inputs still changes them: the plan marks those field changes `regenerated`, and says once in
the summary how many updates change nothing else. A value the inputs changed is never marked.
"""
from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from conftest import Store, run_plan, write_chart
from deployah_plan.planfile.read import load
from deployah_plan.render.report import Report, Weight
from deployah_plan.sources.chart import scan

SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-db
data:
  password: {{ randAlphaNum 16 | b64enc | quote }}
  user: {{ "admin" | b64enc | quote }}
"""
CERT = """\
{{- $ca := genCA "shop-ca" 365 }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-ca
data:
  ca.crt: {{ $ca.Cert | quote }}
  stamped: {{ now | date "2006-01-02T15:04:05Z07:00" | quote }}
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
      annotations:
        checksum/secret: {{ include (print $.Template.BasePath "/secret.yaml") . | sha256sum }}
    spec:
      containers:
      - name: web
        image: "nginx:{{ .Values.tag }}"
"""
HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  annotations: {"helm.sh/hook": pre-upgrade}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: busybox
        env: [{name: TOKEN, value: {{ randAlphaNum 12 | quote }}}]
"""
UNCHANGED = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-plain\ndata:\n  a: b\n"


def _chart(root: Path, tag: str) -> Path:
    return write_chart(root / tag, "shop", {"secret.yaml": SECRET, "cert.yaml": CERT, "deployment.yaml": DEPLOYMENT,
                                            "plain.yaml": UNCHANGED, "hook.yaml": HOOK}, values=f"tag: \"{tag}\"\n")


def _fields(doc: dict[str, Any], kind: str) -> dict[str, bool]:
    change = next(c for c in doc["changes"] if c["resource"]["kind"] == kind and c["resource"]["name"] != "shop-plain")
    return {f["path"]: bool(f.get("regenerated")) for f in change["fields"]}


def test_values_the_chart_regenerates_are_marked(helm: Path, store: Store, tmp_path: Path) -> None:
    store.add("shop", _chart(tmp_path, "1.25"), "shop")
    time.sleep(1.1)  # `now` moves on between the stored release and the plan
    result = run_plan("upgrade", "shop", str(_chart(tmp_path, "1.27")), "-n", "shop", "-o", "json",
                      "--detailed-exitcode", helm=helm, store=store)
    assert result.code == 2, result.err
    doc = result.json()
    assert _fields(doc, "Secret") == {"/data/password": True}  # `user` renders the same each time
    assert _fields(doc, "ConfigMap") == {"/data/ca.crt": True, "/data/stamped": True}
    assert _fields(doc, "Deployment") == {
        "/spec/template/metadata/annotations/checksum~1secret": True,
        "/spec/template/spec/containers/0/image": False,  # the values changed it
    }
    assert [c["resource"]["name"] for c in doc["changes"]] == ["shop-db", "shop-ca", "shop-web"]
    assert doc["summary"]["regenerated"] == 2 and doc["summary"]["update"] == 3
    # Not news: a regenerated Secret key is no "what matters" line, and an object changed only by
    # values the chart regenerates weighs as one with only common changes when the markdown is cut.
    assert [h["what"] for h in doc["highlights"]] == ["image"]
    weights = {item.change.resource.name: item.weight for item in Report.of(load(result.out, "plan.json")).objects}
    assert weights == {"shop-db": Weight.COMMON, "shop-ca": Weight.COMMON, "shop-web": Weight.NOTABLE}
    (hook,) = [d for t in doc["tasks"] for d in t["definitions"]]
    assert [(f["path"], f.get("regenerated")) for f in hook["fields"]] == [
        ("/spec/template/spec/containers/0/env/0/value", True)]
    text = run_plan("upgrade", "shop", str(_chart(tmp_path, "1.27")), "-n", "shop", "--no-color",
                    helm=helm, store=store).out
    plan_line = next(line for line in text.splitlines() if line.startswith("Plan:"))
    assert "2 updates only change values the chart generates anew on every render" in plan_line
    image = next(line for line in text.splitlines() if "image" in line)
    assert "regenerated" not in image


STAMPED = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-stamp
data:
  at: {{ now | date "2006-01-02T15:04:05Z07:00" | quote }}
  epoch: {{ now | unixEpoch | quote }}
  tag: {{ .Values.tag | quote }}
"""


def test_a_chart_that_only_stamps_the_time_is_rendered_once_and_still_marked(helm: Path, store: Store,
                                                                             tmp_path: Path) -> None:
    def chart(tag: str) -> Path:
        return write_chart(tmp_path / tag, "stamp", {"stamp.yaml": STAMPED}, values=f"tag: \"{tag}\"\n")

    assert not scan(str(chart("a"))).may_regenerate  # `now` alone: the window finds its values
    assert scan(str(_chart(tmp_path, "b"))).may_regenerate  # randAlphaNum, genCA: a second render
    archived = write_chart(tmp_path / "c", "stamp", {"stamp.yaml": STAMPED}, extra_files={"charts/sub-1.0.0.tgz": ""})
    assert scan(str(archived)).may_regenerate  # a subchart archive is not looked into
    store.add("stamp", chart("1"), "shop")
    time.sleep(1.1)  # `now` moves on between the stored release and the plan
    result = run_plan("upgrade", "stamp", str(chart("2")), "-n", "shop", "-o", "json", helm=helm, store=store)
    assert result.code == 0, result.err
    (change,) = result.json()["changes"]
    assert {f["path"]: bool(f.get("regenerated")) for f in change["fields"]} == {
        "/data/at": True, "/data/epoch": True, "/data/tag": False}


# Bitnami's and jenkins' shape: a password made by randAlphaNum (bitnami keeps the stored one by
# `lookup` when it can), a Deployment whose template carries that Secret's checksum and reads it.
READER = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
      annotations:
        checksum/secret: {{ include (print $.Template.BasePath "/secret.yaml") . | sha256sum }}
    spec:
      containers:
      - name: web
        image: "nginx:{{ .Values.tag }}"
        env: [{name: PASSWORD, valueFrom: {secretKeyRef: {name: {{ .Release.Name }}-db, key: password}}}]
"""


def test_a_no_op_upgrade_claims_no_rollout_the_regenerated_values_alone_drive(helm: Path, store: Store,
                                                                              tmp_path: Path) -> None:
    chart = write_chart(tmp_path, "shop", {"secret.yaml": SECRET, "deployment.yaml": READER}, values="tag: \"1.25\"\n")
    store.add("shop", chart, "shop")
    args = ("upgrade", "shop", str(chart), "-n", "shop")
    result = run_plan(*args, "-o", "json", "--fail-on", "restart", "--fail-on", "config-unreached",
                      "--detailed-exitcode", helm=helm, store=store)
    assert result.code == 2, result.err  # changes (the password is new), and no gate matched
    doc = result.json()
    (restart,) = doc["impact"]
    assert restart["kind"] == "restart" and restart["facts"]["regenerated"] is True
    assert restart["facts"]["regenerated_checksums"] == ["checksum/secret"] and restart["facts"]["checksums"] == []
    assert [r["name"] for r in restart["facts"]["regenerated_reads"]] == ["shop-db"]
    assert "only by values the chart regenerates on every render" in restart["message"]
    assert doc["highlights"] == []
    for output in ("text", "markdown"):
        shown = run_plan(*args, "-o", output, "--no-color", helm=helm, store=store).out
        assert "whose data changes: the new pods see it" not in shown, output
        assert "the rollout is how the new config reaches the pods" not in shown, output
        assert "pod template changes only by values the chart regenerates on every render" in shown, output
        assert "Impact: 1 impact only by values the chart regenerates on every render" in shown, output


# jenkins' test Pod (templates/tests/jenkins-test.yaml): a `helm test` hook named by randAlphaNum,
# and a resource named the same way (a Job a chart runs once per deploy).
RANDOM_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: "{{ .Release.Name }}-ui-test-{{ randAlphaNum 5 | lower }}"
  annotations: {"helm.sh/hook": test}
spec:
  restartPolicy: Never
  containers:
  - {name: test, image: "tester:{{ .Values.tag }}"}
"""
RANDOM_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: "{{ .Release.Name }}-seed-{{ randAlphaNum 5 | lower }}"
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: seed, image: busybox}
"""


def test_an_object_the_chart_names_anew_is_one_object_with_a_regenerated_name(helm: Path, store: Store,
                                                                               tmp_path: Path) -> None:
    def chart(tag: str) -> Path:
        return write_chart(tmp_path / tag, "shop", {"test-pod.yaml": RANDOM_POD, "job.yaml": RANDOM_JOB},
                           values=f"tag: \"{tag}\"\n")
    store.add("shop", chart("1"), "shop")
    saved_plan = tmp_path / "plan.json"
    args = ("upgrade", "shop", str(chart("2")), "-n", "shop")
    result = run_plan(*args, "-o", "json", "--out", str(saved_plan), helm=helm, store=store)
    doc = result.json()
    (job,) = doc["changes"]  # not a delete and a create
    assert (job["action"], job["resource"]["kind"]) == ("update", "Job")
    assert [(f["path"], f.get("regenerated")) for f in job["fields"]] == [("/metadata/name", True)]
    assert doc["summary"]["regenerated"] == 1 and doc["summary"]["delete"] == 0 and doc["summary"]["create"] == 0
    (task,) = doc["tasks"]
    assert task["action"] == "update"
    assert {(f["path"], f.get("regenerated")) for f in task["definitions"][0]["fields"]} == {
        ("/metadata/name", True), ("/spec/containers/0/image", None)}
    # One plan names one Pod, in every writer of it: the desired render's name, and the
    # previous one only as the value its name field had.
    (name,) = [f for f in task["definitions"][0]["fields"] if f["path"] == "/metadata/name"]
    assert task["name"] == f"Pod shop/{name['after']}" and name["before"].startswith("shop-ui-test-")
    for output in ("text", "markdown"):
        shown = run_plan("show", str(saved_plan), "-o", output, "--no-color").out
        assert "removed from the chart" not in shown, output
        assert set(re.findall(r"shop-ui-test-[a-z0-9]{5}", shown)) == {name["before"], name["after"]}, output
        assert shown.count(name["before"]) == 1, output
