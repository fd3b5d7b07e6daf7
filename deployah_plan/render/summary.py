"""The plan in a few lines, for a log: one line per resource change (sign, object, action), then
the summary sentence. What `helm diff --output simple` prints, as helm plan words it."""
from __future__ import annotations

from deployah_plan.model import Plan
from deployah_plan.escape import escape_controls
from deployah_plan.render.words import plan as plan_words
from deployah_plan.render.options import WriteOptions
from deployah_plan.render.words import SIGN


def render(plan: Plan, options: WriteOptions = WriteOptions()) -> str:
    lines = [f"{SIGN[c.action]} {c.resource}: {c.action.value}" for c in plan.changes]
    lines.append(plan_words.summary_text(plan))
    return "".join(escape_controls(line) + "\n" for line in lines)
