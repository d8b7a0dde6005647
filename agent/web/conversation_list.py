"""The conversation list's entries: newest first, titled, the one on screen marked."""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from django.urls import reverse

from agent import sessions
from agent.models import TITLE_MAX, AgentSession
from agent.web.presenters import time_view, zone_of
from lightnote.context import ActorContext
from lightnote.i18n import translate

LIST_LIMIT = 50


def conversation_links(
    actor: ActorContext, current: AgentSession | None, *, locale: str
) -> list[dict[str, Any]]:
    """Return the subject's ``LIST_LIMIT`` newest conversations for the list (one query).

    Older ones stay reachable by their URL and through the API's paginated list.
    """
    zone = zone_of(actor)
    return [
        _entry(row, current=current, zone=zone, locale=locale)
        for row in sessions.session_list(owner=actor.subject)[:LIST_LIMIT]
    ]


def conversation_item(actor: ActorContext, current: AgentSession, *, locale: str) -> dict[str, Any]:
    """Return the list entry of ``current`` (sent out of band after a message: its title).

    Needs: ``current`` as the turn left it (``sessions.touch_statement`` sets its title and time).
    """
    return _entry(current, current=current, zone=zone_of(actor), locale=locale)


def _entry(
    row: AgentSession, *, current: AgentSession | None, zone: ZoneInfo, locale: str
) -> dict[str, Any]:
    title = row.title or translate("CHAT_CONVERSATION_UNTITLED", locale)
    return {
        "id": str(row.id),
        "title": title,
        "url": reverse("chat-conversation", args=[row.id]),
        "rename_url": reverse("chat-conversation-rename", args=[row.id]),
        "delete_url": reverse("chat-conversation-delete", args=[row.id]),
        "current": current is not None and row.id == current.id,
        "time": time_view(row.updated_at, zone),
        "manage_label": translate("CHAT_CONVERSATION_MANAGE_FOR", locale, title=title),
        "title_max": TITLE_MAX,
    }
