"""`helm diff ...` served by helm plan: the helm-diff plugin's command line (databus23/helm-diff,
cmd/*.go), read as helm-diff reads it and turned into the helm plan command that answers it.

The plugin in compat/helm-diff (name `diff`) runs this package with `helm-diff` first; `read`
parses the rest as helm-diff's cobra/pflag would, and `translate` says which helm plan command
answers it, with which arguments:

    helm diff upgrade RELEASE CHART [flags]    helm plan upgrade RELEASE CHART [flags]
    helm diff rollback RELEASE REVISION        helm plan rollback RELEASE REVISION
    helm diff revision RELEASE REV1 [REV2]     helm plan revision RELEASE REV1 [REV2]
    helm diff release RELEASE1 RELEASE2        helm plan releases RELEASE1 RELEASE2
    helm diff version                          the version this drop-in declares

`helm diff RELEASE CHART` (helm-diff's deprecated root form) is `upgrade`. Every flag of `helm
plan upgrade` (so every helm upgrade flag) passes through to `upgrade`. helm-diff's own flags
and the HELM_DIFF_* variables helmfile sets map to helm plan's (FLAGS below, with what each does
here); one that cannot be honoured stops the command with one line saying so, rather than
print a plan that answers another question.

Exit codes are helm-diff's: 0, 1 on an error, 2 with --detailed-exitcode when something
changes (helmfile apply upgrades a release on 2 and skips it on 0). A release that does not
exist is an error unless --allow-unreleased (or --install) is given, as in helm-diff.
"""
from __future__ import annotations

import enum
from typing import Mapping, Sequence

from msgspec import Struct, field

from deployah_plan.release.revisions import connect, reader
from deployah_plan.sources.helm_commands import major
from deployah_plan.errors import ReleaseError, UsageError

# The version plugin.yaml declares: helmfile reads it (pkg/state/state.go, GetPluginVersion("diff"))
# and passes a flag only to a helm-diff at least as new as the one that added it; v3.15.10 (the
# newest it checks: --server-side on Helm 4) and later get every flag.
DECLARED_VERSION = "3.15.11"


class Does(enum.Enum):
    """What a helm-diff flag does here."""

    SAME = "same"  # helm plan takes it as is
    MAPPED = "mapped"  # helm plan's own flag for the same thing
    ALREADY = "already"  # what helm plan always does; accepted, changes nothing
    REFUSED = "refused"  # cannot be honoured: one line, exit 1


class DiffFlag(Struct, frozen=True):
    names: tuple[str, ...]  # long names first, then a short one ("-C")
    takes_value: bool
    does: Does
    here: str  # what it does here, for docs/helm-diff.md's table and the refusal line
    repeatable: bool = False
    bare: str = ""  # the value when given alone, for a flag whose value is optional (--dry-run)


def _flag(names: str, takes_value: bool, does: Does, here: str, *, repeatable: bool = False,
          bare: str = "") -> DiffFlag:
    return DiffFlag(tuple(names.split()), takes_value, does, here, repeatable, bare)


