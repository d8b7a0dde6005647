"""Continuations: the record behind one final reply after a confirmed action.

A continuation is one record in the control store (see :mod:`lightnote.controlstore.store`) at
``ln:cont:{sha256(token)}``, with its own token, kept apart from the card it follows::

    pending --activate (a succeeded receipt of THIS action)--> ready
    ready --claim--> running --settle(reply)--> settled
                        '--release (generation failed)--> ready
    running whose generation lease (60 s) passed --claim by another attempt--> running

Nothing here can write user data: the worst a continuation can do is produce a reply.
Pending, ready and running records expire 1 hour after issue; a settled reply is kept
``LIGHTNOTE_SETTLED_TTL``.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from django.conf import settings

from agent.control import (
    SealedCreate,
    confirmation_store,
    continuation_key,
    sealed_record_prepare,
    token_new,
)
from agent.models import ActionReceipt
from lightnote.controlstore import scripts as store_scripts
from lightnote.controlstore import store
from lightnote.controlstore.binding import canonical_json, digests_equal, owner_hash, seal_intact
from lightnote.errors import LightNoteError
from lightnote.texts.i18n import define_messages

logger = logging.getLogger(__name__)

define_messages(
    {
        "CONTINUATION_SNAPSHOT_TOO_LARGE": (
            "续答上下文过大（上限 {limit_kb} KB）。",
            "The continuation's context is too large (limit {limit_kb} KB).",
        ),
    }
)

CONTINUATION_TTL_SECONDS = 3600
GENERATION_LEASE_SECONDS = 60
MAX_SNAPSHOT_BYTES = 64 * 1024
_RECORD_KIND = "continuation"  # inside the HMAC payload: a card record never verifies here
_POLICY = "final_reply"
_RECORD_FIELDS = ("kind", "action_id", "owner_hash", "session_id", "snapshot", "binding_hmac")


class ContinuationState(StrEnum):
    PENDING = "pending"
    READY = "ready"
    RUNNING = "running"
    SETTLED = "settled"


class ContinuationClaimStatus(StrEnum):
    CLAIMED = "claimed"  # this attempt may generate the reply
    RUNNING = "running"  # another attempt is generating it (lease not yet passed)
    SETTLED = "settled"  # the reply exists: read it with continuation_get
    PENDING = "pending"  # the action has no succeeded receipt yet
    GONE = "gone"  # unknown or expired


@dataclass(frozen=True)
class Continuation:
    """A continuation as stored; ``intact`` is False when its record cannot be read."""

    digest: str
    state: str
    action_id: str
    owner_hash: str
    session_id: str
    snapshot: dict[str, Any]
    policy: str
    created_at: datetime | None
    expires_at: datetime | None
    binding_hmac: str
    attempt: str | None
    lease_until: datetime | None
    reply: str | None
    settled_at: datetime | None
    intact: bool = True
    record: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def takeover_allowed(self) -> bool:
        """Return True when a running generation's lease has passed (it may be taken over)."""
        if self.state != ContinuationState.RUNNING or self.lease_until is None:
            return False
        return store.now_datetime() >= self.lease_until


@dataclass(frozen=True)
class ContinuationClaimResult:
    status: ContinuationClaimStatus
    continuation: Continuation | None  # the record after the claim; None when gone


def _continuation_from_fields(digest: str, fields: Mapping[str, str]) -> Continuation:
    intact = True
    try:
        record = store.read_record(fields, required=_RECORD_FIELDS)
        if not isinstance(record["snapshot"], dict):
            raise ValueError("snapshot is not an object")
        created_at = datetime.fromisoformat(record["created_at"])
        expires_at = datetime.fromisoformat(record["expires_at"])
    except (ValueError, TypeError, KeyError):
        logger.warning("continuation %s has an unreadable record", digest[:12])
        record, created_at, expires_at, intact = {}, None, None, False
    reply: str | None = None
    if fields.get("outcome"):
        try:
            reply = str(json.loads(fields["outcome"])["reply"])
        except (ValueError, TypeError, KeyError):
            intact = False
    return Continuation(
        digest=digest,
        state=fields.get("state", ""),
        action_id=str(record.get("action_id", "")),
        owner_hash=str(record.get("owner_hash", "")),
        session_id=str(record.get("session_id", "")),
        snapshot=record.get("snapshot", {}) if intact else {},
        policy=str(record.get("policy", "")),
        created_at=created_at,
        expires_at=expires_at,
        binding_hmac=str(record.get("binding_hmac", "")),
        attempt=fields.get("attempt") or None,
        lease_until=store.ms_to_datetime(fields.get("lease_until")),
        reply=reply,
        settled_at=store.ms_to_datetime(fields.get("settled_at")),
        intact=intact,
        record=record,
    )


