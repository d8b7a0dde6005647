"""What the bench owns while it runs: its own MariaDB database (created, then dropped) and an
empty Redis database (refused unless empty; afterwards only its own keys are deleted)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from bench.config import Refused

MARKER_KEY = "lightnote-bench:owner"


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
