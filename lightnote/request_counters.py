"""Count the SQL statements and Redis round trips one request costs (a measuring instrument).

``make bench`` turns this on in its own server with ``LIGHTNOTE_REQUEST_COUNTERS=1``; every
response then carries ``X-LightNote-SQL`` (statements, as Django's ``CaptureQueriesContext``
counts them: SAVEPOINTs included), ``X-LightNote-SQL-Writes`` (INSERT / UPDATE / DELETE /
REPLACE among them), ``X-LightNote-SQL-Round-Trips`` (what went to the database: a batch of
statements sent together, ``lightnote.write_statements.run_statements``, is one round trip
but each of its statements counts in ``X-LightNote-SQL``; on MariaDB the ``SET
autocommit=1`` after each Django transaction, which Django does not log, is one more) and
``X-LightNote-Redis`` (round trips: one command, one script call or one whole pipeline
each). The numbers are counted where the bytes leave the process, never estimated. Tests
use :func:`count_requests` around a block for the same figures.

Off by default: the first counted block patches redis-py's connection class and Django's
MySQL backend (which ``lightnote.db_backends.mysql`` extends; the patch counts turning
autocommit back on) once per process, which a production server does not need.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from django.db import connections

_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


@dataclass
class Counts:
    """What one request (or one counted block) sent to MariaDB and Redis."""

    sql: int = 0
    sql_writes: int = 0
    redis: int = 0
    sql_round_trips: int = 0
    statements: list[str] | None = None
    batches: dict[str, list[str]] = field(default_factory=dict)
    parent: Counts | None = None

    def record_sent(self, sql: str) -> None:
        """Count one round trip to the database: one statement, or a noted batch's each."""
        self.sql_round_trips += 1
        tagged = _BATCH_TAG.match(sql)
        parts = self.batches.get(tagged.group(1)) if tagged else None
        for part in parts if parts is not None else [sql]:
            self.record_sql(part)

    def record_sql(self, sql: str) -> None:
        self.sql += 1
        if sql.lstrip()[:7].upper().startswith(_WRITES):
            self.sql_writes += 1
        if self.statements is not None:
            self.statements.append(sql)


_current: ContextVar[Counts | None] = ContextVar("lightnote_request_counts", default=None)
_BATCH_TAG = re.compile(r"/\* lightnote batch (#\d+) \*/")
_batch_numbers = itertools.count(1)


def note_batch(parts: list[str]) -> str:
    """Tell the counted blocks around this call that the next statement is a batch of
    ``parts``; return its tag, which the batch's SQL carries (empty when nothing counts)."""
    counts = _current.get()
    if counts is None:
        return ""
    tag = f"#{next(_batch_numbers)}"
    while counts is not None:
        counts.batches[tag] = parts
        counts = counts.parent
    return tag


_patch_lock = threading.Lock()
_patched = False


def _patch_redis() -> None:
    """Count every packed send on a redis-py connection: one send is one round trip."""
    global _patched
    with _patch_lock:
        if _patched:
            return
        from redis.connection import AbstractConnection

        original = AbstractConnection.send_packed_command

        def send_packed_command(self: Any, command: Any, check_health: bool = True) -> Any:
            counts = _current.get()
            if counts is not None:
                counts.redis += 1
            return original(self, command, check_health)

        AbstractConnection.send_packed_command = send_packed_command  # type: ignore[method-assign]
        _patched = True


_autocommit_patched = False


def _patch_mysql_autocommit() -> None:
    """Count turning autocommit back on after a transaction on MariaDB: mysqlclient sends
    ``SET autocommit=1`` (a round trip) but Django logs no statement for it."""
    global _autocommit_patched
    with _patch_lock:
        if _autocommit_patched:
            return
        try:
            from django.db.backends.mysql.base import DatabaseWrapper
        except ImportError:  # pragma: no cover - mysqlclient is a dependency
            return
        original = DatabaseWrapper._set_autocommit  # type: ignore[attr-defined]

        def _set_autocommit(self: Any, autocommit: bool) -> Any:
            counts = _current.get()
            if counts is not None and autocommit and not self.connection.get_autocommit():
                while counts is not None:
                    counts.sql_round_trips += 1
                    counts = counts.parent
            return original(self, autocommit)

        DatabaseWrapper._set_autocommit = _set_autocommit  # type: ignore[attr-defined]
        _autocommit_patched = True


@contextlib.contextmanager
def count_requests(*, keep_statements: bool = False) -> Iterator[Counts]:
    """Count SQL statements (every database alias) and Redis round trips inside the block.

    SQL is counted as ``CaptureQueriesContext`` counts it (it is used here): every
    statement, SAVEPOINT and RELEASE, and the BEGIN and COMMIT of each transaction; a batch
    sent as one round trip counts each of its statements (``sql``) and one round trip
    (``sql_round_trips``, which also counts what Django sends without logging a statement:
    on MariaDB, autocommit turned back on after each transaction).
    """
    from django.test.utils import CaptureQueriesContext  # only where something is counted

    _patch_redis()
    _patch_mysql_autocommit()
    counts = Counts(statements=[] if keep_statements else None, parent=_current.get())
    token = _current.set(counts)
    captures = [CaptureQueriesContext(connections[alias]) for alias in connections]
    for capture in captures:
        capture.__enter__()
    try:
        yield counts
    finally:
        for capture in captures:
            capture.__exit__(None, None, None)
            for query in capture.captured_queries:
                counts.record_sent(query["sql"])
        _current.reset(token)


class RequestCountersMiddleware:
    """Put the request's counts on its response (first in ``MIDDLEWARE``, bench server only)."""

    def __init__(self, get_response: Callable[[Any], Any]) -> None:
        self.get_response = get_response
        _patch_redis()

    def __call__(self, request: Any) -> Any:
        with count_requests() as counts:
            response = self.get_response(request)
        response["X-LightNote-SQL"] = str(counts.sql)
        response["X-LightNote-SQL-Writes"] = str(counts.sql_writes)
        response["X-LightNote-Redis"] = str(counts.redis)
        response["X-LightNote-SQL-Round-Trips"] = str(counts.sql_round_trips)
        return response
