"""``Idempotency-Key`` for the direct REST API's creates (``POST /api/v1/todos/``, ``/notes/``).

IETF draft semantics, scoped per user: a key of 1..255 characters names one create; the same
key with the same payload after completion answers the stored status and body again
(``Idempotent-Replayed: true``); while the first request is in flight 409
``IDEMPOTENCY_KEY_IN_USE``; with another payload 422 ``IDEMPOTENCY_KEY_REUSED``; an empty or
longer key 400 ``IDEMPOTENCY_KEY_INVALID``. Requests without the header never touch Redis.

Claims run on the control store of :mod:`lightnote.store` (one hash per key, Lua compare-and-set)
at ``ln:idem:{sha256(user id ":" key)}``; the raw key is never stored. State machine::

    (absent) --create--> ready --claim--> running --complete--> completed (kept 24 h)
                                           |  ^
                                           |  '--takeover once the lease has passed
                                           '--release (4xx: nothing written)--> deleted

Two fences keep one key to one row even when Redis forgets:

* Redis: the claim is one compare-and-set with a lease (``LIGHTNOTE_EXECUTION_LEASE``); of
  any number of concurrent requests exactly one holds the key.
* The database: the created row carries the same digest in ``idempotency_key``, unique per
  owner. The holder looks the digest up before creating and answers from an existing row
  (201 + that row), and an ``IntegrityError`` on the pair is answered the same way. So a
  lost Redis record, a holder that died after COMMIT (its completion never stored), or a
  slow holder whose lease was taken over, can never produce a twin.

See ``docs/idempotency.md`` for the race table.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from typing import Any

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.http import QueryDict
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder

from lightnote import store
from lightnote.binding import canonical_json, digests_equal
from lightnote.errors import LightNoteError
from lightnote.i18n import define_messages

logger = logging.getLogger(__name__)

define_messages(
    {
        "IDEMPOTENCY_KEY_INVALID": (
            "Idempotency-Key 必须是 1 到 {max_length} 个字符。",
            "The Idempotency-Key header must be 1 to {max_length} characters.",
        ),
        "IDEMPOTENCY_KEY_IN_USE": (
            "使用该 Idempotency-Key 的请求仍在处理中，请稍后重试。",
            "A request with this Idempotency-Key is still in progress; retry shortly.",
        ),
        "IDEMPOTENCY_KEY_REUSED": (
            "该 Idempotency-Key 已用于另一个内容不同的请求。",
            "This Idempotency-Key was already used for a different request.",
        ),
        "IDEMPOTENCY_STORE_UNAVAILABLE": (
            "幂等服务暂不可用，请稍后重试；未执行任何操作。",
            "The idempotency service is unavailable; nothing was done. Please retry later.",
        ),
    }
)

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
KEY_MAX_LENGTH = 255
KEY_PREFIX = "ln:idem:"
_CLAIM_ROUNDS = 4  # each round follows one observed state change; more means heavy churn

IDEMPOTENCY_KEY_PARAMETER = OpenApiParameter(
    name=HEADER,
    type={"type": "string", "minLength": 1, "maxLength": KEY_MAX_LENGTH},
    location=OpenApiParameter.HEADER,
    required=False,
    description=(
        "Optional, 1..255 characters, scoped to the user and kept 24 hours. A retry with the "
        "same key and the same body answers the original status and body again (header "
        "`Idempotent-Replayed: true`) and creates nothing; while the first request is in "
        "flight: 409 IDEMPOTENCY_KEY_IN_USE; with another body: 422 IDEMPOTENCY_KEY_REUSED; "
        "an empty or longer key: 400 IDEMPOTENCY_KEY_INVALID. A failed validation is not "
        "stored, so a corrected retry may reuse the key."
    ),
)

# Descriptions for ``lightnote.openapi.error_responses(..., **IDEMPOTENCY_ERRORS)``.
IDEMPOTENCY_ERRORS = {
    "s400": "VALIDATION_ERROR and friends; IDEMPOTENCY_KEY_INVALID (empty or over 255 chars)",
    "s409": "IDEMPOTENCY_KEY_IN_USE: a request with this key is still in flight (Retry-After)",
    "s422": "IDEMPOTENCY_KEY_REUSED: this key was used with another method, path or body",
    "s503": "IDEMPOTENCY_STORE_UNAVAILABLE: only with an Idempotency-Key; nothing was created",
}


class RecordState(StrEnum):
    READY = "ready"  # created, not yet claimed (lives one lease)
    RUNNING = "running"  # one request holds the key (until its lease passes)
    COMPLETED = "completed"  # the response is stored
    RELEASED = "released"  # a 4xx let the key go; deleted right after


CreateResponse = tuple[int, dict[str, Any]]


def key_digest(*, user_id: int | str, key: str) -> str:
    """Return the per-user digest of a key: names the Redis record and fills the row column."""
    return hashlib.sha256(f"{user_id}:{key}".encode()).hexdigest()


def record_key(digest: str) -> str:
    """Return the Redis key of an idempotency record (``ln:idem:{digest}``)."""
    return store.record_key(KEY_PREFIX, digest)


def request_fingerprint(*, method: str, path: str, body: Any) -> str:
    """Return the SHA-256 of method, path and the canonical JSON body."""
    if isinstance(body, QueryDict):
        body = dict(body.lists())
    return hashlib.sha256(
        canonical_json({"method": method.upper(), "path": path, "body": body}).encode("utf-8")
    ).hexdigest()


def retention_ms() -> int:
    """Return how long a completed key is kept (24 h unless a test overrides it)."""
    return settings.LIGHTNOTE_IDEMPOTENCY_TTL * 1000


def _lease_ms() -> int:
    return int(settings.LIGHTNOTE_EXECUTION_LEASE) * 1000


def check_key(value: str | None) -> str | None:
    """Return the header's key (None when absent) or raise 400 ``IDEMPOTENCY_KEY_INVALID``."""
    if value is None:
        return None
    if not value.strip() or len(value) > KEY_MAX_LENGTH:
        raise LightNoteError("IDEMPOTENCY_KEY_INVALID", params={"max_length": KEY_MAX_LENGTH})
    return value


