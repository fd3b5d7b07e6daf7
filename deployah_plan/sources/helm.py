"""The helm binary: every call goes through `Helm.run`, which reports helm's own message.

Reading a release costs one `helm get all` for the newest revision, and a `helm history` plus
a second `helm get all` only when the newest revision is not the deployed one. The record is
printed through a Go template that quotes every string with `%q` and is decoded here.
"""
from __future__ import annotations

import json
import os
import re
from decimal import Decimal
from typing import Any, Iterable, Mapping, Sequence

from msgspec import Struct, field, structs

from deployah_plan import deepjson, progress
from deployah_plan.console import say
from deployah_plan.startup import lazy
from deployah_plan.errors import HelmError, ReleaseError
from deployah_plan.model import ApplyMethod
from deployah_plan.redact import value_keys, without_userinfo
from deployah_plan.escape import log_line
from deployah_plan.sources import helm_versions
from deployah_plan.sources.early import HelmCalls
from deployah_plan.sources.process import Timeout
from deployah_plan.sources.helm_commands import (
    chart_args, default_binary, dry_run_args, list_args, record_args, template_args,
)

_NOT_FOUND = lazy(r"release: not found|has no deployed releases")
_UNREACHABLE = lazy(r"Kubernetes cluster unreachable|connection refused|no such host|dial tcp|i/o timeout", re.I)

_GO_ESCAPE = lazy(r"\\(x[0-9a-fA-F]{2}|U[0-9a-fA-F]{8}|[av]|.)", re.S)


def _json_escape(match: re.Match[str]) -> str:
    code = match.group(1)
    if code[0] == "x":
        return "\\u00" + code[1:]
    if code[0] == "U":
        point = int(code[1:], 16)
        if point < 0x10000:
            return f"\\u{point:04x}"
        point -= 0x10000
        return f"\\u{0xD800 + (point >> 10):04x}\\u{0xDC00 + (point & 0x3FF):04x}"
    if code == "a":
        return "\\u0007"
    if code == "v":
        return "\\u000b"
    return match.group(0)


def _decode_go_json(text: str, **options: Any) -> Any:
    """JSON whose strings were written by Go's %q: turn Go-only escapes (\\a, \\v, \\x, \\U)
    into JSON ones. A record without any is read as it is: the rewrite calls a function per
    escape, and a release of large CRDs has tens of thousands of `\\n`."""
    if "\\x" in text or "\\U" in text or "\\a" in text or "\\v" in text:
        text = _GO_ESCAPE.sub(_json_escape, text)
    return deepjson.loads(text, **options)  # as deep as Go writes it


