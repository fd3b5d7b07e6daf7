"""The inputs record's pieces (deployah_plan/planfile/inputs.py): digests that depend on content
only, and a command line with its secrets taken out by the command's own option table.

The record is part of the saved plan's format: a plan saved by one version of helm plan is
verified by another, so each digest is spelt out here as the modules' docstrings define it
(HMAC-SHA256 keyed by the salt, of canonical JSON: sorted keys, no spaces; planfile/seal.py), not
merely compared with itself. Pure calls only: no helm, no cluster, no file outside the test's own
folder."""
from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import click
import pytest

from deployah_plan import __version__
from deployah_plan.errors import UsageError
from deployah_plan.manifests import Document, Rendered
from deployah_plan.model import Header, LiveGap
from deployah_plan.planfile import inputs
from deployah_plan.planfile.seal import Digester
from deployah_plan.sources.helm import StoredRelease
from deployah_plan.live_snapshot import LiveSnapshot

SALT = "00ff"
UPGRADE = "upgrade"


def _digester() -> Digester:
    return Digester.of(SALT, keyed=False)


def _hmac(data: bytes, key: bytes = bytes.fromhex(SALT)) -> str:
    return "hmac-sha256:" + hmac.new(key, data, hashlib.sha256).hexdigest()


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


# -- the chart, the files, the render --------------------------------------------------------------

def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _tree_sha256(files: list[tuple[str, bytes]]) -> bytes:
    """The documented digest of a chart folder: each file's relative path and content, each
    preceded by its length (8 bytes, big-endian), in path order."""
    hasher = hashlib.sha256()
    for name, content in files:
        hasher.update(len(name).to_bytes(8, "big") + name.encode() + len(content).to_bytes(8, "big") + content)
    return hasher.digest()


CHART = {"Chart.yaml": "name: shop\nversion: 1.0.0\n", "values.yaml": "replicas: 1\n",
         "templates/web.yaml": "kind: Deployment\n", "templates.txt": "x", "a/b/c.yaml": "deep"}


def test_a_chart_folder_digests_by_relative_paths_and_contents_in_path_order(tmp_path: Path) -> None:
    chart = _tree(tmp_path / "shop", CHART)
    (chart / "empty-folder").mkdir()  # a folder is not a file
    expected = _tree_sha256(sorted((name, text.encode()) for name, text in CHART.items()))
    # "templates.txt" sorts before "templates/web.yaml" as text ("." < "/"), not by path parts.
    assert inputs.chart_tree_sha256(str(chart)) == expected
    assert inputs.chart_digest(_digester(), str(chart)) == _hmac(expected)
    copy = _tree(tmp_path / "elsewhere" / "other-name", CHART)
    assert inputs.chart_tree_sha256(str(copy)) == expected  # the folder's own name and place do not count


def test_a_renamed_or_edited_chart_file_changes_the_digest(tmp_path: Path) -> None:
    chart = _tree(tmp_path / "shop", CHART)
    reference = inputs.chart_tree_sha256(str(chart))
    (chart / "templates" / "web.yaml").rename(chart / "templates" / "web2.yaml")
    assert inputs.chart_tree_sha256(str(chart)) != reference
    (chart / "templates" / "web2.yaml").rename(chart / "templates" / "web.yaml")
    (chart / "values.yaml").write_text("replicas: 2\n")
    assert inputs.chart_tree_sha256(str(chart)) != reference


def test_a_packaged_chart_digests_by_its_bytes_and_a_missing_one_is_one_clear_error(tmp_path: Path) -> None:
    archive = tmp_path / "shop-1.0.0.tgz"
    archive.write_bytes(b"\x1f\x8b archive bytes")
    assert inputs.chart_tree_sha256(str(archive)) == hashlib.sha256(b"\x1f\x8b archive bytes").digest()
    missing = tmp_path / "nothing-here"
    with pytest.raises(UsageError) as err:
        inputs.chart_tree_sha256(str(missing))
    assert str(err.value) == f"cannot read the chart {missing} to digest it: No such file or directory; check the chart path"


def _doc(obj: dict[str, Any], source: str = "", position: int = 0) -> Document:
    return Document(obj, source, position)


