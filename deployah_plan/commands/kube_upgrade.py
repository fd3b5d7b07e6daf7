"""`helm plan kube-upgrade --kube-version V [RELEASE] [-n NS | -A] [-l SELECTOR]`: what a
Kubernetes upgrade does to every release.

Each deployed release in scope is planned as `helm plan upgrade --reuse-values --render
template --kube-version V` would plan it with the release's own chart: its stored chart is
written to a private folder (release/stored_chart.py; 0700, removed after), rendered with its
values and V's capabilities (`helm template --kube-version V --api-versions ...`), and that
render is planned against the stored manifest by the same `plan_upgrade` (commands/upgrade.py),
judged against V's APIs and schemas. The stored manifest's objects are judged too: one whose
API V no longer serves makes the next upgrade fail until the manifest is rewritten. Each plan
gets a verdict (core/kube_upgrade.py).

With the `secret` and `configmap` drivers (HELM_DRIVER, helm's default), the scope's release
objects are read with one list request (release/stored_scope.py), and each release's revision,
chart, values and history are taken from the records it returned (`HeldReleases`, the plan's
release reads): the render is the only helm process of a release (two for a chart that makes
values anew). With the memory driver the scope is read
from its files and, with the sql driver and any other, listed by `helm list`
(release/inventory.py); each release is then read with `helm get`.

Releases are planned `--parallel` at a time (default: the CPUs), each helm call bounded by
`--timeout`. A release that cannot be planned is reported with what stopped it, and the others
go on. Each plan is rendered as soon as it is made and only its text is kept, so memory stays
about one plan per worker however many releases there are. Progress goes to stderr when it is
a terminal.
"""
from __future__ import annotations

import os
import re
import sys
import threading
from typing import Any, Callable, Mapping, Sequence

from msgspec import Struct, structs

from deployah_plan.startup import lazy
from deployah_plan.commands.arguments import Gating, Printing
from deployah_plan.commands.plan_steps import ignore_rules, write_options
from deployah_plan.console import Exit, say, write
from deployah_plan.core.diff import LINE_CONTEXT
from deployah_plan.core.gates import check_gates, unevaluated
from deployah_plan.core.ignore import IgnoreRule, apply_ignore
from deployah_plan.core.kube_upgrade import Verdict, verdict
from deployah_plan.errors import PlanError, ReleaseError, UsageError
from deployah_plan.flags import KUBE_UPGRADE, request_fields
from deployah_plan.release import api_target as targets
from deployah_plan.release import inventory
from deployah_plan.release import stored_scope
from deployah_plan.release.inventory import Listed
from deployah_plan.release.stored_scope import Held, HeldReleases
from deployah_plan.release.revisions import connect
from deployah_plan.sources.kubeconfig import resolve_settings
from deployah_plan.release.stored_chart import subchart_documents, write_chart
from deployah_plan.render import kube_upgrade as report_writer
from deployah_plan.escape import log_line
from deployah_plan.render.options import WriteOptions
from deployah_plan.render.words import gate as gate_words
from deployah_plan.render.writers import WRITERS
from deployah_plan.sources.early import HelmCalls
from deployah_plan.sources.files import FileReader
from deployah_plan.sources.helm_commands import driver_from_env, major
from deployah_plan.sources.workers import completed, workers
from deployah_plan.sources.workdir import private_folder


class KubeUpgradeOptions(Struct, frozen=True, kw_only=True):
    kube_version: str
    release: str | None = None  # one release; None: every release in scope
    namespace: str | None = None
    all_namespaces: bool = False
    selector: str | None = None
    kube_context: str | None = None
    kubeconfig: str | None = None
    parallel: int | None = None  # None: the number of CPUs
    timeout: str = "5m"
    debug: bool = False
    line_context: int = LINE_CONTEXT


def kube_upgrade_options(params: Mapping[str, Any], *, debug: bool) -> KubeUpgradeOptions:
    """The request from the command's parsed parameters, its --kube-version given and one
    Kubernetes names."""
    options = KubeUpgradeOptions(release=params.get("release"), debug=debug,
                                 **request_fields(KUBE_UPGRADE, params, "kube_upgrade"))
    if not options.kube_version:
        raise UsageError("--kube-version is required", "give the Kubernetes version the cluster is upgraded to, "
                         "e.g. --kube-version 1.32")
    targets.check_version(options.kube_version)
    return options


