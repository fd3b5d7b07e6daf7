"""The command line: parses arguments, runs one command, prints, and maps errors to exit codes.

Exit codes (the README has the same table):

    0  the plan was made (with --detailed-exitcode: nothing would change)
    1  an error; one line on stderr says what is wrong and what to do next
    2  with --detailed-exitcode only: something would change (ignored changes do not count)
    3  a --fail-on gate matched; stderr names each gate and what matched it
    4  helm plan verify: the saved plan no longer holds (what moved is printed)

An error wins over everything; a matched gate wins over 2, so a CI job that passes both
--detailed-exitcode and --fail-on sees 3 when a gate matches, else 2 or 0. The plan is
printed (and --out written) before the gates are checked, so a blocked plan can still be read.
"""
from __future__ import annotations

import gc
import os
import shutil
import sys
import traceback
from typing import Any, Callable, Sequence

import click

from deployah_plan import inputs
from deployah_plan.commands.diff import DiffOptions, plan_diff
from deployah_plan.commands.rollback import RollbackOptions, plan_rollback
from deployah_plan.commands.show import read_saved_plan, schema_text, write_saved_plan
from deployah_plan.commands.uninstall import UninstallOptions, plan_uninstall
from deployah_plan.commands.upgrade import UpgradeOptions, ValueFlags, plan_upgrade
from deployah_plan.commands.verify import VerifyOptions, verify_plan
from deployah_plan.core.gates import Gate, check_gates, parse_gate, unevaluated
from deployah_plan.core.ignore import IgnoreRule, apply_ignore, parse_file, parse_flag
from deployah_plan.errors import PlanError, UsageError
from deployah_plan.model import Plan
from deployah_plan.render import gitlab, json_doc, markdown, text
from deployah_plan.sources.files import Inputs, describe

EXIT_OK, EXIT_ERROR, EXIT_CHANGES, EXIT_GATE = 0, 1, 2, 3


def _debug_enabled(flag: bool) -> bool:
    return flag or os.environ.get("HELM_DEBUG", "").lower() in ("1", "true")


def _remember_debug(ctx: click.Context, _param: click.Parameter, flag: bool) -> bool:
    """Keeps the --debug decision where `_run` finds it if the command fails: the flag is read
    once, by click, and HELM_DEBUG (helm's own --debug) once, here."""
    if isinstance(ctx.obj, dict):
        ctx.obj["debug"] = _debug_enabled(flag)
    return flag


def _use_colour(no_color: bool) -> bool:
    """Colour only on a terminal that draws it: not with --no-color, NO_COLOR or TERM=dumb."""
    return (not no_color and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"
            and sys.stdout.isatty())


def _text_width() -> int | None:
    """Wrap text at the terminal's width (COLUMNS overrides it, as shutil reads it); never when
    the output goes to a pipe or a file, so what a script or a CI log gets does not depend on
    the terminal it was started from."""
    if not sys.stdout.isatty():
        return None
    return max(shutil.get_terminal_size().columns, 40)


def _output_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The flags every command that prints a plan takes."""
    for option in reversed([
        click.option("-o", "--output", type=click.Choice(["text", "json", "markdown", "gitlab"]), default="text",
                     show_default=True, help="How to print the plan (markdown: for a pull-request comment; "
                                             "gitlab: the counts GitLab's merge-request widget reads)."),
        click.option("--detailed-exitcode", is_flag=True,
                     help="Exit 0 when nothing changes, 2 when something does (ignored changes do not count), 1 on error."),
        click.option("--fail-on", "fail_on", multiple=True, metavar="GATE",
                     help="Exit 3 when the plan matches GATE (repeatable): create, update, delete, ACTION:KIND "
                          "(delete:PersistentVolumeClaim), crd, drift, ownership, immutable, warning:CODE."),
        click.option("--no-color", "--no-colour", "no_color", is_flag=True, help="Never colour the text output (NO_COLOR is honoured too)."),
        click.option("--show-secrets", is_flag=True, help="Print Secret values instead of hiding them."),
        click.option("--debug", is_flag=True, callback=_remember_debug,
                     help="Print each helm call, and the traceback of an unexpected failure."),
    ]):
        func = option(func)
    return func


def _plan_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The flags of the commands that make a plan (not of `show`)."""
    for option in reversed([
        click.option("--out", "out", metavar="FILE", help="Also write the JSON plan to FILE, for `helm plan show`."),
        click.option("--ignore", "ignore", multiple=True, metavar="RULE",
                     help="Ignore matching changes (repeatable). RULE is YAML in Flux's shape: "
                          "'{paths: [/spec/replicas], target: {kind: Deployment, name: web}}'."),
        click.option("--ignore-file", "ignore_files", multiple=True, metavar="FILE",
                     help="Read ignore rules from FILE: a YAML list of rules, or ignore: [...] (repeatable)."),
    ]):
        func = option(func)
    return func