# helm-diff's own flags (cmd/upgrade.go, cmd/options.go, cmd/root.go), as this drop-in serves them.
FLAGS: tuple[DiffFlag, ...] = (
    _flag("--allow-unreleased", False, Does.MAPPED, "plans an install when the release does not exist (without it, "
          "a missing release is an error, as in helm-diff)"),
    _flag("--install", False, Does.MAPPED, "the same as --allow-unreleased"),
    _flag("--detailed-exitcode", False, Does.SAME, "exit 2 when something changes, 0 when nothing does"),
    _flag("--context -C", True, Does.MAPPED, "`--context N`: unchanged lines shown around each change of a "
          "multi-line value (a ConfigMap's file); helm plan shows field changes, never whole manifests"),
    _flag("--suppress", True, Does.MAPPED, "`--suppress KIND`: that kind's objects and hooks keep their line, "
          "without their field changes or content, and still count as changes", repeatable=True),
    _flag("--suppress-secrets -q", False, Does.MAPPED, "`--suppress Secret`; Secret values are masked anyway"),
    _flag("--show-secrets", False, Does.SAME, "Secret values are shown instead of masked"),
    _flag("--show-secrets-decoded", False, Does.MAPPED, "`--show-secrets`: the values are shown as the Secret "
          "stores them (`data` base64-encoded; a line on stderr says so)"),
    _flag("--output", True, Does.MAPPED, "`diff` and `dyff`: the text plan; `simple`: `-o summary`, one line per "
          "object and the counts; `json` and `structured`: `-o json`; `template`: `-o json` (HELM_DIFF_TPL, a Go "
          "template, is not run; a line on stderr says so)"),
    _flag("--three-way-merge", False, Does.MAPPED, "`--require-cluster`: the live objects are read (drift, ownership) "
          "and the plan fails if they cannot be; without it they are read when the cluster is reachable"),
    _flag("--normalize-manifests", False, Does.ALREADY, "objects are compared as parsed YAML, so style never shows"),
    _flag("--strip-trailing-cr", False, Does.ALREADY, "YAML parsing drops carriage returns at line ends"),
    _flag("--include-tests", False, Does.ALREADY, "test hooks are always listed, as tasks that do not run on this "
          "action; a changed one counts as a change"),
    _flag("--include-crds", False, Does.ALREADY, "the chart's crds/ are always listed (Helm never upgrades them)"),
    _flag("--find-renames -D", True, Does.ALREADY, "a delete and a create of one kind with close content are "
          "always marked as a likely rename"),
    _flag("--disable-validation", False, Does.ALREADY, "the render is not validated against the cluster unless it "
          "is made by it (--render server)"),
    _flag("--dry-run", True, Does.MAPPED, "`--dry-run=server`: `--render server` (lookup and capabilities from the "
          "cluster); `--dry-run=false`: the default; `--dry-run` / `=client` / `=true` (no cluster, as an install): "
          "refused", bare="client"),
    _flag("--suppress-output-line-regex", True, Does.REFUSED, "filters helm-diff's text lines, which helm plan does "
          "not print; use --ignore rules (`--ignore '{paths: [/metadata/labels/x]}'`) instead", repeatable=True),
    _flag("--color", False, Does.SAME, "colour even when standard output is not a terminal"),
    _flag("--no-color", False, Does.SAME, "never colour"),
)
# helm-diff's revision, rollback and release commands take these besides --kube-context.
HISTORY_FLAGS = ("--detailed-exitcode", "--include-tests", "--normalize-manifests", "--suppress-secrets",
                 "--show-secrets", "--show-secrets-decoded", "--suppress", "--context", "--output",
                 "--strip-trailing-cr", "--find-renames", "--suppress-output-line-regex", "--color", "--no-color")

# The HELM_DIFF_* variables (cmd/root.go, cmd/upgrade.go): a flag given wins over its variable.
ENVIRONMENT = {
    "HELM_DIFF_COLOR": "true: --color, false: --no-color",
    "HELM_DIFF_OUTPUT": "as --output",
    "HELM_DIFF_OUTPUT_CONTEXT": "as --context",
    "HELM_DIFF_THREE_WAY_MERGE": "true: as --three-way-merge",
    "HELM_DIFF_NORMALIZE_MANIFESTS": "true: as --normalize-manifests (always so)",
    "HELM_DIFF_USE_UPGRADE_DRY_RUN": "true: --render server (the chart rendered by helm upgrade --dry-run=server)",
    "HELM_DIFF_IGNORE_UNKNOWN_FLAGS": "true: an unknown flag is left out, with a line on stderr naming it",
}

_OUTPUTS = {"diff": "text", "dyff": "text", "simple": "summary", "json": "json", "structured": "json",
            "template": "json"}
_COMMANDS = ("upgrade", "rollback", "revision", "release", "version", "local")
_CLUSTER = ("--kube-context", "--kubeconfig", "--namespace", "-n")
_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")


class Parsed(Struct):
    """A helm diff command line: the subcommand, its arguments, helm-diff's flags by long name
    (a switch as "true"/"false", a repeatable flag as its values), and the helm plan flags given
    through, in order."""

    command: str
    args: list[str] = field(default_factory=list)
    flags: dict[str, list[str]] = field(default_factory=dict)
    through: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def on(self, name: str) -> bool:
        return bool(self.flags.get(name)) and self.flags[name][-1] == "true"

    def last(self, name: str) -> str | None:
        values = self.flags.get(name)
        return values[-1] if values else None


class Translated(Struct, frozen=True):
    """The helm plan command line that answers a helm diff one. `text` instead: print it (version)."""

    argv: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # lines for stderr
    text: str = ""
    allow_unreleased: bool = True  # upgrade: a release that does not exist may be planned as an install


def _bool(name: str, value: str) -> str:
    if value in _TRUE:
        return "true"
    if value in _FALSE:
        return "false"
    raise UsageError(f"{name} takes true or false, not {value!r}", "see `helm diff upgrade --help` of helm-diff")


def _flag_value(name: str, eq: str, value: str, rest: list[str], bare: str = "") -> str:
    """The value of a flag that takes one, as pflag reads it: `--flag=V` (or `-fV`), else the
    value it has alone (`bare`: helm-diff's `--dry-run` is `--dry-run=client`), else the next
    argument, which it takes from `rest`."""
    if eq:
        return value
    if bare:
        return bare
    if not rest:
        raise UsageError(f"flag needs an argument: {name}", "give it a value")
    return rest.pop(0)


