"""A field's database value on the hot write paths: the ORM's conversion, for less Python.

``field.get_db_prep_save(field.pre_save(obj, True), connection)`` is what Django applies to
every field of every row it inserts; for the confirm's receipt and audit rows (some thirty
fields) the generic chain (``get_db_prep_save`` -> ``get_db_prep_value`` ->
``get_prep_value`` -> ``to_python`` -> the backend's adapter) cost more Python than the
statement's own building. :func:`field_writer` returns, once per field and connection, a
function giving the same value: for the plainest cases (a ``str`` in a ``CharField`` or
``TextField``, an ``int`` in an integer field, a ``uuid.UUID``, an aware ``datetime``, a
``dict`` or ``list`` in a ``JSONField``, a positive ``int`` in a foreign key to a numbered
row, ``None`` where the ORM passes ``None`` through) it
goes straight to the result the chain would reach (the backend's own adapter where the chain
ends in one); for anything else, and for any other field class (auto keys, keys to rows
keyed otherwise, subclasses that may override a step), it calls the ORM's chain itself.
Exact classes only: a subclass of ``str``, ``int`` or ``dict`` takes the ORM's path too.
``tests/test_field_values.py`` checks both give equal values (or raise alike) on both
databases.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.db import models
from django.db.models import Field

_TEXT = (models.CharField, models.TextField)
_INTEGERS = (
    models.IntegerField,
    models.SmallIntegerField,
    models.BigIntegerField,
    models.PositiveIntegerField,
    models.PositiveSmallIntegerField,
    models.PositiveBigIntegerField,
)
_DATE_FIELDS = (models.DateField, models.DateTimeField)
_RELATIONS = (models.ForeignKey, models.OneToOneField)
_AUTO_KEYS = (models.AutoField, models.BigAutoField, models.SmallAutoField)


def field_reader(field: Field[Any, Any]) -> Callable[[models.Model], Any]:
    """``field.pre_save(obj, add=True)``: the attribute itself unless the field's class
    computes it (``auto_now``, ``auto_now_add``, or a ``pre_save`` of its own)."""
    plain = type(field).pre_save is Field.pre_save
    if type(field) in _DATE_FIELDS:
        plain = not (field.auto_now or field.auto_now_add)  # type: ignore[attr-defined]
    if plain:
        attname = field.attname
        return lambda obj: getattr(obj, attname)
    return lambda obj: field.pre_save(obj, True)


def field_writer(field: Field[Any, Any], connection: Any) -> Callable[[Any], Any]:
    """``field.get_db_prep_save(value, connection)``, the same value for less Python."""

    def orm(value: Any) -> Any:
        return field.get_db_prep_save(value, connection)

    kind = type(field)
    if kind in _TEXT:
        return lambda value: value if type(value) is str or value is None else orm(value)
    if kind in _INTEGERS:
        internal = field.get_internal_type()
        adapt_int = connection.ops.adapt_integerfield_value
        return lambda value: (
            adapt_int(value, internal) if type(value) is int or value is None else orm(value)
        )
    if kind is models.UUIDField:
        if connection.features.has_native_uuid_field:
            return lambda value: value if type(value) is uuid.UUID or value is None else orm(value)
        return lambda value: (
            value.hex if type(value) is uuid.UUID else None if value is None else orm(value)
        )
    if kind is models.DateTimeField:
        adapt_datetime = connection.ops.adapt_datetimefield_value
        return lambda value: (
            adapt_datetime(value)
            if type(value) is datetime and value.utcoffset() is not None
            else orm(value)
        )
    if kind in _RELATIONS and type(field.target_field) in _AUTO_KEYS:  # type: ignore[attr-defined]
        # A key of a row the database numbered: the chain ends in the key's ``int``
        # (``validate_autopk_value`` refuses 0 on MariaDB, which takes the ORM's path).
        return lambda value: (
            value if type(value) is int and value > 0 else None if value is None else orm(value)
        )
    if kind is models.JSONField:
        adapt_json = connection.ops.adapt_json_value
        encoder = field.encoder  # type: ignore[attr-defined]
        return lambda value: (
            adapt_json(value, encoder) if type(value) in (dict, list) else orm(value)
        )
    return orm