def test_the_render_digest_covers_resources_hooks_and_crds_with_their_sources() -> None:
    web = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "migrate"}}
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "w.x"}}
    rendered = Rendered(resources=(_doc(web, "t/web.yaml"),), hooks=(_doc(job, "t/job.yaml", 1),),
                        crds=(_doc(crd, "crds/w.yaml", 2),))
    expected = _hmac(_canonical({"resources": [["t/web.yaml", web]], "hooks": [["t/job.yaml", job]],
                                 "crds": [["crds/w.yaml", crd]]}))
    assert inputs.rendered_digest(_digester(), rendered) == expected
    assert inputs.rendered_digest(_digester(), None) == ""
    # Where a document sits in the stream is not its content; which part it is in is.
    moved = Rendered(resources=(_doc(web, "t/web.yaml", 5),), hooks=(_doc(job, "t/job.yaml", 7),),
                     crds=(_doc(crd, "crds/w.yaml", 9),))
    assert inputs.rendered_digest(_digester(), moved) == expected
    swapped = Rendered(resources=(_doc(job, "t/job.yaml"),), hooks=(_doc(web, "t/web.yaml"),), crds=rendered.crds)
    assert inputs.rendered_digest(_digester(), swapped) != expected


# -- the live objects the plan used ------------------------------------------------------------------

def _live(*objects: dict[str, Any], unreadable: tuple[LiveGap, ...] = ()) -> LiveSnapshot:
    return LiveSnapshot(True, objects, unreadable)


WEB = {"apiVersion": "apps/v1", "kind": "Deployment",
       "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "7", "generation": 3,
                    "managedFields": [{"manager": "helm", "time": "2024-01-01T00:00:00Z"}, "odd entry"]},
       "spec": {"replicas": 2}, "status": {"readyReplicas": 2}}
WEB_STABLE = {"apiVersion": "apps/v1", "kind": "Deployment",
              "metadata": {"name": "web", "namespace": "shop", "managedFields": [{"manager": "helm"}, "odd entry"]},
              "spec": {"replicas": 2}}
STREAM = Rendered(resources=(_doc({"apiVersion": "apps/v1beta2", "kind": "Deployment", "metadata": {"name": "web"}}),))


def test_the_live_digest_covers_the_objects_the_plan_used_without_what_changes_on_its_own() -> None:
    mine = {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "left", "namespace": "a", "annotations": {"meta.helm.sh/release-name": "shop"}}}
    other = {"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": "theirs", "namespace": "a", "annotations": {"meta.helm.sh/release-name": "blog"}}}
    other_group = {"apiVersion": "extensions/v1beta1", "kind": "Deployment", "metadata": {"name": "web"}}
    gap = LiveGap("v1", "Secret", "shop", "forbidden")
    got = inputs.live_record(_digester(), _live(WEB, other, mine, other_group, unreadable=(gap,)), "shop", (None, STREAM))
    # Named by the release (group, kind and name: apps/v1beta2 and apps/v1 are one object) or
    # annotated as this release's; in (group, kind, name, namespace) order; gaps included.
    assert got == {"read": True, "objects": 2, "digest": _hmac(_canonical({
        "objects": [{**mine}, WEB_STABLE], "unreadable": [["v1", "Secret", "shop", "forbidden"]]}))}


def test_the_live_digest_ignores_status_resource_version_generation_and_managed_field_times() -> None:
    churned = json.loads(json.dumps(WEB))
    churned["status"] = {"readyReplicas": 0}
    churned["metadata"].update(resourceVersion="8", generation=4)
    churned["metadata"]["managedFields"][0]["time"] = "2025-01-01T00:00:00Z"
    reference = inputs.live_record(_digester(), _live(WEB), "shop", (STREAM,))
    assert inputs.live_record(_digester(), _live(churned), "shop", (STREAM,)) == reference
    churned["spec"]["replicas"] = 3
    assert inputs.live_record(_digester(), _live(churned), "shop", (STREAM,))["digest"] != reference["digest"]
    churned["spec"]["replicas"] = 2
    churned["metadata"]["managedFields"][0]["manager"] = "kubectl"
    assert inputs.live_record(_digester(), _live(churned), "shop", (STREAM,))["digest"] != reference["digest"]
    assert WEB["metadata"]["resourceVersion"] == "7" and "status" in WEB  # the snapshot is read, not changed


def test_the_live_digest_reads_objects_without_metadata_or_managed_fields() -> None:
    bare = {"apiVersion": "example.com/v1", "kind": "Widget"}
    stream = Rendered(resources=(_doc({"apiVersion": "example.com/v1", "kind": "Widget"}),))
    assert inputs.live_record(_digester(), _live(bare), "shop", (stream,)) == {
        "read": True, "objects": 1,
        "digest": _hmac(_canonical({"objects": [{**bare, "metadata": {}}], "unreadable": []}))}
    fields = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "managedFields": "not a list"}}
    stream = Rendered(hooks=(_doc({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}),))
    assert inputs.live_record(_digester(), _live(fields), "", (stream,))["digest"] == _hmac(
        _canonical({"objects": [fields], "unreadable": []}))
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "w.x"}}
    stream = Rendered(crds=(_doc(crd),))
    assert inputs.live_record(_digester(), _live(crd), "", (stream,))["objects"] == 1


