"""MariaDB/MySQL: Django's backend, except that a COMMIT with nothing to commit is not sent,
and that a query can carry work to do while it is with the server.

A write batch may end the transaction it runs in (``lightnote.write_statements.run_statements``
with ``end_transaction=True``: ``...; COMMIT; SET autocommit=1`` in its one round trip). The
atomic block around it still calls ``commit()`` when it exits. By then the server has no
transaction open, and mysqlclient knows it without asking: every reply carries the server's
autocommit flag (``get_autocommit()`` reads it off the last one). Django opens a transaction
only by turning autocommit off, so "autocommit on" means "nothing open": that COMMIT would be
a round trip spent on nothing, and is skipped. Turning autocommit back on is already free in
that state (mysqlclient sends nothing when the flag is already on).

Every other COMMIT goes out as before.

Work while a query is with the server (:meth:`Connection.while_next_query`): mysqlclient's
``query`` is libmariadb's ``mysql_real_query``, which is ``mysql_send_query`` followed by
``mysql_read_query_result``. For the one query sent inside the block, the connection sends it,
runs the given work, then reads the reply: the same bytes on the wire, the same reply and
errors, only the Python that would have run after the reply runs while the server works. The
work must not use this connection: it is between a query and its reply, and a query sent
then is refused (``ProgrammingError`` 2014, commands out of sync) before anything is sent,
where libmariadb would send it and take the pending reply for its own. The work must not
raise (``lightnote.overlap.Prepared`` computes again what failed). Only ``query`` is
guarded: the work must not commit, roll back or ping either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db.backends.mysql import base
from django.utils.asyncio import async_unsafe
from MySQLdb.connections import Connection as MySQLdbConnection


class Connection(MySQLdbConnection):
    """mysqlclient's connection, able to run work while one query is with the server."""

    _work_while_sent: Callable[[], None] | None = None
    _between_query_and_reply = False

    @contextmanager
    def while_next_query(self, work: Callable[[], None]) -> Iterator[None]:
        """Run ``work`` while the next query sent inside the block is with the server, between
        sending it and reading its reply (never, if no query is sent)."""
        self._work_while_sent = work
        try:
            yield
        finally:
            self._work_while_sent = None  # not "del": mysqlclient refuses to delete attributes

    def query(self, query: Any) -> None:
        if self._between_query_and_reply:
            # libmariadb would send it, and read the pending reply as its own.
            raise self.ProgrammingError(
                _OUT_OF_SYNC, "a query was sent while another one's reply was still awaited"
            )
        work = self._work_while_sent
        if work is None:
            return super().query(query)  # type: ignore[no-any-return]
        self._work_while_sent = None
        if isinstance(query, bytearray):  # as mysqlclient's own: the buffer must not change
            query = bytes(query)
        self.send_query(query)  # raises when it could not be sent: the work never runs
        self._between_query_and_reply = True
        try:
            work()
        finally:
            self._between_query_and_reply = False
            self.read_query_result()  # the reply is read whatever the work did
        return None


# CR_COMMANDS_OUT_OF_SYNC, libmariadb's own code for a query sent out of turn.
_OUT_OF_SYNC = 2014


class DatabaseWrapper(base.DatabaseWrapper):
    @async_unsafe
    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        connection = Connection(**conn_params)
        # As Django's own: mysqlclient's bytes encoder must not be used (mysqlclient#489).
        if connection.encoders.get(bytes) is bytes:
            connection.encoders.pop(bytes)
        return connection

    def _commit(self) -> Any:
        if self.connection is not None and self.connection.get_autocommit():
            return None  # ended by the batch that ran last in the block: nothing is open
        return super()._commit()  # type: ignore[misc]  # private, absent from django-stubs
