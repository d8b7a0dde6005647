"""The claim state machine behind ``Idempotency-Key``, on the control store.

One record per key at ``ln:idem:{sha256(user id ":" key)}`` (:mod:`lightnote.controlstore.store`,
Lua
compare-and-set); the raw key is never stored::

    (absent) --create--> ready --claim--> running --complete--> completed (kept 24 h)
                                           |  ^
                                           |  '--takeover once the lease has passed
                                           '--release (4xx: nothing written)--> deleted

Store failures raise :class:`lightnote.controlstore.store.StoreUnavailable`; the HTTP wrapper
(:mod:`lightnote.rest.idempotency`) maps them to its 503. See ``docs/idempotency.md``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from django.conf import settings
from django.http import QueryDict
from rest_framework.utils.encoders import JSONEncoder

from lightnote.controlstore import store
from lightnote.controlstore.binding import canonical_json, digests_equal

logger = logging.getLogger(__name__)

KEY_PREFIX = "ln:idem:"
_CLAIM_ROUNDS = 4  # each round follows one observed state change; more means heavy churn


class RecordState(StrEnum):
    READY = "ready"  # created, not yet claimed (lives one lease)
    RUNNING = "running"  # one request holds the key (until its lease passes)
    COMPLETED = "completed"  # the response is stored
    RELEASED = "released"  # a 4xx let the key go; deleted right after


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
