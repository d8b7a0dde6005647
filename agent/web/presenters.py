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
from django.utils import timezone

from agent import choice_store, execution, lifecycle, sessions
from agent.capabilities import RISK_LOW, RISKS
from agent.card_edits import editable_fields
from agent.cards import CardState, OutcomeKind
from agent.guard.provenance import issued_provenance, provenance_line
from agent.models import ActionCard, AgentSession, Choice, Message
from agent.previews import preview_in, summary_in
from agent.tools import Tool, format_local_time, registry
from agent.web.texts import PAGE_TEXTS
from lightnote.context import ActorContext
from lightnote.i18n import translate
from lightnote.times import rfc3339

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
            label_code if label_code in PAGE_TEXTS else "CHAT_NOTICE_REJECTED", locale
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
    return {
        "role": "assistant",
        "dom_id": dom_id,
        "text": text,
        "notices": notices,
        "facts": facts,
        "cards": cards,
        "choices": choices,
        "receipt_note": (
            translate("CHAT_RECEIPT", locale, summary=receipt.get("summary", "")) if receipt else ""
        ),
    }


def user_entry(
    *, dom_id: str, text: str, at: datetime | None = None, zone: ZoneInfo | None = None
) -> dict[str, Any]:
    entry: dict[str, Any] = {"role": "user", "dom_id": dom_id, "text": text}
    if at is not None and zone is not None:
        entry["time"] = time_view(at, zone)
    return entry


ITEM_PAGES = {"todo": "todo-detail-page", "note": "note-detail-page"}
# What a history card says for each state it can be in (the lifecycle row's, read now).
HISTORY_STATES = ("ready", "expired", "rejected", "succeeded", "failed", "unknown", "voided")


def item_link(resource: dict[str, Any] | None) -> str:
    """Return the page of the todo or note a receipt names, else ""."""
    resource = resource or {}
    name = ITEM_PAGES.get(str(resource.get("type", "")))
    if not name or not resource.get("id"):
        return ""
    return reverse(name, args=[resource["id"]])


def history_card_view(
    row: ActionCard,
    *,
    dom_id: str,
    locale: str,
    zone: ZoneInfo,
    now: datetime,
    payload: dict[str, Any] | None = None,
    subject: Any = None,
) -> dict[str, Any]:
    """Return a history card: as issued, with its real state from the lifecycle row.

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
        view["item_link"] = item_link(receipt.get("resource"))
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
    if state == "succeeded" and row.compensates_id is None:
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
    for message in reversed(recent):
        dom_id = f"m-{message.id}"
        if message.role == Message.Role.USER:
            entries.append(
                user_entry(dom_id=dom_id, text=message.text, at=message.created_at, zone=zone)
            )
            continue
        entry = assistant_entry(
            dom_id=dom_id,
            reply=message.text,
            payload={**(message.payload or {}), "cards": []},
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
        entries.append(entry)
    return entries


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
        "item_link": item_link(receipt.get("resource")) if receipt else "",
        "error": _page_error(outcome.get("error"), locale),
        "poll": kind in (CardState.RUNNING, OutcomeKind.UNKNOWN),
    }


# --- Issue 15: choices, edit fields, undo ---------------------------------------------------

CHOICE_STATES = ("ready", "expired", "chosen", "voided")


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
    if state not in CHOICE_STATES:
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
    """Return a history message's choice rows in their real state (no token: no buttons)."""
    return [
        choice_view(
            choice_store.history_choice(row, zone=zone, now=now),
            dom_id=f"{dom_id}-choice-{index}",
            locale=locale,
            zone=zone,
        )
        for index, row in enumerate(rows)
    ]


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
