"""Every flag of the plan commands, declared once.

A `Flag` says how it is spelt (helm's pflag terms: long names, a short name, whether it takes a
value, whether it repeats, a value it takes when given bare), where it goes (`dest`: the parsed
parameter's name; `into` and `attr`: the request field it fills), how its `--help` shows it
(help, metavar, `group`), how it reaches helm (`reach`), and whether `helm plan verify` compares
it with the reviewed plan's (`verify`). Derived from it, never written again:

- the click options of each command (`click_options`) and `helm plan upgrade --help`'s groups
  (`help_groups`);
- how a command line is read: by helm's pflag rules (pflag.py), from each flag's names, short
  name, whether it takes or repeats a value, its optional (`bare`) value and `split`;
- the request objects' fields (`request_fields`: UpgradeOptions and its parts, RollbackOptions, ...);
- the helm argument lists (`helm_args`: values, render, dry-run-only and pull flags);
- verify's comparison (`not_compared`, `from_record`), and what verify takes only from a command
  or a keyed plan (`program`: a program helm runs, a kubeconfig).

A new `helm upgrade` flag is one entry in `UPGRADE`, plus what it does in the planner when it
changes more than helm's arguments.
"""
from __future__ import annotations

import enum

TYPE_CHECKING = False  # typing is not imported before the first helm call (sources/early.py)
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Mapping, NamedTuple, Sequence, TypeVar
else:
    from deployah_plan.startup import NamedTuple



class Reach(enum.Enum):
    """How a flag's value reaches helm."""

    NONE = "none"  # it changes the plan or how it is printed; never given to helm as is
    VALUES = "values"  # a values flag: to `helm template` and `helm upgrade --dry-run=server`
    RENDER = "render"  # changes the rendered objects: to both renders, as given
    SERVER_RENDER = "server-render"  # to `helm upgrade --dry-run=server` only (offline, the planner does its work)
    TEMPLATE = "template"  # to `helm template` only, with what the planner adds to it (--api-versions)
    PULL = "pull"  # to the `helm pull` that fetches a chart from a repository or a registry


class Split(enum.Enum):
    """How helm's pflag reads one occurrence of a repeatable flag's value."""

    NONE = "none"  # StringArray (--set, --set-file, ...) and the plugin's own: the value as given
    CSV = "csv"  # StringSlice (-f, -a): comma-separated, read as CSV (`-f a.yaml,b.yaml` is two files)
    PAIRS = "pairs"  # StringToString (--labels): key=value pairs, comma-separated


class Verify(enum.Enum):
    """What `helm plan verify` does with a flag of the command it is asked to run."""

    COMPARE = "compare"  # must equal the reviewed plan's
    FROM_RECORD = "from-record"  # helm plan's own (helm does not take it): the reviewed plan's value is used
    NOT_COMPARED = "not-compared"  # how to print, where the release is (compared as resolved), --install


# The table is made of named tuples, not msgspec Structs or dataclasses: it is read before the
# plan's first helm calls start (sources/early.py), and msgspec's import (15 ms) or dataclasses'
# (inspect, 10 ms) would hold them back.

class Choice(NamedTuple):
    """A value that must be one of `names` (a click.Choice on the command line)."""

    names: tuple[str, ...]


class AtLeast(NamedTuple):
    """A whole number no smaller than `minimum` (a click.IntRange on the command line)."""

    minimum: int


