"""Confirmation cards: the card, its issue and its reads.

A card is one record in the control store (see :mod:`lightnote.controlstore.store`) at
``ln:card:{sha256(token)}``. Its ``record`` is the immutable JSON written at issue: the
prepared args, preview and every binding (owner hash, session, subject, actor, admin
context, request id), sealed by ``args_hmac``, an HMAC over all the other record fields.

A card is issued ready and lives ``LIGHTNOTE_CONFIRMATION_TTL``; its moves through the state
machine (claim, settle, release, resolve, reject, void, destroy) are
:mod:`agent.cards.transitions`.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from django.conf import settings

from agent.capabilities import RISKS
from agent.control import (
    SealedCreate,
    card_key,
    confirmation_store,
    live_record_read,
    sealed_record_prepare,
    token_new,
)
from lightnote.controlstore import scripts as store_scripts
from lightnote.controlstore import store
from lightnote.controlstore.binding import canonical_json, digests_equal, owner_hash, seal_intact
from lightnote.errors import LightNoteError
from lightnote.texts.i18n import define_messages

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
    # The store's own clock (ms since the epoch) when this copy was read; 0 when not known.
    # A claim's deadline is counted from it (``card_transitions.claim_deadline_ms``).
    read_at_ms: int = field(default=0, compare=False)

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


def card_from_fields(digest: str, fields: Mapping[str, str]) -> Card:
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
    trip with other records (``agent.cards.issue``)."""

    token: str = field(repr=False)
    digest: str
    sealed: SealedCreate

    def issued(self, reply: Any) -> IssuedCard:
        """Return the :class:`IssuedCard` once the record's script answered ``reply``."""
        return IssuedCard(
            token=self.token, card=card_from_fields(self.digest, self.sealed.fields(reply))
        )


@confirmation_store()
def card_issue(**fields: Any) -> IssuedCard:
    """Store a new ready card (``fields``: :func:`card_prepare`'s) and return its one-time
    token.

    Raises ``CARD_ARGS_TOO_LARGE`` / ``CARD_PREVIEW_TOO_LARGE`` (400) before any write, and
    ``CONFIRMATION_STORE_UNAVAILABLE`` (503) when the store cannot answer.
    """
    prepared = card_prepare(**fields)
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
    read = live_record_read(card_key(digest), voided=CardState.VOIDED)
    if read is None or read.fields is None:
        return None
    return replace(card_from_fields(digest, read.fields), read_at_ms=read.server_ms)


def card_binding_valid(card: Card) -> bool:
    """Return True when the stored record still matches its HMAC (nothing was altered)."""
    return card.intact and seal_intact(card.record, field="args_hmac")


def card_owned_by(card: Card, user_id: int | str) -> bool:
    """Return True when ``user_id`` issued the card (constant-time comparison)."""
    return card.intact and digests_equal(owner_hash(user_id), card.owner_hash)


def card_in_session(card: Card, session_id: uuid.UUID | str) -> bool:
    """Return True when the card was issued in ``session_id``."""
    return card.intact and digests_equal(str(session_id), card.session_id)
