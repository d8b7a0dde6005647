"""``make bench``: latency of the agent's hot paths against MariaDB + Redis.

Runs in-process through the real HTTP stack (DRF test client), on a dedicated database
(``lightnote_bench``) and Redis database 14, and checks the targets below. Timed numbers are
checked here, never in unit tests. Sizes: ``LIGHTNOTE_BENCH_N`` (default 200).
"""

from __future__ import annotations

import os
import statistics
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lightnote.settings")
os.environ.setdefault("LIGHTNOTE_SECRET_KEY", "bench-secret-key-not-for-production-0123456789abc")
os.environ.setdefault("LIGHTNOTE_HTTPS", "0")
os.environ.setdefault("LIGHTNOTE_ALLOWED_HOSTS", "testserver")
os.environ.setdefault("LIGHTNOTE_LOG_LEVEL", "WARNING")
os.environ.setdefault("LIGHTNOTE_DATABASE_URL", "mysql://root@127.0.0.1:3306/lightnote_bench")
os.environ.setdefault("LIGHTNOTE_REDIS_URL", "redis://127.0.0.1:6379/14")
os.environ.setdefault("LIGHTNOTE_RATE_LIMIT_CARDS", "100000/m")
os.environ.setdefault("LIGHTNOTE_RATE_LIMIT_CONFIRMS", "100000/m")
os.environ["LIGHTNOTE_PLANNER"] = "rules"
os.environ.pop("OPENAI_API_KEY", None)

# Targets (milliseconds, p95 on a 2-core machine with local MariaDB and Redis).
TARGETS = {
    "message (card issued)": 50.0,
    "confirm (execute once)": 50.0,
    "duplicate confirm": 20.0,
}


def _ensure_database() -> None:
    import MySQLdb
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("mysql"):
        connection = MySQLdb.connect(
            host=db["HOST"], port=int(db["PORT"]), user=db["USER"], password=db["PASSWORD"]
        )
        connection.cursor().execute(
            f"CREATE DATABASE IF NOT EXISTS `{db['NAME']}` CHARACTER SET utf8mb4"
        )
        connection.close()


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _timed(samples: dict[str, list[float]], name: str, call: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    result = call()
    samples.setdefault(name, []).append((time.perf_counter() - start) * 1000)
    return result


def main() -> int:
    import django

    django.setup()
    _ensure_database()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    from lightnote.redis import get_redis
    from todos.models import Todo

    get_redis().flushdb()
    user, _ = get_user_model().objects.get_or_create(username="bench")
    Todo.objects.filter(owner=user).delete()
    token, _ = Token.objects.get_or_create(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    session_id = client.post("/api/v1/agent/sessions/", {}, format="json").json()["id"]

    n = int(os.environ.get("LIGHTNOTE_BENCH_N", "200"))
    samples: dict[str, list[float]] = {}
    for i in range(n):
        body = _timed(
            samples,
            "message (card issued)",
            lambda i=i: client.post(
                f"/api/v1/agent/sessions/{session_id}/messages/",
                {"text": f"帮我创建一条明天下午三点开会{i}的待办"},
                format="json",
            ).json(),
        )
        card = body["cards"][0]
        payload = {"token": card["token"], "session_id": session_id}
        answer = _timed(
            samples,
            "confirm (execute once)",
            lambda p=payload: client.post("/api/v1/agent/confirmations/confirm/", p, format="json"),
        )
        if answer.status_code != 200 or answer.json()["outcome"]["ok"] is not True:
            raise SystemExit(f"confirm failed: {answer.content!r}")
        _timed(
            samples,
            "duplicate confirm",
            lambda p=payload: client.post("/api/v1/agent/confirmations/confirm/", p, format="json"),
        )

    # Contention: 20 threads confirm one card; exactly one executes.
    body = client.post(
        f"/api/v1/agent/sessions/{session_id}/messages/",
        {"text": "帮我创建一条明天下午三点抢占测试的待办"},
        format="json",
    ).json()
    payload = {"token": body["cards"][0]["token"], "session_id": session_id}
    statuses: list[int] = []

    def race() -> None:
        from django.db import connection

        racer = APIClient()
        racer.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        statuses.append(
            racer.post("/api/v1/agent/confirmations/confirm/", payload, format="json").status_code
        )
        connection.close()

    threads = [threading.Thread(target=race) for _ in range(20)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    race_ms = (time.perf_counter() - start) * 1000
    executed = Todo.objects.filter(owner=user, title__contains="抢占测试").count()

    failed = False
    print(f"{'path':<26}{'n':>6}{'p50 ms':>10}{'p95 ms':>10}{'target':>10}")
    for name, values in samples.items():
        p95 = _percentile(values, 0.95)
        ok = p95 <= TARGETS[name]
        failed |= not ok
        print(
            f"{name:<26}{len(values):>6}{statistics.median(values):>10.1f}{p95:>10.1f}"
            f"{TARGETS[name]:>10.0f}  {'ok' if ok else 'MISSED'}"
        )
    print(
        f"20-thread race on one card: {race_ms:.0f} ms, statuses {sorted(set(statuses))}, "
        f"executions {executed} (must be 1)"
    )
    if executed != 1 or any(code >= 500 for code in statuses):
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