class Flag(NamedTuple):
    """One flag, declared with keywords. `takes_value` False: a switch. `bare` set: the value is
    optional, as pflag's NoOptDefVal (`--wait` means `--wait=true`; `--wait VALUE`
    never takes VALUE)."""

    names: tuple[str, ...]  # long names, the first the one shown and passed to helm
    dest: str
    short: str = ""
    takes_value: bool = True
    repeatable: bool = False
    bare: str = ""
    type: type[int] | Choice | AtLeast | None = None  # of a value other than text
    default: Any = None
    show_default: bool = False
    metavar: str | None = None
    help: str = ""
    group: str = ""  # the heading `--help` lists it under (commands with groups)
    reach: Reach = Reach.NONE
    verify: Verify = Verify.COMPARE
    into: str = ""  # the request part it fills ("" : the command's own options, not a request's)
    attr: str = ""  # the field there; dest when empty
    equals: bool = False  # passed to helm as --flag=VALUE (a value may start with "-")
    requires: str = ""  # passed to helm only with this other flag (its attr) set
    split: Split = Split.NONE  # how pflag splits a repeatable flag's value
    program: bool = False  # names a program helm runs, or a kubeconfig (whose user may run one)
    # Changes neither of `helm plan upgrade`'s first two helm calls (the release read, the render):
    # how the plan is printed and kept, the gates, what helm does after it renders, what the planner
    # adds. Such a flag does not keep those calls from starting before the imports (sources/early.py).
    neutral: bool = False

    @property
    def long(self) -> str:
        return self.names[0]

    @property
    def field(self) -> str:
        return self.attr or self.dest

    @property
    def value_dest(self) -> str:
        """The hidden parameter that holds `--flag=VALUE` of a flag with an optional value."""
        return f"{self.dest}_value"


# -- shared by the commands that print a plan --------------------------------------------------

OUTPUT = Flag(names=("--output",), short="-o", dest="output", type=None, default="text", show_default=True,
              help="How to print the plan (markdown: for a pull-request comment; gitlab: the counts GitLab's "
                   "merge-request widget reads; github: failures and warnings as GitHub annotations; codequality: "
                   "the same as a GitLab Code Quality report; summary: one line per change and the counts; table, "
                   "helm's default, is text).",
              group="Output", verify=Verify.NOT_COMPARED, neutral=True)  # its choices are the writers' table (cli.py)
DETAILED_EXITCODE = Flag(names=("--detailed-exitcode",), dest="detailed_exitcode", takes_value=False, group="Gates",
                         help="Exit 0 when nothing changes, 2 when something does (ignored changes do not count), "
                              "1 on error.", verify=Verify.NOT_COMPARED, neutral=True)
FAIL_ON = Flag(names=("--fail-on",), dest="fail_on", repeatable=True, metavar="GATE", group="Gates",
               help="Exit 3 when the plan matches GATE (repeatable): create, update, delete, ACTION:KIND "
                    "(delete:PersistentVolumeClaim), crd, drift, ownership, immutable, warning:CODE.",
               verify=Verify.NOT_COMPARED, neutral=True)
NO_COLOR = Flag(names=("--no-color", "--no-colour"), dest="no_color", takes_value=False, group="Output",
                help="Never colour the text output (NO_COLOR is honoured too).", verify=Verify.NOT_COMPARED,
                neutral=True)
SHOW_SECRETS = Flag(names=("--show-secrets",), dest="show_secrets", takes_value=False, group="Output",
                    help="Print Secret values instead of hiding them.", verify=Verify.FROM_RECORD, neutral=True)
FULL_VALUES = Flag(names=("--full-values",), dest="full_values", takes_value=False, group="Output",
                   help="Print every value whole, and every created object in full (text and markdown shorten "
                        "a value beyond 1,000 characters and a new object beyond 40 lines).",
                   verify=Verify.NOT_COMPARED, neutral=True)
DEBUG = Flag(names=("--debug",), dest="debug", takes_value=False, group="Output",
             help="Print each helm call, and the traceback of an unexpected failure.", verify=Verify.NOT_COMPARED,
             neutral=True)
COLOR = Flag(names=("--color", "--colour"), dest="color", takes_value=False, group="Output",
             help="Colour the text output even when it is not a terminal (--no-color wins).", verify=Verify.NOT_COMPARED,
             neutral=True)
SUPPRESS = Flag(names=("--suppress",), dest="suppress", repeatable=True, metavar="KIND", group="Output",
                help="List objects and hooks of KIND without their field changes or content (repeatable); they still count.",
                verify=Verify.NOT_COMPARED, neutral=True)
SOURCE_ROOT = Flag(names=("--source-root",), dest="source_root", default="", metavar="DIR", group="Output",
                   help="The chart's folder in the repository, for the file paths of -o github and -o codequality "
                        "(it replaces the chart name that starts each `# Source:` path).", verify=Verify.NOT_COMPARED,
                   neutral=True)
OUTPUT_FLAGS = (OUTPUT, DETAILED_EXITCODE, FAIL_ON, NO_COLOR, COLOR, SUPPRESS, SOURCE_ROOT, SHOW_SECRETS, FULL_VALUES,
                DEBUG)

