"""The command line as click reads it: help, usage errors, completion, the commands other than a
plan command line command_line.py reads without click; dispatch to one command function. click's
own usage errors are worded here (`_run`); a command's errors become one line and an exit code
in command_line.guarded, the one place both paths share. What a plan command does is
commands/plan_steps.py; its flags are declared in flags.py, its typed arguments made in
commands/arguments.py, and the exit codes are console.py's `Exit` (docs/output.md has the same
table, each code's meaning).
"""
from __future__ import annotations

import os
import sys
from typing import Any, Callable, Sequence, TypeVar

import click

# Only what every command line needs is imported here: a command's own modules are imported
# when it runs, so `--help` or one command does not load the others (nor yaml, the planner, the
# writers it does not print with).
from deployah_plan import flags
from deployah_plan.command_line import Session as _Session, debug_enabled as _debug_enabled, guarded
from deployah_plan.console import Exit, say
from deployah_plan.errors import UsageError
from deployah_plan.helptext import GroupedCommand, prog_name
from deployah_plan.escape import log_line
from deployah_plan.render.writers import FORMATS
from deployah_plan.sources.early import HelmCalls

_F = TypeVar("_F", bound=Callable[..., Any])


def _remember_debug(ctx: click.Context, _param: click.Parameter, flag: bool) -> bool:
    """Keeps the --debug decision where `_run` finds it if the command fails: the flag is read
    once, by click, and HELM_DEBUG (helm's own --debug) once, here."""
    session = ctx.find_object(_Session)
    if session is not None:
        session.debug = _debug_enabled(flag)
        from deployah_plan import progress

        progress.show_with_debug(session.debug)
    return flag


def _options(table: Sequence[flags.Flag]) -> Callable[[_F], _F]:
    return flags.click_options(table, choices={"output": FORMATS}, callbacks={"debug": _remember_debug})


def _plan(name: str, params: dict[str, Any]) -> int:
    """Dispatch a plan command to its steps, with the argv it was given."""
    ctx = click.get_current_context()
    session = ctx.find_object(_Session)
    argv = session.argv if session is not None else [name]
    from deployah_plan.commands.arguments import PlanArguments
    from deployah_plan.commands.plan_steps import run_plan

    return run_plan(PlanArguments.of(name, params, debug=_debug_enabled(params["debug"])), argv,
                    calls=session.calls if session is not None else None)


