"""A render cut into its documents (commands/upgrade.py `_documents`), as the second render of a
chart that makes values anew is compared with the first: at its `---` lines, exactly as the
pattern cuts it."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from deployah_plan.sources import helm_text


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(["---", "--- # c", "---\t", "---x", "--- a", " ---", "----", "\n", "\r\n", "a", "#",
                                 "- b", "...", "\t", "# ---"]), max_size=14).map("".join))
def test_a_render_is_cut_at_its_document_lines_as_the_pattern_cuts_it(text: str) -> None:
    assert helm_text.documents(text) == helm_text.SEPARATOR.compiled.split(text)


def test_a_render_of_documents() -> None:
    text = "---\n# Source: a\nkind: A\n--- # two\nkind: B\n---x: 1\n  ---\n---"
    assert helm_text.documents(text) == ["", "\n# Source: a\nkind: A\n", "\nkind: B\n---x: 1\n  ---\n", ""]