def _key(token: str) -> tuple[str, str]:
    digest = store.token_digest(token)
    return digest, continuation_key(digest)


@dataclass(frozen=True)
class ContinuationIssue:
    """A checked, sealed pending continuation not stored yet (:func:`continuation_prepare`):
    its token and the record's script (``sealed``), to send alone
    (:func:`continuation_issue`) or in one round trip with its card (``agent.cards.issue``)."""

    token: str = field(repr=False)
    digest: str
    sealed: SealedCreate

    def issued(self, reply: Any) -> Continuation:
        """Return the stored continuation once the record's script answered ``reply``."""
        return _continuation_from_fields(self.digest, self.sealed.fields(reply))


def continuation_prepare(
    *,
    action_id: uuid.UUID | str,
    owner_id: int | str,
    session_id: uuid.UUID | str,
    snapshot: Mapping[str, Any],
) -> ContinuationIssue:
    """Check and seal a pending continuation for the action ``action_id``, with a new
    token; nothing is stored yet (:meth:`ContinuationIssue.issued` reads the reply).

    ``snapshot`` is what the final reply may read (question, locale, read-only facts); it
    must be JSON-safe and at most 64 KB (``CONTINUATION_SNAPSHOT_TOO_LARGE`` otherwise).
    """
    if len(canonical_json(dict(snapshot)).encode("utf-8")) > MAX_SNAPSHOT_BYTES:
        raise LightNoteError(
            "CONTINUATION_SNAPSHOT_TOO_LARGE", params={"limit_kb": MAX_SNAPSHOT_BYTES // 1024}
        )
    token, digest = token_new()
    created_at = store.now_datetime()
    record: dict[str, Any] = {
        "kind": _RECORD_KIND,
        "policy": _POLICY,
        "action_id": str(action_id),
        "owner_hash": owner_hash(owner_id),
        "session_id": str(session_id),
        "snapshot": dict(snapshot),
        "created_at": created_at.isoformat(),
        "expires_at": (created_at + timedelta(seconds=CONTINUATION_TTL_SECONDS)).isoformat(),
    }
    sealed = sealed_record_prepare(
        continuation_key(digest),
        state=ContinuationState.PENDING,
        record=record,
        seal_field="binding_hmac",
        ttl_seconds=CONTINUATION_TTL_SECONDS,
        kind="continuation",
    )
    return ContinuationIssue(token=token, digest=digest, sealed=sealed)


@confirmation_store()
def continuation_issue(
    *,
    action_id: uuid.UUID | str,
    owner_id: int | str,
    session_id: uuid.UUID | str,
    snapshot: Mapping[str, Any],
) -> tuple[str, Continuation]:
    """Store a pending continuation for the action ``action_id``; return (token, it).

    ``snapshot`` is what the final reply may read (question, locale, read-only facts); it
    must be JSON-safe and at most 64 KB (``CONTINUATION_SNAPSHOT_TOO_LARGE`` otherwise,
    before any write).
    """
    prepared = continuation_prepare(
        action_id=action_id, owner_id=owner_id, session_id=session_id, snapshot=snapshot
    )
    (reply,) = store_scripts.scripts_run([prepared.sealed.create.call])
    return prepared.token, prepared.issued(reply)


@confirmation_store()
def continuation_get(token: str) -> Continuation | None:
    """Return the continuation named by ``token``, or None when unknown or expired."""
    digest, key = _key(token)
    fields = store.record_get(key)
    return None if fields is None else _continuation_from_fields(digest, fields)


def continuation_binding_valid(continuation: Continuation) -> bool:
    """Return True when the stored record still matches its HMAC."""
    return continuation.intact and seal_intact(continuation.record, field="binding_hmac")


def continuation_owned_by(
    continuation: Continuation, user_id: int | str, session_id: uuid.UUID | str | None = None
) -> bool:
    """Return True when the continuation belongs to this user (and this session, if given)."""
    if not continuation.intact or not digests_equal(owner_hash(user_id), continuation.owner_hash):
        return False
    return session_id is None or digests_equal(str(session_id), continuation.session_id)


@confirmation_store()
def continuation_activate(
    token: str, *, receipt_action_id: uuid.UUID | str, receipt_status: str
) -> str | None:
    """Let the reply be generated: pending -> ready, ONLY for a succeeded receipt of this action.

    Returns the state after the call (``pending`` when refused: a failed receipt, another
    action's receipt, or an altered record) or None when the continuation is unknown or
    expired. Activating a continuation that is already past pending changes nothing.
    """
    continuation = continuation_get(token)
    if continuation is None:
        return None
    if continuation.state != ContinuationState.PENDING:
        return continuation.state
    if (
        receipt_status != ActionReceipt.Status.SUCCEEDED
        or not continuation_binding_valid(continuation)
        or not digests_equal(str(receipt_action_id), continuation.action_id)
    ):
        return ContinuationState.PENDING
    # The record (and so its action id) is immutable: checking it before this
    # compare-and-set on the state is race-free.
    result = store.record_transition(
        continuation_key(continuation.digest),
        from_states=(ContinuationState.PENDING,),
        to_state=ContinuationState.READY,
        now_ms=store.now_ms(),
    )
    return result.state


@confirmation_store()
def continuation_claim(token: str, *, attempt_id: str) -> ContinuationClaimResult:
    """Claim reply generation for ``attempt_id``: ready -> running, one winner.

    A running generation whose 60 s lease has passed is abandoned and may be taken over; the
    abandoned attempt can then neither settle nor release. A re-sent claim by the same
    attempt answers CLAIMED again. The key keeps its 1-hour TTL.
    """
    digest, key = _key(token)
    result = store.record_transition(
        key,
        from_states=(ContinuationState.READY, ContinuationState.RUNNING),
        to_state=ContinuationState.RUNNING,
        attempt=attempt_id,
        lease_ms=GENERATION_LEASE_SECONDS * 1000,
        takeover_expired_lease=True,
        now_ms=store.now_ms(),
    )
    if result.fields is None:
        return ContinuationClaimResult(status=ContinuationClaimStatus.GONE, continuation=None)
    continuation = _continuation_from_fields(digest, result.fields)
    if result.applied:
        return ContinuationClaimResult(ContinuationClaimStatus.CLAIMED, continuation)
    refusals: dict[str, ContinuationClaimStatus] = {
        ContinuationState.RUNNING: ContinuationClaimStatus.RUNNING,
        ContinuationState.SETTLED: ContinuationClaimStatus.SETTLED,
        ContinuationState.PENDING: ContinuationClaimStatus.PENDING,
    }
    status = refusals.get(result.state or "", ContinuationClaimStatus.GONE)
    return ContinuationClaimResult(status, continuation)


@confirmation_store()
def continuation_release(token: str, *, attempt_id: str) -> bool:
    """Give up a failed generation: running -> ready, only by the attempt that holds it."""
    _, key = _key(token)
    result = store.record_transition(
        key,
        from_states=(ContinuationState.RUNNING,),
        to_state=ContinuationState.READY,
        attempt=attempt_id,
        require_attempt=True,
        lease_ms=0,
        now_ms=store.now_ms(),
    )
    return result.applied


@confirmation_store()
def continuation_settle(token: str, *, attempt_id: str, reply: str) -> bool:
    """Store the generated ``reply``: running -> settled, only by the attempt holding it.

    False when the attempt lost the continuation (taken over, or settled by another); the
    stored reply then stands and ``continuation_get`` returns it. A repeat by the same
    attempt with the same reply answers True. The reply is kept ``LIGHTNOTE_SETTLED_TTL``.
    """
    _, key = _key(token)
    result = store.record_transition(
        key,
        from_states=(ContinuationState.RUNNING,),
        to_state=ContinuationState.SETTLED,
        attempt=attempt_id,
        require_attempt=True,
        outcome=canonical_json({"reply": reply}),
        outcome_kind="succeeded",
        ttl_ms=settings.LIGHTNOTE_SETTLED_TTL * 1000,
        now_ms=store.now_ms(),
    )
    return result.applied
