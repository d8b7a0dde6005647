"""What every domain app's tools share: finding the item a proposal names, paging a read."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from lightnote.errors import LightNoteError


class _Page(Protocol):
    def __getitem__(self, key: slice) -> Any: ...

    def count(self) -> int: ...


def first_page(rows: _Page, limit: int) -> tuple[list[Any], int]:
    """Return the first ``limit`` rows and the total (counted only when the page is full)."""
    items = list(rows[:limit])
    total = len(items) if len(items) < limit else rows.count()
    return items, total


_Item = TypeVar("_Item")


def resolve_by_id_or_title(
    args: dict[str, Any],
    *,
    kind: str,
    get: Callable[[Any], _Item],
    find: Callable[[str], Sequence[_Item]],
    candidate: Callable[[_Item], dict[str, Any]],
) -> _Item:
    """Return the one item named by ``<kind>_id`` or by exact ``<kind>_title``.

    ``get`` looks an id up among the subject's items (and raises its own 404); ``find``
    returns the subject's items with exactly this title. No match -> 404
    ``<KIND>_NOT_FOUND``; several -> 409 ``<KIND>_TITLE_AMBIGUOUS`` listing ``candidate(item)``
    for each, so the user can say which one.
    """
    if f"{kind}_id" in args:
        return get(args[f"{kind}_id"])
    title = " ".join(args[f"{kind}_title"].split())
    matches = find(title) if title else []
    if not matches:
        raise LightNoteError(f"{kind.upper()}_NOT_FOUND", status=404)
    if len(matches) > 1:
        raise LightNoteError(
            f"{kind.upper()}_TITLE_AMBIGUOUS",
            status=409,
            params={"count": len(matches), "title": title},
            extra={"candidates": [candidate(item) for item in matches]},
        )
    return matches[0]
