"""The conversation list's entries: newest first, titled, the one on screen marked."""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from django.urls import reverse

from agent.conversation import sessions
from agent.models import TITLE_MAX, AgentSession
from agent.web.presenters import time_view, zone_of
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext
from lightnote.rest.pagination import keyset_page
from lightnote.texts.i18n import translate

LIST_LIMIT = 50


def conversation_page(
    actor: ActorContext, current: AgentSession | None, *, locale: str, cursor: str | None = None
) -> tuple[list[dict[str, Any]], str | None]:
    """Return ``LIST_LIMIT`` of the subject's conversations, newest first, after ``cursor``
    (from the newest without one), and the cursor of the older ones (None: no more).

    One query per page, read off the sessions' list index (``lightnote.rest.pagination``'s
    keyset cursors): as cheap at the thousandth conversation as at the first. A malformed
    cursor is a 400 ``PAGINATION_CURSOR_INVALID``.
    """
    zone = zone_of(actor)
    rows, older = keyset_page(sessions.session_list(owner=actor.subject), cursor, LIST_LIMIT)
    return [_entry(row, current=current, zone=zone, locale=locale) for row in rows], older


def list_context(
    actor: ActorContext, current: AgentSession | None, *, locale: str, cursor: str | None = None
) -> dict[str, Any]:
    """The conversation list's part of a page context: its entries from ``cursor`` (a page
    further down the list; a malformed one shows the newest), ``conversations_older`` (the
    cursor of the next page, or None) and ``conversations_from`` (the cursor shown from)."""
    try:
        entries, older = conversation_page(actor, current, locale=locale, cursor=cursor)
    except LightNoteError:
        cursor = None
        entries, older = conversation_page(actor, current, locale=locale)
    return {
        "conversations": entries,
        "conversations_older": older,
        "conversations_from": cursor or "",
    }


def conversation_item(actor: ActorContext, current: AgentSession, *, locale: str) -> dict[str, Any]:
    """Return the list entry of ``current`` (sent out of band after a message: its title).

    Needs: ``current`` as the turn left it (``sessions.session_touch`` sets its title and time).
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
