"""What else used the machine's CPU while the bench timed its paths (Linux ``/proc``).

The timed ratios compare paths that differ in how much work they hand between processes
(a confirm: two Redis round trips and more statements than a direct create). On a 2-core
machine that the client shares with the server, MariaDB and Redis, another process taking
CPU in that window slows the path with more handoffs more: measured here, a background
``dd if=/dev/urandom`` (one busy core) moved the confirm's ratio from 1.26x to 1.36x. So the
bench records what it cannot control, beside its figures: the CPU used in the window by
processes that are not its own (its client process and every process it started, i.e. the
gunicorn master and workers, plus the local MariaDB and Redis servers), by kernel threads,
and taken by the hypervisor (steal). Read-only: it only reads ``/proc``.

A process that exits inside the window is not counted (its CPU leaves ``/proc`` with it).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

# The servers the bench talks to on this machine: their CPU is the bench's own work.
SERVICE_NAMES = frozenset({"mariadbd", "mysqld", "redis-server"})
# PF_KTHREAD in a process's flags (include/linux/sched.h): a kernel thread.
_KERNEL_THREAD = 0x00200000
# Above this many cores of other processes (or steal) on average, the report says so.
NOTICEABLE_CORES = 0.05


@dataclass(frozen=True)
class Process:
    pid: int
    parent: int
    name: str
    cpu_s: float
    kernel_thread: bool


def parse_stat(raw: str, tick: float) -> Process:
    """One ``/proc/<pid>/stat`` line: ``pid (name) state ppid ...`` (proc(5))."""
    # The name may hold spaces and parentheses: it ends at the last ")".
    name = raw[raw.index("(") + 1 : raw.rindex(")")]
    fields = raw[raw.rindex(")") + 2 :].split()
    # After the name: state(0) ppid(1) ... flags(6) ... utime(11) stime(12), in clock ticks.
    return Process(
        pid=int(raw[: raw.index("(")]),
        parent=int(fields[1]),
        name=name,
        cpu_s=(int(fields[11]) + int(fields[12])) / tick,
        kernel_thread=bool(int(fields[6]) & _KERNEL_THREAD),
    )


def _read_process(pid: int, tick: float) -> Process | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            raw = stat.read().decode("utf-8", "replace")
    except OSError:  # gone, or not ours to read
        return None
    return parse_stat(raw, tick)


def processes() -> dict[int, Process]:
    """Every process /proc lists now, with the CPU it has used (user + system)."""
    tick = float(os.sysconf("SC_CLK_TCK"))
    found = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            process = _read_process(int(entry.name), tick)
            if process is not None:
                found[process.pid] = process
    return found


def steal_s() -> float:
    """CPU time the hypervisor took from this machine so far, all cores (``/proc/stat``)."""
    with open("/proc/stat") as stat:
        fields = stat.readline().split()
    # "cpu user nice system idle iowait irq softirq steal ..."
    return int(fields[8]) / float(os.sysconf("SC_CLK_TCK")) if len(fields) > 8 else 0.0


def own_pids(table: dict[int, Process], root: int) -> set[int]:
    """``root`` and its descendants, and the local servers the bench uses."""
    children: dict[int, list[int]] = {}
    for process in table.values():
        children.setdefault(process.parent, []).append(process.pid)
    own, todo = set(), [root]
    while todo:
        pid = todo.pop()
        if pid not in own:
            own.add(pid)
            todo.extend(children.get(pid, ()))
    own.update(pid for pid, process in table.items() if process.name in SERVICE_NAMES)
    return own


class CpuWatch:
    """Around a timed phase: the CPU used in it by the bench's own processes, by others, by
    kernel threads, and stolen by the hypervisor (:meth:`result`, in cores: CPU seconds per
    second of the phase). ``available`` is False where there is no ``/proc`` to read."""

    def __init__(self) -> None:
        self.root = os.getpid()  # the bench: what it started descends from it
        self.available = os.path.exists("/proc/stat")
        self._result: dict[str, Any] | None = None

    def __enter__(self) -> CpuWatch:
        if self.available:
            self._before = processes()
            self._steal = steal_s()
            self._start = time.monotonic()
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.available:
            return
        wall = max(time.monotonic() - self._start, 1e-9)
        after = processes()
        stolen = steal_s() - self._steal
        own = own_pids(after, self.root)
        used = {"own": 0.0, "other": 0.0, "kernel": 0.0}
        others: list[tuple[float, Process]] = []
        for pid, process in after.items():
            earlier = self._before.get(pid)
            # A pid seen before under another name was reused: all of its CPU is new.
            spent = process.cpu_s - (
                earlier.cpu_s if earlier is not None and earlier.name == process.name else 0.0
            )
            if spent <= 0:
                continue
            if pid in own:
                used["own"] += spent
            elif process.kernel_thread:
                used["kernel"] += spent
            else:
                used["other"] += spent
                others.append((spent, process))
        others.sort(key=lambda item: item[0], reverse=True)
        self._result = {
            "seconds": round(wall, 1),
            "own_cores": round(used["own"] / wall, 3),
            "other_processes_cores": round(used["other"] / wall, 3),
            "kernel_threads_cores": round(used["kernel"] / wall, 3),
            "steal_cores": round(stolen / wall, 3),
            "busiest_others": [
                {"pid": process.pid, "name": process.name, "cores": round(spent / wall, 3)}
                for spent, process in others[:3]
                if spent / wall >= 0.01
            ],
        }

    def result(self) -> dict[str, Any] | None:
        """What the phase saw (None where ``/proc`` is absent, or before the phase ended)."""
        return self._result


def noticeable(seen: dict[str, Any] | None) -> bool:
    """Whether other processes or the hypervisor took enough CPU to move the ratios."""
    if not seen:
        return False
    return seen["other_processes_cores"] + seen["steal_cores"] > NOTICEABLE_CORES