_DURATION = lazy(r"(\d+(?:\.\d+)?)(h|ms|m|s)")


class KubeUpgradeArguments(Struct, frozen=True, kw_only=True):
    """`helm plan kube-upgrade`: its request (checked: a --kube-version it can read), the ignore
    rules' flags, how the plans are printed and what the exit code says."""

    request: KubeUpgradeOptions
    ignore: tuple[str, ...]
    ignore_files: tuple[str, ...]
    printing: Printing
    gating: Gating
    debug: bool

    @classmethod
    def of(cls, params: Mapping[str, Any], *, debug: bool) -> KubeUpgradeArguments:
        request = kube_upgrade_options(params, debug=debug)  # a missing --kube-version is refused first
        return cls(request=request, ignore=tuple(params["ignore"]), ignore_files=tuple(params["ignore_files"]),
                   printing=Printing.of(params), gating=Gating.of(params), debug=debug)


def seconds(duration: str) -> float:
    """A Go duration (`300s`, `5m`, `1h30m`), or a number of seconds, in seconds."""
    text = duration.strip()
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        value = float(text)
    elif text and _DURATION.sub("", text) == "":
        scale = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
        value = sum(float(m.group(1)) * scale[m.group(2)] for m in _DURATION.finditer(text))
    else:
        raise UsageError(f"cannot read --timeout {duration!r}", "give a duration such as 300s, 5m or 1h30m")
    if value <= 0:
        raise UsageError("--timeout must be more than 0", "give a duration such as 300s, 5m or 1h30m")
    return value


class Outcome(Struct, frozen=True):
    """One release's answer: its verdict, its row of the report (its plan as the writer printed
    it, or what stopped it), and the gates it matched. The plan itself is not kept (see the
    module docstring)."""

    listed: Listed
    verdict: Verdict
    row: report_writer.Row
    gate_lines: tuple[str, ...] = ()  # the --fail-on gates it matched, each as stderr says it
    unevaluated: tuple[str, ...] = ()

    @property
    def has_changes(self) -> bool:
        return self.row.has_changes


class _Run(Struct, frozen=True):
    """What every release's plan shares."""

    options: KubeUpgradeOptions
    printing: Printing
    gating: Gating
    rules: tuple[IgnoreRule, ...]
    write: WriteOptions
    timeout: float
    calls: HelmCalls | None
    releases: HeldReleases | None = None  # the records the scope's list returned (release/stored_scope.py)


_KUBE_VERSION_REFUSED = lazy(r"incompatible with Kubernetes")


class _Refused(ReleaseError):
    """What `helm upgrade` of the release refuses before it renders."""


def _plan_one(run: _Run, held: Held) -> Outcome:
    """The release's outcome: whatever stops its plan (a record its writer chose, a bug) is its
    own error row, and the other releases are planned."""
    listed = held.listed
    try:
        if held.records and run.releases is not None:  # the chart, as `helm list` prints it, for an error row too
            newest = run.releases.decoded(max(held.records, key=lambda record: record.version))
            listed = structs.replace(listed, chart=stored_scope.chart_of(newest))
        return _planned(run, listed, held)
    except PlanError as err:
        # The chart's own kubeVersion refuses the target, or helm refuses the release's name:
        # `helm upgrade` fails the same way.
        refused = isinstance(err, _Refused) or _KUBE_VERSION_REFUSED.search(err.message) is not None
        return _failed(listed, err.message, err.hint, Verdict.WILL_FAIL if refused else Verdict.ERROR)
    except RecursionError:
        return _failed(listed, f"release {listed.name} holds values or objects nested deeper than helm plan reads",
                       "check the release with `helm get values --all`")
    except Exception as err:  # a bug: this release's row says so, and the others are planned
        if run.options.debug:
            import traceback

            say(log_line(traceback.format_exc().rstrip("\n")))
        return _failed(listed, f"internal error: {type(err).__name__}: {err}",
                       "run with --debug for the traceback, and please report it")
    finally:
        if run.releases is not None:
            run.releases.forget(held)


