"""Each warning code in words: one function per code, from its facts (deployah_plan/facts.py).

Every writer says a warning with `message`, and the JSON plan's `message` is the same text, so a
code is worded here and nowhere else. A function takes the code's facts and the warning (its
resource, whether it fails) and returns one line; names and values from a manifest are left as
they are, for each writer to escape as its medium needs.
"""
from __future__ import annotations

from typing import Any, Callable, TypeVar

from deployah_plan import facts as found
from deployah_plan.codes import Code
from deployah_plan.model import Warning
from deployah_plan.render.words import readable_path

_F = TypeVar("_F", bound=Callable[..., str])
_SAYS: dict[Code, Callable[[Any, Warning], str]] = {}


def says(code: Code) -> Callable[[_F], _F]:
    """Registers the function that words `code`."""
    def register(function: _F) -> _F:
        _SAYS[code] = function
        return function
    return register


def message(warning: Warning) -> str:
    """The warning in one line: worded from its facts, or as written when it holds none."""
    if warning.facts is None:
        return warning.said
    return _SAYS[warning.code](warning.facts, warning)


def worded() -> frozenset[Code]:
    """The codes this module words (a test holds it to the table)."""
    return frozenset(_SAYS)


def _s(items: Any) -> str:
    return "s" if len(items) > 1 else ""


def _fields(fields: tuple[found.Field, ...]) -> str:
    return ", ".join(dict.fromkeys(readable_path(f.path, f.keys.items()) for f in fields))


# -- what Kubernetes does with the objects ------------------------------------------------------

@says(Code.IMMUTABLE)
def immutable(facts: found.Immutable, warning: Warning) -> str:
    return (f"{warning.resource}: this upgrade will fail: it changes immutable field{_s(facts.fields)} "
            f"{_fields(facts.fields)}; the object must be deleted and created again (or given a new name)")


_LOSES = {
    found.Loss.VOLUME: "its volume, and the data on it, goes too when the reclaim policy is Delete",
    found.Loss.NAMESPACE_OBJECTS: "every object in the namespace is deleted with it, whether Helm manages it or not",
    found.Loss.CUSTOM_RESOURCES: "every custom resource of that kind, in every namespace, is deleted with it",
}


@says(Code.DATA_LOSS)
def data_loss(facts: found.DataLoss, warning: Warning) -> str:
    return f"{warning.resource} is deleted: {_LOSES[facts.loses]}"


@says(Code.SSA_CONFLICT)
def ssa_conflict(facts: found.SsaConflict, warning: Warning) -> str:
    paths = ", ".join(readable_path(f.path, f.keys.items()) for f in facts.fields)
    return (f"{warning.resource}: server-side apply conflicts on {paths} (owned by another field manager): the "
            "upgrade fails unless conflicts are forced")


# -- what the API server refuses (core/validate.py, commands/diff.py, commands/uninstall.py) ------
# (section: validate)


# -- what Helm does with the release (core/planner.py, core/ownership.py) ----------------------
# (section: planner)


# -- what a flag of the command changes (commands/upgrade_flags.py, commands/upgrade.py) --------
# (section: commands)


# -- what the deploy does to running things (core/impact.py) ------------------------------------
# (section: impact)

@says(Code.PVC_EXPAND_REFUSED)
def pvc_expand_refused(facts: found.PvcExpandRefused, warning: Warning) -> str:
    # The same line as the data-pvc-expand impact's for a StorageClass that refuses.
    return (f"{warning.resource}: storage {facts.storage_before} -> {facts.storage_after}: StorageClass "
            f"{facts.storage_class} does not allow volume expansion: the API server refuses it and this upgrade fails")
