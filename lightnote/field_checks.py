"""The value checks item services share: titles, optional texts, and the values an update gives.

Each app's services name their own error codes (``<PREFIX>_TITLE_REQUIRED`` ...) and limits;
the rules themselves are written once, here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lightnote.errors import LightNoteError

# A service's "not given" default, so ``None`` can mean a value (e.g. "no due time").
UNSET: Any = object()


def checked_values(**given: tuple[Any, Callable[[Any], Any]]) -> dict[str, Any]:
    """Return ``{field: check(value)}`` for each ``field=(value, check)`` given (not ``UNSET``).

    An update service's values, checked in the order given; a check raises the field's error.
    """
    return {field: check(value) for field, (value, check) in given.items() if value is not UNSET}


def checked_title(title: Any, *, prefix: str, max_length: int) -> str:
    """Return the title on one line, single-spaced; or raise ``<prefix>_TITLE_REQUIRED`` /
    ``<prefix>_TITLE_TOO_LONG``."""
    if not isinstance(title, str) or not title.strip():
        raise LightNoteError(f"{prefix}_TITLE_REQUIRED")
    title = " ".join(title.split())
    if len(title) > max_length:
        raise LightNoteError(f"{prefix}_TITLE_TOO_LONG", params={"max": max_length})
    return title


def checked_text(value: Any, *, too_long: str, max_length: int) -> str:
    """Return an optional text as given (None: ``""``); not a string or too long: ``too_long``."""
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > max_length:
        raise LightNoteError(too_long, params={"max": max_length})
    return value
