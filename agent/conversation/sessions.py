"""Conversations: the one place that finds, lists, titles, renames and deletes them.

Every caller (API, chat page, confirmation and continuation checks) resolves a session
through here, so a deleted session is 404 everywhere and another user's is never revealed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from django.db import transaction
from django.db.models import Case, F, QuerySet, Value, When
from django.utils import timezone

from agent.access import live_session
from agent.cards import history as lifecycle
from agent.choices import store as choice_store
from agent.models import TITLE_MAX, ActionCard, AgentSession, Message
from lightnote.accounts.caps import enforce_cap
from lightnote.audit import audit_event
from lightnote.errors import LightNoteError
from lightnote.field_checks import checked_line
from lightnote.impersonation.context import ActorContext
from lightnote.texts.i18n import define_messages

define_messages(
    {
        "SESSION_NOT_FOUND": ("会话不存在。", "The conversation does not exist."),
        "SESSION_TITLE_REQUIRED": ("请填写对话标题。", "The title must not be empty."),
        "SESSION_TITLE_TOO_LONG": (
            "对话标题最多 {max} 个字符。",
            "The title is at most {max} characters long.",
        ),
    }
)


# The session reads every access check needs live in ``agent.access``; a conversation's
# own pages and API use them under these names.
session_get = live_session


class RecentMessage(NamedTuple):
    """What a turn reads of an earlier message (the planner's history): its role, its text,
    and its ``reads`` (the stored items read on that turn; None when absent)."""

    role: str
    text: str
    reads: Any


# The columns of a message that ``RecentMessage`` holds: never the payload, so a turn
# never transfers or decodes earlier cards, facts and notices.
RECENT_MESSAGE_COLUMNS = ("role", "text", "reads")


def recent_messages(*, session: AgentSession, limit: int) -> list[RecentMessage]:
    """Return the session's ``limit`` latest messages, newest first (one query)."""
    rows = session.messages.order_by("-created_at", "-id").values_list(*RECENT_MESSAGE_COLUMNS)
    return [RecentMessage(*row) for row in rows[:limit]]


def last_turn_cards(*, session: AgentSession, limit: int = 5) -> list[ActionCard]:
    """The card rows (receipts loaded) of the session's last message when it is the
    assistant's: what the user has in front of them; else none. Two queries at most."""
    last = (
        Message.objects.filter(session=session)
        .order_by("-created_at", "-id")
        .values_list("id", "role")
        .first()
    )
    if last is None or last[1] != Message.Role.ASSISTANT:
        return []
    return list(
        ActionCard.objects.filter(message_id=last[0])
        .select_related("receipt")
        .order_by("created_at", "id")[:limit]
    )


def recent_card_rows(*, session: AgentSession, owner: Any, limit: int) -> list[ActionCard]:
    """The session's cards that ran or wait, newest first (receipts loaded): where an undo
    said in the chat looks for the last change."""
    return list(
        ActionCard.objects.filter(session=session, owner=owner)
        .exclude(state__in=(ActionCard.State.REJECTED, ActionCard.State.VOIDED))
        .select_related("receipt")
        .order_by("-created_at", "-id")[:limit]
    )


def session_get_with_recent(
    *, session_id: Any, owner: Any, limit: int
) -> tuple[AgentSession, list[RecentMessage]]:
    """Return ``owner``'s live session and its ``limit`` latest messages, newest first.

    Two queries: the session (:func:`session_get`: unknown, deleted or another user's is a
    404) and its messages' role, text and ``reads`` (:func:`recent_messages`).
    """
    session = session_get(session_id=session_id, owner=owner)
    return session, recent_messages(session=session, limit=limit)


def context_session_get(*, session_id: Any, actor: ActorContext) -> AgentSession:
    """Return the staff member's conversation bound to the active admin context (404 else).

    The only conversation an agent message may go to inside an admin context: it is the
    staff member's, it reads the subject's data through the context, and it never yields a
    card (every write proposal is an ``ADMIN_READONLY`` notice).
    """
    if actor.admin_context is None:
        raise LightNoteError("SESSION_NOT_FOUND", status=404)
    return session_get(session_id=session_id, owner=actor.actor, admin_context=actor.admin_context)


def is_context_session(*, session_id: Any, actor: ActorContext) -> bool:
    """Say whether ``session_id`` names the live conversation bound to ``actor``'s context."""
    try:
        context_session_get(session_id=session_id, actor=actor)
    except LightNoteError:
        return False
    return True


def session_readable(*, session_id: Any, actor: ActorContext) -> AgentSession:
    """Return a conversation the request may read: the subject's own, or (inside an admin
    context) the staff member's conversation bound to it. Anything else: 404."""
    try:
        return session_get(session_id=session_id, owner=actor.subject)
    except LightNoteError:
        if actor.admin_context is None:
            raise
        return context_session_get(session_id=session_id, actor=actor)


def session_writable(*, session_id: Any, actor: ActorContext) -> AgentSession:
    """Return the conversation a message may go to: the caller's own outside a context, the
    context's conversation inside one (the subject's are refused before this: 403)."""
    if actor.admin_context is not None:
        return context_session_get(session_id=session_id, actor=actor)
    return session_get(session_id=session_id, owner=actor.subject)


def session_list(*, owner: Any) -> QuerySet[AgentSession]:
    """Return ``owner``'s live ordinary sessions, the latest activity first (a staff
    member's context conversations are never listed: they hold another user's data)."""
    return (
        AgentSession.objects.live()
        .filter(owner=owner, admin_context__isnull=True)
        .order_by("-updated_at", "-id")
    )


def session_messages(*, session: AgentSession) -> QuerySet[Message]:
    """Return the session's messages oldest first, their card rows (and receipts) prefetched."""
    from django.db.models import Prefetch

    return session.messages.order_by("created_at", "id").prefetch_related(
        Prefetch(
            "cards",
            queryset=ActionCard.objects.select_related("receipt").order_by("created_at", "id"),
        )
    )


# --- Services --------------------------------------------------------------------------------


def title_from_text(text: str) -> str:
    """Return a title made of the first user message: one line, at most ``TITLE_MAX``."""
    line = " ".join(text.split())
    return line if len(line) <= TITLE_MAX else line[: TITLE_MAX - 1] + "…"


def session_create(*, owner: Any) -> AgentSession:
    """Open a conversation owned by ``owner`` (403 ``CONVERSATION_LIMIT_REACHED`` past the cap)."""
    enforce_cap("conversation", owner=owner)
    return AgentSession.objects.create(owner=owner)


def session_open_for(*, actor: ActorContext) -> AgentSession:
    """Open the caller's conversation: the subject's own outside an admin context; inside
    one, the staff member's read-only conversation bound to it (audited)."""
    if actor.admin_context is None:
        return session_create(owner=actor.subject)
    session = AgentSession.objects.create(owner=actor.actor, admin_context=actor.admin_context)
    audit_event(
        "admin.session_opened",
        actor=actor.actor,
        subject=actor.subject,
        session_id=session.id,
        details={"context_id": actor.admin_context_id},
    )
    return session


def session_touch(
    *,
    session: AgentSession,
    first_text: str | None = None,
    pending_until: datetime | None = None,
) -> None:
    """Move the session's ``updated_at``, set its ``pending_until`` and title it from
    ``first_text`` if untitled (one UPDATE); ``session`` shows the change.

    ``pending_until``: when the pending question this turn stored expires (None: the turn
    left none). A rename meanwhile wins: only an untitled row takes the title. Needs: the
    message turn's transaction.
    """
    now = timezone.now()
    changes: dict[str, Any] = {"updated_at": now, "pending_until": pending_until}
    title = title_from_text(first_text) if first_text is not None and not session.title else None
    if title is not None:
        changes["title"] = Case(When(title="", then=Value(title)), default=F("title"))
    AgentSession.objects.filter(id=session.id).update(**changes)
    if title is not None:
        session.title = title
    session.updated_at = now
    session.pending_until = pending_until


def may_have_pending(session: AgentSession) -> bool:
    """Whether the session's last turn left a pending question that may still wait in the
    store (``pending_until``): only then does a turn read the store for it."""
    return session.pending_until is not None and session.pending_until > timezone.now()


def session_rename(*, session: AgentSession, title: str) -> AgentSession:
    """Rename the conversation; a blank or over-long title is a 400 (a control character
    too: the input policy, ``lightnote.field_checks.checked_line``)."""
    title = checked_line(title, field="title")
    if not title:
        raise LightNoteError("SESSION_TITLE_REQUIRED", extra={"fields": {"title": ["blank"]}})
    if len(title) > TITLE_MAX:
        raise LightNoteError(
            "SESSION_TITLE_TOO_LONG",
            params={"max": TITLE_MAX},
            extra={"fields": {"title": ["max_length"]}},
        )
    session.title = title
    session.updated_at = timezone.now()
    session.save(update_fields=["title", "updated_at"])
    return session


def session_delete(*, session: AgentSession, actor: Any) -> None:
    """Soft-delete the conversation and void its ready cards (their tokens then answer 410).

    The session row and its card rows change in one transaction; the live store records
    are voided after the commit (a card claimed meanwhile keeps running and settles as
    usual). From the commit on, every endpoint answers 404 for this session.
    """
    with transaction.atomic():
        AgentSession.objects.filter(id=session.id, deleted_at__isnull=True).update(
            deleted_at=timezone.now()
        )
        digests = lifecycle.void_session_cards(session)
        choices = choice_store.void_session_choices(session)
        audit_event(
            "session.deleted",
            actor=actor.actor,
            subject=actor.subject,
            session_id=session.id,
            details={"voided_cards": len(digests), "voided_choices": len(choices)},
        )
    lifecycle.void_live_records(digests)
    choice_store.void_live_choices(choices)