# -- shared by the commands that make a plan ---------------------------------------------------

OUT = Flag(names=("--out",), dest="out", metavar="FILE", group="Output",
           help="Also write the JSON plan to FILE, for `helm plan show`.", verify=Verify.NOT_COMPARED, neutral=True)
IGNORE = Flag(names=("--ignore",), dest="ignore", repeatable=True, metavar="RULE", group="Output",
              help="Ignore matching changes (repeatable). RULE is YAML in Flux's shape: "
                   "'{paths: [/spec/replicas], target: {kind: Deployment, name: web}}'.", verify=Verify.FROM_RECORD,
              neutral=True)
IGNORE_FILE = Flag(names=("--ignore-file",), dest="ignore_files", repeatable=True, metavar="FILE", group="Output",
                   help="Read ignore rules from FILE: a YAML list of rules, or ignore: [...] (repeatable).",
                   verify=Verify.FROM_RECORD, neutral=True)
PLAN_FLAGS = (OUT, IGNORE, IGNORE_FILE)
# The line diffs' context changes the plan's document: verify makes the plan again with the recorded one.
CONTEXT = Flag(names=("--context",), dest="line_context", type=AtLeast(0), default=2, show_default=True,
               metavar="N", group="Output", help="Unchanged lines shown around each change of a multi-line value.",
               verify=Verify.FROM_RECORD, neutral=True)

# -- where the release lives: helm's global flags (helm hands them to a plugin as HELM_NAMESPACE,
# HELM_KUBECONTEXT and KUBECONFIG), compared by verify as resolved, not as flags -------------------

NAMESPACE = Flag(names=("--namespace",), short="-n", dest="namespace", metavar="NS", group="Cluster",
                 help="Release namespace (helm passes its -n as HELM_NAMESPACE).", verify=Verify.NOT_COMPARED,
                 into="upgrade")
KUBE_CONTEXT = Flag(names=("--kube-context",), dest="kube_context", metavar="NAME", group="Cluster",
                    help="Kubeconfig context (helm passes it as HELM_KUBECONTEXT).", verify=Verify.NOT_COMPARED,
                    into="upgrade")
KUBECONFIG = Flag(names=("--kubeconfig",), dest="kubeconfig", metavar="PATH", group="Cluster",
                  help="Kubeconfig file (helm passes it as KUBECONFIG).", verify=Verify.NOT_COMPARED, into="upgrade",
                  program=True)  # its user may run an exec credential plugin
CLUSTER_FLAGS = (NAMESPACE, KUBE_CONTEXT, KUBECONFIG)
NO_DRIFT = Flag(names=("--no-drift",), dest="no_drift", takes_value=False, group="Cluster",
                help="Do not read the cluster: no drift, no ownership check.", verify=Verify.FROM_RECORD, into="upgrade",
                neutral=True)
REQUIRE_CLUSTER = Flag(names=("--require-cluster",), dest="require_cluster", takes_value=False, group="Cluster",
                       help="Fail when the live state cannot be read, instead of planning without it.",
                       verify=Verify.FROM_RECORD, into="upgrade")


def _values(names: tuple[str, ...], dest: str, metavar: str, help: str, attr: str = "", short: str = "",
            split: Split = Split.NONE) -> Flag:
    return Flag(names=names, short=short, dest=dest, repeatable=True, metavar=metavar, help=help, group="Values",
                reach=Reach.VALUES, into="values", attr=attr, split=split)


def _switch(name: str, help: str, group: str, into: str, reach: Reach = Reach.NONE, short: str = "",
            verify: Verify = Verify.COMPARE, neutral: bool = False) -> Flag:
    return Flag(names=(name,), short=short, dest=name[2:].replace("-", "_"), takes_value=False, help=help,
                group=group, into=into, reach=reach, verify=verify, neutral=neutral)


def _text(name: str, metavar: str, help: str, group: str, into: str, reach: Reach = Reach.NONE,
          dest: str = "", attr: str = "", program: bool = False, neutral: bool = False) -> Flag:
    return Flag(names=(name,), dest=dest or name[2:].replace("-", "_"), metavar=metavar, help=help, group=group,
                into=into, reach=reach, attr=attr, program=program, neutral=neutral)


