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
from deployah_plan.commands.upgrade_flags import ChartSource, DeployFlags
from deployah_plan.commands.verify import VerifyOptions, verify_plan
from deployah_plan.core.gates import Gate, check_gates, parse_gate, unevaluated
from deployah_plan.core.ignore import IgnoreRule, apply_ignore, parse_file, parse_flag
from deployah_plan.errors import PlanError, UsageError
from deployah_plan.helptext import GroupedCommand, prog_name
from deployah_plan.model import ApplyMethod, Plan
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
        click.option("-o", "--output", type=click.Choice(["text", "json", "markdown", "gitlab", "table"]), default="text",
                     show_default=True, help="How to print the plan (markdown: for a pull-request comment; "
                                             "gitlab: the counts GitLab's merge-request widget reads; "
                                             "table, helm's default, is text)."),
        click.option("--detailed-exitcode", is_flag=True,
                     help="Exit 0 when nothing changes, 2 when something does (ignored changes do not count), 1 on error."),
        click.option("--fail-on", "fail_on", multiple=True, metavar="GATE",
                     help="Exit 3 when the plan matches GATE (repeatable): create, update, delete, ACTION:KIND "
                          "(delete:PersistentVolumeClaim), crd, drift, ownership, immutable, warning:CODE."),
        click.option("--no-color", "--no-colour", "no_color", is_flag=True, help="Never colour the text output (NO_COLOR is honoured too)."),
        click.option("--show-secrets", is_flag=True, help="Print Secret values instead of hiding them."),
        click.option("--full-values", is_flag=True,
                     help="Print every value whole, and every created object in full (text and markdown "
                          "shorten a value beyond 1,000 characters and a new object beyond 40 lines)."),
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
          out: str | None = None, full_values: bool = False) -> int:
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
    if output == "json":  # (-o table, pasted from a helm command line, prints text)
        _print(json_doc.render(plan, show_secrets))
    elif output == "markdown":
        _print(markdown.render(plan, show_secrets, full_values=full_values))
    elif output == "gitlab":
        _print(gitlab.render(plan))
    else:
        _print(text.render(plan, colour=_use_colour(no_color), show_secrets=show_secrets, width=_text_width(),
                           full_values=full_values))
    matches = check_gates(plan, list(gates))
    for match in matches:
        click.echo(f"helm plan: {match}", err=True)
    for line in unevaluated(plan, list(gates)):
        click.echo(f"helm plan: {line}", err=True)
    if matches:
        return EXIT_GATE
    return EXIT_CHANGES if detailed and plan.has_changes else EXIT_OK


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
@click.version_option(package_name="deployah-plan", prog_name="helm plan")
def main_group() -> None:
    """See exactly what helm upgrade, install, rollback or uninstall is about to do, before it
    does it. Nothing is ever written to the cluster."""


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


_UPGRADE_GROUPS = [
    ("Values", ["values_files", "set_", "set_string", "set_file", "set_json", "set_literal", "reuse_values",
                "reset_values", "reset_then_reuse_values"]),
    ("Chart source", ["chart_version", "repo", "devel", "dependency_update", "username", "password", "ca_file",
                      "cert_file", "key_file", "insecure_skip_tls_verify", "plain_http", "pass_credentials", "verify",
                      "keyring"]),
    ("Rendering", ["render", "kube_version", "api_versions", "post_renderer", "post_renderer_args",
                   "skip_schema_validation", "enable_dns", "disable_openapi_validation", "skip_crds"]),
    ("What helm does", ["install", "no_hooks", "create_namespace", "take_ownership", "force", "force_replace",
                        "server_side", "force_conflicts", "history_max", "labels", "description"]),
    ("Cluster", ["namespace", "kube_context", "kubeconfig", "no_drift", "require_cluster"]),
    ("Output", ["output", "no_color", "show_secrets", "full_values", "out", "ignore", "ignore_files", "debug"]),
    ("Gates", ["detailed_exitcode", "fail_on"]),
    ("Accepted, no effect on the plan", ["wait", "wait_for_jobs", "atomic", "rollback_on_failure", "timeout",
                                         "cleanup_on_fail", "dry_run", "render_subchart_notes", "hide_notes",
                                         "hide_secret"]),
]

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


@main_group.command("upgrade", cls=GroupedCommand, groups=_UPGRADE_GROUPS, examples=_UPGRADE_EXAMPLES,
                    rewrite={"--wait": "--wait-value", "--dry-run": "--dry-run-value"},
                    short_help="Plan helm upgrade --install RELEASE CHART.")
