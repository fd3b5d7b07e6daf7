"""Markdown for pull requests (render/markdown.py): `md` escapes markup and keeps one line. The
size cap on a big plan, through the command line, is tests/e2e/test_markdown.py."""
from __future__ import annotations


from deployah_plan.render.markdown import md


def test_md_escapes_markup_and_keeps_one_line() -> None:
    assert md("a*b_c`d") == r"a\*b\_c\`d"
    assert md("<script> & [x](y) | #1 ~~s~~") == r"\<script\> &amp; \[x\](y) \| \#1 \~\~s\~\~"
    assert md("two\nlines") == "two lines"
    assert md("owned by @platform-team") == "owned by &#64;platform-team"  # never a mention
