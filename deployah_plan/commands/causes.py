"""The render that tells the chart's changes from the values' (core/causes.py): the new chart
with the release's previous user values, started beside the plan's other renders.

Which attribution a plan of `helm plan upgrade` gets:
- an install, none: there is nothing previous to move from; so too `helm plan kube-upgrade`,
  whose chart is the release's own;
- values that do not change (`--reuse-values`, or no values flag, which reuses them as
  `helm upgrade` does; `--reset-values` of a release that had none; values files alone that
  merge to exactly the release's values), every change is the chart's, with no more render
  and no defaults read (the plan says it once);
- a chart of the release's own name and version whose files are the stored chart's word for
  word (`same_chart`: one `helm get all` of the stored chart, beside the desired render), every
  change is the values', with no more render;
- otherwise one more render, of the new chart with the previous user values (`helm get
  values`), in the mode of the first (`helm template`, or `helm upgrade --dry-run=server` with
  `--reset-values` and those values in a file of the plan's private folder:
  commands/upgrade.py `_Renderer.between`). A new chart that refuses the old values (a
  values schema, a `required`) leaves the plan without causes, not without a plan. It starts
  as soon as the release is read (its values are the release's), beside the desired render;
  its text is read only where it differs from the desired render's (commands/upgrade.py
  `_between_documents`), and the two charts' defaults are read beside it.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable

from msgspec import Struct

from deployah_plan.core.causes import Defaults
from deployah_plan.errors import HelmError, ManifestError
from deployah_plan.model import Attribution
from deployah_plan.sources import chart as charts
from deployah_plan.sources.helm import ReleaseState, StoredRelease
from deployah_plan.sources.workers import Call, Workers

if TYPE_CHECKING:
    from deployah_plan.manifests import Rendered


class Between(Struct, frozen=True):
    """How the plan's causes are found, the render that finds them (RENDERED only: its text, or
    for a server render its documents), and the two charts' defaults (None where they were not read)."""

    attribution: Attribution = Attribution.NONE
    text: str = ""
    render: Rendered | None = None
    defaults: Defaults | None = None


class Request(Struct, frozen=True, kw_only=True):
    """What of the upgrade's request decides the attribution: whether values flags were given,
    --reset-values, and whether the chart is the release's own (`helm plan kube-upgrade`)."""

    values_given: bool
    reset_values: bool
    stored_chart: bool
    files: tuple[str, ...] = ()  # the -f files
    sets: tuple[str, ...] = ()  # every --set, --set-string, --set-json, --set-file, --set-literal
    chart: tuple[str, str] = ("", "")  # the new chart's name and version



def _set_keys(item: str) -> list[tuple[str, ...]]:
    """The keys one --set names (`a.b=1,c[0]=2`: a.b and c), read loosely: a comma or dot that
    is not a separator makes a key that matches nothing of the chart's, or more of it, so it
    leaves a default out rather than claims one the user sets."""
    keys = []
    for part in re.split(r"(?<!\\),", item):
        name = part.split("=", 1)[0]
        path = tuple(re.sub(r"\[\d*\]$", "", token).replace("\\.", ".") for token in re.split(r"(?<!\\)\.", name))
        if path and path[0]:
            keys.append(path)
    return keys


def user_keys(request: Request, previous: dict[str, Any]) -> tuple[tuple[str, ...], ...] | None:
    """The keys the user's values set, the release's previous ones with them (a key set once is
    not called a default); None when a values file cannot be read here."""
    merged = _merged(request.files)
    if merged is None:
        return None
    found = [*leaf_keys(previous), *leaf_keys(merged)]
    for item in request.sets:
        found += _set_keys(item)
    return tuple(dict.fromkeys(found))


