"""``lightnote.serving``: the worker's thread pool hands each task to the thread that went
idle last, starts threads only when none is idle, and otherwise behaves as an executor
(real threads throughout)."""

from __future__ import annotations

import threading
import time
from concurrent import futures
from types import SimpleNamespace
from typing import Any

import pytest

from lightnote.serving import RecentFirstThreadPool, ThreadWorker

WAIT = 10.0  # seconds; only a broken pool ever waits this long


def all_idle(pool: RecentFirstThreadPool, threads: int) -> None:
    """Wait until ``threads`` threads are back in the pool (a future resolves a moment
    before its thread goes idle)."""
    deadline = time.monotonic() + WAIT
    while len(pool._idle) != threads:
        assert time.monotonic() < deadline, "the pool's threads never went idle"
        time.sleep(0.001)


def grown_to(pool: RecentFirstThreadPool, size: int) -> list[int]:
    """Start ``size`` threads with tasks that hold them all at once, then let them go one at
    a time; return the threads in the order they went idle."""
    started = threading.Barrier(size + 1)
    release = [threading.Event() for _ in range(size)]

    def hold(index: int) -> int:
        started.wait(WAIT)
        assert release[index].wait(WAIT)
        return threading.get_ident()

    held = [pool.submit(hold, index) for index in range(size)]
    started.wait(WAIT)  # every task runs at once: one thread each
    order = []
    for index in range(size):
        release[index].set()
        order.append(held[index].result(WAIT))
        all_idle(pool, index + 1)
    return order


def test_sequential_tasks_all_run_on_the_thread_that_went_idle_last() -> None:
    """A keep-alive client's requests one after another: one warm thread serves them all,
    however many the pool has started (the standard pool wakes its threads in turn)."""
    pool = RecentFirstThreadPool(4)
    try:
        went_idle = grown_to(pool, 4)
        assert len(set(went_idle)) == 4
        ran_on = []
        for _ in range(50):
            ran_on.append(pool.submit(threading.get_ident).result(WAIT))
            all_idle(pool, 4)
        assert set(ran_on) == {went_idle[-1]}
        assert len(pool._threads) == 4  # none started for them
    finally:
        pool.shutdown()


def test_a_task_submitted_while_a_thread_finishes_its_task_goes_to_that_thread() -> None:
    """gthread's race: the client's next request arrives while the thread that answered the
    last one is still settling it (its future's callbacks hand the connection back). It goes
    to that thread, not to another idle one."""
    pool = RecentFirstThreadPool(3)
    try:
        went_idle = grown_to(pool, 3)
        settling, go_on = threading.Event(), threading.Event()
        first = pool.submit(threading.get_ident)

        def callback(_: Any) -> None:
            settling.set()
            assert go_on.wait(WAIT)

        first.add_done_callback(callback)
        assert settling.wait(WAIT)  # the thread has run the task and is settling it
        assert len(pool._idle) == 2
        second = pool.submit(threading.get_ident)
        assert len(pool._idle) == 2  # no idle thread was woken for it
        go_on.set()
        assert first.result(WAIT) == went_idle[-1]
        assert second.result(WAIT) == went_idle[-1]
        all_idle(pool, 3)
    finally:
        pool.shutdown()


def test_waiting_tasks_go_before_one_submitted_while_a_thread_finishes() -> None:
    """Under load the oldest waiting task is next, never a newer one handed to a finishing
    thread."""
    pool = RecentFirstThreadPool(1)
    gate = threading.Event()
    order: list[str] = []
    try:
        busy = pool.submit(gate.wait, WAIT)
        older = pool.submit(order.append, "older")
        settling, go_on = threading.Event(), threading.Event()

        def callback(_: Any) -> None:
            settling.set()
            assert go_on.wait(WAIT)

        busy.add_done_callback(callback)
        gate.set()
        assert settling.wait(WAIT)
        newer = pool.submit(order.append, "newer")
        go_on.set()
        older.result(WAIT)
        newer.result(WAIT)
        assert order == ["older", "newer"]
    finally:
        pool.shutdown()


def test_a_thread_starts_only_when_none_is_idle_and_never_past_the_limit() -> None:
    pool = RecentFirstThreadPool(3)
    try:
        for _ in range(20):
            pool.submit(time.sleep, 0).result(WAIT)
            all_idle(pool, 1)
        assert len(pool._threads) == 1
        grown_to(pool, 3)
        assert len(pool._threads) == 3
        gate = threading.Event()
        running = [pool.submit(gate.wait, WAIT) for _ in range(10)]
        assert len(pool._threads) == 3
        gate.set()
        assert all(each.result(WAIT) for each in running)
    finally:
        pool.shutdown()


