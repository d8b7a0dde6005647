"""The agent's passes through the admin read-only gate (``lightnote.impersonation.readonly``).

Inside an admin context a staff member may talk to the agent — in their own read-only
conversation bound to the context, never in one of the subject's — and switch the page
language. Each pass writes no user data: the context's conversation is the staff member's,
and the agent there answers every write proposal with an ``ADMIN_READONLY`` notice.
"""

from __future__ import annotations

from typing import Any

from agent.conversation import sessions
from lightnote.impersonation.context import ActorContext
from lightnote.impersonation.readonly import register_pass


def _to_context_session(request: Any, context: ActorContext, kwargs: dict[str, Any]) -> bool:
    """A message to the API: only into the conversation bound to the active context."""
    return sessions.is_context_session(session_id=kwargs.get("session_id"), actor=context)


def _chat_to_context_session(request: Any, context: ActorContext, kwargs: dict[str, Any]) -> bool:
    """A message from the chat page: its posted conversation (none: the page's current one,
    which inside a context is the context's own) must be the context's."""
    posted = getattr(request, "POST", {}).get("session_id") or ""
    return not posted or sessions.is_context_session(session_id=posted, actor=context)


def register() -> None:
    register_pass("agent-sessions")  # POST opens the staff member's context conversation
    register_pass("agent-messages", _to_context_session)
    register_pass("chat-message", _chat_to_context_session)
    register_pass("chat-new")  # opens a new context conversation
    register_pass("chat-language")  # a cookie, no user data
