"""RFC 6901 JSON Pointers: the reference tokens of a pointer, and one token escaped. The plan
names every field by a pointer; the core makes them, the writers read them."""
from __future__ import annotations


def escape(token: str) -> str:
    """One reference token of a JSON Pointer (RFC 6901 section 3)."""
    return token.replace("~", "~0").replace("/", "~1")


def tokens(pointer: str) -> list[str]:
    """The reference tokens of a JSON Pointer, unescaped (RFC 6901 section 4)."""
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")] if pointer else []


__all__ = ["escape", "tokens"]
