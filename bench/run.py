"""``make bench``: LightNote's hot paths over real HTTP, against MariaDB and Redis.

This module runs the steps in order; each job has its module: ``config`` (sizes, knobs),
``resources`` (the database and Redis database it owns), ``seed`` (migrate, users, rows),
``server`` (gunicorn), ``measure`` (paths, lists, burst), ``interference`` (what else used
the CPU meanwhile), ``report`` (targets, tables).

What it does, in order:

1. Creates its own MariaDB database (``ln_bench_<pid>``) and takes a Redis database number
   (``LIGHTNOTE_BENCH_REDIS_DB``, default 12) only if that database is empty — it refuses to
   run otherwise, and at the end deletes only the keys its own server wrote there.
2. Migrates, seeds the users and the list rows, waits until MariaDB has written the seed out
   (its dirty pages stop falling: ``seed.wait_until_flushed``), and starts gunicorn
   (``gunicorn.conf.py``: the production worker model) with ``LIGHTNOTE_REQUEST_COUNTERS=1``,
   so every response carries the SQL statements and Redis round trips it cost, counted in
   the server.
3. From this separate client process, over keep-alive HTTP, interleaves five paths in a
   shuffled order per round (noise hits all of them alike): the authenticated no-op
   ``GET /api/v1/me/`` (the baseline every other p50 is reported against), direct create
   (``POST /api/v1/todos/``), card issue (a message turn, rules planner), confirm, and repeat
   confirm of a settled card, noting the CPU other processes used meanwhile
   (``interference``: their load moves the timings). Then list latency at two sizes,
   interleaved; then one card confirmed by ``N`` concurrent connections (on a server started
   again without the counters, as production runs: the burst is timed, not counted; an
   untimed burst of 100 on another card warms it first); then, for
   comparison, the same paths on the previous worker model (``sync`` workers, a new database
   connection per request, a ping).
4. Prints p50/p95/p99 per path, the ratios to the baseline, the counts, the targets
   (PASS/FAIL: counts per confirm, writes per repeat, one execution under the burst and its
   4 s ceiling, flat lists), the time to a model turn's first visible text with streaming on
   and off (``streaming``: a scripted model, 50 ms a word), writes
   ``bench/results/latest.json``, stops its server and drops its database.

Sizes (``LIGHTNOTE_BENCH_SIZE``): ``full`` (default; n=500 per path, lists at 1k and 100k
rows, 1000 concurrent confirms) or ``smoke`` (n=30, 1k and 5k rows, 100 concurrent).
Single knobs override: ``LIGHTNOTE_BENCH_N``, ``LIGHTNOTE_BENCH_LIST_ROWS`` (``1000,100000``),
``LIGHTNOTE_BENCH_CONCURRENT``, ``LIGHTNOTE_BENCH_STREAM_N`` (scripted turns each way: 20,
smoke 3), ``LIGHTNOTE_BENCH_COMPARE`` (``0`` skips the comparison).
Exit status: 1 when a target fails (the timed one only at full size), 2 when it refused to run.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import random
import subprocess
import sys
import time
from datetime import UTC, datetime
from typing import Any

from bench.config import RESULTS, ROOT, Refused, bench_config
from bench.interference import CpuWatch
from bench.measure import PATHS, measure_burst, measure_lists, measure_paths
from bench.report import check_targets, print_report, ratio
from bench.resources import own_database, own_redis_db
from bench.seed import seed_rows, setup_django, token_for, wait_until_flushed
from bench.server import server, server_environment
from bench.streaming import measure_first_text, scripted_model


def _git_commit() -> str:
    with contextlib.suppress(Exception):
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    return "unknown"


def run(config: dict[str, Any]) -> dict[str, Any]:
    rng = random.Random(config["seed"])
    results: dict[str, Any] = {
        "started_at": datetime.now(UTC).isoformat(),
        "commit": _git_commit(),
        "config": {k: v for k, v in config.items() if k != "mysql"},
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "loadavg_before": [round(x, 2) for x in os.getloadavg()],
        },
    }
    with own_database(config) as database_url, own_redis_db(config) as redis_url:
        env = server_environment(database_url, redis_url)
        setup_django(env)
        token = token_for("bench")
        small, large = config["list_rows"]
        list_tokens = {
            small: token_for("bench_lists_small"),
            large: token_for("bench_lists_large"),
        }
        seed_start = time.perf_counter()
        seed_rows("bench_lists_small", small)
        seed_rows("bench_lists_large", large)
        results["seed_seconds"] = round(time.perf_counter() - seed_start, 1)
        # Time nothing while the server is still writing the seed out (bench/seed.py).
        results["flush_wait"] = wait_until_flushed()

        settings = {
            "LIGHTNOTE_WORKERS": str(config["workers"]),
            "LIGHTNOTE_THREADS": str(config["threads"]),
            "LIGHTNOTE_WORKER_CONNECTIONS": str(config["worker_connections"]),
        }
        results["server"] = {
            "model": f"gunicorn gthread, {config['workers']} workers x {config['threads']} "
            f"threads, at most {config['worker_connections']} connections per worker, "
            "keep-alive, persistent DB connections (CONN_MAX_AGE=60, no ping)",
            **settings,
        }
        with server(env, settings, token) as port:
            # What else ran while the ratios were timed (bench/interference.py).
            with CpuWatch() as watch:
                results["paths"] = measure_paths(port, token, config["n"], rng)
            results["interference"] = watch.result()
            results["lists"] = measure_lists(port, list_tokens, config["n"], rng)
        # The burst counts statuses and time, not statements: its server runs as production
        # does, without the per-response counters (an instrument, docs/performance.md), and
        # is warmed by an untimed burst of 100 on another card first.
        with server({**env, "LIGHTNOTE_REQUEST_COUNTERS": "0"}, settings, token) as port:
            results["burst"] = {
                **measure_burst(port, token, config["concurrent"], warm_up=100),
                "server": "the same, without the request counters, warmed by 100 confirms of "
                "another card",
            }

        # A model turn's first visible text, streamed and not, with a scripted model
        # (bench/streaming.py); no counters, as production runs.
        with (
            scripted_model(2 * config["stream_n"]) as model_env,
            server(
                {**env, **model_env, "LIGHTNOTE_REQUEST_COUNTERS": "0"}, settings, token
            ) as port,
        ):
            results["first_text"] = measure_first_text(port, token, config["stream_n"])

        if config["compare"]:
            old_env = {
                **env,
                "LIGHTNOTE_DATABASE_URL": f"{database_url}?conn_max_age=0",
                "LIGHTNOTE_DB_HEALTH_CHECKS": "1",
            }
            old_settings = {**settings, "LIGHTNOTE_WORKER_CLASS": "sync", "LIGHTNOTE_THREADS": "1"}
            with server(old_env, old_settings, token) as port:
                results["comparison"] = {
                    "model": f"gunicorn sync, {config['workers']} workers, no keep-alive, "
                    "a new DB connection per request",
                    "paths": measure_paths(port, token, config["compare_n"], rng),
                }

    baseline = results["paths"][PATHS[0]]["p50_ms"]
    results["ratios"] = {
        name: ratio(results["paths"][name]["p50_ms"], baseline) for name in PATHS[1:]
    }
    results["targets"] = check_targets(results, timed=config["size"] == "full")
    results["machine"]["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    results["finished_at"] = datetime.now(UTC).isoformat()
    return results


def main() -> int:
    sys.path.insert(0, str(ROOT))
    try:
        config = bench_config()
        results = run(config)
    except Refused as refused:
        print(f"bench refused to run: {refused}", file=sys.stderr)
        return 2
    RESULTS.mkdir(parents=True, exist_ok=True)
    name = "latest.json" if config["size"] == "full" else f"latest-{config['size']}.json"
    (RESULTS / name).write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    print_report(results)
    print(f"\nwritten to {RESULTS / name}")
    failed = [item for item in results["targets"] if item["enforced"] and not item["ok"]]
    return 1 if failed else 0
