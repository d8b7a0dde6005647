"""Write statements built once: the hot paths' INSERTs and UPDATEs without per-call query building.

The ORM builds and compiles a query object for every ``bulk_create``, ``create`` and
``update`` (for a confirm's three bookkeeping writes, measured on MariaDB, more Python than
the statements take to run). The confirm and the card-issuing turn write a fixed set of row
shapes, so here each statement's SQL is built once per database alias and shape, from the
model's own field metadata; a call only converts its values with the fields' own
``get_db_prep_save`` (the conversion the ORM applies: JSON, UUIDs, time zones, foreign keys)
and executes.

Same meaning as the ORM calls they replace: an insert fills each field as ``bulk_create``
does (``pre_save`` with ``add=True``, so defaults and ``auto_now_add`` apply), an update sets
the given fields on the rows its ``where`` matches and returns the count. Neither sends
model signals (``bulk_create`` and ``QuerySet.update`` send none either). They run in the
caller's transaction when there is one.

Race notes: none of their own; a conditional update's ``where`` is evaluated by the
database in the UPDATE itself (a compare-and-set), exactly as the ORM's would be.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import connections, router
from django.db.models import AutoField, Field, Model


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


def insert_rows(objs: Sequence[Model], *, using: str | None = None) -> None:
    """Insert ``objs`` (one model, unsaved) in one INSERT, as ``bulk_create`` would.

    A single row whose key the database assigns gets it back (``obj.pk``), as ``create``
    would; several such rows do not (``bulk_create`` on MariaDB sets none either).
    """
    if not objs:
        return
    model = type(objs[0])
    if any(type(obj) is not model for obj in objs):
        raise TypeError("insert_rows takes rows of one model")
    pk = model._meta.pk
    database_key = isinstance(pk, AutoField)
    if database_key and any(obj.pk is not None for obj in objs):
        raise ValueError("insert_rows leaves a database-assigned key to the database")
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
        built = cache[shape] = (sql, fields)
    sql, fields = built
    params = [
        field.get_db_prep_save(field.pre_save(obj, True), connection)
        for obj in objs
        for field in fields
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        if database_key and len(objs) == 1:
            objs[0].pk = connection.ops.last_insert_id(cursor, model._meta.db_table, pk.column)
    for obj in objs:
        obj._state.adding = False
        obj._state.db = alias


def _concrete(model: type[Model], name: str) -> Field[Any, Any]:
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or not field.concrete:
        raise TypeError(f"{model.__name__}.{name} is not a column")
    return field


def _key_of(value: Any) -> Any:
    """A row given for a foreign key stands for its key (as ``QuerySet.update`` reads it)."""
    return value.pk if isinstance(value, Model) else value


class ConditionalUpdate:
    """``UPDATE <table> SET <fields> WHERE <key> = %s AND (<where>)``, its SQL built once.

    ``where`` is SQL over the table's columns with ``%s`` placeholders, filled by each
    call's ``where_params``; ``fields`` names the model fields that every call sets.
    """

    def __init__(
        self, model: type[Model], *, fields: Sequence[str], where: str = "", key: str = "pk"
    ) -> None:
        self.model = model
        self.fields = [_concrete(model, name) for name in fields]
        self.key = _concrete(model, model._meta.pk.name if key == "pk" else key)
        self.where = where

    def _sql(self, connection: Any) -> str:
        cache = _connection_cache(connection)
        sql = cache.get(self)
        if sql is None:
            quote = connection.ops.quote_name
            assignments = ", ".join(f"{quote(field.column)} = %s" for field in self.fields)
            condition = f"{quote(self.key.column)} = %s"
            if self.where:
                condition += f" AND ({self.where})"
            # Identifiers from the model's metadata, quoted by the backend; ``where`` is the
            # module's own constant SQL; every value is a parameter.
            sql = cache[self] = (
                f"UPDATE {quote(self.model._meta.db_table)} SET {assignments} WHERE {condition}"  # noqa: S608
            )
        return sql

    def run(
        self,
        key: Any,
        values: Mapping[str, Any],
        *,
        where_params: Sequence[Any] = (),
        using: str | None = None,
    ) -> int:
        """Set ``values`` (one per field, by name) on the row ``key`` if it matches; return
        the number of rows changed (0 or 1)."""
        if set(values) != {field.name for field in self.fields}:
            raise ValueError(f"values must name exactly {[f.name for f in self.fields]}")
        alias = using or router.db_for_write(self.model)
        connection = connections[alias]
        params = [
            field.get_db_prep_save(_key_of(values[field.name]), connection) for field in self.fields
        ]
        params.append(self.key.get_db_prep_value(key, connection))
        params.extend(where_params)
        with connection.cursor() as cursor:
            cursor.execute(self._sql(connection), params)
            return int(cursor.rowcount)
