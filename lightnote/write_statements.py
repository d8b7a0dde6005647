"""Write statements built once: the hot paths' INSERTs and UPDATEs without per-call query building.

The ORM builds and compiles a query object for every ``bulk_create``, ``create`` and
``update`` (for a confirm's three bookkeeping writes, measured on MariaDB, more Python than
the statements take to run). The confirm and the card-issuing turn write a fixed set of row
shapes, so here each statement's SQL is built once per database alias and shape, from the
model's own field metadata; a call only converts its values (the ORM's ``pre_save`` and
``get_db_prep_save`` values: JSON, UUIDs, time zones, foreign keys, through
``lightnote.field_values``, which skips the ORM's generic chain for plain values) and
executes.

Same meaning as the ORM calls they replace: an insert fills each field as ``bulk_create``
does (``pre_save`` with ``add=True``, so defaults and ``auto_now_add`` apply), an update sets
the given fields on the rows its ``where`` matches and reports the count. Neither sends
model signals (``bulk_create`` and ``QuerySet.update`` send none either). They run in the
caller's transaction when there is one.

Several statements known at once are :class:`Statement` values run by
:func:`run_statements`: on MariaDB/MySQL they travel as one multi-statement round trip
(``CLIENT.MULTI_STATEMENTS``, which mysqlclient enables), elsewhere one by one; the
statements and their order are the same either way. ``in_transaction=True`` makes them one
transaction of their own — on MariaDB ``START TRANSACTION; ...; COMMIT`` in that same round
trip, instead of Django's three (autocommit off, COMMIT, autocommit on).
``end_transaction=True`` lets the batch end the caller's transaction when it is the outermost
one: on MariaDB ``...; COMMIT; SET autocommit=1`` in that round trip, and the block's own exit
then sends nothing (``lightnote.db_backends.mysql``). An error that may have come after the
COMMIT was sent is :class:`CommitUnknown` (so is one of a batch that is its own transaction):
nobody can say whether the batch is durable.

``while_waiting`` (a :class:`~lightnote.overlap.Prepared`) is work for after the batch that
does not need its reply to be computed, only to be used (the confirm's outcome and the
settle it sends after the COMMIT): on MariaDB it runs while the batch is with the server,
between sending it and reading its replies (``lightnote.overlap``); elsewhere, or if it did
not run, its ``value()`` computes it when asked. It never touches the database or the
store, so nothing but Python happens inside the transaction's round trip.

Race notes: none of their own; a conditional update's ``where`` is evaluated by the
database in the UPDATE itself (a compare-and-set), exactly as the ORM's would be. A batch
that fails part-way raises the failing statement's error and leaves nothing of its own
transaction (MariaDB stops at the failing statement; the batch's transaction is rolled
back), or of the caller's (the caller's block rolls back, as for any error).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import (
    DatabaseError,
    IntegrityError,
    OperationalError,
    connections,
    router,
    transaction,
)
from django.db.models import AutoField, Field, Model

from lightnote import request_counters
from lightnote.field_values import field_reader, field_writer
from lightnote.overlap import Prepared, while_sent


class CommitUnknown(DatabaseError):
    """A batch that ends its caller's transaction failed where its COMMIT may have happened.

    Raised from the error that came (``__cause__``): the connection was lost during the
    round trip, or the COMMIT itself (or what followed it) failed. Whether the batch is
    durable is for the database to say, asked again on a fresh connection.
    """


@dataclass(frozen=True)
class Result:
    """What the database said of one statement: rows changed, and the key it assigned."""

    rowcount: int
    lastrowid: int | None


@dataclass(frozen=True)
class Statement:
    """One write, built but not sent: its SQL (``%s`` placeholders), values and alias.

    ``done`` runs once the statement (and, for a batch of its own transaction, the COMMIT)
    succeeded, with what the database said of it.
    """

    sql: str
    params: Sequence[Any]
    alias: str
    done: Callable[[Result], None] | None = None


def _connection_cache(connection: Any) -> dict[Any, Any]:
    # Per connection object, i.e. per thread and alias: its quoting and vendor are its own.
    return connection.__dict__.setdefault("lightnote_write_statements", {})


def _insert_fields(model: type[Model]) -> list[Field[Any, Any]]:
    """The fields an INSERT names: every local concrete field but a database-assigned key."""
    return [
        field
        for field in model._meta.local_concrete_fields
        if not (field.primary_key and isinstance(field, AutoField))
    ]


def insert_statement(
    objs: Sequence[Model],
    *,
    using: str | None = None,
    then: Callable[[Result], None] | None = None,
) -> Statement:
    """The INSERT of ``objs`` (one model, unsaved) as ``bulk_create`` would write it.

    Once it ran, a single row whose key the database assigns has it (``obj.pk``), as
    ``create`` would; several such rows do not (``bulk_create`` on MariaDB sets none either).
    ``then`` runs after that.
    """
    if not objs:
        raise ValueError("insert_statement takes at least one row")
    model = type(objs[0])
    if any(type(obj) is not model for obj in objs):
        raise TypeError("insert_statement takes rows of one model")
    pk = model._meta.pk
    database_key = isinstance(pk, AutoField)
    if database_key and any(obj.pk is not None for obj in objs):
        raise ValueError("insert_statement leaves a database-assigned key to the database")
    alias = using or router.db_for_write(model)
    connection = connections[alias]
    cache = _connection_cache(connection)
    shape = ("insert", model, len(objs))
    built = cache.get(shape)
    if built is None:
        fields = _insert_fields(model)
        quote = connection.ops.quote_name
        row = "(" + ", ".join(["%s"] * len(fields)) + ")"
        # Identifiers from the model's metadata, quoted by the backend; values are parameters.
        table = quote(model._meta.db_table)
        columns = ", ".join(quote(field.column) for field in fields)
        sql = f"INSERT INTO {table} ({columns}) VALUES {', '.join([row] * len(objs))}"  # noqa: S608
        # Each field's pre_save and get_db_prep_save, the same values for less Python.
        values = [(field_reader(field), field_writer(field, connection)) for field in fields]
        built = cache[shape] = (sql, values)
    sql, values = built
    params = [write(read(obj)) for obj in objs for read, write in values]

    def done(result: Result) -> None:
        if database_key and len(objs) == 1:
            objs[0].pk = result.lastrowid
        for obj in objs:
            obj._state.adding = False
            obj._state.db = alias
        if then is not None:
            then(result)

    return Statement(sql, params, alias, done)


def _concrete(model: type[Model], name: str) -> Field[Any, Any]:
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or not field.concrete:
        raise TypeError(f"{model.__name__}.{name} is not a column")
    return field


def _key_of(value: Any) -> Any:
    """A row given for a foreign key stands for its key (as ``QuerySet.update`` reads it)."""
    return value.pk if isinstance(value, Model) else value


class ConditionalUpdate:
    """``UPDATE <table> SET <fields>[, <also_set>] WHERE <key> = %s AND (<where>)``, built once.

    ``where`` is SQL over the table's columns with ``%s`` placeholders, filled by each
    call's ``where_params``; ``fields`` names the model fields that every call sets;
    ``also_set`` is one more assignment written in SQL (a value the database computes, e.g.
    a key read by a subquery), filled by each call's ``set_params``, which the field
    ``set_params_as`` converts. ``where`` and ``also_set`` are the caller's constant SQL,
    never built from input.
    """

    def __init__(
        self,
        model: type[Model],
        *,
        fields: Sequence[str],
        where: str = "",
        key: str = "pk",
        also_set: str = "",
        set_params_as: Field[Any, Any] | None = None,
    ) -> None:
        self.model = model
        self.fields = [_concrete(model, name) for name in fields]
        self.key = _concrete(model, model._meta.pk.name if key == "pk" else key)
        self.where = where
        self.also_set = also_set
        self.set_params_as = set_params_as

    def _sql(self, connection: Any) -> str:
        cache = _connection_cache(connection)
        sql = cache.get(self)
        if sql is None:
            quote = connection.ops.quote_name
            assignments = ", ".join(f"{quote(field.column)} = %s" for field in self.fields)
            if self.also_set:
                assignments += f", {self.also_set}"
            condition = f"{quote(self.key.column)} = %s"
            if self.where:
                condition += f" AND ({self.where})"
            # Identifiers from the model's metadata, quoted by the backend; ``where`` and
            # ``also_set`` are the caller's constant SQL; every value is a parameter.
            sql = cache[self] = (
                f"UPDATE {quote(self.model._meta.db_table)} SET {assignments} WHERE {condition}"  # noqa: S608
            )
        return sql

    def _writers(self, connection: Any) -> list[Callable[[Any], Any]]:
        cache = _connection_cache(connection)
        writers = cache.get((self, "writers"))
        if writers is None:
            writers = cache[(self, "writers")] = [
                field_writer(field, connection) for field in self.fields
            ]
        return writers

    def statement(
        self,
        key: Any,
        values: Mapping[str, Any],
        *,
        where_params: Sequence[Any] = (),
        set_params: Sequence[Any] = (),
        using: str | None = None,
        done: Callable[[Result], None] | None = None,
    ) -> Statement:
        """The UPDATE setting ``values`` (one per field, by name) on the row ``key`` if it
        matches; its result's ``rowcount`` is the number of rows changed (0 or 1)."""
        if set(values) != {field.name for field in self.fields}:
            raise ValueError(f"values must name exactly {[f.name for f in self.fields]}")
        alias = using or router.db_for_write(self.model)
        connection = connections[alias]
        params = [
            write(_key_of(values[field.name]))
            for field, write in zip(self.fields, self._writers(connection), strict=True)
        ]
        convert = self.set_params_as
        params.extend(
            convert.get_db_prep_value(value, connection) if convert is not None else value
            for value in set_params
        )
        params.append(self.key.get_db_prep_value(key, connection))
        params.extend(where_params)
        return Statement(self._sql(connection), params, alias, done)


