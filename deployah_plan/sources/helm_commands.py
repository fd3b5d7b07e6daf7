"""The arguments of the helm calls a plan starts first, and which helm it starts them with:
built here alone, for `Helm` (sources/helm.py) and for the start before the imports
(sources/early.py), which must start the very same commands. Imports nothing of helm plan's
but its errors, so that start is not held back.
"""
from __future__ import annotations

import os

from deployah_plan.errors import HelmError

TYPE_CHECKING = False  # typing's own is not imported before the first helm call (sources/early.py)
if TYPE_CHECKING:
    from typing import Any, Iterable, Mapping, Sequence


def default_binary() -> str | None:
    """The helm to run: HELM_BIN (helm sets it for a plugin), else `helm` on PATH (shutil
    imported only then: it brings the compression modules, milliseconds before the first call)."""
    given = os.environ.get("HELM_BIN")
    if given:
        return given
    import shutil

    return shutil.which("helm")


def reads_standard_input(files: Iterable[str], set_file: Iterable[str]) -> bool:
    """Whether helm reads its standard input for these values flags: `-f -`, `--set-file key=-`
    (pkg/cli/values/options.go readFile)."""
    return "-" in files or any(item.endswith("=-") for item in set_file)


def values_on_stdin(values: Mapping[str, Any]) -> tuple[list[str], str | None]:
    """A release's values as helm plan gives them to a render: `--values -`, and their JSON (as
    deep as helm wrote them) for its standard input; no flag and no input for no values."""
    if not values:
        return [], None
    from deployah_plan import deepjson

    return ["--values", "-"], deepjson.dumps(values)


def driver_from_env(env: Mapping[str, str]) -> str:
    """The release storage driver helm uses (pkg/action/action.go `Init`): "secret" when
    HELM_DRIVER is unset, empty, "secret" or "secrets"; "configmap" for "configmap" or
    "configmaps"; "memory"; "sql". Matched as written (helm does not lower it); anything else is
    returned as it is, and helm refuses it ("unknown driver")."""
    value = env.get("HELM_DRIVER", "")
    if value in ("", "secret", "secrets"):
        return "secret"
    if value in ("configmap", "configmaps"):
        return "configmap"
    return value


# The drivers whose releases helm plan reads itself (release/helm_storage.py): the others (sql,
# an unknown name) are read by helm.
DIRECT_DRIVERS = ("secret", "configmap", "memory")


def major(helm_version: str) -> int:
    """The major version of a helm version string, which decides Helm's kind orders."""
    try:
        return int(helm_version.split(".")[0])
    except ValueError:
        raise HelmError(f"cannot read helm's version from {helm_version!r}", "use Helm 3.17+ or Helm 4") from None


# One revision's record, as JSON whose strings Go quoted with %q (decoded by sources/helm.py), on
# one line (every string is quoted).
# text/template has no JSON function, and `helm get all` offers no -o json.
_RECORD_TEMPLATE = (
    '{"name":{{printf "%q" .Release.Name}},"namespace":{{printf "%q" .Release.Namespace}},'
    '"version":{{.Release.Version}},"status":{{printf "%q" (printf "%s" .Release.Info.Status)}},'
    '"chart_name":{{with .Release.Chart}}{{with .Metadata}}{{printf "%q" .Name}}{{else}}""{{end}}{{else}}""{{end}},'
    '"chart_version":{{with .Release.Chart}}{{with .Metadata}}{{printf "%q" .Version}}{{else}}""{{end}}{{else}}""{{end}},'
    '"manifest":{{printf "%q" .Release.Manifest}},'
    '"hooks":[{{range $i, $h := .Release.Hooks}}{{if $i}},{{end}}'
    '{"path":{{printf "%q" $h.Path}},"manifest":{{printf "%q" $h.Manifest}}}{{end}}],'
    # The chart's crds/ files (the record keeps the top chart's files; `null` ends the list).
    '"crd_files":[{{with .Release.Chart}}{{range .Files}}{{if ge (len .Name) 5}}{{if eq (slice .Name 0 5) "crds/"}}'
    '{"name":{{printf "%q" .Name}},"data":{{printf "%q" (printf "%s" .Data)}}},{{end}}{{end}}{{end}}{{end}}null]'
    '__APPLY_METHOD__}'
)
# Helm 4 records how the release was applied (model.ApplyMethod); Helm 3's release has no such field,
# and its template would fail on it.
_APPLY_METHOD = ',"apply_method":{{printf "%q" .Release.ApplyMethod}}'


# A revision's stored chart: its metadata, templates, files and values schema. Helm keeps only the
# top chart with a release (a chart's subcharts are not serialised: pkg/chart Chart.dependencies is
# unexported), and its values.yaml only as parsed values, which `helm get values --all` prints.
# File contents are printed as hex (%x of a []byte): any byte comes back as it was.
# A chart file's content as hex, unless it is larger than helm loads a chart file (pkg/chart
# loader.MaxDecompressedFileSize, 5 MiB): then only its size, so a record whose file inflates to
# hundreds of megabytes is refused before it is read (release/stored_chart.py).
MAX_CHART_FILE = 5 * 1024 * 1024
_FILE_DATA = (f'{{{{if le (len .Data) {MAX_CHART_FILE}}}}}"data":"{{{{printf "%x" .Data}}}}"'
              '{{else}}"data":"","size":{{len .Data}}{{end}}')