def test_only_the_objects_named_by_group_kind_and_name_are_used() -> None:
    stream = Rendered(resources=(_doc({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "web"}}),
                                 _doc({"apiVersion": "v1", "kind": "Secret", "metadata": {"generateName": "t-"}})))
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "web", "namespace": "shop"}}
    others = ({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "shop"}},
              {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "db", "namespace": "shop"}},
              {"apiVersion": "example.com/v1", "kind": "ConfigMap", "metadata": {"name": "web"}})
    expected = {"read": True, "objects": 1,
                "digest": _hmac(_canonical({"objects": [cm], "unreadable": []}))}
    assert inputs.live_record(_digester(), _live(cm, *others), "shop", (stream,)) == expected


def test_live_objects_are_ordered_by_namespace_too_and_may_repeat() -> None:
    """The live digest does not depend on the order the server lists objects in; an object read
    under two apiVersions (the release moving from one to the other) is one entry per read."""
    stream = Rendered(resources=(_doc({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}),))
    in_b = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "b"}}
    in_a = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "a"}}
    expected = _hmac(_canonical({"objects": [in_a, in_b], "unreadable": []}))
    assert inputs.live_record(_digester(), _live(in_b, in_a), "", (stream,))["digest"] == expected
    assert inputs.live_record(_digester(), _live(in_a, in_b), "", (stream,))["digest"] == expected
    unscoped = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}  # no namespace: first
    in_upper = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "A"}}
    assert inputs.live_record(_digester(), _live(in_upper, unscoped), "", (stream,))["digest"] == _hmac(
        _canonical({"objects": [unscoped, in_upper], "unreadable": []}))
    v1 = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "a"}}
    beta = {**v1, "apiVersion": "apps/v1beta2"}
    got = inputs.live_record(_digester(), _live(beta, v1), "", (STREAM,))
    assert got == {"read": True, "objects": 2, "digest": _hmac(_canonical({"objects": [beta, v1], "unreadable": []}))}


def test_a_live_object_without_a_name_is_not_a_rendered_object_named_none() -> None:
    stream = Rendered(resources=(_doc({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "None"}}),))
    nameless = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"namespace": "a"}}
    assert inputs.live_record(_digester(), _live(nameless), "shop", (stream,))["objects"] == 0


def test_an_unreachable_cluster_is_recorded_as_not_read_with_why() -> None:
    unreachable = LiveSnapshot(False, error="connection refused")
    assert inputs.live_record(_digester(), unreachable, "shop", (STREAM,)) == {"read": False, "error": "connection refused"}


# -- the command line ------------------------------------------------------------------------------

JSON_VALUE = 'x={"k":"v","p":"s3,c=d"}'  # one key, x; "c" is inside its value


def test_the_command_line_keeps_keys_and_digests_values() -> None:
    argv = ["upgrade", "shop", "./chart", "--set", "db.password=hunter2,replicas=3", "--set-string=tag=1.2",
            "-f", "values.yaml", "--set-literal", "a=b,c=d", "--set-json", JSON_VALUE, "--skip-crds",
            "-o", "json"]
    redacted = inputs.redact_argv(UPGRADE, argv, _digester())
    assert redacted == [
        "upgrade", "shop", "./chart", f"--set=db.password,replicas=({_hmac(b'db.password=hunter2,replicas=3')})",
        f"--set-string=tag=({_hmac(b'tag=1.2')})", "--values=values.yaml",
        f"--set-literal=a=({_hmac(b'a=b,c=d')})",  # a literal's commas are its value: no key c
        f"--set-json=x=({_hmac(JSON_VALUE.encode())})",  # the value digested whole, as given
        "--skip-crds", "--output=json"]
    assert inputs.hidden_values(redacted) and not inputs.hidden_values(argv)
    assert inputs.redact_argv(UPGRADE, argv, _digester()) == redacted  # the same salt, the same digests
    assert inputs.redact_argv(UPGRADE, [], _digester()) == []