def _ignore_rules(flags: Sequence[str], files: Sequence[str], reader: Inputs | None = None) -> list[IgnoreRule]:
    rules = [parse_flag(flag, i) for i, flag in enumerate(flags, 1)]
    for name in files:
        content = (reader or Inputs()).read(name, "ignore file", "check the --ignore-file path")
        rules += parse_file(content, describe(name))
    return rules


def _print(document: str) -> None:
    """Write the plan to standard output; a full disk or a closed pipe is an error, in one line."""
    try:
        sys.stdout.write(document)
        sys.stdout.flush()
    except OSError as err:
        # What could not be written stays in the buffer, and the interpreter would try to
        # flush it again on exit: point standard output at nothing first.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        raise UsageError(f"cannot write the plan to standard output: {err.strerror or err}",
                         "check where standard output goes (a full disk, a closed pipe), or save it with --out FILE") from None


def _emit(plan: Plan, output: str, no_color: bool, detailed: bool, show_secrets: bool, gates: Sequence[Gate],
          out: str | None = None) -> int:
    """Print the plan (and save it, with its inputs record), then check the gates: the exit code
    of every plan command. While `helm plan verify` makes a plan again, the plan is handed to it
    instead."""
    recorder = inputs.current()
    if recorder is not None and recorder.sink is not None:
        recorder.sink.append(plan)
        return EXIT_OK
    if out:
        record = None
        if recorder is not None:
            ctx = click.get_current_context()
            record = recorder.record(ctx.command, ctx.params, plan.header)
        write_saved_plan(out, plan, show_secrets, record, recorder.digester if recorder else None)
    if output == "json":
        _print(json_doc.render(plan, show_secrets))
    elif output == "markdown":
        _print(markdown.render(plan, show_secrets))
    elif output == "gitlab":
        _print(gitlab.render(plan))
    else:
        _print(text.render(plan, colour=_use_colour(no_color), show_secrets=show_secrets, width=_text_width()))
    matches = check_gates(plan, list(gates))
    for match in matches:
        click.echo(f"helm plan: {match}", err=True)
    for line in unevaluated(plan, list(gates)):
        click.echo(f"helm plan: {line}", err=True)
    if matches:
        return EXIT_GATE
    return EXIT_CHANGES if detailed and plan.has_changes else EXIT_OK


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="deployah-plan", prog_name="helm plan")
def main_group() -> None:
    """helm plan: see exactly what helm upgrade or helm install is about to do, before it does it."""


@main_group.command("upgrade")
@click.argument("release")
@click.argument("chart")
@click.option("-f", "--values", "values_files", multiple=True, metavar="FILE", help="Values file (repeatable).")
@click.option("--set", "set_", multiple=True, metavar="K=V", help="Set values on the command line (repeatable).")
@click.option("--set-string", multiple=True, metavar="K=V", help="Set STRING values (repeatable).")
@click.option("--set-file", multiple=True, metavar="K=PATH", help="Set values from files (repeatable).")
@click.option("--set-json", multiple=True, metavar="K=JSON", help="Set JSON values (repeatable).")
@click.option("--set-literal", multiple=True, metavar="K=V", help="Set a literal STRING value (repeatable).")
@click.option("--version", "chart_version", metavar="V", help="Chart version, for a chart from a repository.")
@click.option("--repo", metavar="URL", help="Chart repository URL to find CHART in (as helm upgrade --repo).")
@click.option("--devel", is_flag=True, help="Use development versions too (as helm upgrade --devel).")
@click.option("--kube-version", metavar="V", help="Kubernetes version for Capabilities (offline render only).")
@click.option("-a", "--api-versions", multiple=True, metavar="API", help="API versions for Capabilities (offline render only).")
@click.option("--skip-crds", is_flag=True, help="Plan as if helm upgrade --install --skip-crds.")
@click.option("--reuse-values", is_flag=True, help="As helm upgrade --reuse-values.")
@click.option("--reset-values", is_flag=True, help="As helm upgrade --reset-values.")
@click.option("--reset-then-reuse-values", is_flag=True, help="As helm upgrade --reset-then-reuse-values.")
@click.option("--render", type=click.Choice(["auto", "template", "server"]), default="auto", show_default=True,
              help="Render the desired state offline (helm template) or with the cluster (helm upgrade --dry-run=server).")
