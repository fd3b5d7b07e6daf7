"""Server-side apply as the API server computes it: the tests' reference, which runs Kubernetes'
own structured-merge-diff (tests/ssa/ssaref.go, built by scripts/fetch-ssa-reference from
Debian's packages) over a history of writes to one object. It imports nothing from the plan.

A case is the object's type (its apiVersion and kind) and its steps: each manager's `Apply`
(server-side apply, with `force` as --force-conflicts) or `Update` (a create, update or patch of
the whole object: kubectl edit, client-side apply, a controller). The outcome is the object
after the last step that succeeded, each manager's fields (as managedFields holds them) and, per
step, the conflicts (manager, field) or the error.
"""
from __future__ import annotations

import functools
import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BINARY = ROOT / ".cache" / "ssa" / "ssaref"
SWAGGER = ROOT / ".cache" / "ssa" / "swagger.json"


@dataclass(frozen=True)
class Step:
    manager: str
    operation: str  # "Apply" or "Update"
    obj: dict[str, Any]
    force: bool = False


@dataclass(frozen=True)
class Conflict:
    manager: str
    field: str  # as the API server's message names it: .spec.template.spec.containers[name="c"].image


@dataclass
class Outcome:
    obj: dict[str, Any] | None
    managers: dict[str, tuple[str, dict[str, Any]]]  # manager -> (operation, FieldsV1)
    conflicts: list[list[Conflict]] = field(default_factory=list)  # per step
    errors: list[str] = field(default_factory=list)  # per step ("" when none)

    def owned(self, manager: str) -> set[str]:
        """The leaves a manager owns, as FieldsV1 paths joined by `/` (`f:spec/f:replicas`)."""
        fields = self.managers.get(manager, ("", {}))[1]
        return set(_leaves(fields))


def _leaves(fields: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for key, value in fields.items():
        if key == ".":
            out.append(prefix.rstrip("/"))
        elif isinstance(value, dict) and value:
            out += _leaves(value, f"{prefix}{key}/")
        else:
            out.append(f"{prefix}{key}")
    return out


def missing() -> str | None:
    """Why the reference cannot run here, or None."""
    if not BINARY.is_file() or not SWAGGER.is_file():
        return ("no server-side apply reference in .cache/ssa: scripts/bootstrap builds it from Debian's "
                "golang-go, golang-k8s-sigs-structured-merge-diff-dev and golang-k8s-kube-openapi-dev")
    return None


def required() -> None:
    """Outside CI a missing reference skips the test; in CI (CI=true) it fails it, so CI never
    passes without the reference."""
    import os

    import pytest

    reason = missing()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI=true: a missing reference is a failure here")
        pytest.skip(reason)


@functools.lru_cache(maxsize=1)
def _types() -> dict[tuple[str, str], str]:
    """(apiVersion, kind) -> the definition's name."""
    out = {}
    for name, body in json.loads(SWAGGER.read_text())["definitions"].items():
        for gvk in body.get("x-kubernetes-group-version-kind") or ():
            api = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
            out[(api, gvk["kind"])] = name
    return out


def type_of(obj: dict[str, Any]) -> str:
    return _types()[(str(obj["apiVersion"]), str(obj["kind"]))]


def run(cases: list[list[Step]], timeout: float = 120) -> list[Outcome]:
    """Each case's outcome, computed in one run of the reference."""
    request = {"swagger": str(SWAGGER), "cases": [
        {"type": type_of(steps[0].obj),
         "steps": [{"manager": s.manager, "operation": s.operation, "object": s.obj, "force": s.force} for s in steps]}
        for steps in cases]}
    done = subprocess.run([str(BINARY)], input=json.dumps(request), capture_output=True, text=True, timeout=timeout,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the server-side apply reference failed: {done.stderr.strip()}")
    outcomes = []
    for result in json.loads(done.stdout)["results"]:
        if result.get("error"):
            raise RuntimeError(result["error"])
        outcomes.append(Outcome(
            obj=result["object"],
            managers={name: (m["operation"], m["fields"]) for name, m in result["managers"].items()},
            conflicts=[[Conflict(c["manager"], c["field"]) for c in step["conflicts"]] for step in result["steps"]],
            errors=[step.get("error", "") for step in result["steps"]]))
    return outcomes
