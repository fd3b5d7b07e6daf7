"""Unit tests of deployah_plan/redact.py: what a reader may see of a Secret.

Kubernetes stores a Secret's `stringData` base64-encoded into `data`, a stringData key
overriding the data key of the same name (core/v1 Secret API docs); kubectl's
last-applied-configuration annotation copies the whole object, Secret values included."""
from __future__ import annotations

import base64

import pytest

from deployah_plan.build import build_plan
from deployah_plan.model import (
    Action, FieldChange, FieldOp, Header, HelmAction, HookDefinition, ResourceChange, ResourceRef, TaskAction,
    TaskPhase, TaskPlan,
)
from deployah_plan.redact import (
    LAST_APPLIED, Masked, Redactor, credentials, fold_string_data, hide_userinfo, is_secret, scrub, sensitive_path,
    value_keys, without_userinfo,
)

SECRET = ResourceRef("v1", "Secret", "shop", "app")
CM = ResourceRef("v1", "ConfigMap", "shop", "app")
FAKE_SECRET = ResourceRef("example.com/v1", "Secret", "shop", "app")
LAST = "/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_is_secret_only_for_core_secrets() -> None:
    assert is_secret(SECRET) and not is_secret(CM) and not is_secret(FAKE_SECRET)


@pytest.mark.parametrize("ref, path, sensitive", [
    (SECRET, "", True), (SECRET, "/data", True), (SECRET, "/data/k", True), (SECRET, "/stringData", True),
    (SECRET, "/stringData/k", True), (SECRET, "/dataX", False), (SECRET, "/type", False),
    (SECRET, "/metadata/labels/a", False), (SECRET, "/metadata", True), (SECRET, "/metadata/annotations", True),
    (CM, "/data/k", False), (CM, "", False), (FAKE_SECRET, "/data/k", False), (CM, "/metadata", True),
    (CM, "/metadata/annotations", True), (CM, LAST, True), (CM, LAST + "/x", True),
    (CM, "/metadata/annotations/other", False),
])
def test_sensitive_paths(ref: ResourceRef, path: str, sensitive: bool) -> None:
    assert sensitive_path(ref, path) is sensitive


def test_string_data_is_folded_into_data_as_the_api_server_stores_it() -> None:
    secret = {"kind": "Secret", "data": {"a": b64("old"), "b": b64("kept")}, "stringData": {"a": "new", "n": 5, "z": None}}
    assert fold_string_data(secret) == {"kind": "Secret", "data": {"a": b64("new"), "b": b64("kept"), "n": b64("5"),
                                                                   "z": ""}}
    assert secret["data"] == {"a": b64("old"), "b": b64("kept")}  # the input is not changed
    assert fold_string_data({"kind": "Secret", "stringData": {"a": "x"}}) == {"kind": "Secret", "data": {"a": b64("x")}}
    plain = {"kind": "Secret", "data": {"a": "eA=="}}
    assert fold_string_data(plain) is plain
    assert fold_string_data({"stringData": "nope"}) == {"stringData": "nope"}


def test_a_masked_value_says_only_its_length_and_token() -> None:
    assert str(Masked(5, 2)) == "(sensitive #2, 5 bytes)"
    assert str(Masked(5)) == "(sensitive, 5 bytes)"


def test_data_is_measured_decoded_and_equal_values_share_a_token() -> None:
    r = Redactor()
    first = r.view(SECRET, FieldChange("/data/a", FieldOp.REPLACE, b64("hunter2"), b64("s3cr3t-pw")))
    assert (first.before, first.after) == (Masked(7, 1), Masked(9, 2))
    again = r.view(SECRET, FieldChange("/stringData/b", FieldOp.ADD, None, "hunter2"))
    assert (again.before, again.after) == (None, Masked(7, 1))  # the same bytes as data/a's before
    odd = r.view(SECRET, FieldChange("/data/c", FieldOp.ADD, None, "not base64!"))
    assert odd.after == Masked(11, 3)  # not base64: its text is the value
    number = r.view(SECRET, FieldChange("/stringData/n", FieldOp.ADD, None, 12345))
    assert number.after == Masked(5, 4)
    loose = r.view(SECRET, FieldChange("/data/d", FieldOp.ADD, None, "abcd!"))  # base64 only if strictly so
    assert loose.after == Masked(5, 5)
    assert r.view(SECRET, FieldChange("/data/e", FieldOp.ADD, None, 1234)).after == Masked(3, 6)  # decoded


