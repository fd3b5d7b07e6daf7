"""The README and the documentation site: the site builds with `mkdocs build --strict` (a broken
link, a missing anchor or a page left out of the nav fails), the README stays an install-first
page with the two set-up commands CI runs, its example is what the bundled example prints, and
the measured figures live on the one page their scripts write."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLE, ROOT, Store, run_plan
from test_docs import README, _readme


@pytest.mark.e2e
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    import importlib.util

    for module in ("mkdocs", "material"):  # the test extra's pins (scripts/bootstrap): never skipped
        assert importlib.util.find_spec(module), f"{module} is missing: run scripts/bootstrap"
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (site / "index.html").is_file() and (site / "ARCHITECTURE" / "index.html").is_file()
    assert not (ROOT / "site").exists()


@pytest.mark.e2e
def test_the_readme_example_is_what_the_example_prints(store: Store, helm4: Path) -> None:
    block = _readme().split("<!-- example: scripts/demo --no-color with Helm 4 (tests/e2e/test_docs.py checks it) -->\n```text\n",
                            1)[1].split("```\n<!-- end of example -->", 1)[0]
    store.add("shop", EXAMPLE / "chart-v1", "shop")
    result = run_plan("upgrade", "shop", str(EXAMPLE / "chart-v2"), "-n", "shop", "--no-color", helm=helm4, store=store)
    assert result.code == 0, result.err
    printed = result.out.splitlines()
    at = 0
    for line in block.splitlines():  # the README's lines, in order, with "..." where some are left out
        if line == "...":
            continue
        assert line in printed[at:], line
        at = printed.index(line, at) + 1
