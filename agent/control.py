"""The agent's records in the control store: their key names, and the 503 the agent answers
when the store cannot (``CONFIRMATION_STORE_UNAVAILABLE``).

:mod:`lightnote.store` knows no record kind and raises the neutral
:class:`~lightnote.store.StoreUnavailable`; every agent function that reaches the store maps
it here, so a card, a continuation or a rate-limit check all fail closed with one code.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from lightnote import store
from lightnote.errors import LightNoteError
from lightnote.i18n import define_messages

define_messages(
    {
        "CONFIRMATION_STORE_UNAVAILABLE": (
            "安全确认服务暂不可用，请稍后重试。",
            "The confirmation service is unavailable; please retry later.",
        ),
    }
)

CARD_KEY_PREFIX = "ln:card:"
CONTINUATION_KEY_PREFIX = "ln:cont:"


def card_key(digest: str) -> str:
    """Return the record key of a card (``ln:card:{digest}``)."""
    return store.record_key(CARD_KEY_PREFIX, digest)


def continuation_key(digest: str) -> str:
    """Return the record key of a continuation (``ln:cont:{digest}``)."""
    return store.record_key(CONTINUATION_KEY_PREFIX, digest)


def store_unavailable() -> LightNoteError:
    """Return the agent's 503: the confirmation machinery cannot answer right now."""
    return LightNoteError("CONFIRMATION_STORE_UNAVAILABLE", status=503)


@contextmanager
def confirmation_store() -> Iterator[None]:
    """Map "the store could not answer" to ``CONFIRMATION_STORE_UNAVAILABLE`` (503).

    Also a decorator (``@confirmation_store()``) for each public card and continuation
    operation; other errors pass through unchanged.
    """
    try:
        yield
    except store.StoreUnavailable as exc:
        raise store_unavailable() from exc
