"""Reply templates: read facts and succeeded receipts described without a model.

The offline engine's final reply, and the OpenAI planner's fallback when the model answers
with nothing. Which sentence fits a receipt is the tool's business: each tool names its
reply text code (``Tool.reply_code``), which the continuation passes in the receipt under
``reply_code``; this module only fills it (``{title}``, ``{due}``, ``{summary}``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from agent.planners.base import FACT_SUCCEEDED, Fact, reply_locale, require_succeeded
from lightnote.texts.i18n import define_messages, translate

# The receipt key carrying the tool's reply text code (see ``Tool.reply_code``).
REPLY_CODE_KEY = "reply_code"

define_messages(
    {
        "PLANNER_FACT_FAILED": ("查询没有成功：{summary}", "The lookup did not succeed: {summary}"),
        "PLANNER_ITEM": ("「{title}」", '"{title}"'),
        "PLANNER_ITEM_DUE": ("「{title}」，截止 {due}", '"{title}", due {due}'),
        "PLANNER_MORE_ITEMS": ("……另有 {count} 条。", "…and {count} more."),
        "REPLY_DUE": ("{when}（{zone}）", "{when} ({zone})"),
        "REPLY_ACTION_DONE": ("操作已完成：{summary}", "Done: {summary}"),
    }
)


# --- Describing facts and receipts ------------------------------------------------------

_MAX_LISTED = 10


def _items(data: dict[str, Any]) -> list[dict[str, Any]]:
    for key in ("results", "items", "todos", "notes"):
        value = data.get(key)
        if isinstance(value, list):
            return [item for item in value if isinstance(item, dict)]
    return []


def _as_datetime(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    return None


def _local_time(value: Any, zone_name: str | None) -> tuple[str, str | None] | None:
    """Return ``("2026-12-02 21:00", zone label)`` for a time, in ``zone_name`` when known.

    The label is the zone's name, else the time's UTC offset, else None (a naive time).
    """
    moment = _as_datetime(value)
    if moment is None:
        return None
    label = None
    if zone_name and moment.tzinfo is not None:
        try:
            moment = moment.astimezone(ZoneInfo(str(zone_name)))
            label = str(zone_name)
        except (ZoneInfoNotFoundError, ValueError):
            label = None
    if label is None and moment.tzinfo is not None:
        offset = moment.strftime("%z")
        label = f"UTC{offset[:3]}:{offset[3:]}"
    return moment.strftime("%Y-%m-%d %H:%M"), label


def _due_text(value: Any, zone_name: str | None, locale: str) -> str | None:
    local = _local_time(value, zone_name)
    if local is None:
        return None
    when, zone = local
    return translate("REPLY_DUE", locale, when=when, zone=zone) if zone else when


def describe_facts(facts: list[Fact], locale: str) -> str:
    """Summarise read-tool facts for the user.

    A tool's summary is shown as it is; when it is a single line, the items found in the
    fact's data are listed under it.
    """
    lines: list[str] = []
    for fact in facts:
        if fact.status != FACT_SUCCEEDED:
            lines.append(translate("PLANNER_FACT_FAILED", locale, summary=fact.summary))
            continue
        lines.append(fact.summary)
        if "\n" in fact.summary.strip():
            continue
        items = _items(fact.data)
        for item in items[:_MAX_LISTED]:
            title = str(item.get("title") or "")
            local = _local_time(item.get("due_at"), None)
            if local:
                line = translate("PLANNER_ITEM_DUE", locale, title=title, due=local[0])
            else:
                line = translate("PLANNER_ITEM", locale, title=title)
            lines.append(f"- {line}")
        if len(items) > _MAX_LISTED:
            lines.append(translate("PLANNER_MORE_ITEMS", locale, count=len(items) - _MAX_LISTED))
    return "\n".join(line for line in lines if line)


def _result_item(receipt: dict[str, Any]) -> dict[str, Any]:
    """Return the item the receipt's result describes (flat, or nested one level)."""
    result = receipt.get("result")
    if not isinstance(result, dict):
        return {}
    if "title" not in result:
        for key in ("todo", "note", "item", "resource"):
            if isinstance(result.get(key), dict):
                return result[key]
    return result


def template_reply(*, snapshot: dict[str, Any], receipt: dict[str, Any], locale: str) -> str:
    """Describe a succeeded action from its receipt alone, naming the item."""
    require_succeeded(receipt)
    language = reply_locale(str(snapshot.get("question") or ""), locale)
    item = _result_item(receipt)
    title = str(item.get("title") or "")
    summary = str(receipt.get("summary") or "")
    zone_name = item.get("time_zone") or snapshot.get("time_zone") or receipt.get("time_zone")
    due = _due_text(item.get("due_at"), zone_name, language)
    code = receipt.get(REPLY_CODE_KEY)
    if not title:
        return translate("REPLY_ACTION_DONE", language, summary=summary)
    if not isinstance(code, str) or not code:
        return translate("REPLY_ACTION_DONE", language, summary=summary or title)
    return translate(code, language, title=title, due=due or "", summary=summary or title)
