"""The final reply after a confirmed action: its own state machine, no write tools.

``pending -> ready`` only on a *succeeded* receipt whose action id is the continuation's
(looked up in the database, so a late success — an unknown outcome resolved later — counts
too); ``ready -> running`` by one claimer; a failed generation goes back to ``ready``;
``running -> settled`` keeps the reply, which every repeat returns unchanged. Nothing here
can write user data: the model call offers no tools at all.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any
from zoneinfo import ZoneInfo

from django.db import transaction

from agent.access import Verdict, record_access
from agent.cards.answers import Answer, running_answer
from agent.cards.changes import changes_of
from agent.cards.history import receipt_body
from agent.continuations import store as continuation_store
from agent.continuations.store import ContinuationClaimStatus, ContinuationState
from agent.guard import guard_reply, guarded_notice, notice_for_stored
from agent.guard.records import audit_guard, receipt_backing, session_backings
from agent.models import ActionReceipt, Message
from agent.planners import get_planner
from agent.planners.base import PlannerError
from agent.planners.replies import REPLY_CODE_KEY
from agent.ratelimit import limit_new_claim, limit_token_miss
from agent.tools import registry
from lightnote.audit import audit_event
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext
from lightnote.ops import metrics
from lightnote.texts.i18n import define_messages
from lightnote.times import is_allowed_time_zone, times_in_zone

logger = logging.getLogger(__name__)

define_messages(
    {
        "CONTINUATION_EXPIRED": (
            "回复令牌不存在或已过期。",
            "This reply token is unknown or has expired.",
        ),
        "CONTINUATION_FORBIDDEN": ("无权获取此回复。", "You may not use this reply token."),
        "CONTINUATION_NOT_READY": (
            "操作还没有成功回执，暂时不能生成回复。",
            "The action has no success receipt yet; the reply cannot be generated.",
        ),
        "CONTINUATION_GENERATION_FAILED": (
            "生成回复失败（操作本身不受影响，也不会重复执行），请重试。",
            "Generating the reply failed (the action is unaffected and will not run again); retry.",
        ),
    }
)


def _succeeded_receipt(action_id: str) -> ActionReceipt | None:
    return ActionReceipt.objects.filter(
        action_id=action_id, status=ActionReceipt.Status.SUCCEEDED
    ).first()


def _not_ready() -> LightNoteError:
    return LightNoteError("CONTINUATION_NOT_READY", status=409, outer={"state": "pending"})


def _answer(continuation: Any) -> Answer | None:
    if continuation.state == ContinuationState.SETTLED:
        return Answer(200, _settled_body(continuation.reply))
    if continuation.state == ContinuationState.RUNNING:
        return running_answer()
    return None


def reply(
    *, request: Any, actor: ActorContext, token: str, session_id: uuid.UUID, locale: str
) -> Answer:
    """Return the final reply for a continuation token (:func:`_reply`); a settled one
    carries ``changes``: the receipt it continues, said by the server."""
    continuation = load_continuation_for(actor=actor, token=token, session_id=session_id)
    answer = _reply(
        request=request,
        actor=actor,
        token=token,
        session_id=session_id,
        locale=locale,
        continuation=continuation,
    )
    if answer.status == 200 and answer.body.get("state") == "settled":
        receipts = ActionReceipt.objects.filter(action_id=continuation.action_id)
        body = {**answer.body, "changes": changes_of(receipts, locale=locale)}
        return Answer(answer.status, body, answer.headers)
    return answer


def _reply(
    *,
    request: Any,
    actor: ActorContext,
    token: str,
    session_id: uuid.UUID,
    locale: str,
    continuation: continuation_store.Continuation,
) -> Answer:
    """Return the final reply for a continuation token, generating it once if needed.

    Loading (:func:`load_continuation_for`) answers 410 / 403 / 409 before anything else;
    a settled or running continuation is answered as it is; otherwise the action's receipt
    activates it, one request claims it and generates the reply (:func:`_generate`).
    """
    answer = _answer(continuation)
    if answer is not None and not (
        continuation.state == ContinuationState.RUNNING and continuation.takeover_allowed
    ):
        return answer
    receipt = _activated_by_receipt(token, continuation)

    limit_new_claim(request, user_id=actor.actor.pk)
    attempt_id = uuid.uuid4().hex
    claim = continuation_store.continuation_claim(token, attempt_id=attempt_id)
    if claim.status == ContinuationClaimStatus.GONE:
        raise LightNoteError("CONTINUATION_EXPIRED", status=410)
    if claim.status == ContinuationClaimStatus.PENDING:
        raise _not_ready()
    if claim.status != ContinuationClaimStatus.CLAIMED:
        current = continuation_store.continuation_get(token)
        if current is None:
            raise LightNoteError("CONTINUATION_EXPIRED", status=410)
        return _answer(current) or running_answer()
    return _generate(
        token=token,
        attempt_id=attempt_id,
        continuation=continuation,
        receipt=receipt,
        actor=actor,
        session_id=session_id,
        locale=locale,
    )


# --- loading -------------------------------------------------------------------------------


def load_continuation_for(
    *, actor: ActorContext, token: str, session_id: uuid.UUID
) -> continuation_store.Continuation:
    """Return the continuation ``token`` names, checked for this user and session.

    Unknown or expired: 410 ``CONTINUATION_EXPIRED`` (audited), or 429 ``RATE_LIMITED`` once
    this user's token misses passed ``LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES``. Another user's or
    another session's: 403 ``CONTINUATION_FORBIDDEN`` (audited). An altered record: 409, as
    not ready (audited); checked in every state, not only at activation, since an altered
    ready record could name another action (another user's receipt) for the reply to read.
    """
    continuation = continuation_store.continuation_get(token)
    if continuation is None:
        # The miss path only: a known token pays no round trip for the miss throttle.
        limit_token_miss(actor=actor, kind="continuation", action="reply")  # 429 over it
        audit_event(
            "continuation.expired",
            actor=actor.actor,
            subject=actor.subject,
            session_id=session_id,
            code="CONTINUATION_EXPIRED",
        )
        raise LightNoteError("CONTINUATION_EXPIRED", status=410)
    verdict = record_access(
        intact=continuation.intact,
        record_owner_hash=continuation.owner_hash,
        record_session_id=str(continuation.session_id),
        sealed=continuation_store.continuation_binding_valid(continuation),
        owner=actor.subject,
        session_id=session_id,
    )
    if verdict is Verdict.SESSION_DELETED:
        raise LightNoteError("SESSION_NOT_FOUND", status=404)
    if verdict is Verdict.FORBIDDEN:
        audit_event(
            "continuation.forbidden",
            actor=actor.actor,
            subject=actor.subject,
            session_id=session_id,
            code="CONTINUATION_FORBIDDEN",
        )
        raise LightNoteError("CONTINUATION_FORBIDDEN", status=403)
    if verdict is Verdict.INVALID:
        audit_event(
            "continuation.invalid",
            actor=actor.actor,
            subject=actor.subject,
            session_id=session_id,
            code="CONTINUATION_INVALID",
        )
        raise _not_ready()
    return continuation


def _activated_by_receipt(
    token: str, continuation: continuation_store.Continuation
) -> ActionReceipt:
    """Return this action's succeeded receipt, activating a pending continuation with it.

    The receipt is looked up by the continuation's own action id, so only this action's
    success (however late it became known) can activate it. None yet: 409 not ready.
    """
    receipt = _succeeded_receipt(continuation.action_id)
    if receipt is None:
        raise _not_ready()
    if continuation.state == ContinuationState.PENDING:
        state = continuation_store.continuation_activate(
            token, receipt_action_id=str(receipt.action_id), receipt_status=receipt.status
        )
        if state is None:
            raise LightNoteError("CONTINUATION_EXPIRED", status=410)
        if state == ContinuationState.PENDING:  # refused: an altered record never becomes ready
            raise _not_ready()
    return receipt


# --- generating ----------------------------------------------------------------------------


def _receipt_in_card_zone(receipt: ActionReceipt, snapshot: dict[str, Any]) -> dict[str, Any]:
    """The receipt the reply is written from, its times in the zone the card was read in.

    The execution wrote its result in the subject's zone at confirm time; a user who moved
    between issuing and confirming still reads the reply in the card's zone (the snapshot's
    ``time_zone``), as the card's reading in history does.
    """
    name = str(snapshot.get("time_zone") or "")
    zone = ZoneInfo(name) if is_allowed_time_zone(name) else receipt.subject.zone
    return {**receipt_body(receipt, zone=zone), "result": times_in_zone(receipt.result, zone)}


def _generate(
    *,
    token: str,
    attempt_id: str,
    continuation: continuation_store.Continuation,
    receipt: ActionReceipt,
    actor: ActorContext,
    session_id: uuid.UUID,
    locale: str,
) -> Answer:
    """Generate, guard and settle the reply under the claim ``attempt_id``; store it once."""
    receipt_data = _receipt_in_card_zone(receipt, continuation.snapshot)
    tool = registry.get(receipt.tool)
    reply_code = tool.reply_code(receipt.result or {}) if tool is not None else None
    if reply_code:
        receipt_data[REPLY_CODE_KEY] = reply_code
    try:
        text = get_planner().final_reply(
            snapshot=continuation.snapshot, receipt=receipt_data, locale=locale
        )
    except Exception as error:
        # A failed generation goes back to ready at once (not after the 60 s lease), so the
        # user's retry regenerates the reply; the action itself is never touched again.
        continuation_store.continuation_release(token, attempt_id=attempt_id)
        if isinstance(error, PlannerError):
            code = error.code
        else:  # a response the engine could not read: as failed as a timeout
            logger.exception("final reply generation failed for %s", receipt.action_id)
            code = "PLANNER_UNAVAILABLE"
        audit_event(
            "continuation.failed",
            actor=actor.actor,
            subject=actor.subject,
            session_id=session_id,
            action_id=receipt.action_id,
            code=code,
        )
        raise LightNoteError("CONTINUATION_GENERATION_FAILED", status=503) from None
    except BaseException:
        continuation_store.continuation_release(token, attempt_id=attempt_id)
        raise
    # The receipt backs what it proves, no more: any other claim (a second action, another
    # item, another kind) is checked against this session's receipts like on any turn.
    verdict = guard_reply(
        text,
        backings=lambda: session_backings(session_id),
        focus=receipt_backing(receipt),
        locale=locale,
    )
    if not continuation_store.continuation_settle(token, attempt_id=attempt_id, reply=verdict.text):
        current = continuation_store.continuation_get(token)
        return (_answer(current) if current else None) or running_answer()
    notices = [guarded_notice(verdict)] if verdict.replaced else []
    if verdict.replaced:
        metrics.guard_removed(situation="final_reply")
    with transaction.atomic():
        Message.objects.create(
            session_id=session_id,
            role=Message.Role.ASSISTANT,
            text=verdict.text,
            payload={
                "receipt": receipt_body(receipt),
                "card_id": str(continuation.action_id),
                "notices": notices,
            },
        )
        if verdict.replaced:
            audit_guard(
                verdict,
                actor=actor,
                session_id=session_id,
                original=text,
                action_id=receipt.action_id,
            )
    return Answer(200, _settled_body(verdict.text))


def _settled_body(reply: str) -> dict[str, Any]:
    """The settled answer; a reply the guard changed carries its notice (also on repeats)."""
    notice = notice_for_stored(reply)
    return {"state": "settled", "reply": reply, **({"notices": [notice]} if notice else {})}
