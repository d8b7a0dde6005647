"""``lightnote.field_values`` gives exactly the ORM's database values, for less Python.

Every concrete field of every model of the project, against generated values of every kind
the fast paths look at and their near misses (subclasses of ``str``, ``int`` and ``dict``,
``bool`` for an integer, naive and aware times, UUID strings, lazy translations, values the
ORM refuses): the fast writer's value equals ``field.get_db_prep_save(value, connection)``,
or both raise the same error; the fast reader equals ``field.pre_save(obj, add=True)``. On
the database of the pass (SQLite in the embedded pass, MariaDB in the services pass), whose
adapters differ (time zones, UUIDs).
"""

from __future__ import annotations

import enum
import warnings
from collections import OrderedDict
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest
from django.apps import apps
from django.db import connection
from django.utils.translation import gettext_lazy
from hypothesis import given, settings
from hypothesis import strategies as st

from lightnote.field_values import field_reader, field_writer
from tests.test_api_fuzz import EXAMPLES, FUZZ

pytestmark = pytest.mark.django_db

PROJECT_APPS = ("lightnote", "agent", "todos", "notes", "mcpserver")
FIELDS = [
    field
    for name in PROJECT_APPS
    for model in apps.get_app_config(name).get_models()
    for field in model._meta.local_concrete_fields
]


class Text(str):
    pass


class Number(enum.IntEnum):
    ONE = 1


ZONES = st.sampled_from([UTC, timezone(timedelta(hours=8)), timezone(timedelta(hours=-5))])
VALUES = st.one_of(
    st.none(),
    st.text(max_size=20),
    st.text(max_size=5).map(Text),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.booleans(),
    st.just(Number.ONE),
    st.floats(allow_nan=False, allow_infinity=False),
    st.decimals(allow_nan=False, allow_infinity=False, places=2),
    st.uuids(),
    st.uuids().map(str),
    st.uuids().map(lambda value: value.hex),
    st.builds(lambda moment, zone: moment.replace(tzinfo=zone), st.datetimes(), ZONES),
    st.datetimes(),
    st.dates(),
    st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3).map(OrderedDict),
    st.lists(st.integers() | st.text(max_size=5), max_size=3),
    st.just(gettext_lazy("Todo")),
    st.just(b"bytes"),
)


def _outcome(convert: Any, value: Any) -> tuple[str, type, Any]:
    """What ``convert`` made of ``value``: its type too (``True == 1`` must not pass)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a naive time warns on both paths alike
        try:
            result = convert(value)
        except Exception as error:  # the ORM's own refusal; both must refuse alike
            return "error", type(error), None
    return "value", type(result), result


def test_every_field_of_the_project_is_checked() -> None:
    kinds = {type(field).__name__ for field in FIELDS}
    # Every class with a fast path, and the ORM-path classes the hot rows carry.
    fast = {"CharField", "TextField", "UUIDField", "DateTimeField", "JSONField"}
    fast |= {"PositiveIntegerField", "PositiveSmallIntegerField", "ForeignKey", "OneToOneField"}
    assert fast | {"BigAutoField", "EmailField"} <= kinds


# One (field, value) pair per example: many of them, each shrinking on its own.
PAIRS = settings(FUZZ, max_examples=EXAMPLES * 40)


@PAIRS
@given(field=st.sampled_from(FIELDS), value=VALUES)
def test_the_fast_writer_gives_the_orm_s_value_for_every_field(field: Any, value: Any) -> None:
    fast = _outcome(field_writer(field, connection), value)
    orm = _outcome(lambda item: field.get_db_prep_save(item, connection), value)
    assert fast == orm


@PAIRS
@given(field=st.sampled_from(FIELDS), value=VALUES)
def test_the_fast_reader_gives_the_orm_s_pre_save_value_for_every_field(
    field: Any, value: Any
) -> None:
    model = field.model
    fast_obj, orm_obj = model(), model()
    setattr(fast_obj, field.attname, value)
    setattr(orm_obj, field.attname, value)
    fast, orm = field_reader(field)(fast_obj), field.pre_save(orm_obj, True)
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        assert type(fast) is type(orm) is datetime  # both "now", a moment apart
    else:
        assert (type(fast), fast) == (type(orm), orm)


def test_the_fast_paths_skip_the_orm_only_for_their_exact_plain_values(monkeypatch: Any) -> None:
    """Which values the ORM's chain converts: everything but a fast path's own case."""
    model = apps.get_model("lightnote", "AuditEvent")
    cases = [
        ("created_at", datetime(2026, 12, 4, 8, 0, tzinfo=UTC), False),
        ("created_at", datetime(2026, 12, 4, 8, 0), True),  # naive: the ORM warns, converts
        ("created_at", date(2026, 12, 4), True),
        ("created_at", Decimal("1.5"), True),  # refused by the ORM
        ("event_type", "confirm.claimed", False),
        ("event_type", Text("confirm.claimed"), True),
        ("event_type", gettext_lazy("Todo"), True),
        ("details", {"count": 1}, False),
        ("details", OrderedDict(count=1), True),
        ("actor", 1, False),  # a key of a numbered row
        ("actor", 0, True),  # MariaDB refuses 0 for such a key
        ("actor", True, True),
        ("actor", "1", True),
        ("actor", None, False),
        ("card.session", 1, True),  # a key to a row keyed by UUID: always the ORM's
    ]
    for name, value, through_orm in cases:
        if name.startswith("card."):
            field = apps.get_model("agent", "ActionCard")._meta.get_field(name[5:])
        else:
            field = model._meta.get_field(name)
        calls: list[Any] = []
        real = field.get_db_prep_save

        def spy(item: Any, conn: Any, real: Any = real, calls: list[Any] = calls) -> Any:
            calls.append(item)
            return real(item, conn)

        monkeypatch.setattr(field, "get_db_prep_save", spy)
        write = field_writer(field, connection)
        expected = _outcome(lambda item, real=real: real(item, connection), value)
        assert _outcome(write, value) == expected, (name, value)
        assert bool(calls) is through_orm, (name, value)
        monkeypatch.undo()
