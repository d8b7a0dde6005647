"""Run a confirmed card exactly once, and answer every other request with what happened.

The confirm path, in the order docs/api.md fixes: admin read-only -> store reachable -> token known
-> owner and session -> args binding -> state (rejected / running / settled) -> rate limit for
a *new* claim -> atomic claim -> tool policy again (``phase="execute", confirmed=True``) ->
the domain service and the receipt row in ONE durable transaction -> settle.

Why nothing runs twice:
- the Lua claim lets exactly one attempt move a card ``ready -> running``;
- the receipt's unique ``action_id`` (the card id) makes a second commit impossible even if
  Redis lost the claim (failover), and a voided receipt written by reconciliation takes the
  same slot, so a late executor cannot commit after "not executed" was answered;
- an error raised by COMMIT is "outcome unknown": the receipt is looked up on a fresh
  connection, never re-run.
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass
from typing import Any

from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Exists, OuterRef, Value

from agent import cards, lifecycle
from agent.cards import CardState, OutcomeKind
from agent.lifecycle import receipt_body
from agent.models import ActionCard, ActionReceipt, AgentSession
from agent.ratelimit import limit_new_claim, limit_token_miss
from agent.sessions import SessionAccess, session_access
from lightnote import store
from lightnote.audit import audit_entry, audit_event, audit_events
from lightnote.authentication import token_annotations
from lightnote.binding import canonical_json
from lightnote.context import ActorContext
from lightnote.errors import LightNoteError
from lightnote.i18n import define_messages, translate
from lightnote.transactions import durable_atomic

logger = logging.getLogger(__name__)

define_messages(
    {
        "CONFIRMATION_EXPIRED": (
            "确认卡不存在或已过期，请重新发起操作。",
            "This confirmation is unknown or has expired; ask again.",
        ),
        "CONFIRMATION_FORBIDDEN": ("无权操作此确认卡。", "You may not use this confirmation."),
        "CONFIRMATION_INVALID": (
            "确认卡内容校验失败，已作废，未执行任何操作。",
            "The confirmation failed its integrity check and was destroyed; nothing was done.",
        ),
        "CONFIRMATION_REJECTED": ("此确认卡已被拒绝。", "This confirmation was rejected."),
        "CONFIRMATION_ALREADY_CLAIMED": (
            "此确认卡已在执行或已完成，不能再拒绝或修改。",
            "This confirmation is already running or settled; it can no longer be rejected "
            "or edited.",
        ),
        "ACTION_OUTCOME_UNKNOWN": (
            "操作结果暂时无法核验，请稍后查看状态；系统不会重复执行。",
            "The outcome could not be verified yet; check the status later. It will not run twice.",
        ),
        "ACTION_NOT_EXECUTED": (
            "操作没有执行：执行期限已过且没有成功回执。",
            "The action was not executed: its lease passed with no success receipt.",
        ),
        "ACTION_EXECUTION_FAILED": (
            "操作执行失败，未做任何修改。",
            "The action failed; nothing was changed.",
        ),
    }
)


@dataclass(frozen=True)
class Answer:
    """An HTTP status and JSON body for the confirm, reject and status endpoints."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] | None = None


# How long a client waits before asking again about a running card or reply (seconds).
RUNNING_RETRY_AFTER = 1


def running_answer() -> Answer:
    """202 ``running``: another request holds it; ``Retry-After`` says when to ask again."""
    return Answer(202, {"state": "running"}, headers={"Retry-After": str(RUNNING_RETRY_AFTER)})


# --- Bodies ------------------------------------------------------------------------------


def _final(outcome: dict[str, Any]) -> dict[str, Any]:
    """Return the outcome as the store keeps it (canonical JSON, keys sorted), so the first
    answer and every replay of it are byte-identical."""
    return json.loads(canonical_json(outcome))


def _succeeded(receipt: ActionReceipt) -> tuple[str, dict[str, Any]]:
    return "succeeded", _final({"ok": True, "receipt": receipt_body(receipt)})


def _failed(error: LightNoteError, locale: str) -> tuple[str, dict[str, Any]]:
    return "failed", _final({"ok": False, "error": error.as_error(locale)})


def _unknown(locale: str) -> tuple[str, dict[str, Any]]:
    return "unknown", _final(
        {
            "ok": None,
            "error": {
                "code": "ACTION_OUTCOME_UNKNOWN",
                "message": translate("ACTION_OUTCOME_UNKNOWN", locale),
            },
        }
    )


