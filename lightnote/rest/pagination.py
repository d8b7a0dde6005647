"""List pagination whose cost does not grow with the owner's row count.

Two ways through a list, both over the index that matches the sort (``owner`` first):

- ``?page=N`` (and ``?page_size=``, max 200): as before. A page reads ``page_size + 1`` rows
  (the extra one says whether there is a next page), so page 1 costs the same at 1k and at
  100k rows; page N still skips ``(N - 1) x page_size`` index entries.
- ``?cursor=`` (keyset): start with an empty ``?cursor=``, then follow ``next``. Each page
  seeks straight to the row after the previous page's last one, so every page costs the same,
  however deep. Forward only: ``previous`` is null in this mode.

``count`` is exact up to :data:`COUNT_CAP` rows; past it, counting would read every row, so it
is ``null`` with ``"count_capped": true`` (that key appears only then). A list known to be
past the cap is not counted again until it may have shrunk (``lightnote.rest.list_counts``).
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Field, Model, Q, QuerySet
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from lightnote.errors import LightNoteError
from lightnote.rest.list_counts import cached_capped_count
from lightnote.texts.i18n import define_messages, request_locale, translate

COUNT_CAP = 10_000

define_messages(
    {
        "PAGE_SIZE_INVALID": (
            "page_size 必须是正整数（最大 200）。",
            "page_size must be a positive integer (at most 200).",
        ),
        "PAGINATION_CURSOR_INVALID": (
            "分页游标无效，请从第一页重新开始。",
            "The page cursor is not valid; start again from the first page.",
        ),
    }
)


def capped_count(queryset: QuerySet[Any], cap: int | None = None) -> int | None:
    """Return the number of rows, or None when there are more than ``cap`` (COUNT_CAP)."""
    cap = COUNT_CAP if cap is None else cap
    found = queryset.order_by()[: cap + 1].count()
    return None if found > cap else found


def _ordering(queryset: QuerySet[Any]) -> list[str]:
    """The queryset's sort, ending with the primary key so that it is a total order."""
    pk = queryset.model._meta.pk.name  # type: ignore[union-attr]
    ordering = [
        str(field).replace("pk", pk) if str(field).lstrip("-") == "pk" else str(field)
        for field in (queryset.query.order_by or queryset.model._meta.ordering)
    ]
    if not ordering or ordering[-1].lstrip("-") != pk:
        ordering.append(pk)
    return ordering


def _after(ordering: list[str], values: list[Any]) -> Q:
    """The rows after ``values`` in ``ordering``: (a > x) or (a = x and b > y) or ..."""
    condition = Q()
    for index, field in enumerate(ordering):
        name = field.lstrip("-")
        step = Q(**{f"{name}__{'lt' if field.startswith('-') else 'gt'}": values[index]})
        for earlier, value in zip(ordering[:index], values[:index], strict=True):
            step &= Q(**{earlier.lstrip("-"): value})
        condition |= step
    return condition


def _encode(values: list[Any]) -> str:
    plain = [value.isoformat() if isinstance(value, datetime) else str(value) for value in values]
    return base64.urlsafe_b64encode(json.dumps(plain).encode()).decode().rstrip("=")


def _decode(cursor: str, model: type[Model], ordering: list[str]) -> list[Any]:
    """Parse a cursor back into typed values; anything malformed is a 400."""
    invalid = LightNoteError("PAGINATION_CURSOR_INVALID", status=400)
    try:
        plain = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, binascii.Error, RecursionError) as error:
        raise invalid from error
    if not isinstance(plain, list) or len(plain) != len(ordering):
        raise invalid
    values = []
    for field, value in zip(ordering, plain, strict=True):
        if not isinstance(value, str):
            raise invalid
        try:
            model_field = model._meta.get_field(field.lstrip("-"))
            if not isinstance(model_field, Field):
                raise TypeError(field)
            typed = model_field.to_python(value)
        except (ValidationError, ValueError, TypeError) as error:
            raise invalid from error
        if isinstance(typed, datetime) and typed.tzinfo is None:
            raise invalid  # every cursor this server writes carries its offset
        values.append(typed)
    return values


def keyset_page(
    queryset: QuerySet[Any], cursor: str | None, size: int
) -> tuple[list[Any], str | None]:
    """Return up to ``size`` rows after ``cursor`` in ``queryset``'s order (from the first
    row when ``cursor`` is empty) and the cursor of the rows after them (None: no more).

    The same cursors as ``?cursor=`` (the sort's values of the last row, the key last): each
    page seeks in the index, so every page costs the same at any depth. A malformed cursor
    is a 400 ``PAGINATION_CURSOR_INVALID``.
    """
    ordering = _ordering(queryset)
    queryset = queryset.order_by(*ordering)
    if cursor:
        queryset = queryset.filter(_after(ordering, _decode(cursor, queryset.model, ordering)))
    rows = list(queryset[: size + 1])
    if len(rows) <= size:
        return rows, None
    rows = rows[:size]
    return rows, _encode([getattr(rows[-1], field.lstrip("-")) for field in ordering])