def test_tasks_no_thread_is_free_for_wait_and_run_oldest_first() -> None:
    pool = RecentFirstThreadPool(1)
    gate = threading.Event()
    order: list[int] = []
    try:
        busy = pool.submit(gate.wait, WAIT)
        submitted = [pool.submit(order.append, index) for index in range(6)]
        time.sleep(0.02)
        assert order == []  # the one thread is held; six wait
        assert len(pool._waiting) == 6
        gate.set()
        busy.result(WAIT)
        for each in submitted:
            each.result(WAIT)
        assert order == list(range(6))
    finally:
        pool.shutdown()


def test_never_more_tasks_run_at_once_than_the_pool_has_threads() -> None:
    pool = RecentFirstThreadPool(2)
    lock = threading.Lock()
    now = {"running": 0, "most": 0}

    def task() -> None:
        with lock:
            now["running"] += 1
            now["most"] = max(now["most"], now["running"])
        time.sleep(0.002)
        with lock:
            now["running"] -= 1

    try:
        for each in [pool.submit(task) for _ in range(40)]:
            each.result(WAIT)
        assert now["most"] == 2
        assert len(pool._threads) == 2
    finally:
        pool.shutdown()


def test_a_task_that_raises_gives_its_error_to_its_future_and_the_thread_serves_on() -> None:
    pool = RecentFirstThreadPool(1)

    def fail() -> None:
        raise ValueError("the request failed")

    try:
        failed = pool.submit(fail)
        with pytest.raises(ValueError, match="the request failed"):
            failed.result(WAIT)
        assert pool.submit(lambda: 42).result(WAIT) == 42
        assert len(pool._threads) == 1
    finally:
        pool.shutdown()


def test_done_callbacks_run_and_a_cancelled_task_never_runs() -> None:
    pool = RecentFirstThreadPool(1)
    gate = threading.Event()
    ran: list[str] = []
    called: list[Any] = []
    try:
        busy = pool.submit(gate.wait, WAIT)
        waiting = pool.submit(ran.append, "cancelled one")
        assert waiting.cancel()
        after = pool.submit(ran.append, "next one")
        after.add_done_callback(called.append)
        gate.set()
        assert busy.result(WAIT) is True
        after.result(WAIT)
        assert ran == ["next one"]
        assert called == [after]
    finally:
        pool.shutdown()


def test_shutdown_ends_idle_and_busy_threads_after_the_submitted_tasks_and_refuses_more() -> None:
    pool = RecentFirstThreadPool(2)
    gate = threading.Event()
    done: list[int] = []
    grown_to(pool, 2)
    busy = pool.submit(lambda: gate.wait(WAIT) and done.append(1))
    queued_behind = [pool.submit(done.append, n) for n in (2, 3)]  # one idle thread, then wait
    closer = threading.Thread(target=pool.shutdown)
    closer.start()
    deadline = time.monotonic() + WAIT
    while not pool._shut_down:  # shutdown has begun: it now waits for the busy thread
        assert time.monotonic() < deadline
        time.sleep(0.001)
    with pytest.raises(RuntimeError, match="after shutdown"):
        pool.submit(done.append, 4)
    gate.set()
    closer.join(WAIT)
    assert not closer.is_alive()
    assert busy.result(0) is None
    assert [each.result(0) for each in queued_behind] == [None, None]
    assert sorted(done) == [1, 2, 3]
    assert not any(thread.is_alive() for thread in pool._threads)


def test_shutdown_can_cancel_the_tasks_that_have_not_started() -> None:
    pool = RecentFirstThreadPool(1)
    gate = threading.Event()
    busy = pool.submit(gate.wait, WAIT)
    waiting = [pool.submit(time.sleep, 0) for _ in range(3)]
    pool.shutdown(wait=False, cancel_futures=True)
    assert all(each.cancelled() for each in waiting)
    gate.set()
    assert busy.result(WAIT) is True
    pool._threads[0].join(WAIT)
    assert not pool._threads[0].is_alive()


def test_max_workers_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        RecentFirstThreadPool(0)


def test_the_worker_uses_it_with_the_configured_thread_count() -> None:
    worker = SimpleNamespace(cfg=SimpleNamespace(threads=3))
    pool = ThreadWorker.get_thread_pool(worker)  # type: ignore[arg-type]
    try:
        assert isinstance(pool, RecentFirstThreadPool)
        assert isinstance(pool, futures.Executor)
        assert pool._max_workers == 3
    finally:
        pool.shutdown()