def leaf_keys(values: Any, at: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    if isinstance(values, dict) and values:
        return [key for name, value in values.items() for key in leaf_keys(value, (*at, str(name)))]
    return [at] if at else []


def _merged(files: tuple[str, ...]) -> dict[str, Any] | None:
    """The -f files merged as helm merges them (pkg/cli/values/options.go mergeMaps: a map into
    a map key by key, anything else replaced); None when one is not a local YAML map."""
    import yaml

    merged: dict[str, Any] = {}
    for path in files:
        if path == "-" or "://" in path:
            return None
        try:
            with open(path, encoding="utf-8") as text:
                loaded = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except (OSError, yaml.YAMLError, UnicodeDecodeError):
            return None
        if loaded is None:
            continue
        if not isinstance(loaded, dict):
            return None
        merged = _merge(merged, loaded)
    return merged


def _merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in top.items():
        below = out.get(key)
        out[key] = _merge(below, value) if isinstance(value, dict) and isinstance(below, dict) else value
    return out


def values_kept(request: Request, previous: dict[str, Any]) -> bool:
    """Whether `helm upgrade` renders with the release's own user values unchanged: no values
    flag (Helm reuses them, or --reuse-values, --reset-then-reuse-values), and not
    `--reset-values` of a release that had some."""
    if request.values_given:
        # Only values files that say exactly what the release has (a pipeline that gives the
        # same file each time): the values do not change, whatever the flag.
        return bool(request.files) and not request.sets and _merged(request.files) == previous
    return not (request.reset_values and previous)


# A chart's files that are not templates or files of the stored chart (pkg/chart/loader: its
# metadata, values, schema, lock and ignore rules; charts/ holds subcharts, never stored).
_OWN = ("Chart.yaml", "values.yaml", "values.schema.json", "Chart.lock", "requirements.yaml", "requirements.lock",
        ".helmignore")
_METADATA = ("apiVersion", "name", "version", "appVersion", "kubeVersion", "description", "type", "home", "icon")


def _listed(value: Any) -> list[Any]:
    """A list printed by the chart template (sources/helm_commands.py), without its closing null."""
    return [item for item in value if item is not None] if isinstance(value, list) else []


def _same_metadata(stored: dict[str, Any], local: dict[str, Any]) -> bool:
    if local.get("dependencies") or any(str(stored.get(k) or "") != str(local.get(k) or "") for k in _METADATA):
        return False
    pairs = {str(k): str(v) for k, v in (p for p in _listed(stored.get("annotations")) if isinstance(p, list) and len(p) == 2)}
    people = [{k: str(m.get(k) or "") for k in ("name", "email", "url")} for m in _listed(stored.get("maintainers"))]
    theirs = [{k: str(m.get(k) or "") for k in ("name", "email", "url")} for m in local.get("maintainers") or []
              if isinstance(m, dict)]
    return (bool(stored.get("deprecated")) == bool(local.get("deprecated"))
            and _listed(stored.get("keywords")) == list(local.get("keywords") or [])
            and _listed(stored.get("sources")) == list(local.get("sources") or [])
            and pairs == {str(k): str(v) for k, v in (local.get("annotations") or {}).items()} and people == theirs)


def same_chart(record: dict[str, Any], local: dict[str, bytes], defaults: dict[str, Any] | None) -> bool:
    """Whether the chart the release stored (`record`: `Helm.stored_chart`, `defaults`: its
    values) is the local chart's files (`local`: sources/chart.py `chart_files`) word for word:
    its templates, files, schema, Chart.yaml's metadata and values.yaml's values. A chart with
    subcharts is never known to be the same (Helm does not store them), nor one a file of which
    helm's loader left out (.helmignore): the render then finds the causes."""
    import yaml

    chart = record.get("chart")
    if not isinstance(chart, dict) or defaults is None or any(name.startswith("charts/") for name in local):
        return False
    stored: dict[str, bytes] = {}
    for entry in [*_listed(chart.get("templates")), *_listed(chart.get("files"))]:
        if not isinstance(entry, dict) or entry.get("size") is not None:
            return False
        stored[str(entry.get("name"))] = bytes.fromhex(str(entry.get("data") or ""))
    if stored != {name: data for name, data in local.items() if name not in _OWN}:
        return False
    if bytes.fromhex(str(chart.get("schema") or "")) != local.get("values.schema.json", b""):
        return False
    try:
        metadata = yaml.safe_load(local.get("Chart.yaml", b"")) or {}
        values = yaml.safe_load(local.get("values.yaml", b"")) or {}
    except yaml.YAMLError:
        return False
    return (isinstance(metadata, dict) and isinstance(chart.get("metadata"), dict)
            and _same_metadata(chart["metadata"], metadata) and values == defaults)


class Reads(Struct, frozen=True):
    """The helm calls the attribution makes: the previous user values (when the release read
    could not print them), the render of the new chart with them (its text, or its documents),
    the previous chart's defaults, the new chart's values.yaml (read from the chart:
    sources/chart.py `default_values`), and whether the new chart is the stored one word for word."""

    values: Callable[[StoredRelease], dict[str, Any]]
    render: Callable[[dict[str, Any]], tuple[str, Rendered | None]]
    old_defaults: Callable[[StoredRelease], dict[str, Any] | None]
    new_defaults: Callable[[], str]
    same_chart: Callable[[StoredRelease], bool]


def _defaults(old: Call[dict[str, Any] | None] | None, new: Call[str] | None,
              keys: tuple[tuple[str, ...], ...] | None) -> Defaults | None:
    import yaml

    if old is None or new is None:
        return None
    try:
        before, text = old.result(), new.result()
        after = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
    except (HelmError, yaml.YAMLError, OSError, *charts.tar_errors()):
        return None
    if before is None or keys is None or not isinstance(after, dict):
        return None
    return Defaults(before, after, keys)


def start(pool: Workers, state_call: Call[ReleaseState], request: Request, reads: Reads,
          after: Call[Any] | None = None) -> Call[Between]:
    """In a worker thread, once the release is read (and `after`, the first render when it
    updates the chart's dependencies): the attribution and the render it needs, and beside the
    render the two charts' defaults. Values that do not change read nothing more (every change
    is the chart's, said once); a chart of the same name and version whose files are the stored
    chart's, word for word, renders nothing more either (every change is the values')."""
    def between() -> Between:
        current = state_call.result().current
        if current is None or request.stored_chart:
            return Between()
        previous = current.values if current.values is not None else reads.values(current)
        if values_kept(request, previous):
            return Between(Attribution.CHART)
        if request.chart == (current.chart_name, current.chart_version):
            # A chart of the same name and version keeps its defaults (they are not read for it).
            if reads.same_chart(current):
                return Between(Attribution.VALUES)
            old = new = None
        else:
            old, new = pool.submit(reads.old_defaults, current), pool.submit(reads.new_defaults)
        if after is not None:
            after.result()
        try:
            text, documents = reads.render(previous)
        except (HelmError, ManifestError):
            return Between()  # the new chart refuses the old values: no cause rather than a guess
        return Between(Attribution.RENDERED, text, documents, _defaults(old, new, user_keys(request, previous)))
    return pool.submit(between)