_ACCEPTED = "Accepted, no effect on the plan"
# Helm 4's apply method (pkg/cmd/upgrade.go and rollback.go: a string flag, default "auto"); it
# changes neither the release read nor the render (neutral).
SERVER_SIDE = Flag(names=("--server-side",), dest="server_side", type=Choice(("auto", "true", "false")), default="auto",
                   show_default=True, group="What helm does", into="upgrade", neutral=True,
                   help="Helm 4: server-side (true) or client-side (false) apply; auto follows the newest revision.")

# `helm upgrade`'s flags (Helm 3.19's and Helm 4.3's; pkg/cmd/upgrade.go, pkg/cmd/flags.go), in
# the order `--help` lists them. `into`: "upgrade" UpgradeOptions itself, "values" ValueFlags,
# "source" ChartSource, "deploy" DeployFlags.
UPGRADE: tuple[Flag, ...] = (
    _values(("--values",), "values_files", "FILE", "Values file (repeatable).", attr="files", short="-f",
            split=Split.CSV),
    _values(("--set",), "set_", "K=V", "Set values on the command line (repeatable).", attr="set"),
    _values(("--set-string",), "set_string", "K=V", "Set STRING values (repeatable)."),
    _values(("--set-file",), "set_file", "K=PATH", "Set values from files (repeatable)."),
    _values(("--set-json",), "set_json", "K=JSON", "Set JSON values (repeatable)."),
    _values(("--set-literal",), "set_literal", "K=V", "Set a literal STRING value (repeatable)."),
    _switch("--reuse-values", "Reuse the last release's values, then apply the ones given.", "Values", "upgrade",
            Reach.SERVER_RENDER),
    _switch("--reset-values", "Start from the chart's own values.", "Values", "upgrade", Reach.SERVER_RENDER),
    _switch("--reset-then-reuse-values", "Start from the chart's values, apply the last release's, then the ones given.",
            "Values", "upgrade", Reach.SERVER_RENDER),
    _text("--version", "V", "Chart version or range, for a chart from a repository.", "Chart source", "upgrade",
          dest="chart_version", attr="version"),
    _text("--repo", "URL", "Chart repository URL to find CHART in.", "Chart source", "upgrade"),
    _switch("--devel", "Use development versions too.", "Chart source", "upgrade"),
    _switch("--dependency-update", "Update the chart's missing dependencies before rendering (writes charts/, as "
            "helm does).", "Chart source", "deploy", Reach.RENDER),
    _text("--username", "USER", "Chart repository username.", "Chart source", "source", Reach.PULL),
    _text("--password", "PASS", "Chart repository password (never printed, not even with --debug).", "Chart source",
          "source", Reach.PULL),
    _text("--ca-file", "FILE", "CA bundle for HTTPS chart repositories.", "Chart source", "source", Reach.PULL),
    _text("--cert-file", "FILE", "Client certificate for the chart repository.", "Chart source", "source", Reach.PULL),
    _text("--key-file", "FILE", "Client key for the chart repository.", "Chart source", "source", Reach.PULL),
    _switch("--insecure-skip-tls-verify", "Skip TLS checks for the chart download.", "Chart source", "source",
            Reach.PULL),
    _switch("--plain-http", "Use plain HTTP for the chart download.", "Chart source", "source", Reach.PULL),
    _switch("--pass-credentials", "Pass the credentials to all domains.", "Chart source", "source", Reach.PULL),
    _switch("--verify", "Verify the chart's provenance before using it.", "Chart source", "source", Reach.PULL),
    _text("--keyring", "FILE", "Public keys for --verify.", "Chart source", "source", Reach.PULL),
    Flag(names=("--render",), dest="render", type=Choice(("auto", "template", "server")), default="auto",
         show_default=True, group="Rendering", into="upgrade", verify=Verify.FROM_RECORD,
         help="Render offline (helm template) or with the cluster (helm upgrade --dry-run=server)."),
    _text("--kube-version", "V", "Kubernetes version for Capabilities (offline render only).", "Rendering", "upgrade",
          Reach.TEMPLATE),
    Flag(names=("--api-versions",), short="-a", dest="api_versions", repeatable=True, metavar="API",
         help="API versions for Capabilities (offline render only).", group="Rendering", into="upgrade",
         reach=Reach.TEMPLATE, split=Split.CSV),
    _text("--post-renderer", "PATH|PLUGIN", "Post-render the manifests (Helm 3: an executable; Helm 4: a "
          "postrenderer plugin's name).", "Rendering", "deploy", Reach.RENDER, program=True),
    Flag(names=("--post-renderer-args",), dest="post_renderer_args", repeatable=True, metavar="ARG",
         help="An argument to the post-renderer (repeatable).", group="Rendering", into="deploy", reach=Reach.RENDER,
         equals=True, requires="post_renderer"),
    _switch("--skip-schema-validation", "Do not check values against values.schema.json.", "Rendering", "deploy",
            Reach.RENDER),
    _switch("--enable-dns", "Let templates look up DNS names.", "Rendering", "deploy", Reach.RENDER),
    _switch("--disable-openapi-validation", "Do not validate the objects against the cluster's OpenAPI schema "
            "(unknown fields are dropped, not rejected).", "Rendering", "upgrade", Reach.SERVER_RENDER),
    _switch("--skip-crds", "Do not install the chart's crds/ on an install.", "Rendering", "upgrade",
            Reach.SERVER_RENDER),
    # A plan of `helm plan upgrade` is always one of --install.
    _switch("--install", "Install when the release does not exist (always planned so).", "What helm does", "deploy",
            short="-i", verify=Verify.NOT_COMPARED, neutral=True),
    _switch("--no-hooks", "Run no hooks.", "What helm does", "deploy", neutral=True),
    _switch("--create-namespace", "On an install, create the release namespace if missing.", "What helm does",
            "deploy", neutral=True),
    # Helm's ownership check runs before a dry run returns (pkg/action/upgrade.go and install.go,
    # Helm 3.19 and 4.3), so the server render adopts only when told to: not neutral.
    _switch("--take-ownership", "Adopt existing objects whoever owns them.", "What helm does", "upgrade",
            Reach.SERVER_RENDER),
    _switch("--force", "Replace updated objects instead of patching them (Helm 4: deprecated).", "What helm does",
            "deploy", neutral=True),
    _switch("--force-replace", "Helm 4: replace updated objects instead of patching them.", "What helm does", "deploy",
            neutral=True),
    SERVER_SIDE,
    _switch("--force-conflicts", "Helm 4: take fields other managers own (server-side apply).", "What helm does",
            "upgrade", neutral=True),
    Flag(names=("--history-max",), dest="history_max", type=int, metavar="N", group="What helm does", into="deploy",
         help="Revisions to keep; the plan names those helm deletes. [default: 10; 0: no limit]", neutral=True),
    Flag(names=("--labels",), short="-l", dest="labels", repeatable=True, metavar="K=V,...", group="What helm does",
         into="deploy", help="Release labels (a value of null removes one).", split=Split.PAIRS, neutral=True),
    _text("--description", "TEXT", "The new revision's description.", "What helm does", "deploy", neutral=True),
    *CLUSTER_FLAGS, NO_DRIFT, REQUIRE_CLUSTER,
    OUTPUT, NO_COLOR, COLOR, SUPPRESS, SOURCE_ROOT, SHOW_SECRETS, FULL_VALUES, CONTEXT._replace(into="upgrade"), OUT,
    IGNORE, IGNORE_FILE, DEBUG, DETAILED_EXITCODE, FAIL_ON,
    Flag(names=("--wait",), dest="wait", bare="true", group=_ACCEPTED, into="deploy",
         help="Helm 3: wait for readiness; Helm 4: --wait or --wait=STRATEGY.", neutral=True),
    _switch("--wait-for-jobs", "With --wait, wait for Jobs too (the plan names them).", _ACCEPTED, "deploy",
            neutral=True),
    _switch("--atomic", "Roll back on failure (Helm 4: deprecated, --rollback-on-failure).", _ACCEPTED, "deploy",
            neutral=True),
    _switch("--rollback-on-failure", "Helm 4: roll back on failure.", _ACCEPTED, "deploy", neutral=True),
    _text("--timeout", "DURATION", "How long helm waits for each operation.", _ACCEPTED, "deploy", neutral=True),
    _switch("--cleanup-on-fail", "Delete new objects when the upgrade fails.", _ACCEPTED, "deploy", neutral=True),
    Flag(names=("--dry-run",), dest="dry_run", bare="client", group=_ACCEPTED, into="deploy",
         help="A plan never writes anyway (--dry-run=client|server too)."),
    _switch("--render-subchart-notes", "Render subcharts' NOTES.txt.", _ACCEPTED, "deploy", neutral=True),
    _switch("--hide-notes", "Do not print NOTES.txt.", _ACCEPTED, "deploy", neutral=True),
    _switch("--hide-secret", "Hide Secrets in a dry run (the plan hides their values anyway).", _ACCEPTED, "deploy",
            neutral=True),
)
UPGRADE_GROUPS = ("Values", "Chart source", "Rendering", "What helm does", "Cluster", "Output", "Gates", _ACCEPTED)

