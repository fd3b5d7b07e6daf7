"""Rendered manifest streams, split into documents the way Helm splits them.

A stream is what `helm template`, `helm get manifest` or `helm get hooks` print: documents
separated by `---`, each usually preceded by `# Source: <chart>/<path>`. Helm decides what a
document is from that path and its annotations (releaseutil.SortManifests):
- a `# Source:` path under a chart's `crds/` folder is a chart CRD, never a resource;
- a document with a `helm.sh/hook` annotation is a hook, unless one of its comma-separated
  events is unknown, in which case Helm drops the document entirely;
- everything else is a resource of the release manifest.
"""
from __future__ import annotations

import bisect
import re
from typing import Any, Mapping

from deployah_plan.startup import lazy
from msgspec import Struct, field

from deployah_plan.errors import ManifestError
from deployah_plan.facts import DroppedDocument
from deployah_plan.yamlkube import Known, YAMLError, load_all

HOOK_ANNOTATION = "helm.sh/hook"
HOOK_WEIGHT_ANNOTATION = "helm.sh/hook-weight"
HOOK_DELETE_ANNOTATION = "helm.sh/hook-delete-policy"

# Helm's hook events; `test-success` is the old name of `test`.
HOOK_EVENTS: Mapping[str, str] = {
    "pre-install": "pre-install", "post-install": "post-install",
    "pre-delete": "pre-delete", "post-delete": "post-delete",
    "pre-upgrade": "pre-upgrade", "post-upgrade": "post-upgrade",
    "pre-rollback": "pre-rollback", "post-rollback": "post-rollback",
    "test": "test", "test-success": "test",
}

_MARKER_LINE = lazy(r"^(?:# Source: (.*?)[ \t\r]*$|---)", re.MULTILINE)
_CRD_PATH = lazy(r"^[^/]+(?:/charts/[^/]+)*/crds/")
_GO_ATOI = lazy(r"[+-]?[0-9]+\Z")


class Hook(Struct, frozen=True):
    """The hook annotations as Helm parses them."""

    events: tuple[str, ...]
    weight: int
    delete_policies: tuple[str, ...]


class Document(Struct, frozen=True):
    """One object of a rendered stream. `obj` is read, never changed."""

    obj: dict[str, Any]
    source: str  # the `# Source:` path, or "" when the stream had none
    position: int  # 0-based among the stream's objects
    hook: Hook | None = None

    @property
    def where(self) -> str:
        return self.source or f"document {self.position + 1}"


class Rendered(Struct, frozen=True):
    """A stream split into release resources, hooks and chart CRDs, each in stream order."""

    resources: tuple[Document, ...] = ()
    hooks: tuple[Document, ...] = ()
    crds: tuple[Document, ...] = ()
    dropped: tuple[DroppedDocument, ...] = field(default=())  # the documents left out, and why


class _SourceIndex:
    """Maps a line of the stream to the `# Source:` comment of the document holding it.

    `helm template` prints each template document as `---`, `# Source: <path>`, the document;
    a chart CRD file is printed whole under one `# Source:` line (pkg/action/install.go), and it
    may itself start with `---` and hold several documents. So a `# Source:` comment names:
    - for a path under a chart's crds/: every document up to the next `# Source:` comment;
    - otherwise: the documents up to a `---` that follows content (a `---` right after the
      comment starts the same document), so a stream without comments is never misnamed.
    """

    def __init__(self, text: str) -> None:
        self._sources: list[tuple[int, str]] = []
        self._separators: list[int] = []
        line, offset, last_end = 0, 0, 0
        content_since_source, whole_file = False, False
        for match in _MARKER_LINE.finditer(text):
            line += text.count("\n", offset, match.start())
            offset = match.start()
            content_since_source = content_since_source or _has_content(text, last_end, match.start())
            last_end = match.end()
            if match.group(1) is not None:
                self._sources.append((line, match.group(1)))
                content_since_source, whole_file = False, is_chart_crd_source(match.group(1))
            elif not whole_file and (content_since_source or not self._sources):
                self._separators.append(line)
                content_since_source = False
        self._source_lines = [line for line, _ in self._sources]

    def source_at(self, line: int) -> str:
        i = bisect.bisect_right(self._source_lines, line) - 1
        if i < 0:
            return ""
        source_line, path = self._sources[i]
        j = bisect.bisect_right(self._separators, line) - 1
        if j >= 0 and self._separators[j] > source_line:
            return ""  # a separator stands between that comment and this line
        return path


_NOT_SPACE = lazy(r"\S")
_LINE_BREAK = lazy("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")  # where str.splitlines splits


