"""What the chat shows around a card besides the card itself (issue 15): a choice card and
its candidates, a ready card's edit form, the undo offer of a succeeded card and the card
an undo card took back.

Nothing here writes; times are shown in the subject's zone.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone

from agent.cards.edit import editable_fields
from agent.choices import store as choice_store
from agent.models import ActionCard, Choice
from agent.tools import Tool, registry
from lightnote.texts.i18n import translate


def _short_time(value: Any, zone: ZoneInfo) -> str:
    """Return ``2026-12-03 21:00`` in ``zone`` (the card shows the zone once, not per item)."""
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M")


def _candidate_view(item: dict[str, Any], *, locale: str, zone: ZoneInfo) -> dict[str, Any]:
    """Return one candidate with what tells it apart: due time, status, created, excerpt."""
    meta = []
    status = item.get("status")
    if status in ("open", "done"):
        meta.append(translate(f"CHAT_CHOICE_STATUS_{status.upper()}", locale))
    if "due_at" in item and status is not None:
        due = item.get("due_at")
        meta.append(
            translate("CHAT_CHOICE_DUE", locale, due=_short_time(due, zone))
            if due
            else translate("CHAT_CHOICE_NO_DUE", locale)
        )
    if item.get("created_at"):
        at = _short_time(item["created_at"], zone)
        meta.append(translate("CHAT_CHOICE_CREATED", locale, at=at))
    return {
        "id": str(item.get("id", "")),
        "title": item.get("title", ""),
        "meta": " · ".join(meta),
        "excerpt": item.get("excerpt", ""),
    }


def choice_view(
    choice: dict[str, Any],
    *,
    dom_id: str,
    locale: str,
    zone: ZoneInfo,
    session_id: Any = None,
) -> dict[str, Any]:
    """Return what the choice template shows; ``live`` (buttons) only with its token."""
    live = bool(choice.get("token"))
    state = str(choice.get("state") or "ready")
    if state not in choice_store.HISTORY_STATES:
        state = "ready"
    view: dict[str, Any] = {
        "dom_id": dom_id,
        "live": live,
        "state": state,
        "state_label": translate(f"CHAT_CHOICE_{state.upper()}", locale),
        "chosen_id": str(choice.get("chosen_id") or ""),
        "candidates": [
            _candidate_view(item, locale=locale, zone=zone)
            for item in choice.get("candidates") or []
        ],
    }
    if live:
        view["fields"] = {"token": choice["token"], "session_id": str(session_id)}
    return view


def history_choice_views(
    rows: list[Choice], *, dom_id: str, locale: str, zone: ZoneInfo, now: datetime
) -> list[dict[str, Any]]:
    """Return a history message's choice rows in their real state.

    History holds no token: a choice still ready offers its picks by its id instead (the
    form posts ``card_id``; ``choices.choose_from_history``), every other state shows what
    became of it.
    """
    views = []
    for index, row in enumerate(rows):
        body = choice_store.history_choice(row, zone=zone, now=now)
        view = choice_view(body, dom_id=f"{dom_id}-choice-{index}", locale=locale, zone=zone)
        if body["state"] == choice_store.STATE_READY:
            view["live"] = True
            view["fields"] = {"card_id": str(row.id), "session_id": str(row.session_id)}
        views.append(view)
    return views


EDIT_INPUTS = {
    "title": "text",
    "description": "textarea",
    "content": "textarea",
    "tags": "text",
    "priority": "priority",
    "due_at": "text",
}


def edit_view(card: dict[str, Any], locale: str) -> list[dict[str, Any]]:
    """Return the inputs of a ready card's edit form: the fields its tool lets people edit.

    Each starts with the card's value for it (the new value of an update; empty when the
    card leaves that field as it is).
    """
    tool = registry.get(str(card.get("tool", "")))
    if tool is None:
        return []
    args = card.get("args") or {}
    inputs = []
    for name in editable_fields(tool):
        value = args.get(f"{name}_said") or args.get(name)
        if name == "tags" and isinstance(value, list):
            value = ", ".join(str(tag) for tag in value)
        inputs.append(
            {
                "name": name,
                "kind": EDIT_INPUTS.get(name, "text"),
                "label": translate(f"CHAT_EDIT_{name.upper()}", locale),
                "value": "" if value is None else str(value),
            }
        )
    return inputs


def undo_offer(
    *, card_id: str, tool: str, session_id: Any, settled_at: datetime | None
) -> dict[str, str] | None:
    """Return the undo form's fields for a succeeded card still within the undo window."""
    found = registry.get(tool)
    if found is None or type(found).compensation is Tool.compensation or settled_at is None:
        return None
    window = settings.LIGHTNOTE_UNDO_WINDOW
    if (timezone.now() - settled_at).total_seconds() >= window:
        return None
    return {"card_id": card_id, "session_id": str(session_id)}


def undone_card_id(card_id: Any) -> str | None:
    """Return the id of the card that ``card_id`` (an undo card that has just run) took back,
    so the page can stop offering that card's undo; None for any other card (one query)."""
    compensates = (
        ActionCard.objects.filter(id=card_id).values_list("compensates_id", flat=True).first()
    )
    return str(compensates) if compensates else None
