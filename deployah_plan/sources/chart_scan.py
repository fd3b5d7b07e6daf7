"""What a chart's templates call, read from their text: a template that calls `lookup` (it
renders empty without a cluster), or one that makes a new value on every render (the plan then
renders the chart twice, core/regenerated.py). Read by sources/chart.py `scan` and, for a chart
folder, by sources/early.py before the imports, which starts that second render too when the
templates call for it. Imports nothing heavier than os, so that start is not held back.
"""
from __future__ import annotations

import os
from typing import Iterable

from deployah_plan.lazy_re import lazy

_LOOKUP = lazy(r"\{\{-?[^}]*\blookup\b")
# Template functions whose result differs on every render, which a second render shows
# (sprig's random and crypto functions; htpasswd and bcrypt salt at random; encryptAES draws its
# IV at random). Not `now`: two renders side by side share its second, so a second render
# shows nothing more than the render window does (core/regenerated.py is_render_time).
_REGENERATES = lazy(r"\{\{-?[^}]*\b(?:rand(?:AlphaNum|Alpha|Numeric|Ascii|Int|Bytes)|uuidv4|genCA(?:WithKey)?|"
                    r"genPrivateKey|genSelfSignedCert(?:WithKey)?|genSignedCert(?:WithKey)?|htpasswd|"
                    r"bcrypt|encryptAES|shuffle)\b")


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
    return any(_LOOKUP.search(t) for t in texts), archived or any(_REGENERATES.search(t) for t in texts)


__all__ = ["calls", "folder_texts"]