# --- Running statements ------------------------------------------------------------------


def run_statements(
    statements: Sequence[Statement],
    *,
    in_transaction: bool = False,
    end_transaction: bool = False,
    while_waiting: Prepared[Any] | None = None,
) -> list[Result]:
    """Run ``statements`` in order, on their one alias; return what each did.

    On MariaDB/MySQL several statements are one round trip; ``in_transaction`` makes them
    one transaction of their own (inside a caller's transaction: a savepoint, as
    ``transaction.atomic`` would). Each statement's ``done`` runs after all succeeded.

    ``in_transaction`` outside any transaction: the batch commits itself, so an error that
    may have come with or after its COMMIT (the COMMIT's own, a connection lost during the
    round trip, a ``done`` failing after it) is :class:`CommitUnknown`, as below; a
    statement the database refused raises its own error (nothing was committed).

    ``end_transaction``: the batch is the last database work of the caller's atomic block.
    When that block is the outermost transaction (no savepoint, not marked for rollback),
    on MariaDB the batch ends it: ``COMMIT; SET autocommit=1`` go in the same round trip and
    the block's exit sends nothing more. A statement the database refuses before the
    COMMIT raises its own error, and nothing is committed (MariaDB stops there; the block
    rolls back). Any error that may have come at or after the COMMIT (the COMMIT's own, or
    a connection lost during the round trip) is :class:`CommitUnknown`, and so is a
    ``done`` that fails after that COMMIT (the batch is durable; the caller must not answer
    "failed"). Anywhere else (a nested block, SQLite) the statements just run, and the block
    commits as usual.

    ``while_waiting``: prepared while a MariaDB batch is with the server (before its replies
    are read, whatever they turn out to be); elsewhere not run here (its ``value()`` computes
    it when asked). The caller uses it only if the batch succeeded.
    """
    if not statements:
        return []
    alias = statements[0].alias
    if any(statement.alias != alias for statement in statements):
        raise ValueError("run_statements takes statements for one database")
    if in_transaction and end_transaction:
        raise ValueError("a batch is its own transaction or ends its caller's, not both")
    connection = connections[alias]
    mysql = connection.vendor == "mysql"
    multi = mysql and len(statements) > 1
    own = False
    if in_transaction and multi:
        connection.ensure_connection()
        own = connection.get_autocommit() and not connection.in_atomic_block
    if end_transaction and mysql and _ends_outermost(connection):
        results = _send_ending_batch(connection, statements, while_waiting=while_waiting)
        try:
            _run_done(statements, results)
        except Exception as error:  # committed already: the caller must not think it failed
            raise CommitUnknown(f"committed, then a follow-up failed: {error}") from error
        return results
    # A batch that is its own outermost transaction commits it: an error that may have come
    # with or after that COMMIT leaves the batch's fate unknown (CommitUnknown).
    commits = in_transaction and not connection.in_atomic_block and connection.get_autocommit()
    if own:
        try:
            results = _send_batch(
                connection, statements, own_transaction=True, while_waiting=while_waiting
            )
        except DatabaseError as error:
            if getattr(error, _REFUSED_BEFORE_COMMIT, False):
                raise  # MariaDB stopped at that statement: rolled back, nothing committed
            raise CommitUnknown(f"the batch's COMMIT may have happened: {error}") from error
    else:
        # A caller's transaction is marked for rollback when a statement fails, as for a
        # failing ORM save: nothing of the batch can commit with it.
        scope = (
            transaction.atomic(using=alias)
            if in_transaction
            else transaction.mark_for_rollback_on_error(using=alias)
        )
        ran = False
        try:
            with scope:
                if multi:
                    results = _send_batch(
                        connection, statements, own_transaction=False, while_waiting=while_waiting
                    )
                else:
                    results = _send_each(connection, statements)
                ran = True
        except DatabaseError as error:
            if not (commits and ran):
                raise
            raise CommitUnknown(f"the batch's COMMIT failed: {error}") from error
    if commits or own:
        try:
            _run_done(statements, results)
        except Exception as error:  # committed already: the caller must not think it failed
            raise CommitUnknown(f"committed, then a follow-up failed: {error}") from error
    else:
        _run_done(statements, results)
    return results