def test_a_malformed_value_under_a_secret_key_is_masked_whole() -> None:
    r = Redactor()
    for path in ("/data/a", "/stringData/a", LAST):
        seen = r.view(SECRET, FieldChange(path, FieldOp.ADD, None, {"nested": "hunter2", "list": ["pw"]}))
        assert seen.after == {"nested": Masked(7, 1), "list": [Masked(2, 2)]}, path


def test_a_view_drops_line_diffs_and_inner_parts_but_keeps_the_shape() -> None:
    r = Redactor()
    change = FieldChange("/data", FieldOp.REPLACE, {"a": b64("x1"), "b": [b64("y"), None]}, {"a": b64("x2")},
                         lines=("-a", "+b"), parts=(FieldChange("/a", FieldOp.REPLACE, 1, 2),), parts_of="json")
    seen = r.view(SECRET, change)
    assert seen.before == {"a": Masked(2, 1), "b": [Masked(1, 2), None]} and seen.after == {"a": Masked(2, 3)}
    assert (seen.lines, seen.parts, seen.parts_of) == ((), (), "")
    assert r.mask(Masked(3, 9), "/data/a") == Masked(3, 9)  # read back from JSON: kept as it is


def test_a_whole_secret_masks_data_and_string_data_only() -> None:
    r = Redactor()
    obj = {"kind": "Secret", "type": "Opaque", "data": {"a": b64("pw")}, "stringData": {"b": "pw2"}}
    seen = r.view(SECRET, FieldChange("", FieldOp.ADD, None, obj))
    assert seen.after == {"kind": "Secret", "type": "Opaque", "data": {"a": Masked(2, 1)}, "stringData": {"b": Masked(3, 2)}}
    assert r.view(SECRET, FieldChange("", FieldOp.ADD, None, "scalar")).after == Masked(6, 3)
    whole = r.view(SECRET, FieldChange("/stringData", FieldOp.ADD, None, {"b": "pw2", "c": "other"}))
    assert whole.after == {"b": Masked(3, 2), "c": Masked(5, 4)}


def test_last_applied_configuration_is_masked_wherever_it_sits() -> None:
    r = Redactor()
    blob = '{"data":{"password":"aHVudGVy"}}'
    annotations = {LAST_APPLIED: blob, "team": "a"}
    seen = r.view(CM, FieldChange("/metadata/annotations", FieldOp.ADD, None, annotations))
    assert seen.after == {LAST_APPLIED: Masked(len(blob), 1), "team": "a"}
    meta = r.view(CM, FieldChange("/metadata", FieldOp.ADD, None, {"name": "x", "annotations": annotations}))
    assert meta.after == {"name": "x", "annotations": {LAST_APPLIED: Masked(len(blob), 1), "team": "a"}}
    leaf = r.view(CM, FieldChange(LAST, FieldOp.REPLACE, blob, "{}"))
    assert (leaf.before, leaf.after) == (Masked(len(blob), 1), Masked(2, 2))
    no_blob = r.view(CM, FieldChange("/metadata", FieldOp.ADD, None, {"name": "x", "annotations": {"team": "a"}}))
    assert no_blob.after == {"name": "x", "annotations": {"team": "a"}}
    assert r.view(CM, FieldChange("/metadata/annotations", FieldOp.ADD, None, {"team": "a"})).after == {"team": "a"}


def test_show_secrets_and_other_paths_are_left_as_they_are() -> None:
    change = FieldChange("/data/a", FieldOp.REPLACE, "eA==", "eQ==", lines=("x",))
    assert Redactor(show_secrets=True).view(SECRET, change) is change
    plain = FieldChange("/data/a", FieldOp.REPLACE, "x", "y")
    assert Redactor().view(CM, plain) is plain