def _settled(outcome: dict[str, Any]) -> Answer:
    return Answer(200, {"state": "settled", "outcome": outcome})


def _card_entry(
    event_type: str, card: cards.Card, actor: ActorContext | None, **fields: Any
) -> Any:
    """Build a protocol event about ``card``: its id, tool and capability, never its token."""
    return audit_entry(
        event_type,
        actor=actor.actor if actor else None,
        subject=actor.subject if actor else None,
        session_id=card.session_id,
        capability=card.capability,
        tool=card.tool,
        action_id=card.id,
        **fields,
    )


def _audit_card(
    event_type: str, card: cards.Card, actor: ActorContext | None, **fields: Any
) -> None:
    """Record a protocol event about ``card``."""
    audit_events([_card_entry(event_type, card, actor, **fields)])


def _audit_claim_and(event_type: str, card: cards.Card, actor: ActorContext, **fields: Any) -> None:
    """Record the claim together with what became of it (one INSERT).

    On success both rows are written inside the execution's transaction instead; every other
    path lands here, after that transaction rolled back (or never began).
    """
    audit_events(
        [
            _card_entry("confirm.claimed", card, actor),
            _card_entry(event_type, card, actor, **fields),
        ]
    )


# Repeated confirms of a running or settled card write nothing to the database: they are
# tallied in the control store and moved into the audit log by ``flush_repeat_tallies``
# (the ``reconcile_cards`` command runs it), one ``confirm.duplicate`` row per card, actor
# and state with ``details.count``.
REPEAT_TALLIES_KEY = "ln:audit:{repeats}"


def _tally_repeat(card: cards.Card, actor: ActorContext) -> None:
    """Count one repeated confirm of ``card`` (best effort: the answer never depends on it)."""
    identity = {
        "action_id": card.id,
        "actor_id": actor.actor.pk,
        "subject_id": actor.subject.pk,
        "session_id": card.session_id,
        "capability": card.capability,
        "tool": card.tool,
        "state": card.state,
    }
    try:
        store.counter_add(REPEAT_TALLIES_KEY, canonical_json(identity))
    except store.StoreUnavailable:
        logger.warning("repeat confirm of %s not tallied: the store is unavailable", card.id)


def flush_repeat_tallies() -> int:
    """Move the repeated-confirm tallies into the audit log; return the number of rows.

    The tallies are taken and cleared atomically, so each repeat is recorded once; if the
    database refuses the rows, they are put back for the next run.
    """
    try:
        tallies = store.counters_take_all(REPEAT_TALLIES_KEY)
    except store.StoreUnavailable:
        logger.warning("repeat tallies not flushed: the store is unavailable")
        return 0
    entries = []
    for identity_json, count in tallies.items():
        try:
            identity = json.loads(identity_json)
            entries.append(
                audit_entry(
                    "confirm.duplicate",
                    actor=_user_ref(identity.get("actor_id")),
                    subject=_user_ref(identity.get("subject_id")),
                    session_id=identity.get("session_id") or None,
                    capability=str(identity.get("capability", "")),
                    tool=str(identity.get("tool", "")),
                    action_id=identity.get("action_id") or None,
                    details={"state": identity.get("state"), "count": count},
                )
            )
        except (ValueError, TypeError, AttributeError):
            logger.error("unreadable repeat tally %r dropped", identity_json[:200])
    try:
        audit_events(entries)
    except DatabaseError:
        logger.exception("repeat tallies not written; putting them back")
        for identity_json, count in tallies.items():
            store.counter_add(REPEAT_TALLIES_KEY, identity_json, count)
        raise
    return len(entries)


def _user_ref(user_id: Any) -> Any:
    """A user reference for an audit row, without a query (None when there is no id)."""
    if user_id in (None, ""):
        return None
    from django.contrib.auth import get_user_model

    return get_user_model()(pk=user_id)


# --- Checks shared by confirm, reject and status -------------------------------------------


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
        _record_invalid(card)
        _audit_card("confirm.invalid", card, actor, code="CONFIRMATION_INVALID")
        raise LightNoteError("CONFIRMATION_INVALID", status=409)
    return card


def _record_invalid(card: cards.Card) -> None:
    """Void the history row of a destroyed card (its id is trusted only if it parses)."""
    try:
        card_id = str(uuid.UUID(card.id))
    except ValueError:
        return
    lifecycle.record_voided([card_id], reason=ActionCard.VoidReason.INVALID)


