"""A plan's first helm calls, started before helm plan imports the rest of itself.

`helm plan upgrade` waits on the render (`helm template`, or `helm upgrade --dry-run=server` when
a cluster is used), and reads the release as stored itself (release/store.py), or, from a store
it does not read (HELM_DRIVER=sql), with `helm get all`. Started the usual way, helm waits for
click, the planner and PyYAML to be imported first: for a small chart, that is as long as helm
itself takes. So the entry point (entry.py) reads the command line here first, by the flag table
and helm's pflag rules, and in the common case starts them, the render first (it takes longer):

- `helm plan upgrade RELEASE CHART`, the chart a folder or an archive on disk;
- with values flags, and any flags that change neither call (marked `neutral` in the flag
  table, flags.py: how the plan is printed, the gates, what helm does after the render);
- the namespace from -n or HELM_NAMESPACE (helm sets it for every plugin);
- `helm get all`, for a store helm plan does not read, once helm's version is remembered
  (sources/helm_versions.py): Helm 4's record is read with the apply method.
- without a values flag, offline (the memory driver), the render takes the release's values,
  which helm upgrade reuses: the entry point hands in the release reader (`Reuse`), which reads
  the driver's files (what the plan then takes rather than read them again), and the render is
  given the values on standard input as the plan gives them; no revision to upgrade: the
  install's render, without values.

When the chart's templates may make a value anew on every render (randAlphaNum, genCA:
sources/chart_scan.py), the plan renders it twice, the second beside the first, and the second
render is started here too, after the first two: a folder's templates are read, a packaged
chart is opened (once: the plan takes its Chart.yaml and what its templates call from here).
When they read the cluster's Kubernetes version and the render is helm template's, the render
for an older version (three minors below helm template's default, once that is remembered:
commands/upgrade.py `_older`) is started too.

Anything else starts nothing here, and the plan starts its calls as usual. A process started here
is used only when `Helm.run` is about to run that very command (`HelmCalls.take`), so the plan is
made exactly as it would be without this module, whatever this module read: a guess that differs
from what the plan asks for costs a helm process, nothing else. What nobody took is ended
before helm plan exits (`HelmCalls.end`). Both calls only read (the render is a dry run): a
command line the plan then refuses for a neutral flag's value (`-o jsn`) has had helm read the
release and render it for nothing, as `helm upgrade --dry-run` of the same command would.

The processes are kept by a `HelmCalls` that entry.py makes and hands to the command, which
starts its own helm calls through it too: so the entry point, which catches SIGTERM and
Ctrl-C before it starts anything, can end every helm process at once, in any phase.
"""
from __future__ import annotations

import _thread
import os
import signal
import time

from deployah_plan.console import Exit
from deployah_plan.errors import Interrupted
from deployah_plan.sources.process import Process, Timeout

TYPE_CHECKING = False  # typing's own is not imported before the first helm call
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator, Mapping, Sequence

    # The release's reader for a render without values flags (release/helm_storage.py
    # `reused_values`), handed in by the entry point: the sources import no release reader.
    Reuse = Callable[[Mapping[str, str], str, str], "tuple[list[Any], dict[str, Any] | None] | None"]


def commands(args: Sequence[str]) -> list[list[str]]:
    """The helm commands the plan of command line `args` starts first, in the order they are
    started, when this module can tell them from the command line and the environment alone
    (read as the plan reads them); [] otherwise."""
    return [command for command, _ in calls(args)]


def calls(args: Sequence[str], reuse: Reuse | None = None) -> list[tuple[list[str], str | None]]:
    """`commands`, each with what it is given on standard input (None: nothing; it inherits
    helm plan's own). `reuse`: how the release's values are read for a render without values
    flags (release/helm_storage.py `reused_values`); None: such a render starts nothing."""
    return list(_first_calls(args, {}, reuse)[0])


_NOTHING: tuple[Iterator[tuple[list[str], str | None]], str, None] = (iter(()), "", None)


