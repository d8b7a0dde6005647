"""Confirmation cards: issue, read, claim, settle, resolve, reject, destroy.

A card is one record in the control store (see :mod:`lightnote.store`) at
``ln:card:{sha256(token)}``. Its ``record`` is the immutable JSON written at issue: the
prepared args, preview and every binding (owner hash, session, subject, actor, admin
context, request id), sealed by ``args_hmac``, an HMAC over all the other record fields.

State machine::

    ready --claim--> running --settle--> settled{succeeded|failed|unknown}
      |                 |                    unknown --resolve--> succeeded | failed
      |                 '--resolve (lease passed)--> settled{succeeded|failed}
      |--reject--> rejected          (ready also expires: Redis drops the key)
      '--void----> voided            (withdrawn: its session was deleted, or a newer card
                                      supersedes it; answers like an unknown token)

Ready cards live ``LIGHTNOTE_CONFIRMATION_TTL``; claiming extends the key to
``LIGHTNOTE_SETTLED_TTL`` so running, settled and rejected records are kept 24 h.
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

from agent.capabilities import RISKS
from agent.control import (
    SealedCreate,
    card_key,
    confirmation_store,
    live_record_get,
    sealed_record_prepare,
    token_new,
)
from lightnote import store, store_counters, store_scripts
from lightnote.binding import canonical_json, digests_equal, owner_hash, seal_intact
from lightnote.errors import LightNoteError
from lightnote.i18n import define_messages

logger = logging.getLogger(__name__)

define_messages(
    {
        "CARD_ARGS_TOO_LARGE": (
            "操作参数过大（上限 {limit_kb} KB），无法生成确认卡。",
            "The action's arguments are too large for a card (limit {limit_kb} KB).",
        ),
        "CARD_PREVIEW_TOO_LARGE": (
            "确认卡预览过大（上限 {limit_kb} KB）。",
            "The confirmation card's preview is too large (limit {limit_kb} KB).",
        ),
    }
)

MAX_ARGS_BYTES = 64 * 1024
MAX_PREVIEW_BYTES = 64 * 1024
RUNNING_INDEX_KEY = "ln:cards:running"
CHANNEL_CHAT = "chat"
CHANNEL_MCP = "mcp"
CHANNELS = (CHANNEL_CHAT, CHANNEL_MCP)


class CardState(StrEnum):
    READY = "ready"
    RUNNING = "running"
    SETTLED = "settled"
    REJECTED = "rejected"
    VOIDED = "voided"


class OutcomeKind(StrEnum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    UNKNOWN = "unknown"


class ClaimStatus(StrEnum):
    CLAIMED = "claimed"  # this attempt holds the card: execute it
    RUNNING = "running"  # another attempt holds it (see ClaimResult.lease_expired)
    SETTLED = "settled"
    REJECTED = "rejected"
    GONE = "gone"  # unknown or expired
    # Still ready, nothing claimed: the record does not name the owner and session the claim
    # expected (``card_claim(..., owner_id=, session_id=)``), or cannot be read.
    READY = "ready"
    # Still ready, nothing claimed and nothing counted: the claim would have won, but the
    # rate limit it was to count against (``card_claim(..., take=)``) is reached.
    LIMITED = "limited"


class RejectStatus(StrEnum):
    REJECTED = "rejected"  # now rejected (or was already)
    REFUSED = "refused"  # running or settled: see RejectResult.state
    GONE = "gone"


@dataclass(frozen=True)
class Card:
    """A card as stored. ``intact`` is False when its record JSON cannot be read: such a
    card is owned by nobody and never valid (it can only be left to expire or destroyed).
    """

    id: str
    digest: str
    state: str
    tool: str
    capability: str
    risk: str
    args: dict[str, Any]
    preview: dict[str, Any]
    owner_hash: str
    session_id: str
    subject_id: int | str | None
    actor_id: int | str | None
    admin_context_id: str | None
    admin_mode: str | None
    request_id: str
    continuation_digest: str | None
    created_at: datetime | None
    expires_at: datetime | None
    args_hmac: str
    attempt: str | None
    lease_until: datetime | None
    outcome_kind: str | None
    outcome: dict[str, Any] | None
    settled_at: datetime | None
    intact: bool = True
    record: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    # Where the card was proposed: "chat" (the page and the API) or "mcp". Sealed by the
    # HMAC like every record field; records written before the field existed are "chat".
    channel: str = "chat"

    def lease_passed(self, *, now: datetime | None = None) -> bool:
        """Return True when the card carries a lease and it has run out."""
        if self.lease_until is None:
            return False
        return (now or store.now_datetime()) >= self.lease_until


@dataclass(frozen=True)
class IssuedCard:
    """The raw token (returned once, never stored) and the card it names."""

    token: str = field(repr=False)
    card: Card


@dataclass(frozen=True)
class ClaimResult:
    status: ClaimStatus
    card: Card | None
    # For RUNNING: the holder's lease has passed, so the caller should reconcile the card
    # from the receipt table (card_resolve), never execute it again.
    lease_expired: bool = False
    # For LIMITED: the milliseconds until the limit's window ends.
    retry_after_ms: int = 0


@dataclass(frozen=True)
class RejectResult:
    status: RejectStatus
    state: str | None


_RECORD_FIELDS = (
    "id",
    "tool",
    "capability",
    "risk",
    "args",
    "preview",
    "owner_hash",
    "session_id",
    "subject_id",
    "actor_id",
    "admin_context_id",
    "admin_mode",
    "request_id",
    "continuation_digest",
    "created_at",
    "expires_at",
    "args_hmac",
)


def _card_from_fields(digest: str, fields: Mapping[str, str]) -> Card:
    """Build a Card from the hash fields; an unreadable record gives ``intact=False``."""
    try:
        record = store.read_record(fields, required=_RECORD_FIELDS)
        created_at = datetime.fromisoformat(record["created_at"])
        expires_at = datetime.fromisoformat(record["expires_at"])
        intact = isinstance(record["args"], dict) and isinstance(record["preview"], dict)
    except (ValueError, TypeError, KeyError):
        logger.warning("card %s has an unreadable record", digest[:12])
        record, created_at, expires_at, intact = {}, None, None, False
    try:
        outcome = json.loads(fields["outcome"]) if fields.get("outcome") else None
    except ValueError:
        outcome, intact = None, False
    return Card(
        id=str(record.get("id", "")),
        digest=digest,
        state=fields.get("state", ""),
        tool=str(record.get("tool", "")),
        capability=str(record.get("capability", "")),
        risk=str(record.get("risk", "")),
        args=record["args"] if intact else {},
        preview=record["preview"] if intact else {},
        owner_hash=str(record.get("owner_hash", "")),
        session_id=str(record.get("session_id", "")),
        subject_id=record.get("subject_id"),
        actor_id=record.get("actor_id"),
        admin_context_id=record.get("admin_context_id"),
        admin_mode=record.get("admin_mode"),
        request_id=str(record.get("request_id", "")),
        continuation_digest=record.get("continuation_digest"),
        created_at=created_at,
        expires_at=expires_at,
        args_hmac=str(record.get("args_hmac", "")),
        attempt=fields.get("attempt") or None,
        lease_until=store.ms_to_datetime(fields.get("lease_until")),
        outcome_kind=fields.get("outcome_kind") or None,
        outcome=outcome,
        settled_at=store.ms_to_datetime(fields.get("settled_at")),
        intact=intact,
        record=record,
        channel=str(record.get("channel", CHANNEL_CHAT)),
    )


def _json_size(value: Any) -> int:
    return len(canonical_json(value).encode("utf-8"))


@dataclass(frozen=True)
class CardIssue:
    """A checked, sealed card not stored yet (:func:`card_prepare`): its one-time token and
    the record's script (``sealed``), to send alone (:func:`card_issue`) or in one round
    trip with other records (``agent.card_issuing``)."""

    token: str = field(repr=False)
    digest: str
    sealed: SealedCreate

    def issued(self, reply: Any) -> IssuedCard:
        """Return the :class:`IssuedCard` once the record's script answered ``reply``."""
        return IssuedCard(
            token=self.token, card=_card_from_fields(self.digest, self.sealed.fields(reply))
        )