@contextmanager
def _idempotency_store() -> Iterator[None]:
    """Map "the store could not answer" to this feature's 503 (the client sent a key)."""
    try:
        yield
    except store.StoreUnavailable as exc:
        raise LightNoteError("IDEMPOTENCY_STORE_UNAVAILABLE", status=503) from exc


# --- the claim ---------------------------------------------------------------------------


class ClaimStatus(StrEnum):
    HELD = "held"  # this request holds the key: create (or answer from the row)
    REPLAY = "replay"  # completed earlier: answer the stored response
    IN_USE = "in_use"  # another request holds it and its lease is live
    MISMATCH = "mismatch"  # the key was used with another fingerprint


@dataclass(frozen=True)
class Claim:
    status: ClaimStatus
    attempt: str
    fields: Mapping[str, str] | None = None


def _fingerprint_of(fields: Mapping[str, str]) -> str | None:
    try:
        return str(store.read_record(fields, required=("fingerprint",))["fingerprint"])
    except (ValueError, TypeError):
        return None


def claim(key: str, *, fingerprint: str, path: str) -> Claim:
    """Claim the record at ``key`` for this request, atomically; one holder at a time.

    The record is created ``ready`` (bound to ``fingerprint``, living one lease) unless it
    exists, then moved ``ready -> running`` with a fresh attempt id and a lease by one
    compare-and-set: of any number of concurrent claimers exactly one wins; the others see
    ``running`` (409) or ``completed`` (replay). A ``running`` record whose lease has passed
    is taken over by the same compare-and-set (``takeover_expired_lease``): its holder died
    or stalled, and the new holder resolves the outcome from the database before creating.
    Any fingerprint other than the record's is a MISMATCH, in every state.
    """
    attempt = uuid.uuid4().hex
    record_json = canonical_json({"fingerprint": fingerprint, "path": path})
    fields: Mapping[str, str] | None = None
    for _ in range(_CLAIM_ROUNDS):
        if fields is None:  # first round, or the record vanished (expired or released)
            fields = store.record_create(
                key, state=RecordState.READY, record_json=record_json, ttl_ms=_lease_ms()
            ).fields
        stored = _fingerprint_of(fields)
        if stored is None or not digests_equal(stored, fingerprint):
            return Claim(ClaimStatus.MISMATCH, attempt)
        state = fields.get("state")
        now = store.now_ms()
        if state == RecordState.COMPLETED:
            return Claim(ClaimStatus.REPLAY, attempt, fields)
        if state == RecordState.READY:
            result = store.record_transition(
                key,
                from_states=(RecordState.READY,),
                to_state=RecordState.RUNNING,
                attempt=attempt,
                lease_ms=_lease_ms(),
                ttl_ms=retention_ms(),
                now_ms=now,
            )
        elif state == RecordState.RUNNING and 0 < int(fields.get("lease_until") or 0) <= now:
            result = store.record_transition(
                key,
                from_states=(RecordState.RUNNING,),
                to_state=RecordState.RUNNING,
                attempt=attempt,
                lease_ms=_lease_ms(),
                ttl_ms=retention_ms(),
                takeover_expired_lease=True,
                now_ms=now,
            )
            if result.status is store.TransitionStatus.TRANSITIONED:
                logger.warning("idempotency record %s taken over after its lease", key)
        else:  # running under a live lease, or released a moment ago
            return Claim(ClaimStatus.IN_USE, attempt, fields)
        if result.applied:
            return Claim(ClaimStatus.HELD, attempt, result.fields)
        fields = result.fields
    return Claim(ClaimStatus.IN_USE, attempt, fields)


