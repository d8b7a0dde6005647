"""The gunicorn worker the server runs: ``gthread`` with a thread pool that reuses its
most recently idle thread (``gunicorn.conf.py``: ``worker_class``).

gunicorn's ``gthread`` worker hands each request to a ``concurrent.futures``
``ThreadPoolExecutor``. That pool wakes its idle threads in turn, and it starts a new thread
whenever none is idle at the instant a request arrives, which happens whenever a keep-alive
client's next request comes before the thread that answered the last one is back in the
pool. From then on one client's requests alternate between threads. On a small machine
that costs the requests that overlap their own work with their waits on MariaDB (the
confirm builds its receipt rows while the todo's INSERT runs, its settle while the COMMIT
runs: ``lightnote.overlap``): the thread that answered the previous request is still
finishing it, the operating system spreads the alternating threads over the cores, and
the overlapped work then competes for a core with MariaDB instead of running beside it.
Measured with the bench's client, one keep-alive connection per batch of 150 rounds, two
workers of four threads (docs/performance.md, "Which thread serves the next request"):
batches whose worker used one thread put the confirm at 1.21-1.25x direct create, batches
whose worker alternated at 1.34-1.39x; two servers timed alternately, batch by batch:
gunicorn's pool 1.21x-1.36x, this one 1.20x-1.29x, no path slower.

:class:`RecentFirstThreadPool` hands a task to the thread finishing the previous one, else
to the thread that went idle last, so a sequential client's requests stay on one warm
thread, and starts a thread only when none is idle: under load every thread works, as
before (at most ``max_workers``; a task no thread is free for waits, oldest first). It is
what gunicorn's ``get_thread_pool`` may return (the ``submit`` and ``shutdown`` of a
``concurrent.futures.Executor``).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

from gunicorn.workers.gthread import ThreadWorker as GunicornThreadWorker

_Task = tuple[futures.Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]


@dataclass
class _Slot:
    """A thread's place in the pool: the task handed to it, and its wake-up (when idle)."""

    wake: threading.Event = field(default_factory=threading.Event)
    task: _Task | None = None


class RecentFirstThreadPool(futures.Executor):
    """A pool of at most ``max_workers`` threads that hands each task to the thread that
    went idle last (a stack, where ``ThreadPoolExecutor`` wakes its idle threads in turn).

    A task goes to the thread that is finishing its task (it has run it and is settling
    its future: in gunicorn, handing the connection back to the worker's loop, which may
    find the client's next request already there), else to the thread that went idle last.
    Threads start when a task finds none of these, and stay. A task that finds every thread
    busy waits; a thread that finishes takes the oldest waiting task before it goes idle
    (and nothing is handed to a finishing thread while tasks wait: they go first).
    ``shutdown`` refuses new tasks, wakes the idle threads to end, and lets the busy ones
    end after the tasks already submitted (``cancel_futures=True`` cancels those not
    started). The threads are daemons: gunicorn's worker waits for its connections (its
    graceful timeout) before it exits, and a pool nobody shut down never holds a process
    open.
    """

    def __init__(self, max_workers: int, *, thread_name_prefix: str = "lightnote-worker") -> None:
        if max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        self._max_workers = max_workers
        self._prefix = thread_name_prefix
        self._lock = threading.Lock()
        self._idle: list[_Slot] = []  # the thread that went idle last on top
        self._waiting: deque[_Task] = deque()  # tasks no thread was free for, oldest first
        self._threads: list[threading.Thread] = []
        self._slots: list[_Slot] = []  # every thread's
        self._finishing: _Slot | None = None  # the thread settling the task it has just run
        self._shut_down = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> futures.Future[Any]:
        future: futures.Future[Any] = futures.Future()
        task: _Task = (future, fn, args, kwargs)
        with self._lock:
            if self._shut_down:
                raise RuntimeError("cannot schedule new futures after shutdown")
            finishing = self._finishing
            if finishing is not None and finishing.task is None and not self._waiting:
                finishing.task = task  # it takes it before going idle
                self._finishing = None
            elif self._idle:
                slot = self._idle.pop()
                slot.task = task
                slot.wake.set()
            elif len(self._threads) < self._max_workers:
                slot = _Slot()
                self._slots.append(slot)
                thread = threading.Thread(
                    target=self._serve,
                    args=(slot, task),
                    name=f"{self._prefix}_{len(self._threads)}",
                    daemon=True,
                )
                self._threads.append(thread)
                thread.start()
            else:
                self._waiting.append(task)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._shut_down = True
            if cancel_futures:  # the waiting ones, and one handed to a finishing thread
                while self._waiting:
                    self._waiting.popleft()[0].cancel()
                for slot in self._slots:
                    if slot.task is not None:
                        slot.task[0].cancel()
            idle, self._idle = self._idle, []
            for slot in idle:
                slot.task = None  # nothing: end
                slot.wake.set()
            threads = list(self._threads)
        if wait:
            for thread in threads:
                thread.join()

    def _serve(self, slot: _Slot, first: _Task) -> None:
        """A thread's life: run its task; then the task handed to it while it finished,
        else the oldest waiting one, else go idle on top of the stack until handed another
        (or told to end)."""
        task: _Task | None = first
        while task is not None:
            self._run(task, slot)
            task = None  # hold no finished task (its request, its connection) while idle
            with self._lock:
                if self._finishing is slot:
                    self._finishing = None
                task, slot.task = slot.task, None
                if task is None and self._waiting:
                    task = self._waiting.popleft()
                if task is not None:
                    continue
                if self._shut_down:
                    return
                slot.wake.clear()
                self._idle.append(slot)
            slot.wake.wait()
            task, slot.task = slot.task, None

    def _run(self, task: _Task, slot: _Slot) -> None:
        """Run one task into its future, as ``ThreadPoolExecutor`` does (a cancelled one
        not); while the future is settled (its callbacks run), this thread is the one a new
        task goes to."""
        future, fn, args, kwargs = task
        if not future.set_running_or_notify_cancel():
            return
        try:
            result = fn(*args, **kwargs)
        except BaseException as error:  # the future carries it, as the standard pool's does
            self._finished(slot)
            future.set_exception(error)
        else:
            self._finished(slot)
            future.set_result(result)

    def _finished(self, slot: _Slot) -> None:
        with self._lock:
            if not self._shut_down:
                self._finishing = slot


class ThreadWorker(GunicornThreadWorker):
    """gunicorn's ``gthread`` worker with :class:`RecentFirstThreadPool` as its pool."""

    def get_thread_pool(self) -> futures.Executor:
        return RecentFirstThreadPool(self.cfg.threads)
