"""``Idempotency-Key`` for the direct REST API's creates (``POST /api/v1/todos/``, ``/notes/``).

IETF draft semantics, scoped per user: a key of 1..255 characters names one create; the same
key with the same payload after completion answers the stored status and body again
(``Idempotent-Replayed: true``); while the first request is in flight 409
``IDEMPOTENCY_KEY_IN_USE``; with another payload 422 ``IDEMPOTENCY_KEY_REUSED``; an empty or
longer key 400 ``IDEMPOTENCY_KEY_INVALID``. Requests without the header never touch Redis.

This module is the HTTP side (header, texts, OpenAPI, the DRF wrapper); the claim state
machine on the control store is :mod:`lightnote.controlstore.idempotency_claims`.

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

import json
import logging
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response

from lightnote.controlstore import idempotency_claims as claims
from lightnote.controlstore import store
from lightnote.errors import LightNoteError
from lightnote.texts.i18n import define_messages

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

# Descriptions for ``lightnote.rest.openapi.error_responses(..., **IDEMPOTENCY_ERRORS)``.
IDEMPOTENCY_ERRORS = {
    "s400": "VALIDATION_ERROR and friends; IDEMPOTENCY_KEY_INVALID (empty or over 255 chars)",
    "s409": "IDEMPOTENCY_KEY_IN_USE: a request with this key is still in flight (Retry-After)",
    "s422": "IDEMPOTENCY_KEY_REUSED: this key was used with another method, path or body",
    "s503": "IDEMPOTENCY_STORE_UNAVAILABLE: only with an Idempotency-Key; nothing was created",
}


CreateResponse = tuple[int, dict[str, Any]]


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


# --- the HTTP wrapper --------------------------------------------------------------------


def _is_client_error(exc: Exception) -> bool:
    if isinstance(exc, LightNoteError):
        return exc.status < 500
    return isinstance(exc, APIException) and exc.status_code < 500


def _find_row(find: Callable[[str], Any], *, digest: str) -> Any:
    return find(digest)


def _row_expired(row: Any) -> bool:
    return bool(row.created_at <= timezone.now() - timedelta(milliseconds=claims.retention_ms()))


def _create_once(
    *,
    digest: str,
    create: Callable[[str | None], CreateResponse],
    existing: Callable[[Any], CreateResponse],
    find: Callable[[str], Any],
    forget: Callable[[Any, str], object],
) -> tuple[int, dict[str, Any], bool]:
    """Create under a held claim, or answer from the row this key already created.

    Returns (status, body, replayed). Races: the row lookup covers a lost Redis record and
    a holder that died after COMMIT; the ``IntegrityError`` branch covers a slow holder that
    commits between our lookup and our INSERT (after a takeover): the unique (owner,
    idempotency_key) pair refuses the twin and we answer from the winner's row.
    """
    row = _find_row(find, digest=digest)
    if row is not None and not _row_expired(row):
        return (*existing(row), True)
    try:
        if row is None:
            status, body = create(digest)
        else:
            with transaction.atomic():  # a failed create keeps the old row's key
                forget(row, digest)
                status, body = create(digest)
    except IntegrityError:
        row = _find_row(find, digest=digest)
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
    create: Callable[[str | None], CreateResponse],
    existing: Callable[[Any], CreateResponse],
    find: Callable[[str], Any],
    forget: Callable[[Any, str], object],
) -> Response:
    """Answer a create POST, honouring its ``Idempotency-Key`` header.

    ``create(key_digest)`` validates the request and creates the row carrying
    ``key_digest`` in its ``idempotency_key`` column (None without a header), returning
    (status, body); ``existing(row)`` renders an already created row as (201, body).
    ``find(key_digest)`` returns the requester's row created with that key (or None), through
    the app's selector; ``forget(row, key_digest)`` releases the key of a row older than the
    retention, through the app's service, so the key may create anew. Rows have
    ``created_at``.

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
    fingerprint = claims.request_fingerprint(
        method=str(request.method), path=request.path, body=request.data
    )
    digest = claims.key_digest(user_id=str(request.user.pk), key=key)
    redis_key = claims.record_key(digest)
    with _idempotency_store():
        held = claims.claim(redis_key, fingerprint=fingerprint, path=request.path)
    if held.status is claims.ClaimStatus.MISMATCH:
        raise LightNoteError("IDEMPOTENCY_KEY_REUSED", status=422)
    if held.status is claims.ClaimStatus.IN_USE:
        raise LightNoteError("IDEMPOTENCY_KEY_IN_USE", status=409, headers={"Retry-After": "1"})
    if held.status is claims.ClaimStatus.REPLAY:
        return _replay(held.fields or {})
    try:
        status, body, replayed = _create_once(
            digest=digest, create=create, existing=existing, find=find, forget=forget
        )
    except Exception as exc:
        if _is_client_error(exc):
            try:
                with _idempotency_store():
                    claims.release(redis_key, attempt=held.attempt)
            except LightNoteError:
                # The claim stays running until its lease passes; the 4xx still answers.
                logger.warning("idempotency key %s not released", digest[:12])
        raise
    try:
        with _idempotency_store():
            claims.complete(redis_key, attempt=held.attempt, status=status, body=body)
    except LightNoteError:
        # The row is committed and fenced by its key: answer it. A retry after the lease
        # finds the row and answers from it.
        logger.warning("idempotency key %s: response not stored", digest[:12])
    headers = {REPLAYED_HEADER: "true"} if replayed else None
    return Response(body, status=status, headers=headers)