class _Commands(click.Group):
    """The subcommands in the order a reader needs them (upgrade first), then examples."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        prog = ctx.info_name or "helm plan"
        with formatter.section("Examples"):
            for line in _MAIN_EXAMPLES.strip("\n").splitlines():
                formatter.write(" " * formatter.current_indent + line.replace("{prog}", prog) + "\n")
        formatter.write_paragraph()
        formatter.write_text(f"Run `{prog} COMMAND --help` for a command's flags and examples.")


_MAIN_EXAMPLES = """
# any helm upgrade command line, with helm plan in front:
{prog} upgrade --install shop ./chart -n shop -f values.yaml --atomic --wait
{prog} upgrade shop ./chart -o markdown --out plan.json
# no cluster, no release store: two rendered files
{prog} diff base.yaml head.yaml --release shop
{prog} rollback shop 3
{prog} show plan.json
"""


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=lambda ctx, _param, given: _version(ctx, given),
              help="Show the version and exit.")
def main_group() -> None:
    """See exactly what helm upgrade, install, rollback or uninstall is about to do, before it
    does it. Nothing is ever written to the cluster."""


_UPGRADE_EXAMPLES = """
# paste your deploy command after `helm plan`:
{prog} upgrade --install ingress-nginx ./ingress-nginx -n ingress-nginx --create-namespace
{prog} upgrade shop ./chart -f values-prod.yaml --set image.tag=1.27 --atomic --wait --timeout 10m
# a chart from a repository or an OCI registry:
{prog} upgrade web oci://registry.example.com/charts/web --version 1.4.0 --username ci --password "$TOKEN"
# a kustomize post-renderer (Helm 4: the name of a postrenderer plugin):
{prog} upgrade shop ./chart --post-renderer ./kustomize.sh --post-renderer-args overlays/prod
# for CI: exit 2 when something changes, 3 when a PVC would be deleted; keep the JSON plan
{prog} upgrade shop ./chart --detailed-exitcode --fail-on delete:PersistentVolumeClaim --out plan.json
"""


@main_group.command("upgrade", cls=GroupedCommand, groups=flags.help_groups(flags.UPGRADE, flags.UPGRADE_GROUPS),
                    examples=_UPGRADE_EXAMPLES, table=flags.UPGRADE,
                    short_help="Plan helm upgrade --install RELEASE CHART.")
@click.argument("release")
@click.argument("chart")
@_options(flags.UPGRADE)
def upgrade_command(**params: Any) -> int:
    """Plan `helm upgrade --install RELEASE CHART` (an install when the release does not exist).

    Takes every flag of `helm upgrade`, Helm 3's or Helm 4's as the helm at hand has them: put
    `helm plan` in front of a deploy command to plan it. Values and chart flags work as in helm;
    the rendering flags (post-renderer, schema validation, ...) are passed to the render, offline
    (`helm template`) or by the cluster (`helm upgrade --dry-run=server`); what helm does is
    planned as it does it; the waiting and reporting flags are accepted and change nothing,
    except that the plan notes what --atomic and --wait-for-jobs will do."""
    return _plan("upgrade", params)


@main_group.command("rollback", cls=GroupedCommand, short_help="Plan helm rollback RELEASE [REVISION].",
                    table=flags.ROLLBACK,
                    examples="""
{prog} rollback shop            # back to the revision before the newest
{prog} rollback shop 3 -n shop -o markdown
""")
@click.argument("release")
@click.argument("revision", type=click.IntRange(min=0), default=0, required=False)
@_options(flags.ROLLBACK)
def rollback_command(**params: Any) -> int:
    """Plan `helm rollback RELEASE [REVISION]` (REVISION omitted: the one before the current)."""
    return _plan("rollback", params)


@main_group.command("uninstall", cls=GroupedCommand, short_help="Plan helm uninstall RELEASE.", table=flags.UNINSTALL,
                    examples="""
{prog} uninstall shop -n shop
{prog} uninstall shop --keep-history --fail-on delete:PersistentVolumeClaim
""")
@click.argument("release")
@_options(flags.UNINSTALL)
def uninstall_command(**params: Any) -> int:
    """Plan `helm uninstall RELEASE`: what is deleted, what is kept, which hooks run."""
    return _plan("uninstall", params)


@main_group.command("revision", cls=GroupedCommand, short_help="Plan between two stored revisions of a release.",
                    table=flags.REVISION, examples="""
{prog} revision shop 4 5 -n shop       # what revision 5 changed
{prog} revision shop 4                 # what changed since revision 4
""")
@click.argument("release")
@click.argument("first", metavar="REV1", type=click.IntRange(min=1))
@click.argument("second", metavar="[REV2]", type=click.IntRange(min=0), default=0, required=False)
@_options(flags.REVISION)
def revision_command(**params: Any) -> int:
    """Plan going from stored revision REV1 of RELEASE to REV2 (omitted: the newest), the older one
    first whichever is given first. Reads the release store only: no chart, no cluster."""
    return _plan("revision", params)


@main_group.command("releases", cls=GroupedCommand, short_help="Plan between the newest revisions of two releases.",
                    table=flags.RELEASES, examples="""
{prog} releases prod/shop stage/shop   # what turning prod's shop into stage's would change
""")
@click.argument("first", metavar="RELEASE1")
@click.argument("second", metavar="RELEASE2")
@_options(flags.RELEASES)
def releases_command(**params: Any) -> int:
    """Plan turning RELEASE1's newest revision into RELEASE2's (NAME or NAMESPACE/NAME; the namespace
    defaults to -n). Reads the release store only: no chart, no cluster."""
    return _plan("releases", params)


@main_group.command("diff", cls=GroupedCommand, short_help="Plan from two rendered manifest files.", table=flags.DIFF,
                    examples="""