@click.argument("release")
@click.argument("chart")
@click.option("-f", "--values", "values_files", multiple=True, metavar="FILE", help="Values file (repeatable).")
@click.option("--set", "set_", multiple=True, metavar="K=V", help="Set values on the command line (repeatable).")
@click.option("--set-string", multiple=True, metavar="K=V", help="Set STRING values (repeatable).")
@click.option("--set-file", multiple=True, metavar="K=PATH", help="Set values from files (repeatable).")
@click.option("--set-json", multiple=True, metavar="K=JSON", help="Set JSON values (repeatable).")
@click.option("--set-literal", multiple=True, metavar="K=V", help="Set a literal STRING value (repeatable).")
@click.option("--reuse-values", is_flag=True, help="Reuse the last release's values, then apply the ones given.")
@click.option("--reset-values", is_flag=True, help="Start from the chart's own values.")
@click.option("--reset-then-reuse-values", is_flag=True,
              help="Start from the chart's values, apply the last release's, then the ones given.")
@click.option("--version", "chart_version", metavar="V", help="Chart version or range, for a chart from a repository.")
@click.option("--repo", metavar="URL", help="Chart repository URL to find CHART in.")
@click.option("--devel", is_flag=True, help="Use development versions too.")
@click.option("--dependency-update", is_flag=True,
              help="Update the chart's missing dependencies before rendering (writes charts/, as helm does).")
@click.option("--username", metavar="USER", help="Chart repository username.")
@click.option("--password", metavar="PASS", help="Chart repository password (never printed, not even with --debug).")
@click.option("--ca-file", metavar="FILE", help="CA bundle for HTTPS chart repositories.")
@click.option("--cert-file", metavar="FILE", help="Client certificate for the chart repository.")
@click.option("--key-file", metavar="FILE", help="Client key for the chart repository.")
@click.option("--insecure-skip-tls-verify", is_flag=True, help="Skip TLS checks for the chart download.")
@click.option("--plain-http", is_flag=True, help="Use plain HTTP for the chart download.")
@click.option("--pass-credentials", is_flag=True, help="Pass the credentials to all domains.")
@click.option("--verify", is_flag=True, help="Verify the chart's provenance before using it.")
@click.option("--keyring", metavar="FILE", help="Public keys for --verify.")
@click.option("--render", type=click.Choice(["auto", "template", "server"]), default="auto", show_default=True,
              help="Render offline (helm template) or with the cluster (helm upgrade --dry-run=server).")
@click.option("--kube-version", metavar="V", help="Kubernetes version for Capabilities (offline render only).")
@click.option("-a", "--api-versions", multiple=True, metavar="API",
              help="API versions for Capabilities (offline render only).")
@click.option("--post-renderer", metavar="PATH|PLUGIN",
              help="Post-render the manifests (Helm 3: an executable; Helm 4: a postrenderer plugin's name).")
@click.option("--post-renderer-args", multiple=True, metavar="ARG", help="An argument to the post-renderer (repeatable).")
@click.option("--skip-schema-validation", is_flag=True, help="Do not check values against values.schema.json.")
@click.option("--enable-dns", is_flag=True, help="Let templates look up DNS names.")
@click.option("--disable-openapi-validation", is_flag=True,
              help="Do not validate the objects against the cluster's OpenAPI schema (unknown fields are dropped, "
                   "not rejected).")
@click.option("--skip-crds", is_flag=True, help="Do not install the chart's crds/ on an install.")
@click.option("-i", "--install", is_flag=True, help="Install when the release does not exist (always planned so).")
@click.option("--no-hooks", is_flag=True, help="Run no hooks.")
@click.option("--create-namespace", is_flag=True, help="On an install, create the release namespace if missing.")
@click.option("--take-ownership", is_flag=True, help="Adopt existing objects whoever owns them.")
@click.option("--force", is_flag=True, help="Replace updated objects instead of patching them (Helm 4: deprecated).")
@click.option("--force-replace", is_flag=True, help="Helm 4: replace updated objects instead of patching them.")
@click.option("--server-side", type=click.Choice(["auto", "true", "false"]), default="auto", show_default=True,
              help="Helm 4: server-side (true) or client-side (false) apply; auto follows the previous release.")
@click.option("--force-conflicts", is_flag=True, help="Helm 4: take fields other managers own (server-side apply).")
@click.option("--history-max", type=int, default=None, metavar="N",
              help="Revisions to keep; the plan names those helm deletes. [default: 10; 0: no limit]")
