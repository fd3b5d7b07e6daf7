"""A helm process of the plan's (sources/process.py): started, fed and read as subprocess.Popen
did it for the plan, with real programs (a shell and Python), never a stand-in."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from deployah_plan.sources.early import HelmCalls, helm_environment
from deployah_plan.sources.process import Process, Timeout

pytestmark = pytest.mark.e2e  # every case starts a process

PY = sys.executable


def _python(code: str, *, stdin: bool = False) -> Process:
    return Process([PY, "-S", "-c", code], stdin=stdin)


@pytest.fixture(params=["poll", "select"])
def waiting(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each reading test runs with poll and with select (a Python without poll)."""
    from deployah_plan.sources import process as module

    monkeypatch.setattr(module, "POLL", request.param == "poll")
    return str(request.param)


@pytest.mark.usefixtures("waiting")
def test_both_outputs_are_read_to_their_end_and_the_exit_code_kept() -> None:
    # More than a pipe holds on each output, written in turns: neither blocks the other.
    process = _python("import sys\nfor i in range(3000):\n    sys.stdout.write('o%d\\n' % i); sys.stderr.write('e%d\\n' % i)\n"
                      "sys.exit(3)")
    out, err = process.communicate()
    assert out.splitlines() == [f"o{i}" for i in range(3000)]
    assert err.splitlines() == [f"e{i}" for i in range(3000)]
    assert process.returncode == 3 and process.poll() == 3 and process.wait() == 3


@pytest.mark.usefixtures("waiting")
def test_standard_input_is_written_whole_while_the_outputs_are_read() -> None:
    """Helm reads `--values -` while it writes: a megabyte each way must not block either side."""
    data = "".join(f"key{i}: {'x' * 90}\n" for i in range(12000))
    process = _python("import sys\ndata = sys.stdin.read()\nsys.stdout.write(data)\nsys.stderr.write(str(len(data)))",
                      stdin=True)
    out, err = process.communicate(data, timeout=60)
    assert out == data and err == str(len(data)) and process.returncode == 0


@pytest.mark.usefixtures("waiting")
@pytest.mark.parametrize("size", [10, 1_000_000])
def test_input_fed_at_the_start_is_read_whole_once_taken(size: int) -> None:
    """A render started before the imports is given the release's values at once (sources/early.py):
    what the pipe takes is written then, without waiting for the program; the rest once it is read."""
    data = "v" * size
    process = _python("import sys\ndata = sys.stdin.read()\nsys.stdout.write(str(len(data)))", stdin=True)
    started = time.monotonic()
    process.feed(data)
    assert time.monotonic() - started < 5  # never waits for the program to read
    assert process.communicate(timeout=60) == (str(size), "") and process.returncode == 0


def test_input_fed_to_a_program_that_ended_is_not_an_error() -> None:
    process = _python("pass", stdin=True)
    process.wait(30)
    process.feed("x" * 1_000_000)
    assert process.communicate(timeout=30) == ("", "")


def test_standard_input_is_closed_at_once_when_there_is_nothing_to_write() -> None:
    process = _python("import sys; print(repr(sys.stdin.read()))", stdin=True)
    assert process.communicate("", timeout=30) == ("''\n", "")


def test_standard_input_is_passed_on_when_not_piped() -> None:
    read, write = os.pipe()
    os.write(write, b"from the caller")
    os.close(write)
    saved = os.dup(0)
    os.dup2(read, 0)
    try:
        process = _python("import sys; sys.stdout.write(sys.stdin.read())")
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        os.close(read)
    assert process.communicate(timeout=30) == ("from the caller", "")


@pytest.mark.usefixtures("waiting")
def test_a_program_that_stops_reading_its_input_is_not_an_error() -> None:
    process = _python("import os; os.close(0); print('done')", stdin=True)
    assert process.communicate("x" * 1_000_000, timeout=30) == ("done\n", "")


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=64) | st.lists(
    st.sampled_from([b"a", b"\r", b"\n", b"\r\n", "é".encode(), b" "]), max_size=20).map(b"".join))
def test_text_is_what_subprocess_gave_in_text_mode(data: bytes) -> None:
    code = f"import os; os.write(1, {data!r}); os.write(2, {data[::-1]!r})"
    try:
        expected = subprocess.run([PY, "-S", "-c", code], capture_output=True, text=True)
        expected_text: tuple[str, str] | type[BaseException] = (expected.stdout, expected.stderr)
    except UnicodeDecodeError:
        expected_text = UnicodeDecodeError
    process = _python(code)
    if expected_text is UnicodeDecodeError:
        with pytest.raises(UnicodeDecodeError):
            process.communicate(timeout=30)
        process.wait()
        process.close()
    else:
        assert process.communicate(timeout=30) == expected_text


def test_a_program_is_found_on_path_and_a_missing_one_is_an_os_error(tmp_path: Path) -> None:
    assert Process(["sh", "-c", "echo found"], stdin=False).communicate(timeout=30) == ("found\n", "")
    with pytest.raises(OSError):
        Process([str(tmp_path / "nothing-here")], stdin=False)
    with pytest.raises(OSError):
        Process(["helm-plan-no-such-program"], stdin=False)
    (tmp_path / "not-a-program").write_text("")
    with pytest.raises(OSError):
        Process([str(tmp_path / "not-a-program")], stdin=False)


