"""scripts/release, run in a temporary clone of this repository: it refuses a dirty tree and a
version that is not newer, moves the version everywhere it lives, moves the changelog's
Unreleased section under the new version with today's date, commits and makes an annotated tag,
and never pushes; --dry-run changes nothing (issue 48 point 4)."""
from __future__ import annotations

import datetime
import re
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.e2e  # runs git and the script as processes

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid"]


def _git(clone: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=clone, capture_output=True, text=True, check=True).stdout


@pytest.fixture()
def clone(tmp_path: Path) -> Path:
    """A clone of this repository's committed state, with an origin that must never be pushed to."""
    path = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(path)], check=True)
    _git(path, "config", "user.name", "t")
    _git(path, "config", "user.email", "t@t.invalid")
    return path


def _release(clone: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(clone / "scripts" / "release"), *args], cwd=clone, capture_output=True, text=True)


def _versions(clone: Path) -> tuple[str, str]:
    init = re.search(r'^__version__ = "([^"]+)"$', (clone / "deployah_plan" / "__init__.py").read_text(), re.M)
    plugin = re.search(r'^version: "([^"]+)"$', (clone / "plugin.yaml").read_text(), re.M)
    assert init and plugin
    return init[1], plugin[1]


def test_a_release_moves_the_version_and_the_changelog_then_tags(clone: Path) -> None:
    was, _ = _versions(clone)
    major, minor, _patch = map(int, was.split("."))
    new = f"{major}.{minor + 1}.0"
    before = (clone / "CHANGELOG.md").read_text()
    notes = before.split("## [Unreleased]\n", 1)[1].split("\n[Unreleased]: ", 1)[0].strip()
    head = _git(clone, "rev-parse", "HEAD").strip()

    done = _release(clone, new)
    assert done.returncode == 0, done.stderr
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    assert _versions(clone) == (new, new)
    changelog = (clone / "CHANGELOG.md").read_text()
    assert f"## [Unreleased]\n\n## [{new}] - {today}\n\n{notes}\n" in changelog
    assert f"[Unreleased]: https://github.com/deployah/helm-plan/compare/v{new}...HEAD\n" in changelog
    assert f"[{new}]: https://github.com/deployah/helm-plan/releases/tag/v{new}\n" in changelog
    # One commit on top, with exactly those files; an annotated tag on it with the notes.
    assert _git(clone, "rev-parse", "HEAD~1").strip() == head
    assert _git(clone, "log", "-1", "--format=%s").strip() == f"Release {new}"
    assert sorted(_git(clone, "diff", "--name-only", "HEAD~1").split()) == [
        "CHANGELOG.md", "deployah_plan/__init__.py", "plugin.yaml"]
    assert _git(clone, "cat-file", "-t", f"v{new}").strip() == "tag"
    assert _git(clone, "rev-parse", f"v{new}^{{commit}}").strip() == _git(clone, "rev-parse", "HEAD").strip()
    message = _git(clone, "tag", "--list", "--format=%(contents)", f"v{new}")
    assert message.startswith(f"helm plan {new}\n\n") and notes.splitlines()[0] in message
    assert _git(clone, "status", "--porcelain") == ""
    # Never pushed: the origin has neither the tag nor the commit.
    assert f"v{new}" not in _git(clone, "ls-remote", "--tags", "origin")
    assert f"git push origin HEAD v{new}" in done.stderr

    # The same version again, or an older one: refused, nothing changed.
    for again in (new, was):
        refused = _release(clone, again)
        assert refused.returncode == 1 and "is not newer than" in refused.stderr, refused.stderr
    # The next release has an empty Unreleased section: refused until it says what changed.
    empty = _release(clone, f"{major}.{minor + 2}.0")
    assert empty.returncode == 1 and "Unreleased section is empty" in empty.stderr


def test_a_dirty_tree_or_a_bad_version_is_refused(clone: Path) -> None:
    was, _ = _versions(clone)
    (clone / "README.md").write_text("changed\n")
    dirty = _release(clone, "99.0.0")
    assert dirty.returncode == 1 and dirty.stderr.startswith("scripts/release: the working tree has changes")
    _git(clone, "checkout", "--", "README.md")
    (clone / "notes.txt").write_text("untracked\n")
    assert _release(clone, "99.0.0").returncode == 1
    (clone / "notes.txt").unlink()
    bad = _release(clone, "1.2")
    assert bad.returncode == 1 and "is not a version" in bad.stderr
    assert _release(clone).returncode == 2
    assert _versions(clone) == (was, was) and _git(clone, "tag", "--list") == ""


def test_a_dry_run_changes_nothing(clone: Path) -> None:
    was, _ = _versions(clone)
    head = _git(clone, "rev-parse", "HEAD")
    done = _release(clone, "99.0.0", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert '+__version__ = "99.0.0"' in done.stdout and '+version: "99.0.0"' in done.stdout
    assert "+## [99.0.0] - " in done.stdout and 'would commit "Release 99.0.0" and tag v99.0.0' in done.stdout
    assert _git(clone, "status", "--porcelain") == "" and _git(clone, "rev-parse", "HEAD") == head
    assert _versions(clone) == (was, was) and _git(clone, "tag", "--list") == ""


def test_the_first_release_may_be_the_version_the_files_carry_until_it_is_tagged(clone: Path) -> None:
    was, _ = _versions(clone)
    if _git(clone, "tag", "--list", f"v{was}"):
        pytest.skip(f"v{was} is tagged already")
    done = _release(clone, was)
    assert done.returncode == 0, done.stderr
    assert _git(clone, "cat-file", "-t", f"v{was}").strip() == "tag" and _versions(clone) == (was, was)
    assert sorted(_git(clone, "diff", "--name-only", "HEAD~1").split()) == ["CHANGELOG.md"]
