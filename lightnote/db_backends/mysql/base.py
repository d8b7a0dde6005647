"""MariaDB/MySQL: Django's backend, except that a COMMIT with nothing to commit is not sent.

A write batch may end the transaction it runs in (``lightnote.write_statements.run_statements``
with ``end_transaction=True``: ``...; COMMIT; SET autocommit=1`` in its one round trip). The
atomic block around it still calls ``commit()`` when it exits. By then the server has no
transaction open, and mysqlclient knows it without asking: every reply carries the server's
autocommit flag (``get_autocommit()`` reads it off the last one). Django opens a transaction
only by turning autocommit off, so "autocommit on" means "nothing open": that COMMIT would be
a round trip spent on nothing, and is skipped. Turning autocommit back on is already free in
that state (mysqlclient sends nothing when the flag is already on).

Every other COMMIT goes out as before.
"""

from __future__ import annotations

from typing import Any

from django.db.backends.mysql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def _commit(self) -> Any:
        if self.connection is not None and self.connection.get_autocommit():
            return None  # ended by the batch that ran last in the block: nothing is open
        return super()._commit()  # type: ignore[misc]  # private, absent from django-stubs
