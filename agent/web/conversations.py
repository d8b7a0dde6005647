"""The browser session's conversation: remembered in the session.

Outside an admin context it is the user's own. Inside one it is the staff member's read-only
conversation bound to the context (``sessions.session_open_for``): the subject's
conversations are shown read-only, never written to.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from agent.conversation import sessions
from agent.models import AgentSession
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext

CONVERSATION_SESSION_KEY = "lightnote_agent_session"


def owned_conversation(actor: ActorContext, session_id: Any) -> AgentSession | None:
    """Return the conversation this page may post to, or None (unknown, deleted, not
    theirs, or — inside an admin context — not the context's own)."""
    try:
        return sessions.session_writable(session_id=session_id, actor=actor)
    except LightNoteError:
        return None


def current_conversation(request: HttpRequest, actor: ActorContext) -> AgentSession:
    """Return this browser session's conversation, opening one on the first visit."""
    remembered = request.session.get(CONVERSATION_SESSION_KEY)
    current = owned_conversation(actor, remembered) if remembered else None
    if current is None:
        try:
            current = open_conversation(request, actor)
        except LightNoteError as error:
            # At the conversation cap a new browser opens the newest one instead.
            current = _newest_conversation(actor) if error.code == CONVERSATION_CAP else None
            if current is None:
                raise
            request.session[CONVERSATION_SESSION_KEY] = str(current.id)
    return current


CONVERSATION_CAP = "CONVERSATION_LIMIT_REACHED"


def _newest_conversation(actor: ActorContext) -> AgentSession | None:
    return (
        AgentSession.objects.filter(
            owner=actor.subject, deleted_at__isnull=True, admin_context__isnull=True
        )
        .order_by("-updated_at", "-id")
        .first()
    )


def open_conversation(request: HttpRequest, actor: ActorContext) -> AgentSession:
    opened = sessions.session_open_for(actor=actor)
    request.session[CONVERSATION_SESSION_KEY] = str(opened.id)
    return opened


def posted_conversation(request: HttpRequest, actor: ActorContext, session_id: Any) -> AgentSession:
    """Return the conversation the page posted (its hidden field), else the session's own."""
    if not session_id:
        return current_conversation(request, actor)
    posted = owned_conversation(actor, session_id)
    if posted is None:
        raise LightNoteError("CHAT_CONVERSATION_NOT_FOUND", status=404)
    return posted


def subject_conversation(actor: ActorContext, session_id: Any) -> AgentSession | None:
    """Inside an admin context: one of the subject's conversations, to show read-only."""
    if actor.admin_context is None or not session_id:
        return None
    try:
        return sessions.session_get(session_id=session_id, owner=actor.subject)
    except LightNoteError:
        return None
