"""The worker threads of a command's calls (sources/workers.py): side by side, results and
errors as the calls gave them, and an interrupted block that does not wait for a stuck call."""
from __future__ import annotations

import threading
import time

import pytest

from deployah_plan.errors import Interrupted
from deployah_plan.sources.workers import GRACE, completed, workers


def test_calls_run_side_by_side_up_to_the_size() -> None:
    # Each call waits for the others: three calls submitted one after another must each get a
    # thread of their own, even while a thread just told of the first has not yet woken.
    for _ in range(20):
        meet = threading.Barrier(3, timeout=5)
        with workers(4) as pool:
            pool.submit(lambda: None).result()
            time.sleep(0.02)  # its thread is idle again
            calls = [pool.submit(meet.wait) for _ in range(3)]
            assert sorted(call.result() for call in calls) == [0, 1, 2]
            assert len(pool.threads) <= 3
    with workers(2) as pool:
        running, most = [0], [0]
        lock = threading.Lock()

        def busy() -> None:
            with lock:
                running[0] += 1
                most[0] = max(most[0], running[0])
            time.sleep(0.01)
            with lock:
                running[0] -= 1
        for call in [pool.submit(busy) for _ in range(8)]:
            call.result()
    assert most[0] == 2 and len(pool.threads) == 2


def test_a_result_is_the_functions_and_an_error_is_raised_again() -> None:
    with workers(2) as pool:
        assert pool.submit(lambda a, b=0: a + b, 1, b=2).result() == 3
        failed = pool.submit(lambda: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            failed.result()
        assert failed.done()
        assert list(pool.map(lambda n: n * n, [3, 1, 2])) == [9, 1, 4]
        results = pool.map(lambda n: 10 // n, [1, 0, 2])
        assert next(results) == 10
        with pytest.raises(ZeroDivisionError):
            next(results)


def test_a_callback_runs_once_the_call_is_done() -> None:
    seen: list[int] = []
    release = threading.Event()
    with workers(1) as pool:
        call = pool.submit(lambda: (release.wait(5), 7)[1])
        call.add_done_callback(lambda c: seen.append(c.result()))
        assert seen == []
        release.set()
        assert call.result() == 7
    assert seen == [7]
    call.add_done_callback(lambda c: seen.append(c.result() + 1))  # already done: at once
    assert seen == [7, 8]


def test_the_calls_come_in_the_order_they_end() -> None:
    gates = [threading.Event() for _ in range(3)]
    with workers(3) as pool:
        calls = [pool.submit(lambda n=n: (gates[n].wait(5), n)[1]) for n in range(3)]
        order = []
        gates[2].set()
        for call in completed(calls):
            order.append(call.result())
            if len(order) < 3:
                gates[1 if len(order) == 1 else 0].set()
    assert order == [2, 1, 0]


def test_an_interrupted_block_drops_what_has_not_started_and_waits_a_moment_only() -> None:
    started, stuck = threading.Event(), threading.Event()
    ran: list[int] = []
    start = time.monotonic()
    with pytest.raises(Interrupted):
        with workers(1) as pool:
            first = pool.submit(lambda: (started.set(), stuck.wait(30)))
            later = pool.submit(ran.append, 1)
            assert started.wait(5)
            raise Interrupted
    assert time.monotonic() - start < GRACE + 2
    assert not first.done() and ran == []
    with pytest.raises(Interrupted):
        later.result()
    assert all(thread.daemon for thread in pool.threads)
    stuck.set()
    with pytest.raises(RuntimeError):
        pool.submit(ran.append, 2)


def test_any_other_way_out_waits_for_the_calls() -> None:
    ended = threading.Event()
    with pytest.raises(ValueError):
        with workers(1) as pool:
            pool.submit(lambda: (time.sleep(0.2), ended.set()))
            raise ValueError
    assert ended.is_set()
