"""One user message: its readers -> proposals -> tool policy -> cards -> a guarded reply.

Read tools may run during planning (through the tool policy). Write proposals never run
here: each becomes a server-prepared card (with its continuation) or a notice saying why not
(``agent.conversation.decisions.Turn`` decides each). :func:`handle_message` lets the
readers decide what the message is (``agent.conversation.readers``: the pending question, a
choice pick, a correction, an undo, a list reference, the planner; with a model, the model),
acts on the reading, guards the reply against this session's receipts and writes the turn
(both messages, the cards' and choices' rows, their audit rows, the session's activity) in
one transaction. :func:`public_fact` is the API shape of a fact.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from agent.capabilities import capability_by_tool
from agent.cards import history as lifecycle
from agent.cards.changes import changes_of
from agent.cards.receipts import drop_connection
from agent.choices import store as choice_store
from agent.conversation import corrections as card_corrections
from agent.conversation import paging, pending, sessions
from agent.conversation import undo as card_undo
from agent.conversation.decisions import Turn
from agent.conversation.readers import read_message
from agent.conversation.reading import Reading, Said
from agent.conversation.streaming import GuardedSentences
from agent.guard import guard_reply, guarded_notice
from agent.guard.provenance import merge
from agent.guard.records import audit_guard, session_backings
from agent.models import AgentSession, Choice, Message
from agent.planners.base import Fact
from lightnote.audit import audit_entry
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext
from lightnote.ops import metrics
from lightnote.texts.i18n import define_messages, translate

logger = logging.getLogger(__name__)

HISTORY_TURNS = 20
PROSE_KEPT = 2000  # characters of a withheld model text the audit row keeps

define_messages(
    {
        "AGENT_PLEASE_CONFIRM": (
            "请检查下面的确认卡；只有你确认后才会执行。",
            "Please review the card below; nothing happens until you confirm it.",
        ),
        "AGENT_PLEASE_CONFIRM_EACH": (
            "请逐一检查下面的 {count} 张确认卡；每张都只有你确认后才会执行。",
            "Please review the {count} cards below; each one happens only when you confirm it.",
        ),
        "AGENT_PLEASE_CHOOSE": (
            "有几项都符合，请在下面选出你指的那一项；选择之前什么都不会改变。",
            "Several items match; pick the one you mean below. Nothing changes before that.",
        ),
        "AGENT_PLANNER_FAILED": (
            "助手暂时无法处理这条消息，没有执行任何操作，请稍后重试。",
            "The assistant could not handle this message; nothing was done. Please retry.",
        ),
    }
)


def _session_history(
    session: AgentSession, recent: Sequence[sessions.RecentMessage] | None = None
) -> tuple[list[dict[str, str]], list[dict[str, str]], list[dict[str, str]]]:
    """Return the history the planner sees, the stored items read on those turns, and the
    items the last message listed (when it is the assistant's:
    ``agent.conversation.list_references``).

    ``recent``: the session's latest ``HISTORY_TURNS`` messages (role, text and
    ``reads``), newest first, when the caller read them already
    (``sessions.session_get_with_recent``); else they are read here (one query).
    """
    if recent is None:
        recent = sessions.recent_messages(session=session, limit=HISTORY_TURNS)
    history = [{"role": message.role, "text": message.text} for message in reversed(recent)]
    reads = merge(
        message.reads or []
        for message in reversed(recent)
        if message.role == Message.Role.ASSISTANT
    )
    last = recent[0] if recent else None
    listed = list(last.reads or []) if last and last.role == Message.Role.ASSISTANT else []
    return history, reads, listed


def public_fact(fact: Fact) -> dict[str, Any]:
    """Return a fact as the API shows it: the summary, plus the items a read found.

    A read tool's data names its items under the plural of its capability's resource
    (``todo.query`` -> ``{"count", "todos": [...]}``); each item keeps its fields (``id``,
    ``title``, ...) and gains ``type``, so a client can render and link a list. A failed
    read carries its ``code``. A list names the item page showing it (``link``).
    """
    body: dict[str, Any] = {"tool": fact.tool, "status": fact.status, "summary": fact.summary}
    if fact.status != "succeeded":
        if fact.data.get("code"):
            body["code"] = fact.data["code"]
        return body
    capability = capability_by_tool(fact.tool)
    resource = capability.id.split(".", 1)[0] if capability else ""
    found = fact.data.get(f"{resource}s") if resource else None
    if isinstance(found, list):
        body["count"] = fact.data.get("count", len(found))
        body["items"] = [
            {"type": resource, **item} for item in found if isinstance(item, dict) and "id" in item
        ]
    if isinstance(fact.data.get("link"), str):
        body["link"] = fact.data["link"]  # the item page showing the same list
    return body


def _pending_request(actor: ActorContext, session_id: str) -> pending.PendingRequest | None:
    """Return the session's pending request; an unreachable store reads as none.

    Reading it is a convenience (completing a question): without it the message is planned
    as a new request, which can only be less helpful, never write anything.
    """
    try:
        return pending.pending_get(owner_id=actor.subject.pk, session_id=session_id)
    except LightNoteError as error:
        if error.status < 500:
            raise
        logger.warning("pending request unavailable for session %s", session_id)
        return None


def handle_message(
    *,
    request: Any,
    actor: ActorContext,
    session: AgentSession,
    text: str,
    locale: str,
    recent: Sequence[sessions.RecentMessage] | None = None,
    on_sentence: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Handle one user message and return the API's message body (:func:`_handle_message`).

    A lease the turn takes (an undo's, ``agent.cards.undo``) is held until the turn's writes
    have committed and given back however it ends. ``on_sentence``: a streamed turn's
    sink for the model's reply, a guarded sentence at a time
    (:class:`agent.conversation.streaming.GuardedSentences`); it may raise
    ``TurnCancelled``, which ends the turn with nothing written.
    """
    with ExitStack() as leases:
        return _handle_message(
            request=request,
            actor=actor,
            session=session,
            text=text,
            locale=locale,
            recent=recent,
            leases=leases,
            on_sentence=on_sentence,
        )


