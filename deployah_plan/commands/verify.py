"""`helm plan verify PLAN.json [-- helm upgrade ...]`: is the plan that was reviewed still the
plan that would be deployed?

The plan is made again with the inputs its record holds (planfile/inputs.py) and compared
with the saved one. It holds when the two JSON documents are equal and the desired render's
digest is too (the plan masks Secret values, so two renders whose secrets differ can print the
same plan: the digest tells them apart). What the saved plan marks regenerated on every render
(core/regenerated.py) may differ by being made anew, if the plan now marks it so too: both
documents are compared with those values put as `(regenerated)` (`without_regenerated`), and
the render's digest is the one without them (`render_stable`, inputs.py; a record without it
is compared by `render`). Then verify exits 0; otherwise 4, printing what
moved (release revision, chart, values, render, live state, helm, context, namespace) and how
the plan differs. An input that moved while the plan stayed the same (a chart's README, a
comment in a values file, a live field the plan does not read) is printed as a note, and fails
only with --strict.

Given a helm command after `--`, its flags are read by helm's rules (pflag.py) and the same
command the plan was made with (so every flag that command knows is compared, and means what
it means to the helm that runs it), with the values of --set* digested
as the record has them, and must equal the recorded ones, except those the flag table
(deployah_plan/flags.py) marks: the flags only helm plan has (output, ignore rules, --render,
drift switches; those that change the plan are taken from the record) and where the release
is (the namespace and context are compared as resolved, since helm hands its global flags to
a plugin as environment variables). The plan is made again from that command, and
the command is run only when the plan holds; its exit code is passed through. The writing is
done by helm: this plugin never writes to a cluster. `helm` as the command's first word means
the helm running the plugin (HELM_BIN).

What is checked is what is deployed. A chart from a repository, a registry or a URL is pulled
once, into a private temporary folder; the plan is made again from that archive, which must be
the one the plan was made from (its digest the recorded one), and the command is run with the
archive in place of the chart and without the flags that find it (--repo, --version, --devel,
the repository's credentials and TLS files): helm does not download it a second time, so a
repository cannot answer the deploy differently than it answered the check. A values file
verify cannot read to check (a URL, standard input) is refused unless --accept-unchecked is
given: helm would read it again, and nothing says it reads the same.

Without a command, the recorded command line is planned again; one recorded with --set values
or credentials cannot be (the record keeps only digests, or nothing), and verify says to pass
the command. The plan file is not trusted to say what to run: without a command, a plan that
names a program (--post-renderer) or a kubeconfig (whose user may run an exec plugin) is
refused unless it is keyed; with one, programs come from the command only (no such flag is
taken from the record: flags.Flag refuses it). With HELM_PLAN_KEY set, a plan sealed without
it is refused: its `keyed: false` is the file's word only.

Refused, exit 1: a file without an inputs record (written by -o json, or before format 1.3),
a plan from `helm plan diff` (made from files, it says nothing about the release or the
cluster: verifying it would only say the files did not change), a record or plan edited after
it was written (the seal does not match), and a command whose flags are not the plan's.
"""
from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Sequence

import click
from msgspec import Struct

from deployah_plan.commands import plan_steps
from deployah_plan.commands.arguments import PlanArguments
from deployah_plan.console import Exit, say
from deployah_plan.errors import HelmError, UsageError
from deployah_plan.flags import BY_COMMAND, Reach, from_record, not_compared
from deployah_plan.model import Plan
from deployah_plan.pflag import helm_spelling
from deployah_plan.planfile import inputs, write
from deployah_plan.planfile.read import load
from deployah_plan.planfile.seal import KEY_ENV, Digester, Seal, check
from deployah_plan.redact import hide_userinfo
from deployah_plan.escape import log_line
from deployah_plan.render.options import WriteOptions
from deployah_plan.sources.files import FileReader
from deployah_plan.sources.helm import Helm
from deployah_plan.sources.kubeconfig import helm_default_namespace
from deployah_plan.sources.workdir import private_folder

VERIFIABLE = ("upgrade", "rollback", "uninstall")
_HINT = "plan again with `helm plan upgrade ... --out FILE` and review it"


