"""A plan's private temporary folder (sources/workdir.py): made only when asked for, private,
and removed with all it holds."""
from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from deployah_plan.sources.workdir import Workdir


def test_a_folder_is_made_only_when_asked_for_and_removed_with_what_it_holds(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR read again
    with Workdir("helm-plan-") as unused:
        assert not unused.made
    assert list(tmp_path.iterdir()) == []
    with Workdir("helm-plan-") as workdir:
        path = workdir.path
        assert workdir.made and workdir.path == path and Path(path).parent == tmp_path
        assert Path(path).name.startswith("helm-plan-") and stat.S_IMODE(os.stat(path).st_mode) == 0o700
        (Path(path) / "chart" / "templates").mkdir(parents=True)
        (Path(path) / "previous-values-0.json").write_text('{"password": "x"}')
    assert list(tmp_path.iterdir()) == []


def test_one_folder_whichever_thread_asks_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)
    start = threading.Barrier(4)
    seen: list[str] = []
    with Workdir("helm-plan-") as workdir:
        threads = [threading.Thread(target=lambda: (start.wait(5), seen.append(workdir.path))) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(set(seen)) == 1 and len(list(tmp_path.iterdir())) == 1
    assert list(tmp_path.iterdir()) == []


def test_the_folder_is_removed_when_the_block_ends_by_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)
    with pytest.raises(KeyboardInterrupt):
        with Workdir("helm-plan-") as workdir:
            Path(workdir.path, "values.json").write_text("{}")
            raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []
