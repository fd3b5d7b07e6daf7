"""The inputs record of a saved plan: what `helm plan verify` needs to make the plan again, and
to say what moved since.

A plan saved with `--out` carries an `inputs` object beside the plan (format 1.3):

- `command` and `argv`: the command line after the program name, as helm reads it (pflag.py:
  each flag spelt `--flag=VALUE`), except that the values of `--set`, `--set-string`,
  `--set-json` and `--set-literal` become a digest (their keys stay readable), and a
  credential flag (`--password`, a token) and the user and password of a URL
  (`--repo https://user:pw@host`, a chart or values URL) become `(hidden)`. It is parsed again
  by the same command, so every flag the command has is recorded without naming it here;
- `chart`: the chart reference and a digest of what was rendered (the archive's bytes, or of a
  chart folder every file's relative path and content, in path order);
- `files`: a digest of each file the command read by path (`-f`, `--set-file`,
  `--ignore-file`), never its content;
- `previous`: the revision planned against, the newest revision, and a digest of the previous
  manifest and hooks as stored; `render`: a digest of the desired documents (resources, hooks,
  chart CRDs, after parsing: text that parses the same digests the same); `render_stable`: the
  same digest with each value the plan marks `regenerated` (a random password, a certificate,
  the render's time, a generated name: core/regenerated.py) put as `(regenerated)`, so that two
  renders of the same inputs digest the same (absent from a record made before it: verify then
  compares `render`);
- `live`: whether the live state was read, and a digest of the live objects the plan used
  (those named by the previous or desired release, and those annotated as this release's),
  without what changes on its own: `metadata.resourceVersion`, `metadata.generation`,
  `metadata.managedFields[].time` and `status`, none of which the plan reads;
- the helm version, the kube context and namespace, and this program's version (from the
  plan's header and the package);
- `digest`: how the digests were made, and `seal`: a digest of the whole document (the plan
  and this record, `seal` left out), so editing either is detected (seal.py, which also says
  how HELM_PLAN_KEY keys every digest).

Each release command returns what it read with its plan (`Planned(plan, inputs)`); the record
is a function of those inputs, what its file flags were given, its argv and a Digester
(`make_record`), made only for --out or verify, and `sealed` into the document.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from msgspec import Struct, field

from deployah_plan.startup import lazy
from deployah_plan import __version__
from deployah_plan.errors import UsageError
from deployah_plan.manifests import Document, Rendered
from deployah_plan.model import FieldChange, Header, Plan, ResourceRef
from deployah_plan.flags import BY_COMMAND, Flag
from deployah_plan import pointer
from deployah_plan.pflag import helm_spelling
from deployah_plan.planfile.seal import ALGORITHM, Digester, canonical
from deployah_plan.redact import hide_userinfo, value_keys
from deployah_plan.sources.helm import StoredRelease
from deployah_plan.live_snapshot import LiveSnapshot

if TYPE_CHECKING:
    import click

HIDDEN = "(hidden)"
# The value flags whose values are recorded as digests (helm's strvals: comma-separated K=V).
VALUE_PARAMS = frozenset({"set_", "set_string", "set_json", "set_literal"})
# Params naming files whose content the plan read, and the flag to show for each.
FILE_PARAMS = {"values_files": "--values", "set_file": "--set-file", "ignore_files": "--ignore-file"}
_CREDENTIAL = lazy(r"password|token|secret", re.I)
_DIGESTED = lazy(r"=\(" + ALGORITHM + r":[0-9a-f]+\)$")


# -- digests of what a plan read -------------------------------------------------------------

def chart_tree_sha256(path: str) -> bytes:
    """A packaged chart by its bytes; a chart folder by each file's relative path and content,
    in path order (so neither the walk order nor timestamps matter). A folder of a few thousand
    lines digests in milliseconds."""
    import hashlib
    from pathlib import Path  # only when a record is written

    root = Path(path)
    hasher = hashlib.sha256()
    try:
        if root.is_dir():
            for file in sorted((p for p in root.rglob("*") if p.is_file()), key=lambda p: p.relative_to(root).as_posix()):
                name = file.relative_to(root).as_posix().encode()
                content = file.read_bytes()
                hasher.update(len(name).to_bytes(8, "big") + name + len(content).to_bytes(8, "big") + content)
        else:
            hasher.update(root.read_bytes())
    except OSError as err:
        raise UsageError(f"cannot read the chart {path} to digest it: {err.strerror or err}", "check the chart path") from None
    return hasher.digest()


def chart_digest(digester: Digester, path: str) -> str:
    return digester.digest(chart_tree_sha256(path))


def _file_digest(digester: Digester, path: str) -> str | None:
    """None for what is not a local file (a URL, standard input)."""
    if path == "-" or "://" in path:
        return None
    try:
        with open(path, "rb") as source:
            return digester.digest(source.read())
    except OSError:
        return None


def _documents(docs: Iterable[Document]) -> list[Any]:
    return [[d.source, d.obj] for d in docs]


# A field of a rendered object, by the object's group, kind and name and the field's JSON Pointer.
Regenerated = frozenset[tuple[str, str, str, str]]
REGENERATED = "(regenerated)"


def regenerated_fields(plan: Plan) -> Regenerated:
    """The fields of the desired objects whose value the plan marks `regenerated`: the chart
    makes them anew on every render (core/regenerated.py)."""
    found: set[tuple[str, str, str, str]] = set()

    def add(ref: ResourceRef, fields: Iterable[FieldChange], created: Iterable[str]) -> None:
        found.update((ref.group, ref.kind, ref.name, f.path) for f in fields if f.regenerated)
        found.update((ref.group, ref.kind, ref.name, path) for path in created)

    for change in (*plan.changes, *plan.ignored):
        add(change.resource, (*change.fields, *change.ignored_fields), change.regenerated_paths)
    for task in plan.tasks:
        for definition in task.definitions:
            add(definition.resource, definition.fields, definition.regenerated_paths)
    return frozenset(found)


def _put(value: Any, tokens: Sequence[str]) -> Any:
    if not tokens:
        return REGENERATED
    head, rest = tokens[0], tokens[1:]
    if isinstance(value, dict) and head in value:
        return {**value, head: _put(value[head], rest)}
    if isinstance(value, list) and head.isdigit() and int(head) < len(value):
        return [*value[:int(head)], _put(value[int(head)], rest), *value[int(head) + 1:]]
    return value


def settle(value: Any, path: str) -> Any:
    """A copy of `value` with the field the JSON Pointer names put as REGENERATED; `value` when
    it names nothing in it."""
    return _put(value, pointer.tokens(path))


def _settled(doc: Document, regenerated: Regenerated) -> list[Any]:
    obj: Any = doc.obj
    group, kind, name = _identity(doc.obj)
    for path in sorted(p for g, k, n, p in regenerated if (g, k, n) == (group, kind, name)):
        obj = settle(obj, path)
    return [doc.source, obj]


def rendered_digest(digester: Digester, rendered: Rendered | None, regenerated: Regenerated | None = None) -> str:
    """The desired documents' digest; with `regenerated`, those fields' values left out."""
    if rendered is None:
        return ""

    def documents(docs: Iterable[Document]) -> list[Any]:
        return _documents(docs) if regenerated is None else [_settled(d, regenerated) for d in docs]

    return digester.digest(canonical({"resources": documents(rendered.resources), "hooks": documents(rendered.hooks),
                                      "crds": documents(rendered.crds)}))


def _identity(obj: dict[str, Any]) -> tuple[str, str, str]:
    """Group, kind and name. A rendered document and a live object always carry a kind
    (manifests.py and the cluster reader set or require it)."""
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    return group, str(obj["kind"]), str((obj.get("metadata") or {}).get("name", ""))


def _stable(obj: dict[str, Any]) -> dict[str, Any]:
    """A live object without what changes on its own and the plan never reads."""
    out = {k: v for k, v in obj.items() if k != "status"}
    meta = dict(out.get("metadata") or {})
    for key in ("resourceVersion", "generation"):
        meta.pop(key, None)
    if isinstance(meta.get("managedFields"), list):
        meta["managedFields"] = [{k: v for k, v in entry.items() if k != "time"} if isinstance(entry, dict) else entry
                                 for entry in meta["managedFields"]]
    out["metadata"] = meta
    return out


def live_record(digester: Digester, live: LiveSnapshot, release: str, streams: Sequence[Rendered | None]) -> dict[str, Any]:
    if not live.reachable:
        return {"read": False, "error": live.error}
    named = {_identity(d.obj) for r in streams if r is not None for d in (*r.resources, *r.hooks, *r.crds)}
    used = []
    for obj in live.objects:
        annotations = (obj.get("metadata") or {}).get("annotations") or {}
        if _identity(obj) in named or annotations.get("meta.helm.sh/release-name") == release:
            meta = obj.get("metadata") or {}
            used.append(((_identity(obj), str(meta.get("namespace", ""))), _stable(obj)))
    used.sort(key=lambda item: item[0])
    unreadable = sorted([u.api_version, u.kind, u.namespace, u.reason] for u in live.unreadable)
    return {"read": True, "objects": len(used),
            "digest": digester.digest(canonical({"objects": [o for _, o in used], "unreadable": unreadable}))}


# -- the command line, with secrets taken out ------------------------------------------------

def _credential(name: str) -> bool:
    return bool(_CREDENTIAL.search(name))


def is_credential(param: click.Parameter) -> bool:
    return _credential(param.name or "")


def _redact_value(flag: Flag, value: str, digester: Digester) -> str:
    if flag.dest in VALUE_PARAMS:
        keys = value_keys(value, whole=flag.dest in ("set_json", "set_literal"))
        return f"{keys}=({digester.digest(value.encode())})"
    if _credential(flag.dest):
        return HIDDEN
    return hide_userinfo(value)


def redact_argv(command: str, argv: Sequence[str], digester: Digester) -> list[str]:
    """argv (the command's name first) as helm reads it (pflag.helm_spelling: each flag
    `--long=VALUE`), with the values of the value flags digested, credentials hidden, and the
    user and password of a URL (`--repo https://user:pw@host`, a chart URL) hidden."""
    table = BY_COMMAND[command]
    by_long = {flag.long: flag for flag in table}
    out = list(argv[:1])
    ended = False
    for token in helm_spelling(table, argv[1:]):
        name, eq, value = token.partition("=")
        flag = None if ended else by_long.get(name)
        ended = ended or token == "--"
        out.append(f"{name}={_redact_value(flag, value, digester)}" if flag is not None and eq
                   else hide_userinfo(token))
    return out


def hidden_values(argv: Sequence[str]) -> bool:
    """Whether a recorded argv holds values that are only digests (it cannot be run as is)."""
    return any(HIDDEN in token or _DIGESTED.search(token) for token in argv)


# -- what a plan read, and the record made of it ---------------------------------------------

class ChartRead(Struct, frozen=True, kw_only=True):
    """The chart as given, and a digest of what was rendered (the tree's SHA-256, made while a
    pulled chart's temporary folder still exists; keyed when the record is made)."""

    ref: str
    tree_sha256: bytes


class Inputs(Struct, frozen=True, kw_only=True):
    """What a release command read while it planned, kept by reference: the record's digests
    are taken of it only when a record is made (--out, verify), so a plan that is only printed
    pays nothing for them. Nothing read: the defaults (`helm plan diff`)."""

    chart: ChartRead | None = None
    previous: StoredRelease | None = None  # the revision planned against
    newest_revision: int = 0
    desired: Rendered | None = None  # what the render gave, before the planner adds anything
    live: LiveSnapshot | None = None  # None: not read
    release: str = ""
    live_streams: tuple[Rendered | None, ...] = ()  # the previous and desired streams, naming what the live read used


class Planned(Struct, frozen=True):
    """What a plan_* function made, and what it read to make it."""

    plan: Plan
    inputs: Inputs = field(default_factory=Inputs)


def _files(given: Mapping[str, Sequence[str]], digester: Digester) -> list[dict[str, Any]]:
    files = []
    for name, flag in FILE_PARAMS.items():
        for item in given.get(name) or ():
            paths = [part.split("=", 1)[1] for part in str(item).split(",") if "=" in part] \
                if name == "set_file" else [str(item)]
            files += [{"flag": flag, "path": hide_userinfo(path), "digest": _file_digest(digester, path)}
                      for path in paths]
    return files


def make_record(inputs: Inputs, header: Header, command: str, files: Mapping[str, Sequence[str]],
                argv: Sequence[str], digester: Digester, *, regenerated: Regenerated | None = None) -> dict[str, Any]:
    """The inputs record, unsealed: what the command read, what its file flags were given (by
    parameter name, FILE_PARAMS) and its argv (the command's name first); with the fields the
    plan marks regenerated (`regenerated_fields`), the render's digest without them too."""
    previous = None if inputs.previous is None else {
        "revision": inputs.previous.revision, "newest_revision": inputs.newest_revision,
        "digest": digester.digest(canonical([inputs.previous.manifest, inputs.previous.hooks_stream])),
    }
    chart = None if inputs.chart is None else {"ref": inputs.chart.ref, "digest": digester.digest(inputs.chart.tree_sha256)}
    live = (live_record(digester, inputs.live, inputs.release, inputs.live_streams) if inputs.live is not None
            else {"read": False})
    return {
        "command": argv[0] if argv else "",
        "argv": redact_argv(command, argv, digester),
        "helm_plan_version": __version__,
        "helm_version": header.helm_version,
        "kube_context": header.kube_context,
        "namespace": header.namespace,
        "release": header.release,
        "chart": chart,
        "files": _files(files, digester),
        "previous": previous,
        "render": rendered_digest(digester, inputs.desired),
        **({} if regenerated is None else {"render_stable": rendered_digest(digester, inputs.desired, regenerated)}),
        "live": live,
        "digest": digester.describe(),
    }


__all__ = [
    "ChartRead", "HIDDEN", "Inputs", "Planned", "REGENERATED", "Regenerated", "VALUE_PARAMS", "chart_digest",
    "chart_tree_sha256", "hidden_values", "is_credential", "live_record", "make_record", "redact_argv",
    "regenerated_fields", "rendered_digest", "settle",
]
