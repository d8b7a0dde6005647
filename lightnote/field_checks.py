"""The value checks item services share: titles, optional texts, and the values an update gives.

Each app's services name their own error codes (``<PREFIX>_TITLE_REQUIRED`` ...) and limits;
the rules themselves are written once, here. Every text passes the one input policy first
(``lightnote.text_policy``: control characters refused, line breaks LF, NFC).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lightnote.errors import LightNoteError
from lightnote.text_policy import Kind, clean_text

# A service's "not given" default, so ``None`` can mean a value (e.g. "no due time").
UNSET: Any = object()


def checked_values(**given: tuple[Any, Callable[[Any], Any]]) -> dict[str, Any]:
    """Return ``{field: check(value)}`` for each ``field=(value, check)`` given (not ``UNSET``).

    An update service's values, checked in the order given; a check raises the field's error.
    """
    return {field: check(value) for field, (value, check) in given.items() if value is not UNSET}


def checked_line(value: str, *, field: str) -> str:
    """Return a one-line text (title, tag, name) through the input policy, single-spaced."""
    return " ".join(clean_text(value, kind=Kind.LINE, field=field).split())


def checked_title(title: Any, *, prefix: str, max_length: int, field: str = "title") -> str:
    """Return the title on one line, single-spaced; or raise ``<prefix>_TITLE_REQUIRED`` /
    ``<prefix>_TITLE_TOO_LONG`` (or the input policy's ``VALIDATION_ERROR``)."""
    if not isinstance(title, str) or not title.strip():
        raise LightNoteError(f"{prefix}_TITLE_REQUIRED")
    title = checked_line(title, field=field)
    if len(title) > max_length:
        raise LightNoteError(f"{prefix}_TITLE_TOO_LONG", params={"max": max_length})
    return title


def checked_text(value: Any, *, too_long: str, max_length: int, field: str) -> str:
    """Return an optional text through the input policy (None: ``""``); not a string or too
    long: ``too_long``."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise LightNoteError(too_long, params={"max": max_length})
    value = clean_text(value, kind=Kind.TEXT, field=field)
    if len(value) > max_length:
        raise LightNoteError(too_long, params={"max": max_length})
    return value