def _handle_message(
    *,
    request: Any,
    actor: ActorContext,
    session: AgentSession,
    text: str,
    locale: str,
    recent: Sequence[sessions.RecentMessage] | None,
    leases: ExitStack,
    on_sentence: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Handle one user message and return the API's message body.

    Needs: ``session`` belongs to the caller; ``recent``, if given, is its latest
    ``HISTORY_TURNS`` messages, newest first (``sessions.RecentMessage``).
    Issues cards (Redis) outside any database transaction, then writes the user's message,
    the assistant's guarded reply, the cards' history rows (with their ``card.issued`` audit
    rows) and the session's title/activity together in one transaction: a turn that fails
    (store down, rate limited) leaves no half-turn.
    """
    history, earlier_reads, listed = _session_history(session, recent)
    turn = Turn(
        request=request,
        actor=actor,
        session=session,
        text=text,
        locale=locale,
        earlier_reads=earlier_reads,
    )
    # The store holds a pending question only if an earlier turn left one that has not
    # expired (the session row says so): otherwise there is nothing to read.
    waiting = (
        _pending_request(actor, str(session.id)) if sessions.may_have_pending(session) else None
    )
    listener = _sentence_listener(turn, on_sentence) if on_sentence is not None else None
    said = Said(turn, text, locale, history, listed, waiting, leases, listener)
    reading = read_message(said)
    reply = _act(turn, reading)
    pending_until = _keep_pending(turn, waiting)
    original = reply
    # Every model text is guarded, whatever the turn looks like: a claim is kept only when
    # one of this session's succeeded receipts backs it (no write executes during a turn).
    verdict = guard_reply(
        reply,
        backings=lambda: session_backings(session.id),
        locale=locale,
        titles=_read_titles(turn),
    )
    shown = verdict.text
    if verdict.replaced:
        turn.notices.append(guarded_notice(verdict))
        metrics.guard_removed(situation="turn_reply")
    elif turn.cards or turn.choices:
        # A turn that issues a card or a choice speaks with the server's own text: the
        # model's prose beside a proposal is never shown (kept in the audit log). Prose
        # that claims a write is replaced instead, so the reply says it did not run.
        _withhold_prose(turn, original)
        shown = ""
    reply = _reply_text(turn, reading, shown)
    facts = [public_fact(fact) for fact in turn.facts]
    user_message, message = _messages(turn, text=text, reply=reply, facts=facts)
    _persist(
        turn,
        reading,
        user_message=user_message,
        message=message,
        pending_until=pending_until,
        guarded=(verdict, original) if verdict.replaced else None,
    )
    return {
        "message_id": str(message.id),
        "reply": reply,
        "facts": facts,
        "cards": turn.cards,
        "choices": turn.choices,
        "notices": turn.notices,
        # No write runs during a message turn: nothing changed, its cards wait.
        "changes": changes_of([], locale=turn.reply_locale, waiting=len(turn.cards)),
    }


def _sentence_listener(turn: Turn, deliver: Callable[[str], None]) -> GuardedSentences:
    """Hear the model's reply for a streamed turn, guarded as the turn's reply is below."""
    return GuardedSentences(
        deliver=deliver,
        session_id=turn.session.id,
        locale=turn.locale,
        titles=lambda: _read_titles(turn),
    )


def _read_titles(turn: Turn) -> tuple[str, ...]:
    """The titles of the stored items read on this turn (the reply may name them)."""
    return tuple(source["title"] for source in turn.reads() if source.get("title"))


def _act(turn: Turn, reading: Reading) -> str:
    """Act on the reading: its facts, its question, a card per proposal; return its text."""
    plan = reading.plan
    if plan.error:
        return plan.text or translate("AGENT_PLANNER_FAILED", turn.reply_locale)
    for fact in plan.facts:
        if fact not in turn.facts:
            turn.facts.append(fact)
    if plan.clarify is not None:
        turn.ask(plan.clarify)
        plan.text = ""  # the notice carries the question (worded with its candidates)
    for proposal in plan.proposals:
        turn.card_for(proposal)
    if reading.corrected is not None and not card_corrections.supersede(turn, reading.corrected):
        reading.corrected = None  # refused, asked about, or too late: the old card stands
    turn.audit_over_card_limit()
    return plan.text or ""


def _keep_pending(turn: Turn, waiting: pending.PendingRequest | None) -> Any:
    """One pending request per session: this turn's question replaces any older one, and a
    turn that asked nothing ends the wait (answered, cancelled, or a new request). Return
    until when the stored question waits (None: none)."""
    session_id = str(turn.session.id)
    if turn.asked is not None:
        pending.pending_save(
            owner_id=turn.actor.subject.pk, session_id=session_id, request=turn.asked
        )
        # Read after the save, so the hint never expires before the stored question.
        return timezone.now() + timedelta(seconds=settings.LIGHTNOTE_PENDING_TTL)
    if waiting is not None:
        pending.pending_clear(session_id=session_id)
    return None


def _withhold_prose(turn: Turn, prose: str) -> None:
    """Queue the audit row keeping the model's prose a card turn does not show."""
    if not prose.strip():
        return
    turn.audit_rows.append(
        audit_entry(
            "turn.prose_withheld",
            actor=turn.actor.actor,
            subject=turn.actor.subject,
            session_id=turn.session.id,
            details={"text": prose[:PROSE_KEPT]},
        )
    )


def _reply_text(turn: Turn, reading: Reading, guarded: str) -> str:
    """The reply shown: the guarded text, or the server's own sentence for what the turn
    did, then each distinct refusal's reason (docs/api.md: a refused proposal's reason
    appears in the reply, also after a replacement)."""
    reply = guarded
    if reading.corrected is not None and not reply.strip():
        reply = card_corrections.corrected_reply(turn.reply_locale)
    if reading.undoing is not None and reading.undoing.card is not None and not reply.strip():
        reply = card_undo.offered_reply(turn.reply_locale)
    if turn.cards and not reply.strip():
        several = len(turn.cards) > 1
        reply = translate(
            "AGENT_PLEASE_CONFIRM_EACH" if several else "AGENT_PLEASE_CONFIRM",
            turn.reply_locale,
            count=len(turn.cards),
        )
    if turn.choices and not reply.strip():
        reply = translate("AGENT_PLEASE_CHOOSE", turn.reply_locale)
    # Each distinct reason once (70 proposals over the card limit are one sentence).
    refusals = list(
        dict.fromkeys(
            notice["message"]
            for notice in turn.notices
            if notice["message"] and notice["status"] != "guarded"
        )
    )
    return "\n".join(part for part in [reply.strip(), *refusals] if part)


def _messages(
    turn: Turn, *, text: str, reply: str, facts: list[dict[str, Any]]
) -> tuple[Message, Message]:
    """The turn's two messages, unsaved (ids and times are set here, not by the database)."""
    user_message = Message(
        session=turn.session, role=Message.Role.USER, text=text, created_at=turn.context.now
    )
    message = Message(
        session=turn.session,
        role=Message.Role.ASSISTANT,
        text=reply,
        # Strictly after the question, so history keeps its order even on a coarse clock.
        created_at=max(timezone.now(), user_message.created_at + timedelta(microseconds=1)),
        reads=turn.reads(),
        payload={
            "facts": facts,
            "notices": turn.notices,
            # Public parts only: a raw token is never stored.
            "cards": [
                {key: value for key, value in card.items() if "token" not in key}
                for card in turn.cards
            ],
            "choices": [
                {key: value for key, value in choice.items() if key != "token"}
                for choice in turn.choices
            ],
            **paging.stored(turn),  # the lists read, for their next page (never shown)
        },
    )
    return user_message, message


def _persist(
    turn: Turn,
    reading: Reading,
    *,
    user_message: Message,
    message: Message,
    pending_until: Any,
    guarded: tuple[Any, str] | None,
) -> None:
    """The turn's writes, one transaction: the session's touch, the messages, the cards'
    rows, the choices, and their audit rows.

    The touch comes first: it takes the session row's write lock before the inserts'
    foreign-key checks take their shared one, so two turns of one conversation at once (two
    tabs) wait for each other instead of deadlocking (each holding the shared lock, each
    then asking for the write lock: MariaDB would refuse one with a 503).
    """
    session, actor = turn.session, turn.actor
    commits = not connection.in_atomic_block
    committing = False
    try:
        with transaction.atomic():
            sessions.session_touch(
                session=session, first_text=user_message.text, pending_until=pending_until
            )
            Message.objects.bulk_create([user_message, message])
            lifecycle.record_issued(turn.card_rows, message=message)
            record_choices(turn, message=message)
            if reading.corrected is not None:
                card_corrections.record(turn, reading.corrected)
            if reading.undoing is not None:
                card_undo.record_offer(turn, reading.undoing)
            turn.flush_audit()
            if guarded is not None:
                verdict, original = guarded
                audit_guard(verdict, actor=actor, session_id=session.id, original=original)
            committing = commits  # what fails from here on is the COMMIT
    except DatabaseError as error:
        if not committing:
            raise
        _saved_after_all(error, session=session, message=message)


def _saved_after_all(error: BaseException, *, session: AgentSession, message: Message) -> None:
    """The turn's COMMIT may have happened (its reply was lost): ask a fresh connection.

    Saved: the turn stands and is answered as usual (its card's token is still in hand;
    the session row is read again for its new title and times). Not saved, or no answer:
    ``error`` is raised (a lost database answers 503), and nothing of the turn is in the
    database; its card records in the store were never shown, so nothing can confirm them.
    """
    logger.warning("the COMMIT of a message turn on %s failed: %s", session.id, error)
    if connection.in_atomic_block:  # a caller's transaction: it fails as a whole
        raise error
    drop_connection()
    try:
        saved = Message.objects.filter(id=message.id).exists()
        if saved:
            session.refresh_from_db(fields=["title", "updated_at", "pending_until"])
    except DatabaseError:
        raise error from None
    if not saved:
        raise error
    logger.warning("the message turn %s was saved after all", message.id)


def record_choices(turn: Turn, *, message: Message | None) -> None:
    """Write the turn's choice rows and the picks it made. Needs: the turn's transaction,
    after the cards' rows (a pick names its card)."""
    for row in turn.choice_rows:
        row.message = message
    if turn.choice_rows:
        Choice.objects.bulk_create(turn.choice_rows)
    for choice_id, candidate_id, card_id in turn.chosen:
        choice_store.record_chosen(choice_id, candidate_id=candidate_id, card_id=card_id)