class VerifyOptions(Struct, frozen=True, kw_only=True):
    path: str
    command: tuple[str, ...] = ()  # the helm command to run when the plan holds ("--" dropped)
    strict: bool = False
    check_only: bool = False
    accept_unchecked: bool = False  # a values file that cannot be checked (a URL, stdin) is run as given
    debug: bool = False


class SavedPlan(Struct, frozen=True):
    document: dict[str, Any]  # the plan, without its record
    record: dict[str, Any]
    digester: Digester


def read(path: str) -> SavedPlan:
    """The saved plan and its record, refused unless verify can trust and re-make it."""
    text = FileReader().read(path, "saved plan", "write one with `helm plan upgrade ... --out FILE`")
    load(text, path)  # a plan this version can read, or a one-line error
    doc = json.loads(text)
    record = doc.get("inputs")
    if not isinstance(record, dict):
        raise UsageError(f"{path} has no inputs record, so it cannot be made again (it was written by -o json, "
                         "or by a helm plan older than format 1.3)", "save the plan with --out FILE")
    try:
        command = str(record["command"])
        digester = Digester.of(str(record["digest"]["salt"]), bool(record["digest"]["keyed"]))
    except (KeyError, TypeError):
        raise UsageError(f"{path}: its inputs record is incomplete", _HINT) from None
    found = check(doc)  # as `helm plan show` checks it
    if found is Seal.UNKEYED:
        # The file's own `keyed: false` is no evidence: whoever rewrites a plan can say so.
        raise UsageError(f"{path} was sealed without {KEY_ENV}, which is set here: whoever can write the "
                         "file could have written it", f"plan again with {KEY_ENV} set in the plan job")
    if found is not Seal.HOLDS:
        raise UsageError(f"{path} was changed after it was written: its seal does not match its plan and inputs",
                         "verify the file the plan job wrote, or plan again")
    if command == "diff":
        raise UsageError(f"{path} is a plan from `helm plan diff`, made from files: it says nothing about the release "
                         "or the cluster, so there is nothing to verify", "save a plan of `helm plan upgrade` instead")
    if command not in VERIFIABLE:
        raise UsageError(f"{path} is a plan of `helm plan {command}`, which verify cannot make again", _HINT)
    return SavedPlan({k: v for k, v in doc.items() if k != "inputs"}, record, digester)


# -- the command line -----------------------------------------------------------------------

def _parse(command: click.Command, argv: Sequence[str], what: str) -> click.Context:
    """argv read as helm reads it (the command's parse_args reads it by pflag's rules first)."""
    try:
        return command.make_context(argv[0], list(argv[1:]))
    except (click.ClickException, UsageError) as err:
        message = err.format_message() if isinstance(err, click.ClickException) else err.message
        raise UsageError(f"{what} cannot be read as `helm plan {argv[0]}`: {message.rstrip('.')}",
                         "only flags helm plan knows can have been reviewed; plan with the same command") from None


def check_programs(path: str, name: str, recorded: click.Context, digester: Digester) -> None:
    """Without a command, refuse a plan that names a program (a post-renderer) or a kubeconfig
    (whose user may run an exec plugin) unless it is keyed: the plan file alone is not trusted
    to say what to run."""
    named = [flag.long for flag in BY_COMMAND[name] if flag.program and recorded.params.get(flag.dest)]
    if named and not digester.keyed:
        raise UsageError(f"{path} names a program to run or a kubeconfig ({', '.join(named)}), and it was sealed "
                         f"without {KEY_ENV}: whoever can write the file could have put it there",
                         f"pass the command: `helm plan verify {path} -- helm {name} ...`, or seal plans with "
                         f"{KEY_ENV} in the plan and the verify job")


def _plugin_argv(helm_command: Sequence[str], name: str, command: click.Command) -> list[str]:
    """`helm upgrade RELEASE CHART FLAGS` as the plan command's argv (`upgrade RELEASE CHART FLAGS`)."""
    if len(helm_command) < 2 or not Path(helm_command[0]).name.startswith("helm"):
        raise UsageError(f"the command to run must be `helm {name} ...`", "write it after `--`, starting with helm")
    if helm_command[1] != name:
        raise UsageError(f"the plan is of `helm {name}`, and the command is `helm {helm_command[1]}`",
                         f"run `helm {name}` with the plan's flags (helm's own flags go after `{name}`)")
    return [name, *helm_command[2:]]