# --- Resolution of unknown outcomes and expired leases --------------------------------------


def _drop_connection() -> None:
    """Close this thread's connection after a lost one, so the next query opens a fresh one."""
    if not connection.in_atomic_block:
        connection.close()


def _find_receipt(action_id: str) -> ActionReceipt | None:
    return ActionReceipt.objects.filter(action_id=action_id).first()


def _create_receipt(
    card: cards.Card,
    *,
    status: str,
    subject: Any,
    actor: Any,
    summary: str,
    resource_type: str = "",
    resource_id: str = "",
    result: dict[str, Any] | None = None,
) -> ActionReceipt:
    """Insert the action's one receipt row; the unique ``action_id`` fences a second one.

    ``subject`` (also the owner) and ``actor`` are users or their ids.
    """

    def person(field: str, value: Any) -> dict[str, Any]:
        return {field: value} if hasattr(value, "pk") else {f"{field}_id": value}

    return ActionReceipt.objects.create(
        action_id=card.id,
        tool=card.tool,
        capability=card.capability,
        args_hmac=card.args_hmac,
        **person("owner", subject),
        **person("subject", subject),
        **person("actor", actor),
        session_id=card.session_id,
        resource_type=resource_type,
        resource_id=resource_id,
        status=status,
        summary=summary,
        result=result or {},
    )


def _void(card: cards.Card) -> ActionReceipt:
    """Take the action's receipt slot with a voided row, or return the receipt that holds it.

    After this, no executor can commit the action any more: its receipt insert would fail on
    the unique ``action_id``.
    """
    if card.subject_id is None or card.actor_id is None:  # an intact card always has both
        raise ValueError(f"card {card.id} names no subject or actor")
    try:
        with transaction.atomic():
            voided = _create_receipt(
                card,
                status=ActionReceipt.Status.VOIDED,
                subject=card.subject_id,
                actor=card.actor_id,
                summary="not executed: lease passed without a receipt",
            )
            kind, outcome = lifecycle.outcome_of_receipt(voided)
            lifecycle.record_outcome(
                card.id, kind=kind, outcome=outcome, receipt=voided, best_effort=False
            )
            return voided
    except IntegrityError:
        receipt = _find_receipt(card.id)
        if receipt is None:  # pragma: no cover - the unique slot was taken a moment ago
            raise
        return receipt


def _outcome_from_receipt(receipt: ActionReceipt, locale: str) -> tuple[str, dict[str, Any]]:
    if receipt.status == ActionReceipt.Status.SUCCEEDED:
        return _succeeded(receipt)
    return _failed(LightNoteError("ACTION_NOT_EXECUTED"), locale)


def resolve(card: cards.Card, *, locale: str) -> Answer | None:
    """Settle an unknown outcome or an expired running card from the receipt table.

    Never executes. Returns the settled answer, or None while the outcome is still open
    (unknown and within the lease, or running within the lease).
    """
    try:
        receipt = _find_receipt(card.id)
        if receipt is None:
            if not card.lease_passed():
                return None
            receipt = _void(card)
    except DatabaseError:
        # The database could not answer (e.g. the void's own COMMIT reply was lost): the
        # outcome stays open and the next call looks again. Never a guess, never a 500.
        logger.exception("could not resolve %s from the receipt table", card.id)
        _drop_connection()
        return None
    kind, outcome = _outcome_from_receipt(receipt, locale)
    lifecycle.record_outcome(card.id, kind=kind, outcome=outcome, receipt=receipt)
    if not cards.card_resolve(digest=card.digest, outcome_kind=kind, outcome=outcome):
        # Someone else resolved it first (or it settled meanwhile): their answer stands.
        current = cards.card_get_by_digest(card.digest)
        if (
            current is not None
            and current.state == CardState.SETTLED
            and current.outcome_kind != OutcomeKind.UNKNOWN
        ):
            return _settled(current.outcome or {})
    _audit_card(
        "confirm.reconciled",
        card,
        None,
        code="" if kind == OutcomeKind.SUCCEEDED else "ACTION_NOT_EXECUTED",
        details={"outcome": kind, "subject_id": card.subject_id},
    )
    return _settled(outcome)


