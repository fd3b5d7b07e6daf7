"""The plan's predicted failures and warnings where a reviewer reads them: on the chart template
that produced the object, as GitHub annotations or as a GitLab Code Quality report.

Both place a warning at the `# Source:` path helm printed above the object (the change's
`source`, e.g. `shop/templates/deployment.yaml`). That path starts with the chart's name;
`source_root` (the chart's folder in the repository, e.g. `charts/shop`) replaces that first
part, so the file is one the forge can show. A warning about no object, or about one the
desired release does not render (a hook, a chart CRD), is placed at the chart's Chart.yaml.
No template line is known, so the line is 1.

- GitHub: one workflow command a line (docs.github.com, "Workflow commands for GitHub
  Actions"): `::error file=F,line=1,title=T::MESSAGE` for a predicted failure, `::warning` for
  a warning, `::notice` for a note. In a message `%`, CR and LF are written as `%25`, `%0D` and
  `%0A`, and in a property `:` and `,` as `%3A` and `%2C` too, so that a name from a manifest
  can never end the command and start another one.
- GitLab: the Code Quality report (docs.gitlab.com, "Code Quality report format"): a JSON array
  of issues with `description`, `check_name`, `fingerprint`, `severity` (`critical` for a
  predicted failure, `major` for a warning, `info` for a note) and `location.path` with
  `location.lines.begin`. The fingerprint is a digest of the release, the code, the object and
  the message, so the same finding has the same fingerprint on the base and the head and
  GitLab shows only what is new.
"""
from __future__ import annotations

import hashlib
import json
from typing import Iterator, NamedTuple

from deployah_plan.model import Plan, Severity, Warning
from deployah_plan.render.options import WriteOptions
from deployah_plan.escape import escape_controls, workflow_data as _data, workflow_property as _property
from deployah_plan.render.words import warning as warning_words


class Finding(NamedTuple):
    warning: Warning
    path: str  # where the forge shows it: a template, or the chart's Chart.yaml ("" when unknown)


def _path(source: str, source_root: str) -> str:
    if not source_root:
        return source
    root = source_root.rstrip("/")
    _, _, rest = source.partition("/")
    return f"{root}/{rest}" if rest else root


def of(plan: Plan, source_root: str = "") -> Iterator[Finding]:
    sources = {c.resource.identity: c.source for c in (*plan.changes, *plan.ignored) if c.source}
    chart = f"{source_root.rstrip('/')}/Chart.yaml" if source_root else ""
    for warning in plan.warnings:
        source = sources.get(warning.resource.identity, "") if warning.resource is not None else ""
        yield Finding(warning, _path(source, source_root) if source else chart)


def _github_level(warning: Warning) -> str:
    return "error" if warning.fails else "warning" if warning.severity is Severity.WARNING else "notice"


# GitHub shows at most this many annotations of each level (error, warning, notice) per step
# and drops the rest (actions/toolkit, docs/problem-matchers.md, "Limitations").
ANNOTATIONS = 10


def _annotations(plan: Plan, source_root: str) -> list[tuple[str, tuple[Warning, ...]]]:
    """The annotations to make, most important first (warning_words.importance: predicted
    failures, then data loss, then other warnings, then notes): warnings of one code that
    differ only by their object and sit at the same file are one annotation."""
    at = {id(f.warning): f.path for f in of(plan, source_root)}
    out = []
    for group in warning_words.grouped(sorted(plan.warnings, key=warning_words.importance)):
        by_path: dict[str, list[Warning]] = {}
        for warning in group:
            by_path.setdefault(at[id(warning)], []).append(warning)
        out += [(path, tuple(warnings)) for path, warnings in by_path.items()]
    return out


def _message(group: tuple[Warning, ...]) -> str:
    said = warning_words.group_message(group)
    return said if len(group) == 1 else f"{said}: {', '.join(warning_words.member(w) for w in group)}"


def render_github(plan: Plan, options: WriteOptions = WriteOptions()) -> str:
    """One workflow command per annotation, at most ANNOTATIONS of each level, the most
    important first; when some are left out, a first notice says how many, so a reader knows to
    look at the job summary."""
    release = f"helm plan: {plan.header.release}"
    annotations = _annotations(plan, options.source_root)
    levels = [_github_level(group[0]) for _, group in annotations]

    def kept(notices: int) -> list[bool]:
        seen: dict[str, int] = {}
        out = []
        for level in levels:
            seen[level] = seen.get(level, 0) + 1
            out.append(seen[level] <= (notices if level == "notice" else ANNOTATIONS))
        return out

    shown = kept(ANNOTATIONS)
    if not all(shown):
        shown = kept(ANNOTATIONS - 1)  # the first notice is the one that says what was left out
    lines = []
    left: dict[str, int] = {}
    for level, keep in zip(levels, shown):
        if not keep:
            left[level] = left.get(level, 0) + 1
    if left:
        title = _property(escape_controls(f"{release} (annotations)"))
        lines.append(f"::notice title={title}::{_data(warning_words.not_annotated(left, len(annotations), ANNOTATIONS))}\n")
    for (path, group), keep in zip(annotations, shown):
        if not keep:
            continue
        where = f"file={_property(escape_controls(path))},line=1," if path else ""
        title = f"{release} ({group[0].code})"
        message = _data(escape_controls(_message(group)))
        lines.append(f"::{_github_level(group[0])} {where}title={_property(escape_controls(title))}::{message}\n")
    return "".join(lines)


def _severity(warning: Warning) -> str:
    return "critical" if warning.fails else "major" if warning.severity is Severity.WARNING else "info"


def render_codequality(plan: Plan, options: WriteOptions = WriteOptions()) -> str:
    source_root = options.source_root
    issues = []
    for finding in of(plan, source_root):
        warning = finding.warning
        about = warning.resource.identity if warning.resource is not None else ()
        key = json.dumps([plan.header.release, plan.header.namespace, warning.code, list(about), warning_words.message(warning)])
        issues.append({
            "description": warning_words.message(warning),
            "check_name": f"helm-plan/{warning.code}",
            "fingerprint": hashlib.sha256(key.encode()).hexdigest(),
            "severity": _severity(warning),
            "location": {"path": finding.path or "Chart.yaml", "lines": {"begin": 1}},
        })
    return json.dumps(issues, indent=1) + "\n"


__all__ = ["ANNOTATIONS", "Finding", "of", "render_codequality", "render_github"]
