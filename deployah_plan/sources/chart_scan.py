"""What a chart's templates call, read from their text: a template that calls `lookup` (it
renders empty without a cluster), or one that makes a new value on every render (the plan then
renders the chart twice, core/regenerated.py). Read by sources/chart.py `scan` and, for a chart
folder, by sources/early.py before the imports, which starts that second render too when the
templates call for it. Imports nothing heavier than os, so that start is not held back.
"""
from __future__ import annotations

import os
from typing import Iterable

from deployah_plan.startup import Pattern, lazy

# A function is called where its name stands as a whole word inside a template action: after a
# `{{` with no `}` between (the action need not have ended). Each name is found with str.find,
# then checked where it stands: one pattern starting at `{{`, searched over the whole text,
# tried every name at every character of every action (2-10 ms of CPU a plan).
_LOOKUP = ("lookup",), lazy(r"lookup\b")
# Template functions whose result differs on every render, which a second render shows
# (sprig's random and crypto functions; htpasswd and bcrypt salt at random; encryptAES draws its
# IV at random). Not `now`: two renders side by side share its second, so a second render
# shows nothing more than the render window does (core/regenerated.py is_render_time).
_REGENERATES = (("rand", "uuidv4", "genCA", "genPrivateKey", "genSelfSignedCert", "genSignedCert", "htpasswd",
                 "bcrypt", "encryptAES", "shuffle"),
                lazy(r"(?:rand(?:AlphaNum|Alpha|Numeric|Ascii|Int|Bytes)|uuidv4|genCA(?:WithKey)?|genPrivateKey|"
                     r"genSelfSignedCert(?:WithKey)?|genSignedCert(?:WithKey)?|htpasswd|bcrypt|encryptAES|shuffle)\b"))
_WORD_CHARACTER = lazy(r"\w")


def _called(text: str, functions: tuple[tuple[str, ...], Pattern]) -> bool:
    """Whether a template action in `text` calls one of `functions` (the names' common starts, and
    the pattern of the whole names): the text `{{`, then anything but `}`, then a whole name."""
    starts, names = functions
    for start in starts:
        at = text.find(start)
        while at >= 0:
            if names.match(text, at) and not (at and _WORD_CHARACTER.match(text, at - 1)) and _in_action(text, at):
                return True
            at = text.find(start, at + 1)
    return False


def _in_action(text: str, at: int) -> bool:
    """Whether position `at` of `text` is inside a template action: after a `{{`, with no `}` between."""
    opened = text.rfind("{{", 0, at)
    return opened >= 0 and text.find("}", opened + 2, at) < 0


def folder_texts(root: str) -> tuple[list[str], bool]:
    """The text of every file of the chart folder `root` under a `templates` folder (at any
    depth: a subchart's too), and whether it holds a subchart archive (`charts/*.tgz`, whose
    templates are not looked into). Folders linked to are not entered, as pathlib's rglob does
    not enter them."""
    texts: list[str] = []
    archived = False
    for where, folders, files in os.walk(root):
        parts = [] if where == root else os.path.relpath(where, root).split(os.sep)
        for name in files:
            path = os.path.join(where, name)
            if not os.path.isfile(path):
                continue
            if name.endswith(".tgz") and parts[-1:] == ["charts"]:
                archived = True
            if "templates" in parts or name == "templates":
                try:
                    with open(path, encoding="utf-8", errors="replace") as handle:
                        texts.append(handle.read())
                except OSError:
                    continue
        folders.sort()
    return texts, archived


def calls(texts: Iterable[str], archived: bool) -> tuple[bool, bool]:
    """Whether the templates call `lookup`, and whether they may make a value anew on every
    render (or a subchart archive was not looked into)."""
    texts = list(texts)
    return (any(_called(t, _LOOKUP) for t in texts),
            archived or any(_called(t, _REGENERATES) for t in texts))


__all__ = ["calls", "folder_texts"]