def _flag(param: click.Parameter) -> str:
    if isinstance(param, click.Option):
        return max(param.opts, key=len)
    return (param.name or "").upper()


def _shown(param: click.Parameter, value: Any) -> str:
    """A value for a message: keys only for digested values, nothing for credentials."""
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if param.name in inputs.VALUE_PARAMS:
        items = [str(v).split("=(")[0] + "=..." for v in items]
    elif inputs.is_credential(param):
        items = [inputs.HIDDEN if v else "none" for v in items]
    return " ".join(str(v) for v in items) if items else "none"


def check_flags(command: click.Command, recorded: click.Context, given: click.Context) -> None:
    """Refuse a command whose flags are not the reviewed plan's, naming the first that differs."""
    skipped = not_compared(BY_COMMAND[command.name or ""])
    for param in command.params:
        name = param.name or ""
        if name in skipped:
            continue
        before, after = recorded.params.get(name), given.params.get(name)
        if before != after:
            raise UsageError(f"{_flag(param)} differs from the reviewed plan: the plan has {_shown(param, before)}, "
                             f"the command {_shown(param, after)}",
                             "run the command the plan was made with, or plan again and review it")


# -- what moved -----------------------------------------------------------------------------

def moved_inputs(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, str]]:
    """(what, how) for each recorded input that is not the same now."""
    out: list[tuple[str, str]] = []
    for key, what in (("helm_version", "helm"), ("kube_context", "context"), ("namespace", "namespace"),
                      ("helm_plan_version", "helm plan")):
        if old.get(key) != new.get(key):
            out.append((what, f"{old.get(key) or '(none)'} then, {new.get(key) or '(none)'} now"))
    before, after = old.get("previous"), new.get("previous")
    if (before is None) != (after is None):
        out.append(("revision", "the release did not exist then, and does now" if before is None
                    else "the release existed then, and does not now"))
    elif before and after:
        if before.get("revision") != after.get("revision") or before.get("newest_revision") != after.get("newest_revision"):
            out.append(("revision", f"planned against revision {before.get('revision')} (newest "
                                    f"{before.get('newest_revision')}); now revision {after.get('revision')} (newest "
                                    f"{after.get('newest_revision')})"))
        elif before.get("digest") != after.get("digest"):
            out.append(("revision", f"revision {after.get('revision')}'s stored manifest or hooks changed"))
    chart_then, chart_now = old.get("chart") or {}, new.get("chart") or {}
    if chart_then.get("ref") != chart_now.get("ref"):
        out.append(("chart", f"{chart_then.get('ref')} then, {chart_now.get('ref')} now"))
    elif chart_then.get("digest") != chart_now.get("digest"):
        out.append(("chart", f"{chart_now.get('ref')}: its files changed"))
    files_then = {(f["flag"], f["path"]): f.get("digest") for f in old.get("files") or []}
    files_now = {(f["flag"], f["path"]): f.get("digest") for f in new.get("files") or []}
    for flag, path in sorted(set(files_then) | set(files_now)):
        what = "values" if flag in ("--values", "--set-file") else "ignore rules"
        then, now = files_then.get((flag, path)), files_now.get((flag, path))
        if (flag, path) not in files_now or (flag, path) not in files_then:
            out.append((what, f"{flag} {path} was given {'then' if (flag, path) in files_then else 'now'} only"))
        elif then is None or now is None:
            out.append((what, f"{flag} {path} cannot be read, so it cannot be checked"))
        elif then != now:
            out.append((what, f"{flag} {path}: its content changed"))
    # A record made before `render_stable` has the digest of the whole render only.
    render = "render_stable" if "render_stable" in old else "render"
    if old.get(render) != new.get(render):
        out.append(("render", "the desired manifests (resources, hooks or chart CRDs) changed"))
    live_then, live_now = old.get("live") or {}, new.get("live") or {}
    if live_then.get("read") != live_now.get("read"):
        out.append(("live", f"the live state was {'read' if live_then.get('read') else 'not read'} then, "
                            f"and is {'read' if live_now.get('read') else 'not read'} now"))
    elif live_then.get("digest") != live_now.get("digest"):
        out.append(("live", f"the live objects the plan read changed ({live_then.get('objects')} then, "
                            f"{live_now.get('objects')} now)"))
    return out