@click.option("-n", "--namespace", metavar="NS", help="Release namespace (helm passes its -n as HELM_NAMESPACE).")
@click.option("--kube-context", metavar="NAME", help="Kubeconfig context (helm passes it as HELM_KUBECONTEXT).")
@click.option("--kubeconfig", metavar="PATH", help="Kubeconfig file (helm passes it as KUBECONFIG).")
@click.option("--no-drift", is_flag=True, help="Do not read the cluster: no drift, no ownership check.")
@click.option("--require-cluster", is_flag=True, help="Fail when the live state cannot be read, instead of planning without it.")
@click.option("--take-ownership", is_flag=True, help="Plan as helm upgrade --take-ownership: adopt objects whoever owns them.")
@click.option("--server-side", type=click.Choice(["auto", "true", "false"]), default="auto", show_default=True,
              help="Helm 4: plan server-side (true) or client-side (false) apply; auto follows the previous release.")
@click.option("--force-conflicts", is_flag=True, help="Helm 4: as helm upgrade --force-conflicts (server-side apply).")
@click.option("--disable-openapi-validation", is_flag=True,
              help="As helm's: unknown fields are dropped instead of rejected (no strict field validation).")
@_plan_options
@_output_options
def upgrade_command(release: str, chart: str, values_files: Sequence[str], set_: Sequence[str],
                    set_string: Sequence[str], set_file: Sequence[str], set_json: Sequence[str],
                    set_literal: Sequence[str], chart_version: str | None, repo: str | None, devel: bool,
                    kube_version: str | None,
                    api_versions: Sequence[str], skip_crds: bool, reuse_values: bool, reset_values: bool,
                    reset_then_reuse_values: bool, render: str, namespace: str | None, kube_context: str | None,
                    kubeconfig: str | None, no_drift: bool, require_cluster: bool, take_ownership: bool,
                    server_side: str, force_conflicts: bool, disable_openapi_validation: bool,
                    out: str | None, ignore: Sequence[str], ignore_files: Sequence[str],
                    output: str, detailed_exitcode: bool, fail_on: Sequence[str], no_color: bool,
                    show_secrets: bool, debug: bool) -> int:
    """Plan `helm upgrade --install RELEASE CHART` (an install when the release does not exist)."""
    gates = [parse_gate(g) for g in fail_on]
    rules = _ignore_rules(ignore, ignore_files)
    options = UpgradeOptions(
        release=release, chart=chart,
        values=ValueFlags(values_files, set_json, set_, set_string, set_file, set_literal),
        version=chart_version, repo=repo, devel=devel, kube_version=kube_version, api_versions=api_versions, skip_crds=skip_crds,
        reuse_values=reuse_values, reset_values=reset_values, reset_then_reuse_values=reset_then_reuse_values,
        render=render, namespace=namespace, kube_context=kube_context, kubeconfig=kubeconfig,
        debug=_debug_enabled(debug), no_drift=no_drift, require_cluster=require_cluster, take_ownership=take_ownership,
        server_side=server_side, force_conflicts=force_conflicts,
        disable_openapi_validation=disable_openapi_validation,
    )
    plan = apply_ignore(plan_upgrade(options), rules)
    return _emit(plan, output, no_color, detailed_exitcode, show_secrets, gates, out)