# `helm rollback`'s flags that change what it does (Helm 3.19's: --force; Helm 4.3's: --force
# deprecated for --force-replace, and --server-side and --force-conflicts; pkg/cmd/rollback.go).
ROLLBACK: tuple[Flag, ...] = (
    _switch("--no-hooks", "As helm rollback --no-hooks: no hook runs.", "", "rollback"),
    _switch("--force", "As helm rollback --force: updated objects are replaced (Helm 4: deprecated).", "",
            "rollback"),
    _switch("--force-replace", "Helm 4: as helm rollback --force-replace.", "", "rollback"),
    SERVER_SIDE._replace(group="", into="rollback",
                         help="Helm 4: server-side (true) or client-side (false) apply; auto: as the target "
                              "revision was applied."),
    _switch("--force-conflicts", "Helm 4: as helm rollback --force-conflicts.", "", "rollback"),
    NO_DRIFT._replace(into="rollback"), REQUIRE_CLUSTER._replace(into="rollback"),
    *(flag._replace(into="rollback") for flag in CLUSTER_FLAGS),
    CONTEXT._replace(into="rollback"), *PLAN_FLAGS, *OUTPUT_FLAGS,
)

UNINSTALL: tuple[Flag, ...] = (
    _switch("--no-hooks", "As helm uninstall --no-hooks: no hook runs.", "", "uninstall"),
    _switch("--keep-history", "As helm uninstall --keep-history.", "", "uninstall"),
    # pkg/cmd/uninstall.go: a string, checked by validateCascadeFlag (not a choice: helm's own words).
    Flag(names=("--cascade",), dest="cascade", default="background", show_default=True, metavar="MODE",
         into="uninstall", help="As helm uninstall --cascade: background, orphan or foreground deletion of "
                                "the dependents (a Deployment's ReplicaSets and pods)."),
    NO_DRIFT._replace(into="uninstall"), REQUIRE_CLUSTER._replace(into="uninstall"),
    *(flag._replace(into="uninstall") for flag in CLUSTER_FLAGS),
    *PLAN_FLAGS, *OUTPUT_FLAGS,
)