def test_the_child_starts_as_subprocess_starts_it(tmp_path: Path) -> None:
    """SIGPIPE at its default (Python ignores it; a program writing into a closed pipe dies of
    it), the environment given, and none of the plan's own descriptors."""
    pipe = "(yes; echo \"yes ended $?\" >&2) | head -n 1"
    expected = subprocess.run(["sh", "-c", pipe], capture_output=True, text=True)
    assert expected.stderr == "yes ended 141\n"  # 128 + SIGPIPE
    assert Process(["sh", "-c", pipe], stdin=False).communicate(timeout=30) == (expected.stdout, expected.stderr)
    kept = os.open(tmp_path, os.O_RDONLY)  # non-inheritable, as Python opens every descriptor
    try:
        code = ("import os, sys\n"
                "print(os.environ.get('ONLY_HERE'))\n"
                f"try:\n    os.fstat({kept})\n    print('inherited')\nexcept OSError:\n    print('closed')\n")
        process = Process([PY, "-S", "-c", code], stdin=False, env={**os.environ, "ONLY_HERE": "yes"})
        out, _ = process.communicate(timeout=30)
    finally:
        os.close(kept)
    assert out.splitlines() == ["yes", "closed"]


@pytest.mark.usefixtures("waiting")
def test_a_time_limit_raises_and_leaves_it_to_be_killed() -> None:
    process = _python("import time; print('started', flush=True); time.sleep(30)")
    start = time.monotonic()
    with pytest.raises(Timeout):
        process.communicate(timeout=0.5)
    assert time.monotonic() - start < 10
    assert process.poll() is None
    with pytest.raises(Timeout):
        process.wait(0.05)
    process.kill()
    assert process.wait(10) == -signal.SIGKILL
    process.kill()  # reaped: nothing is signalled (its pid may be another's by now)
    process.close()


@pytest.mark.usefixtures("waiting")
def test_a_kill_from_another_thread_ends_a_read() -> None:
    process = _python("import time; time.sleep(30)")
    threading.Timer(0.2, process.kill).start()
    start = time.monotonic()
    assert process.communicate() == ("", "")
    assert process.returncode == -signal.SIGKILL and time.monotonic() - start < 10
    process.close()


@pytest.mark.parametrize("waitid", [True, False], ids=["waitid", "no-waitid"])
def test_a_wait_without_a_limit_leaves_kill_free_to_end_it(waitid: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """On SIGTERM the main thread kills every helm while worker threads wait for them: a wait
    must not hold what kill needs (without waitid, as on macOS, it asks again and again)."""
    from deployah_plan.sources import process as module

    monkeypatch.setattr(module, "_WAITID", waitid and module._WAITID)
    process = _python("import time; time.sleep(30)")
    codes: list[int] = []
    waiter = threading.Thread(target=lambda: codes.append(process.wait()), daemon=True)
    waiter.start()
    time.sleep(0.2)  # the waiter is waiting
    killer = threading.Thread(target=process.kill, daemon=True)
    killer.start()
    killer.join(5)
    if killer.is_alive():  # kill waits for the waiter: end the process for the next tests, then fail
        os.kill(process.pid, signal.SIGKILL)
        pytest.fail("kill waited for a wait")
    waiter.join(10)
    assert codes == [-signal.SIGKILL]
    assert _python("raise SystemExit(4)").wait() == 4
    process.close()


def test_concurrent_waits_all_see_the_one_exit_code() -> None:
    process = _python("import time; time.sleep(0.3); raise SystemExit(5)")
    codes: list[int] = []
    threads = [threading.Thread(target=lambda: codes.append(process.wait())) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert codes == [5, 5, 5, 5]
    process.close()


def test_a_helm_command_that_reads_no_release_loads_no_memory_driver_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every helm process loads the memory driver's files as it starts: `helm template` (and the
    other commands that read no release) is given the null device instead, which helm reads as
    no release; a command that reads the store keeps them, and so does any other driver."""
    monkeypatch.setenv("HELM_DRIVER", "memory")
    monkeypatch.setenv("HELM_MEMORY_DRIVER_DATA", "/data/releases.json")
    for command in (["helm", "template", "web", "./chart"], ["helm", "version"], ["helm", "show", "crds", "x"]):
        assert helm_environment(command)["HELM_MEMORY_DRIVER_DATA"] == os.devnull
    for command in (["helm", "get", "all", "web"], ["helm", "upgrade", "--install", "web", "./chart"], ["helm"], []):
        assert helm_environment(command)["HELM_MEMORY_DRIVER_DATA"] == "/data/releases.json"
    monkeypatch.setenv("HELM_DRIVER", "secret")
    assert helm_environment(["helm", "template", "web", "./chart"])["HELM_MEMORY_DRIVER_DATA"] == "/data/releases.json"


def test_helm_runs_with_fewer_collections_unless_the_user_tuned_go(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOGC", raising=False)
    monkeypatch.delenv("GOMEMLIMIT", raising=False)
    assert helm_environment()["GOGC"] == "400"
    calls = HelmCalls()
    process = calls.popen(["sh", "-c", "echo \"$GOGC|$HOME\""], stdin=False)
    assert process.communicate(timeout=30)[0] == f"400|{os.environ.get('HOME', '')}\n"
    calls.done(process)
    for name, value in (("GOGC", "100"), ("GOGC", "off"), ("GOMEMLIMIT", "1GiB")):
        with monkeypatch.context() as patch:
            patch.setenv(name, value)
            assert helm_environment() == dict(os.environ)
            process = calls.popen(["sh", "-c", "echo \"${GOGC-unset}\""], stdin=False)
            assert process.communicate(timeout=30)[0] == (value if name == "GOGC" else "unset") + "\n"
            calls.done(process)
    calls.end()