def _failed(listed: Listed, error: str, hint: str, judged: Verdict = Verdict.ERROR) -> Outcome:
    return Outcome(listed, judged, report_writer.Row(
        listed.name, listed.namespace, listed.chart, listed.revision, judged.value,
        failures=int(judged is Verdict.WILL_FAIL), error=error, hint=hint))


def _planned(run: _Run, listed: Listed, held: Held) -> Outcome:
    from deployah_plan.commands.upgrade import UpgradeOptions, plan_upgrade

    if not inventory.valid_release_name(listed.name):
        raise _Refused(f"helm upgrade refuses the release name {listed.name!r}: release name is invalid",
                       f"helm accepts lowercase letters, digits, '-' and '.', at most {inventory.RELEASE_NAME_MAX} "
                       "characters; the record was not written by helm install")
    options = run.options
    helm, _ = connect(listed.namespace, options.kube_context, options.kubeconfig, options.debug, run.calls)
    helm.timeout = run.timeout
    held_reads = run.releases if held.records else None  # the records the scope's list returned
    state = (held_reads or helm).release_state(listed.name, listed.namespace, major(helm.version()))
    current = state.current
    if current is None:
        raise ReleaseError(f"release {listed.name} has no revision to plan from",
                           f"`helm history {listed.name} -n {listed.namespace}` lists its revisions")
    record = (held_reads or helm).stored_chart(listed.name, listed.namespace, current.revision)
    with private_folder("helm-plan-chart-") as folder:  # 0700, this user's alone; removed on a signal too
        stored = write_chart(record, listed.name, folder)
        carried = subchart_documents(current.manifest, current.hooks_stream, stored.name) if stored.subcharts else ""
        planned = plan_upgrade(UpgradeOptions(
            release=listed.name, chart=stored.path, namespace=listed.namespace, kube_context=options.kube_context,
            kubeconfig=options.kubeconfig, debug=options.debug, reuse_values=True, render="template",
            kube_version=options.kube_version, no_drift=True, line_context=options.line_context,
            stored_chart=True, carried=carried, subcharts=stored.subcharts, helm_timeout=run.timeout,
            release_state=state, releases=held_reads,
        ), calls=run.calls)
    # One read of the release: the plan's previous state and the chart (read by that revision)
    # are of one revision, whatever a deploy does meanwhile.
    plan = apply_ignore(planned.plan, run.rules)
    gates = list(run.gating.gates)
    where = f"{listed.namespace}/{listed.name}"
    judged = verdict(plan)
    return Outcome(
        listed, judged, report_writer.Row(
            listed.name, listed.namespace, f"{plan.header.chart_name}-{plan.header.chart_version}", current.revision,
            judged.value, document=WRITERS[run.printing.output](plan, run.write), failures=plan.summary.failures,
            has_changes=plan.has_changes),
        gate_lines=tuple(f"{where}: {gate_words.match_text(m)}" for m in check_gates(plan, gates)),
        unevaluated=tuple(gate_words.unevaluated_text(u) for u in unevaluated(plan, gates)),
    )


def _scope(options: KubeUpgradeOptions, calls: HelmCalls | None) -> tuple[list[Held], str | None, HeldReleases | None]:
    """The releases to plan, the namespace they were listed in (None: every namespace) and, when
    they were listed from Helm's storage, the reads their records answer (release/stored_scope.py);
    else listed by helm."""
    helm, target = connect(options.namespace, options.kube_context, options.kubeconfig, options.debug, calls)
    helm.timeout = seconds(options.timeout)  # the list too: a server may answer it as slowly as it likes
    if options.all_namespaces and options.namespace:
        raise UsageError("-A and -n name different scopes", "give one of them")
    namespace = None if options.all_namespaces else target.namespace
    if options.release and options.selector:
        raise UsageError("a RELEASE and -l name different scopes", "give one of them")
    driver = driver_from_env(os.environ)
    found: list[Held] | None = None
    held: HeldReleases | None = None
    if stored_scope.reads_storage(driver):
        settings = resolve_settings(namespace=target.namespace, context=options.kube_context, kubeconfig=options.kubeconfig)
        refused: list[str] = []
        found = stored_scope.releases(settings, driver, namespace, options.selector, options.release, refused,
                                      seconds(options.timeout))
        for line in refused if options.debug else ():
            say(log_line(f"helm plan: {line}"))
        if found:
            helm.version()  # asked once (then remembered), not by each worker at once
            held = HeldReleases(helm, settings, found)
    if found is None:
        if options.debug and not inventory.memory_driver():
            why = "a selector naming the releases' own labels" if stored_scope.reads_storage(driver) else f"the {driver} driver"
            say(log_line(f"helm plan: with {why}, the releases are listed and read by helm"))
        listed = inventory.releases(helm, namespace, None if options.release else options.selector)
        found = [Held(item, ()) for item in listed if not options.release or item.name == options.release]
    if options.release and not found:
        where = "any namespace" if namespace is None else f"namespace {namespace}"
        raise ReleaseError(f"release {options.release} not found in {where}",
                           "check the name and the namespace; `helm list -A` lists the releases")
    return found, namespace, held