def answer_for_state(card: cards.Card, *, locale: str) -> Answer | None:
    """Answer a card that is not ``ready``: rejected 409, running 202, settled its outcome."""
    if card.state == CardState.REJECTED:
        raise LightNoteError("CONFIRMATION_REJECTED", status=409)
    if card.state == CardState.RUNNING:
        resolved = resolve(card, locale=locale) if card.lease_passed() else None
        return resolved or running_answer()
    if card.state == CardState.SETTLED:
        if card.outcome_kind == OutcomeKind.UNKNOWN:
            resolved = resolve(card, locale=locale)
            if resolved is not None:
                return resolved
        if card.outcome_kind == OutcomeKind.SUCCEEDED:
            _check_success_has_receipt(card)
        return _settled(card.outcome or {})
    return None


def _check_success_has_receipt(card: cards.Card) -> None:
    """Refuse to repeat a stored success that the receipt table does not back.

    The outcome in Redis is a cache of the receipt; it is not covered by the card's HMAC. A
    party able to write Redis could plant ``ok: true`` on a card that never ran: the database
    has the last word, so such a card is destroyed and answers 409 ``CONFIRMATION_INVALID``.
    """
    receipt = (card.outcome or {}).get("receipt") or {}
    backed = receipt.get("action_id") == card.id and (
        ActionReceipt.objects.filter(
            action_id=card.id, status=ActionReceipt.Status.SUCCEEDED
        ).exists()
    )
    if not backed:
        cards.card_destroy(digest=card.digest)
        _record_invalid(card)
        _audit_card(
            "confirm.invalid",
            card,
            None,
            code="CONFIRMATION_INVALID",
            details={"reason": "stored success without a receipt"},
        )
        raise LightNoteError("CONFIRMATION_INVALID", status=409)


# --- Execution ---------------------------------------------------------------------------


def _tool_context(card: cards.Card, actor: ActorContext, locale: str) -> Any:
    from agent.tools import ToolContext

    return ToolContext.from_actor_context(actor, session_id=str(card.session_id), locale=locale)


def execute_claimed(
    card: cards.Card, *, actor: ActorContext, locale: str
) -> tuple[str, dict[str, Any]]:
    """Execute a card this request has claimed; return ``(outcome_kind, outcome)``.

    Needs: the caller holds the claim (state ``running`` with its attempt id). Runs the tool
    policy again with ``phase="execute", confirmed=True``, then the tool's domain service,
    the receipt row, the card's history row and the audit rows of the claim and the
    execution in one durable transaction (services open no savepoint inside it). No Redis
    call happens inside it. Any other outcome is written to the history row afterwards, and
    every path records ``confirm.claimed`` with what became of the claim.
    """
    try:
        kind, outcome = _execute(card, actor=actor, locale=locale)
        if kind != cards.OutcomeKind.SUCCEEDED:
            lifecycle.record_outcome(card.id, kind=kind, outcome=outcome)
    except DatabaseError:
        # The database went away after the claim (the failure's own audit or history row
        # could not be written): leave the outcome open, ok:null, like a lost COMMIT. The
        # receipt table settles it later (``resolve``); nothing runs twice.
        logger.exception("database lost while executing %s: outcome left open", card.id)
        _drop_connection()
        return _unknown(locale)
    return kind, outcome