_CHART_TEMPLATE = (
    '{"revision":{{.Release.Version}},"chart":{{with .Release.Chart}}{'
    '"metadata":{{with .Metadata}}{"apiVersion":{{printf "%q" .APIVersion}},"name":{{printf "%q" .Name}},'
    '"version":{{printf "%q" .Version}},"appVersion":{{printf "%q" .AppVersion}},'
    '"kubeVersion":{{printf "%q" .KubeVersion}},"description":{{printf "%q" .Description}},'
    '"type":{{printf "%q" .Type}},"home":{{printf "%q" .Home}},"icon":{{printf "%q" .Icon}},'
    '"deprecated":{{.Deprecated}},'
    '"keywords":[{{range .Keywords}}{{printf "%q" .}},{{end}}null],'
    '"sources":[{{range .Sources}}{{printf "%q" .}},{{end}}null],'
    '"annotations":[{{range $k, $v := .Annotations}}[{{printf "%q" $k}},{{printf "%q" $v}}],{{end}}null],'
    '"maintainers":[{{range .Maintainers}}{{if .}}{"name":{{printf "%q" .Name}},"email":{{printf "%q" .Email}},'
    '"url":{{printf "%q" .URL}}},{{end}}{{end}}null],'
    '"dependencies":[{{range .Dependencies}}{{if .}}{"name":{{printf "%q" .Name}},"alias":{{printf "%q" .Alias}}},'
    '{{end}}{{end}}null]}{{else}}null{{end}},'
    '"templates":[{{range .Templates}}{{if .}}{"name":{{printf "%q" .Name}},' + _FILE_DATA + '},'
    '{{end}}{{end}}null],'
    '"files":[{{range .Files}}{{if .}}{"name":{{printf "%q" .Name}},' + _FILE_DATA + '},{{end}}{{end}}null],'
    '"schema":"{{printf "%x" .Schema}}"}{{else}}null{{end}}}'
)


def chart_args(name: str, namespace: str, revision: int) -> list[str]:
    """`helm get all` of one revision, printing its stored chart as one JSON record."""
    return ["get", "all", name, "-n", namespace, "--revision", str(revision), "--template", _CHART_TEMPLATE]


def list_args(namespace: str | None, selector: str | None) -> list[str]:
    """`helm list` of the releases whose newest revision is deployed, failed or pending, in one
    namespace or (None) all, every one of them (`--max 0`: no limit)."""
    scope = ["-A"] if namespace is None else ["-n", namespace]
    return ["list", *scope, "-o", "json", "--max", "0", "--deployed", "--failed", "--pending",
            *(["-l", selector] if selector else [])]


# The revision's user values (`.Release.Config`, what `helm get values` prints), on a second line:
# text/template has no JSON function, so the template walks them by type (`printf "%T"`): a map
# as an object whose keys text/template visits sorted, as encoding/json does, closed by an
# extra `"":null` pair (decoded by sources/helm.py, which drops each object's last pair); a
# list; a string quoted with %q; a number or a bool as fmt prints it; nil as null. A type
# other than those JSON decodes to prints `!` and the type, which is no JSON: the values are
# then read by `helm get values`.
_VALUES_TEMPLATE = (
    '{{define "helm-plan-value"}}{{$t := printf "%T" .}}'
    '{{if eq $t "map[string]interface {}"}}{ {{- range $k, $v := .}}{{printf "%q" $k}}:'
    '{{template "helm-plan-value" $v}},{{end}}"":null}'
    '{{else if eq $t "[]interface {}"}}[{{range $i, $e := .}}{{if $i}},{{end}}{{template "helm-plan-value" $e}}{{end}}]'
    '{{else if eq $t "string"}}{{printf "%q" .}}'
    '{{else if or (eq $t "float64") (eq $t "int64") (eq $t "int") (eq $t "bool")}}{{.}}'
    '{{else if eq $t "<nil>"}}null{{else}}!{{$t}}{{end}}{{end}}'
    '\n{{template "helm-plan-value" .Release.Config}}'
)


# On a third line, the chart's own default values (`.Release.Chart.Values`, its values.yaml as
# the release stored it: why each change, core/causes.py), walked as the user values are; the top
# map is a named type (chartutil.Values), so its keys are walked here. Decoded only when used.
_DEFAULTS_TEMPLATE = (
    '\n{{with .Release.Chart}}{ {{- range $k, $v := .Values}}{{printf "%q" $k}}:{{template "helm-plan-value" $v}},'
    '{{end}}"":null}{{else}}null{{end}}'
)


def record_template(helm_major: int) -> str:
    return (_RECORD_TEMPLATE.replace("__APPLY_METHOD__", _APPLY_METHOD if helm_major >= 4 else "") + _VALUES_TEMPLATE
            + _DEFAULTS_TEMPLATE)


def record_args(name: str, namespace: str, revision: int | None, helm_major: int) -> list[str]:
    """`helm get all` of one revision of a release (the newest when None), as one JSON record."""
    args = ["get", "all", name, "-n", namespace, "--template", record_template(helm_major)]
    return args + (["--revision", str(revision)] if revision is not None else [])


def template_args(name: str, chart: str, namespace: str, args: Sequence[str], upgrade: bool,
                  include_crds: bool = True) -> list[str]:
    """`helm template` of the chart at path `chart`, with `args` (values, render flags)."""
    command = ["template", name, chart, "-n", namespace, *(["--include-crds"] if include_crds else []), *args]
    return command + (["--is-upgrade"] if upgrade else [])


def dry_run_args(name: str, chart: str, namespace: str, args: Sequence[str]) -> list[str]:
    """`helm upgrade --install --dry-run=server` of the chart at path `chart`, printing the
    release it would make as JSON."""
    return ["upgrade", "--install", name, chart, "-n", namespace, "--dry-run=server", "-o", "json", *args]


__all__ = ["DIRECT_DRIVERS", "chart_args", "default_binary", "driver_from_env", "dry_run_args", "list_args", "major", "record_args", "record_template",
           "template_args", "values_on_stdin"]
