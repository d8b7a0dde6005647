"""``make bench``'s record of what else used the CPU while it timed its paths."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from bench.interference import CpuWatch, Process, noticeable, own_pids, parse_stat

LINUX = pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="reads Linux's /proc")


def test_a_stat_line_is_read_whatever_the_process_calls_itself() -> None:
    raw = (
        "4242 (odd) name (x)) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 "
        "100 1000 10 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0"
    )
    process = parse_stat(raw, tick=100.0)
    assert process == Process(
        pid=4242, parent=17, name="odd) name (x)", cpu_s=3.0, kernel_thread=False
    )
    kernel = parse_stat(raw.replace(" 4194560 ", f" {0x00200040} "), tick=100.0)
    assert kernel.kernel_thread is True


def test_the_report_speaks_of_interference_only_past_a_twentieth_of_a_core() -> None:
    quiet = {"other_processes_cores": 0.01, "steal_cores": 0.02}
    assert not noticeable(quiet)
    assert noticeable({**quiet, "steal_cores": 0.05})  # the hypervisor counts too
    assert noticeable({**quiet, "other_processes_cores": 0.2})
    assert not noticeable(None)  # no /proc: nothing to say


def _process(pid: int, parent: int, name: str) -> Process:
    return Process(pid=pid, parent=parent, name=name, cpu_s=0.0, kernel_thread=False)


def test_the_bench_owns_what_it_started_and_the_servers_it_uses() -> None:
    table = {
        p.pid: p
        for p in (
            _process(1, 0, "init"),
            _process(10, 1, "python"),  # the bench
            _process(11, 10, "gunicorn"),  # its server
            _process(12, 11, "gunicorn"),  # a worker
            _process(13, 11, "gunicorn"),
            _process(20, 1, "mariadbd"),
            _process(21, 1, "redis-server"),
            _process(30, 1, "dd"),  # someone else's
            _process(31, 30, "sh"),
        )
    }
    assert own_pids(table, root=10) == {10, 11, 12, 13, 20, 21}


def _spin(seconds: float) -> str:
    return f"import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end: pass\n"


@LINUX
def test_a_busy_process_the_bench_did_not_start_is_counted_as_other_work() -> None:
    # Started through a shell that exits at once: the busy process is re-parented, no longer
    # a descendant of this one, as a process someone else started would be.
    with CpuWatch() as watch:
        subprocess.run(
            ["sh", "-c", f'"{sys.executable}" -c "$0" >/dev/null 2>&1 &', _spin(1.0)], check=True
        )
        time.sleep(1.3)
    seen = watch.result()
    assert seen is not None
    assert seen["other_processes_cores"] > 0.3
    assert any(other["name"].startswith("python") for other in seen["busiest_others"])
    assert noticeable(seen)


@LINUX
def test_a_busy_process_the_bench_started_is_its_own_work() -> None:
    with CpuWatch() as watch:
        child = subprocess.Popen([sys.executable, "-c", _spin(1.0)])
        time.sleep(0.8)  # measured while it still runs: an exited child leaves /proc
    child.wait()
    seen = watch.result()
    assert seen is not None
    # The parent only sleeps: its own share is the child's. On a loaded machine (both test
    # passes side by side) the child gets ~a quarter of a core, so the bar is low but above
    # what a sleeping parent and the watch's own sampling cost (~0.01).
    assert seen["own_cores"] > 0.1
    assert all(other["pid"] != child.pid for other in seen["busiest_others"])
