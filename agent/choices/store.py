"""Choice cards in the control store: which of several items a proposal meant.

When a proposal's target matches several of the owner's items, the turn offers a *choice*
instead of a card: one record at ``ln:choice:{sha256(token)}`` holding, per candidate, the
args and preview the proposal prepared for that item through the tool policy. Picking one
(``agent.choices.choose.choose``, or a follow-up such as "第二个" through the pending store) issues
the ordinary confirmation card for exactly those prepared args; nothing executes here.

Contract (the same as a card's, see ``agent.cards.records`` and ``agent.cards.transitions``):

- the token is returned once and never stored (only its digest);
- the record is sealed (HMAC over every field, ``kind`` ``choice/v1`` inside it, so no card
  or other record verifies as a choice) and bound to the owner (keyed hash), the session,
  the subject, the actor and the request;
- ``ready --take--> chosen`` is one compare-and-set: one pick per choice, ever; a chosen
  choice answers 410 ``CONFIRMATION_EXPIRED`` to any further pick; ``ready --void-->
  voided`` withdraws it (its session was deleted);
- a ready choice lives ``LIGHTNOTE_CONFIRMATION_TTL`` seconds, like a card.

The database row (``agent.models.Choice``) is what history shows; it is written with the
turn's message and updated when a pick issues its card (:func:`record_chosen`).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from agent.control import confirmation_store, live_record_get, sealed_record_create, token_new
from agent.models import AgentSession, Choice
from lightnote.controlstore import store
from lightnote.controlstore.binding import digests_equal, owner_hash, seal_intact
from lightnote.errors import LightNoteError
from lightnote.texts.i18n import define_messages

logger = logging.getLogger(__name__)

CHOICE_KEY_PREFIX = "ln:choice:"
KIND = "choice/v1"
STATE_READY = "ready"
STATE_CHOSEN = "chosen"
STATE_VOIDED = "voided"
# The states history reports for a choice (``ready`` read as ``expired`` past its expiry).
HISTORY_STATES = ("ready", "expired", "chosen", "voided")
MAX_CANDIDATES = 5
EXCERPT_CHARS = 80
# What a candidate shows (what tells the items apart).
CANDIDATE_FIELDS = ("id", "title", "status", "due_at", "excerpt")

define_messages(
    {
        "CHOICE_CANDIDATE_INVALID": (
            "所选项目不在这张选择卡的候选里。",
            "That item is not one of this choice's candidates.",
        ),
    }
)

_RECORD_FIELDS = (
    "kind",
    "id",
    "tool",
    "capability",
    "risk",
    "candidates",
    "picks",
    "owner_hash",
    "session_id",
    "subject_id",
    "actor_id",
    "request_id",
    "created_at",
    "expires_at",
    "seal",
)


def choice_key(digest: str) -> str:
    """Return the record key of a choice (``ln:choice:{digest}``)."""
    return store.record_key(CHOICE_KEY_PREFIX, digest)


@dataclass(frozen=True)
class StoredChoice:
    """A choice as stored; ``intact`` False: unreadable, owned by nobody, never valid."""

    id: str
    digest: str
    state: str
    tool: str = ""
    capability: str = ""
    risk: str = "low"
    candidates: list[dict[str, Any]] = field(default_factory=list)
    picks: dict[str, dict[str, Any]] = field(default_factory=dict)
    owner_hash: str = ""
    session_id: str = ""
    expires_at: datetime | None = None
    intact: bool = True
    record: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def owned_by(self, user_id: int | str) -> bool:
        return self.intact and digests_equal(owner_hash(user_id), self.owner_hash)

    def in_session(self, session_id: uuid.UUID | str) -> bool:
        return self.intact and digests_equal(str(session_id), self.session_id)

    def binding_valid(self) -> bool:
        """Return True when the record still matches its seal (nothing was altered)."""
        return (
            self.intact
            and self.record.get("kind") == KIND
            and seal_intact(self.record, field="seal")
        )


def _from_fields(digest: str, fields: Mapping[str, str]) -> StoredChoice:
    try:
        record = store.read_record(fields, required=_RECORD_FIELDS)
        expires_at = datetime.fromisoformat(record["expires_at"])
        intact = isinstance(record["picks"], dict) and isinstance(record["candidates"], list)
    except (ValueError, TypeError, KeyError):
        logger.warning("choice %s has an unreadable record", digest[:12])
        return StoredChoice(id="", digest=digest, state=fields.get("state", ""), intact=False)
    return StoredChoice(
        id=str(record["id"]),
        digest=digest,
        state=fields.get("state", ""),
        tool=str(record["tool"]),
        capability=str(record["capability"]),
        risk=str(record["risk"]),
        candidates=list(record["candidates"]) if intact else [],
        picks=dict(record["picks"]) if intact else {},
        owner_hash=str(record["owner_hash"]),
        session_id=str(record["session_id"]),
        expires_at=expires_at,
        intact=intact,
        record=record,
    )


@dataclass(frozen=True)
class IssuedChoice:
    token: str = field(repr=False)
    choice: StoredChoice = field(default=None)  # type: ignore[assignment]


@confirmation_store()
def choice_issue(
    *,
    owner_id: int | str,
    session_id: uuid.UUID | str,
    subject_id: int | str,
    actor_id: int | str,
    tool: str,
    capability: str,
    risk: str,
    candidates: list[dict[str, Any]],
    picks: dict[str, dict[str, Any]],
    request_id: str,
) -> IssuedChoice:
    """Store a ready choice and return its one-time token (503 when the store is down).

    ``picks`` maps each candidate id to ``{"args", "preview"}``: the proposal prepared for
    that item. Every candidate must have a pick.
    """
    if {str(item["id"]) for item in candidates} != set(picks):
        raise ValueError("every candidate needs exactly one pick")
    token, digest = token_new()
    ttl_seconds = settings.LIGHTNOTE_CONFIRMATION_TTL
    created_at = store.now_datetime()
    expires_at = created_at + timedelta(seconds=ttl_seconds)
    record: dict[str, Any] = {
        "kind": KIND,
        "id": str(uuid.uuid4()),
        "tool": tool,
        "capability": capability,
        "risk": risk,
        "candidates": candidates,
        "picks": picks,
        "owner_hash": owner_hash(owner_id),
        "session_id": str(session_id),
        "subject_id": subject_id,
        "actor_id": actor_id,
        "request_id": request_id,
        "created_at": created_at.isoformat(),
        "expires_at": expires_at.isoformat(),
    }
    fields = sealed_record_create(
        choice_key(digest),
        state=STATE_READY,
        record=record,
        seal_field="seal",
        ttl_seconds=ttl_seconds,
        kind="choice",
    )
    return IssuedChoice(token=token, choice=_from_fields(digest, fields))


@confirmation_store()
def choice_get(token: str) -> StoredChoice | None:
    """Return the choice named by ``token`` (ready or chosen); None: unknown, expired, voided."""
    return choice_get_by_digest(store.token_digest(token))


@confirmation_store()
def choice_get_by_digest(digest: str) -> StoredChoice | None:
    fields = live_record_get(choice_key(digest), voided=STATE_VOIDED)
    return None if fields is None else _from_fields(digest, fields)


@confirmation_store()
def choice_take(digest: str) -> bool:
    """Use the choice: ready -> chosen, atomically; True only for the one call that did."""
    result = store.record_transition(
        choice_key(digest),
        from_states=(STATE_READY,),
        to_state=STATE_CHOSEN,
        now_ms=store.now_ms(),
    )
    return result.status is store.TransitionStatus.TRANSITIONED


@confirmation_store()
def choice_void(digest: str) -> bool:
    """Withdraw a ready choice (ready -> voided); True when this call voided it."""
    result = store.record_transition(
        choice_key(digest),
        from_states=(STATE_READY,),
        to_state=STATE_VOIDED,
        now_ms=store.now_ms(),
    )
    return result.status is store.TransitionStatus.TRANSITIONED


def choice_destroy(digest: str) -> None:
    """Delete a choice record (one whose binding check failed)."""
    store.record_delete(choice_key(digest))


# --- what a candidate shows --------------------------------------------------------------


def _excerpt(value: Any) -> str:
    text = " ".join(str(value or "").split())
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"


def candidate_view(item: Mapping[str, Any], prepared: Mapping[str, Any]) -> dict[str, Any]:
    """Return a candidate as a choice shows it: ``{"id","title","status","due_at","excerpt"}``.

    ``item`` is what the lookup found (a todo's description, a note's content excerpt);
    ``prepared`` is the args the proposal prepared for it (its ``current`` snapshot fills
    what the lookup lacked). ``status`` and ``due_at`` are None for a note.
    """
    current = prepared.get("current") if isinstance(prepared.get("current"), Mapping) else {}
    current = current or {}
    excerpt = (
        item.get("description")
        or item.get("content_excerpt")
        or current.get("description")
        or current.get("content_excerpt")
    )
    return {
        "id": str(item["id"]),
        "title": str(item.get("title") or current.get("title") or ""),
        "status": item.get("status", current.get("status")),
        "due_at": item.get("due_at", current.get("due_at")),
        "excerpt": _excerpt(excerpt),
        # Also what tells two items of the same title apart when nothing else does.
        "created_at": item.get("created_at") or item.get("updated_at"),
    }


# --- the database row: what history shows -------------------------------------------------


def choice_row(issued: IssuedChoice, *, session: AgentSession, owner_id: int | str) -> Choice:
    """Return the unsaved history row of a choice just issued (saved with its turn)."""
    choice = issued.choice
    if choice.expires_at is None:  # pragma: no cover - an issued choice always has one
        raise ValueError("an issued choice has no expiry")
    return Choice(
        id=uuid.UUID(choice.id),
        session=session,
        owner_id=owner_id,
        tool=choice.tool,
        capability=choice.capability,
        candidates=choice.candidates,
        token_digest=choice.digest,
        created_at=datetime.fromisoformat(choice.record["created_at"]),
        expires_at=choice.expires_at,
    )


def record_chosen(choice_id: str, *, candidate_id: str, card_id: str) -> None:
    """Mark the row chosen, naming the pick and its card. Needs: the card's row exists."""
    Choice.objects.filter(id=choice_id, state=Choice.State.READY).update(
        state=Choice.State.CHOSEN,
        chosen_id=candidate_id,
        card_id=card_id,
        chosen_at=timezone.now(),
    )


