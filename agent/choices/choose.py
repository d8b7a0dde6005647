"""Choose: pick one candidate of a choice card; the answer is the ordinary card for it.

``POST /api/v1/agent/choices/choose/`` ``{"token", "session_id", "candidate_id"}``. The
checks run in confirm's order (docs/confirmation-protocol.md): admin read-only 403 -> store
503 -> token known 410 (429 past the token-miss limit) -> owner and session 403
``CONFIRMATION_FORBIDDEN`` -> seal 409 ``CONFIRMATION_INVALID`` -> state (used: 410
``CONFIRMATION_EXPIRED``) -> candidate (400 ``CHOICE_CANDIDATE_INVALID``) -> the new-card
rate limit 429 -> issue and use. Nothing executes: the card is confirmed like any other.
The pick's history rows commit after the store used the choice; a lost COMMIT is checked
and made good on a fresh connection (``agent.cards.edit.record_in_history``).

A pick by words on a later message ("第二个",
``agent.conversation.decisions.Turn.take_choice``) goes through the same
:func:`checked_choice` and :func:`take_pick`: one choice yields at most one card.
So does a pick from history (:func:`choose_from_history`, ``POST
/api/v1/agent/choices/choose-from-history/`` ``{"card_id", "session_id", "candidate_id"}``):
history never returns a token, so a still-ready choice is named by its id there.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db import transaction
from django.utils import timezone

from agent.access import SessionAccess, Verdict, record_access, session_access
from agent.cards import transitions as card_transitions
from agent.cards.derived import DerivedCard, derived_context, history_row, issue_derived_card
from agent.cards.edit import record_in_history
from agent.choices import store as choice_store
from agent.conversation import pending
from agent.models import AgentSession, Choice
from agent.ratelimit import limit_new_card, limit_token_miss
from lightnote.audit import audit_event
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext
from lightnote.impersonation.permissions import refuse_admin_write


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
    if stored is None:
        # The miss path only, as for card tokens: 429 once this user's misses passed
        # LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES (checked_choice answers the 410 below).
        limit_token_miss(actor=actor, kind="choice", action="choose")
    access = session_access(session_id=session_id, owner=actor.subject) if stored else None
    try:
        choice = checked_choice(
            stored, owner=actor.subject, session_id=str(session_id), access=access
        )
    except LightNoteError as error:
        if error.code != "SESSION_NOT_FOUND":
            _audit_refusal(actor, session_id, error.code)
        raise
    session = AgentSession.objects.get(id=session_id)
    return _pick(
        request=request,
        actor=actor,
        session=session,
        choice=choice,
        row=Choice.objects.select_related("message").filter(id=choice.id).first(),
        candidate_id=candidate_id,
        locale=locale,
    )


def choose_from_history(
    *,
    request: Any,
    actor: ActorContext,
    session: AgentSession,
    card_id: Any,
    candidate_id: str,
    locale: str,
) -> dict[str, Any]:
    """Pick ``candidate_id`` from a still-ready choice named by its ``card_id`` (history).

    History never returns a token, so a client that lost the choice's (a reload, a second
    tab, another device) picks by the choice's id, as "ask again" names a card: the id is
    no secret and executes nothing, the answer is an ordinary card to confirm with its own
    token. The choice row must be in ``session`` and the caller's; then the same checks and
    the same one-pick compare-and-set as a pick by token, so a pick by id and one by token
    (or by words) racing for one choice still give one card.

    Needs: ``session`` belongs to the caller. Order: admin read-only 403 -> 404
    ``CARD_NOT_FOUND`` (no such choice in this conversation) -> 410 ``CONFIRMATION_EXPIRED``
    (expired, used or withdrawn) -> 503 (store) -> 409 ``CONFIRMATION_INVALID`` (altered)
    -> 400 ``CHOICE_CANDIDATE_INVALID`` -> 429 (the new-card limit).
    """
    refuse_admin_write(request, what="choice.choose")
    row = history_row(Choice, card_id=card_id, session=session, actor=actor)
    if row.state != Choice.State.READY or row.expires_at <= timezone.now():
        _audit_refusal(actor, session.id, "CONFIRMATION_EXPIRED")
        raise LightNoteError("CONFIRMATION_EXPIRED", status=410)
    stored = choice_store.choice_get_by_digest(row.token_digest)  # 503 when the store is down
    try:
        choice = checked_choice(stored, owner=actor.subject, session_id=str(session.id))
    except LightNoteError as error:
        _audit_refusal(actor, session.id, error.code)
        raise
    return _pick(
        request=request,
        actor=actor,
        session=session,
        choice=choice,
        row=row,
        candidate_id=candidate_id,
        locale=locale,
        via="history",
    )


def _pick(
    *,
    request: Any,
    actor: ActorContext,
    session: AgentSession,
    choice: choice_store.StoredChoice,
    row: Choice | None,
    candidate_id: str,
    locale: str,
    via: str = "token",
) -> dict[str, Any]:
    """Issue the card of a checked choice's candidate, use the choice, record both."""
    if str(candidate_id) not in choice.picks:
        raise choice_store.refuse_unknown_candidate()
    limit_new_card(request, user_id=actor.actor.pk)
    message = row.message if row is not None else None
    turn = derived_context(
        request=request,
        actor=actor,
        session=session,
        locale=locale,
        message=message,
        asked_before=row.created_at if row is not None else None,
    )
    issued: list[DerivedCard] = []

    def issue(**fields: Any) -> dict[str, Any]:
        derived = issue_derived_card(turn, message=message, **fields)
        issued.append(derived)
        return derived.card

    card = take_pick(choice, str(candidate_id), issue)

    def record() -> None:
        with transaction.atomic():
            issued[0].record()
            choice_store.record_chosen(
                choice.id, candidate_id=str(candidate_id), card_id=card["card_id"]
            )
            audit_event(
                "choice.chosen",
                actor=actor.actor,
                subject=actor.subject,
                session_id=session.id,
                capability=choice.capability,
                tool=choice.tool,
                action_id=card["card_id"],
                details={"choice_id": choice.id, "candidate_id": str(candidate_id), "via": via},
            )

    # The store has used the choice and holds the card: a lost COMMIT of these rows is
    # checked, and made good, on a fresh connection (never "nothing was changed").
    record_in_history(record, new_card_id=card["card_id"], unrecorded="CHOICE_PICK_UNRECORDED")
    _forget_pending(actor, session.id, choice.digest)
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


