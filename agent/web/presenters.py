"""Presenters: plain dicts the chat templates show (cards, notices, turns, outcomes).

Nothing here writes; times are shown in the subject's zone, as the cards were prepared in.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.urls import reverse

from agent.capabilities import RISK_LOW, RISKS
from agent.cards import confirm as execution
from agent.cards.records import CardState, OutcomeKind
from agent.guard.provenance import provenance_line
from agent.tools import format_local_time
from agent.web.card_views import choice_view, edit_view, undo_offer
from agent.web.texts import CHAT_TEXTS
from lightnote.impersonation.context import ActorContext
from lightnote.texts.i18n import translate
from lightnote.times import rfc3339


def zone_of(actor: ActorContext | None) -> ZoneInfo:
    """Return the zone times are shown in: the subject's, as the cards were prepared in."""
    return actor.subject.zone if actor else ZoneInfo(settings.LIGHTNOTE_TIME_ZONE)


def card_view(
    card: dict[str, Any],
    *,
    dom_id: str,
    locale: str,
    zone: ZoneInfo,
    session_id: Any = None,
) -> dict[str, Any]:
    """Return what the card template shows; ``live`` only when the card carries its token."""
    preview = card.get("preview") or {}
    risk = str(card.get("risk") or RISK_LOW)
    if risk not in RISKS:
        risk = RISK_LOW
    live = bool(card.get("token"))
    origin = card.get("provenance") or {}
    view: dict[str, Any] = {
        "dom_id": dom_id,
        "card_id": str(card.get("card_id") or ""),
        "live": live,
        # The server's line when the model had read stored content (issue 9), re-rendered in
        # the viewer's language from the stored sources.
        "provenance": provenance_line(origin.get("sources") or [], locale) if origin else "",
        "capability": card.get("capability", ""),
        "title": preview.get("title", ""),
        "target": preview.get("target", ""),
        "impact": preview.get("impact", ""),
        "details": preview.get("details") or [],
        "risk": risk,
        "risk_label": translate(
            "CHAT_CARD_RISK", locale, risk=translate(f"CHAT_RISK_{risk.upper()}", locale)
        ),
        "expires": format_local_time(card["expires_at"], zone) if card.get("expires_at") else "",
        "expires_iso": str(card.get("expires_at") or "") if live else "",
    }
    if live:
        view["fields"] = {
            "token": card["token"],
            "continuation_token": card.get("continuation_token", ""),
            "session_id": str(session_id),
        }
        view["edit"] = edit_view(card, locale)
    return view


_BARE_CODE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def page_message(code: str, message: str | None, locale: str) -> str:
    """Return what the page says for an error: its message, never a bare code.

    The code stays in the API and in the page's ``data-code``; a message that is missing or
    is only a code (an unregistered one renders as itself) becomes a plain sentence.
    """
    text = (message or "").strip() or translate(code, locale)
    if not text or text == code or _BARE_CODE.fullmatch(text):
        return translate("CHAT_PROBLEM_UNEXPLAINED", locale)
    return text


def notice_view(notice: dict[str, Any], locale: str) -> dict[str, Any]:
    status = str(notice.get("status", "rejected"))
    label_code = f"CHAT_NOTICE_{status.upper()}"
    code = str(notice.get("code", "") or "")
    message = str(notice.get("message", "") or "")
    return {
        "status": status,
        "label": translate(
            label_code if label_code in CHAT_TEXTS else "CHAT_NOTICE_REJECTED", locale
        ),
        "message": page_message(code, message, locale) if (code or message) else "",
        "code": code,
    }


def assistant_entry(
    *,
    dom_id: str,
    reply: str,
    payload: dict[str, Any],
    locale: str,
    zone: ZoneInfo,
    session_id: Any = None,
) -> dict[str, Any]:
    """Return an assistant turn: its text, notices, facts and cards (live or read-only)."""
    notices = [notice_view(notice, locale) for notice in payload.get("notices") or []]
    # The conversation appends each refusal to the reply; the notice already shows it.
    # A clarifying question may span lines (its numbered choices): remove whole messages.
    text = reply
    shown = sorted({notice["message"] for notice in notices if notice["message"]}, key=len)
    for message in reversed(shown):
        text = text.replace(message, "")
    text = "\n".join(line for line in text.split("\n") if line.strip()).strip()
    facts = [
        fact
        for fact in payload.get("facts") or []
        if fact.get("summary") and fact["summary"] not in reply
    ]
    cards = [
        card_view(
            card, dom_id=f"{dom_id}-card-{index}", locale=locale, zone=zone, session_id=session_id
        )
        for index, card in enumerate(payload.get("cards") or [])
    ]
    choices = [
        choice_view(
            choice,
            dom_id=f"{dom_id}-choice-{index}",
            locale=locale,
            zone=zone,
            session_id=session_id,
        )
        for index, choice in enumerate(payload.get("choices") or [])
    ]
    receipt = payload.get("receipt")
    # A list read names the item page showing the same list (its filters in the address).
    links = list(
        dict.fromkeys(
            fact["link"]
            for fact in payload.get("facts") or []
            if isinstance(fact.get("link"), str) and fact["link"].startswith("/")
        )
    )
    return {
        "role": "assistant",
        "dom_id": dom_id,
        "text": text,
        "notices": notices,
        "facts": facts,
        "links": links,
        "cards": cards,
        "choices": choices,
        "receipt_note": (
            translate("CHAT_RECEIPT", locale, summary=receipt.get("summary", "")) if receipt else ""
        ),
        "changes": payload.get("changes"),
    }


