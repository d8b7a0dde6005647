"""Formatting tools share: local times, excerpts, card detail rows, inline lists."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from lightnote.texts.i18n import define_messages, translate

LOCALE_ZH = "zh-CN"
LOCALE_EN = "en"


def parse_aware(value: str) -> datetime:
    """Return the aware datetime of a prepared ISO string (always carries an offset)."""
    return datetime.fromisoformat(value)


def format_local_time(value: str | datetime, zone: ZoneInfo) -> str:
    """Render a time in ``zone`` with the zone's name: ``2026-12-02 21:00 (Asia/Shanghai)``."""
    moment = parse_aware(value) if isinstance(value, str) else value
    return f"{moment.astimezone(zone):%Y-%m-%d %H:%M} ({zone.key})"


def excerpt(text: str, limit: int = 120) -> str:
    """Return ``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def detail(key: str, label: str, value: str, **more: Any) -> dict[str, Any]:
    """Return one preview detail row."""
    return {"key": key, "label": label, "value": value, **more}


def text(code: str, locale: str, **params: Any) -> str:
    """Render a registered text (a thin alias that reads well in preview builders)."""
    return translate(code, locale, **params)


def list_separator(locale: str) -> str:
    """Return the separator of an inline list: ``、`` in Chinese, ``, `` in English."""
    return "、" if locale == LOCALE_ZH else ", "


def joined(items: Iterable[str], locale: str) -> str:
    """Join ``items`` as an inline list in ``locale``."""
    return list_separator(locale).join(items)


def change_detail(key: str, label: str, current: str, new: str, locale: str) -> dict[str, Any]:
    """Return the preview row of one changed field: ``current → new``, both also apart."""
    arrow = text("TOOL_CHANGE_ARROW", locale, current=current, new=new)
    return detail(key, label, arrow, current=current, new=new)


def update_preview(
    *,
    title_code: str,
    impact_code: str,
    target: str,
    fields: Sequence[str],
    label: Callable[[str], str],
    shown: Callable[[str], tuple[str, str]],
    after: Callable[[str], list[dict[str, Any]]] = lambda field: [],
    locale: str,
) -> dict[str, Any]:
    """Return the card of an update: which item, how many fields change, and each change.

    The rows: the item's ``title`` (``target``), then for each changed field its
    ``current → new`` row (``shown(field)`` gives both, as shown) followed by ``after(field)``.
    """
    details = [detail("title", label("title"), target)]
    for field in fields:
        current, new = shown(field)
        details.append(change_detail(field, label(field), current, new, locale))
        details.extend(after(field))
    changed_labels = [label(field) for field in fields]
    return {
        "title": text(title_code, locale),
        "target": target,
        "impact": text(
            impact_code,
            locale,
            title=target,
            count=len(changed_labels),
            fields=joined(changed_labels, locale),
        ),
        "details": details,
    }


define_messages(
    {
        "TOOL_VALUE_NOT_SET": ("未设置", "Not set"),
        "TOOL_VALUE_NONE": ("无", "None"),
        "TOOL_CHANGE_ARROW": ("{current} → {new}", "{current} → {new}"),
    }
)