def test_tokens_are_numbered_in_plan_order_changes_then_tasks() -> None:
    secret = {"apiVersion": "v1", "kind": "Secret"}
    hook_ref = ResourceRef("v1", "Secret", "shop", "hook")
    plan = build_plan(
        Header("r", "shop", revision=2, previous_revision=1), HelmAction.UPGRADE,
        [ResourceChange(SECRET, Action.UPDATE, secret, secret,
                        (FieldChange("/data/a", FieldOp.REPLACE, b64("one"), b64("two")),))],
        tasks=[TaskPlan("hook", TaskPhase.PRE_DEPLOY, TaskAction.UPDATE, ("pre-upgrade",), 0, (),
                        (HookDefinition(hook_ref, TaskAction.UPDATE, secret, secret,
                                        (FieldChange("/data/t", FieldOp.REPLACE, b64("three"), b64("one")),)),))])
    r = Redactor.for_plan(plan)
    assert r.view(hook_ref, FieldChange("/data/t", FieldOp.REPLACE, b64("three"), b64("one"))).before == Masked(5, 3)
    assert r.view(SECRET, FieldChange("/data/x", FieldOp.ADD, None, b64("two"))).after == Masked(3, 2)
    assert Redactor.for_plan(plan, show_secrets=True).view(SECRET, FieldChange("/data/x", FieldOp.ADD, None, "x")).after == "x"


@pytest.mark.parametrize("value, whole, keys", [
    ("a=1,b.c=2", False, "a,b.c"), ("a=1\\,2,b=3", False, "a,b"), ("list={x,y},z=1", False, "list,z"),
    ('j={"k": 1, "m": 2}', True, "j"), ("nokey", False, "(keys hidden)"), ("a b=1", False, "(keys hidden)"),
    ("a[0].b=1", False, "a[0].b"), ("x=1,y=2", True, "x"),
])
def test_value_keys(value: str, whole: bool, keys: str) -> None:
    assert value_keys(value, whole) == keys
    if not whole:
        assert value_keys(value) == keys


@pytest.mark.parametrize("url, shown", [
    ("https://user:pw@example.com/charts", "https://example.com/charts"),
    ("https://token@example.com:8443/x?y=1", "https://example.com:8443/x?y=1"),
    ("https://a@b:pw@example.com", "https://example.com"),
    ("https://example.com/a@b", "https://example.com/a@b"), ("oci://r.io/c", "oci://r.io/c"),
])
def test_without_userinfo(url: str, shown: str) -> None:
    assert without_userinfo(url) == shown


def test_a_created_objects_content_masks_secret_values_and_last_applied_only() -> None:
    r = Redactor()
    blob = '{"data":{"password":"aHVudGVy"}}'
    meta = {"name": "app", "annotations": {LAST_APPLIED: blob, "team": "a"}}
    obj = {"kind": "Secret", "metadata": meta, "type": "Opaque", "data": {"a": b64("pw")}, "stringData": {"b": "pw2"}}
    assert r.content(SECRET, obj) == {
        "kind": "Secret", "metadata": {"name": "app", "annotations": {LAST_APPLIED: Masked(len(blob), 1), "team": "a"}},
        "type": "Opaque", "data": {"a": Masked(2, 2)}, "stringData": {"b": Masked(3, 3)}}
    assert obj["data"] == {"a": b64("pw")} and meta["annotations"][LAST_APPLIED] == blob  # the input is not changed
    config = {"kind": "ConfigMap", "metadata": meta, "data": {"a": "visible"}}
    assert r.content(CM, config) == {**config, "metadata": {"name": "app", "annotations": {
        LAST_APPLIED: Masked(len(blob), 1), "team": "a"}}}
    assert r.content(FAKE_SECRET, {"data": {"a": "visible"}}) == {"data": {"a": "visible"}}
    assert r.content(SECRET, {"metadata": "odd", "data": {"a": b64("pw")}}) == {"metadata": "odd", "data": {"a": Masked(2, 2)}}
    assert r.content(SECRET, {"data": {"a": b64("pw")}, "stringData": {"b": "pw2"}}) == {
        "data": {"a": Masked(2, 2)}, "stringData": {"b": Masked(3, 3)}}
    assert r.content(SECRET, {"stringData": {"b": "pw2"}}) == {"stringData": {"b": Masked(3, 3)}}
    shown = Redactor(show_secrets=True).content(SECRET, obj)
    assert shown == obj and shown is not obj