def _ref(doc: dict[str, Any]) -> tuple[str, str, str, str]:
    group = str(doc.get("api_version", "")).rpartition("/")[0]
    return group, doc.get("kind", ""), doc.get("namespace", ""), doc.get("name", "")


def _named(ref: tuple[str, str, str, str]) -> str:
    _, kind, namespace, name = ref
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def _keyed(entries: list[dict[str, Any]], key: Any) -> dict[Any, dict[str, Any]]:
    return {key(e): e for e in entries}


def _what_differs(before: dict[str, Any], after: dict[str, Any]) -> str:
    """Which parts of two entries differ; for field lists, the paths (never the values)."""
    parts = []
    for name in sorted(set(before) | set(after)):
        if before.get(name) == after.get(name):
            continue
        if name in ("fields", "ignored_fields") and isinstance(before.get(name), list):
            then = {f.get("path"): f for f in before.get(name) or []}
            now = {f.get("path"): f for f in after.get(name) or []}
            paths = sorted(p for p in set(then) | set(now) if then.get(p) != now.get(p))
            parts.append(f"{name} at {', '.join(paths[:5])}{' ...' if len(paths) > 5 else ''}")
        else:
            parts.append(name)
    return ", ".join(parts)


def _section(title: str, old: list[dict[str, Any]], new: list[dict[str, Any]], key: Any, label: Any,
             action: str = "action") -> list[str]:
    then, now = _keyed(old, key), _keyed(new, key)
    lines = []
    for k in [*then, *(k for k in now if k not in then)]:
        if k not in now:
            lines.append(f"  - {title} {then[k].get(action, '')} {label(k)}: only in the saved plan")
        elif k not in then:
            lines.append(f"  + {title} {now[k].get(action, '')} {label(k)}: only in the plan now")
        elif then[k] != now[k]:
            a, b = then[k].get(action, ""), now[k].get(action, "")
            verb = f"{a} then, {b} now" if a != b else a
            lines.append(f"  ~ {title} {verb} {label(k)}: {_what_differs(then[k], now[k])} differ")
    return lines


GENERATED_NAME = "(generated name)"


