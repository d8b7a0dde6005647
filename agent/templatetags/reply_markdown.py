"""``{{ text|reply_markdown }}``: an assistant's reply as safe HTML (agent/web/markdown.py)."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from agent.web.markdown import render_reply

register = template.Library()


@register.filter
def reply_markdown(text: str) -> SafeString:
    return mark_safe(render_reply(str(text or "")))  # noqa: S308 - escaped by markdown-it
