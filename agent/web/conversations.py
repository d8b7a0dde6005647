"""The browser session's conversation: remembered in the session, owned by the subject."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from agent import sessions
from agent.models import AgentSession
from lightnote.context import ActorContext
from lightnote.errors import LightNoteError

CONVERSATION_SESSION_KEY = "lightnote_agent_session"


def owned_conversation(actor: ActorContext, session_id: Any) -> AgentSession | None:
    """Return the subject's live conversation, or None (unknown, deleted or not theirs)."""
    try:
        return sessions.session_get(session_id=session_id, owner=actor.subject)
    except LightNoteError:
        return None


def current_conversation(request: HttpRequest, actor: ActorContext) -> AgentSession:
    """Return this browser session's conversation, opening one on the first visit.

    It belongs to the subject, as the API's does: in an admin read-only context the agent
    answers write requests with a notice, so a conversation there changes no user data.
    """
    remembered = request.session.get(CONVERSATION_SESSION_KEY)
    current = owned_conversation(actor, remembered) if remembered else None
    if current is None:
        current = open_conversation(request, actor)
    return current


def open_conversation(request: HttpRequest, actor: ActorContext) -> AgentSession:
    opened = sessions.session_create(owner=actor.subject)
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