def _run_done(statements: Sequence[Statement], results: Sequence[Result]) -> None:
    for statement, result in zip(statements, results, strict=True):
        if statement.done is not None:
            statement.done(result)


def _ends_outermost(connection: Any) -> bool:
    """Whether the caller's block is the outermost transaction, opened by Django (autocommit
    was on), with no savepoint and nothing marked for rollback: only then may a batch end it."""
    return (
        connection.in_atomic_block
        and connection.commit_on_exit
        and len(connection.atomic_blocks) == 1
        and not connection.savepoint_ids
        and not connection.needs_rollback
    )


def _send_ending_batch(
    connection: Any, statements: Sequence[Statement], *, while_waiting: Prepared[Any] | None
) -> list[Result]:
    """Send the batch with the caller's COMMIT; sort its errors into known and unknown."""
    try:
        with transaction.mark_for_rollback_on_error(using=connection.alias):
            return _send_batch(
                connection,
                statements,
                own_transaction=False,
                ending=True,
                while_waiting=while_waiting,
            )
    except DatabaseError as error:
        if getattr(error, _REFUSED_BEFORE_COMMIT, False):
            raise  # MariaDB stopped at that statement: the COMMIT never ran
        raise CommitUnknown(f"the batch's COMMIT may have happened: {error}") from error