@click.option("-l", "--labels", multiple=True, metavar="K=V,...", help="Release labels (a value of null removes one).")
@click.option("--description", metavar="TEXT", help="The new revision's description.")
@_cluster_options
@click.option("--no-drift", is_flag=True, help="Do not read the cluster: no drift, no ownership check.")
@click.option("--require-cluster", is_flag=True, help="Fail when the live state cannot be read, instead of planning without it.")
@click.option("--wait", is_flag=True, help="Helm 3: wait for readiness; Helm 4: --wait or --wait=STRATEGY.")
@click.option("--wait-value", hidden=True)
@click.option("--wait-for-jobs", is_flag=True, help="With --wait, wait for Jobs too (the plan names them).")
@click.option("--atomic", is_flag=True, help="Roll back on failure (Helm 4: deprecated, --rollback-on-failure).")
@click.option("--rollback-on-failure", is_flag=True, help="Helm 4: roll back on failure.")
@click.option("--timeout", metavar="DURATION", help="How long helm waits for each operation.")
@click.option("--cleanup-on-fail", is_flag=True, help="Delete new objects when the upgrade fails.")
@click.option("--dry-run", is_flag=True, help="A plan never writes anyway (--dry-run=client|server too).")
@click.option("--dry-run-value", hidden=True)
@click.option("--render-subchart-notes", is_flag=True, help="Render subcharts' NOTES.txt.")
@click.option("--hide-notes", is_flag=True, help="Do not print NOTES.txt.")
@click.option("--hide-secret", is_flag=True, help="Hide Secrets in a dry run (the plan hides their values anyway).")
@_plan_options
@_output_options
def upgrade_command(**params: Any) -> int:
    """Plan `helm upgrade --install RELEASE CHART` (an install when the release does not exist).

    Takes every flag of `helm upgrade`, Helm 3's or Helm 4's as the helm at hand has them: put
    `helm plan` in front of a deploy command to plan it. Values and chart flags work as in helm;
    the rendering flags (post-renderer, schema validation, ...) are passed to the render, offline
    (`helm template`) or by the cluster (`helm upgrade --dry-run=server`); what helm does is
    planned as it does it; the waiting and reporting flags are accepted and change nothing,
    except that the plan notes what --atomic and --wait-for-jobs will do."""
    p = params
    gates = [parse_gate(g) for g in p["fail_on"]]
    rules = _ignore_rules(p["ignore"], p["ignore_files"])
    wait = p["wait_value"] if p["wait_value"] is not None else ("true" if p["wait"] else "")
    dry_run = p["dry_run_value"] if p["dry_run_value"] is not None else ("client" if p["dry_run"] else "")
    options = UpgradeOptions(
        release=p["release"], chart=p["chart"],
        values=ValueFlags(p["values_files"], p["set_json"], p["set_"], p["set_string"], p["set_file"], p["set_literal"]),
        version=p["chart_version"], repo=p["repo"], devel=p["devel"], kube_version=p["kube_version"],
        api_versions=p["api_versions"], skip_crds=p["skip_crds"], reuse_values=p["reuse_values"],
        reset_values=p["reset_values"], reset_then_reuse_values=p["reset_then_reuse_values"], render=p["render"],
        namespace=p["namespace"], kube_context=p["kube_context"], kubeconfig=p["kubeconfig"],
        debug=_debug_enabled(p["debug"]), no_drift=p["no_drift"], require_cluster=p["require_cluster"],
        take_ownership=p["take_ownership"], server_side=p["server_side"], force_conflicts=p["force_conflicts"],
        disable_openapi_validation=p["disable_openapi_validation"],
        source=ChartSource(p["username"], p["password"], p["ca_file"], p["cert_file"], p["key_file"],
                           p["insecure_skip_tls_verify"], p["plain_http"], p["pass_credentials"], p["verify"],
                           p["keyring"]),
        deploy=DeployFlags(
            install=p["install"], no_hooks=p["no_hooks"], create_namespace=p["create_namespace"],
            post_renderer=p["post_renderer"], post_renderer_args=p["post_renderer_args"], force=p["force"],
            force_replace=p["force_replace"], history_max=p["history_max"], labels=p["labels"],
            dependency_update=p["dependency_update"], skip_schema_validation=p["skip_schema_validation"],
            enable_dns=p["enable_dns"],
            description=p["description"], wait=wait, wait_for_jobs=p["wait_for_jobs"], atomic=p["atomic"],
            rollback_on_failure=p["rollback_on_failure"], timeout=p["timeout"], cleanup_on_fail=p["cleanup_on_fail"],
            dry_run=dry_run, render_subchart_notes=p["render_subchart_notes"], hide_notes=p["hide_notes"],
            hide_secret=p["hide_secret"]),
    )
    recorder = inputs.current()
    if recorder is not None:  # the inputs are digested only for a record: --out, or verify
        recorder.needed = bool(p["out"]) or recorder.sink is not None
    plan = apply_ignore(plan_upgrade(options), rules)
    return _emit(plan, p["output"], p["no_color"], p["detailed_exitcode"], p["show_secrets"], gates, p["out"],
                 p["full_values"])