# in CI, with no cluster: the base branch's render against the head's
helm template shop ./chart -n shop --include-crds > head.yaml
{prog} diff base.yaml head.yaml --release shop -n shop -o markdown --detailed-exitcode
# what is installed against a new render, from standard input
helm get manifest shop > previous.yaml
helm template shop ./chart --include-crds | {prog} diff previous.yaml - --release shop
""")
@click.argument("previous", metavar="PREVIOUS")
@click.argument("desired", metavar="DESIRED")
@_options(flags.DIFF)
def diff_command(**params: Any) -> int:
    """Plan from two rendered manifest files (- reads standard input), with no cluster and no release store."""
    return _plan("diff", params)


@main_group.command("kube-upgrade", cls=GroupedCommand, short_help="Plan every release for a Kubernetes upgrade.",
                    table=flags.KUBE_UPGRADE, examples="""
{prog} kube-upgrade --kube-version 1.32 -A                # every release of the cluster
{prog} kube-upgrade --kube-version 1.32 -n shop -o markdown
{prog} kube-upgrade shop --kube-version 1.32 --fail-on failure
""")
@click.argument("release", required=False)
@flags.click_options(flags.KUBE_UPGRADE, choices={"output": flags.KUBE_UPGRADE_FORMATS},
                     callbacks={"debug": _remember_debug})
def kube_upgrade_command(**params: Any) -> int:
    """Plan what upgrading the cluster to --kube-version does to every deployed release in scope
    (or RELEASE alone): each release's stored chart rendered with its values and that version's
    capabilities, planned against its stored manifest as `helm upgrade --reuse-values` would be
    after the cluster upgrade. A summary table (ready, needs a manifest rewrite, will fail,
    changes), then each release's plan. Docs: docs/kube-upgrade.md."""
    from deployah_plan.commands.kube_upgrade import KubeUpgradeArguments, run_kube_upgrade

    session = click.get_current_context().find_object(_Session)
    return run_kube_upgrade(KubeUpgradeArguments.of(params, debug=_debug_enabled(params["debug"])),
                            calls=session.calls if session is not None else None)


@main_group.command("show", cls=GroupedCommand, short_help="Print a saved plan again.", table=flags.SHOW,
                    examples="""
{prog} upgrade shop ./chart --out plan.json
{prog} show plan.json -o markdown
{prog} show plan.json --fail-on delete   # gates on a saved plan
""")
@click.argument("saved", metavar="PLAN.json")
@_options(flags.SHOW)
def show_command(**params: Any) -> int:
    """Print a plan saved with --out (or -o json) again, as text, markdown or JSON, with no helm and no cluster.

    The output is the one the original run printed, byte for byte. Gates and --detailed-exitcode
    work as on the original run; ignore rules were applied when the plan was made.

    A plan whose seal does not match (edited after it was written) is refused, as verify refuses
    it; with --allow-edited it is shown under a warning, and no gate passes on it. A plan written
    by -o json has no seal: it is shown with a note, and refused when HELM_PLAN_KEY is set."""
    from deployah_plan.commands.arguments import ShowArguments
    from deployah_plan.commands.plan_steps import run_show

    return run_show(ShowArguments.of(params, debug=_debug_enabled(params["debug"])))


@main_group.command("verify", cls=GroupedCommand, short_help="Check that a saved plan still holds, then deploy.",
                    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
                    examples="""
{prog} upgrade shop ./chart -n shop --out plan.json          # reviewed and approved
{prog} verify plan.json                                      # exit 4 if the plan moved
{prog} verify plan.json -- helm upgrade shop ./chart -n shop # run it only if it still holds
""")
@click.argument("saved", metavar="PLAN.json")
@click.argument("command", nargs=-1, type=click.UNPROCESSED, metavar="[-- helm upgrade ...]")
@click.option("--strict", is_flag=True, help="Also fail when an input moved (chart, values, live state) but the plan is the same.")
@click.option("--check-only", is_flag=True, help="Check the plan and the command's flags, but do not run the command.")
@click.option("--accept-unchecked", is_flag=True,
              help="Run the command even with a values file verify cannot check (a URL, standard input).")
@click.option("--debug", is_flag=True, help="Print each helm call, and the traceback of an unexpected failure.")
def verify_command(saved: str, command: Sequence[str], strict: bool, check_only: bool, accept_unchecked: bool,
                   debug: bool) -> int:
    """Plan again with the inputs a plan saved with --out records, and exit 0 if the plan is the
    same, 4 if it moved (saying what moved). Given a helm command after `--`, check that its flags
    are the plan's, and run it only when the plan still holds; its exit code is passed through."""
    rest = list(command)
    while rest and rest[0] != "--" and rest[0].startswith("-"):  # verify's own flags, after PLAN.json
        flag = rest.pop(0)
        if flag not in ("--strict", "--check-only", "--accept-unchecked", "--debug"):
            raise UsageError(f"verify has no flag {flag}", "write the helm command after `--`")
        strict, check_only, debug = strict or flag == "--strict", check_only or flag == "--check-only", \
            debug or flag == "--debug"
        accept_unchecked = accept_unchecked or flag == "--accept-unchecked"
    _remember_debug(click.get_current_context(), verify_command.params[0], debug)  # --debug may follow PLAN.json
    from deployah_plan.commands.verify import VerifyOptions, verify_plan

    return verify_plan(main_group, VerifyOptions(path=saved, command=tuple(rest), strict=strict, check_only=check_only,
                                                 accept_unchecked=accept_unchecked, debug=_debug_enabled(debug)))


