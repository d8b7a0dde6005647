"""Read queries compiled once: a fixed query shape run with each request's own values.

Building and compiling a query with the ORM costs several times what running it does
(measured on MariaDB: the confirm's token query 0.85 ms of 1.5 ms; a card turn's history
query ~0.5 ms of ~1.1 ms). For the few queries every hot request makes, :class:`CompiledSelect`
compiles the queryset once per thread and database connection, with stand-in values; it
then finds where each stand-in went among the compiled parameters, and runs the same SQL
with each call's values in those places. Rows come back through the compiler's own
converters (JSON, times, UUIDs), exactly as the ORM would return them.

Safety: the query is compiled a second time with other stand-ins; unless the SQL is the same
and every parameter is either a stand-in's place or the same constant, the shape cannot be
filled in and ``compile`` answers None (the caller then uses the ORM on every call).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connections

# How a value may reach the compiled parameters: as given, as text, as UUID hex (SQLite's
# UUID column), as an integer.
_FORMS: tuple[Callable[[Any], Any], ...] = (
    lambda value: value,
    str,
    lambda value: value.hex,
)


def _form_of(param: Any, value: Any) -> Callable[[Any], Any] | None:
    """The form in which ``value`` became ``param`` (same type and equal), if any."""
    for form in _FORMS:
        try:
            candidate = form(value)
        except AttributeError:
            continue
        if type(param) is type(candidate) and param == candidate:
            return form
    return None


# Per SQL parameter: ("value", index, form) or ("constant", 0, the parameter).
Slot = tuple[str, int, Any]


@dataclass
class CompiledSelect:
    """One compiled query shape: its SQL, where each value goes, and its compiler.

    ``slots``: per SQL parameter, ``("value", index, form)`` (the call's ``index``-th value
    in that form) or ``("constant", 0, param)``.
    """

    alias: str
    sql: str
    slots: list[Slot]
    compiler: Any
    types: tuple[type, ...]
    _converters_known: bool = field(default=False, init=False, repr=False)
    _column_converters: dict[int, Any] | None = field(default=None, init=False, repr=False)

    @classmethod
    def compile(
        cls,
        build: Callable[..., Any],
        *,
        alias: str,
        stand_ins: Sequence[Any],
        other_stand_ins: Sequence[Any],
    ) -> CompiledSelect | None:
        """Compile ``build(*values)`` (a queryset) once; None when its shape cannot be filled
        in with other values. ``stand_ins`` and ``other_stand_ins``: one value per argument,
        of the argument's type, never equal to each other nor to anything in the query."""

        def compiled(values: Sequence[Any]) -> tuple[Any, str, list[Any]]:
            compiler = build(*values).query.get_compiler(using=alias)
            sql, params = compiler.as_sql()
            return compiler, sql, list(params)

        compiler, sql, params = compiled(stand_ins)
        slots: list[Slot] = []
        for param in params:
            for index, value in enumerate(stand_ins):
                form = _form_of(param, value)
                if form is not None:
                    slots.append(("value", index, form))
                    break
            else:
                slots.append(("constant", 0, param))
        _, other_sql, other_params = compiled(other_stand_ins)
        expected = cls._params(slots, other_stand_ins)
        if other_sql != sql or expected is None or other_params != expected:
            return None
        if {index for kind, index, _ in slots if kind == "value"} != set(range(len(stand_ins))):
            return None  # a value that reaches the SQL in no parameter cannot be filled in
        types = tuple(type(value) for value in stand_ins)
        return cls(alias=alias, sql=sql, slots=slots, compiler=compiler, types=types)

    @staticmethod
    def _params(slots: list[Slot], values: Sequence[Any]) -> list[Any] | None:
        params = []
        for kind, index, how in slots:
            if kind == "constant":
                params.append(how)
                continue
            try:
                params.append(how(values[index]))
            except AttributeError:  # a value of another type than its stand-in
                return None
        return params

    def rows(self, *values: Any, first_row_only: frozenset[int] = frozenset()) -> list[Any]:
        """Run the query with ``values`` (one per argument, of the stand-ins' types) and
        return its rows as the compiler converts them.

        ``first_row_only``: columns (by position) the caller reads from the first row only
        (a joined row's columns, the same on every row): the other rows keep them as the
        database sent them, unconverted.
        """
        params = self._params(self.slots, values)
        if params is None or tuple(type(value) for value in values) != self.types:
            raise TypeError("values of other types than the query was compiled with")
        with connections[self.alias].cursor() as cursor:
            cursor.execute(self.sql, params)
            fetched = cursor.fetchall()
        converters = self._converters()
        if converters is None:  # composite columns: the compiler's own way, every time
            return list(self.compiler.results_iter([fetched]))
        if not converters:
            return list(fetched)
        if not first_row_only or len(fetched) < 2:
            return list(self.compiler.apply_converters(fetched, converters))
        rest = {pos: each for pos, each in converters.items() if pos not in first_row_only}
        head = list(self.compiler.apply_converters(fetched[:1], converters))
        return head + list(self.compiler.apply_converters(fetched[1:], rest))

    def _converters(self) -> dict[int, Any] | None:
        """The compiler's converters for the selected columns (what ``results_iter`` applies),
        looked up once: they depend on the columns and the connection, both fixed here.
        None for a select with composite columns, which ``results_iter`` also reshapes."""
        if not self._converters_known:
            compiler = self.compiler
            columns = [column[0] for column in compiler.select[: compiler.col_count]]
            self._column_converters = (
                None if compiler.has_composite_fields(columns) else compiler.get_converters(columns)
            )
            self._converters_known = True
        return self._column_converters


def compiled_select(
    key: Any,
    build: Callable[..., Any],
    *,
    alias: str,
    stand_ins: Sequence[Any],
    other_stand_ins: Sequence[Any],
) -> CompiledSelect | None:
    """The query ``build`` compiled for this thread's connection to ``alias`` (once per
    ``key``); None when its shape cannot be compiled (use the ORM)."""
    connection = connections[alias]  # per thread: its compiled queries are its own
    cache = connection.__dict__.setdefault("lightnote_compiled_selects", {})
    if key not in cache:
        cache[key] = CompiledSelect.compile(
            build, alias=alias, stand_ins=stand_ins, other_stand_ins=other_stand_ins
        )
    return cache[key]


# Stand-ins for compiling: never a real id, key or session.
STAND_IN_UUIDS = (
    uuid.UUID("5e771e15-0b5e-4c0d-9a11-7e5700000000"),
    uuid.UUID("5e771e15-0b5e-4c0d-9a11-7e5700000001"),
)
STAND_IN_INTS = (-7_304_511, -7_304_512)
