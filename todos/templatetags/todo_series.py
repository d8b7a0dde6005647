"""A todo's reminder and repeat rule on its pages: the form fields and the shown rule."""

from __future__ import annotations

from typing import Any

from django import template

from lightnote.errors import LightNoteError
from lightnote.texts.page_texts import page_texts
from todos.pages import PAGE_TEXTS, RECURRENCE_PRESETS
from todos.recurrence import recurrence_text

register = template.Library()


@register.filter
def recurrence_words(rule: str | None, locale: str) -> str:
    """The rule in words in ``locale`` ("每周一" / "every Monday"); "" for none."""
    return _words(rule, locale) or ""


def _words(rule: str | None, locale: str) -> str | None:
    """The rule in words, or None for a rule that cannot be read (a refused form value)."""
    try:
        return recurrence_text(rule, locale=locale)
    except LightNoteError:
        return None


@register.inclusion_tag("todos/series_fields.html", takes_context=True)
def series_fields(context: template.Context, prefix: str, item: Any = None) -> dict[str, Any]:
    """The reminder and repeat fields of a create (``item`` None) or edit form."""
    viewer = context["viewer"]
    form = context.get("form") or {}
    current = form.get("recurrence", "") if item is None else (item.recurrence or "")
    rules = list(RECURRENCE_PRESETS)
    if current and current not in rules and _words(current, viewer.locale):
        rules.append(current)  # a rule set through the API or the assistant stays choosable
    if item is not None and item.remind_at:
        remind_at = viewer.local(item.remind_at).strftime("%Y-%m-%dT%H:%M")
    else:
        remind_at = form.get("remind_at", "")
    return {
        "prefix": prefix,
        "t": page_texts(viewer.locale, PAGE_TEXTS),
        "remind_at": remind_at,
        "choices": [(rule, _words(rule, viewer.locale)) for rule in rules],
        "current": current,
    }
