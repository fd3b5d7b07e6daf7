"""Values files merged as helm merges them (sources/values_files.py): what tells an upgrade's
values from the release's, read by the plan and by the early start alike."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from deployah_plan.sources import values_files


def test_files_merge_map_into_map_and_replace_the_rest(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("a: {x: 1, y: [1, 2]}\nb: 1\n")
    (tmp_path / "b.yaml").write_text("a: {y: [3], z: 2}\nb: {c: 1}\n")
    (tmp_path / "empty.yaml").write_text("")
    files = [str(tmp_path / name) for name in ("a.yaml", "empty.yaml", "b.yaml")]
    assert values_files.merged(files) == {"a": {"x": 1, "y": [3], "z": 2}, "b": {"c": 1}}
    assert values_files.unchanged(files, False, {"a": {"x": 1, "y": [3], "z": 2}, "b": {"c": 1}})
    assert not values_files.unchanged(files, True, {"a": {"x": 1, "y": [3], "z": 2}, "b": {"c": 1}})  # and a --set
    assert not values_files.unchanged([], False, {})  # no file: values flags of --set alone


@pytest.mark.parametrize("name", ["-", "https://example.com/values.yaml", "list.yaml", "bad.yaml", "fifo", "missing.yaml"])
def test_what_is_not_a_local_yaml_map_in_a_regular_file_is_not_read(tmp_path: Path, name: str) -> None:
    (tmp_path / "list.yaml").write_text("- 1\n")
    (tmp_path / "bad.yaml").write_text("a: [\n")
    os.mkfifo(tmp_path / "fifo")  # read, it would wait for a writer that never comes
    path = name if name == "-" or "://" in name else str(tmp_path / name)
    assert values_files.merged([path]) is None
    assert not values_files.unchanged([path], False, {})


def test_a_file_larger_than_any_input_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from deployah_plan.sources import files

    (tmp_path / "big.yaml").write_text("a: " + "x" * 100 + "\n")
    monkeypatch.setattr(files, "MAX_INPUT_BYTES", 50)
    assert values_files.merged([str(tmp_path / "big.yaml")]) is None
