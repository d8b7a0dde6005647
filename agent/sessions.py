"""Conversations: the one place that finds, lists, titles, renames and deletes them.

Every caller (API, chat page, confirmation and continuation checks) resolves a session
through here, so a deleted session is 404 everywhere and another user's is never revealed.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime, tzinfo
from enum import StrEnum
from typing import Any, NamedTuple

from django.core.exceptions import ValidationError
from django.db import connections, router, transaction
from django.db.models import QuerySet, TextField
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from agent import choice_store, lifecycle
from agent.models import TITLE_MAX, ActionCard, AgentSession, Message
from lightnote.audit import audit_event
from lightnote.compiled_queries import STAND_IN_INTS, STAND_IN_UUIDS, compiled_select
from lightnote.context import ActorContext
from lightnote.errors import LightNoteError
from lightnote.field_checks import checked_line
from lightnote.i18n import define_messages
from lightnote.write_statements import ConditionalUpdate, Result, Statement

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


class SessionAccess(StrEnum):
    OWN = "own"
    DELETED = "deleted"  # the caller's own, soft-deleted: 404
    NONE = "none"  # unknown or another user's


# --- Selectors -------------------------------------------------------------------------------


def session_access(*, session_id: Any, owner: Any) -> SessionAccess:
    """Say whether ``session_id`` is ``owner``'s live session, their deleted one, or neither.

    One query. Confirmation and continuation checks use it: a deleted session answers 404
    there too, while a session that is not the caller's stays a 403 of those endpoints.
    """
    try:
        row = (
            AgentSession.objects.filter(id=session_id, owner=owner)
            .values_list("id", "deleted_at")
            .first()
        )
    except (ValidationError, ValueError):
        return SessionAccess.NONE
    if row is None:
        return SessionAccess.NONE
    return SessionAccess.OWN if row[1] is None else SessionAccess.DELETED


def session_get(*, session_id: Any, owner: Any, admin_context: Any = None) -> AgentSession:
    """Return ``owner``'s live session; unknown, deleted or another user's: 404.

    Without ``admin_context`` only ordinary conversations are found; with it, only the
    staff member's read-only conversations bound to that context.
    """
    try:
        session = (
            AgentSession.objects.live()
            .filter(id=session_id, owner=owner, admin_context=admin_context)
            .first()
        )
    except (ValidationError, ValueError):
        session = None
    if session is None:
        raise LightNoteError("SESSION_NOT_FOUND", status=404)
    return session


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


# What the history query reads of the session: the columns its filter does not fix (the
# owner is the caller; a live, ordinary session has no ``deleted_at`` nor admin context).
# Its times come as text (``Cast``): they repeat on every row, and the driver would parse
# each one (mysqlclient parses a DATETIME in Python, about 3.5 µs: two times on 20 rows;
# about 65 µs of a card turn's CPU, measured); the first row's are parsed here
# (``_stored_time``).
_RECENT_SESSION_TIMES = ("created_at", "updated_at", "pending_until")
_RECENT_SESSION_COLUMNS: tuple[Any, ...] = (
    "session_id",
    "session__title",
    *(Cast(f"session__{name}", output_field=TextField()) for name in _RECENT_SESSION_TIMES),
)


_RECENT_SESSION_POSITIONS = frozenset(
    range(len(RECENT_MESSAGE_COLUMNS), len(RECENT_MESSAGE_COLUMNS) + len(_RECENT_SESSION_COLUMNS))
)


def _recent_query(limit: int) -> Callable[[uuid.UUID, int], Any]:
    def build(session_id: uuid.UUID, owner_id: int) -> Any:
        return (
            Message.objects.filter(
                session_id=session_id,
                session__owner_id=owner_id,
                session__deleted_at__isnull=True,
                session__admin_context__isnull=True,  # an ordinary conversation (session_get)
            )
            .order_by("-created_at", "-id")
            .values_list(*RECENT_MESSAGE_COLUMNS, *_RECENT_SESSION_COLUMNS)[:limit]
        )

    return build


def _recent_rows(session_id: uuid.UUID, owner_id: int, limit: int) -> list[Any]:
    """The history query's rows: compiled once per thread and ``limit`` (every message turn
    runs it; building it with the ORM cost about as much as running it)."""
    build = _recent_query(limit)
    compiled = compiled_select(
        ("agent.session_recent", limit),
        build,
        alias=router.db_for_read(Message),
        stand_ins=(STAND_IN_UUIDS[0], STAND_IN_INTS[0]),
        other_stand_ins=(STAND_IN_UUIDS[1], STAND_IN_INTS[1]),
    )
    if compiled is None:  # a shape that cannot be compiled: the ORM each time
        return list(build(session_id, owner_id))
    # The session's columns are read from the first row only (the same on every row).
    return compiled.rows(session_id, owner_id, first_row_only=_RECENT_SESSION_POSITIONS)


def _stored_time(text: str | None, zone: tzinfo | None) -> datetime | None:
    """A session time as the history query reads it (a ``DateTimeField`` cast to text,
    ``YYYY-MM-DD HH:MM:SS[.ffffff]`` in the connection's zone ``zone`` on MariaDB and
    SQLite), as the ORM would return it: aware, in that zone."""
    if text is None:
        return None
    parsed = parse_datetime(text)
    if parsed is None:
        raise ValueError(f"not a stored time: {text!r}")
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=zone)


def session_get_with_recent(
    *, session_id: Any, owner: Any, limit: int
) -> tuple[AgentSession, list[RecentMessage]]:
    """Return ``owner``'s live session and its ``limit`` latest messages, newest first.

    One query (the messages' role, text and payload ``reads``, joined to the session's
    columns that its filter does not fix) when the session has messages; a session without
    any costs a second one (:func:`session_get`). Unknown, deleted or another user's: 404,
    as for :func:`session_get`.
    """
    width = len(RECENT_MESSAGE_COLUMNS)
    owner_id = getattr(owner, "pk", owner)
    try:
        rows = _recent_rows(uuid.UUID(str(session_id)), int(owner_id), limit)
    except (ValidationError, ValueError):
        rows = []
    if not rows:
        return session_get(session_id=session_id, owner=owner), []
    found_id, title, *times = rows[0][width:]
    zone = connections[router.db_for_read(Message)].timezone
    created_at, updated_at, pending_until = (_stored_time(text, zone) for text in times)
    values = {
        "id": found_id,
        "owner_id": owner_id,
        "title": title,
        "created_at": created_at,
        "updated_at": updated_at,
        "pending_until": pending_until,
        "deleted_at": None,
        "admin_context_id": None,
    }
    # Every concrete field, or a KeyError: a field added to the model must be read here.
    names = [field.attname for field in AgentSession._meta.concrete_fields]
    session = AgentSession.from_db(Message.objects.db, names, [values[name] for name in names])
    return session, [RecentMessage(*row[:width]) for row in rows]


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
    """Open a conversation owned by ``owner``."""
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


# ``touch_statement``'s UPDATEs, built once: every message turn makes one. The titling one
# titles only an untitled row (a rename meanwhile wins) and moves the times either way.
_TOUCH = ConditionalUpdate(AgentSession, fields=("updated_at", "pending_until"))
_TOUCH_TITLED = ConditionalUpdate(
    AgentSession,
    fields=("updated_at", "pending_until"),
    also_set="title = CASE WHEN title = '' THEN %s ELSE title END",
)


def touch_statement(
    *,
    session: AgentSession,
    first_text: str | None = None,
    pending_until: datetime | None = None,
) -> Statement:
    """The UPDATE moving the session's ``updated_at`` and setting its ``pending_until``,
    titling it from ``first_text`` if untitled; ``session`` shows the change once it ran.

    ``pending_until``: when the pending question this turn stored expires (None: the turn
    left none). Needs: the message turn's transaction.
    """
    now = timezone.now()
    changes = {"updated_at": now, "pending_until": pending_until}
    title = None
    if first_text is not None and not session.title:
        title = title_from_text(first_text)

    def done(result: Result) -> None:
        if title is not None:
            session.title = title
        session.updated_at = now
        session.pending_until = pending_until

    if title is not None:
        # A rename meanwhile wins: only an untitled row takes the title; the times (and
        # with them the pending question's hint) are written either way.
        return _TOUCH_TITLED.statement(session.id, changes, set_params=(title,), done=done)
    return _TOUCH.statement(session.id, changes, done=done)


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
