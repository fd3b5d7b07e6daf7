"""`NamedTuple` for the modules read before a plan's first helm call (flags.py, pflag.py).

To mypy it is typing's own (`if TYPE_CHECKING` in those modules); at run time a class declared
`class Flag(NamedTuple)` with annotated fields and defaults is made the way typing makes it, a
`collections.namedtuple` with the class's methods and docstring, without importing typing:
typing, with the `re` it imports, was a third of what was imported before the first helm call
started (sources/early.py), about 6 ms of CPU.

Only what those modules use is supported: fields with annotations, defaults after the fields
without one, methods and properties. `_replace`, `_fields`, equality and hashing by value are
collections.namedtuple's.
"""
from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class _Declared(type):
    def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
        if not bases:  # NamedTuple itself
            return super().__new__(mcls, name, bases, namespace)
        fields = list(namespace.get("__annotations__", {}))
        defaults = [namespace[field] for field in fields if field in namespace]
        if any(field in namespace for field in fields[:len(fields) - len(defaults)]):
            raise TypeError(f"{name}: a field without a default follows one with a default")
        made = namedtuple(name, fields, defaults=defaults, module=namespace.get("__module__"))  # type: ignore[misc]
        for key, value in namespace.items():
            if key not in fields and key not in ("__annotations__", "__module__", "__dict__", "__weakref__"):
                setattr(made, key, value)
        made.__annotations__ = dict(namespace.get("__annotations__", {}))
        return made


class NamedTuple(metaclass=_Declared):
    """Subclass it as typing.NamedTuple (see the module's docstring)."""


__all__ = ["NamedTuple"]