def _first_calls(args: Sequence[str], memory: dict[str, list[Any]], reuse: Reuse | None
                 ) -> tuple[Iterator[tuple[list[str], str | None]], str,
                            Callable[[str], tuple[list[str], str | None]] | None]:
    """`calls`, named one by one as they are started; the chart folder or archive they render
    ("" when they render none); for a `helm template` render, the same render for another
    Kubernetes version (`--kube-version` after its values, as commands/upgrade.py `_older`
    adds it), else None. The render comes first: it takes longer than the release
    read, and it needs nothing of helm's version, which the read does (Helm 4's record has the
    apply method), so the render starts before the remembered version is read (json, and the re
    it imports: 3-4 ms). A helm not yet asked its version has its render started alone; the plan
    asks the version, then runs the same render. The memory driver's records read for the render
    are put in `memory`, by the HELM_MEMORY_DRIVER_DATA they were read from."""
    if args[:1] != ["upgrade"]:
        return _NOTHING
    from deployah_plan import pflag
    from deployah_plan.errors import PlanError
    from deployah_plan.flags import UPGRADE, Reach, helm_args
    from deployah_plan.sources.chart_path import on_disk
    from deployah_plan.sources import helm_commands as helm

    try:
        words = pflag.read(UPGRADE, args[1:])
    except PlanError:
        return _NOTHING
    values: dict[str, list[str]] = {flag.field: [] for flag in UPGRADE if flag.reach is Reach.VALUES}
    namespace = ""
    for word in words:
        if not isinstance(word, pflag.Given):
            continue
        if word.flag.reach is Reach.VALUES:
            values[word.flag.field] += pflag.items(word.flag, word.value)
        elif word.flag.dest == "namespace":
            namespace = word.value
        elif not word.flag.neutral:  # it may change either call
            return _NOTHING
    given = [word for word in words if isinstance(word, str)]  # `--` and --help among them
    if len(given) != 2:
        return _NOTHING
    # Standard input, which helm reads for `-f -` or `--set-file key=-`, is the plan's to pass
    # on: a process started here and then not taken must not have read it.
    if helm.reads_standard_input(values["files"], values["set_file"]):
        return _NOTHING
    binary = helm.default_binary()
    namespace = namespace or os.environ.get("HELM_NAMESPACE", "")
    try:
        chart = on_disk(given[1])
    except PlanError:  # not a chart: the plan says so
        return _NOTHING
    if not binary or not namespace or chart is None:
        return _NOTHING
    from types import SimpleNamespace

    value_args = helm_args(SimpleNamespace(**values), Reach.VALUES)
    release = given[0]
    render: tuple[list[str], str | None] | None = None
    offline: tuple[list[str], bool, str | None] | None = None  # helm template's values, --is-upgrade, input
    if os.environ.get("HELM_DRIVER", "").lower() != "memory":  # rendered by the cluster
        render = [binary, *helm.dry_run_args(release, chart, namespace, value_args)], None
    elif value_args:  # rendered offline, with values of the user's own (not the release's)
        offline = value_args, True, None
    elif reuse is not None:  # rendered offline, with the release's values (helm upgrade reuses them)
        offline = _reusing(release, namespace, memory, reuse)
    for_version: Callable[[str], tuple[list[str], str | None]] | None = None
    if offline is not None:
        template, upgrade, stdin = offline

        def rendered_for(version: str) -> tuple[list[str], str | None]:
            return ([binary, *helm.template_args(release, chart, namespace, [*template, "--kube-version", version],
                                                 upgrade)], stdin)
        for_version = rendered_for
        render = [binary, *helm.template_args(release, chart, namespace, template, upgrade)], stdin

    def named() -> Iterator[tuple[list[str], str | None]]:
        if render is not None:
            yield render
        from deployah_plan.sources import helm_versions

        version = helm_versions.known(binary, "version")
        # The release is read by helm only from a store helm plan does not read itself
        # (release/store.py): the sql driver, a name helm does not know.
        if version and helm.driver_from_env(os.environ) not in helm.DIRECT_DRIVERS:
            yield [binary, *helm.record_args(release, namespace, None, helm.major(version))], None
    return named(), (chart if render is not None else ""), for_version


