"""The README and the documentation site, read as files: every page in the nav once, the README an
install-first page with the two set-up commands CI runs and links only to pages that exist, and
the measured figures on the one page their scripts write. The site built with
`mkdocs build --strict` and the README's example run: tests/e2e/test_docs.py."""
from __future__ import annotations

import re


from conftest import ROOT

README = ROOT / "README.md"


def _readme() -> str:
    return README.read_text()


def test_every_page_is_in_the_nav_once() -> None:
    nav = re.findall(r":\s+(\S+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.MULTILINE)
    pages = sorted(str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md"))
    assert sorted(nav) == pages and len(set(nav)) == len(nav)
    assert "  - Commands:\n" in (ROOT / "mkdocs.yml").read_text()


def test_the_readme_is_install_first() -> None:
    lines = _readme().splitlines()
    assert len(lines) <= 300
    first_install = next(i for i, line in enumerate(lines) if line.startswith("helm plugin install"))
    assert first_install < 80, "the install is on the first screens"
    assert lines.index("## Install") < lines.index("## Your first plan") < lines.index("## Contributing")
    assert "helm plugin install https://github.com/deployah/helm-plan --verify=false" in lines  # Helm 4


def test_the_readme_has_the_two_set_up_commands_and_ci_runs_the_second() -> None:
    contributing = _readme().split("## Contributing\n", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"```sh\n(.*?)\n```", contributing, re.DOTALL) == ["scripts/demo", "scripts/test"]
    assert (ROOT / ".ci" / "run").read_text().strip().endswith("exec scripts/test")


def test_the_readme_links_only_to_pages_that_exist() -> None:
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", _readme()):
        if "://" not in target:
            assert (ROOT / target).exists(), target


def test_figures_are_stated_on_the_page_their_scripts_write_only() -> None:
    page = (ROOT / "docs" / "performance.md").read_text()
    for name, script in (("bench", "scripts/bench"), ("install", "scripts/measure-install")):
        assert f"<!-- {name} figures: written by {script} --write -->\n" in page
        assert f"<!-- end of {name} figures -->" in page
    assert "Not measured" not in page, "a figure the page promises is measured (issue 48 point 7)"
    for path in [README, *(ROOT / "docs").rglob("*.md")]:
        if path.name in ("performance.md", "contributing.md"):  # contributing: scripts/mutation's table
            continue
        text = path.read_text()
        assert not re.search(r"\b\d+(\.\d+)? ?(ms|MB)\b(?! of)", text), (path.name, re.search(r".{40}\d+(\.\d+)? ?(ms|MB)\b.{0,20}", text))


def _example(text: str) -> str:
    return text.split("<!-- example: scripts/demo --no-color with Helm 4 (tests/e2e/test_docs.py checks it) -->\n", 1)[1].split(
        "<!-- end of example -->", 1)[0]


def test_the_site_home_page_starts_with_what_it_does_the_install_and_an_example() -> None:
    """Issue 48 point 7: the site's home page was links only. It opens as the README does: what
    helm plan does, an example plan (the README's, which tests/e2e/test_docs.py checks against
    the demo), and the install, before the map of the site."""
    index = (ROOT / "docs" / "index.md").read_text()
    lines = index.splitlines()
    readme = _readme()
    assert readme.split("\n## ", 1)[0] == index.split("\n## ", 1)[0], "the same opening as the README"
    assert lines.index("## What it looks like") < lines.index("## Install") < lines.index("## This site")
    assert _example(index) == _example(readme)
    assert "helm plugin install https://github.com/deployah/helm-plan" in lines[:100]
    assert "helm plugin install https://github.com/deployah/helm-plan --verify=false" in lines