@main_group.command("schema", cls=GroupedCommand, short_help="Print the JSON Schema of the JSON plan.",
                    examples="""
{prog} schema > plan.schema.json
""")
def schema_command() -> int:
    """Print the JSON Schema of the JSON plan (-o json, --out)."""
    from deployah_plan.planfile.schema import schema_text

    sys.stdout.write(schema_text())
    return Exit.OK


def _version(ctx: click.Context, given: bool) -> None:
    if given and not ctx.resilient_parsing:
        from deployah_plan.version import version

        click.echo(f"helm plan, version {version()}")
        ctx.exit()


@main_group.command("version", cls=GroupedCommand, short_help="Print helm plan's version, its helm and its Python.",
                    examples="""
{prog} version
""")
def version_command() -> int:
    """Print helm plan's version, the helm and the Python it runs with, and its environment's
    folder."""
    from deployah_plan.sources.helm_commands import default_binary
    from deployah_plan.version import report

    binary = default_binary()
    helm_version = None
    if binary:
        from deployah_plan.errors import PlanError
        from deployah_plan.sources.helm import Helm

        try:
            helm_version = Helm.find().version()
        except PlanError:
            helm_version = None
    for line in report(binary, helm_version):
        click.echo(line)
    return Exit.OK


def main(argv: Sequence[str] | None = None, calls: HelmCalls | None = None) -> int:
    """Run one command line. `calls`: its helm processes, from the entry point (entry.py), which
    owns them: it catches SIGTERM and Ctrl-C and ends them. Without, they are this call's own."""
    own = calls is None
    calls = HelmCalls() if calls is None else calls
    # SIGTERM (a cancelled CI job, `kill`) and Ctrl-C end every helm process, then stop the
    # command by an exception (sources/early.py `HelmCalls.interrupt`).
    restore = calls.catch_signals() if own else None
    try:
        return _run(list(sys.argv[1:] if argv is None else argv), calls)
    finally:
        if restore is not None:
            calls.end()
            restore()


def _helm_diff(args: list[str]) -> list[str] | int:
    """The helm-diff drop-in (compat/helm-diff runs `helm-plan helm-diff ARGS`): helm-diff's
    command line as the helm plan one that answers it, or the exit code when answered here."""
    from deployah_plan.compat import helm_diff

    upgrade_flags = {name: flag.takes_value and not flag.bare for flag in flags.UPGRADE
                     for name in (*flag.names, *([flag.short] if flag.short else []))}
    translated = helm_diff.translate(args, upgrade_flags, os.environ)
    for note in translated.notes:
        say(log_line(note))
    if translated.text:
        sys.stdout.write(translated.text)
        return Exit.OK
    if not translated.allow_unreleased:
        helm_diff.require_release(translated.argv)
    return list(translated.argv)


def _run(args: list[str], calls: HelmCalls) -> int:
    session = _Session(args, calls)  # its debug is set by the --debug option's callback once click parses it

    def parsed() -> int:
        try:
            if args[:1] == ["helm-diff"]:
                answer = _helm_diff(args[1:])
                if isinstance(answer, int):
                    return answer
                session.argv = answer
            result = main_group.main(args=session.argv, prog_name=prog_name(), standalone_mode=False, obj=session)
        except click.exceptions.Exit as done:
            return done.exit_code
        except click.exceptions.Abort:
            say("helm plan: interrupted")
            return Exit.INTERRUPTED
        except click.exceptions.NoArgsIsHelpError as err:
            click.echo(err.ctx.get_help() if err.ctx else err.format_message())
            return Exit.OK
        except click.ClickException as err:
            ctx = getattr(err, "ctx", None)
            where = ctx.command_path if ctx is not None else "helm plan"
            message = err.format_message().rstrip(".")
            say(session.shown(f"helm plan: error: {message}; see `{where} --help`"))
            return Exit.ERROR
        return result if isinstance(result, int) else Exit.OK
    # A command's own errors (PlanError, an interruption, a bug): command_line.py, which runs a
    # plan command line without click, words them the same.
    return guarded(session, parsed)