def test_credentials_are_hidden_in_flags_and_in_urls() -> None:
    argv = ["upgrade", "shop", "https://ci:s3cret@charts.example.com/shop-1.0.0.tgz", "--username", "me",
            "--password", "s3cret", "--repo=oci://ci:s3cret@registry.example.com/charts",
            "-f", "https://ci:s3cret@config.example.com/values.yaml,local.yaml"]
    redacted = inputs.redact_argv(UPGRADE, argv, _digester())
    assert redacted == ["upgrade", "shop", "https://(hidden)@charts.example.com/shop-1.0.0.tgz", "--username=me",
                        "--password=(hidden)", "--repo=oci://(hidden)@registry.example.com/charts",
                        "--values=https://(hidden)@config.example.com/values.yaml", "--values=local.yaml"]
    assert inputs.HIDDEN == "(hidden)" and inputs.hidden_values(redacted)
    assert not inputs.hidden_values(inputs.redact_argv(UPGRADE, ["upgrade", "shop", "https://charts.example.com/c.tgz"],
                                                       _digester()))


def test_after_a_double_dash_nothing_is_a_flag() -> None:
    argv = ["upgrade", "shop", "./chart", "--", "--set=a=1", "--password=x", "https://u:p@h/x"]
    redacted = inputs.redact_argv(UPGRADE, argv, _digester())
    assert redacted == ["upgrade", "shop", "./chart", "--", "--set=a=1", "--password=x", "https://(hidden)@h/x"]


def test_only_a_recorded_digest_at_the_end_of_a_token_counts_as_hidden() -> None:
    digest = _hmac(b"a=1")
    assert inputs.hidden_values([f"--set=a=({digest})"])
    assert not inputs.hidden_values([f"--description=({digest}) and more"])
    assert not inputs.hidden_values(["--set=a=(md5:0123)"])
    assert not inputs.hidden_values([])


@pytest.mark.parametrize("name, credential", [
    ("password", True), ("kube_token", True), ("client_secret", True), ("PASSWORD", True), ("Token", True),
    ("username", False), ("ca_file", False), (None, False),
])
def test_credential_parameters_are_known_by_name(name: str | None, credential: bool) -> None:
    param = click.Option(["--x"], expose_value=True)
    param.name = name
    assert inputs.is_credential(param) is credential


# -- the whole record -------------------------------------------------------------------------------

def test_the_record_says_what_the_command_read(tmp_path: Path) -> None:
    values, ignore, script = tmp_path / "values.yaml", tmp_path / "ignore.yaml", tmp_path / "script.sh"
    values.write_text("replicas: 2\n")
    ignore.write_text("[]\n")
    script.write_text("echo hi\n")
    chart = inputs.ChartRead(ref="./chart", tree_sha256=b"\x01" * 32)
    previous = StoredRelease("shop", "prod", 4, "deployed", "shop", "1.0.0", "kind: ConfigMap\n", "kind: Job\n")
    desired = Rendered(resources=(_doc({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}, "c.yaml"),))
    read = inputs.Inputs(chart=chart, previous=previous, newest_revision=5, desired=desired, release="shop",
                        live=LiveSnapshot(False, error="no cluster"), live_streams=(desired,))
    header = Header("shop", "prod", kube_context="kind", helm_version="v3.19.0")
    params = {"values_files": (str(values), "-", "https://u:p@example.com/v.yaml", str(tmp_path / "gone.yaml")),
              "set_file": (f"a={script},b={values}",), "ignore_files": (str(ignore),), "set_": ("x=1",)}
    argv = ["upgrade", "shop", "./chart", "-f", str(values), "--set", "x=1"]
    got = inputs.make_record(read, header, UPGRADE, params, argv, _digester())
    assert got == {
        "command": "upgrade",
        "argv": ["upgrade", "shop", "./chart", f"--values={values}", f"--set=x=({_hmac(b'x=1')})"],
        "helm_plan_version": __version__,
        "helm_version": "v3.19.0",
        "kube_context": "kind",
        "namespace": "prod",
        "release": "shop",
        "chart": {"ref": "./chart", "digest": _hmac(b"\x01" * 32)},
        "files": [
            {"flag": "--values", "path": str(values), "digest": _hmac(b"replicas: 2\n")},
            {"flag": "--values", "path": "-", "digest": None},  # standard input: not a file
            {"flag": "--values", "path": "https://(hidden)@example.com/v.yaml", "digest": None},
            {"flag": "--values", "path": str(tmp_path / "gone.yaml"), "digest": None},  # unreadable: cannot be checked
            {"flag": "--set-file", "path": str(script), "digest": _hmac(b"echo hi\n")},
            {"flag": "--set-file", "path": str(values), "digest": _hmac(b"replicas: 2\n")},
            {"flag": "--ignore-file", "path": str(ignore), "digest": _hmac(b"[]\n")},
        ],
        "previous": {"revision": 4, "newest_revision": 5,
                     "digest": _hmac(_canonical(["kind: ConfigMap\n", "kind: Job\n"]))},
        "render": inputs.rendered_digest(_digester(), desired),
        "live": {"read": False, "error": "no cluster"},
        "digest": {"algorithm": "hmac-sha256", "salt": SALT, "keyed": False},
    }


