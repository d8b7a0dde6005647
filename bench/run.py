"""``make bench``: LightNote's hot paths over real HTTP, against MariaDB and Redis.

What it does, in order:

1. Creates its own MariaDB database (``ln_bench_<pid>``) and takes a Redis database number
   (``LIGHTNOTE_BENCH_REDIS_DB``, default 12) only if that database is empty — it refuses to
   run otherwise, and at the end deletes only the keys its own server wrote there.
2. Migrates, seeds the users, and starts gunicorn (``gunicorn.conf.py``: the production worker
   model) with ``LIGHTNOTE_REQUEST_COUNTERS=1``, so every response carries the SQL statements
   and Redis round trips it cost, counted in the server.
3. From this separate client process, over keep-alive HTTP, interleaves four paths in a
   shuffled order per round (noise hits all of them alike): direct create
   (``POST /api/v1/todos/``), card issue (a message turn, rules planner), confirm, and repeat
   confirm of a settled card. Then list latency at two sizes, interleaved; then one card
   confirmed by ``N`` concurrent connections; then, for comparison, the same paths on the
   previous worker model (``sync`` workers, a new database connection per request, a ping).
4. Prints p50/p95/p99 per path, the ratios, the counts, the targets (PASS/FAIL), writes
   ``bench/results/latest.json``, stops its server and drops its database.

Sizes (``LIGHTNOTE_BENCH_SIZE``): ``full`` (default; n=500 per path, lists at 1k and 100k
rows, 1000 concurrent confirms) or ``smoke`` (n=30, 1k and 5k rows, 100 concurrent).
Single knobs override: ``LIGHTNOTE_BENCH_N``, ``LIGHTNOTE_BENCH_LIST_ROWS`` (``1000,100000``),
``LIGHTNOTE_BENCH_CONCURRENT``, ``LIGHTNOTE_BENCH_COMPARE`` (``0`` skips the comparison).
Exit status: 1 when a target fails (timed targets only at full size), 2 when it refused to run.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.client import Burst, Client, Reply, burst

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
HOST = "127.0.0.1"
MARKER_KEY = "lightnote-bench:owner"

SIZES = {
    "full": {"n": 500, "list_rows": (1_000, 100_000), "concurrent": 1000, "compare_n": 150},
    "smoke": {"n": 30, "list_rows": (1_000, 5_000), "concurrent": 100, "compare_n": 20},
}

PATHS = ("direct create", "card issue", "confirm", "repeat confirm")


class Refused(Exception):
    """The bench will not run here (a resource it would use is not its own)."""


# --- Settings -----------------------------------------------------------------------------


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else default


def bench_config() -> dict[str, Any]:
    size = os.environ.get("LIGHTNOTE_BENCH_SIZE", "full")
    if size not in SIZES:
        raise Refused(f"LIGHTNOTE_BENCH_SIZE must be one of {sorted(SIZES)}, got {size!r}")
    config = dict(SIZES[size])
    config["size"] = size
    config["n"] = _env_int("LIGHTNOTE_BENCH_N", config["n"])
    rows = os.environ.get("LIGHTNOTE_BENCH_LIST_ROWS", "").strip()
    if rows:
        small, large = (int(part) for part in rows.split(","))
        config["list_rows"] = (small, large)
    config["concurrent"] = _env_int("LIGHTNOTE_BENCH_CONCURRENT", config["concurrent"])
    config["compare"] = os.environ.get("LIGHTNOTE_BENCH_COMPARE", "1") != "0"
    config["mysql"] = os.environ.get("LIGHTNOTE_BENCH_MYSQL", "mysql://root@127.0.0.1:3306")
    config["redis_db"] = _env_int("LIGHTNOTE_BENCH_REDIS_DB", 12)
    config["redis_host"] = os.environ.get("LIGHTNOTE_BENCH_REDIS_HOST", "127.0.0.1")
    config["workers"] = _env_int("LIGHTNOTE_WORKERS", 2)
    config["threads"] = _env_int("LIGHTNOTE_THREADS", 4)
    config["seed"] = _env_int("LIGHTNOTE_BENCH_SEED", 20261203)
    return config


# --- Owned resources: a database and a Redis database ---------------------------------------


def _mysql_parts(url: str) -> dict[str, Any]:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return {
        "host": parts.hostname or "127.0.0.1",
        "port": parts.port or 3306,
        "user": parts.username or "root",
        "password": parts.password or "",
    }


@contextlib.contextmanager
def own_database(config: dict[str, Any]) -> Iterator[str]:
    """Create ``ln_bench_<pid>`` and drop it afterwards; yield its URL."""
    import MySQLdb

    parts = _mysql_parts(config["mysql"])
    name = f"ln_bench_{os.getpid()}"
    admin = MySQLdb.connect(**parts)
    cursor = admin.cursor()
    cursor.execute(f"SHOW DATABASES LIKE '{name}'")
    if cursor.fetchone():
        raise Refused(f"database {name} already exists; it is not this run's to reuse")
    cursor.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
    try:
        yield f"{config['mysql'].rstrip('/')}/{name}"
    finally:
        with contextlib.suppress(Exception):
            from django.db import connections

            connections.close_all()
        cursor.execute(f"DROP DATABASE IF EXISTS `{name}`")
        admin.close()


@contextlib.contextmanager
def own_redis_db(config: dict[str, Any]) -> Iterator[str]:
    """Use Redis database ``redis_db`` only if it is empty; afterwards delete only our keys."""
    import redis

    url = f"redis://{config['redis_host']}:6379/{config['redis_db']}"
    client = redis.Redis.from_url(url)
    if client.dbsize() != 0:
        raise Refused(
            f"Redis database {config['redis_db']} is not empty; the bench uses only an empty "
            "database (set LIGHTNOTE_BENCH_REDIS_DB to a free one)"
        )
    owner = f"pid {os.getpid()} at {datetime.now(UTC).isoformat()}"
    if not client.set(MARKER_KEY, owner, nx=True):
        raise Refused(f"Redis database {config['redis_db']} was taken meanwhile")
    try:
        yield url
    finally:
        # Only what our server writes: the app's keys ("ln:" prefix) and our marker.
        keys = list(client.scan_iter(match="ln:*", count=1000))
        for start in range(0, len(keys), 500):
            client.delete(*keys[start : start + 500])
        if client.get(MARKER_KEY) == owner.encode():
            client.delete(MARKER_KEY)
        client.close()


# --- Django in this process: migrate and seed ------------------------------------------------


def server_environment(database_url: str, redis_url: str) -> dict[str, str]:
    """The environment of the bench server (and of this process's Django, for seeding)."""
    return {
        "DJANGO_SETTINGS_MODULE": "lightnote.settings",
        "LIGHTNOTE_DATABASE_URL": database_url,
        "LIGHTNOTE_REDIS_URL": redis_url,
        "LIGHTNOTE_REDIS_CLUSTER": "0",
        "LIGHTNOTE_SECRET_KEY": "bench-only-secret-key-not-for-production-0123456789abcdef",
        "LIGHTNOTE_DEBUG": "0",
        "LIGHTNOTE_HTTPS": "0",
        "LIGHTNOTE_ALLOWED_HOSTS": HOST,
        "LIGHTNOTE_LOG_LEVEL": "WARNING",
        "LIGHTNOTE_PLANNER": "rules",
        # The limiter runs on every claim, as in production, but never refuses here.
        "LIGHTNOTE_RATE_LIMIT_CARDS": "1000000/m",
        "LIGHTNOTE_RATE_LIMIT_CONFIRMS": "1000000/m",
        "LIGHTNOTE_REQUEST_COUNTERS": "1",
        "LIGHTNOTE_ACCESS_LOG": "",
    }


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    os.environ.pop("OPENAI_API_KEY", None)
    os.environ.pop("LIGHTNOTE_TEST_DATABASE_NAME", None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _token_for(username: str) -> str:
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    user = get_user_model().objects.create_user(username=username, password="bench-pass-2026")
    return Token.objects.create(user=user).key


def seed_rows(username: str, rows: int) -> None:
    """Give ``username`` ``rows`` todos and ``rows`` notes, created one minute apart."""
    from django.contrib.auth import get_user_model

    from notes.models import Note
    from todos.models import Todo

    owner = get_user_model().objects.get(username=username)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    batch = 5_000
    for first in range(0, rows, batch):
        todos, notes = [], []
        for i in range(first, min(rows, first + batch)):
            at = start + timedelta(minutes=i)
            todos.append(
                Todo(
                    owner=owner,
                    title=f"todo {i}",
                    description="seeded by make bench",
                    status="done" if i % 3 == 0 else "open",
                    created_at=at,
                    updated_at=at,
                )
            )
            notes.append(
                Note(
                    owner=owner,
                    title=f"note {i}",
                    content="seeded by make bench",
                    tags=["bench"],
                    created_at=at,
                    updated_at=at,
                )
            )
        Todo.objects.bulk_create(todos)
        Note.objects.bulk_create(notes)


# --- The server ------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def server(env: dict[str, str], settings: dict[str, str], token: str) -> Iterator[int]:
    """Run gunicorn with ``gunicorn.conf.py`` plus ``settings``; yield its port."""
    port = _free_port()
    full_env = {**os.environ, **env, **settings, "LIGHTNOTE_BIND": f"{HOST}:{port}"}
    process = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "gunicorn"), "lightnote.wsgi:application"],
        cwd=ROOT,
        env=full_env,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {process.returncode}")
            try:
                probe = Client(HOST, port, token)
                if probe.call("GET", "/api/v1/me/").status == 200:
                    probe.close()
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("gunicorn did not answer within 60 s")
            time.sleep(0.2)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# --- Measuring -------------------------------------------------------------------------------


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (``fraction`` in 0..1)."""
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(fraction * len(ordered) + 0.5) - 1))
    return ordered[rank]


def summarize(replies: list[Reply]) -> dict[str, Any]:
    times = [reply.ms for reply in replies]
    summary: dict[str, Any] = {
        "n": len(times),
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(percentile(times, 0.95), 2),
        "p99_ms": round(percentile(times, 0.99), 2),
    }
    for counter in ("sql", "sql_writes", "redis"):
        values = [getattr(reply, counter) for reply in replies]
        if values and all(value is not None for value in values):
            summary[f"{counter}_per_request"] = {
                "min": min(values),
                "median": statistics.median(values),
                "max": max(values),
            }
    return summary


class Expect(Exception):
    """A path answered something other than what it must answer: the bench stops."""


def _expect(reply: Reply, status: int, what: str) -> Reply:
    if reply.status != status:
        raise Expect(f"{what}: expected {status}, got {reply.status}: {reply.body!r}")
    return reply


class Paths:
    """The four interleaved paths for one user, one keep-alive connection."""

    def __init__(self, client: Client, session_id: str, rng: random.Random) -> None:
        self.client = client
        self.session_id = session_id
        self.rng = rng
        self.ready: list[str] = []
        self.settled: list[str] = []
        self.counter = 0

    def _next(self) -> int:
        self.counter += 1
        return self.counter

    def direct_create(self) -> Reply:
        reply = self.client.call("POST", "/api/v1/todos/", {"title": f"直接创建 {self._next()}"})
        return _expect(reply, 201, "direct create")

    def card_issue(self) -> Reply:
        text = f"帮我创建一条明天下午三点开会{self._next()}的待办"
        reply = _expect(
            self.client.call(
                "POST", f"/api/v1/agent/sessions/{self.session_id}/messages/", {"text": text}
            ),
            200,
            "card issue",
        )
        cards = reply.body.get("cards") or []
        if len(cards) != 1:
            raise Expect(f"card issue: expected one card, got {reply.body!r}")
        self.ready.append(cards[0]["token"])
        return reply

    def confirm(self) -> Reply:
        if not self.ready:
            self.card_issue()
        token = self.ready.pop(0)
        reply = _expect(
            self.client.call(
                "POST",
                "/api/v1/agent/confirmations/confirm/",
                {"token": token, "session_id": self.session_id},
            ),
            200,
            "confirm",
        )
        if reply.body["outcome"]["ok"] is not True:
            raise Expect(f"confirm: expected ok:true, got {reply.body!r}")
        self.settled.append(token)
        return reply

    def repeat_confirm(self) -> Reply:
        if not self.settled:
            self.confirm()
        token = self.rng.choice(self.settled)
        reply = _expect(
            self.client.call(
                "POST",
                "/api/v1/agent/confirmations/confirm/",
                {"token": token, "session_id": self.session_id},
            ),
            200,
            "repeat confirm",
        )
        if reply.body["outcome"]["ok"] is not True:
            raise Expect(f"repeat confirm: expected the stored ok:true, got {reply.body!r}")
        return reply

    def run(self, rounds: int, names: tuple[str, ...] = PATHS) -> dict[str, list[Reply]]:
        """Run ``rounds`` rounds; each runs every path once, in a freshly shuffled order."""
        calls = {
            "direct create": self.direct_create,
            "card issue": self.card_issue,
            "confirm": self.confirm,
            "repeat confirm": self.repeat_confirm,
        }
        samples: dict[str, list[Reply]] = {name: [] for name in names}
        for _ in range(rounds):
            order = list(names)
            self.rng.shuffle(order)
            for name in order:
                samples[name].append(calls[name]())
        return samples


def open_session(client: Client) -> str:
    reply = _expect(client.call("POST", "/api/v1/agent/sessions/", {}), 201, "session")
    return str(reply.body["id"])


def measure_paths(port: int, token: str, rounds: int, rng: random.Random) -> dict[str, Any]:
    client = Client(HOST, port, token)
    paths = Paths(client, open_session(client), rng)
    paths.run(max(10, rounds // 10))  # warm every worker thread's connections and caches
    samples = paths.run(rounds)
    client.close()
    return {name: summarize(replies) for name, replies in samples.items()}


def measure_lists(
    port: int, tokens: dict[int, str], rounds: int, rng: random.Random
) -> dict[str, Any]:
    """GET the first page of todos and of notes for users with different row counts."""
    clients = {rows: Client(HOST, port, token) for rows, token in tokens.items()}
    calls = [
        (rows, kind, path)
        for rows in tokens
        for kind, path in (("todos", "/api/v1/todos/"), ("notes", "/api/v1/notes/"))
    ]
    samples: dict[tuple[int, str], list[Reply]] = {(rows, kind): [] for rows, kind, _ in calls}
    for warm in range(10 + rounds):
        rng.shuffle(calls)
        for rows, kind, path in calls:
            reply = _expect(clients[rows].call("GET", path), 200, f"list {kind} at {rows}")
            if warm >= 10:
                samples[(rows, kind)].append(reply)
    result: dict[str, Any] = {}
    for (rows, kind), replies in samples.items():
        summary = summarize(replies)
        first = replies[0].body
        summary["count"] = first.get("count")
        summary["count_capped"] = first.get("count_capped")
        result[f"{kind} @ {rows} rows"] = summary
    for client in clients.values():
        client.close()
    return result


def measure_burst(port: int, token: str, concurrent: int) -> dict[str, Any]:
    """Confirm one card from ``concurrent`` connections at once; count its executions."""
    from agent.models import ActionReceipt
    from todos.models import Todo

    client = Client(HOST, port, token)
    session_id = open_session(client)
    title = f"并发确认{os.getpid()}"
    issued = _expect(
        client.call(
            "POST",
            f"/api/v1/agent/sessions/{session_id}/messages/",
            {"text": f"帮我创建一条明天下午三点{title}的待办"},
        ),
        200,
        "burst card",
    )
    card = issued.body["cards"][0]
    client.close()
    result: Burst = burst(
        HOST,
        port,
        token,
        "/api/v1/agent/confirmations/confirm/",
        {"token": card["token"], "session_id": session_id},
        concurrent,
    )
    executions = Todo.objects.filter(title__contains=title).count()
    receipts = (
        ActionReceipt.objects.filter(action_id=card["card_id"]).count()
        if card.get("card_id")
        else None
    )
    return {
        "concurrent": concurrent,
        "executions": executions,
        "receipts": receipts,
        "statuses": {str(code): count for code, count in sorted(result.statuses.items())},
        "connect_ms": round(result.open_ms, 1),
        "all_answered_ms": round(result.answered_ms, 1),
        "errors": result.errors[:5],
        "error_count": len(result.errors),
    }


# --- Report ----------------------------------------------------------------------------------


def _ratio(a: float, b: float) -> float:
    return round(a / b, 3) if b else float("inf")


def check_targets(results: dict[str, Any], timed: bool) -> list[dict[str, Any]]:
    paths = results["paths"]
    create = paths["direct create"]["p50_ms"]
    checks: list[dict[str, Any]] = []

    def check(name: str, value: Any, limit: Any, ok: bool, is_timed: bool) -> None:
        checks.append(
            {
                "target": name,
                "value": value,
                "limit": limit,
                "ok": ok,
                "timed": is_timed,
                "enforced": timed or not is_timed,
            }
        )

    for path, limit in (("confirm", 1.3), ("repeat confirm", 1.0), ("card issue", 1.6)):
        ratio = _ratio(paths[path]["p50_ms"], create)
        check(f"{path} p50 / direct create p50", ratio, limit, ratio <= limit, True)
    confirm_counts = paths["confirm"]
    sql = confirm_counts.get("sql_per_request", {}).get("max")
    redis_trips = confirm_counts.get("redis_per_request", {}).get("max")
    check("SQL statements per confirm (max)", sql, 8, sql is not None and sql <= 8, False)
    check(
        "Redis round trips per confirm (max)",
        redis_trips,
        4,
        redis_trips is not None and redis_trips <= 4,
        False,
    )
    writes = paths["repeat confirm"].get("sql_writes_per_request", {}).get("max")
    check("SQL writes per repeat confirm (max)", writes, 0, writes == 0, False)
    burst_result = results["burst"]
    check(
        "executions of one card under concurrent confirms",
        burst_result["executions"],
        1,
        burst_result["executions"] == 1 and burst_result["error_count"] == 0,
        False,
    )
    check(
        f"all {burst_result['concurrent']} concurrent confirms answered (ms)",
        burst_result["all_answered_ms"],
        4000,
        burst_result["all_answered_ms"] <= 4000,
        True,
    )
    lists = results["lists"]
    small, large = results["config"]["list_rows"]
    for kind in ("todos", "notes"):
        ratio = _ratio(
            lists[f"{kind} @ {large} rows"]["p50_ms"], lists[f"{kind} @ {small} rows"]["p50_ms"]
        )
        check(f"{kind} list p50 at {large} / at {small} rows", ratio, 1.2, ratio <= 1.2, True)
    return checks


def print_report(results: dict[str, Any]) -> None:
    def table(title: str, rows: dict[str, Any]) -> None:
        print(f"\n{title}")
        header = ("path", "n", "p50", "p95", "p99", "SQL", "writes", "Redis")
        print("  {:<28}{:>5}{:>9}{:>9}{:>9}{:>9}{:>8}{:>7}".format(*header))
        for name, row in rows.items():
            counts = []
            for counter in ("sql", "sql_writes", "redis"):
                stats = row.get(f"{counter}_per_request")
                counts.append(
                    "-"
                    if stats is None
                    else (
                        f"{stats['max']}"
                        if stats["min"] == stats["max"]
                        else f"{stats['min']}-{stats['max']}"
                    )
                )
            print(
                f"  {name:<28}{row['n']:>5}{row['p50_ms']:>9.2f}{row['p95_ms']:>9.2f}"
                f"{row['p99_ms']:>9.2f}{counts[0]:>9}{counts[1]:>8}{counts[2]:>7}"
            )

    config = results["config"]
    print(
        f"\nLightNote bench ({config['size']}), {results['server']['model']}, "
        f"load average before {results['machine']['loadavg_before']}"
    )
    table("Paths (ms; SQL / writes / Redis per request, counted in the server)", results["paths"])
    ratios = results["ratios"]
    print("  ratios to direct create p50: " + ", ".join(f"{k} {v:.2f}x" for k, v in ratios.items()))
    table("Lists, first page", results["lists"])
    b = results["burst"]
    print(
        f"\n{b['concurrent']} concurrent confirms of one card: {b['executions']} execution(s), "
        f"statuses {b['statuses']}, all answered in {b['all_answered_ms']:.0f} ms "
        f"(connections opened beforehand in {b['connect_ms']:.0f} ms), errors {b['error_count']}"
    )
    if "comparison" in results:
        table(
            f"Previous worker model for comparison: {results['comparison']['model']}",
            results["comparison"]["paths"],
        )
    enforced = "" if config["size"] == "full" else " (timed targets not enforced at this size)"
    print(f"\nTargets{enforced}")
    for item in results["targets"]:
        verdict = "PASS" if item["ok"] else ("FAIL" if item["enforced"] else "miss")
        print(f"  {verdict:<5} {item['target']}: {item['value']} (limit {item['limit']})")


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
        token = _token_for("bench")
        small, large = config["list_rows"]
        list_tokens = {
            small: _token_for("bench_lists_small"),
            large: _token_for("bench_lists_large"),
        }
        seed_start = time.perf_counter()
        seed_rows("bench_lists_small", small)
        seed_rows("bench_lists_large", large)
        results["seed_seconds"] = round(time.perf_counter() - seed_start, 1)

        settings = {
            "LIGHTNOTE_WORKERS": str(config["workers"]),
            "LIGHTNOTE_THREADS": str(config["threads"]),
        }
        results["server"] = {
            "model": f"gunicorn gthread, {config['workers']} workers x {config['threads']} "
            "threads, keep-alive, persistent DB connections (CONN_MAX_AGE=60, no ping)",
            **settings,
        }
        with server(env, settings, token) as port:
            results["paths"] = measure_paths(port, token, config["n"], rng)
            results["lists"] = measure_lists(port, list_tokens, config["n"], rng)
            results["burst"] = measure_burst(port, token, config["concurrent"])

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

    create = results["paths"]["direct create"]["p50_ms"]
    results["ratios"] = {
        name: _ratio(results["paths"][name]["p50_ms"], create) for name in PATHS[1:]
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
