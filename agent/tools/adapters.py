"""What every domain app's tools share, so each app's tools stay thin adapters.

Finding the item a proposal names (by id or exact title, with candidates), paging a read and
its summary, the card of one item, the prepared args of a version-checked write, calling
its service, the changes of an update, and the undo of an update.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Protocol, TypeVar

from django.db.models import QuerySet

from agent.tools.base import Compensation, ToolContext, WriteTool
from agent.tools.formatting import text
from lightnote.errors import LightNoteError
from lightnote.rest.pagination import COUNT_CAP, capped_count, keyset_page
from lightnote.texts.i18n import define_messages

define_messages(
    {
        "READ_PAGE_SHOWN": ("显示 {shown} 条，共 {count} 条：", "Showing {shown} of {count}:"),
        "READ_PAGE_SHOWN_CAPPED": (
            "显示 {shown} 条，共超过 {count} 条：",
            "Showing {shown} of more than {count}:",
        ),
        "READ_PAGE_NEXT": ("接下来的 {shown} 条，共 {count} 条：", "The next {shown} of {count}:"),
        "READ_PAGE_NEXT_CAPPED": (
            "接下来的 {shown} 条，共超过 {count} 条：",
            "The next {shown} of more than {count}:",
        ),
        "READ_PAGE_MORE_HINT": (
            "还有更多：说“下一页”继续看。",
            "There are more: say “more” to see the next ones.",
        ),
        "READ_PAGE_LAST": ("以上是最后几条。", "That is the last of them."),
    }
)


class _Page(Protocol):
    def __getitem__(self, key: slice) -> Any: ...

    def count(self) -> int: ...


def first_page(rows: _Page, limit: int) -> tuple[list[Any], int]:
    """Return the first ``limit`` rows and the total (counted only when the page is full)."""
    items = list(rows[:limit])
    total = len(items) if len(items) < limit else rows.count()
    return items, total


_Item = TypeVar("_Item")
_Result = TypeVar("_Result")


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


def page_data(
    rows: QuerySet[Any],
    limit: int,
    *,
    key: str,
    describe: Callable[[Any], dict[str, Any]],
    cursor: str | None = None,
) -> dict[str, Any]:
    """Return a read's data: ``limit`` rows under ``key`` (after ``cursor``, a keyset cursor
    of this list: ``lightnote.rest.pagination.keyset_page``), described, and the total.

    ``count`` is the whole list's (not what is left after the cursor): counted only when
    the page does not hold it all, and None past ``COUNT_CAP`` (``count_capped``). ``next``
    is the cursor of the rows after this page (None: none), ``after`` whether ``cursor``
    was given (this page continues a list).
    """
    page, next_cursor = keyset_page(rows, cursor, limit)
    total = len(page) if next_cursor is None and not cursor else capped_count(rows)
    return {
        "count": total,
        "count_capped": total is None,
        key: [describe(row) for row in page],
        "next": next_cursor,
        "after": bool(cursor),
    }


def _page_head(data: dict[str, Any], shown: int, head_code: str, locale: str) -> str:
    """The line above a page: everything found, or which part of how many this page is."""
    count, capped = data.get("count"), bool(data.get("count_capped"))
    if not data.get("after") and not data.get("next") and not capped:
        return text(head_code, locale, count=shown if count is None else count)
    code = "READ_PAGE_NEXT" if data.get("after") else "READ_PAGE_SHOWN"
    if capped:
        return text(f"{code}_CAPPED", locale, shown=shown, count=COUNT_CAP)
    return text(code, locale, shown=shown, count=count)


def listing(
    data: dict[str, Any],
    *,
    key: str,
    empty_code: str,
    head_code: str,
    line: Callable[[dict[str, Any]], str],
    locale: str,
) -> str:
    """Return a read's summary: ``empty_code``, or the page's head and a line per item.

    The head says what the page shows: all that was found (``head_code`` with the count),
    or "Showing 10 of 14" (``page_data``'s ``count``, ``next``); a page with more after it
    ends with how to reach them, the last page of a continued list says so.
    """
    items = data[key]
    if not items:
        return text(empty_code, locale)
    lines = [_page_head(data, len(items), head_code, locale), *(line(item) for item in items)]
    if data.get("next"):
        lines.append(text("READ_PAGE_MORE_HINT", locale))
    elif data.get("after"):
        lines.append(text("READ_PAGE_LAST", locale))
    return "\n".join(lines)


def card(
    *, title_code: str, impact_code: str, target: str, details: list[dict[str, Any]], locale: str
) -> dict[str, Any]:
    """Return a card whose impact names its ``target`` (``{title}`` in the impact text)."""
    return {
        "title": text(title_code, locale),
        "target": target,
        "impact": text(impact_code, locale, title=target),
        "details": details,
    }


def versioned_target(id_key: str, item: Any, **more: Any) -> dict[str, Any]:
    """Return the prepared args naming ``item`` at its present version: id, version, ``more``."""
    return {id_key: str(item.id), "expected_version": item.version, **more}


def run_versioned(
    service: Callable[..., _Result],
    id_key: str,
    prepared: dict[str, Any],
    context: Any,
    **values: Any,
) -> _Result:
    """Call a domain write service on the prepared item, as the subject, version-checked."""
    return service(
        owner=context.subject,
        **{id_key: prepared[id_key]},
        expected_version=prepared["expected_version"],
        actor=context.actor,
        channel=context.channel,
        **values,
    )


def changed_values(
    args: dict[str, Any],
    checks: dict[str, Callable[[Any], Any]],
    current: dict[str, Any],
    *,
    noop_code: str,
    same: Callable[[str, Any, Any], bool] = lambda field, new, old: new == old,
) -> dict[str, Any]:
    """Return the checked values of ``args`` that differ from ``current``, in ``checks`` order.

    Each given field goes through its service check first (so a bad value is refused even
    when another field would change). Nothing changes -> ``noop_code`` (400).
    """
    wanted = {field: check(args[field]) for field, check in checks.items() if field in args}
    changes = {
        field: value for field, value in wanted.items() if not same(field, value, current[field])
    }
    if not changes:
        raise LightNoteError(noop_code)
    return changes


def undo_update(
    tool: str,
    id_key: str,
    prepared: dict[str, Any],
    previous: dict[str, Any],
    fields: Sequence[str],
    version: int,
) -> Compensation:
    """Return the undo of an update: ``tool`` puts back the ``previous`` values it changed."""
    restored = {field: previous[field] for field in fields if field in prepared}
    return Compensation(tool, {id_key: prepared[id_key], **restored}, version)


class ItemCardTool(WriteTool):
    """A write on one whole item (delete, restore, discard), prepared with its snapshot.

    The card names the item (``current["title"]``) in ``preview_impact_code`` and shows
    ``item_details`` of its present values; its summary and reply are the ``WriteTool``
    codes (``result_code``, ``reply_text_code``).
    """

    preview_title_code: ClassVar[str] = ""
    preview_impact_code: ClassVar[str] = ""

    def item_details(self, current: dict[str, Any], context: ToolContext) -> list[dict[str, Any]]:
        """Return the card rows of the item's present values (override per app)."""
        raise NotImplementedError

    def preview(self, prepared: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        current = prepared["current"]
        return card(
            title_code=self.preview_title_code,
            impact_code=self.preview_impact_code,
            target=current["title"],
            details=self.item_details(current, context),
            locale=context.locale,
        )