def _send_each(connection: Any, statements: Sequence[Statement]) -> list[Result]:
    results = []
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement.sql, statement.params)
            results.append(Result(int(cursor.rowcount), cursor.lastrowid))
    return results


_BATCH_TAG = "/* lightnote batch {} */ "
# How a batch ends its caller's transaction. Django does not log turning autocommit back
# on, so it is not counted as a statement here either (its round trip is the batch's).
_COMMIT = "COMMIT"
_AUTOCOMMIT_ON = "SET autocommit=1"
# Set on the error of a statement the database refused before an ending batch's COMMIT.
_REFUSED_BEFORE_COMMIT = "lightnote_refused_before_commit"
# MySQL client-side errors (CR_*, 2000-2999): the connection, not a statement, failed.
_CLIENT_ERRORS = range(2000, 3000)


def _send_batch(
    connection: Any,
    statements: Sequence[Statement],
    *,
    own_transaction: bool,
    ending: bool = False,
    while_waiting: Prepared[Any] | None = None,
) -> list[Result]:
    """One multi-statement round trip (MariaDB/MySQL); each statement's result in order.

    ``ending``: the caller's transaction ends in it (``COMMIT; SET autocommit=1`` follow the
    statements); a statement refused before the COMMIT marks its error so.
    ``while_waiting`` is prepared between sending the batch and reading its replies, on a
    connection of ``lightnote.db_backends.mysql`` (else not here).
    """
    parts = [statement.sql for statement in statements]
    if own_transaction:
        parts = ["START TRANSACTION", *parts, "COMMIT"]
    # A counted block (``lightnote.request_counters``) learns the batch's statements, so it
    # counts each of them, not one.
    tag = request_counters.note_batch([*parts, _COMMIT] if ending else parts)
    if ending:
        parts = [*parts, _COMMIT, _AUTOCOMMIT_ON]
    sql = _BATCH_TAG.format(tag) + ";\n".join(parts)
    params = [value for statement in statements for value in statement.params]
    results: list[Result] = []
    with connection.cursor() as cursor, while_sent(connection, while_waiting):
        try:
            try:
                cursor.execute(sql, params)
                if own_transaction:  # START TRANSACTION's (empty) result comes first
                    _next_result(cursor)
                results.append(Result(int(cursor.rowcount), cursor.lastrowid))
                for _ in statements[1:]:
                    _next_result(cursor)
                    results.append(Result(int(cursor.rowcount), cursor.lastrowid))
            except DatabaseError as error:
                if (ending or own_transaction) and _refused_by_the_server(error):
                    setattr(error, _REFUSED_BEFORE_COMMIT, True)
                raise
            if own_transaction:
                _next_result(cursor)  # COMMIT's
            if ending:
                _next_result(cursor)  # COMMIT's
                _next_result(cursor)  # autocommit's
            if cursor.nextset():  # pragma: no cover - the batch is exactly its statements
                raise OperationalError("a write batch returned more results than statements")
        except BaseException:  # an interruption too: never leave the transaction open
            if own_transaction:
                _roll_back(connection, cursor)
            raise
    return results


def _refused_by_the_server(error: BaseException) -> bool:
    """Whether the server refused a statement (an error code of its own), as opposed to the
    connection failing on the way (a client error: what ran is unknown)."""
    code = error.args[0] if error.args else None
    return isinstance(code, int) and code not in _CLIENT_ERRORS


def _next_result(cursor: Any) -> None:
    """Move to the batch's next statement's result; its error is raised as Django's."""
    from django.db.backends.mysql.base import CursorWrapper as MySQLCursor

    try:
        more = cursor.nextset()  # Django's cursor wraps its database errors
    except OperationalError as error:
        # As Django's MySQL cursor does for a single statement: these codes are integrity.
        if error.args and error.args[0] in MySQLCursor.codes_for_integrityerror:
            raise IntegrityError(*error.args) from error
        raise
    if not more:  # pragma: no cover - MariaDB answers every statement it ran
        raise OperationalError("a write batch returned fewer results than statements")


def _roll_back(connection: Any, cursor: Any) -> None:
    """End the batch's own transaction after a failed statement (MariaDB stopped there)."""
    try:
        cursor.execute("ROLLBACK")
    except Exception:  # the connection itself is gone: the server rolls back on its own
        connection.close()
