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

A confirm whose token query already found the session to be the caller's own reads and
claims the card in one script (``claim_card_for``): the claim applies only when the record
names this owner and session, and the same checks then run on the record it returns. That
script may also count the claims limit's unit (only when it wins): a claim the limit refuses
writes nothing, and its 429 comes after these checks, as the API's order puts it.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from django.db.models import BooleanField, ExpressionWrapper, OuterRef, Q, Subquery, Value

from agent import card_transitions, cards, lifecycle
from agent.card_audit import audit_card
from agent.models import ActionCard, AgentSession
from agent.ratelimit import LimitTake, limit_token_miss, retry_after_seconds
from agent.sessions import SessionAccess, session_access
from lightnote import store, store_counters
from lightnote.audit import audit_event
from lightnote.authentication import token_annotations
from lightnote.context import ActorContext
from lightnote.errors import LightNoteError

logger = logging.getLogger(__name__)

SESSION_ID_ANNOTATION = "lightnote_session_id"
# True: the token user's live session; False: theirs, deleted; None: not theirs (or none).
SESSION_LIVE_ANNOTATION = "lightnote_session_live"


def session_check_annotation(session_id: uuid.UUID) -> dict[str, Any]:
    """Expressions for the token query (``lightnote.authentication.TokenAuthentication``):
    is ``session_id`` the token user's session, and is it deleted? The same answer as
    ``agent.sessions.session_access``, without a query of its own: one primary-key lookup
    whose row, if any, says whether it is live."""
    theirs = AgentSession.objects.filter(id=session_id, owner_id=OuterRef("user_id"))
    live = ExpressionWrapper(Q(deleted_at__isnull=True), output_field=BooleanField())
    return {
        SESSION_ID_ANNOTATION: Value(str(session_id)),
        SESSION_LIVE_ANNOTATION: Subquery(theirs.order_by().values(live=live)[:1]),
    }


def known_session_access(
    request: Any, *, session_id: uuid.UUID, owner: Any
) -> SessionAccess | None:
    """``session_access`` as this request's token query answered it, when it asked exactly
    this (same session, same user); None when it did not (no query is made here)."""
    known = token_annotations(request)
    if known.get(SESSION_ID_ANNOTATION) == str(session_id) and known.get("user_id") == owner.pk:
        live = known[SESSION_LIVE_ANNOTATION]
        if live is None:
            return SessionAccess.NONE
        return SessionAccess.OWN if live else SessionAccess.DELETED
    return None


def session_access_for(request: Any, *, session_id: uuid.UUID, owner: Any) -> SessionAccess:
    """``session_access`` answered by this request's token query when it asked exactly this
    (same session, same user); else with one query."""
    known = known_session_access(request, session_id=session_id, owner=owner)
    if known is not None:
        return known
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
        raise _unknown_token(actor, action=action)
    access = session_access_for(request, session_id=session_id, owner=actor.subject)
    _check_owner_and_binding(
        card, token=token, actor=actor, session_id=session_id, access=access, action=action
    )
    return card


def claim_card_for(
    *,
    request: Any,
    actor: ActorContext,
    token: str,
    session_id: uuid.UUID,
    attempt_id: str,
    limit: LimitTake | None = None,
    prepared: card_transitions.ClaimCall | None = None,
) -> tuple[cards.Card, bool]:
    """``load_card_for``'s checks for a confirm, with its claim in the same round trip when
    it can be; return the card and whether ``attempt_id`` now holds it.

    When this request's token query already says the session is the caller's own, one
    script reads the card and moves it ``ready -> running`` only if its record names this
    owner and this session (``card_transitions.card_claim`` with both). The checks then run
    in the API's order on the record it returns, as ``load_card_for`` runs them, so every
    answer is the one a read would have given: 410 (a miss), 403 (nothing was claimed), 409 for a
    failed binding. A card claimed by this call that fails a check before the claim (its
    record was altered after issue: only a binding failure can do this) never executes: a
    binding failure destroys it as always; should the owner check in Python disagree with
    the script's, the claim is given back. The card returned with False is the stored
    one (not ready: the caller answers its state; ready: the caller claims it as before).

    With ``limit`` (a unit of the claims limit that the claim's script may count:
    ``store_counters.counter_in_script``) the claim counts it only when it wins. One the
    limit refuses wrote nothing (the card stays ready): once the checks pass on its record,
    the 429 (``LimitTake.refuse``). A claimed card that then fails a check gives its unit back
    (``give_back_unit``) with its claim, or is destroyed (binding) after giving it back.

    Otherwise (another session, the caller's deleted one, or no annotation: the chat page
    and MCP views) it is ``load_card_for`` and nothing is claimed, so a 410 still comes
    before the session's 404 or 403.

    ``prepared``: the claim's script call built ahead (``card_transitions.claim_call``) for
    this token, attempt, owner (``actor.subject``), session and ``limit``; sent as it is.
    """
    owner = actor.subject
    if known_session_access(request, session_id=session_id, owner=owner) is not SessionAccess.OWN:
        card = load_card_for(
            request=request, actor=actor, token=token, session_id=session_id, action="confirm"
        )
        return card, False
    claim = card_transitions.card_claim(  # 503 when the store cannot answer
        token,
        attempt_id=attempt_id,
        owner_id=owner.pk,
        session_id=session_id,
        take=limit.counter if limit is not None else None,
        prepared=prepared,
    )
    if claim.card is None:
        raise _unknown_token(actor, action="confirm")
    claimed = claim.status is card_transitions.ClaimStatus.CLAIMED
    try:
        _check_owner_and_binding(
            claim.card,
            token=token,
            actor=actor,
            session_id=session_id,
            access=SessionAccess.OWN,
            action="confirm",
        )
    except LightNoteError as refused:
        if claimed and limit is not None:
            give_back_unit(limit)  # counted by the claim, which will not execute
        if claimed and refused.status == 403:
            give_back(token, attempt_id=attempt_id, card=claim.card)
        raise
    limited = claim.status is card_transitions.ClaimStatus.LIMITED
    if limited and limit is not None:  # nothing written
        limit.refuse(retry_after_seconds(claim.retry_after_ms))
    return claim.card, claimed


def _unknown_token(actor: ActorContext, *, action: str) -> LightNoteError:
    """Return the 410 of an unknown or expired token, after the miss throttle (which raises
    its 429 over the limit) and the audit row."""
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
    session_id: uuid.UUID,
    access: SessionAccess,
    action: str,
) -> None:
    """Raise 404 for the caller's deleted session, 403 for someone else's card or session,
    409 (the card destroyed, its history row voided) for a record that fails its binding."""
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
        card_transitions.card_destroy(token)
        record_invalid(card)
        audit_card("confirm.invalid", card, actor, code="CONFIRMATION_INVALID")
        raise LightNoteError("CONFIRMATION_INVALID", status=409)


def give_back(token: str, *, attempt_id: str, card: cards.Card) -> None:
    """Release a claim that will not execute (best effort: if the store cannot answer, the
    lease runs out and reconciliation voids the card, which never executed)."""
    try:
        card_transitions.card_release(token, attempt_id=attempt_id, expires_at=card.expires_at)
    except LightNoteError:
        logger.warning("claim on %s not given back: the store is unavailable", card.id)


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