@confirmation_store()
def card_issue(
    *,
    owner_id: int | str,
    session_id: uuid.UUID | str,
    subject_id: int | str,
    actor_id: int | str,
    tool: str,
    capability: str,
    risk: str,
    args: Mapping[str, Any],
    preview: Mapping[str, Any],
    admin_context_id: uuid.UUID | str | None,
    admin_mode: str | None,
    request_id: str,
    continuation_digest: str | None = None,
    card_id: str | None = None,
    channel: str = CHANNEL_CHAT,
) -> IssuedCard:
    """Store a new ready card for the prepared ``args`` and return its one-time token.

    Raises ``CARD_ARGS_TOO_LARGE`` / ``CARD_PREVIEW_TOO_LARGE`` (400) before any write, and
    ``CONFIRMATION_STORE_UNAVAILABLE`` (503) when the store cannot answer.
    """
    prepared = card_prepare(
        owner_id=owner_id,
        session_id=session_id,
        subject_id=subject_id,
        actor_id=actor_id,
        tool=tool,
        capability=capability,
        risk=risk,
        args=args,
        preview=preview,
        admin_context_id=admin_context_id,
        admin_mode=admin_mode,
        request_id=request_id,
        continuation_digest=continuation_digest,
        card_id=card_id,
        channel=channel,
    )
    (reply,) = store_scripts.scripts_run([prepared.sealed.create.call])
    return prepared.issued(reply)


