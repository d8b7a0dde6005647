"""The checks before any state of a card is read: store, token, owner and session, binding.

Shared by confirm, reject, status and card edits, in this order, so every entry point gives
the same answer to the same request: 503 when the store cannot answer, 410 for an unknown or
expired token (429 once the user's misses pass the token-miss throttle,
``agent.ratelimit.limit_token_miss``, paid on the miss path only), 404 for the caller's own
deleted conversation, 403 for someone else's card or session, 409 ``CONFIRMATION_INVALID``
(the card destroyed and its history row voided) when the record fails its HMAC binding.

Races: none of its own; a card that changes after these checks is judged by its state, read
afterwards, and the claim's script checks owner, session and binding again on the record it
moves.
"""

from __future__ import annotations

import logging
import uuid

from agent.access import SessionAccess, Verdict, record_access, session_access
from agent.cards import history as lifecycle
from agent.cards import records as cards
from agent.cards import transitions as card_transitions
from agent.cards.audit import audit_card
from agent.models import ActionCard
from agent.ratelimit import limit_token_miss
from lightnote.audit import audit_event
from lightnote.controlstore import counters as store_counters
from lightnote.controlstore import store
from lightnote.controlstore.limits import LimitTake
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext
from lightnote.ops import metrics

logger = logging.getLogger(__name__)


def load_card_for(
    *, request: object, actor: ActorContext, token: str, session_id: uuid.UUID, action: str
) -> cards.Card:
    """Run the checks before any state is read: store, token, owner and session, binding.

    (An admin read-only context was refused before: ``lightnote.impersonation.readonly``'s gate.)

    Raises the API's answer for the first check that fails. An unknown or expired token is
    410, or 429 ``RATE_LIMITED`` once this user's misses passed
    ``LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES`` (``agent.ratelimit.limit_token_miss``).
    """
    card = cards.card_get(token)  # 503 when the store cannot answer
    if card is None:
        raise _unknown_token(actor, action=action)
    access = session_access(session_id=session_id, owner=actor.subject)
    _check_owner_and_binding(
        card, token=token, actor=actor, session_id=session_id, access=access, action=action
    )
    return card


def check_claimed_record(card: cards.Card, *, token: str, actor: ActorContext) -> None:
    """Run the owner, session and binding checks on the record a refused claim returned
    (it no longer names what the confirm checked): raises their answer when one fails."""
    _check_owner_and_binding(
        card,
        token=token,
        actor=actor,
        session_id=uuid.UUID(int=0) if not card.session_id else card.session_id,
        access=SessionAccess.OWN,
        action="confirm",
    )


def _unknown_token(actor: ActorContext, *, action: str) -> LightNoteError:
    """Return the 410 of an unknown or expired token, after the miss throttle (which raises
    its 429 over the limit) and the audit row."""
    if action == "confirm":
        metrics.claim_refused(reason="expired")
    # The miss path only: a known token pays no round trip for the miss throttle.
    limit_token_miss(actor=actor, kind="card", action=action)  # 429 over the limit
    audit_event(
        "confirm.expired",
        actor=actor.actor,
        subject=actor.subject,
        code="CONFIRMATION_EXPIRED",
        details={"action": action},
    )
    return LightNoteError("CONFIRMATION_EXPIRED", status=410)


def _check_owner_and_binding(
    card: cards.Card,
    *,
    token: str,
    actor: ActorContext,
    session_id: uuid.UUID | str,
    access: SessionAccess,
    action: str,
) -> None:
    """Raise 404 for the caller's deleted session, 403 for someone else's card or session,
    409 (the card destroyed, its history row voided) for a record that fails its binding
    (``agent.access.record_access`` judges, in that order)."""
    verdict = record_access(
        intact=card.intact,
        record_owner_hash=card.owner_hash,
        record_session_id=card.session_id,
        sealed=cards.card_binding_valid(card),
        owner=actor.subject,
        session_id=session_id,
        access=access,
    )
    if verdict is not Verdict.ALLOWED and action == "confirm":
        refused = "invalid" if verdict is Verdict.INVALID else "forbidden"
        metrics.claim_refused(reason=refused)
    if verdict is Verdict.SESSION_DELETED:
        # The caller's own conversation, deleted: 404 everywhere, as for its messages.
        raise LightNoteError("SESSION_NOT_FOUND", status=404)
    if verdict is Verdict.FORBIDDEN:
        audit_event(
            "confirm.forbidden",
            actor=actor.actor,
            subject=actor.subject,
            session_id=session_id,
            code="CONFIRMATION_FORBIDDEN",
            details={"action": action},
        )
        raise LightNoteError("CONFIRMATION_FORBIDDEN", status=403)
    if verdict is Verdict.INVALID:
        card_transitions.card_destroy(token)
        record_invalid(card)
        audit_card("confirm.invalid", card, actor, code="CONFIRMATION_INVALID")
        raise LightNoteError("CONFIRMATION_INVALID", status=409)


def give_back_unit(limit: LimitTake) -> None:
    """Return the claims-limit unit a claim counted in its script and that will not execute
    (best effort: if the store cannot answer, the unit stays counted until its window ends)."""
    try:
        store_counters.counter_give_back(limit.counter.key)
    except store.StoreUnavailable:
        logger.warning("claims-limit unit not given back: the store is unavailable")


def record_invalid(card: cards.Card) -> None:
    """Void the history row of a destroyed card (its id is trusted only if it parses)."""
    try:
        card_id = str(uuid.UUID(card.id))
    except ValueError:
        return
    lifecycle.record_voided([card_id], reason=ActionCard.VoidReason.INVALID)