def user_entry(
    *, dom_id: str, text: str, at: datetime | None = None, zone: ZoneInfo | None = None
) -> dict[str, Any]:
    entry: dict[str, Any] = {"role": "user", "dom_id": dom_id, "text": text}
    if at is not None and zone is not None:
        entry["time"] = time_view(at, zone)
    return entry


ITEM_PAGES = {"todo": "todo-detail-page", "note": "note-detail-page"}
# Tools whose receipt names an item they moved to the trash: its own page answers 404 now,
# so the link goes to the trash, where it can be seen and restored.
TRASHED_BY = {"delete_todo": "todo-trash-page", "discard_note": "note-trash-page"}


def item_link(receipt: dict[str, Any] | None, locale: str) -> dict[str, str] | None:
    """Return the link to the todo or note a receipt names (``url`` and ``label``), or to
    the trash when the receipt's action moved it there; None when it names no item."""
    receipt = receipt or {}
    resource = receipt.get("resource") or {}
    name = ITEM_PAGES.get(str(resource.get("type", "")))
    if not name or not resource.get("id"):
        return None
    trash = TRASHED_BY.get(str(receipt.get("tool", "")))
    if trash:
        return {"url": reverse(trash), "label": translate("CHAT_OPEN_TRASH", locale)}
    return {
        "url": reverse(name, args=[resource["id"]]),
        "label": translate("CHAT_OPEN_ITEM", locale),
    }


def time_view(at: datetime | None, zone: ZoneInfo) -> dict[str, str] | None:
    """Return a message time: ISO for ``<time datetime>`` and the local label."""
    if at is None:
        return None
    local = at.astimezone(zone)
    return {"iso": rfc3339(at, zone), "label": local.strftime("%Y-%m-%d %H:%M")}


def _page_error(error: dict[str, Any] | None, locale: str) -> dict[str, Any] | None:
    if not error:
        return error
    code = str(error.get("code") or "")
    return {**error, "message": page_message(code, error.get("message"), locale)}


def outcome_view(
    answer: execution.Answer, *, locale: str, zone: ZoneInfo, session_id: Any = None
) -> dict[str, Any]:
    """Return what the outcome template shows for a confirm / reject / status answer.

    Success is shown only for a settled ``ok: true`` outcome, i.e. with a receipt; it offers
    "Undo" while the undo window lasts (given the ``session_id``).
    """
    state = answer.body.get("state", "")
    outcome = answer.body.get("outcome") or {}
    if state == CardState.SETTLED:
        ok = outcome.get("ok")
        kind = (
            OutcomeKind.SUCCEEDED
            if ok is True
            else OutcomeKind.FAILED
            if ok is False
            else OutcomeKind.UNKNOWN
        )
    else:
        shown = (CardState.RUNNING, CardState.REJECTED, CardState.READY)
        kind = state if state in shown else OutcomeKind.UNKNOWN
    receipt = outcome.get("receipt") if kind == OutcomeKind.SUCCEEDED else None
    if receipt and receipt.get("settled_at"):
        receipt = {**receipt, "settled_label": format_local_time(receipt["settled_at"], zone)}
    undo = None
    if receipt and session_id is not None and receipt.get("settled_at"):
        undo = undo_offer(
            card_id=str(receipt.get("action_id", "")),
            tool=str(receipt.get("tool", "")),
            session_id=session_id,
            settled_at=datetime.fromisoformat(receipt["settled_at"]),
        )
    return {
        "kind": kind,
        "heading": translate(f"CHAT_OUTCOME_{kind.upper()}", locale),
        "undo": undo,
        "receipt": receipt,
        "item_link": item_link(receipt, locale),
        "error": _page_error(outcome.get("error"), locale),
        "poll": kind in (CardState.RUNNING, OutcomeKind.UNKNOWN),
    }
