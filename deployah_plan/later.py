"""Modules of a library that a plan rarely uses, run when first used rather than when the library
is imported.

msgspec's `__init__` imports its json, msgpack, toml, yaml and inspect modules, and through them
textwrap and its JSON Schema code: 2.5 ms of CPU of every plan, which uses none of them (its
records are msgspec Structs; `helm plan schema` and reading a saved plan use msgspec.inspect and
msgspec.convert). `msgspec_extras` puts each in `sys.modules` first as a `Later`: msgspec's own
`from . import json` binds it, and its code runs, as the module's own import would run it,
the first time one of its names is asked for. So whatever uses it sees the real module, later.
The entry point calls it (entry.py) before anything imports msgspec; where msgspec is already
imported it does nothing.
"""
from __future__ import annotations

import importlib
import sys
import threading
import types
from typing import Any

_LOADING = threading.Lock()
MSGSPEC_EXTRAS = ("msgspec.inspect", "msgspec.json", "msgspec.msgpack", "msgspec.toml", "msgspec.yaml")


class Later(types.ModuleType):
    """A module whose code runs the first time one of its names is asked for: then the real
    module is imported and its names copied here, so both answer the same."""

    def __getattr__(self, name: str) -> Any:
        if name == "__path__":  # a module, not a package: asked by the import system
            raise AttributeError(name)
        return getattr(self.load(), name)

    def load(self) -> types.ModuleType:
        with _LOADING:
            if sys.modules.get(self.__name__) is self:
                del sys.modules[self.__name__]
            real = importlib.import_module(self.__name__)
        self.__dict__.update(real.__dict__)
        return real


def msgspec_extras() -> None:
    """msgspec's modules that a plan does not use, run when first used (see above)."""
    if "msgspec" in sys.modules:
        return
    for name in MSGSPEC_EXTRAS:
        sys.modules.setdefault(name, Later(name))


__all__ = ["Later", "MSGSPEC_EXTRAS", "msgspec_extras"]