def _cluster_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Where the release lives, as helm's own global flags (helm passes them to a plugin in
    HELM_NAMESPACE, HELM_KUBECONTEXT and KUBECONFIG)."""
    for option in reversed([
        click.option("-n", "--namespace", metavar="NS", help="Release namespace (helm passes its -n as HELM_NAMESPACE)."),
        click.option("--kube-context", metavar="NAME", help="Kubeconfig context (helm passes it as HELM_KUBECONTEXT)."),
        click.option("--kubeconfig", metavar="PATH", help="Kubeconfig file (helm passes it as KUBECONFIG)."),
    ]):
        func = option(func)
    return func


@main_group.command("rollback")
@click.argument("release")
@click.argument("revision", type=click.IntRange(min=0), default=0, required=False)
@click.option("--no-hooks", is_flag=True, help="As helm rollback --no-hooks: no hook runs.")
@click.option("--no-drift", is_flag=True, help="Do not read the cluster: no drift, no ownership check.")
@click.option("--require-cluster", is_flag=True, help="Fail when the live state cannot be read, instead of planning without it.")
@_cluster_options
@_plan_options
@_output_options
def rollback_command(release: str, revision: int, no_hooks: bool, no_drift: bool, require_cluster: bool,
                     namespace: str | None, kube_context: str | None,
                     kubeconfig: str | None, out: str | None, ignore: Sequence[str], ignore_files: Sequence[str],
                     output: str, detailed_exitcode: bool, fail_on: Sequence[str], no_color: bool,
                     show_secrets: bool, debug: bool) -> int:
    """Plan `helm rollback RELEASE [REVISION]` (REVISION omitted: the one before the current)."""
    gates = [parse_gate(g) for g in fail_on]
    rules = _ignore_rules(ignore, ignore_files)
    options = RollbackOptions(release, revision, no_hooks, no_drift, require_cluster, namespace, kube_context, kubeconfig,
                              _debug_enabled(debug))
    return _emit(apply_ignore(plan_rollback(options), rules), output, no_color, detailed_exitcode, show_secrets,
                 gates, out)


@main_group.command("uninstall")
@click.argument("release")
@click.option("--no-hooks", is_flag=True, help="As helm uninstall --no-hooks: no hook runs.")
@click.option("--keep-history", is_flag=True, help="As helm uninstall --keep-history.")
@_cluster_options
@_plan_options
@_output_options
def uninstall_command(release: str, no_hooks: bool, keep_history: bool, namespace: str | None,
                      kube_context: str | None, kubeconfig: str | None, out: str | None, ignore: Sequence[str],
                      ignore_files: Sequence[str], output: str, detailed_exitcode: bool, fail_on: Sequence[str],
                      no_color: bool, show_secrets: bool, debug: bool) -> int:
    """Plan `helm uninstall RELEASE`: what is deleted, what is kept, which hooks run."""
    gates = [parse_gate(g) for g in fail_on]
    rules = _ignore_rules(ignore, ignore_files)
    options = UninstallOptions(release, no_hooks, keep_history, namespace, kube_context, kubeconfig,
                               _debug_enabled(debug))
    return _emit(apply_ignore(plan_uninstall(options), rules), output, no_color, detailed_exitcode, show_secrets,
                 gates, out)


@main_group.command("diff")
@click.argument("previous", metavar="PREVIOUS")
@click.argument("desired", metavar="DESIRED")
@click.option("--release", default="release", show_default=True, help="Release name, for the header.")
@click.option("-n", "--namespace", default=None, metavar="NS",
              help="Release namespace: given to namespaced objects that declare none. [default: HELM_NAMESPACE or default]")
@click.option("--action", type=click.Choice(["auto", "install", "upgrade"]), default="auto", show_default=True,
              help="auto: install when PREVIOUS is empty, else upgrade.")
@click.option("--kind-order", type=click.Choice(["auto", "helm3", "helm4"]), default="auto", show_default=True,
              help="Whose kind order to apply in; auto asks the helm at hand (Helm 3 when there is none).")
@click.option("--skip-crds", is_flag=True, help="Plan an install as with --skip-crds.")
@click.option("--live", metavar="FILE", help="Live state saved by `kubectl get ... -o yaml` (a List or YAML documents; "
              "- reads standard input): adds drift and ownership.")
@click.option("--take-ownership", is_flag=True, help="Plan as helm upgrade --take-ownership.")
@click.option("--apply-method", type=click.Choice(["csa", "ssa"]), default="csa", show_default=True,
              help="How the release was applied: client-side (Helm 3) or server-side (Helm 4 default).")
@click.option("--kube-version", metavar="V", help="Judge the objects against this Kubernetes version: kinds it "
              "serves, their schemas (predicted failures).")
@click.option("--disable-openapi-validation", is_flag=True,
              help="As helm's: unknown fields are dropped instead of rejected (with --kube-version).")
@_plan_options
@_output_options
def diff_command(previous: str, desired: str, release: str, namespace: str | None, action: str, kind_order: str,
                 skip_crds: bool, live: str | None, take_ownership: bool, apply_method: str,
                 kube_version: str | None, disable_openapi_validation: bool, out: str | None,
                 ignore: Sequence[str], ignore_files: Sequence[str], output: str, detailed_exitcode: bool,
                 fail_on: Sequence[str], no_color: bool, show_secrets: bool, debug: bool) -> int:
    """Plan from two rendered manifest files (- reads standard input), with no cluster and no release store."""
    gates = [parse_gate(g) for g in fail_on]
    reader = Inputs()
    rules = _ignore_rules(ignore, ignore_files, reader)
    options = DiffOptions(previous, desired, release, namespace or os.environ.get("HELM_NAMESPACE") or "default",
                          action, kind_order, skip_crds, live, take_ownership, apply_method, kube_version,
                          disable_openapi_validation, _debug_enabled(debug))
    plan = apply_ignore(plan_diff(options, reader), rules)
    return _emit(plan, output, no_color, detailed_exitcode, show_secrets, gates, out)


@main_group.command("show")
@click.argument("saved", metavar="PLAN.json")
@_output_options
def show_command(saved: str, output: str, detailed_exitcode: bool, fail_on: Sequence[str], no_color: bool,
                 show_secrets: bool, debug: bool) -> int:
    """Print a plan saved with --out (or -o json) again, as text, markdown or JSON, with no helm and no cluster.

    The output is the one the original run printed, byte for byte. Gates and --detailed-exitcode
    work as on the original run; ignore rules were applied when the plan was made."""
    gates = [parse_gate(g) for g in fail_on]
    return _emit(read_saved_plan(saved), output, no_color, detailed_exitcode, show_secrets, gates)


@main_group.command("verify", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.argument("saved", metavar="PLAN.json")
@click.argument("command", nargs=-1, type=click.UNPROCESSED, metavar="[-- helm upgrade ...]")
@click.option("--strict", is_flag=True, help="Also fail when an input moved (chart, values, live state) but the plan is the same.")
@click.option("--check-only", is_flag=True, help="Check the plan and the command's flags, but do not run the command.")
@click.option("--debug", is_flag=True, help="Print each helm call, and the traceback of an unexpected failure.")
def verify_command(saved: str, command: Sequence[str], strict: bool, check_only: bool, debug: bool) -> int:
    """Plan again with the inputs a plan saved with --out records, and exit 0 if the plan is the
    same, 4 if it moved (saying what moved). Given a helm command after `--`, check that its flags
    are the plan's, and run it only when the plan still holds; its exit code is passed through."""
    rest = list(command)
    while rest and rest[0] != "--" and rest[0].startswith("-"):  # verify's own flags, after PLAN.json
        flag = rest.pop(0)
        if flag not in ("--strict", "--check-only", "--debug"):
            raise UsageError(f"verify has no flag {flag}", "write the helm command after `--`")
        strict, check_only, debug = strict or flag == "--strict", check_only or flag == "--check-only", \
            debug or flag == "--debug"
    return verify_plan(main_group, VerifyOptions(saved, tuple(rest), strict, check_only, _debug_enabled(debug)))