def _outcome_json(status: int, body: Mapping[str, Any]) -> str:
    # Key order is kept (no sort_keys): the replay must render the very same bytes.
    return json.dumps(
        {"status": status, "body": body},
        cls=JSONEncoder,
        ensure_ascii=False,
        separators=(",", ":"),
        allow_nan=False,
    )


def complete(key: str, *, attempt: str, status: int, body: Mapping[str, Any]) -> bool:
    """Store the response of the holder ``attempt``: running -> completed, kept 24 h.

    Compare-and-set on the attempt: False when another request took the key over (its
    answer, built from the same row, then stands). Runs after the row's COMMIT, never
    inside a transaction.
    """
    result = store.record_transition(
        key,
        from_states=(RecordState.RUNNING,),
        to_state=RecordState.COMPLETED,
        attempt=attempt,
        require_attempt=True,
        lease_ms=0,
        ttl_ms=retention_ms(),
        outcome=_outcome_json(status, body),
        outcome_kind="response",
        now_ms=store.now_ms(),
    )
    return result.applied


def release(key: str, *, attempt: str) -> bool:
    """Let the key go after a 4xx (nothing was written), so a corrected retry may reuse it.

    First a compare-and-set on the attempt (running -> released), then a delete: once this
    attempt moved it to ``released`` nobody else changes or deletes that record, so the
    delete removes exactly ours, never a record another request claimed after a takeover.
    The released record lives one lease at most, should this process die before the delete.
    """
    result = store.record_transition(
        key,
        from_states=(RecordState.RUNNING,),
        to_state=RecordState.RELEASED,
        attempt=attempt,
        require_attempt=True,
        lease_ms=0,
        ttl_ms=_lease_ms(),
        now_ms=store.now_ms(),
    )
    if result.status is store.TransitionStatus.TRANSITIONED:
        store.record_delete(key)
        return True
    return False


# --- the HTTP wrapper --------------------------------------------------------------------


def _is_client_error(exc: Exception) -> bool:
    if isinstance(exc, LightNoteError):
        return exc.status < 500
    return isinstance(exc, APIException) and exc.status_code < 500


def _find_row(model: type[models.Model], *, owner: Any, digest: str) -> Any:
    return model._default_manager.filter(owner=owner, idempotency_key=digest).first()


def _row_expired(row: Any) -> bool:
    return bool(row.created_at <= timezone.now() - timedelta(milliseconds=retention_ms()))


def _forget_expired_key(model: type[models.Model], *, row: Any, digest: str) -> None:
    """Clear the key of a row created more than 24 h ago, so the key may create anew.

    A conditional UPDATE of the control column only (no version bump: the todo or note
    itself does not change). Runs in the create's transaction, so a failed create keeps it.
    """
    model._default_manager.filter(pk=row.pk, idempotency_key=digest).update(idempotency_key=None)