def _secret(**data: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Secret", "data": {k: b64(v) for k, v in data.items()}}


def test_created_contents_are_numbered_in_plan_order_with_the_field_changes() -> None:
    created, updated = ResourceRef("v1", "Secret", "shop", "created"), ResourceRef("v1", "Secret", "shop", "updated")
    hook, hook_update = ResourceRef("v1", "Secret", "shop", "hook"), ResourceRef("v1", "Secret", "shop", "hook-u")
    blob = '{"kind":"ConfigMap"}'
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"annotations": {LAST_APPLIED: blob}}}
    plan = build_plan(
        Header("r", "shop", revision=2, previous_revision=1), HelmAction.UPGRADE,
        [ResourceChange(created, Action.CREATE, None, _secret(a="first"), helm_order=0),
         ResourceChange(CM, Action.CREATE, None, config, helm_order=1),
         ResourceChange(ResourceRef("v1", "ConfigMap", "shop", "plain"), Action.CREATE, None,
                        {"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "public"}}, helm_order=2),
         ResourceChange(updated, Action.UPDATE, _secret(b="second", kept="unchanged"), _secret(b="first", kept="unchanged"),
                        (FieldChange("/data/b", FieldOp.REPLACE, b64("second"), b64("first")),), helm_order=3)],
        tasks=[TaskPlan("hook", TaskPhase.PRE_DEPLOY, TaskAction.CREATE, ("pre-upgrade",), 0, (),
                        (HookDefinition(hook, TaskAction.CREATE, None, _secret(t="third")),)),
               TaskPlan("hook-u", TaskPhase.PRE_DEPLOY, TaskAction.UPDATE, ("pre-upgrade",), 1, (),
                        (HookDefinition(hook_update, TaskAction.UPDATE, _secret(u="old", kept="same"),
                                        _secret(u="fourth", kept="same"),
                                        (FieldChange("/data/u", FieldOp.REPLACE, b64("old"), b64("fourth")),)),))])
    r = Redactor.for_plan(plan)
    # first (created), the annotation, second (updated before), third (the created hook), old, fourth; the
    # unchanged keys of updated objects and a ConfigMap's data are never shown, so never numbered
    assert [r.view(SECRET, FieldChange("/stringData/x", FieldOp.ADD, None, text)).after.token
            for text in ("first", blob, "second", "third", "old", "fourth", "new")] == [1, 2, 3, 4, 5, 6, 7]
    assert r.content(created, _secret(a="first"))["data"] == {"a": Masked(5, 1)}


@pytest.mark.parametrize("text, shown", [
    ("pull https://user:pw@example.com/charts failed", "pull https://(hidden)@example.com/charts failed"),
    ("oci://token@r.io/c and git+ssh://git:x@h.io/r", "oci://(hidden)@r.io/c and git+ssh://(hidden)@h.io/r"),
    ('"https://a:b@c.io"', '"https://(hidden)@c.io"'),
    ("mail me@example.com at https://example.com/a@b", "mail me@example.com at https://example.com/a@b"),
    ("https://example.com:8443/x", "https://example.com:8443/x"),
])
def test_hide_userinfo_hides_every_urls_user_and_password(text: str, shown: str) -> None:
    assert hide_userinfo(text) == shown


@pytest.mark.parametrize("argv, found", [
    (["helm", "repo", "add", "r", "https://e.io", "--password", "hunter22"], ["hunter22"]),
    (["helm", "--password=s3cr3t", "--username", "bob"], ["s3cr3t"]),
    (["helm", "diff", "--kube-token", "tok-abc", "--password-stdin"], ["tok-abc"]),
    (["helm", "--kube-token=abcd"], ["abcd"]),  # four characters are enough
    (["helm", "--password=abc", "--kube-token", "xyz"], []),  # shorter: it would hide words, and protects nothing
    (["helm", "--password"], []),  # no value
    (["helm", "repo", "add", "r", "https://bob:p%40ss-word@e.io/x"], ["p%40ss-word", "p@ss-word"]),
    (["helm", "pull", "oci://tok@r.io/c", "https://e.io/a:b@c"], []),  # a user without a password; a path
    (["helm", "--password", "same-pw", "--repo=https://u:same-pw@e.io"], ["same-pw"]),
    (["helm", "--password", "pw-1", "--kube-token", "longer-token"], ["longer-token", "pw-1"]),
])
def test_credentials_on_a_command_line(argv: list[str], found: list[str]) -> None:
    assert credentials(argv) == found


def test_scrub_hides_urls_userinfo_and_every_credential_longest_first() -> None:
    argv = ["helm", "--password", "abcd", "--kube-token", "abcd1234", "https://u:p4ss@e.io"]
    text = "Error: login with abcd1234 (abcd) to https://u:p4ss@e.io failed; p4ss rejected"
    assert scrub(text, credentials(argv)) == (
        "Error: login with (hidden) ((hidden)) to https://(hidden)@e.io failed; (hidden) rejected")
    assert scrub("nothing https://e.io", []) == "nothing https://e.io"