def checked_choice(
    choice: choice_store.StoredChoice | None,
    *,
    owner: Any,
    session_id: str,
    access: SessionAccess | None = SessionAccess.OWN,
) -> choice_store.StoredChoice:
    """Return the choice if it may be picked from, else the first failing check's error.

    In confirm's order (``agent.access.record_access``): gone/expired 410 -> the caller's
    deleted session 404 -> another owner or session 403 ``CONFIRMATION_FORBIDDEN`` ->
    altered 409 ``CONFIRMATION_INVALID`` (destroyed) -> used (``chosen``) 410
    ``CONFIRMATION_EXPIRED``. ``access``: the session's answer (the default: a pick made
    inside the caller's own conversation; None asks).
    """
    if choice is None:
        raise LightNoteError("CONFIRMATION_EXPIRED", status=410)
    verdict = record_access(
        intact=choice.intact,
        record_owner_hash=choice.owner_hash,
        record_session_id=choice.session_id,
        sealed=choice.binding_valid(),
        owner=owner,
        session_id=session_id,
        access=access,
    )
    if verdict is Verdict.SESSION_DELETED:
        raise LightNoteError("SESSION_NOT_FOUND", status=404)
    if verdict is Verdict.FORBIDDEN:
        raise LightNoteError("CONFIRMATION_FORBIDDEN", status=403)
    if verdict is Verdict.INVALID:
        choice_store.choice_destroy(choice.digest)
        raise LightNoteError("CONFIRMATION_INVALID", status=409)
    if choice.state != choice_store.STATE_READY:
        raise LightNoteError("CONFIRMATION_EXPIRED", status=410)
    return choice


def take_pick(choice: choice_store.StoredChoice, candidate_id: str, issue: Any) -> dict[str, Any]:
    """Issue (``issue(**card fields)``) the card of one candidate, then use the choice.

    The card carries exactly the args and preview the choice prepared for that item. The
    choice is used with one compare-and-set after the card exists: a pick that loses the
    race destroys its card and answers 410, so one choice yields at most one card.
    Raises 400 ``CHOICE_CANDIDATE_INVALID`` for a candidate the choice does not offer.
    """
    pick = choice.picks.get(str(candidate_id))
    if not isinstance(pick, dict):
        raise choice_store.refuse_unknown_candidate()
    card: dict[str, Any] = issue(
        tool=choice.tool,
        capability=choice.capability,
        risk=choice.risk,
        args=dict(pick["args"]),
        preview=dict(pick["preview"]),
    )
    if not choice_store.choice_take(choice.digest):
        card_transitions.card_destroy(card["token"])
        raise LightNoteError("CONFIRMATION_EXPIRED", status=410)
    return card