DIFF: tuple[Flag, ...] = (
    Flag(names=("--release",), dest="release", default="release-name", show_default=True,
         help="Release name, for the header and ownership; the default is the name helm template gives.", into="diff"),
    Flag(names=("--namespace",), short="-n", dest="namespace", metavar="NS", into="diff",
         help="Release namespace: given to namespaced objects that declare none. [default: HELM_NAMESPACE or default]"),
    Flag(names=("--action",), dest="action", type=Choice(("auto", "install", "upgrade")), default="auto",
         show_default=True, help="auto: install when PREVIOUS is empty, else upgrade.", into="diff"),
    Flag(names=("--kind-order",), dest="kind_order", type=Choice(("auto", "helm3", "helm4")), default="auto",
         show_default=True, into="diff",
         help="Whose kind order to apply in; auto asks the helm at hand (Helm 3 when there is none)."),
    _switch("--skip-crds", "Plan an install as with --skip-crds.", "", "diff"),
    _text("--live", "FILE", "Live state saved by `kubectl get ... -o yaml` (a List or YAML documents; - reads "
          "standard input): adds drift and ownership.", "", "diff"),
    _switch("--take-ownership", "Plan as helm upgrade --take-ownership.", "", "diff"),
    # model.ApplyMethod's values, written out (a test holds them equal): the table is read before
    # the model is imported (sources/early.py).
    Flag(names=("--apply-method",), dest="apply_method", type=Choice(("csa", "ssa")),
         default="csa", show_default=True, into="diff",
         help="How the release was applied: client-side (Helm 3) or server-side (Helm 4 default)."),
    _text("--kube-version", "V", "Judge the objects against this Kubernetes version: kinds it serves, their schemas "
          "(predicted failures).", "", "diff"),
    _switch("--disable-openapi-validation", "As helm's: unknown fields are dropped instead of rejected "
            "(with --kube-version).", "", "diff"),
    CONTEXT._replace(into="diff"), *PLAN_FLAGS, *OUTPUT_FLAGS,
)