def _names_put(value: Any, names: Sequence[str]) -> Any:
    if isinstance(value, str):
        for name in names:
            value = value.replace(name, GENERATED_NAME)
        return value
    if isinstance(value, dict):
        return {k: _names_put(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_names_put(v, names) for v in value]
    return value


def without_regenerated(doc: dict[str, Any]) -> dict[str, Any]:
    """The plan document with what the chart makes anew on every render (core/regenerated.py)
    put as `(regenerated)`: the new value of each field change marked `regenerated` (with its
    line diff and parts), a common change one of them is said in, the `regenerated_paths` of a
    created object, and a name the chart generates wherever it appears. The mark and everything else stay: a value regenerated in
    the saved plan and fixed now (or the other way) still differs, and so does its old value."""
    doc = copy.deepcopy(doc)
    names: list[str] = []
    commons: set[int] = set()

    def settle(fields: list[dict[str, Any]] | None) -> None:
        for change in fields or []:
            if not change.get("regenerated"):
                continue
            if change.get("path") == "/metadata/name" and isinstance(change.get("after"), str) and change["after"]:
                names.append(change["after"])
            if isinstance(change.get("common"), int):
                commons.add(change["common"])
            change["after"] = inputs.REGENERATED
            for key in ("line_diff", "parts", "parts_of"):
                change.pop(key, None)

    def settle_created(entry: dict[str, Any]) -> None:
        desired = entry.get("desired")
        for path in entry.get("regenerated_paths") or []:
            if path == "/metadata/name" and isinstance(desired, dict):
                name = (desired.get("metadata") or {}).get("name")
                if isinstance(name, str) and name:
                    names.append(name)
            desired = inputs.settle(desired, str(path))
        if "desired" in entry:
            entry["desired"] = desired

    for change in [*(doc.get("changes") or []), *(doc.get("ignored") or [])]:
        settle(change.get("fields"))
        settle(change.get("ignored_fields"))
        settle_created(change)
    for task in doc.get("tasks") or []:
        for definition in task.get("definitions") or []:
            settle(definition.get("fields"))
            settle_created(definition)
    for n, common in enumerate(doc.get("common_changes") or []):
        if n in commons and isinstance(common, dict):
            common["after"] = inputs.REGENERATED
    return _names_put(doc, sorted(set(names), key=len, reverse=True)) if names else doc


def plan_difference(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The saved plan against the plan now, entry by entry (never a value: the plan prints those)."""
    lines: list[str] = []
    for key in sorted(set(old.get("header") or {}) | set(new.get("header") or {})):
        a, b = (old.get("header") or {}).get(key), (new.get("header") or {}).get(key)
        if a != b:
            lines.append(f"  ~ header {key}: {json.dumps(a)} then, {json.dumps(b)} now")
    if old.get("helm_action") != new.get("helm_action"):
        lines.append(f"  ~ helm action: {old.get('helm_action')} then, {new.get('helm_action')} now")
    change_key = lambda c: _ref(c.get("resource") or {})  # noqa: E731
    lines += _section("change", old.get("changes") or [], new.get("changes") or [], change_key, _named)
    lines += _section("ignored", old.get("ignored") or [], new.get("ignored") or [], change_key, _named)
    lines += _section("task", old.get("tasks") or [], new.get("tasks") or [], lambda t: t.get("name", ""), str)
    lines += _section("drift", old.get("drift") or [], new.get("drift") or [], change_key, _named, action="kind")
    lines += _section("chart CRD", old.get("chart_crds") or [], new.get("chart_crds") or [],
                      lambda c: c.get("source", ""), str, action="lifecycle")
    warn_then = {(w.get("code"), w.get("message")) for w in old.get("warnings") or []}
    warn_now = {(w.get("code"), w.get("message")) for w in new.get("warnings") or []}
    lines += [f"  - warning {code}: {message}" for code, message in sorted(warn_then - warn_now)]
    lines += [f"  + warning {code}: {message}" for code, message in sorted(warn_now - warn_then)]
    impact_then = {(i.get("kind"), i.get("message")) for i in old.get("impact") or []}
    impact_now = {(i.get("kind"), i.get("message")) for i in new.get("impact") or []}
    lines += [f"  - impact {kind}: {message}" for kind, message in sorted(impact_then - impact_now)]
    lines += [f"  + impact {kind}: {message}" for kind, message in sorted(impact_now - impact_then)]
    for key in ("hooks_disabled", "live", "not_checked", "summary", "format_version"):
        if old.get(key) != new.get(key):
            lines.append(f"  ~ {key.replace('_', ' ')} differs")
    return lines


# -- the command ------------------------------------------------------------------------------

# Where helm finds a chart that is not on disk: with the pulled archive in its place, none of
# them is passed (helm reads a chart on disk and ignores --version; credentials and TLS files
# are the repository's). --verify and --keyring stay: `helm pull --verify` leaves the .prov
# beside the archive, where `helm upgrade --verify` of an archive looks for it.
_FINDS_CHART = frozenset({"repo", "chart_version", "devel"}) | frozenset(
    flag.dest for flag in BY_COMMAND["upgrade"] if flag.reach is Reach.PULL and flag.dest not in ("verify", "keyring"))


def _pull(name: str, params: dict[str, Any], workdir: str, debug: bool) -> str | None:
    """The chart of an upgrade that helm would download (a repository's, a registry's, a URL),
    pulled once into `workdir`, as the plan command pulls it; None for a chart on disk."""
    if name != "upgrade":
        return None
    from deployah_plan.commands.upgrade import upgrade_options
    from deployah_plan.sources import chart as charts

    options = upgrade_options(params, debug=debug)
    if not charts.is_remote(options.chart, options.repo):
        return None
    return charts.resolve(Helm.find((), debug), options.chart, options.version, workdir, options.repo, options.devel,
                          options.source.pull_args())


def _remake(command: click.Command, argv: list[str], given: click.Context, recorded: click.Context,
            digester: Digester, debug: bool, archive: str | None) -> tuple[Plan, dict[str, Any]]:
    """The plan made again (in this process, by the command's own planner) and its record;
    with `archive`, of that pulled chart, recorded under the chart reference it was pulled by."""
    name = command.name or ""
    params = dict(given.params)
    params.update({key: recorded.params[key] for key in from_record(BY_COMMAND[name]) if key in recorded.params})
    if archive is not None:
        params.update({key: None if key != "devel" else False for key in _FINDS_CHART if key in params})
        params["chart"] = archive
    args = PlanArguments.of(name, params, debug=debug)
    planned = plan_steps.make(args, reader=FileReader(), digest_chart=True)
    record = inputs.make_record(planned.inputs, planned.plan.header, name, plan_steps.read_files(args), argv, digester,
                                regenerated=inputs.regenerated_fields(planned.plan))
    if archive is not None and record.get("chart"):
        record["chart"]["ref"] = hide_userinfo(str(given.params.get("chart")))
    return planned.plan, record


def deploy_command(run: Sequence[str], archive: str) -> list[str]:
    """The command to run, with the pulled archive as its chart (the second argument) and none
    of the flags that find a chart elsewhere; its flags spelt as helm reads them (pflag.py)."""
    table = BY_COMMAND["upgrade"]
    dropped = {flag.long for flag in table if flag.dest in _FINDS_CHART}
    out: list[str] = []
    arguments, ended = 0, False
    for token in helm_spelling(table, run[2:]):
        if not ended and token == "--":
            ended = True
            out.append(token)
        elif not ended and token.startswith("--"):
            if token.partition("=")[0] not in dropped:
                out.append(token)
        else:
            out.append(archive if arguments == 1 else token)
            arguments += 1
    return [run[0], run[1], *out]


def _unchecked(path: str, record: dict[str, Any]) -> None:
    """Refuse a file the plan read that cannot be checked now: helm reads it again when it deploys."""
    for entry in record.get("files") or []:
        if entry.get("digest") is None:
            raise UsageError(f"{entry['flag']} {entry['path']} cannot be read by verify (a URL, standard input, or a "
                             f"file that is not there), so it cannot be checked against {path}",
                             "pass a local copy to the plan and the command, or --accept-unchecked to accept the risk")


def verify_plan(group: click.Group, options: VerifyOptions) -> int:
    saved_plan = read(options.path)
    record = saved_plan.record
    name = str(record["command"])
    command = group.commands[name]
    recorded_argv = [str(a) for a in record.get("argv") or []]
    recorded = _parse(command, recorded_argv, "the recorded command")
    run = [a for a in options.command]
    if run[:1] == ["--"]:
        run = run[1:]
    if run:
        _same_helm(run[0])
        argv = _plugin_argv(run, name, command)
        redacted = inputs.redact_argv(name, argv, saved_plan.digester)
        check_flags(command, recorded, _parse(command, redacted, "the command"))
        given = _parse(command, argv, "the command")
    else:
        if inputs.hidden_values(recorded_argv):
            raise UsageError(f"{options.path} was made with --set values (it keeps only their digests) or credentials "
                             "(a password, a URL's user and password: it keeps none)",
                             f"pass the command: `helm plan verify {options.path} -- helm {name} ...`")
        check_programs(options.path, name, recorded, saved_plan.digester)
        argv = recorded_argv
        given = _parse(command, argv, "the recorded command")
        if given.params.get("namespace") is None and not _namespace_given():
            given.params["namespace"] = record.get("namespace") or None  # the plan's, not helm's default
    with private_folder("helm-plan-verify-") as workdir:  # mode 0700: this user's only; removed on a signal too
        archive = _pull(name, dict(given.params), workdir, options.debug)
        code = _check(options, saved_plan, command, argv, given, recorded, archive)
        if code != 0 or not run or options.check_only:
            return code
        return _run_helm(deploy_command(run, archive) if archive is not None else run, name, options.debug)


def _check(options: VerifyOptions, saved_plan: SavedPlan, command: click.Command, argv: list[str],
           given: click.Context, recorded: click.Context, archive: str | None) -> int:
    """Make the plan again and compare; OK when it holds, MOVED (saying what moved) when not."""
    record = saved_plan.record
    plan, record_now = _remake(command, argv, given, recorded, saved_plan.digester, options.debug, archive)
    if not options.accept_unchecked:
        _unchecked(options.path, record_now)
    show_secrets = bool(recorded.params.get("show_secrets"))
    document_now = json.loads(write.render(plan, WriteOptions(show_secrets=show_secrets)))
    moved = moved_inputs(record, record_now)
    # What the chart makes anew on every render may differ by being made anew, and by nothing else.
    difference = plan_difference(without_regenerated(saved_plan.document), without_regenerated(document_now))
    same_render = not any(what == "render" for what, _ in moved)
    # A pulled chart is deployed as pulled: it must be the archive the plan was made from.
    other_archive = archive is not None and (record.get("chart") or {}).get("digest") != (record_now.get("chart") or {}).get("digest")
    holds = not difference and same_render and not other_archive and not (options.strict and moved)

    out = sys.stdout
    header = saved_plan.document.get("header") or {}
    where = f"release {header.get('release')} in namespace {header.get('namespace')}"
    if holds:
        out.write(f"helm plan verify: {options.path} holds: the plan of {where} is the same now.\n")
        if moved:
            out.write("Moved, without changing the plan:\n")
            out.writelines(f"{log_line(f'  {what}: {how}')}\n" for what, how in moved)
    else:
        same = not difference and same_render
        out.write(f"helm plan verify: {options.path} no longer holds: " + (
            f"the plan of {where} is the same now, but the chart pulled now is not the archive it was made from.\n"
            if same and other_archive
            else f"the plan of {where} is the same now, but its inputs moved (--strict).\n" if same
            else f"the plan of {where} is not the same now.\n"))
        out.write("What moved:\n")
        out.writelines([f"{log_line(f'  {what}: {how}')}\n" for what, how in moved] or ["  (no recorded input)\n"])
        if difference:
            out.write("Plan difference (the saved plan, then the plan now):\n")
            out.writelines(f"{log_line(line)}\n" for line in difference)  # names and messages from the chart
        elif not same_render:
            out.write("The plan prints the same, but the desired render differs (a Secret value, which the plan masks).\n")
    out.flush()
    if not holds:
        named = ", ".join(dict.fromkeys(what for what, _ in moved)) or "the plan"
        say(log_line(f"helm plan: {options.path} no longer holds ({named} moved); plan again and review it"))
        return Exit.MOVED
    return Exit.OK


def _namespace_given() -> bool:
    """Whether helm was given -n: it hands a plugin HELM_NAMESPACE always, its default when
    there was no -n, so only a namespace other than that default tells."""
    namespace = os.environ.get("HELM_NAMESPACE")
    return bool(namespace) and namespace != helm_default_namespace()


def _same_helm(program: str) -> None:
    """The command's helm must be the one the plan is checked with (HELM_BIN): a deploy by any
    other would not be the deploy that was checked."""
    if Path(program).name == "helm":
        return
    checked = Helm.find().binary
    found = shutil.which(program)
    if found is None or os.path.realpath(found) != os.path.realpath(checked):
        raise UsageError(f"the command runs {program}, but the plan is checked with {checked}",
                         f"start the command with `helm` (the helm running helm plan), or run helm plan with "
                         f"HELM_BIN={program}")


def _run_helm(run: Sequence[str], name: str, debug: bool) -> int:
    """The reviewed command, run by helm; its exit code is verify's."""
    binary = Helm.find().binary if Path(run[0]).name == "helm" else run[0]
    say(f"helm plan: the plan holds; running helm {name}")
    sys.stdout.flush()
    try:
        return subprocess.run([binary, *run[1:]], check=False).returncode
    except OSError as err:
        raise HelmError(f"could not run {binary}: {err.strerror}", "check that HELM_BIN or PATH names a working helm") from None


__all__ = ["VerifyOptions", "check_flags", "moved_inputs", "plan_difference", "read", "verify_plan",
           "without_regenerated"]
