"""What scripts/gen-schema-codes writes, made from the tables where each thing is declared: the
warning codes (deployah_plan/codes.py) and their facts (deployah_plan/facts.py), the impact
kinds (deployah_plan/impacts.py) and theirs (deployah_plan/impact_facts.py). The published
schema's lists and `$defs`, and docs/plan.md's two tables; tests/test_packaging.py holds the
files to what these make.

A module of scripts/, not of the package: nothing a plan runs needs it.
"""
from __future__ import annotations

import inspect
from typing import Any

import msgspec.inspect as types

from deployah_plan.codes import Code, Fails
from deployah_plan.facts import facts_class
from deployah_plan.impact_facts import impact_facts_class
from deployah_plan.impacts import ImpactKind
from deployah_plan.model import ResourceRef


CODES_BEGIN = "<!-- warning codes: written by scripts/gen-schema-codes from deployah_plan/codes.py -->"
CODES_END = "<!-- end of warning codes -->"
_FAILS = {Fails.ALWAYS: "always", Fails.SOMETIMES: "case by case", Fails.NEVER: ""}


def codes_markdown_table() -> str:
    """docs/plan.md's table of warning codes (between CODES_BEGIN and CODES_END), one row per
    code in the table's order: what it is shown as, whether it predicts a failure, the
    `--fail-on` gates that match it, and its schema text."""
    rows = ["| code | shown as | predicts a failure | `--fail-on` | meaning |", "|---|---|---|---|---|"]
    for code in Code:
        gates = [f"warning:{code.value}", *(["failure"] if code.fails is not Fails.NEVER else []),
                 *([code.gate] if code.gate else [])]
        rows.append(f"| `{code.value}` | {code.severity.value} | {_FAILS[code.fails]} | "
                    f"{', '.join(f'`{g}`' for g in dict.fromkeys(gates))} | {code.description.replace('|', '/')} |")
    return "\n".join(rows)


def schema_codes() -> list[dict[str, str]]:
    """The schema's `$defs.warning_code.oneOf`: one entry per code, in the table's order."""
    return [{"const": c.value, "description": c.description} for c in Code]


IMPACTS_BEGIN = "<!-- impact kinds: written by scripts/gen-schema-codes from deployah_plan/impacts.py -->"
IMPACTS_END = "<!-- end of impact kinds -->"


def impact_markdown_table() -> str:
    """docs/plan.md's table of impact kinds (between IMPACTS_BEGIN and IMPACTS_END):
    what the plan says of each and the Kubernetes behaviour it rests on; kinds that say the same
    share a row."""
    rows: list[tuple[list[str], str, str]] = []
    for kind in ImpactKind:
        if rows and rows[-1][1:] == (kind.says, kind.rests_on):
            rows[-1][0].append(kind.value)
        else:
            rows.append(([kind.value], kind.says, kind.rests_on))
    lines = ["| kind | what the plan says | Kubernetes behaviour it rests on |", "|---|---|---|"]
    lines += [f"| {', '.join(f'`{k}`' for k in kinds)} | {says} | {rests_on} |" for kinds, says, rests_on in rows]
    return "\n".join(lines)


def schema_impact_kinds() -> list[dict[str, str]]:
    """The schema's `$defs.impact.properties.kind.oneOf`: one entry per kind, in the table's order."""
    return [{"const": k.value, "description": k.description} for k in ImpactKind]


def _json_schema(info: Any) -> dict[str, Any]:
    """A facts type (msgspec.inspect) as a JSON Schema."""

    def of(info: Any) -> dict[str, Any]:
        if isinstance(info, types.StrType):
            return {"type": "string"}
        if isinstance(info, types.BoolType):
            return {"type": "boolean"}
        if isinstance(info, types.IntType):
            return {"type": "integer"}
        if isinstance(info, types.FloatType):
            return {"type": "number"}
        if isinstance(info, types.VarTupleType):
            return {"type": "array", "items": of(info.item_type)}
        if isinstance(info, types.DictType):
            return {"type": "object", "additionalProperties": of(info.value_type)}
        if isinstance(info, types.EnumType):
            return {"enum": [m.value for m in info.cls]}
        if isinstance(info, types.StructType) and info.cls is ResourceRef:
            return {"$ref": "#/$defs/resource"}
        if isinstance(info, types.UnionType):
            return {"oneOf": [of(t) for t in info.types]}
        if isinstance(info, types.NoneType):
            return {"type": "null"}
        if isinstance(info, types.StructType):
            out: dict[str, Any] = {"type": "object"}
            doc = inspect.getdoc(info.cls)
            if doc and info.cls.__doc__:
                out["description"] = " ".join(doc.split())
            # A field with a default may be absent: a plan of an older minor version was written
            # before it was added, and the reader gives it its default.
            out["required"] = [f.encode_name for f in info.fields if f.required]
            out["properties"] = {f.encode_name: of(f.type) for f in info.fields}
            return out
        if isinstance(info, types.AnyType):
            return {}
        raise TypeError(f"no schema for {info!r}")

    return of(info)


def facts_schemas() -> dict[str, Any]:
    """Each code's facts as a JSON Schema, by code (the plan schema's `$defs.facts-CODE`, which
    scripts/gen-schema-codes writes): a field without a default is required; one with a default
    is not, so that a plan written before the field was added is valid (the JSON plan of this
    version always writes every field)."""
    return {code.value: _json_schema(types.type_info(cls)) for code in Code if (cls := facts_class(code)) is not None}


def impact_facts_schemas() -> dict[str, Any]:
    """Each impact kind's facts as a JSON Schema, by kind (the plan schema's
    `$defs.impact-facts-KIND`, which scripts/gen-schema-codes writes)."""
    return {kind.value: _json_schema(types.type_info(cls)) for kind in ImpactKind
            if (cls := impact_facts_class(kind)) is not None}
