"""The agent's records in the control store: their key names, the 503 the agent answers
when the store cannot (``CONFIRMATION_STORE_UNAVAILABLE``), and a turn-taking lease
(:func:`one_at_a_time`).

:mod:`lightnote.controlstore.store` knows no record kind and raises the neutral
:class:`~lightnote.controlstore.store.StoreUnavailable`; every agent function that reaches the
store maps
it here, so a card, a continuation or a rate-limit check all fail closed with one code.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from lightnote.controlstore import scripts as store_scripts
from lightnote.controlstore import store
from lightnote.controlstore.binding import canonical_json, seal
from lightnote.errors import LightNoteError
from lightnote.texts.i18n import define_messages

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


def token_new() -> tuple[str, str]:
    """Return a new one-time token (256 random bits) and its digest, the record key's part."""
    token = secrets.token_urlsafe(32)
    return token, store.token_digest(token)


@dataclass(frozen=True)
class SealedCreate:
    """A sealed record ready to be stored new (:func:`sealed_record_prepare`), not sent yet:
    ``create.call`` is its script, to send alone or with others in one round trip
    (:func:`lightnote.controlstore.scripts.scripts_run`); :meth:`fields` reads the script's
    reply."""

    create: store.RecordCreate
    kind: str

    def fields(self, reply: Any) -> dict[str, str]:
        """Return the stored fields from the script's ``reply``.

        A key that existed already means two tokens collided (256 random bits): a broken
        RNG, so it raises ``RuntimeError`` rather than answer with another record.
        """
        result = self.create.result(reply)
        if not result.created:
            raise RuntimeError(f"a new {self.kind} token named an existing record")
        return result.fields


def sealed_record_prepare(
    key: str, *, state: str, record: dict[str, Any], seal_field: str, ttl_seconds: int, kind: str
) -> SealedCreate:
    """Seal ``record`` (its HMAC into ``seal_field``) for storing it new at ``key`` in
    ``state`` for ``ttl_seconds``; nothing is sent yet."""
    seal(record, field=seal_field)
    create = store.record_create_call(
        key, state=state, record_json=canonical_json(record), ttl_ms=ttl_seconds * 1000
    )
    return SealedCreate(create=create, kind=kind)


def sealed_record_create(
    key: str, *, state: str, record: dict[str, Any], seal_field: str, ttl_seconds: int, kind: str
) -> dict[str, str]:
    """Seal ``record`` (its HMAC into ``seal_field``) and store it new at ``key`` in ``state``
    for ``ttl_seconds``; return the stored fields. One round trip; raises ``StoreUnavailable``,
    or ``RuntimeError`` when the key existed (two tokens collided: a broken RNG)."""
    sealed = sealed_record_prepare(
        key,
        state=state,
        record=record,
        seal_field=seal_field,
        ttl_seconds=ttl_seconds,
        kind=kind,
    )
    (reply,) = store_scripts.scripts_run([sealed.create.call])
    return sealed.fields(reply)


def live_record_get(key: str, *, voided: str) -> dict[str, str] | None:
    """Return the fields of the record at ``key``; None when it is unknown, expired, or in
    the ``voided`` state (a withdrawn record answers like an unknown token)."""
    fields = store.record_get(key)
    if fields is None or fields.get("state") == voided:
        return None
    return fields


def live_record_read(key: str, *, voided: str) -> store.RecordRead | None:
    """:func:`live_record_get` with the server's clock at the read (one round trip)."""
    read = store.record_read(key)
    if read.fields is None or read.fields.get("state") == voided:
        return None
    return read


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


# --- One at a time ------------------------------------------------------------------------

LEASE_KEY_PREFIX = "ln:lease:"
_LEASE_HELD = "held"
_LEASE_DONE = "done"


@contextmanager
def one_at_a_time(
    name: str, *, busy_code: str, ttl_ms: int = 10_000, wait_ms: int = 3_000
) -> Iterator[None]:
    """Run the block while no other request runs a block of the same ``name``.

    A lease in the control store (created only if absent, with ``ttl_ms``), so requests on
    any process or machine take turns; a request that finds it held waits for it, polling,
    up to ``wait_ms``, then answers 409 ``busy_code`` (with ``Retry-After``). The lease is
    given back by this holder only (a compare-and-set on its holder id); a holder that dies
    leaves it to expire after ``ttl_ms``, so a block must take far less than that. Neither
    a database transaction nor a lock is held while waiting. 503 when the store cannot answer.
    """
    key = store.record_key(LEASE_KEY_PREFIX, name)
    holder = {"holder": secrets.token_hex(16)}
    deadline = time.monotonic() + wait_ms / 1000
    with confirmation_store():
        while not store.record_create(
            key, state=_LEASE_HELD, record_json=canonical_json(holder), ttl_ms=ttl_ms
        ).created:
            if time.monotonic() >= deadline:
                raise LightNoteError(busy_code, status=409, headers={"Retry-After": "1"})
            time.sleep(0.02)
    try:
        yield
    finally:
        with contextlib.suppress(store.StoreUnavailable):  # else it expires after ttl_ms
            store.record_transition(
                key,
                from_states=(_LEASE_HELD,),
                to_state=_LEASE_DONE,
                expect_record=holder,  # only this holder gives it back
                ttl_ms=1,  # gone at once: the next request may take it
                now_ms=store.now_ms(),
                with_fields=False,
            )
