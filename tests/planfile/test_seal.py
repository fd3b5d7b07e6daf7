"""The seal and the digests of a saved plan (deployah_plan/planfile/seal.py): canonical JSON, the
keyed digester, and the seal over the document and its record.

Part of the saved plan's format: a plan sealed by one version of helm plan is verified by
another, so each digest is spelt out here as the module docstring defines it (HMAC-SHA256 keyed
by the salt, or by a key derived from HELM_PLAN_KEY and the salt, of canonical JSON: sorted keys,
no spaces), not merely compared with itself. Pure calls only."""
from __future__ import annotations

import hashlib
import hmac
import json
import re
from pathlib import Path
from typing import Any

import pytest

from deployah_plan.errors import UsageError
from deployah_plan.planfile import seal as sealing

SALT = "00ff"


def _digester() -> sealing.Digester:
    return sealing.Digester.of(SALT, keyed=False)


def _hmac(data: bytes, key: bytes = bytes.fromhex(SALT)) -> str:
    return "hmac-sha256:" + hmac.new(key, data, hashlib.sha256).hexdigest()


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


# -- canonical JSON and the digester ---------------------------------------------------------------

def test_canonical_json_sorts_keys_keeps_unicode_and_has_no_spaces() -> None:
    assert sealing.canonical({"b": 1, "a": [1, "é", None, True]}) == '{"a":[1,"é",null,true],"b":1}'.encode()
    assert sealing.canonical({"when": Path("x/y")}) == b'{"when":"x/y"}'  # what JSON cannot say, as text


def test_an_unkeyed_digest_is_hmac_sha256_keyed_by_the_salt() -> None:
    assert _digester().digest(b"abc") == _hmac(b"abc")
    assert sealing.Digester.of("01ff", keyed=False).digest(b"abc") != _digester().digest(b"abc")
    assert _digester().describe() == {"algorithm": "hmac-sha256", "salt": SALT, "keyed": False}
    assert sealing.ALGORITHM == "hmac-sha256" and sealing.KEY_ENV == "HELM_PLAN_KEY"


def test_a_keyed_digest_derives_its_key_from_helm_plan_key_and_the_salt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELM_PLAN_KEY", "ci-secret")
    keyed = sealing.Digester.of(SALT, keyed=True)
    key = hashlib.sha256(b"helm-plan\0ci-secret\0" + bytes.fromhex(SALT)).digest()
    assert keyed.digest(b"abc") == _hmac(b"abc", key) != _digester().digest(b"abc")
    assert keyed.describe() == {"algorithm": "hmac-sha256", "salt": SALT, "keyed": True}
    assert "ci-secret" not in repr(keyed) and repr(key) not in repr(keyed) and "key=" not in repr(keyed)
    monkeypatch.setenv("HELM_PLAN_KEY", "another")
    assert sealing.Digester.of(SALT, keyed=True).digest(b"abc") != keyed.digest(b"abc")


def test_a_keyed_plan_without_the_key_or_a_bad_salt_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HELM_PLAN_KEY", raising=False)
    with pytest.raises(UsageError) as err:
        sealing.Digester.of(SALT, keyed=True)
    assert str(err.value) == ("the plan was sealed with HELM_PLAN_KEY, which is not set; "
                              "set HELM_PLAN_KEY to the key the plan job used")
    monkeypatch.setenv("HELM_PLAN_KEY", "")
    with pytest.raises(UsageError, match="which is not set"):
        sealing.Digester.of(SALT, keyed=True)
    with pytest.raises(UsageError) as err:
        sealing.Digester.of("not hex", keyed=False)
    assert str(err.value) == "the plan's digest salt is not hex; plan again with --out"


def test_a_new_digester_has_a_random_16_byte_salt_and_is_keyed_when_the_key_is_set(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HELM_PLAN_KEY", raising=False)
    first, second = sealing.Digester.new(), sealing.Digester.new()
    assert re.fullmatch(r"[0-9a-f]{32}", first.salt) and first.salt != second.salt
    assert not first.keyed and first.key == bytes.fromhex(first.salt)
    monkeypatch.setenv("HELM_PLAN_KEY", "ci-secret")
    keyed = sealing.Digester.new()
    assert keyed.keyed
    assert keyed.key == hashlib.sha256(b"helm-plan\0ci-secret\0" + bytes.fromhex(keyed.salt)).digest()


def test_the_seal_covers_the_plan_and_the_record_but_not_itself() -> None:
    document = {"format_version": "1.5", "changes": [{"name": "web"}]}
    inputs = {"command": "upgrade", "argv": ["upgrade"]}
    out = sealing.sealed(document, inputs, _digester())
    assert out == {**document, "inputs": {**inputs, "seal": _hmac(_canonical({**document, "inputs": inputs}))}}
    assert sealing.seal(_digester(), out) == out["inputs"]["seal"]
    assert document == {"format_version": "1.5", "changes": [{"name": "web"}]} and "seal" not in inputs
    edited = {**out, "changes": [{"name": "db"}]}
    assert sealing.seal(_digester(), edited) != out["inputs"]["seal"]
    assert sealing.seal(_digester(), {"a": 1}) == _hmac(_canonical({"a": 1, "inputs": {}}))


def test_check_says_what_a_seal_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    """What `helm plan show` and `verify` read a saved plan through (issue 48 point 2)."""
    monkeypatch.delenv(sealing.KEY_ENV, raising=False)
    record = {"command": "upgrade", "digest": _digester().describe()}
    doc = sealing.sealed({"format_version": "1.6", "summary": {"create": 5}}, record, _digester())
    assert sealing.check(doc) is sealing.Seal.HOLDS
    assert sealing.check(json.loads(json.dumps(doc, indent=2))) is sealing.Seal.HOLDS  # spacing is no edit
    assert sealing.check({**doc, "summary": {"create": 0}}) is sealing.Seal.BROKEN
    assert sealing.check({**doc, "inputs": {**doc["inputs"], "seal": "x"}}) is sealing.Seal.BROKEN
    assert sealing.check({**doc, "inputs": {"seal": doc["inputs"]["seal"]}}) is sealing.Seal.BROKEN
    assert sealing.check({**doc, "inputs": "sealed"}) is sealing.Seal.BROKEN
    assert sealing.check({**doc, "inputs": {**doc["inputs"], "digest": {"salt": "zz", "keyed": False}}}) \
        is sealing.Seal.BROKEN
    assert sealing.check({k: v for k, v in doc.items() if k != "inputs"}) is sealing.Seal.NONE
    monkeypatch.setenv(sealing.KEY_ENV, "ci-secret")
    assert sealing.check(doc) is sealing.Seal.UNKEYED  # its `keyed: false` is the file's word only
    keyed = sealing.Digester.of(SALT, keyed=True)
    keyed_doc = sealing.sealed({"format_version": "1.6"}, {"digest": keyed.describe()}, keyed)
    assert sealing.check(keyed_doc) is sealing.Seal.HOLDS
    monkeypatch.setenv(sealing.KEY_ENV, "guess")
    assert sealing.check(keyed_doc) is sealing.Seal.BROKEN
    monkeypatch.delenv(sealing.KEY_ENV)
    assert sealing.check(keyed_doc) is sealing.Seal.NO_KEY