def test_standard_input_and_urls_are_never_read_as_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """helm reads `-f -` from standard input and a URL through its getters, even when a local
    file of that name exists: such inputs have no digest, so verify says they cannot be checked."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_text("a: 1\n")
    url = "https://example.com/v.yaml"
    (tmp_path / "https:" / "example.com").mkdir(parents=True)
    (tmp_path / "https:" / "example.com" / "v.yaml").write_text("b: 2\n")
    assert Path(url).read_text() == "b: 2\n"  # such a file exists here
    local = tmp_path / "x=y.yaml"  # a --set-file path may hold "=": only the first one ends the key
    local.write_text("c: 3\n")
    params = {"values_files": ("-", url), "set_file": (f"key={local}",)}
    got = inputs.make_record(inputs.Inputs(), Header("r", "ns"), UPGRADE, params, ["upgrade"], _digester())
    assert got["files"] == [{"flag": "--values", "path": "-", "digest": None},
                            {"flag": "--values", "path": url, "digest": None},
                            {"flag": "--set-file", "path": str(local), "digest": _hmac(b"c: 3\n")}]


def test_the_record_of_a_live_read_uses_the_release_and_its_streams() -> None:
    mine = {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "old", "namespace": "a", "annotations": {"meta.helm.sh/release-name": "shop"}}}
    previous = Rendered(resources=(_doc({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}),))
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "a"}}
    read = inputs.Inputs(live=_live(mine, secret), release="shop", live_streams=(previous, None))
    got = inputs.make_record(read, Header("shop", "a"), UPGRADE, {}, ["upgrade"], _digester())
    assert got["live"] == {"read": True, "objects": 2,
                           "digest": _hmac(_canonical({"objects": [mine, secret], "unreadable": []}))}


def test_a_record_of_nothing_read() -> None:
    """`helm plan diff` reads no chart, no release and no cluster."""
    got = inputs.make_record(inputs.Inputs(), Header("r", "ns"), "diff", {}, [], _digester())
    assert got == {"command": "", "argv": [], "helm_plan_version": __version__, "helm_version": "", "kube_context": "",
                   "namespace": "ns", "release": "r", "chart": None, "files": [], "previous": None, "render": "",
                   "live": {"read": False}, "digest": _digester().describe()}
    assert inputs.Planned(plan=None).inputs == inputs.Inputs()  # type: ignore[arg-type]


def test_the_stable_render_digest_leaves_out_what_the_plan_marks_regenerated() -> None:
    """Issue 48 point 1: the values a chart makes anew on every render do not move the digest;
    every other value does, and so does the same value in another object."""
    def secret(password: str, user: str = "admin", name: str = "db") -> Rendered:
        obj = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name},
               "data": {"password": password, "user": user}, "list": [{"a": password}]}
        return Rendered(resources=(_doc(obj, "t/secret.yaml"),))

    marked = frozenset({("", "Secret", "db", "/data/password"), ("", "Secret", "db", "/list/0/a")})
    stable = inputs.rendered_digest(_digester(), secret("one"), marked)
    assert stable == _hmac(_canonical({"resources": [["t/secret.yaml", {
        "apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db"},
        "data": {"password": "(regenerated)", "user": "admin"}, "list": [{"a": "(regenerated)"}]}]],
        "hooks": [], "crds": []}))
    assert inputs.rendered_digest(_digester(), secret("two"), marked) == stable
    assert inputs.rendered_digest(_digester(), secret("one", user="root"), marked) != stable
    assert inputs.rendered_digest(_digester(), secret("one", name="other"), marked) != \
        inputs.rendered_digest(_digester(), secret("two", name="other"), marked)
    assert inputs.rendered_digest(_digester(), secret("one"), frozenset()) == inputs.rendered_digest(_digester(), secret("one"))
    # A pointer that names nothing in the object leaves it as it is.
    assert inputs.rendered_digest(_digester(), secret("one"), frozenset({("", "Secret", "db", "/list/7/a"),
                                                                       ("", "Secret", "db", "/data/x~1y")})) == \
        inputs.rendered_digest(_digester(), secret("one"))