# Plans between stored revisions (commands/history.py).
REVISION: tuple[Flag, ...] = (
    *(flag._replace(into="revision") for flag in CLUSTER_FLAGS),
    CONTEXT._replace(into="revision"), *PLAN_FLAGS, *OUTPUT_FLAGS,
)
RELEASES: tuple[Flag, ...] = tuple(flag._replace(into="releases") if flag.into else flag for flag in REVISION)

# `helm plan kube-upgrade` (commands/kube_upgrade.py): every release in scope planned as an
# upgrade with its own stored chart and values under another Kubernetes version. Its -o choices
# are the writers whose outputs add up to one report (KUBE_UPGRADE_FORMATS).
KUBE_UPGRADE_FORMATS = ("text", "table", "markdown", "summary", "json")
KUBE_UPGRADE: tuple[Flag, ...] = (
    Flag(names=("--kube-version",), dest="kube_version", metavar="V", into="kube_upgrade",
         help="The Kubernetes version the cluster is upgraded to (required): its APIs and schemas, and the "
              "capabilities the charts render with."),
    *(flag._replace(into="kube_upgrade") for flag in CLUSTER_FLAGS),
    Flag(names=("--all-namespaces",), short="-A", dest="all_namespaces", takes_value=False, into="kube_upgrade",
         help="The releases of every namespace (as helm list -A)."),
    Flag(names=("--selector",), short="-l", dest="selector", metavar="SELECTOR", into="kube_upgrade",
         help="Only the releases whose storage labels match (as helm list -l: name, status, version, owner, "
              "and the release's own labels)."),
    Flag(names=("--parallel",), dest="parallel", type=AtLeast(1), metavar="N", into="kube_upgrade",
         help="Releases planned at once. [default: the number of CPUs]"),
    Flag(names=("--timeout",), dest="timeout", default="5m", show_default=True, metavar="DURATION",
         into="kube_upgrade", help="How long each helm call may take (300s, 5m, 1h30m); a release whose call "
                                   "takes longer is reported as an error, the others go on."),
    CONTEXT._replace(into="kube_upgrade"), IGNORE, IGNORE_FILE, *OUTPUT_FLAGS,
)

ALLOW_EDITED = Flag(names=("--allow-edited",), dest="allow_edited", takes_value=False, group="Gates",
                    help="Show a plan whose seal does not match (edited after it was written) or cannot be checked "
                         "here, under a warning; no gate passes on it (exit 3).",
                    verify=Verify.NOT_COMPARED, neutral=True)
SHOW: tuple[Flag, ...] = (*OUTPUT_FLAGS, ALLOW_EDITED)

BY_COMMAND: Mapping[str, tuple[Flag, ...]] = {"upgrade": UPGRADE, "rollback": ROLLBACK, "uninstall": UNINSTALL,
                                              "diff": DIFF, "revision": REVISION, "releases": RELEASES, "show": SHOW,
                                              "kube-upgrade": KUBE_UPGRADE}


def check_tables(tables: Iterable[Sequence[Flag]]) -> None:
    """A program is never taken from a plan's record; only a repeatable flag is split."""
    for table in tables:
        for flag in table:
            if flag.program and flag.verify is Verify.FROM_RECORD:
                raise ValueError(f"{flag.long}: a program is never taken from a plan's record")
            if flag.split is not Split.NONE and not flag.repeatable:
                raise ValueError(f"{flag.long}: only a repeatable flag is split")


check_tables(BY_COMMAND.values())

if TYPE_CHECKING:
    _F = TypeVar("_F", bound=Callable[..., Any])