@main_group.command("rollback", cls=GroupedCommand, short_help="Plan helm rollback RELEASE [REVISION].",
                    examples="""
{prog} rollback shop            # back to the revision before the newest
{prog} rollback shop 3 -n shop -o markdown
""")
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
                     show_secrets: bool, full_values: bool, debug: bool) -> int:
    """Plan `helm rollback RELEASE [REVISION]` (REVISION omitted: the one before the current)."""
    gates = [parse_gate(g) for g in fail_on]
    rules = _ignore_rules(ignore, ignore_files)
    options = RollbackOptions(release, revision, no_hooks, no_drift, require_cluster, namespace, kube_context, kubeconfig,
                              _debug_enabled(debug))
    return _emit(apply_ignore(plan_rollback(options), rules), output, no_color, detailed_exitcode, show_secrets,
                 gates, out, full_values)


@main_group.command("uninstall", cls=GroupedCommand, short_help="Plan helm uninstall RELEASE.",
                    examples="""
{prog} uninstall shop -n shop
{prog} uninstall shop --keep-history --fail-on delete:PersistentVolumeClaim
""")
@click.argument("release")
@click.option("--no-hooks", is_flag=True, help="As helm uninstall --no-hooks: no hook runs.")
@click.option("--keep-history", is_flag=True, help="As helm uninstall --keep-history.")
@_cluster_options
@_plan_options
@_output_options
def uninstall_command(release: str, no_hooks: bool, keep_history: bool, namespace: str | None,
                      kube_context: str | None, kubeconfig: str | None, out: str | None, ignore: Sequence[str],
                      ignore_files: Sequence[str], output: str, detailed_exitcode: bool, fail_on: Sequence[str],
                      no_color: bool, show_secrets: bool, full_values: bool, debug: bool) -> int:
    """Plan `helm uninstall RELEASE`: what is deleted, what is kept, which hooks run."""
    gates = [parse_gate(g) for g in fail_on]
    rules = _ignore_rules(ignore, ignore_files)
    options = UninstallOptions(release, no_hooks, keep_history, namespace, kube_context, kubeconfig,
                               _debug_enabled(debug))
    return _emit(apply_ignore(plan_uninstall(options), rules), output, no_color, detailed_exitcode, show_secrets,
                 gates, out, full_values)


@main_group.command("diff", cls=GroupedCommand, short_help="Plan from two rendered manifest files.",
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
@click.option("--apply-method", type=click.Choice([m.value for m in ApplyMethod]), default=ApplyMethod.CSA.value,
              show_default=True,
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
                 fail_on: Sequence[str], no_color: bool, show_secrets: bool, full_values: bool, debug: bool) -> int:
    """Plan from two rendered manifest files (- reads standard input), with no cluster and no release store."""
    gates = [parse_gate(g) for g in fail_on]
    reader = Inputs()
    rules = _ignore_rules(ignore, ignore_files, reader)
    options = DiffOptions(previous, desired, release, namespace or os.environ.get("HELM_NAMESPACE") or "default",
                          action, kind_order, skip_crds, live, take_ownership, ApplyMethod(apply_method), kube_version,
                          disable_openapi_validation, _debug_enabled(debug))
    plan = apply_ignore(plan_diff(options, reader), rules)
    return _emit(plan, output, no_color, detailed_exitcode, show_secrets, gates, out, full_values)


@main_group.command("show", cls=GroupedCommand, short_help="Print a saved plan again.",
                    examples="""
{prog} upgrade shop ./chart --out plan.json
{prog} show plan.json -o markdown
{prog} show plan.json --fail-on delete   # gates on a saved plan
""")
@click.argument("saved", metavar="PLAN.json")
@_output_options
def show_command(saved: str, output: str, detailed_exitcode: bool, fail_on: Sequence[str], no_color: bool,
                 show_secrets: bool, full_values: bool, debug: bool) -> int:
    """Print a plan saved with --out (or -o json) again, as text, markdown or JSON, with no helm and no cluster.

    The output is the one the original run printed, byte for byte. Gates and --detailed-exitcode
    work as on the original run; ignore rules were applied when the plan was made."""
    gates = [parse_gate(g) for g in fail_on]
    return _emit(read_saved_plan(saved), output, no_color, detailed_exitcode, show_secrets, gates,
                 full_values=full_values)


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
    _remember_debug(click.get_current_context(), verify_command.params[0], debug)  # --debug may follow PLAN.json
    return verify_plan(main_group, VerifyOptions(saved, tuple(rest), strict, check_only, _debug_enabled(debug)))


@main_group.command("schema", cls=GroupedCommand, short_help="Print the JSON Schema of the JSON plan.",
                    examples="""
{prog} schema > plan.schema.json
""")
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
            result = main_group.main(args=args, prog_name=prog_name(), standalone_mode=False, obj=state)
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
