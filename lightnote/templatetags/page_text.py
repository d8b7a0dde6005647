"""``{% page_text "CODE" en %}``: one page text (``lightnote.texts.page_texts``) in the language the
template decided (``en`` is ``"en"`` for English, anything else is Chinese) — for the base
page, which every page extends, including those whose view passes no ``t`` (login)."""

from __future__ import annotations

from django import template

from lightnote.texts.i18n import translate

register = template.Library()


@register.simple_tag
def page_text(code: str, en: str) -> str:
    return translate(code, "en" if str(en)[:2].lower() == "en" else "zh-CN")
