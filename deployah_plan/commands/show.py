"""Saved plans: `--out FILE` writes one, `helm plan show FILE` reads it back; `helm plan schema`.

The file is the JSON document (render/json_doc.py), so a saved plan is exactly what `-o json`
prints. Reading it needs no helm and no cluster (deployah_plan/saved.py does the parsing).
"""
from __future__ import annotations

import json
import os
import stat
from typing import Any

from deployah_plan import saved
from deployah_plan.record import Digester, sealed
from deployah_plan.errors import UsageError
from deployah_plan.model import Plan
from deployah_plan.plan_schema_check import schema_text
from deployah_plan.render import json_doc
from deployah_plan.render.options import WriteOptions
from deployah_plan.sources.files import FileReader, describe


def write_saved_plan(path: str, plan: Plan, show_secrets: bool, record: dict[str, Any] | None = None,
                     digester: Digester | None = None) -> None:
    """The JSON plan, with its inputs record sealed in when there is one (record.py). A plan
    with secret values in it (--show-secrets) is readable by its owner only (0600), whether the
    file is new or was there before."""
    text = json_doc.render(plan, WriteOptions(show_secrets=show_secrets))
    if record is not None and digester is not None:
        text = json_doc.dumps(sealed(json.loads(text), record, digester))
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if show_secrets else 0o666)
        with open(descriptor, "w", encoding="utf-8") as handle:
            if show_secrets and stat.S_ISREG(os.fstat(descriptor).st_mode):
                os.chmod(descriptor, 0o600)
            handle.write(text)
    except OSError as err:
        raise UsageError(f"cannot write the plan to {path}: {err.strerror or err}", "check the --out path") from None


def read_saved_plan(path: str) -> Plan:
    content = FileReader().read(path, "saved plan", "pass a file written by `helm plan ... --out FILE`")
    return saved.load(content, describe(path))


def check_json_output(plan: Plan, path: str) -> None:
    """`show -o json` writes the plan as this version's document, whose schema lists every
    warning code and impact kind: a plan of a newer minor version that uses one this version
    does not know cannot be written as one. Written under the document's own (newer) version it
    would not be that document either (the fields that version added are not read), and printed
    as it was read it could hold values the show flags say to mask. So it is refused."""
    unknown = saved.unknown_values(plan)
    if unknown:
        raise UsageError(
            f"{describe(path)} was written by a newer helm plan and has {', '.join(unknown)}, which format "
            f"{json_doc.FORMAT_VERSION} does not have: -o json cannot write it as a valid {json_doc.FORMAT_VERSION} document",
            "show it as text or markdown, read the saved file itself (it is the JSON plan), or upgrade helm plan")


__all__ = ["check_json_output", "read_saved_plan", "schema_text", "write_saved_plan"]
