"""Choose: pick one candidate of a choice card; the answer is the ordinary card for it.

``POST /api/v1/agent/choices/choose/`` ``{"token", "session_id", "candidate_id"}``. The
checks run in confirm's order (docs/confirmation-protocol.md): admin read-only 403 -> store
503 -> token known 410 -> owner and session 403 ``CONFIRMATION_FORBIDDEN`` -> seal 409
``CONFIRMATION_INVALID`` -> state (used: 410 ``CONFIRMATION_EXPIRED``) -> candidate (400
``CHOICE_CANDIDATE_INVALID``) -> the new-card rate limit 429 -> issue and use. Nothing
executes: the card is confirmed like any other.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db import transaction

from agent import choice_store, conversation, pending
from agent.confirm_checks import session_access_for
from agent.models import AgentSession, Choice
from agent.ratelimit import limit_new_card
from agent.sessions import SessionAccess
from lightnote.audit import audit_event
from lightnote.context import ActorContext
from lightnote.errors import LightNoteError
from lightnote.permissions import refuse_admin_write


def choose(
    *,
    request: Any,
    actor: ActorContext,
    token: str,
    session_id: uuid.UUID,
    candidate_id: str,
    locale: str,
) -> dict[str, Any]:
    """Pick ``candidate_id`` from the choice ``token``: return the new card (API shape).

    The card's ``parent_id`` is None (a choice is not a card); ``choice_id`` names the
    choice. Its history row joins the choice's message, and the choice reads ``chosen``.
    """
    refuse_admin_write(request, what="choice.choose")
    stored = choice_store.choice_get(token)  # 503 when the store cannot answer
    if stored is not None:
        access = session_access_for(request, session_id=session_id, owner=actor.subject)
        if access is SessionAccess.DELETED:
            raise LightNoteError("SESSION_NOT_FOUND", status=404)
        if access is not SessionAccess.OWN:
            _audit_refusal(actor, session_id, "CONFIRMATION_FORBIDDEN")
            raise LightNoteError("CONFIRMATION_FORBIDDEN", status=403)
    try:
        choice = conversation.checked_choice(
            stored, owner=actor.subject, session_id=str(session_id)
        )
    except LightNoteError as error:
        _audit_refusal(actor, session_id, error.code)
        raise
    if str(candidate_id) not in choice.picks:
        raise choice_store.refuse_unknown_candidate()
    limit_new_card(request, user_id=actor.actor.pk)
    session = AgentSession.objects.get(id=session_id)
    row = Choice.objects.select_related("message").filter(id=choice.id).first()
    message = row.message if row is not None else None
    turn = conversation.derived_context(
        request=request,
        actor=actor,
        session=session,
        locale=locale,
        message=message,
        asked_before=row.created_at if row is not None else None,
    )
    issued: list[conversation.DerivedCard] = []

    def issue(**fields: Any) -> dict[str, Any]:
        derived = conversation.issue_derived_card(turn, message=message, **fields)
        issued.append(derived)
        return derived.card

    card = conversation.take_pick(choice, str(candidate_id), issue)
    with transaction.atomic():
        issued[0].record()
        choice_store.record_chosen(
            choice.id, candidate_id=str(candidate_id), card_id=card["card_id"]
        )
        audit_event(
            "choice.chosen",
            actor=actor.actor,
            subject=actor.subject,
            session_id=session_id,
            capability=choice.capability,
            tool=choice.tool,
            action_id=card["card_id"],
            details={"choice_id": choice.id, "candidate_id": str(candidate_id)},
        )
    _forget_pending(actor, session_id, choice.digest)
    return {**card, "choice_id": choice.id}


def _forget_pending(actor: ActorContext, session_id: uuid.UUID, digest: str) -> None:
    """A choice picked by button no longer waits for "第二个" (best effort)."""
    try:
        waiting = pending.pending_get(owner_id=actor.subject.pk, session_id=str(session_id))
        if waiting is not None and waiting.choice == digest:
            pending.pending_clear(session_id=str(session_id))
    except LightNoteError:
        pass  # the store is down: the record expires; a later pick finds the choice used


def _audit_refusal(actor: ActorContext, session_id: Any, code: str) -> None:
    audit_event(
        "choice.refused",
        actor=actor.actor,
        subject=actor.subject,
        session_id=session_id,
        code=code,
    )