def read(args: Sequence[str], plan_flags: Mapping[str, bool], environ: Mapping[str, str]) -> Parsed:
    """Parse a helm diff command line as pflag does: `--flag value`, `--flag=value`, `-f value`,
    `-fvalue`, `--switch=false`, arguments anywhere, `--` ends the flags. `plan_flags` maps each
    name of a helm plan upgrade flag to whether it takes a value (it passes through)."""
    rest = list(args)
    command = "upgrade"
    if rest and rest[0] in _COMMANDS:
        command = rest.pop(0)
    parsed = Parsed(command)
    own = {name: flag for flag in FLAGS for name in flag.names}
    ignore_unknown = environ.get("HELM_DIFF_IGNORE_UNKNOWN_FLAGS") == "true"
    while rest:
        token = rest.pop(0)
        if token == "--":
            parsed.args += rest
            break
        if not token.startswith("-") or token == "-":
            parsed.args.append(token)
            continue
        if token.startswith("--"):
            name, eq, value = token.partition("=")
        else:  # -f value, -fvalue, -f=value
            name, value = token[:2], token[2:]
            eq = "=" if value else ""
            value = value[1:] if value.startswith("=") else value
        if name in own:
            flag = own[name]
            long = flag.names[0]
            parsed.flags.setdefault(long, []).append(_flag_value(name, eq, value, rest, flag.bare) if flag.takes_value
                                                     else _bool(long, value) if eq else "true")
            continue
        if name in plan_flags:
            parsed.through += [name, _flag_value(name, eq, value, rest)] if plan_flags[name] and not eq else [token]
            continue
        if ignore_unknown:
            parsed.notes.append(f"helm plan: {name} is not a flag of helm diff or helm upgrade; left out "
                                "(HELM_DIFF_IGNORE_UNKNOWN_FLAGS=true)")
            continue
        raise UsageError(f"unknown flag: {name}", "helm diff here takes helm-diff's flags and every helm upgrade flag "
                         "(HELM_DIFF_IGNORE_UNKNOWN_FLAGS=true leaves others out)")
    return parsed


def _environment(parsed: Parsed, environ: Mapping[str, str]) -> None:
    """HELM_DIFF_* as helm-diff reads them: each only when its flag is not given."""
    if "--color" not in parsed.flags and "--no-color" not in parsed.flags:
        value = environ.get("HELM_DIFF_COLOR", "")
        if value in _TRUE or value in _FALSE:
            parsed.flags["--color" if value in _TRUE else "--no-color"] = ["true"]
    if "--output" not in parsed.flags and environ.get("HELM_DIFF_OUTPUT", "").strip():
        parsed.flags["--output"] = [environ["HELM_DIFF_OUTPUT"].strip()]
    if "--context" not in parsed.flags and environ.get("HELM_DIFF_OUTPUT_CONTEXT", "").strip().lstrip("-").isdigit():
        parsed.flags["--context"] = [environ["HELM_DIFF_OUTPUT_CONTEXT"].strip()]
    if "--three-way-merge" not in parsed.flags and environ.get("HELM_DIFF_THREE_WAY_MERGE") == "true":
        parsed.flags["--three-way-merge"] = ["true"]


def _common(parsed: Parsed, notes: list[str]) -> list[str]:
    """helm plan's flags for helm-diff's output and exit-code flags (every command)."""
    out: list[str] = []
    for flag in FLAGS:
        long = flag.names[0]
        if long in parsed.flags and flag.does is Does.REFUSED:
            raise UsageError(f"{long} cannot be honoured here: it {flag.here}", "leave it out")
    if parsed.on("--detailed-exitcode"):
        out.append("--detailed-exitcode")
    context = parsed.last("--context")
    if context is not None:
        try:
            lines = int(context)
        except ValueError:
            raise UsageError(f"--context takes a number of lines, not {context!r}", "give --context 3") from None
        if lines >= 0:  # helm-diff's -1: its default, every line of a manifest
            out += ["--context", str(lines)]
    kinds = [kind for kinds in parsed.flags.get("--suppress", []) for kind in kinds.split(",") if kind]
    if parsed.on("--suppress-secrets"):
        kinds.append("Secret")
    for kind in dict.fromkeys(kinds):
        out += ["--suppress", kind]
    if parsed.on("--show-secrets") or parsed.on("--show-secrets-decoded"):
        out.append("--show-secrets")
    if parsed.on("--show-secrets-decoded") and not parsed.on("--show-secrets"):
        notes.append("helm plan: --show-secrets-decoded shows Secret values as stored (data base64-encoded)")
    output = parsed.last("--output") or "diff"
    if output not in _OUTPUTS:
        raise UsageError(f"--output {output} is not one of helm-diff's outputs", "use diff, simple, template, json, "
                         "structured or dyff")
    if output == "template":
        notes.append("helm plan: --output template prints the JSON plan (HELM_DIFF_TPL, a Go template, is not run)")
    out += ["-o", _OUTPUTS[output]]
    if parsed.on("--no-color"):
        out.append("--no-color")
    elif parsed.on("--color"):
        out.append("--color")
    return out


