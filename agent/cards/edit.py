"""Edit before confirming: a ready card's editable values changed, re-prepared, re-issued.

The edited values are merged over the card's prepared args (only the tool's own editable
fields), prepared again through :func:`agent.policy.enforce_tool_policy` exactly as a
proposal is, and issued as a new card whose ``parent`` is the old one. The old card is then
voided with the store's compare-and-set (``ready -> voided``): if a confirm of the old token
claimed it first, the new card is destroyed and the edit answers 409; if the edit voided it
first, the old token answers 410 from then on. So at most one of the two ever executes.

The history rows (the old card voided, the new one, ``card.edited``) commit after the store
has already done both; when that COMMIT's reply is lost, the edit asks a fresh connection
whether they were written, writes them there if not, and answers the new card — never a
503 "nothing was changed" for an edit the store already made. Only when the database stays
unreachable is the answer 503 ``CARD_EDIT_UNRECORDED``, which says what did happen.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

from django.db import DatabaseError, connection, transaction

from agent.access import live_session
from agent.cards import checks as confirm_checks
from agent.cards import history as lifecycle
from agent.cards import records as cards
from agent.cards import transitions as card_transitions
from agent.cards.derived import issue_derived_card, turn_for
from agent.cards.issue import prepared_fields
from agent.cards.records import CardState
from agent.models import ActionCard
from agent.policy import enforce_tool_policy
from agent.ratelimit import limit_new_card
from agent.tools import Tool, args_invalid, registry
from lightnote.audit import audit_event
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext
from lightnote.texts.i18n import define_messages

logger = logging.getLogger(__name__)

define_messages(
    {
        "CARD_EDIT_UNRECORDED": (
            "修改已生效：原来的卡已作废，不能再确认；但数据库暂时不可用，新卡未能记入历史。"
            "请稍后刷新对话，必要时重新提出。",
            "The edit took effect: the earlier card is withdrawn and cannot be confirmed; "
            "but the database is unavailable, so the new card is not in the history. "
            "Reload the conversation later, and ask again if it is not there.",
        ),
        "CHOICE_PICK_UNRECORDED": (
            "已选定：这个选择已用过，不能再选；但数据库暂时不可用，新卡未能记入历史。"
            "请稍后刷新对话，必要时重新提出。",
            "The pick took effect: this choice is used and cannot be picked again; but the "
            "database is unavailable, so the new card is not in the history. Reload the "
            "conversation later, and ask again if it is not there.",
        ),
    }
)

# What a person may change on a card (in the tool's own words: raw, unprepared args). A
# tool offers those of them its proposal schema names; the target (id) never changes.
EDITABLE_FIELDS = ("title", "description", "content", "tags", "priority", "due_at")


def editable_fields(tool: Tool) -> tuple[str, ...]:
    """Return the fields of ``tool``'s cards a person may edit (empty: none)."""
    properties = tool.schema.get("properties") or {}
    return tuple(field for field in EDITABLE_FIELDS if field in properties)


def edited_args(tool: Tool, prepared: dict[str, Any], edits: dict[str, Any]) -> dict[str, Any]:
    """Return the proposal args to prepare again: the card's values with ``edits`` over them.

    Prepared values that are also proposal args (the target's id, the new values) are kept;
    what preparation added (versions, the current snapshot, a stable id) is left out, so it
    is captured afresh. An edit of anything but an editable field is refused (400). A
    reminder set at the due time moves with an edited due time (and goes with a cleared one).
    """
    allowed = editable_fields(tool)
    refused = {name: ["not_editable"] for name in edits if name not in allowed}
    if refused:
        raise args_invalid(refused)
    properties = tool.schema.get("properties") or {}
    kept = {name: value for name, value in prepared.items() if name in properties}
    reminder = prepared.get("remind_at")
    if "due_at" in edits and reminder and reminder == prepared.get("due_at"):
        # a reminder at the due time ("remind me to … at 3pm") moves with it
        kept["remind_at"] = edits["due_at"]
        if edits["due_at"] is None:
            del kept["remind_at"]
    return {**kept, **edits}


