"""Structured logs: one JSON object per line, with the request's id and context on each.

:class:`RequestContextFilter` adds ``request_id``, ``user_id``, ``route`` and whatever the
code bound with :func:`bind_log_context` (``card_id``, ``action_id``) to every record
logged while a request is served; :class:`RedactFilter` replaces the values of
secret-bearing keys and scrubs credentials out of message text; :class:`JsonFormatter`
writes the record as one line. ``LIGHTNOTE_LOG_FORMAT=text`` keeps the same fields in a
plain line for development.

Never logged: a token, a password, a prompt, an item's title or content. The request line
(``lightnote.ops.middleware``) carries only the fields named in :data:`REQUEST_FIELDS`.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from django.utils.functional import empty

# What the request line says, and nothing else.
REQUEST_FIELDS = ("method", "route", "status", "duration_ms")

# Context fields a record may carry (bound by the middleware or the card code).
CONTEXT_FIELDS = ("request_id", "user_id", "route", "card_id", "action_id")

# Keys whose values are never written, wherever they appear in a record's extra fields.
SECRET_KEYS = frozenset(
    {
        "token",
        "continuation_token",
        "password",
        "authorization",
        "api_key",
        "secret",
        "cookie",
        "session",
        "prompt",
        "messages",
        "title",
        "content",
        "text",
        "body",
        "args",
        "question",
    }
)
REDACTED = "[redacted]"

# Credentials that may slip into a message: an Authorization value, a DRF token key, a card
# or continuation token (``secrets.token_urlsafe(32)``: 43 characters), an MCP token.
_CREDENTIALS = re.compile(
    r"(?i)\b(?:bearer|token)\s+[A-Za-z0-9._~+/=-]{8,}"
    r"|\b[0-9a-f]{40}\b"
    r"|(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"
    r"|\bln_mcp_[A-Za-z0-9_-]+"
)

_context: ContextVar[dict[str, Any] | None] = ContextVar("lightnote_log_context", default=None)

# The attributes every LogRecord has; anything else on a record came from ``extra=``.
_RECORD_ATTRIBUTES = frozenset(
    logging.LogRecord("", 0, "", 0, "", (), None).__dict__.keys()
    | {"message", "asctime", "taskName"}
)


@contextmanager
def log_context(**fields: Any) -> Iterator[dict[str, Any]]:
    """Inside, every record carries ``fields`` (and what :func:`bind_log_context` adds)."""
    context = dict(fields)
    reset = _context.set(context)
    try:
        yield context
    finally:
        _context.reset(reset)


def bind_log_context(**fields: Any) -> None:
    """Add ``fields`` (e.g. ``action_id=card.id``) to the current request's log context.

    Outside a request (a management command) it does nothing; bind ids only, never text.
    """
    context = _context.get()
    if context is not None:
        context.update({key: value for key, value in fields.items() if value is not None})


def current_context() -> dict[str, Any]:
    """The current context, with the user's id once the request's user is known."""
    context = _context.get()
    if not context:
        return {}
    fields = {key: value for key, value in context.items() if not key.startswith("_")}
    user_id = resolved_user_id(context.get("_request"))
    if user_id is not None:
        fields["user_id"] = user_id
    return fields


def resolved_user_id(request: Any) -> Any:
    """The request's user id if authentication already ran; never triggers it (no SQL)."""
    if request is None:
        return None
    user = request.__dict__.get("user")
    if user is None:
        return None
    wrapped = getattr(user, "_wrapped", user)  # a lazy user not evaluated yet is left alone
    if wrapped is empty or not getattr(wrapped, "is_authenticated", False):
        return None
    return getattr(wrapped, "pk", None)


def scrub(text: str) -> str:
    """Replace anything that looks like a credential in ``text``."""
    return _CREDENTIALS.sub(REDACTED, text)


class RequestContextFilter(logging.Filter):
    """Add the current request's context fields to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in current_context().items():
            if not hasattr(record, key):
                setattr(record, key, value)
        return True


class RedactFilter(logging.Filter):
    """Blank secret-bearing extra fields and scrub credentials out of the message."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key in list(record.__dict__):
            if key not in _RECORD_ATTRIBUTES and key.lower() in SECRET_KEYS:
                setattr(record, key, REDACTED)
        message = scrub(record.getMessage())
        record.msg, record.args = message, None
        return True


def _extra_fields(record: logging.LogRecord) -> dict[str, Any]:
    return {
        key: value
        for key, value in record.__dict__.items()
        if key not in _RECORD_ATTRIBUTES and not key.startswith("_")
    }


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, context, extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(_extra_fields(record))
        if record.exc_info:
            entry["exception"] = scrub(self.formatException(record.exc_info))
        return json.dumps(entry, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """A plain line for development, with the same context fields after the message."""

    def format(self, record: logging.LogRecord) -> str:
        when = datetime.fromtimestamp(record.created, UTC).strftime("%H:%M:%S")
        fields = " ".join(f"{key}={value}" for key, value in _extra_fields(record).items())
        line = f"{when} {record.levelname} {record.name} {record.getMessage()}"
        if fields:
            line = f"{line} [{fields}]"
        if record.exc_info:
            line = f"{line}\n{scrub(self.formatException(record.exc_info))}"
        return line


def logging_config(*, log_format: str, level: str) -> dict[str, Any]:
    """The ``LOGGING`` dict for ``settings``: every record through the filters, one line each."""
    formatter = "lightnote.ops.logs.JsonFormatter" if log_format == "json" else None
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "context": {"()": "lightnote.ops.logs.RequestContextFilter"},
            "redact": {"()": "lightnote.ops.logs.RedactFilter"},
        },
        "formatters": {
            "line": {"()": formatter or "lightnote.ops.logs.TextFormatter"},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "line",
                "filters": ["context", "redact"],
            }
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # Django's own request warnings repeat the request line (route, status): one line
            # per request is ours.
            "django.request": {"level": "ERROR"},
            "django.server": {"level": "ERROR"},
        },
    }
