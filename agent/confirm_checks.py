"""The checks before any state of a card is read: store, token, owner and session, binding.

Shared by confirm, reject, status and card edits, in this order, so every entry point gives
the same answer to the same request: 503 when the store cannot answer, 410 for an unknown or
expired token (429 once the user's misses pass the token-miss throttle,
``agent.ratelimit.limit_token_miss``, paid on the miss path only), 404 for the caller's own
deleted conversation, 403 for someone else's card or session, 409 ``CONFIRMATION_INVALID``
(the card destroyed and its history row voided) when the record fails its HMAC binding.

The session check rides on the token query when the request's authentication asked exactly
this (``session_check_annotation``); otherwise it costs one query. Races: none of its own;
a card that changes after these checks is judged by its state, read afterwards.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import Exists, OuterRef, Value

from agent import cards, lifecycle
from agent.card_audit import audit_card
from agent.models import ActionCard, AgentSession
from agent.ratelimit import limit_token_miss
from agent.sessions import SessionAccess, session_access
from lightnote.audit import audit_event
from lightnote.authentication import token_annotations
from lightnote.context import ActorContext
from lightnote.errors import LightNoteError

SESSION_ID_ANNOTATION = "lightnote_session_id"
SESSION_OWN_ANNOTATION = "lightnote_session_own"
SESSION_DELETED_ANNOTATION = "lightnote_session_deleted"


def session_check_annotation(session_id: uuid.UUID) -> dict[str, Any]:
    """Expressions for the token query (``lightnote.authentication.TokenAuthentication``):
    is ``session_id`` the token user's session, and is it deleted? The same answer as
    ``agent.sessions.session_access``, without a query of its own."""
    theirs = AgentSession.objects.filter(id=session_id, owner_id=OuterRef("user_id"))
    return {
        SESSION_ID_ANNOTATION: Value(str(session_id)),
        SESSION_OWN_ANNOTATION: Exists(theirs.filter(deleted_at__isnull=True)),
        SESSION_DELETED_ANNOTATION: Exists(theirs.filter(deleted_at__isnull=False)),
    }


def session_access_for(request: Any, *, session_id: uuid.UUID, owner: Any) -> SessionAccess:
    """``session_access`` answered by this request's token query when it asked exactly this
    (same session, same user); else with one query."""
    known = token_annotations(request)
    if known.get(SESSION_ID_ANNOTATION) == str(session_id) and known.get("user_id") == owner.pk:
        if known[SESSION_OWN_ANNOTATION]:
            return SessionAccess.OWN
        if known[SESSION_DELETED_ANNOTATION]:
            return SessionAccess.DELETED
        return SessionAccess.NONE
    return session_access(session_id=session_id, owner=owner)


def load_card_for(
    *, request: Any, actor: ActorContext, token: str, session_id: uuid.UUID, action: str
) -> cards.Card:
    """Run the checks before any state is read: store, token, owner, binding.

    (An admin read-only context was refused before: ``lightnote.readonly``'s gate.)

    Raises the API's answer for the first check that fails. An unknown or expired token is
    410, or 429 ``RATE_LIMITED`` once this user's misses passed
    ``LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES`` (``agent.ratelimit.limit_token_miss``).
    """
    card = cards.card_get(token)  # 503 when the store cannot answer
    if card is None:
        # The miss path only: a known token pays no round trip for the miss throttle.
        limit_token_miss(actor=actor, kind="card", action=action)  # 429 over the limit
        audit_event(
            "confirm.expired",
            actor=actor.actor,
            subject=actor.subject,
            code="CONFIRMATION_EXPIRED",
            details={"action": action},
        )
        raise LightNoteError("CONFIRMATION_EXPIRED", status=410)
    access = session_access_for(request, session_id=session_id, owner=actor.subject)
    if access is SessionAccess.DELETED:
        # The caller's own conversation, deleted: 404 everywhere, as for its messages.
        raise LightNoteError("SESSION_NOT_FOUND", status=404)
    if (
        not cards.card_owned_by(card, actor.subject.pk)
        or not cards.card_in_session(card, session_id)
        or access is not SessionAccess.OWN
    ):
        audit_event(
            "confirm.forbidden",
            actor=actor.actor,
            subject=actor.subject,
            session_id=session_id,
            code="CONFIRMATION_FORBIDDEN",
            details={"action": action},
        )
        raise LightNoteError("CONFIRMATION_FORBIDDEN", status=403)
    if not cards.card_binding_valid(card):
        cards.card_destroy(token)
        record_invalid(card)
        audit_card("confirm.invalid", card, actor, code="CONFIRMATION_INVALID")
        raise LightNoteError("CONFIRMATION_INVALID", status=409)
    return card


def record_invalid(card: cards.Card) -> None:
    """Void the history row of a destroyed card (its id is trusted only if it parses)."""
    try:
        card_id = str(uuid.UUID(card.id))
    except ValueError:
        return
    lifecycle.record_voided([card_id], reason=ActionCard.VoidReason.INVALID)