def _execute(card: cards.Card, *, actor: ActorContext, locale: str) -> tuple[str, dict[str, Any]]:
    from agent.policy import enforce_tool_policy

    context = _tool_context(card, actor, locale)
    try:
        policy = enforce_tool_policy(
            tool_name=card.tool, args=card.args, context=context, phase="execute", confirmed=True
        )
    except LightNoteError as error:
        _audit_claim_and("action.failed", card, actor, code=error.code)
        return _failed(error, locale)
    except Exception:  # a bug in a tool's schema: nothing ran; settle, never leave it running
        logger.exception("tool policy crashed for %s", card.id)
        _audit_claim_and("action.failed", card, actor, code="ACTION_EXECUTION_FAILED")
        return _failed(LightNoteError("ACTION_EXECUTION_FAILED"), locale)

    commit_sent = False
    try:
        with durable_atomic():
            result = policy.tool.execute(policy.args, context)
            receipt = _create_receipt(
                card,
                status=ActionReceipt.Status.SUCCEEDED,
                subject=actor.subject,
                actor=actor.actor,
                summary=result.summary,
                resource_type=result.resource_type,
                resource_id=str(result.resource_id),
                result=result.data,
            )
            lifecycle.record_succeeded(card.id, receipt=receipt)
            audit_events(
                [
                    _card_entry("confirm.claimed", card, actor),
                    _card_entry(
                        "action.executed", card, actor, details={"summary": result.summary}
                    ),
                ]
            )
            # Everything after this line happens in COMMIT: an error from here on may come
            # after the database made the change durable.
            commit_sent = True
    except LightNoteError as error:  # a business failure: rolled back, nothing changed
        # Race: Redis lost the claim (failover) after an earlier execution committed; its
        # version bump or delete makes this run fail before the receipt's unique key could
        # fence it. The receipt, not this conflict, is the action's outcome.
        try:
            existing = _find_receipt(card.id)
        except DatabaseError:
            logger.exception("receipt lookup for %s failed after %s", card.id, error.code)
            _drop_connection()
            return _unknown(locale)  # re-checked against the receipt table later
        if existing is not None:
            _audit_claim_and("confirm.duplicate_execution_fenced", card, actor, code=error.code)
            return _outcome_from_receipt(existing, locale)
        _audit_claim_and("action.failed", card, actor, code=error.code)
        return _failed(error, locale)
    except IntegrityError:
        # The receipt slot is taken: an earlier execution (Redis lost the claim) or a void.
        existing = _find_receipt(card.id)
        if existing is None:
            logger.exception("integrity error executing %s", card.id)
            _audit_claim_and("action.failed", card, actor, code="ACTION_EXECUTION_FAILED")
            return _failed(LightNoteError("ACTION_EXECUTION_FAILED"), locale)
        _audit_claim_and("confirm.duplicate_execution_fenced", card, actor)
        return _outcome_from_receipt(existing, locale)
    except DatabaseError:
        if not commit_sent:
            logger.exception("database error executing %s (rolled back)", card.id)
            _audit_claim_and("action.failed", card, actor, code="ACTION_EXECUTION_FAILED")
            return _failed(LightNoteError("ACTION_EXECUTION_FAILED"), locale)
        logger.exception("COMMIT of %s raised: outcome unknown, looking the receipt up", card.id)
        return _after_unknown_commit(card, actor=actor, locale=locale)
    except Exception:
        # A bug in a tool or service. Raised inside the block it rolled the change back, so
        # the outcome is known: failed. (Only COMMIT itself can leave it unknown.) Settling
        # it keeps the card from hanging in ``running`` behind a 500 until its lease passes.
        if commit_sent:
            logger.exception("COMMIT of %s raised: outcome unknown", card.id)
            return _after_unknown_commit(card, actor=actor, locale=locale)
        logger.exception("executing %s crashed (rolled back)", card.id)
        _audit_claim_and("action.failed", card, actor, code="ACTION_EXECUTION_FAILED")
        return _failed(LightNoteError("ACTION_EXECUTION_FAILED"), locale)
    return _succeeded(receipt)


def _after_unknown_commit(
    card: cards.Card, *, actor: ActorContext, locale: str
) -> tuple[str, dict[str, Any]]:
    """Look the receipt up on a fresh connection; never re-run the action.

    A receipt means the COMMIT happened, and with it the claim's audit rows; without one,
    the claim is recorded here with the unknown outcome.
    """
    try:
        _drop_connection()
        existing = _find_receipt(card.id)
    except DatabaseError:
        logger.exception("receipt lookup for %s failed", card.id)
        existing = None
    if existing is not None:
        _audit_card("action.executed", card, actor, code="COMMIT_CONFIRMED_BY_RECEIPT")
        return _outcome_from_receipt(existing, locale)
    _audit_claim_and("action.outcome_unknown", card, actor, code="ACTION_OUTCOME_UNKNOWN")
    return _unknown(locale)


# --- The three endpoints' logic ----------------------------------------------------------


