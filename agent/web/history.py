"""The conversation's history as the chat page shows it: its last messages, oldest first,
each card in its real state from the lifecycle row (never a stored token), each choice as
it ended, and "retry the reply" where a card's reply is missing.

Nothing here writes; times are shown in the subject's zone.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.utils import timezone

from agent.cards import history as lifecycle
from agent.cards.changes import history_changes
from agent.cards.previews import preview_in, summary_in
from agent.choices import store as choice_store
from agent.conversation import sessions
from agent.guard.provenance import issued_provenance
from agent.models import ActionCard, AgentSession, Message
from agent.tools import format_local_time
from agent.web.card_views import history_choice_views, undo_offer
from agent.web.presenters import (
    assistant_entry,
    card_view,
    item_link,
    page_message,
    time_view,
    user_entry,
)
from lightnote.texts.i18n import translate

HISTORY_LIMIT = 100


def history_card_view(
    row: ActionCard,
    *,
    dom_id: str,
    locale: str,
    zone: ZoneInfo,
    now: datetime,
    payload: dict[str, Any] | None = None,
    subject: Any = None,
    undone_by: str = "",
) -> dict[str, Any]:
    """Return a history card: as issued, with its real state from the lifecycle row.

    ``undone_by``: the tool of its undo card, when one has run: it offers no undo (one would
    answer 409), and its item link follows the item to where that undo left it.

    Its preview is rendered again in the page's language from the stored prepared values.

    A still-ready card carries no token (none is stored): it offers "ask again", which
    re-issues it as a new live card. Every other state shows what happened, with the
    receipt's summary and a link to the item for a confirmed one.
    """
    body = lifecycle.history_card(row, locale=locale, zone=zone, now=now)
    body["preview"] = preview_in(row, locale=locale, zone=zone, subject=subject)
    body["provenance"] = issued_provenance(body, payload or {}, locale)
    view = card_view(body, dom_id=dom_id, locale=locale, zone=zone)
    state = body["state"]
    outcome = body.get("outcome") or {}
    if state == ActionCard.State.SETTLED:
        ok = outcome.get("ok")
        state = "succeeded" if ok is True else "failed" if ok is False else "unknown"
    view["state"] = state
    view["card_id"] = str(row.id)
    view["state_label"] = translate(f"CHAT_HISTORY_{state.upper()}", locale)
    receipt = outcome.get("receipt")
    if receipt:
        view["receipt_summary"] = summary_in(row, locale=locale) or receipt.get("summary", "")
        # Where the item is now: an undo that ran moved it last (a deletion's brings it back
        # to its own page; a creation's puts it in the trash, where its page answers 404).
        view["item_link"] = item_link({**receipt, "tool": undone_by or row.tool}, locale)
        if receipt.get("settled_at"):
            view["settled_label"] = format_local_time(receipt["settled_at"], zone)
    error = outcome.get("error")
    if error and state in ("failed", "unknown"):
        view["error_message"] = page_message(
            str(error.get("code") or ""), error.get("message"), locale
        )
    if state == "voided":
        reason = body.get("void_reason") or ""
        view["void_text"] = translate(
            f"CHAT_VOIDED_{reason.upper()}" if reason else "CHAT_VOIDED_SUPERSEDED", locale
        )
    if state == "succeeded" and row.compensates_id is None and not undone_by:
        view["undo"] = undo_offer(
            card_id=str(row.id), tool=row.tool, session_id=row.session_id, settled_at=row.settled_at
        )
    if state == "ready":
        view["expires_iso"] = body["expires_at"]
        view["reissue"] = {"card_id": str(row.id), "session_id": str(row.session_id)}
    return view


def history_entries(
    conversation_: AgentSession, *, locale: str, zone: ZoneInfo
) -> list[dict[str, Any]]:
    """Return the conversation's last messages, oldest first; cards in their real state."""
    recent = list(
        sessions.session_messages(session=conversation_).order_by("-created_at", "-id")[
            :HISTORY_LIMIT
        ]
    )
    now = timezone.now()
    # One query for every choice on the page (none when no message offered one).
    choices = choice_store.choices_by_message(
        [message.id for message in recent if (message.payload or {}).get("choices")]
    )
    entries = []
    subject = conversation_.owner if recent else None
    # Cards whose final reply is in the log (it names its card); the others may retry it.
    replied = {
        str((message.payload or {}).get("card_id"))
        for message in recent
        if message.role != Message.Role.USER and (message.payload or {}).get("receipt")
    }
    # The card rows on the page (prefetched): a final reply's receipt note is rendered again
    # in the page's language from its card's stored result, like the card's own summary.
    rows = {str(row.id): row for message in recent for row in message.cards.all()}
    # Cards an undo card on the page has taken back (it is always later than its card), and
    # the tool each undo ran.
    undone = {
        row.compensates_id: row.tool
        for row in rows.values()
        if row.compensates_id
        and row.state == ActionCard.State.SETTLED
        and row.outcome_kind == ActionCard.OutcomeKind.SUCCEEDED
    }
    # What changed, per assistant message: from receipts only, each counted once on the page.
    changes = history_changes(recent, session=conversation_, locale=locale, now=now)
    for message in reversed(recent):
        dom_id = f"m-{message.id}"
        if message.role == Message.Role.USER:
            entries.append(
                user_entry(dom_id=dom_id, text=message.text, at=message.created_at, zone=zone)
            )
            continue
        payload = {**(message.payload or {}), "cards": []}
        replied_row = rows.get(str(payload.get("card_id"))) if payload.get("receipt") else None
        if replied_row is not None:
            summary = summary_in(replied_row, locale=locale)
            if summary:
                payload["receipt"] = {**payload["receipt"], "summary": summary}
        entry = assistant_entry(
            dom_id=dom_id,
            reply=message.text,
            payload=payload,
            locale=locale,
            zone=zone,
        )
        entry["cards"] = [
            history_card_view(
                row,
                dom_id=f"{dom_id}-card-{index}",
                locale=locale,
                zone=zone,
                now=now,
                payload=message.payload or {},
                subject=subject,
                undone_by=undone.get(row.id, ""),
            )
            for index, row in enumerate(message.cards.all())
        ]
        if message.id in choices:
            entry["choices"] = history_choice_views(
                choices[message.id], dom_id=dom_id, locale=locale, zone=zone, now=now
            )
        for card in entry["cards"]:
            card["reply_missing"] = card["state"] == "succeeded" and card["card_id"] not in replied
        entry["time"] = time_view(message.created_at, zone)
        entry["changes"] = changes.get(message.id)
        entries.append(entry)
    return entries


def superseded_views(
    cards: list[dict[str, Any]], *, locale: str, zone: ZoneInfo, subject: Any
) -> list[dict[str, Any]]:
    """The cards that ``cards`` (a turn's, just issued) replaced — a correction said in the
    chat voids the card shown before (its new card names it as ``parent_id``) — in their
    real state, to update the page out of band. No query when no card replaced one."""
    parents = [card["parent_id"] for card in cards if card.get("parent_id")]
    if not parents:
        return []
    now = timezone.now()
    views = []
    for row in ActionCard.objects.filter(id__in=parents):
        view = history_card_view(
            row, dom_id=f"card-{row.id}", locale=locale, zone=zone, now=now, subject=subject
        )
        view["oob"] = True
        views.append(view)
    return views
