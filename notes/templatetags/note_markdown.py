"""``{{ note.content|note_markdown }}`` and ``{{ note.content|note_excerpt }}``."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from notes import markdown

register = template.Library()


@register.filter
def note_markdown(text: str) -> SafeString:
    return mark_safe(markdown.render_note(text))  # noqa: S308 (escaped by the renderer)


@register.filter
def note_excerpt(text: str) -> str:
    return markdown.note_excerpt(text)
