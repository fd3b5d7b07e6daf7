"""The two test tiers (tests/conftest.py): what is marked e2e, and that a test left in the fast
tier cannot start a process or a server. Each case runs pytest on a small test file with this
repository's conftest and pytest settings."""
from __future__ import annotations

import pytest

from conftest import ROOT

pytest_plugins = ("pytester",)
pytestmark = pytest.mark.e2e  # the e2e cases start a process

TESTS = '''
import os
import socket
import subprocess
import sys

import pytest


@pytest.fixture
def kube():
    yield "a loopback API server"


def test_pure():
    assert sorted([2, 1]) == [1, 2]


def test_runs_a_process_unmarked():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def test_swallows_the_refusal():
    try:
        subprocess.run([sys.executable, "-c", "pass"])
    except Exception:
        pass


def test_spawns_unmarked():
    os.posix_spawn(sys.executable, [sys.executable, "-c", "pass"], os.environ)


def test_listens_unmarked():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()


def test_takes_a_helm_fixture(store):
    pass


def test_takes_the_api_server(kube):
    pass


@pytest.mark.e2e
def test_runs_a_process_marked():
    subprocess.run([sys.executable, "-c", "pass"], check=True)
'''


@pytest.fixture
def tiers(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest((ROOT / "tests" / "conftest.py").read_text())
    pytester.makepyprojecttoml((ROOT / "pyproject.toml").read_text())
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_sample.py").write_text(TESTS)
    return pytester


def _listed(result: pytest.RunResult) -> list[str]:
    return sorted(line.partition("::")[2] for line in result.outlines if "::" in line)


def test_the_helm_fixtures_and_the_api_server_make_a_test_e2e(tiers: pytest.Pytester) -> None:
    fast = tiers.runpytest("-m", "not e2e", "--collect-only", "-q")
    assert _listed(fast) == ["test_listens_unmarked", "test_pure", "test_runs_a_process_unmarked",
                             "test_spawns_unmarked", "test_swallows_the_refusal"]
    e2e = tiers.runpytest("-m", "e2e", "--collect-only", "-q")
    assert _listed(e2e) == ["test_runs_a_process_marked", "test_takes_a_helm_fixture", "test_takes_the_api_server"]


def test_a_fast_test_that_starts_a_process_or_listens_fails_once_and_says_to_mark_it(tiers: pytest.Pytester) -> None:
    run = tiers.inline_run("-m", "not e2e")
    failed = {report.head_line: (report.when, str(report.longrepr)) for report in run.getfailures()}
    assert sorted(failed) == ["test_listens_unmarked", "test_runs_a_process_unmarked", "test_spawns_unmarked",
                              "test_swallows_the_refusal"]
    for name, what in (("test_runs_a_process_unmarked", "starts a process"),
                       ("test_spawns_unmarked", "starts a process"),
                       ("test_swallows_the_refusal", "starts a process"),
                       ("test_listens_unmarked", "listens on a socket")):
        when, message = failed[name]
        assert when == "call" and f"a test of the fast tier {what}: mark it e2e" in message
    run.assertoutcome(passed=1, failed=4)


def test_an_e2e_test_starts_what_it_needs(tiers: pytest.Pytester) -> None:
    tiers.runpytest("-k", "process_marked").assert_outcomes(passed=1)


def test_the_marker_is_registered_and_a_misspelt_one_is_an_error(tiers: pytest.Pytester) -> None:
    typo = "import pytest\n\n\n@pytest.mark.e2ee\ndef test_typo():\n    pass\n"
    (tiers.path / "tests" / "test_typo.py").write_text(typo)
    result = tiers.runpytest("tests/test_typo.py")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*'e2ee' not found in `markers` configuration option*"])