def _refusal_for_lost_void(digest: str) -> LightNoteError:
    """Return why a ready card could not be voided: it was claimed, rejected or is gone."""
    current = cards.card_get_by_digest(digest)
    if current is None:
        return LightNoteError("CONFIRMATION_EXPIRED", status=410)
    if current.state == CardState.REJECTED:
        return LightNoteError("CONFIRMATION_REJECTED", status=409)
    return LightNoteError(
        "CONFIRMATION_ALREADY_CLAIMED", status=409, outer={"state": str(current.state)}
    )


def edit(
    *,
    request: Any,
    actor: ActorContext,
    token: str,
    session_id: uuid.UUID,
    edits: dict[str, Any],
    locale: str,
) -> dict[str, Any]:
    """Edit a ready card: return the new card (API shape, with ``parent_id``).

    Checks in confirm's order (admin 403, store 503, token 410, owner/session 403, binding
    409), then the state (rejected 409 ``CONFIRMATION_REJECTED``; running or settled 409
    ``CONFIRMATION_ALREADY_CLAIMED``), then the edited args through the tool policy (the
    tool's own 400/404/409), the new-card rate limit (429), issue, and the void of the old.
    """
    card = confirm_checks.load_card_for(
        request=request, actor=actor, token=token, session_id=session_id, action="edit"
    )
    if card.state == CardState.REJECTED:
        raise LightNoteError("CONFIRMATION_REJECTED", status=409)
    if card.state != CardState.READY:
        raise LightNoteError(
            "CONFIRMATION_ALREADY_CLAIMED", status=409, outer={"state": str(card.state)}
        )
    tool = registry.get(card.tool)
    if tool is None:  # a card names a registered tool; fail closed anyway
        raise LightNoteError("TOOL_NOT_FOUND", status=404, params={"tool": card.tool})
    raw = edited_args(tool, card.args, edits)
    session = live_session(session_id=session_id, owner=actor.subject)
    row = ActionCard.objects.select_related("message").filter(id=card.id).first()
    turn = turn_for(request=request, actor=actor, row=row, session=session, locale=locale)
    prepared = enforce_tool_policy(
        tool_name=card.tool, args=raw, context=turn.context, phase="prepare"
    )
    limit_new_card(request, user_id=actor.actor.pk)
    derived = issue_derived_card(
        turn,
        message=row.message if row is not None else None,
        **prepared_fields(prepared),
    )
    new_card = derived.card
    if not card_transitions.card_void(card.digest):
        # A confirm (or reject) of the old token won: the new card must never be usable.
        card_transitions.card_destroy(new_card["token"])
        raise _refusal_for_lost_void(card.digest)

    def record() -> None:
        with transaction.atomic():
            lifecycle.record_voided([card.id], reason=ActionCard.VoidReason.SUPERSEDED)
            # Always a history row, also for a card proposed over MCP (no message); its
            # parent is named when the old card has a row of its own.
            derived.record(parent_id=card.id if row is not None else None)
            audit_event(
                "card.edited",
                actor=actor.actor,
                subject=actor.subject,
                session_id=session.id,
                capability=card.capability,
                tool=card.tool,
                action_id=new_card["card_id"],
                details={"parent_id": card.id, "fields": sorted(edits)},
            )

    record_in_history(record, new_card_id=new_card["card_id"], unrecorded="CARD_EDIT_UNRECORDED")
    return {**new_card, "parent_id": card.id}


def record_in_history(record: Callable[[], None], *, new_card_id: str, unrecorded: str) -> None:
    """Run ``record`` (the history rows of what the store already did: an edit, a pick);
    if its COMMIT fails, find out on a fresh connection whether it was written (the new
    card's row) and write it there if not.

    A caller's own transaction fails as a whole (the error is raised). If the fresh
    connection fails too: 503 ``unrecorded``, a code whose message says what did happen.
    """
    try:
        record()
        return
    except DatabaseError as error:
        logger.warning("the history COMMIT for card %s failed: %s", new_card_id, error)
        if connection.in_atomic_block:
            raise
        lost = error
    connection.close()  # the lost connection: the next query opens a fresh one
    try:
        if ActionCard.objects.filter(id=new_card_id).exists():
            logger.warning("the history of card %s was written after all", new_card_id)
            return
        record()
    except DatabaseError:
        raise LightNoteError(unrecorded, status=503) from lost
    logger.warning("the history of card %s is written on a fresh connection", new_card_id)