def _has_content(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] has a line that is neither blank nor a comment: a line whose
    first character other than white space is not `#`. Found by searching, not by splitting
    each document into lines."""
    position = start
    while True:
        found = _NOT_SPACE.search(text, position, end)
        if found is None:
            return False
        if text[found.start()] != "#":
            return True
        line_end = _LINE_BREAK.search(text, found.start(), end)
        if line_end is None:
            return False
        position = line_end.end()


def _annotation(obj: Mapping[str, Any], key: str) -> str | None:
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        return None
    annotations = metadata.get("annotations")
    if not isinstance(annotations, dict):
        return None
    value = annotations.get(key)
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


class UnknownEvent(Struct, frozen=True):
    """A hook event Helm does not know (as written): Helm drops the document."""

    event: str


def parse_hook(obj: Mapping[str, Any]) -> Hook | None | UnknownEvent:
    """The hook a document declares; None for a plain resource; the unknown event that drops it."""
    events_text = _annotation(obj, HOOK_ANNOTATION)
    if events_text is None:
        return None
    events: list[str] = []
    for raw in events_text.split(","):
        event = HOOK_EVENTS.get(raw.strip().lower())
        if event is None:
            return UnknownEvent(raw.strip())
        if event not in events:
            events.append(event)
    weight_text = _annotation(obj, HOOK_WEIGHT_ANNOTATION) or "0"
    # Out of int64 range is 0; a long digit string is out of range before int() is asked to read it.
    in_range = _GO_ATOI.match(weight_text) and len(weight_text.lstrip("+-").lstrip("0")) <= 19
    weight = int(weight_text) if in_range and -(2**63) <= int(weight_text) < 2**63 else 0
    policies_text = _annotation(obj, HOOK_DELETE_ANNOTATION)
    policies = tuple(p.strip().lower() for p in policies_text.split(",")) if policies_text is not None else ()
    return Hook(tuple(events), weight, policies)


def is_chart_crd_source(source: str) -> bool:
    return bool(_CRD_PATH.match(source))


def _check_object(obj: Any, where: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise ManifestError(
            f"{where}: a manifest document must be a mapping, found {type(obj).__name__}",
            "fix the template so that it renders a Kubernetes object",
        )
    for key in ("apiVersion", "kind"):
        if not isinstance(obj.get(key), str) or not obj[key]:
            raise ManifestError(f"{where}: the document has no {key}", "every rendered object needs apiVersion, kind and metadata.name")
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        raise ManifestError(f"{where}: {obj['kind']} has no metadata", "every rendered object needs metadata.name")
    name, generate = metadata.get("name"), metadata.get("generateName")
    if not (isinstance(name, str) and name) and not (isinstance(generate, str) and generate):
        raise ManifestError(f"{where}: {obj['kind']} has no metadata.name", "every rendered object needs metadata.name")
    return obj


def split_stream(text: str, origin: str, known: Known | None = None) -> Rendered:
    """Parse a rendered stream. `origin` names it in error messages (a file, a helm call).
    `known`: the documents of the plan's other stream, taken where this one repeats them
    (yamlkube.py `Known`)."""
    index = _SourceIndex(text)
    resources: list[Document] = []
    hooks: list[Document] = []
    crds: list[Document] = []
    dropped: list[DroppedDocument] = []
    position = 0
    try:
        for loaded in load_all(text, known):
            source = index.source_at(loaded.start_line)
            where = f"{origin}: {source}" if source else f"{origin}: line {loaded.start_line + 1}"
            obj = _check_object(loaded.value, where)
            if source and is_chart_crd_source(source):
                crds.append(Document(obj, source, position))
            else:
                hook = parse_hook(obj)
                if isinstance(hook, UnknownEvent):
                    name = obj["metadata"].get("name")
                    dropped.append(DroppedDocument(source=source, kind=obj["kind"], name="" if name is None else str(name),
                                                   event=hook.event))
                elif hook is None:
                    resources.append(Document(obj, source, position))
                else:
                    hooks.append(Document(obj, source, position, hook))
            position += 1
    except YAMLError as err:
        source = index.source_at(err.line) if err.line >= 0 else ""
        place = f"{source} (line {err.line + 1} of {origin})" if source else (
            f"{origin}, line {err.line + 1}" if err.line >= 0 else origin
        )
        raise ManifestError(f"malformed YAML in {place}: {err}", "fix the template or file that produced it") from None
    return Rendered(tuple(resources), tuple(hooks), tuple(crds), tuple(dropped))
