"""A plan's two helm calls, started before helm plan imports the rest of itself.

`helm plan upgrade` waits on two helm processes: `helm get all` (the release as stored) and the
render (`helm template`, or `helm upgrade --dry-run=server` when a cluster is used). Started the
usual way, they wait for click, the planner and PyYAML to be imported first: for a small chart,
that is as long as helm itself takes. So the entry point (entry.py) reads the command line here
first, by the flag table and helm's pflag rules, and in the common case starts both at once:

- `helm plan upgrade RELEASE CHART`, the chart a folder or an archive on disk;
- with values flags, and any flags that change neither call (`_NEUTRAL`: how the plan is
  printed, the gates, what helm does after the render);
- the namespace from -n or HELM_NAMESPACE (helm sets it for every plugin), and helm's version
  already remembered (sources/helm_facts.py).

Anything else starts nothing here, and the plan starts its calls as usual. A process started here
is used only when `Helm.run` is about to run that very command (`take`), so the plan is made
exactly as it would be without this module, whatever this module read: a guess that differs
from what the plan asks for costs a helm process, nothing else. What nobody took is ended
before helm plan exits (`discard`). Both calls only read (the render is a dry run): a command
line the plan then refuses for a neutral flag's value (`-o jsn`) has had helm read the
release and render it for nothing, as `helm upgrade --dry-run` of the same command would.
"""
from __future__ import annotations

import os
import subprocess
import threading
import time
from types import SimpleNamespace
from typing import Sequence

_started: dict[tuple[str, ...], subprocess.Popen[str]] = {}
_lock = threading.Lock()
_since: list[float] = []  # when the processes were started (the clock `time.time`)

# The flags of `helm plan upgrade` (their `dest`) that change neither call: how the plan is
# printed and kept, the gates, what helm does after it renders, what the planner adds. The values
# flags are read apart; every other flag (the chart's source, --render, --kube-version, the
# cluster flags, the render flags, --reuse-values, ...) starts nothing here.
_NEUTRAL = frozenset({
    "install", "atomic", "rollback_on_failure", "wait", "wait_for_jobs", "timeout", "cleanup_on_fail",
    "create_namespace", "no_hooks", "force", "force_replace", "history_max", "labels", "description",
    "render_subchart_notes", "hide_notes", "hide_secret", "take_ownership", "no_drift",
    "output", "no_color", "color", "suppress", "source_root", "show_secrets", "full_values", "line_context",
    "out", "ignore", "ignore_files", "debug", "detailed_exitcode", "fail_on",
})


def commands(args: Sequence[str]) -> list[list[str]]:
    """The helm commands the plan of command line `args` starts first, when this module can
    tell them from the command line and the environment alone (read as the plan reads them);
    [] otherwise."""
    if args[:1] != ["upgrade"]:
        return []
    from deployah_plan import pflag
    from deployah_plan.errors import PlanError
    from deployah_plan.flags import UPGRADE, Reach, helm_args
    from deployah_plan.sources import chart as charts
    from deployah_plan.sources import helm_commands as helm, helm_facts

    try:
        words = pflag.read(UPGRADE, args[1:])
    except PlanError:
        return []
    values: dict[str, list[str]] = {flag.field: [] for flag in UPGRADE if flag.reach is Reach.VALUES}
    namespace = ""
    for word in words:
        if not isinstance(word, pflag.Given):
            continue
        if word.flag.reach is Reach.VALUES:
            values[word.flag.field] += pflag.items(word.flag, word.value)
        elif word.flag.dest == "namespace":
            namespace = word.value
        elif word.flag.dest not in _NEUTRAL:
            return []
    given = [word for word in words if isinstance(word, str)]  # `--` and --help among them
    if len(given) != 2:
        return []
    # Standard input, which helm reads for `-f -` or `--set-file key=-`, is the plan's to pass
    # on: a process started here and then not taken must not have read it.
    if "-" in values["files"] or any(item.endswith("=-") for item in values["set_file"]):
        return []
    binary = helm.default_binary()
    version = helm_facts.known(binary, "version") if binary else None
    namespace = namespace or os.environ.get("HELM_NAMESPACE", "")
    try:
        chart = charts.on_disk(given[1])
    except PlanError:  # not a chart: the plan says so
        return []
    if not binary or not version or not namespace or chart is None:
        return []
    value_args = helm_args(SimpleNamespace(**values), Reach.VALUES)
    release = given[0]
    out = [[binary, *helm.record_args(release, namespace, None, helm.major(version))]]
    if os.environ.get("HELM_DRIVER", "").lower() != "memory":  # rendered by the cluster
        out.append([binary, *helm.dry_run_args(release, chart, namespace, value_args)])
    elif value_args:  # rendered offline, with values of the user's own (not the release's)
        out.append([binary, *helm.template_args(release, chart, namespace, value_args, upgrade=True)])
    return out


def start(args: Sequence[str]) -> None:
    """Start the helm commands of `commands`, if any. Nothing it meets stops helm plan: a
    command line it cannot read, a helm it cannot start, are the plan's own to report."""
    try:
        found = commands(args)
    except Exception:  # the plan reads the command line again, and says what is wrong with it
        return
    if found:
        _since.append(time.time())
    for command in found:
        try:
            # Standard input is passed on, as the plan's own call passes it.
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        except OSError:
            continue
        with _lock:
            _started[tuple(command)] = process


def started_at() -> float | None:
    """When the processes were started (`time.time`); None when none was."""
    return _since[0] if _since else None


def take(command: Sequence[str]) -> subprocess.Popen[str] | None:
    """The process started for exactly `command`, once; None when there is none."""
    with _lock:
        return _started.pop(tuple(command), None)


def discard() -> None:
    """End every process nobody took."""
    with _lock:
        left = list(_started.values())
        _started.clear()
        _since.clear()
    for process in left:
        try:
            process.kill()
            process.communicate()
        except OSError:
            pass


__all__ = ["commands", "discard", "start", "started_at", "take"]