def _upgrade(parsed: Parsed, environ: Mapping[str, str], notes: list[str]) -> list[str]:
    if len(parsed.args) != 2:
        raise UsageError("helm diff upgrade takes RELEASE and CHART", "helm diff upgrade [flags] RELEASE CHART")
    out = ["upgrade", *parsed.args, *parsed.through]
    dry_run = (parsed.last("--dry-run") or "").lower()
    if dry_run in ("client", "true"):
        raise UsageError(f"--dry-run={dry_run} (no cluster, as an install) cannot be honoured here: helm plan upgrade "
                         "plans against the release", "leave it out, or use --dry-run=server")
    if dry_run not in ("", "none", "false", "server"):
        raise UsageError(f"--dry-run must be true, false, client or server, not {dry_run!r}", "use --dry-run=server")
    if dry_run == "server" or environ.get("HELM_DIFF_USE_UPGRADE_DRY_RUN") == "true":
        out += ["--render", "server"]
    if parsed.on("--three-way-merge"):
        out.append("--require-cluster")
    return out


def translate(args: Sequence[str], plan_flags: Mapping[str, bool], environ: Mapping[str, str]) -> Translated:
    """The helm plan command line answering `helm diff ARGS` (see the module docstring)."""
    parsed = read(args, plan_flags, environ)
    if parsed.command == "version":
        return Translated(text=f"{DECLARED_VERSION}\n")
    if parsed.command == "local":
        raise UsageError("helm diff local (two chart folders) is not served here",
                         "render both with helm template, then: helm plan diff FIRST.yaml SECOND.yaml")
    _environment(parsed, environ)
    notes = list(parsed.notes)
    if parsed.command != "upgrade":  # helm-diff's history commands take fewer flags
        extra = [name for name in parsed.flags if name not in HISTORY_FLAGS]
        extra += [t for t in parsed.through if t.startswith("-") and t.split("=")[0] not in _CLUSTER]
        if extra:
            raise UsageError(f"helm diff {parsed.command} has no flag {extra[0]}",
                             f"see helm-diff's `helm diff {parsed.command} --help`")
    common = _common(parsed, notes)
    if parsed.command == "upgrade":
        allow = parsed.on("--allow-unreleased") or parsed.on("--install")
        return Translated((*_upgrade(parsed, environ, notes), *common), tuple(notes), allow_unreleased=allow)
    if parsed.command == "rollback":
        if len(parsed.args) != 2:
            raise UsageError("helm diff rollback takes RELEASE and REVISION", "helm diff rollback RELEASE REVISION")
        return Translated(("rollback", *parsed.args, *parsed.through, *common), tuple(notes))
    if parsed.command == "revision":
        if not 2 <= len(parsed.args) <= 3:
            raise UsageError("helm diff revision takes RELEASE, REVISION1 and maybe REVISION2",
                             "helm diff revision RELEASE REVISION1 [REVISION2]")
        return Translated(("revision", *parsed.args, *parsed.through, *common), tuple(notes))
    if len(parsed.args) != 2:  # release
        raise UsageError("helm diff release takes two releases", "helm diff release RELEASE1 RELEASE2 "
                         "(NAME or NAMESPACE/NAME)")
    return Translated(("releases", *parsed.args, *parsed.through, *common), tuple(notes))


def _value(argv: Sequence[str], *names: str) -> str | None:
    """The value of the last of `names` in a command line (`--flag V`, `--flag=V`, `-nV`)."""
    found = None
    for i, token in enumerate(argv):
        for name in names:
            if token == name and i + 1 < len(argv):
                found = argv[i + 1]
            elif token.startswith(name + "=") or (len(name) == 2 and token.startswith(name) and len(token) > 2):
                found = token[len(name):].lstrip("=")
    return found


def require_release(argv: Sequence[str]) -> None:
    """helm-diff's upgrade without --allow-unreleased: a release that does not exist is an error
    (`argv` is the translated `upgrade RELEASE CHART ...`)."""
    release = argv[1]
    helm, target = connect(_value(argv, "--namespace", "-n"), _value(argv, "--kube-context"),
                           _value(argv, "--kubeconfig"), debug=False)
    releases = reader(helm, _value(argv, "--kube-context"), _value(argv, "--kubeconfig"))
    if releases.record(release, target.namespace, None, major(helm.version())) is None:
        raise ReleaseError(f"release {release} not found in namespace {target.namespace}",
                           "add --allow-unreleased to plan its install (helmfile gives it)")


__all__ = ["DECLARED_VERSION", "ENVIRONMENT", "FLAGS", "Does", "DiffFlag", "Parsed", "Translated", "read",
           "require_release", "translate"]