def _reusing(release: str, namespace: str, memory: dict[str, list[Any]],
             reuse: Reuse) -> tuple[list[str], bool, str | None] | None:
    """The values of an upgrade's render without values flags, offline, whether it renders an
    upgrade, and its standard input: the release's values, which helm upgrade reuses, read from
    the memory driver's files by `reuse` and given on standard input, as the plan gives them
    (commands/upgrade.py `_values_for_template`); an install, when there is no revision to
    upgrade, with no values. None when `reuse` finds what the plan asks helm about, or what helm
    refuses: the plan reads the files again, and says so. The records read (each with its release)
    are put in `memory` for the plan (`HelmCalls.memory_pairs`)."""
    found = reuse(os.environ, release, namespace)
    if found is None:
        return None
    memory[os.environ.get("HELM_MEMORY_DRIVER_DATA") or ""], values = found
    if values is None:
        return [], False, None
    from deployah_plan.sources.helm_commands import values_on_stdin

    args, stdin = values_on_stdin(values)
    return args, True, stdin


def template_calls(chart: str) -> tuple[bool, bool, bool] | None:
    """What the templates of the chart folder `chart` call, as sources/chart.py `scan` reads them:
    `lookup`, a function that may make a value anew on every render (the plan then renders the
    chart twice, the second beside the first: commands/upgrade.py), the cluster's Kubernetes
    version; None for a packaged chart (`HelmCalls.start` opens it with sources/chart_scan.py
    `package`). Read once the first calls have started: a big chart's templates take
    milliseconds to read."""
    from deployah_plan.sources import chart_scan

    if not os.path.isdir(chart):
        return None
    return chart_scan.folder_calls(chart)


def may_regenerate(chart: str) -> bool:
    """Whether the plan renders the chart folder `chart` twice (`template_calls`); False for a
    packaged chart."""
    found = template_calls(chart)
    return found is not None and found[1]


# helm's commands helm plan runs that read no release. Every helm process loads the memory
# driver's files as it starts, whatever its command (pkg/cmd/root.go `loadReleasesInMemory`, on
# cobra's initialisation): a large release's file is much of each `helm template`'s time, and a
# fleet's file was read again by every render of kube-upgrade.
_READS_NO_RELEASE = frozenset({"template", "version", "show", "pull", "dependency"})


def helm_environment(command: Sequence[str] = ()) -> dict[str, str]:
    """The environment of the helm process `command`: helm plan's own, with Go's collector set
    to collect once the heap has grown by four times what is live, not once (GOGC=400), unless
    GOGC or GOMEMLIMIT is set already. A helm call is a short process, and its collector ran on
    the cores the plan's other helm process and Python share (what it saved and cost: the
    performance page, docs/performance.md). A command that reads no release, under the memory
    driver, loads an empty file (the null device) rather than the driver's files: helm would read
    them for nothing, and refuses the driver without one."""
    env = dict(os.environ) if "GOGC" in os.environ or "GOMEMLIMIT" in os.environ else {**os.environ, "GOGC": "400"}
    if command[1:2] and command[1] in _READS_NO_RELEASE and env.get("HELM_DRIVER") == "memory":
        env["HELM_MEMORY_DRIVER_DATA"] = os.devnull
    return env


_MAIN_THREAD = getattr(_thread, "_get_main_thread_ident", _thread.get_ident)()  # as threading tells it


def _in_main_thread() -> bool:
    return _thread.get_ident() == _MAIN_THREAD