def _create_once(
    *,
    model: type[models.Model],
    owner: Any,
    digest: str,
    create: Callable[[str | None], CreateResponse],
    existing: Callable[[Any], CreateResponse],
) -> tuple[int, dict[str, Any], bool]:
    """Create under a held claim, or answer from the row this key already created.

    Returns (status, body, replayed). Races: the row lookup covers a lost Redis record and
    a holder that died after COMMIT; the ``IntegrityError`` branch covers a slow holder that
    commits between our lookup and our INSERT (after a takeover): the unique (owner,
    idempotency_key) pair refuses the twin and we answer from the winner's row.
    """
    row = _find_row(model, owner=owner, digest=digest)
    if row is not None and not _row_expired(row):
        return (*existing(row), True)
    try:
        if row is None:
            status, body = create(digest)
        else:
            with transaction.atomic():
                _forget_expired_key(model, row=row, digest=digest)
                status, body = create(digest)
    except IntegrityError:
        row = _find_row(model, owner=owner, digest=digest)
        if row is None:
            raise  # another constraint failed: not ours to explain
        logger.info("idempotency key %s: create lost to a concurrent holder", digest[:12])
        return (*existing(row), True)
    return status, body, False


def _replay(fields: Mapping[str, str]) -> Response:
    try:
        stored = json.loads(fields["outcome"])
        status, body = int(stored["status"]), stored["body"]
    except (ValueError, TypeError, KeyError):
        logger.error("idempotency record has an unreadable outcome")
        raise LightNoteError("IDEMPOTENCY_STORE_UNAVAILABLE", status=503) from None
    return Response(body, status=status, headers={REPLAYED_HEADER: "true"})


def idempotent_create(
    request: Request,
    *,
    model: type[models.Model],
    create: Callable[[str | None], CreateResponse],
    existing: Callable[[Any], CreateResponse],
) -> Response:
    """Answer a create POST, honouring its ``Idempotency-Key`` header.

    ``create(key_digest)`` validates the request and creates the row carrying
    ``key_digest`` in its ``idempotency_key`` column (None without a header), returning
    (status, body); ``existing(row)`` renders an already created row as (201, body).
    ``model`` has ``owner``, ``idempotency_key`` and ``created_at``.

    Without the header: ``create(None)`` and nothing else (Redis is not touched). With it:
    400 for a bad key, then the fingerprint (400 for a body that is not JSON), the claim
    (409 / 422 / replay; 503 when the store cannot answer), the create and the completion.
    A 4xx from ``create`` releases the claim and is not stored. Any other failure leaves the
    claim running: the outcome may be a committed row, so a retry waits for the lease and
    the next holder answers from that row rather than creating again. The completion runs
    after COMMIT; if it cannot be stored the client still gets its 201 and a retry after the
    lease is answered from the row.
    """
    key = check_key(request.headers.get(HEADER))
    if key is None:
        status, body = create(None)
        return Response(body, status=status)
    fingerprint = request_fingerprint(
        method=str(request.method), path=request.path, body=request.data
    )
    digest = key_digest(user_id=str(request.user.pk), key=key)
    redis_key = record_key(digest)
    with _idempotency_store():
        held = claim(redis_key, fingerprint=fingerprint, path=request.path)
    if held.status is ClaimStatus.MISMATCH:
        raise LightNoteError("IDEMPOTENCY_KEY_REUSED", status=422)
    if held.status is ClaimStatus.IN_USE:
        raise LightNoteError("IDEMPOTENCY_KEY_IN_USE", status=409, headers={"Retry-After": "1"})
    if held.status is ClaimStatus.REPLAY:
        return _replay(held.fields or {})
    try:
        status, body, replayed = _create_once(
            model=model, owner=request.user, digest=digest, create=create, existing=existing
        )
    except Exception as exc:
        if _is_client_error(exc):
            try:
                with _idempotency_store():
                    release(redis_key, attempt=held.attempt)
            except LightNoteError:
                # The claim stays running until its lease passes; the 4xx still answers.
                logger.warning("idempotency key %s not released", digest[:12])
        raise
    try:
        with _idempotency_store():
            complete(redis_key, attempt=held.attempt, status=status, body=body)
    except LightNoteError:
        # The row is committed and fenced by its key: answer it. A retry after the lease
        # finds the row and answers from it.
        logger.warning("idempotency key %s: response not stored", digest[:12])
    headers = {REPLAYED_HEADER: "true"} if replayed else None
    return Response(body, status=status, headers=headers)
