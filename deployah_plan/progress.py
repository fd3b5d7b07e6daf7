"""What helm plan is doing, on standard error, while work takes more than a moment.

A first run on a big chart spends seconds in helm (reading the release, rendering) and reading
the cluster; `step(what)` says "helm plan: WHAT..." once the work has taken `DELAY` seconds, and
nothing when it is quicker. It is shown only where a person watches: when standard error is a
terminal, or with --debug (or HELM_DEBUG), where it joins the debug lines. Never on standard
output, which holds the plan. The launcher (scripts/helm-plan) says the same of making the
Python environment.

Whether --debug is on is set once, by the command line (`show_with_debug`), as logging is
configured once for a process: the helm and cluster readers that report progress do not carry
the flag.
"""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Iterator

from deployah_plan.console import say

DELAY = 1.0  # seconds of work before it is said
_lock = threading.Lock()
_with_debug = False


def show_with_debug(debug: bool) -> None:
    """--debug shows progress whatever standard error is."""
    global _with_debug
    _with_debug = debug


def shown() -> bool:
    if _with_debug:
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # closed or replaced
        return False


def _say(what: str) -> None:
    with _lock:  # one line at a time: steps run in threads side by side
        say(f"helm plan: {what}...")


@contextmanager
def step(what: str) -> Iterator[None]:
    """Say `what` on standard error if the block takes longer than DELAY (see the module)."""
    if not shown():
        yield
        return
    timer = threading.Timer(DELAY, _say, (what,))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


__all__ = ["DELAY", "show_with_debug", "shown", "step"]