class HelmCalls:
    """The helm processes of one command line, owned by the entry point (entry.py) and handed to
    the command (`Helm` takes from it and starts its calls through it). Those started before the
    imports (`start`) wait for the plan to take them (`take`); every one is known until it has
    ended, so the owner ends them all: what nobody took once the command is done, everything at
    once on SIGTERM or Ctrl-C (`interrupt`). Once ended, it starts nothing more.

    Thread-safe: the plan's calls start and end in its worker threads, and `interrupt` runs in
    the main thread whenever a signal comes (its lock is re-entrant for that).
    """

    def __init__(self) -> None:
        # Started early, not taken: by command, in the order started (a render may be started twice).
        self._waiting: dict[tuple[tuple[str, ...], str | None], list[Process]] = {}
        self._running: set[Process] = set()
        self._lock = _thread.RLock()
        self._since: float | None = None  # when the early processes were started (`time.time`)
        self._ended = False
        self._starting = 0  # the main thread is between starting a process and knowing it
        self._interrupted = False  # a signal came meanwhile: `popen` raises it after
        self._templates: tuple[str, tuple[bool, bool, bool]] | None = None  # the chart, `template_calls`
        self._chart_yaml: tuple[str, str] | None = None  # a packaged chart, its Chart.yaml (chart_scan.py `package`)
        self._memory: dict[str, list[Any]] = {}  # the memory driver's records and releases, read by `start`

    def start(self, args: Sequence[str], reuse: Reuse | None = None) -> None:
        """Start the helm commands of `calls` (with `reuse`), if any, in its order. Nothing it
        meets stops helm plan: a command line it cannot read, a helm it cannot start, are the
        plan's own to report."""
        started: list[tuple[list[str], str | None]] = []
        chart = ""
        for_version = None
        try:
            found, chart, for_version = _first_calls(args, self._memory, reuse)
            for command, stdin in found:
                if self._since is None:
                    self._since = time.time()
                self._start_early(command, stdin)
                started.append((command, stdin))
        except Exception:  # the plan reads the command line and helm's version again, and says what is wrong
            pass
        if not chart or not started:  # chart: the render is the first started
            return
        try:
            scanned = template_calls(chart)
            if scanned is None:  # a packaged chart: opened once, for its Chart.yaml too
                from deployah_plan.sources import chart_scan

                chart_yaml, scanned = chart_scan.package(chart)
                if chart_yaml is not None and scanned is not None:
                    self._chart_yaml = (chart, chart_yaml)
        except Exception:  # the plan reads the chart again, and says what is wrong
            scanned = None
        if scanned is not None:
            self._templates = (chart, scanned)
            if scanned[1]:  # the second render, beside the first
                self._start_early(*started[0])
            if scanned[2] and for_version is not None:
                # Templates that read the Kubernetes version, rendered offline: the render for an
                # older version too, beside the first (commands/upgrade.py `_older`), once helm
                # template's own default is remembered.
                from deployah_plan.sources import helm_versions

                older = helm_versions.older_version(helm_versions.known(started[0][0][0], "kube_version") or "")
                if older:
                    self._start_early(*for_version(older))

    def templates(self, chart: str) -> tuple[bool, bool, bool] | None:
        """What the templates of the chart `chart` call (`template_calls`), when `start`
        read them; None otherwise. The plan reads them only once."""
        if self._templates is not None and self._templates[0] == chart:
            return self._templates[1]
        return None

    def chart_yaml(self, chart: str) -> str | None:
        """The Chart.yaml of the packaged chart `chart`, when `start` opened it (sources/chart_scan.py
        `package`, with what its templates call: `templates`); None otherwise. Listing an
        archive's members inflates all of it: the plan opens it only once."""
        if self._chart_yaml is not None and self._chart_yaml[0] == chart:
            return self._chart_yaml[1]
        return None

    def memory_pairs(self, data: str) -> list[Any] | None:
        """The memory driver's records, each with its release (release/helm_storage.py
        `memory_pairs`), as `start` read them from the files `data` names
        (HELM_MEMORY_DRIVER_DATA), once; None when it did not read them."""
        with self._lock:
            return self._memory.pop(data, None)

    def _start_early(self, command: list[str], stdin: str | None) -> None:
        try:
            # Standard input is passed on, as the plan's own call passes it, unless it is given.
            process = self.popen(command, stdin=stdin is not None)
        except OSError:
            return
        if stdin is not None:
            process.feed(stdin)
        with self._lock:
            self._waiting.setdefault((tuple(command), stdin), []).append(process)

    @property
    def started_at(self) -> float | None:
        """When the early processes were started (`time.time`); None when none was."""
        return self._since

    def take(self, command: Sequence[str], stdin: str | None = None) -> Process | None:
        """A process started early for exactly `command`, given exactly `stdin` on standard
        input (None: none), the first started of those not yet taken; None when there is none."""
        with self._lock:
            waiting = self._waiting.get((tuple(command), stdin))
            return waiting.pop(0) if waiting else None

    def popen(self, command: Sequence[str], *, stdin: bool) -> Process:
        """Start `command` (its outputs piped, read as text; `stdin`: its standard input piped
        too, else inherited; its environment `helm_environment`'s), known until `done`.
        Interrupted once the calls are ended."""
        main = _in_main_thread()
        if main:  # a signal now would lose a process started but not yet known: it waits
            self._starting += 1
        try:
            with self._lock:
                if self._ended:
                    raise Interrupted
            process = Process(command, stdin=stdin, env=helm_environment(command))
            with self._lock:
                self._running.add(process)
                if self._ended:  # ended while this worker thread started it
                    self._end_running()
                    raise Interrupted
        finally:
            if main:
                self._starting -= 1
        if main and self._interrupted:
            self._interrupted = False
            self.end()
            raise Interrupted
        return process

    def done(self, process: Process) -> None:
        """`process` has ended and been read (or was ended): its pipes are closed."""
        with self._lock:
            self._running.discard(process)
        process.close()

    def end(self) -> None:
        """End every process still running (the early ones nobody took among them), and start
        none after."""
        with self._lock:
            self._ended = True
            untaken = [process for waiting in self._waiting.values() for process in waiting]
            self._waiting.clear()
            self._end_running()
        for process in untaken:  # nobody reads them
            process.close()

    def _end_running(self) -> None:
        with self._lock:
            left = list(self._running)
            self._running.clear()
        for process in left:
            try:
                process.kill()
            except OSError:
                pass
        deadline = time.monotonic() + 1
        for process in left:  # killed: each ends at once; reaped, so none is left behind
            try:
                process.wait(max(deadline - time.monotonic(), 0.01))
            except (OSError, Timeout):
                pass

    def interrupt(self, signum: int, frame: object) -> None:
        """The handler of SIGTERM and SIGINT: every helm process is ended at once, then the
        command stops by Interrupted (errors.py), so that every `with` block on the way out
        runs (the temporary files holding release values are removed) without waiting for a
        helm that no longer runs. A signal once the calls are ended (a second Ctrl-C, the command done)
        ends the process."""
        if self._ended:
            from deployah_plan.sources.workdir import remove_left

            remove_left()
            os._exit(Exit.INTERRUPTED)
        self.end()
        if self._starting:
            self._interrupted = True
            return
        raise Interrupted

    def catch_signals(self) -> Callable[[], None]:
        """Make `interrupt` the handler of SIGTERM and SIGINT (in the main thread only);
        returns what puts the previous handlers back."""
        if not _in_main_thread():
            return lambda: None
        previous = {number: signal.signal(number, self.interrupt) for number in (signal.SIGTERM, signal.SIGINT)}

        def restore() -> None:
            for number, handler in previous.items():
                signal.signal(number, handler)
        return restore


__all__ = ["HelmCalls", "calls", "commands", "may_regenerate", "template_calls"]
