"""Messages in both first-class languages, keyed by error or text code.

Each app declares its own texts with :func:`define_messages` in its ``messages.py``
(imported from its ``AppConfig.ready``); :func:`translate` renders one in a locale.
"""

from __future__ import annotations

import string
from typing import Any

from django.http import HttpRequest
from django.utils import translation

LOCALES = ("zh-CN", "en")
DEFAULT_LOCALE = "zh-CN"
# Django's language code of each locale: its gettext catalogues and its language cookie.
DJANGO_LANGUAGES = {"zh-CN": "zh-hans", "en": "en"}

_catalog: dict[str, dict[str, str]] = {}


def define_messages(messages: dict[str, tuple[str, str]]) -> None:
    """Register ``{code: (zh_cn_text, en_text)}``; a code may be defined only once."""
    for code, (zh, en) in messages.items():
        if code in _catalog and _catalog[code] != {"zh-CN": zh, "en": en}:
            raise ValueError(f"message {code} is defined twice with different texts")
        _catalog[code] = {"zh-CN": zh, "en": en}


def known_codes() -> list[str]:
    """Return every registered message code."""
    return sorted(_catalog)


def normalize_locale(value: str | None) -> str | None:
    """Map a language tag (``zh``, ``zh-Hans-CN``, ``en-US``...) to a supported locale."""
    if not value:
        return None
    tag = value.strip().lower().replace("_", "-")
    if tag.startswith("zh"):
        return "zh-CN"
    if tag.startswith("en"):
        return "en"
    return None


def locale_from_accept_language(header: str | None) -> str | None:
    """Return the first supported locale in an Accept-Language header, by quality."""
    if not header:
        return None
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        locale = normalize_locale(tag)
        if locale and quality > 0:
            ranked.append((-quality, index, locale))
    return min(ranked)[2] if ranked else None


def request_locale(request: HttpRequest | None, user: Any = None) -> str:
    """Return the request's locale: Accept-Language, else the user's language, else zh-CN.

    ``user`` is the request's user when the caller knows it before the request does (an
    authentication class); otherwise the authenticated user is read from the request.
    """
    if request is None:
        return DEFAULT_LOCALE
    from_header = locale_from_accept_language(request.META.get("HTTP_ACCEPT_LANGUAGE"))
    if from_header:
        return from_header
    language = getattr(user if user is not None else _known_user(request), "language", None)
    return normalize_locale(language) or DEFAULT_LOCALE


def activate_request_language(request: HttpRequest, user: Any = None) -> str:
    """Make the request's locale Django's active language, and return it.

    What Django and DRF translate through gettext (DRF's field messages: "This field is
    required.") is rendered in the active language when it is raised, so on the API it must
    be the language the project's own messages use: Accept-Language, else the user's.
    """
    locale = request_locale(request, user)
    translation.activate(DJANGO_LANGUAGES[locale])
    return locale


def _known_user(request: Any) -> Any:
    """Return the request's user without triggering (and failing) DRF authentication."""
    if hasattr(request, "_request"):  # a DRF Request: use the user only once authenticated
        user = getattr(request, "_user", None)
        if user is not None:
            return user
        request = request._request
    return getattr(request, "user", None)


def message_template(code: str, locale: str | None) -> str | None:
    """Return the unformatted text of ``code`` in ``locale``, or None for an unknown code."""
    texts = _catalog.get(code)
    if texts is None:
        return None
    return texts.get(normalize_locale(locale) or DEFAULT_LOCALE, texts[DEFAULT_LOCALE])


class _PluralFormatter(string.Formatter):
    """``str.format`` plus plural forms: ``{count:todo|todos}`` is "todo" for 1, else "todos".

    A text writes the number and its noun apart (``"{count} {count:todo|todos}"``), so
    English says "1 todo" / "2 todos" and never "todo(s)"; Chinese needs no such form.
    """

    def format_field(self, value: Any, format_spec: str) -> str:
        if "|" in format_spec:
            one, _, other = format_spec.partition("|")
            return one if value == 1 else other
        return str(super().format_field(value, format_spec))


_FORMATTER = _PluralFormatter()


def translate(code: str, locale: str | None = None, **params: Any) -> str:
    """Render the message ``code`` in ``locale`` with ``str.format`` parameters.

    A ``{name:one|other}`` field picks the plural form by the value of ``name``.
    """
    texts = _catalog.get(code)
    if texts is None:
        return code
    text = texts.get(normalize_locale(locale) or DEFAULT_LOCALE, texts[DEFAULT_LOCALE])
    try:
        return _FORMATTER.format(text, **params)
    except (KeyError, IndexError, ValueError, AttributeError, TypeError):
        return text