# -- what is derived ---------------------------------------------------------------------------

def click_options(flags: Sequence[Flag], choices: Mapping[str, Sequence[str]] | None = None,
                  callbacks: Mapping[str, Callable[..., Any]] | None = None) -> Callable[[_F], _F]:
    """A decorator adding the flags as click options, in order. `choices` gives a value's choices
    that another table holds (-o: the writers); `callbacks` a parameter's click callback. click
    is imported here, not with the table: helm plan reads a command line by the table before it
    imports click (sources/early.py)."""
    import click

    decorators = []
    for flag in flags:
        names = ([flag.short] if flag.short else []) + list(flag.names)
        kwargs: dict[str, Any] = {"help": flag.help, "callback": (callbacks or {}).get(flag.dest)}
        if not flag.takes_value or flag.bare:
            kwargs["is_flag"] = True
        else:
            kwargs.update(multiple=flag.repeatable, metavar=flag.metavar, default=flag.default,
                          show_default=flag.show_default)
            kind = Choice(tuple((choices or {})[flag.dest])) if flag.dest in (choices or {}) else flag.type
            if isinstance(kind, Choice):
                kwargs["type"] = click.Choice(list(kind.names))
            elif isinstance(kind, AtLeast):
                kwargs["type"] = click.IntRange(min=kind.minimum)
            elif kind is not None:
                kwargs["type"] = kind
        decorators.append(click.option(*names, flag.dest, **kwargs))
        if flag.bare:
            decorators.append(click.option(f"{flag.long}-value", flag.value_dest, hidden=True))

    def apply(func: _F) -> _F:
        for decorator in reversed(decorators):
            func = decorator(func)
        return func
    return apply


def help_groups(flags: Sequence[Flag], order: Sequence[str]) -> list[tuple[str, list[str]]]:
    """`--help`'s headings, each with the parameter names under it in table order."""
    return [(group, [flag.dest for flag in flags if flag.group == group]) for group in order]


def value(flag: Flag, params: Mapping[str, Any]) -> Any:
    """A flag's parsed value. An optional-value flag: "" when absent, its bare value when given
    alone, else what followed `=`."""
    if flag.bare:
        given = params.get(flag.value_dest)
        return given if given is not None else (flag.bare if params.get(flag.dest) else "")
    return params.get(flag.dest, flag.default)


def request_fields(flags: Iterable[Flag], params: Mapping[str, Any], into: str) -> dict[str, Any]:
    """The keyword arguments of a request part from the parsed parameters."""
    return {flag.field: value(flag, params) for flag in flags if flag.into == into}


def helm_args(request: object, reach: Reach, flags: Iterable[Flag] = UPGRADE) -> list[str]:
    """The helm arguments of the flags that reach helm this way, from a request object that
    holds them (a flag not set is left out)."""
    out: list[str] = []
    for flag in flags:
        if flag.reach is not reach or (flag.requires and not getattr(request, flag.requires)):
            continue
        given = getattr(request, flag.field)
        if not flag.takes_value:
            out += [flag.long] if given else []
            continue
        for item in (given if flag.repeatable else [given] if given else []):
            out += [f"{flag.long}={item}"] if flag.equals else [flag.long, str(item)]
    return out


def not_compared(flags: Iterable[Flag]) -> frozenset[str]:
    """The parameters verify does not compare with the reviewed plan's."""
    return frozenset(flag.dest for flag in flags if flag.verify is not Verify.COMPARE)


def from_record(flags: Iterable[Flag]) -> tuple[str, ...]:
    """The parameters verify takes from the reviewed plan's record (helm plan's own flags)."""
    return tuple(flag.dest for flag in flags if flag.verify is Verify.FROM_RECORD)


__all__ = ["BY_COMMAND", "DIFF", "Flag", "KUBE_UPGRADE", "KUBE_UPGRADE_FORMATS", "OUTPUT_FLAGS", "PLAN_FLAGS", "RELEASES", "REVISION", "ROLLBACK", "Reach", "SHOW",
           "Split", "UNINSTALL",
           "UPGRADE", "UPGRADE_GROUPS", "Verify", "check_tables", "click_options", "from_record", "help_groups", "helm_args",
           "not_compared", "request_fields", "value"]