@store.riding  # a best-effort script after the commit (list counts) rides with the settle
def confirm(
    *, request: Any, actor: ActorContext, token: str, session_id: uuid.UUID, locale: str
) -> Answer:
    """Confirm a card: claim it and execute it once, or report what happened to it.

    Round trips to the control store on the way to an execution: read the card, claim it
    (with its running-index entry), count the claim against the rate limit, settle it (and
    leave the index). Only a request that won the claim is counted; one the limit refuses
    gives the claim back untouched (running -> ready) and answers 429, so the card stays
    confirmable.
    """
    card = load_card_for(
        request=request, actor=actor, token=token, session_id=session_id, action="confirm"
    )
    answer = answer_for_state(card, locale=locale)
    if answer is not None:
        _tally_repeat(card, actor)
        return answer
    attempt_id = uuid.uuid4().hex
    claim = cards.card_claim(token, attempt_id=attempt_id)
    if claim.status != cards.ClaimStatus.CLAIMED:
        # Another request won the race between our read and our claim.
        if claim.card is None:
            raise LightNoteError("CONFIRMATION_EXPIRED", status=410)
        answer = answer_for_state(claim.card, locale=locale)
        return answer or running_answer()
    try:
        limit_new_claim(request, user_id=actor.actor.pk)
    except LightNoteError:
        _give_back(token, attempt_id=attempt_id, card=card)
        raise
    kind, outcome = execute_claimed(card, actor=actor, locale=locale)
    try:
        settled = cards.card_settle(
            token, attempt_id=attempt_id, outcome_kind=kind, outcome=outcome
        )
    except LightNoteError:
        settled = False  # store down after the fact: the receipt stays the truth
    if not settled:
        # Our lease passed mid-run and a reconciler settled the card first (the receipt
        # fence makes both outcomes agree), or the store is down. Answer with the stored
        # outcome when there is one, so this answer and every replay are the same bytes.
        logger.warning("card %s executed but could not be settled by its executor", card.id)
        stored = _stored_final_outcome(card.digest)
        if stored is not None:
            return _settled(stored)
    return _settled(outcome)


def _give_back(token: str, *, attempt_id: str, card: cards.Card) -> None:
    """Release a claim that will not execute (best effort: if the store cannot answer, the
    lease runs out and reconciliation voids the card, which never executed)."""
    try:
        cards.card_release(token, attempt_id=attempt_id, expires_at=card.expires_at)
    except LightNoteError:
        logger.warning("claim on %s not given back: the store is unavailable", card.id)


def _stored_final_outcome(digest: str) -> dict[str, Any] | None:
    """Return the card's stored settled outcome unless it is still unknown (or unreadable)."""
    try:
        current = cards.card_get_by_digest(digest)
    except LightNoteError:
        return None
    if (
        current is None
        or current.state != CardState.SETTLED
        or current.outcome_kind == OutcomeKind.UNKNOWN
    ):
        return None
    return current.outcome


def reject(
    *, request: Any, actor: ActorContext, token: str, session_id: uuid.UUID, locale: str
) -> Answer:
    """Reject a ready card; a running or settled one answers 409 with its state."""
    card = load_card_for(
        request=request, actor=actor, token=token, session_id=session_id, action="reject"
    )
    result = cards.card_reject(token)
    if result.status == cards.RejectStatus.REJECTED:
        lifecycle.record_rejected(card.id)
        _audit_card("confirm.rejected", card, actor)
        return Answer(200, {"state": "rejected"})
    if result.status == cards.RejectStatus.GONE:
        raise LightNoteError("CONFIRMATION_EXPIRED", status=410)
    raise LightNoteError("CONFIRMATION_ALREADY_CLAIMED", status=409, outer={"state": result.state})


def status(
    *, request: Any, actor: ActorContext, token: str, session_id: uuid.UUID, locale: str
) -> Answer:
    """Report a card's state (and its outcome when settled)."""
    card = load_card_for(
        request=request, actor=actor, token=token, session_id=session_id, action="status"
    )
    if card.state == CardState.READY:
        return Answer(200, {"state": "ready"})
    if card.state == CardState.REJECTED:
        return Answer(200, {"state": "rejected"})
    answer = answer_for_state(card, locale=locale)
    return answer if answer and answer.status == 200 else Answer(200, {"state": "running"})


def reconcile_expired(*, locale: str = "zh-CN") -> int:
    """Resolve every running card whose lease passed, from the receipt table. Never executes.

    A card whose record fails its binding check is destroyed, as a confirm would, and never
    resolved: its ids could name another action's receipt slot, or another user.
    """
    resolved = 0
    for card in cards.cards_running_with_expired_lease():
        if not cards.card_binding_valid(card):
            cards.card_destroy(digest=card.digest)
            audit_event(
                "confirm.invalid",
                code="CONFIRMATION_INVALID",
                details={"by": "reconcile", "digest_prefix": card.digest[:12]},
            )
            continue
        if resolve(card, locale=locale) is not None:
            resolved += 1
    return resolved
