"""Work done while a query is with the database: Python that would otherwise wait its turn.

A request spends much of its time waiting on MariaDB: a statement is sent, the server works,
the reply comes back. Work that needs a query's reply only to be *used*, not to be computed,
can be done in between. :class:`Prepared` holds such work: computed ahead (``prepare``,
which never raises) or, when it was not (another database, no query sent, or it failed),
when its ``value()`` is asked, raising then as computing it there always did.
:func:`during_next_query` arms it for the next query on a connection of
``lightnote.db_backends.mysql``, whose ``Connection`` sends the query, runs the work, then
reads the reply (what mysqlclient's ``query`` does in one call, split in two): the same
bytes on the wire, the same replies and errors.

The work must not use that connection (it is between a query and its reply: a query sent
then is refused, error 2014) and must not call the control store: it builds values, it
sends nothing. Users: the confirm's claim, built while the token query runs
(``lightnote.authentication``, ``agent.execution``); its receipt, history and claim rows,
built while the domain service's first statement runs, and its outcome and settle, built
while the batch that carries its COMMIT runs (``agent.executor``,
``lightnote.write_statements.run_statements(while_waiting=...)``). Measured in
docs/performance.md.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections

T = TypeVar("T")


class Prepared(Generic[T]):
    """Work computed ahead, while a query is with the database, and used after it.

    :meth:`prepare` computes it at most once and never raises. :meth:`value` returns what it
    computed; when it was never prepared, or its preparation raised (it ran while the
    connection was between a query and its reply, where a query of its own would fail),
    it is computed now, and raises as computing it at this point always did.
    """

    __slots__ = ("_compute", "_ready", "_value")

    def __init__(self, compute: Callable[[], T]) -> None:
        self._compute = compute
        self._ready = False
        self._value: T | None = None

    def prepare(self) -> None:
        if self._ready:
            return
        try:
            self._value = self._compute()
        except Exception:  # computed again by value(), where its error is the caller's
            return
        self._ready = True

    def value(self) -> T:
        if not self._ready:
            self._value = self._compute()
            self._ready = True
        return self._value  # type: ignore[return-value]  # computed above or by prepare()


def during_next_query(
    work: Prepared[Any] | None, *, using: str = DEFAULT_DB_ALIAS
) -> AbstractContextManager[None]:
    """Inside, ``work`` is prepared while the next query sent on ``using`` (whichever code
    sends it: a domain service's first statement) is with the server, on a connection of
    ``lightnote.db_backends.mysql``. Elsewhere, or when no query is sent inside, nothing
    happens here: ``work.value()`` computes it when asked. No work: nothing is armed."""
    return while_sent(connections[using], work)


def while_sent(connection: Any, work: Prepared[Any] | None) -> AbstractContextManager[None]:
    """Inside, ``work`` is prepared while the next query is with the server, when the
    connection can (``lightnote.db_backends.mysql.Connection``, once open); else nothing
    happens."""
    while_next_query = getattr(connection.connection, "while_next_query", None)
    if work is None or while_next_query is None:
        return nullcontext()
    return while_next_query(work.prepare)  # type: ignore[no-any-return]