def card_prepare(
    *,
    owner_id: int | str,
    session_id: uuid.UUID | str,
    subject_id: int | str,
    actor_id: int | str,
    tool: str,
    capability: str,
    risk: str,
    args: Mapping[str, Any],
    preview: Mapping[str, Any],
    admin_context_id: uuid.UUID | str | None,
    admin_mode: str | None,
    request_id: str,
    continuation_digest: str | None = None,
    card_id: str | None = None,
    channel: str = CHANNEL_CHAT,
) -> CardIssue:
    """Check and seal a new ready card for the prepared ``args``, with a new one-time token;
    nothing is stored yet (:meth:`CardIssue.issued` reads the store's reply).

    Raises ``CARD_ARGS_TOO_LARGE`` / ``CARD_PREVIEW_TOO_LARGE`` (400).
    """
    if risk not in RISKS:
        raise ValueError(f"risk must be one of {RISKS}, got {risk!r}")
    if channel not in CHANNELS:
        raise ValueError(f"channel must be one of {CHANNELS}, got {channel!r}")
    if _json_size(args) > MAX_ARGS_BYTES:
        raise LightNoteError("CARD_ARGS_TOO_LARGE", params={"limit_kb": MAX_ARGS_BYTES // 1024})
    if _json_size(preview) > MAX_PREVIEW_BYTES:
        raise LightNoteError(
            "CARD_PREVIEW_TOO_LARGE", params={"limit_kb": MAX_PREVIEW_BYTES // 1024}
        )
    token, digest = token_new()
    ttl_seconds = settings.LIGHTNOTE_CONFIRMATION_TTL
    created_at = store.now_datetime()
    expires_at = created_at + timedelta(seconds=ttl_seconds)
    record: dict[str, Any] = {
        "id": card_id or str(uuid.uuid4()),
        "tool": tool,
        "capability": capability,
        "risk": risk,
        "args": dict(args),
        "preview": dict(preview),
        "owner_hash": owner_hash(owner_id),
        "session_id": str(session_id),
        "subject_id": subject_id,
        "actor_id": actor_id,
        "admin_context_id": None if admin_context_id is None else str(admin_context_id),
        "admin_mode": admin_mode,
        "request_id": request_id,
        "continuation_digest": continuation_digest,
        "created_at": created_at.isoformat(),
        "expires_at": expires_at.isoformat(),
    }
    if channel != CHANNEL_CHAT:  # chat records keep their exact former shape
        record["channel"] = channel
    sealed = sealed_record_prepare(
        card_key(digest),
        state=CardState.READY,
        record=record,
        seal_field="args_hmac",
        ttl_seconds=ttl_seconds,
        kind="card",
    )
    return CardIssue(token=token, digest=digest, sealed=sealed)


@confirmation_store()
def card_get(token: str) -> Card | None:
    """Return the card named by ``token``, or None when it is unknown, expired or voided."""
    return card_get_by_digest(store.token_digest(token))


@confirmation_store()
def card_get_by_digest(digest: str) -> Card | None:
    """Return the card whose token has this digest (reconciliation knows only digests)."""
    fields = live_record_get(card_key(digest), voided=CardState.VOIDED)
    return None if fields is None else _card_from_fields(digest, fields)


def card_binding_valid(card: Card) -> bool:
    """Return True when the stored record still matches its HMAC (nothing was altered)."""
    return card.intact and seal_intact(card.record, field="args_hmac")


def card_owned_by(card: Card, user_id: int | str) -> bool:
    """Return True when ``user_id`` issued the card (constant-time comparison)."""
    return card.intact and digests_equal(owner_hash(user_id), card.owner_hash)


def card_in_session(card: Card, session_id: uuid.UUID | str) -> bool:
    """Return True when the card was issued in ``session_id``."""
    return card.intact and digests_equal(str(session_id), card.session_id)


def _index_best_effort(action: str, digest: str, *, score_ms: int = 0) -> None:
    """Update the running-cards index; a failure only delays the reconcile command."""
    try:
        if action == "add":
            store.index_add(RUNNING_INDEX_KEY, digest, score_ms=score_ms)
        else:
            store.index_remove(RUNNING_INDEX_KEY, digest)
    except store.StoreUnavailable:
        logger.warning("running-cards index not updated (%s %s)", action, digest[:12])


@confirmation_store()
def card_claim(
    token: str,
    *,
    attempt_id: str,
    owner_id: int | str | None = None,
    session_id: uuid.UUID | str | None = None,
    take: store_counters.CounterUnit | None = None,
) -> ClaimResult:
    """Claim a ready card for ``attempt_id``: ready -> running, with a lease. One winner.

    Only a CLAIMED result lets the caller execute. The claim is one Lua compare-and-set, so
    of any number of concurrent claims exactly one wins; a claim re-sent with the same
    ``attempt_id`` (e.g. by redis-py after a lost reply) is recognised and answers CLAIMED
    again without a second claimer. The lease is ``LIGHTNOTE_EXECUTION_LEASE``; the key's
    TTL becomes ``LIGHTNOTE_SETTLED_TTL``.

    With ``owner_id`` and ``session_id`` the same script first checks that the record names
    that owner (its owner hash) and that session, so a confirm reads and claims its card in
    one round trip: READY (and nothing claimed) when they do not match. Every result except
    GONE carries the card as stored after the call, for the caller's own checks (the owner
    and session in constant time, the binding) in the API's order.

    With ``take`` (a single Redis whose limiter shares the cards' connection:
    ``store_counters.counter_in_script``) the same script counts one unit of the claims limit, only
    when the claim wins: LIMITED (the card untouched, no index entry, nothing counted, with
    ``retry_after_ms``) when the limit is reached. A repeat, a loser or a refused owner is
    neither counted nor refused.
    """
    digest = store.token_digest(token)
    now = store.now_ms()
    lease_ms = settings.LIGHTNOTE_EXECUTION_LEASE * 1000
    expected: dict[str, str] | None = None
    if owner_id is not None or session_id is not None:
        if owner_id is None or session_id is None:
            raise ValueError("name both the expected owner and the expected session, or neither")
        expected = {"owner_hash": owner_hash(owner_id), "session_id": str(session_id)}
    # The running-cards index entry is added by the claim itself, only when it wins (one
    # round trip on a single Redis; on Cluster the entry follows the won claim as its own
    # command): a loser, a repeat or a refused owner leaves no entry behind.
    result = store.record_transition(
        card_key(digest),
        from_states=(CardState.READY,),
        to_state=CardState.RUNNING,
        attempt=attempt_id,
        lease_ms=lease_ms,
        ttl_ms=settings.LIGHTNOTE_SETTLED_TTL * 1000,
        now_ms=now,
        index=store_scripts.IndexUpdate(RUNNING_INDEX_KEY, digest, score_ms=now + lease_ms),
        expect_record=expected,
        take=take,
    )
    if result.fields is None:
        return ClaimResult(status=ClaimStatus.GONE, card=None)
    card = _card_from_fields(digest, result.fields)
    if result.status is store.TransitionStatus.LIMITED:
        return ClaimResult(
            status=ClaimStatus.LIMITED, card=card, retry_after_ms=result.retry_after_ms
        )
    if result.applied:
        return ClaimResult(status=ClaimStatus.CLAIMED, card=card)
    if card.state == CardState.RUNNING:
        lease_until = int(result.fields.get("lease_until") or 0)
        return ClaimResult(
            status=ClaimStatus.RUNNING, card=card, lease_expired=0 < lease_until <= now
        )
    if card.state == CardState.SETTLED:
        return ClaimResult(status=ClaimStatus.SETTLED, card=card)
    if card.state == CardState.REJECTED:
        return ClaimResult(status=ClaimStatus.REJECTED, card=card)
    if card.state == CardState.VOIDED:
        return ClaimResult(status=ClaimStatus.GONE, card=None)
    if card.state == CardState.READY and expected is not None:
        return ClaimResult(status=ClaimStatus.READY, card=card)
    logger.error("card %s is in an unknown state %r", digest[:12], card.state)
    return ClaimResult(status=ClaimStatus.GONE, card=None)


def _outcome_json(outcome_kind: str, outcome: Mapping[str, Any], allowed: tuple[str, ...]) -> str:
    if outcome_kind not in allowed:
        raise ValueError(f"outcome_kind must be one of {allowed}, got {outcome_kind!r}")
    return canonical_json(dict(outcome))


@confirmation_store()
def card_settle(
    token: str, *, attempt_id: str, outcome_kind: str, outcome: Mapping[str, Any]
) -> bool:
    """Record the outcome of the execution ``attempt_id`` holds: running -> settled.

    Compare-and-set on the attempt: False when another attempt holds the card or it was
    already settled or resolved (the stored outcome then stands). A repeat by the same
    attempt with the same outcome answers True. The settled record is kept
    ``LIGHTNOTE_SETTLED_TTL`` from now.
    """
    digest = store.token_digest(token)
    result = store.record_transition(
        card_key(digest),
        from_states=(CardState.RUNNING,),
        to_state=CardState.SETTLED,
        attempt=attempt_id,
        require_attempt=True,
        outcome=_outcome_json(outcome_kind, outcome, tuple(OutcomeKind)),
        outcome_kind=outcome_kind,
        ttl_ms=settings.LIGHTNOTE_SETTLED_TTL * 1000,
        now_ms=store.now_ms(),
        # Leaves the running-cards index in the same round trip. Should this attempt not
        # hold the card any more, its holder's own settle or reconciliation settles it (and
        # removes the entry).
        index=store_scripts.IndexUpdate(RUNNING_INDEX_KEY, digest),
    )
    return result.applied


@confirmation_store()
def card_release(token: str, *, attempt_id: str, expires_at: datetime | None) -> bool:
    """Give back a claim that executed nothing: running -> ready, for ``attempt_id`` only.

    For a claim that may not proceed after all (the claims rate limit refused it, or its
    store failed): the card is confirmable again until its original ``expires_at``. True
    when this call released it; False when the attempt no longer holds it.
    """
    digest = store.token_digest(token)
    now = store.now_ms()
    left_ms = int(expires_at.timestamp() * 1000) - now if expires_at else 0
    result = store.record_transition(
        card_key(digest),
        from_states=(CardState.RUNNING,),
        to_state=CardState.READY,
        attempt=attempt_id,
        require_attempt=True,
        lease_ms=0,
        ttl_ms=max(1, left_ms),
        now_ms=now,
        index=store_scripts.IndexUpdate(RUNNING_INDEX_KEY, digest),
    )
    return result.status is store.TransitionStatus.TRANSITIONED


def _digest_of(token: str | None, digest: str | None) -> str:
    """Return the card's digest from exactly one of its token or its digest."""
    if token is not None and digest is None:
        return store.token_digest(token)
    if digest is not None and token is None:
        return digest
    raise ValueError("name the card by exactly one of token or digest")


@confirmation_store()
def card_resolve(
    token: str | None = None,
    *,
    digest: str | None = None,
    outcome_kind: str,
    outcome: Mapping[str, Any],
) -> bool:
    """Settle a card whose outcome reconciliation established; never re-executes it.

    Name the card by ``token`` or, from the reconcile command, by ``digest``. Allowed:
    settled-unknown -> succeeded (any time: a receipt exists) or -> failed (only once the
    execution lease has passed), and running -> succeeded|failed once its lease has passed.
    Returns True when this call resolved it; False when it was not in such a state (e.g.
    already resolved: that result stands).
    """
    allowed = (OutcomeKind.SUCCEEDED, OutcomeKind.FAILED)
    outcome_json = _outcome_json(outcome_kind, outcome, tuple(allowed))
    digest = _digest_of(token, digest)
    key = card_key(digest)
    common: dict[str, Any] = {
        "to_state": CardState.SETTLED,
        "outcome": outcome_json,
        "outcome_kind": outcome_kind,
        "ttl_ms": settings.LIGHTNOTE_SETTLED_TTL * 1000,
        "now_ms": store.now_ms(),
    }
    # Two compare-and-sets, each atomic: whichever matches the card's current state applies.
    result = store.record_transition(
        key,
        from_states=(CardState.SETTLED,),
        expect_outcome_kind=OutcomeKind.UNKNOWN,
        takeover_expired_lease=outcome_kind == OutcomeKind.FAILED,
        **common,
    )
    if result.status is store.TransitionStatus.REFUSED and result.state == CardState.RUNNING:
        result = store.record_transition(
            key, from_states=(CardState.RUNNING,), takeover_expired_lease=True, **common
        )
    if result.status is store.TransitionStatus.TRANSITIONED:
        _index_best_effort("remove", digest)
        return True
    return False


@confirmation_store()
def card_reject(token: str) -> RejectResult:
    """Reject a ready card: ready -> rejected, atomically; a repeat answers REJECTED again.

    A running or settled card is refused with its state; the rejected record is kept
    ``LIGHTNOTE_SETTLED_TTL`` so later confirms answer "rejected", not "expired".
    """
    result = store.record_transition(
        card_key(store.token_digest(token)),
        from_states=(CardState.READY,),
        to_state=CardState.REJECTED,
        ttl_ms=settings.LIGHTNOTE_SETTLED_TTL * 1000,
        now_ms=store.now_ms(),
    )
    if result.fields is None or result.state == CardState.VOIDED:
        return RejectResult(status=RejectStatus.GONE, state=None)
    if result.applied or result.state == CardState.REJECTED:
        return RejectResult(status=RejectStatus.REJECTED, state=CardState.REJECTED)
    return RejectResult(status=RejectStatus.REFUSED, state=result.state)


@confirmation_store()
def card_void(digest: str) -> bool:
    """Withdraw a ready card: ready -> voided, atomically; True when this call voided it.

    A voided card answers like an unknown token (410) until its key expires at the card's
    original expiry. A card already claimed, settled or rejected is left as it is (False):
    a claim that won the race stands, and its execution settles it as usual.
    """
    result = store.record_transition(
        card_key(digest),
        from_states=(CardState.READY,),
        to_state=CardState.VOIDED,
        now_ms=store.now_ms(),
    )
    return result.status is store.TransitionStatus.TRANSITIONED


@confirmation_store()
def card_destroy(token: str | None = None, *, digest: str | None = None) -> bool:
    """Delete a card (e.g. one whose binding check failed); True when it existed."""
    digest = _digest_of(token, digest)
    existed = store.record_delete(card_key(digest))
    _index_best_effort("remove", digest)
    return existed


@confirmation_store()
def cards_running_with_expired_lease(*, limit: int = 100) -> list[Card]:
    """Return running cards whose lease has passed, for the reconcile command.

    The index is a hint (updated after each script, and possibly stale); every entry is
    re-read, and entries whose card is gone or no longer running are dropped from it.
    """
    now = store.now_ms()
    cards: list[Card] = []
    for digest in store.index_due(RUNNING_INDEX_KEY, now_ms=now, limit=limit):
        fields = store.record_get(card_key(digest))
        if fields is None or fields.get("state") != CardState.RUNNING:
            store.index_remove(RUNNING_INDEX_KEY, digest)
            continue
        card = _card_from_fields(digest, fields)
        if card.lease_passed(now=store.ms_to_datetime(now)):
            cards.append(card)
    return cards
