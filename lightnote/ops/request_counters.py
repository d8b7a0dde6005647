"""Count the SQL statements and Redis round trips one request costs (a measuring instrument).

``make bench`` turns this on in its own server with ``LIGHTNOTE_REQUEST_COUNTERS=1``; every
response then carries ``X-LightNote-SQL`` (statements, as Django's ``CaptureQueriesContext``
counts them: SAVEPOINTs included), ``X-LightNote-SQL-Writes`` (INSERT / UPDATE / DELETE /
REPLACE among them) and ``X-LightNote-Redis`` (round trips: one command, one script call or
one whole pipeline each). Tests use :func:`count_requests` around a block for the same
figures.

Off by default: the first counted block wraps redis-py's ``send_packed_command`` once per
process (one send is one round trip), which a production server never does.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.db import connections

_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


@dataclass
class Counts:
    """What one request (or one counted block) sent to MariaDB and Redis."""

    sql: int = 0
    sql_writes: int = 0
    redis: int = 0
    statements: list[str] | None = None
    parent: Counts | None = None

    def record_sql(self, sql: str) -> None:
        self.sql += 1
        if sql.lstrip()[:7].upper().startswith(_WRITES):
            self.sql_writes += 1
        if self.statements is not None:
            self.statements.append(sql)


_current: ContextVar[Counts | None] = ContextVar("lightnote_request_counts", default=None)
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


@contextlib.contextmanager
def count_requests(*, keep_statements: bool = False) -> Iterator[Counts]:
    """Count SQL statements (every database alias) and Redis round trips inside the block.

    SQL is counted as ``CaptureQueriesContext`` counts it (it is used here): every
    statement, SAVEPOINT and RELEASE included.
    """
    from django.test.utils import CaptureQueriesContext  # only where something is counted

    _patch_redis()
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
                counts.record_sql(query["sql"])
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
        return response