@main_group.command("schema")
def schema_command() -> int:
    """Print the JSON Schema of the JSON plan (-o json, --out)."""
    sys.stdout.write(schema_text())
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    # One command per process, building millions of small acyclic containers (parsed
    # manifests, field changes) that reference counting frees: the cyclic collector's passes
    # over them cost a fifth of a 6,000-object plan and grow faster than the input, so it is
    # paused for the command and restored after.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run(list(sys.argv[1:] if argv is None else argv))
    finally:
        if collecting:
            gc.enable()


def _run(args: list[str]) -> int:
    state: dict[str, bool] = {}  # filled by the --debug option's callback once click parses it
    try:
        with inputs.recording(inputs.Recorder(args, inputs.Digester.new())):
            result = main_group.main(args=args, prog_name="helm plan", standalone_mode=False, obj=state)
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.exceptions.Abort:
        click.echo("helm plan: interrupted", err=True)
        return 130
    except click.exceptions.NoArgsIsHelpError as err:
        click.echo(err.ctx.get_help() if err.ctx else err.format_message())
        return EXIT_OK
    except click.ClickException as err:
        ctx = getattr(err, "ctx", None)
        where = ctx.command_path if ctx is not None else "helm plan"
        message = err.format_message().rstrip(".")
        click.echo(f"helm plan: error: {message}; see `{where} --help`", err=True)
        return EXIT_ERROR
    except PlanError as err:
        click.echo(f"helm plan: error: {err}", err=True)
        return EXIT_ERROR
    except KeyboardInterrupt:
        click.echo("helm plan: interrupted", err=True)
        return 130
    except Exception as err:  # a bug: say so in one line, with the traceback only on request
        if state.get("debug", _debug_enabled(False)):
            traceback.print_exc()
        click.echo(f"helm plan: internal error: {type(err).__name__}: {err} (run with --debug for the traceback, "
                   "and please report it)", err=True)
        return EXIT_ERROR
    return result if isinstance(result, int) else EXIT_OK