def _check_paging_params(request: Request, paginator: PageNumberPagination) -> None:
    """An empty ``?page=`` or an empty or non-positive-integer ``?page_size=`` is a 400.

    (``?page=`` with a value that is not a page stays the documented 404; ``?cursor=``
    empty means "the first page".)
    """
    locale = request_locale(request)
    fields: dict[str, list[str]] = {}
    if "" in request.query_params.getlist(paginator.page_query_param):
        fields[paginator.page_query_param] = [translate("QUERY_VALUE_REQUIRED", locale)]
    size_name = paginator.page_size_query_param or "page_size"
    for raw in request.query_params.getlist(size_name):
        if not raw.isascii() or not raw.isdigit() or int(raw) < 1:
            fields[size_name] = [translate("PAGE_SIZE_INVALID", locale)]
    if fields:
        raise LightNoteError("VALIDATION_ERROR", extra={"fields": fields})


# No list comes near this many rows; an offset past it is a page past the end (a 404), never
# a number the database cannot take (SQLite's and MariaDB's offsets are 64-bit).
_OFFSET_MAX = 2**62


class Pagination(PageNumberPagination):
    """``{"count", "next", "previous", "results"}`` by ``?page=`` or by ``?cursor=``."""

    page_size_query_param = "page_size"
    max_page_size = 200
    cursor_query_param = "cursor"

    def paginate_queryset(
        self, queryset: QuerySet[Any], request: Request, view: Any = None
    ) -> list[Any]:
        self.request = request
        self.url = request.build_absolute_uri()
        _check_paging_params(request, self)
        size = self.get_page_size(request) or 50
        ordering = _ordering(queryset)
        queryset = queryset.order_by(*ordering)
        self.count = self._count(queryset, request, view)
        self.cursor_mode = self.cursor_query_param in request.query_params
        if self.cursor_mode:
            cursor = request.query_params[self.cursor_query_param]
            if self.page_query_param in request.query_params:
                raise LightNoteError("PAGINATION_CURSOR_INVALID", status=400)
            if cursor:
                queryset = queryset.filter(
                    _after(ordering, _decode(cursor, queryset.model, ordering))
                )
            self.page_number = 1
            offset = 0
        else:
            self.page_number = self._page_number(request, size)
            offset = (self.page_number - 1) * size
        rows = list(queryset[offset : offset + size + 1])
        if not rows and self.page_number > 1:
            raise NotFound()
        self.has_next = len(rows) > size
        self.rows = rows[:size]
        self.next_cursor = (
            _encode([getattr(self.rows[-1], field.lstrip("-")) for field in ordering])
            if self.has_next
            else None
        )
        return self.rows

    def _count(self, queryset: QuerySet[Any], request: Request, view: Any) -> int | None:
        """The capped count; a view whose list is one owner's live rows under fixed filters
        names it (``live_count_scope``) so that a list known to be past the cap is not
        counted again (``lightnote.rest.list_counts``)."""
        scope = getattr(view, "live_count_scope", None)
        owner_id = getattr(request.user, "pk", None)
        if scope is None or owner_id is None:
            return capped_count(queryset)
        return cached_capped_count(
            queryset.model, owner_id=owner_id, scope=scope, count=lambda: capped_count(queryset)
        )

    def _page_number(self, request: Request, size: int) -> int:
        """``?page=``: a positive number, or ``last`` while the count is exact; else 404."""
        raw = request.query_params.get(self.page_query_param) or "1"
        if raw in self.last_page_strings and self.count is not None:
            return max(1, -(-self.count // size))
        try:
            number = int(raw)
        except ValueError:
            raise NotFound() from None
        if number < 1 or (number - 1) * size > _OFFSET_MAX:
            raise NotFound()  # past the end of any list: no query, whatever the database
        return number

    def get_next_link(self) -> str | None:
        if not self.has_next:
            return None
        url = self.url
        if self.cursor_mode:
            return replace_query_param(url, self.cursor_query_param, self.next_cursor)
        return replace_query_param(url, self.page_query_param, self.page_number + 1)

    def get_previous_link(self) -> str | None:
        if self.cursor_mode or self.page_number <= 1:
            return None
        url = self.url
        if self.page_number == 2:
            return remove_query_param(url, self.page_query_param)
        return replace_query_param(url, self.page_query_param, self.page_number - 1)

    def get_paginated_response(self, data: Any) -> Response:
        body: dict[str, Any] = {
            "count": self.count,
            "next": self.get_next_link(),
            "previous": self.get_previous_link(),
            "results": data,
        }
        if self.count is None:
            body["count_capped"] = True
        return Response(body)

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "object",
            "required": ["count", "next", "previous", "results"],
            "properties": {
                "count": {
                    "type": "integer",
                    "nullable": True,
                    "description": f"Exact up to {COUNT_CAP}; null past it (count_capped).",
                },
                "count_capped": {
                    "type": "boolean",
                    "description": f"Present (true) only when there are more than {COUNT_CAP}.",
                },
                "next": {"type": "string", "format": "uri", "nullable": True},
                "previous": {
                    "type": "string",
                    "format": "uri",
                    "nullable": True,
                    "description": "Always null with ?cursor= (forward only).",
                },
                "results": schema,
            },
        }

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        return [
            *super().get_schema_operation_parameters(view),
            {
                "name": self.cursor_query_param,
                "required": False,
                "in": "query",
                "description": (
                    "Keyset pagination: empty for the first page, then follow `next`. Same "
                    "cost at any depth. Not together with page (400 PAGINATION_CURSOR_INVALID)."
                ),
                "schema": {"type": "string"},
            },
        ]