class _Progress:
    """`planned i/N` on stderr, rewritten in place, when stderr is a terminal; nothing otherwise."""

    def __init__(self, total: int) -> None:
        self.total, self.done = total, 0
        self.shown = sys.stderr.isatty() and total > 0
        self.lock = threading.Lock()

    def step(self, listed: Listed) -> None:
        with self.lock:
            self.done += 1
            if self.shown:
                line = log_line(f"helm plan: planned {self.done}/{self.total} releases "
                                f"({listed.namespace}/{listed.name})")
                sys.stderr.write("\r" + line[:200] + "\033[K")
                sys.stderr.flush()

    def end(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def plan_releases(run: _Run, scope: Sequence[Held], progress: Callable[[Listed], None]) -> list[Outcome]:
    """Every release's outcome, in the order of `scope`, planned `parallel` at a time."""
    parallel = run.options.parallel or os.cpu_count() or 1
    outcomes: dict[int, Outcome] = {}
    with workers(max(1, min(parallel, len(scope) or 1)), "release") as pool:
        futures = {pool.submit(_plan_one, run, held): index for index, held in enumerate(scope)}
        for future in completed(futures):
            index = futures[future]
            outcomes[index] = future.result()
            progress(scope[index].listed)
    return [outcomes[index] for index in range(len(scope))]


def run_kube_upgrade(args: KubeUpgradeArguments, *, calls: HelmCalls | None = None) -> int:
    """Every step: the scope, the plans, the report, the gates; exit as a plan does (an error in
    any release: ERROR, after the report)."""
    options, printing = args.request, args.printing
    run = _Run(options, printing, args.gating, tuple(ignore_rules(args.ignore, args.ignore_files, FileReader())),
               write_options(printing), seconds(options.timeout), calls)
    scope, namespace, held = _scope(options, calls)
    run = structs.replace(run, releases=held)
    progress = _Progress(len(scope))
    try:
        outcomes = plan_releases(run, scope, progress.step)
    finally:
        progress.end()
    write(report_writer.render([outcome.row for outcome in outcomes], report_writer.Heading(options.kube_version.lstrip("v"), namespace),
                               printing.output, run.write))
    for outcome in outcomes:
        for line in outcome.gate_lines:
            say(log_line(f"helm plan: {line}"))
    for line in dict.fromkeys(line for outcome in outcomes for line in outcome.unevaluated):
        say(log_line(f"helm plan: {line}"))
    errors = [outcome for outcome in outcomes if outcome.verdict is Verdict.ERROR]
    for outcome in errors:
        say(log_line(f"helm plan: error: {outcome.listed.namespace}/{outcome.listed.name}: {outcome.row.error}"
                     + (f" ({outcome.row.hint})" if outcome.row.hint else "")))
    if errors:
        return Exit.ERROR
    changes = any(outcome.has_changes or outcome.verdict is Verdict.WILL_FAIL for outcome in outcomes)
    return args.gating.exit(any(outcome.gate_lines for outcome in outcomes), changes)


__all__ = ["KubeUpgradeOptions", "Outcome", "kube_upgrade_options", "plan_releases", "run_kube_upgrade", "seconds"]
