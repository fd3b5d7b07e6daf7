"""`--fail-on` gates in words: what a gate matched, and a gate the plan cannot answer, one line
each on stderr."""
from __future__ import annotations

from deployah_plan.model import (
    ChartCRD, DriftChange, GateMatch, Impact, Matched, ResourceChange, Unanswered, Unevaluated, Warning,
)
from deployah_plan.render.words import impact as impact_words
from deployah_plan.render.words import warning as warning_words

_SHOWN = 3  # what a match names before "and N more"


def matched_text(item: Matched) -> str:
    """One thing a gate matched, in a short phrase."""
    if isinstance(item, ResourceChange):
        return f"{item.action.value} {item.resource}"
    if isinstance(item, Impact):
        return f"{item.kind.value}: {impact_words.message(item)}"
    if isinstance(item, ChartCRD):
        return f"chart CRD {item.name} ({item.source})"
    if isinstance(item, DriftChange):
        return f"{item.kind.value} {item.resource}"
    assert isinstance(item, Warning)
    return f"{item.code}: {warning_words.message(item)}"


def match_text(match: GateMatch) -> str:
    shown = "; ".join(matched_text(m) for m in match.matched[:_SHOWN])
    more = len(match.matched) - _SHOWN
    return f"--fail-on {match.gate.text} matched: {shown}" + (f"; and {more} more" if more > 0 else "")


def unevaluated_text(item: Unevaluated) -> str:
    if item.why is Unanswered.DRIFT:
        return f"--fail-on {item.gate.text}: not evaluated: the live state was not read ({item.live_reason})"
    return f"--fail-on {item.gate.text}: ownership and drift conflicts not evaluated: the live state was not read"
