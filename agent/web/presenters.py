"""Presenters: plain dicts the chat templates show (cards, notices, turns, outcomes).

Nothing here writes; times are shown in the subject's zone, as the cards were prepared in.
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings

from agent import execution
from agent.capabilities import RISK_LOW, RISKS
from agent.cards import CardState, OutcomeKind
from agent.guard.provenance import provenance_line
from agent.models import AgentSession, Message
from agent.tools import format_local_time
from agent.web.texts import PAGE_TEXTS
from lightnote.context import ActorContext
from lightnote.i18n import translate

HISTORY_LIMIT = 100


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
    }
    if live:
        view["fields"] = {
            "token": card["token"],
            "continuation_token": card.get("continuation_token", ""),
            "session_id": str(session_id),
        }
    return view


def notice_view(notice: dict[str, Any], locale: str) -> dict[str, Any]:
    status = str(notice.get("status", "rejected"))
    label_code = f"CHAT_NOTICE_{status.upper()}"
    return {
        "status": status,
        "label": translate(label_code, locale) if label_code in PAGE_TEXTS else status,
        "message": notice.get("message", ""),
        "code": notice.get("code", ""),
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
    receipt = payload.get("receipt")
    return {
        "role": "assistant",
        "dom_id": dom_id,
        "text": text,
        "notices": notices,
        "facts": facts,
        "cards": cards,
        "receipt_note": (
            translate("CHAT_RECEIPT", locale, summary=receipt.get("summary", "")) if receipt else ""
        ),
    }


def user_entry(*, dom_id: str, text: str) -> dict[str, Any]:
    return {"role": "user", "dom_id": dom_id, "text": text}


def history_entries(
    conversation_: AgentSession, *, locale: str, zone: ZoneInfo
) -> list[dict[str, Any]]:
    """Return the conversation's last messages, oldest first; their cards are read-only."""
    recent = list(conversation_.messages.order_by("-created_at", "-id")[:HISTORY_LIMIT])
    entries = []
    for message in reversed(recent):
        dom_id = f"m-{message.id}"
        if message.role == Message.Role.USER:
            entries.append(user_entry(dom_id=dom_id, text=message.text))
        else:
            entries.append(
                assistant_entry(
                    dom_id=dom_id,
                    reply=message.text,
                    payload=message.payload or {},
                    locale=locale,
                    zone=zone,
                )
            )
    return entries


def outcome_view(answer: execution.Answer, *, locale: str, zone: ZoneInfo) -> dict[str, Any]:
    """Return what the outcome template shows for a confirm / reject / status answer.

    Success is shown only for a settled ``ok: true`` outcome, i.e. with a receipt.
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
    return {
        "kind": kind,
        "heading": translate(f"CHAT_OUTCOME_{kind.upper()}", locale),
        "receipt": receipt,
        "error": outcome.get("error"),
        "poll": kind in (CardState.RUNNING, OutcomeKind.UNKNOWN),
    }
