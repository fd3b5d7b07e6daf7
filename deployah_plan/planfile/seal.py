"""The saved plan's digests and seal: how `--out` protects the document and its inputs record.

Every digest in the inputs record (inputs.py) is HMAC-SHA256 keyed by a random salt stored in
the record, so equal secrets in two plans do not give equal digests and no precomputed table
applies. A short secret can still be guessed by whoever holds the file and the salt; set
HELM_PLAN_KEY (a CI secret, in both the plan and the verify job) and the key is derived from it
too: then neither a guess nor a forged seal can be checked without it. Without HELM_PLAN_KEY
the seal detects edits and corruption, not a forger who recomputes it: verify then runs no
program the file alone names, and refuses an unkeyed plan when HELM_PLAN_KEY is set
(commands/verify.py).

The record's `digest` says how the digests were made (`Digester.describe`), and its `seal` is a
digest of the whole document (the plan and the record, `seal` left out), so editing either is
detected. `check` says what a document's seal shows (`Seal`); `helm plan verify` and `helm plan
show` both read a saved plan through it.
"""
from __future__ import annotations

import enum
import json
import os
from typing import Any

from msgspec import Struct

from deployah_plan.errors import UsageError

KEY_ENV = "HELM_PLAN_KEY"
ALGORITHM = "hmac-sha256"


def canonical(value: Any) -> bytes:
    """The bytes a digest is taken of: JSON with sorted keys and no spaces."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str).encode()


class Digester(Struct, frozen=True):
    """Keyed digests for one plan: the same salt (and HELM_PLAN_KEY) give the same digests."""

    salt: str  # hex
    keyed: bool
    key: bytes

    def __repr__(self) -> str:  # never the key
        return f"Digester(salt={self.salt!r}, keyed={self.keyed!r})"

    @classmethod
    def new(cls) -> "Digester":
        return cls.of(os.urandom(16).hex(), bool(os.environ.get(KEY_ENV)))  # what secrets.token_hex reads

    @classmethod
    def of(cls, salt: str, keyed: bool) -> "Digester":
        try:
            raw = bytes.fromhex(salt)
        except ValueError:
            raise UsageError("the plan's digest salt is not hex", "plan again with --out") from None
        if not keyed:
            return cls(salt, False, raw)
        import hashlib  # digests are imported where a record is made or checked

        secret = os.environ.get(KEY_ENV)
        if not secret:
            raise UsageError(f"the plan was sealed with {KEY_ENV}, which is not set",
                             f"set {KEY_ENV} to the key the plan job used")
        return cls(salt, True, hashlib.sha256(b"helm-plan\0" + secret.encode() + b"\0" + raw).digest())

    def digest(self, data: bytes) -> str:
        import hashlib
        import hmac

        return f"{ALGORITHM}:{hmac.new(self.key, data, hashlib.sha256).hexdigest()}"

    def describe(self) -> dict[str, Any]:
        return {"algorithm": ALGORITHM, "salt": self.salt, "keyed": self.keyed}


def seal(digester: Digester, document: dict[str, Any]) -> str:
    """The digest of a whole plan document, its seal left out."""
    record = dict(document.get("inputs") or {})
    record.pop("seal", None)
    return digester.digest(canonical({**document, "inputs": record}))


def sealed(document: dict[str, Any], record: dict[str, Any], digester: Digester) -> dict[str, Any]:
    """The document with its inputs record and seal."""
    out = {**document, "inputs": record}
    out["inputs"] = {**record, "seal": seal(digester, out)}
    return out


class Seal(enum.Enum):
    """What a saved plan's seal shows, here (with or without HELM_PLAN_KEY set)."""

    HOLDS = "holds"  # the seal matches: keyed when HELM_PLAN_KEY is set
    NONE = "none"  # no inputs record, so no seal: written by -o json, or before format 1.3
    BROKEN = "broken"  # the seal does not match the document (or the record cannot say how it was made)
    UNKEYED = "unkeyed"  # sealed without HELM_PLAN_KEY, which is set here: the file's word only
    NO_KEY = "no-key"  # sealed with HELM_PLAN_KEY, which is not set here: it cannot be checked


def check(document: Any) -> Seal:
    """What the seal of a parsed plan document shows."""
    record = document.get("inputs") if isinstance(document, dict) else None
    if record is None:
        return Seal.NONE
    if not isinstance(record, dict):
        return Seal.BROKEN
    try:
        salt, keyed = record["digest"]["salt"], record["digest"]["keyed"]
    except (KeyError, TypeError):
        return Seal.BROKEN
    if not isinstance(salt, str) or not isinstance(keyed, bool):
        return Seal.BROKEN
    if not keyed and os.environ.get(KEY_ENV):
        return Seal.UNKEYED
    if keyed and not os.environ.get(KEY_ENV):
        return Seal.NO_KEY
    try:
        digester = Digester.of(salt, keyed)
    except UsageError:
        return Seal.BROKEN
    return Seal.HOLDS if seal(digester, document) == record.get("seal") else Seal.BROKEN


__all__ = ["ALGORITHM", "Digester", "KEY_ENV", "Seal", "canonical", "check", "seal", "sealed"]
