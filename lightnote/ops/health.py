"""Readiness: can this process serve? The database, Redis, migrations and the worker.

Each probe in :data:`PROBES` runs in a small thread pool of its own and answers for the
checks it names; whatever has not answered by ``LIGHTNOTE_READINESS_TIMEOUT_MS`` is a
``timeout``, so a hung dependency (a Redis stopped with SIGSTOP) still gets an answer in
time. Redis is probed with a client of its own with a socket timeout just past that deadline
and no retry (the store's client would wait ``LIGHTNOTE_REDIS_TIMEOUT_MS`` and retry). The
database probe opens its own connection in its thread and closes it after: one ``SELECT 1``,
one read of ``django_migrations`` and one of the worker's heartbeat.

A check is ``ok`` or names what is wrong (``error``, ``timeout``, ``pending``, ``missing``,
``stale``, ``unknown``); never a version, an address or an exception text.
"""

from __future__ import annotations

import contextvars
import functools
import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import fakeredis
import redis
from django.conf import settings
from django.db import DatabaseError, connection
from django.db.migrations.loader import MigrationLoader
from django.utils import timezone
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from lightnote.controlstore.redis import fake_server
from lightnote.ops.heartbeat import last_beat

logger = logging.getLogger(__name__)

CHECKS = ("database", "redis", "migrations", "worker")
OK = "ok"


@dataclass(frozen=True)
class Probe:
    """One round of work that answers for ``checks`` (a status each)."""

    name: str
    checks: tuple[str, ...]
    run: Callable[[], dict[str, str]]


@functools.lru_cache(maxsize=1)
def _known_migrations() -> tuple[frozenset[tuple[str, str]], dict[tuple[str, str], list[Any]]]:
    """Every migration on disk (read once: the files do not change while the process runs)."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    return frozenset(loader.graph.nodes), dict(loader.replacements)


def _migrations_status() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT app, name FROM django_migrations")
        applied = {(app, name) for app, name in cursor.fetchall()}
    known, replacements = _known_migrations()
    for key in known - applied:
        replaced = getattr(replacements.get(key), "replaces", None)
        if not replaced or not all(tuple(part) in applied for part in replaced):
            return "pending"
    return OK


def _worker_status() -> str:
    beat = last_beat()
    if beat is None:
        return "missing"
    max_age = timedelta(seconds=settings.LIGHTNOTE_WORKER_HEARTBEAT_MAX_AGE)
    return "stale" if timezone.now() - beat > max_age else OK


def _database_probe() -> dict[str, str]:
    """The database answers, every migration is applied, the worker beat lately."""
    results = {"database": "error", "migrations": "unknown", "worker": "unknown"}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        results["database"] = OK
        results["migrations"] = _migrations_status()
        results["worker"] = _worker_status()
    except DatabaseError:
        logger.warning("readiness: the database probe failed", exc_info=True)
    finally:
        connection.close()  # this pool thread's own connection: a fresh one each probe
    return results


@functools.lru_cache(maxsize=8)
def _redis_client(url: str, cluster: bool, timeout: float) -> Any:
    """A client of its own for the probe: short timeouts, no retry."""
    if url.startswith("fakeredis://"):
        return fakeredis.FakeRedis(server=fake_server(url))
    options: dict[str, Any] = {
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        "retry": Retry(NoBackoff(), 0),
    }
    if cluster:
        return RedisCluster.from_url(url, **options)
    return redis.Redis.from_url(url, **options)


def _redis_probe() -> dict[str, str]:
    """Redis answers a PING."""
    # A little past the deadline: a hung server is reported as the deadline's "timeout",
    # and the pool thread is free again soon after.
    client = _redis_client(settings.REDIS_URL, settings.REDIS_CLUSTER, readiness_timeout() + 0.5)
    try:
        client.ping()
    except redis.exceptions.RedisError:
        logger.warning("readiness: the Redis probe failed", exc_info=True)
        return {"redis": "error"}
    return {"redis": OK}


PROBES: tuple[Probe, ...] = (
    Probe("database", ("database", "migrations", "worker"), _database_probe),
    Probe("redis", ("redis",), _redis_probe),
)


def readiness_timeout() -> float:
    return settings.LIGHTNOTE_READINESS_TIMEOUT_MS / 1000


@functools.lru_cache(maxsize=1)
def _pool() -> ThreadPoolExecutor:
    # Made at the first probe, so in the serving process (after gunicorn's fork). Four
    # threads: a probe stuck on a hung server holds one until its socket timeout.
    return ThreadPoolExecutor(max_workers=4, thread_name_prefix="readiness")


def _failing(check: str, status: str) -> bool:
    if status == OK:
        return False
    # Without LIGHTNOTE_REQUIRE_WORKER the worker's state is reported, never a failure.
    return not (check == "worker" and not settings.LIGHTNOTE_REQUIRE_WORKER)


def readiness() -> tuple[bool, dict[str, str]]:
    """Run every probe (in parallel, within the deadline); return (ready, status per check)."""
    futures: dict[Future[dict[str, str]], Probe] = {
        # Each in a copy of this context: its log lines carry the probe request's id.
        _pool().submit(contextvars.copy_context().run, probe.run): probe
        for probe in PROBES
    }
    done, _ = wait(futures, timeout=readiness_timeout())
    statuses: dict[str, str] = {}
    for future, probe in futures.items():
        if future in done and future.exception() is None:
            statuses.update(future.result())
        else:
            if future in done:
                logger.warning("readiness probe %s raised", probe.name, exc_info=future.exception())
            statuses.update(
                dict.fromkeys(probe.checks, "timeout" if future not in done else "error")
            )
    checks = {check: statuses.get(check, "unknown") for check in CHECKS}
    ready = not any(_failing(check, status) for check, status in checks.items())
    return ready, checks