def _last_pair_dropped(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    return dict(pairs[:-1])


def _go_number(text: str) -> Any:
    """A float64 as fmt prints it (`%v`, shortest digits, `1e+06`), as encoding/json would have
    printed it and json.loads read it: a whole number below 1e21 is printed in full, without a
    point (strconv 'f' format), so it reads as an int."""
    number = float(text)
    if number.is_integer() and abs(number) < 1e21:
        return int(Decimal(text))
    return number


# A byte that is not UTF-8 (%q's \x80-\xff), which encoding/json would have printed as U+FFFD.
_NOT_UTF8 = lazy(r"(?<!\\)(?:\\\\)*\\x[89a-fA-F]")


def _decode_values(text: str) -> dict[str, Any] | None:
    """The user values printed by helm_commands' values template, as `helm get values -o json`
    reads; None when they are not printed faithfully (a type JSON does not decode to, a string
    that is not UTF-8): they are then asked of `helm get values`."""
    if not text.startswith("{") or _NOT_UTF8.search(text):
        return None
    try:
        values = _decode_go_json(text, object_pairs_hook=_last_pair_dropped, parse_float=_go_number)
    except ValueError:
        return None
    return values if isinstance(values, dict) else None


def hooks_stream(hooks: Sequence[Mapping[str, Any]]) -> str:
    """A release record's hooks as one stream, the way `helm get hooks` prints them."""
    return "".join(f"---\n# Source: {h.get('path', '')}\n{h.get('manifest', '')}\n" for h in hooks)


def crds_stream(chart_name: str, files: Iterable[tuple[str, str]]) -> str:
    """A chart's crds/ files (path, text), as `helm template --include-crds` prints them: each
    file whole under one `# Source: <chart>/crds/...` line. A release record never has them in
    its manifest; its chart keeps them in `files`. Only the top chart's: the record does not
    serialise subcharts."""
    return "".join(f"---\n# Source: {chart_name}/{path}\n{text}\n" for path, text in files
                   if path.startswith("crds/") and path.endswith((".yaml", ".yml", ".json")))


class StoredRelease(Struct, frozen=True):
    """One revision of a release, as Helm stored it."""

    name: str
    namespace: str
    revision: int
    status: str
    chart_name: str
    chart_version: str
    manifest: str
    hooks_stream: str  # the hooks as `helm get hooks` prints them
    apply_method: ApplyMethod | None = None  # Helm 4's; None for Helm 3 (client-side apply)
    crds_stream: str = ""  # the chart's crds/ files as `helm template --include-crds` prints them
    # The user values (`helm get values`), when the read printed them faithfully; None otherwise.
    values: dict[str, Any] | None = None
    # The chart's default values as the record printed them (helm_commands `_DEFAULTS_TEMPLATE`),
    # undecoded: only why each change reads them (`defaults`).
    chart_defaults: str = ""
    # The same defaults, decoded, when the release was read from Helm's storage directly
    # (release/store.py); then `chart_defaults` is empty.
    chart_values: dict[str, Any] | None = None

    def defaults(self) -> dict[str, Any] | None:
        """The stored chart's default values; None when they were not printed faithfully."""
        if self.chart_values is not None:
            return self.chart_values
        return _decode_values(self.chart_defaults) if self.chart_defaults else None

    @classmethod
    def from_record(cls, record: Mapping[str, Any], values: dict[str, Any] | None = None) -> "StoredRelease":
        hooks = hooks_stream(record.get("hooks") or [])
        chart_name = record.get("chart_name", "")
        files = [(str(f.get("name", "")), str(f.get("data", ""))) for f in record.get("crd_files") or ()
                 if isinstance(f, dict)]
        return cls(
            name=record["name"], namespace=record["namespace"], revision=int(record["version"]),
            status=record["status"], chart_name=chart_name,
            chart_version=record.get("chart_version", ""), manifest=record.get("manifest") or "",
            hooks_stream=hooks, apply_method=ApplyMethod.recorded(str(record.get("apply_method") or "")),
            crds_stream=crds_stream(chart_name, files), values=values,
        )


class ReleaseState(Struct, frozen=True):
    """What `helm upgrade` would find: the revision it diffs against, and the newest one."""

    current: StoredRelease | None  # None: no release, the upgrade installs
    newest_revision: int = 0  # the new revision is this + 1
    replaces_uninstalled: bool = False
    # How the newest revision (of any status) was applied: Helm 4's --server-side=auto follows
    # it, not the deployed revision the upgrade diffs against (pkg/action/upgrade.go prepareUpgrade).
    newest_apply_method: ApplyMethod | None = None


class Helm(Struct):
    """A helm binary plus the global flags every call carries; its processes are started
    through `calls` (sources/early.py), which may hold some started before the imports and
    ends them all on a signal."""

    binary: str
    global_args: Sequence[str] = ()
    debug: bool = False
    calls: HelmCalls = field(default_factory=HelmCalls)
    timeout: float | None = None  # seconds one call may take (None: no limit); then it is ended

    @classmethod
    def find(cls, global_args: Sequence[str] = (), debug: bool = False, calls: HelmCalls | None = None) -> "Helm":
        binary = default_binary()
        if binary and not os.path.isfile(binary):
            import shutil  # only for a helm named by a name, not a path

            binary = binary if shutil.which(binary) else ""
        if not binary:
            raise HelmError(
                "helm not found",
                "install Helm 3.17+ or Helm 4, put it on PATH or set HELM_BIN to its path",
            )
        return cls(binary, tuple(global_args), debug, calls if calls is not None else HelmCalls())

    def command(self, args: Sequence[str]) -> list[str]:
        return [self.binary, *args, *self.global_args]

    def run(self, args: Sequence[str], *, what: str, stdin: str | None = None) -> str:
        command = self.command(args)
        # The same command started before the imports (sources/early.py) is taken as it is.
        started = self.calls.take(command, stdin)
        if self.debug:
            say(log_line("helm plan: running " + " ".join(_shown(command))
                         + (" (started before the imports)" if started is not None else "")))
        try:
            process = started or self.calls.popen(command, stdin=stdin is not None)
        except OSError as err:
            raise HelmError(f"could not run {self.binary}: {err.strerror}", "check that HELM_BIN or PATH names a working helm") from None
        try:
            with progress.step(what if not what.startswith("helm ") else f"running {what}"):
                out, stderr = process.communicate(stdin if started is None else None, timeout=self.timeout)
        except Timeout:
            process.kill()
            process.wait()
            raise HelmError(f"{what} took longer than {self.timeout:g}s and was stopped",
                            "give it more time with --timeout, or check what makes helm slow (run with --debug)") from None
        except BaseException:  # interrupted: the process is not left behind
            process.kill()
            process.wait()
            raise
        finally:
            self.calls.done(process)
        if process.returncode != 0:
            raise HelmError(f"{what} failed: {_helm_message(stderr)}", _hint_for(stderr))
        return out

    def version(self) -> str:
        """helm's version, asked once per binary (sources/helm_versions.py)."""
        return helm_versions.remembered(self.binary, "version", self._ask_version)

    def _ask_version(self) -> str:
        out = self.run(["version", "--template", "{{.Version}}"], what="helm version").strip()
        if not re.match(r"v?\d+\.\d+", out):
            raise HelmError(f"helm version printed {out!r}", "check that HELM_BIN or PATH names a real helm")
        return out.lstrip("v")

    def record(self, name: str, namespace: str, revision: int | None = None, helm_major: int = 3) -> StoredRelease | None:
        """One revision of a release (the newest, whatever its status, when None); None if absent.
        `helm_major` 4 also reads the apply method, which Helm 3 records do not have."""
        try:
            out = self.run(record_args(name, namespace, revision, helm_major), what=f"reading release {name}")
        except HelmError as err:
            if _NOT_FOUND.search(err.message):
                return None
            raise
        record, _, rest = out.partition("\n")
        values, _, defaults = rest.partition("\n")
        return structs.replace(StoredRelease.from_record(_decode_go_json(record), _decode_values(values)),
                               chart_defaults=defaults.strip())

    def release_state(self, name: str, namespace: str, helm_major: int = 3) -> ReleaseState:
        """The revision `helm upgrade --install` diffs against (pkg/action/upgrade.go)."""
        newest = self.record(name, namespace, None, helm_major)
        if newest is None:
            return ReleaseState(None)
        if newest.status.startswith("pending-"):
            raise ReleaseError(
                f"release {name} has an operation in progress ({newest.status} at revision {newest.revision})",
                "wait for it to finish, or roll back with `helm rollback`, then plan again",
            )
        if newest.status == "uninstalling":
            raise ReleaseError(
                f"release {name} is being uninstalled (revision {newest.revision})",
                "wait for helm uninstall to finish, then plan again",
            )
        if newest.status == "deployed":
            return ReleaseState(newest, newest.revision, newest_apply_method=newest.apply_method)
        if newest.status == "uninstalled":
            # `upgrade --install` installs again over a release uninstalled with --keep-history.
            return ReleaseState(None, newest.revision, replaces_uninstalled=True)
        deployed = [h["revision"] for h in self.history(name, namespace) if h.get("status") == "deployed"]
        if not deployed:
            return ReleaseState(newest, newest.revision, newest_apply_method=newest.apply_method)
        current = self.record(name, namespace, max(deployed), helm_major)
        return ReleaseState(current or newest, newest.revision, newest_apply_method=newest.apply_method)

    def stored_chart(self, name: str, namespace: str, revision: int) -> dict[str, Any]:
        """The chart stored with one revision (sources/helm_commands.py `_CHART_TEMPLATE`): its
        metadata, templates, files and schema, file contents as hex."""
        out = self.run(chart_args(name, namespace, revision), what=f"reading the chart of release {name}")
        record = _decode_go_json(out)
        if not isinstance(record, dict) or not isinstance(record.get("chart"), dict):
            raise ReleaseError(f"release {name} revision {revision} has no stored chart",
                               "check the release with `helm get all`; a release without its chart cannot be rendered")
        return record

    def releases(self, namespace: str | None, selector: str | None) -> list[dict[str, Any]]:
        """`helm list -o json` of the releases in `namespace` (None: every namespace)."""
        out = self.run(list_args(namespace, selector), what="listing the releases")
        listed = deepjson.loads(out or "[]")
        return [item for item in listed if isinstance(item, dict)] if isinstance(listed, list) else []

    def history(self, name: str, namespace: str, limit: int = 256) -> list[dict[str, Any]]:
        """`helm history -o json`: revision, status, chart... for the newest `limit` revisions."""
        out = self.run(["history", name, "-n", namespace, "-o", "json", "--max", str(max(limit, 256))],
                       what=f"reading the history of {name}")
        return list(deepjson.loads(out or "[]"))

    def values(self, name: str, namespace: str, revision: int, computed: bool = False) -> dict[str, Any]:
        """`helm get values -o json` (`computed`: with --all, the chart's merged in)."""
        args = ["get", "values", name, "-n", namespace, "--revision", str(revision), "-o", "json"]
        if computed:
            args.append("--all")
        values = deepjson.loads(self.run(args, what=f"reading the values of {name}") or "null")
        return values if isinstance(values, dict) else {}

    def template(self, name: str, chart: str, namespace: str, args: Sequence[str], upgrade: bool,
                 include_crds: bool = True, stdin: str | None = None) -> str:
        """`stdin`: what helm reads for `--values -` among `args`."""
        return self.run(template_args(name, chart, namespace, args, upgrade, include_crds), what="helm template",
                        stdin=stdin)

    def dry_run_upgrade(self, name: str, chart: str, namespace: str, args: Sequence[str],
                        stdin: str | None = None) -> dict[str, Any]:
        """`stdin`: what helm reads for `--values -` among `args`."""
        out = self.run(dry_run_args(name, chart, namespace, args), what="helm upgrade --dry-run=server", stdin=stdin)
        if not out.startswith("{") and "\n{" in out:
            out = out[out.index("\n{") + 1:]  # after --dependency-update's progress lines
        try:
            record = deepjson.loads(out)
        except json.JSONDecodeError:
            raise HelmError("helm upgrade --dry-run=server did not print a JSON release", "run it with --debug to see what it printed") from None
        if not isinstance(record, dict):
            raise HelmError("helm upgrade --dry-run=server did not print a JSON release", "run it with --debug to see what it printed")
        return record

    def show_crds(self, chart: str) -> str:
        """The chart's crds/ files (subcharts' too), as `helm show crds` prints them."""
        return self.run(["show", "crds", chart], what="helm show crds")

    def pull(self, chart: str, destination: str, args: Sequence[str]) -> None:
        try:
            self.run(["pull", chart, "-d", destination, *args], what=f"fetching chart {chart}")
        except HelmError as err:
            raise HelmError(err.message, "check the chart reference, --repo and --version, and the repository flags "
                            "(--username/--password, --ca-file, --plain-http)") from None


_VALUE_FLAGS = frozenset({"--set", "--set-string", "--set-json", "--set-literal"})
_SECRET_FLAGS = frozenset({"--password"})


def _shown(command: Sequence[str]) -> list[str]:
    """The command for --debug, with values given on the command line hidden (they may be secrets)."""
    shown: list[str] = []
    for i, arg in enumerate(command):
        if arg.startswith("--password="):
            arg = "--password=(hidden)"
        elif i and command[i - 1] in _SECRET_FLAGS:
            arg = "(hidden)"
        elif i and command[i - 1] in _VALUE_FLAGS:
            arg = f"{value_keys(arg, whole=command[i - 1] in ('--set-json', '--set-literal'))}=(value hidden)"
        elif "://" in arg:
            arg = without_userinfo(arg)  # a repository URL may carry user:password@
        shown.append(arg)
    return shown


_LOG_LINE = lazy(r'^(?:time=\S+ )?level=\w+ msg="((?:[^"\\]|\\.)*)"')


def _helm_message(stderr: str) -> str:
    """The line of helm's stderr that says what failed: its last `Error:` line, else its last
    line, with Helm 4's structured-log wrapping (`level=INFO msg="..."`) taken off."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [i for i, line in enumerate(lines) if line.startswith("Error:")]
    text = (lines[errors[-1]] if errors else (lines[-1] if lines else "no message")).removeprefix("Error:").strip()
    if errors and text.endswith(":"):
        # A message that goes on below (a values schema failure lists chart and field, one a line).
        text += " " + " ".join(lines[errors[-1] + 1:errors[-1] + 6])
    logged = _LOG_LINE.match(text)
    return logged[1].replace('\\"', '"') if logged else text


def _hint_for(stderr: str) -> str:
    if "memory driver data" in stderr:  # pkg/storage/driver (Helm 3) and pkg/cli (Helm 4) read HELM_MEMORY_DRIVER_DATA
        return "HELM_MEMORY_DRIVER_DATA names a file helm cannot read as releases: fix it, or unset it"
    if _UNREACHABLE.search(stderr):
        return "check your kube context and that the cluster is reachable, or plan offline with `helm plan diff`"
    if "invalid ownership metadata" in stderr:
        return ("the upgrade itself would fail this way; add --take-ownership to plan an adoption, "
                "or --render template to see the whole plan with this failure as a warning")
    if "not found" in stderr and ("chart" in stderr or "path" in stderr):
        return "check the chart path or reference, and --version"
    if "values" in stderr.lower() or "yaml" in stderr.lower():
        return "fix the values or template named above and plan again"
    return "fix what helm reports and plan again (--debug shows the helm command)"