def choices_by_message(message_ids: list[Any]) -> dict[Any, list[Choice]]:
    """Return the choice rows of these messages by message id (no query for none)."""
    found: dict[Any, list[Choice]] = {}
    if not message_ids:
        return found
    for row in Choice.objects.filter(message_id__in=message_ids).order_by("created_at", "id"):
        found.setdefault(row.message_id, []).append(row)
    return found


def void_session_choices(session: AgentSession) -> list[str]:
    """Void the session's ready choice rows; return the digests whose live records to void.

    Needs: the caller's transaction that soft-deletes the session.
    """
    ready = list(
        Choice.objects.filter(session=session, state=Choice.State.READY).values_list(
            "id", "token_digest"
        )
    )
    Choice.objects.filter(id__in=[choice_id for choice_id, _ in ready]).update(
        state=Choice.State.VOIDED
    )
    return [digest for _, digest in ready]


def void_live_choices(digests: list[str]) -> None:
    """Void the live records of withdrawn choices (best effort, after the commit)."""
    for digest in digests:
        try:
            choice_void(digest)
        except LightNoteError:  # the store is down: the session check still refuses them
            logger.warning("could not void the live choice %s", digest[:12])


def history_choice(row: Choice, *, zone: Any, now: datetime) -> dict[str, Any]:
    """Return a choice as history shows it: no token, its current state."""
    state = str(row.state)
    if state == Choice.State.READY and row.expires_at <= now:
        state = "expired"
    body: dict[str, Any] = {
        "card_id": str(row.id),
        "kind": "choice",
        "tool": row.tool,
        "capability": row.capability,
        "state": state,
        "created_at": row.created_at.astimezone(zone).isoformat(),
        "expires_at": row.expires_at.astimezone(zone).isoformat(),
        "candidates": row.candidates,
        "chosen_id": row.chosen_id or None,
        "chosen_card_id": str(row.card_id) if row.card_id else None,
    }
    return body


def refuse_unknown_candidate() -> LightNoteError:
    return LightNoteError("CHOICE_CANDIDATE_INVALID", status=400)
