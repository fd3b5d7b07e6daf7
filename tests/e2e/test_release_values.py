"""The release's user values read with the release (one `helm get all`, sources/helm.py) are
exactly what `helm get values -o json` prints, types and all, on Helm 3 and Helm 4: every JSON
type, numbers fmt prints otherwise than encoding/json (1e+06, 1.2345678901234567e+19, 1e-05),
escapes %q spells otherwise (\\a, \\v, \\x01), keys sorted, the empty key, empty maps and lists,
a release without values."""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from deployah_plan.sources.helm import Helm

TRICKY: dict[str, Any] = {
    "b": 1, "": "empty", "emptymap": {}, "emptylist": [], "nul": None,
    "multi": "line1\nline2\t\"q\" \\ back",
    "a": {"z": [1, 2.5, "x", None, True, False, {"q": "\u0007\u000b\u00ad\U0001F600é<>&\u2028\x01\u0085"}],
          "big": 12345678901234567890, "e": 1e21, "small": 0.00001, "m": 1000000, "m2": 1e6, "neg": -0.0,
          "f": 1.5e-7, "g": 1234567.8, "h": 123456789012.0, "i": 9007199254740993, "n": -42, "p": 1e100,
          "dots.and/slashes": {"%q": "{{ .Values.x }}"}},
}


def _tree(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(8 if depth < 4 else 5)
    if kind == 0:
        return rng.choice([0, 1, -1, 7, 10**6, 2**53 + 1, 10**20, -10**15])
    if kind == 1:
        return rng.choice([0.5, 1e-7, 3.14159, 1e21, 2.5e22, 123456.789, 1e6, 1e15 + 0.5, -0.0])
    if kind == 2:
        return "".join(rng.choice(["a", "é", "\t", "\n", "\"", "\\", "{{", "%", "\u00ad", "\u2028", "\x1f", " "])
                       for _ in range(rng.randrange(6)))
    if kind == 3:
        return rng.choice([True, False])
    if kind == 4:
        return None
    if kind == 5:
        return [_tree(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(["a", "b", "B", "_", "", "k.v", "ü", "1"]) + str(n): _tree(rng, depth + 1)
            for n in range(rng.randrange(4))}


def _store(tmp_path: Path, values: list[Any]) -> Path:
    releases = [{"name": f"r{n}", "namespace": "default", "version": 1, "info": {"status": "deployed"},
                 "manifest": "", "chart": {"metadata": {"name": "c", "version": "1.0.0"}},
                 **({"config": config} if config is not None else {})} for n, config in enumerate(values)]
    path = tmp_path / "releases.json"
    path.write_text(json.dumps(releases, ensure_ascii=False))
    return path


@pytest.mark.e2e
def test_the_values_read_with_the_release_are_helm_get_values(helm: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(36)
    values = [TRICKY, None, {}, *[{"top": _tree(rng, 0), "x": _tree(rng, 0)} for _ in range(12)]]
    monkeypatch.setenv("HELM_DRIVER", "memory")
    monkeypatch.setenv("HELM_MEMORY_DRIVER_DATA", str(_store(tmp_path, values)))
    monkeypatch.setenv("HELM_BIN", str(helm))
    client = Helm.find()
    helm_major = int(helm.parent.name.split(".")[0])
    for n in range(len(values)):
        stored = client.record(f"r{n}", "default", None, helm_major)
        assert stored is not None and stored.values is not None
        asked = client.values(f"r{n}", "default", 1)
        # Types and all: json.dumps tells 1 from 1.0, and keeps the key order.
        assert json.dumps(stored.values) == json.dumps(asked), n
