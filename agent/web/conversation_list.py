"""The conversation list's entries: newest first, titled, the one on screen marked."""

from __future__ import annotations

from typing import Any

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
    """Return the subject's newest conversations for the list: title, URL, current or not."""
    zone = zone_of(actor)
    links = []
    for row in sessions.session_list(owner=actor.subject)[:LIST_LIMIT]:
        title = row.title or translate("CHAT_CONVERSATION_UNTITLED", locale)
        links.append(
            {
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
        )
    return links


def conversation_item(
    actor: ActorContext, current: AgentSession, *, locale: str
) -> dict[str, Any] | None:
    """Return the list entry of ``current`` (sent out of band after a message: its title)."""
    return next(
        (item for item in conversation_links(actor, current, locale=locale) if item["current"]),
        None,
    )
