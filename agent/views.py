"""The server-rendered chat page: thin htmx views over the same functions as the API.

Every change goes through ``conversation.handle_message``, ``execution.confirm / reject /
status`` and ``continuations.reply`` — the functions the API calls. These views read the
form, call one of them and render its answer; a ``LightNoteError`` becomes a visible,
localized notice with its real HTTP status, never a 500 page.

htmx requests get a fragment (marked with ``X-LightNote-Fragment`` so the page's script swaps
only our own answers); a plain form POST (no JavaScript) gets the whole page with the result
at the end of the conversation.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from agent import continuations, conversation, execution, sessions
from agent.guard.provenance import provenance_line
from agent.models import AgentSession, Message
from agent.tools import format_local_time
from lightnote.context import ActorContext, actor_context
from lightnote.errors import LightNoteError
from lightnote.i18n import define_messages, normalize_locale, request_locale, translate

FRAGMENT_HEADER = "X-LightNote-Fragment"
CONVERSATION_SESSION_KEY = "lightnote_agent_session"
MESSAGE_MAX = 4000  # the same limit as the API's message body
TOKEN_MAX = 512
HISTORY_LIMIT = 100
LANGUAGE_COOKIE_AGE = timedelta(days=365)
# Django's own language cookie, so the admin and the login page follow the same switch.
COOKIE_VALUES = {"zh-CN": "zh-hans", "en": "en"}

PAGE_TEXTS: dict[str, tuple[str, str]] = {
    "CHAT_TITLE": ("LightNote 助手", "LightNote assistant"),
    "CHAT_INTRO": (
        "告诉助手你想做什么，例如“帮我创建一条今晚 9 点提交周报的高优先级待办”。"
        "任何修改都要你在确认卡上确认后才会执行。",
        "Tell the assistant what you need, e.g. “Create a high priority todo to submit the "
        "weekly report tonight at 9pm”. Nothing changes until you confirm it on a card.",
    ),
    "CHAT_CONVERSATION": ("对话", "Conversation"),
    "CHAT_EMPTY": ("还没有消息。", "No messages yet."),
    "CHAT_INPUT_LABEL": ("你的消息", "Your message"),
    "CHAT_INPUT_HINT": (
        "按 Enter 发送，Shift+Enter 换行。",
        "Enter sends; Shift+Enter starts a new line.",
    ),
    "CHAT_SEND": ("发送", "Send"),
    "CHAT_SENDING": ("正在处理…", "Working…"),
    "CHAT_NEW_CONVERSATION": ("新对话", "New conversation"),
    "CHAT_YOU": ("你", "You"),
    "CHAT_ASSISTANT": ("助手", "Assistant"),
    "CHAT_FACTS": ("查询到的数据", "Data looked up"),
    "CHAT_CARD": ("确认卡", "Confirmation card"),
    "CHAT_CARD_ACTIONS": ("确认或拒绝这项操作", "Confirm or reject this action"),
    "CHAT_CARD_EXPIRES": ("有效期至", "Valid until"),
    "CHAT_CARD_RISK": ("风险：{risk}", "Risk: {risk}"),
    "CHAT_RISK_LOW": ("低", "low"),
    "CHAT_RISK_MEDIUM": ("中", "medium"),
    "CHAT_RISK_HIGH": ("高", "high"),
    "CHAT_CONFIRM": ("确认执行", "Confirm"),
    "CHAT_REJECT": ("拒绝", "Reject"),
    "CHAT_CARD_HISTORY": (
        "历史记录中的确认卡（只读）：令牌不会保存，因此无法在这里确认。",
        "A card from history (read-only): tokens are never stored, so it cannot be confirmed here.",
    ),
    "CHAT_OUTCOME_SUCCEEDED": ("已执行", "Done"),
    "CHAT_OUTCOME_FAILED": ("未执行成功", "Not done"),
    "CHAT_OUTCOME_RUNNING": ("正在执行…", "Running…"),
    "CHAT_OUTCOME_RUNNING_TEXT": (
        "服务器正在执行这项操作，结果出来后会显示在这里。",
        "The server is running this action; its result will appear here.",
    ),
    "CHAT_OUTCOME_UNKNOWN": ("结果暂时无法核验", "The outcome cannot be verified yet"),
    "CHAT_OUTCOME_REJECTED": ("已拒绝", "Rejected"),
    "CHAT_OUTCOME_REJECTED_TEXT": ("没有执行任何操作。", "Nothing was done."),
    "CHAT_OUTCOME_READY": ("等待确认", "Waiting for confirmation"),
    "CHAT_RECEIPT": ("服务器回执：{summary}", "Server receipt: {summary}"),
    "CHAT_RECEIPT_ID": ("回执编号", "Receipt id"),
    "CHAT_RECEIPT_AT": ("完成时间", "Settled at"),
    "CHAT_ERROR_CODE": ("错误代码", "Error code"),
    "CHAT_REPLY_LOADING": ("正在生成回复…", "Writing the reply…"),
    "CHAT_REPLY_SHOW": ("显示回复", "Show the reply"),
    "CHAT_CHECK_STATUS": ("查看状态", "Check the status"),
    "CHAT_RETRY": ("重试", "Retry"),
    "CHAT_PROBLEM": ("出错了：", "Problem:"),
    "CHAT_PROBLEM_GENERIC": (
        "请求没有成功（可能登录已过期），请刷新页面后重试。",
        "The request did not succeed (your login may have expired); reload the page and retry.",
    ),
    "CHAT_PROBLEM_NETWORK": (
        "无法连接服务器，请检查网络后重试。",
        "The server cannot be reached; check the connection and retry.",
    ),
    "CHAT_NOTICE_PLANNED": ("暂不支持", "Not available yet"),
    "CHAT_NOTICE_FORBIDDEN": ("不允许", "Not allowed"),
    "CHAT_NOTICE_REJECTED": ("未生成确认卡", "No card"),
    "CHAT_NOTICE_GUARDED": ("服务端提示", "From the server"),
    "CHAT_ADMIN_BANNER": (
        "管理员只读模式：{actor} 正在查看 {subject} 的数据，任何写操作都会被拒绝（至 {expires}）。",
        "Admin read-only mode: {actor} is viewing {subject}'s data; every write is refused "
        "(until {expires}).",
    ),
    "CHAT_TEXT_REQUIRED": ("请输入消息。", "Type a message."),
    "CHAT_TEXT_TOO_LONG": (
        "消息太长（最多 {limit} 个字符）。",
        "The message is too long (at most {limit} characters).",
    ),
    "CHAT_CONVERSATION_NOT_FOUND": (
        "这个对话不存在或不属于你，请刷新页面。",
        "This conversation does not exist or is not yours; reload the page.",
    ),
}
define_messages(PAGE_TEXTS)


def page_locale(request: HttpRequest) -> str:
    """Return the page's locale: the language switch's cookie, else ``request_locale``.

    The switch is a cookie, not the user's saved language: browsers always send
    Accept-Language, which ``request_locale`` ranks above the saved language, so only an
    explicit per-browser choice can override it — and it writes no user data (it works in an
    admin read-only context too).
    """
    chosen = normalize_locale(request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME))
    return chosen or request_locale(request)


def _texts(locale: str) -> dict[str, str]:
    return {code: translate(code, locale) for code in PAGE_TEXTS}


def _is_htmx(request: HttpRequest) -> bool:
    return request.headers.get("HX-Request") == "true"


# --- Form bodies -------------------------------------------------------------------------


class _MessageForm(forms.Form):
    text = forms.CharField(required=False, strip=True)
    session_id = forms.UUIDField(required=False)


class _CardForm(forms.Form):
    token = forms.CharField(max_length=TOKEN_MAX)
    continuation_token = forms.CharField(max_length=TOKEN_MAX, required=False)
    session_id = forms.UUIDField()


class _ReplyForm(forms.Form):
    continuation_token = forms.CharField(max_length=TOKEN_MAX)
    session_id = forms.UUIDField()


@dataclass(frozen=True)
class CardFields:
    """The hidden fields every card form posts: tokens in the body, never in a URL."""

    token: str
    continuation_token: str
    session_id: uuid.UUID

    def as_context(self) -> dict[str, str]:
        return {
            "token": self.token,
            "continuation_token": self.continuation_token,
            "session_id": str(self.session_id),
        }


def _valid(form: forms.Form) -> dict[str, Any]:
    if not form.is_valid():
        raise LightNoteError("VALIDATION_ERROR", extra={"fields": sorted(form.errors)})
    return form.cleaned_data


def _card_fields(request: HttpRequest) -> CardFields:
    data = _valid(_CardForm(request.POST))
    return CardFields(data["token"], data["continuation_token"], data["session_id"])


# --- Conversations -----------------------------------------------------------------------


def _owned_conversation(actor: ActorContext, session_id: Any) -> AgentSession | None:
    """Return the subject's live conversation, or None (unknown, deleted or not theirs)."""
    try:
        return sessions.session_get(session_id=session_id, owner=actor.subject)
    except LightNoteError:
        return None


def _current_conversation(request: HttpRequest, actor: ActorContext) -> AgentSession:
    """Return this browser session's conversation, opening one on the first visit.

    It belongs to the subject, as the API's does: in an admin read-only context the agent
    answers write requests with a notice, so a conversation there changes no user data.
    """
    remembered = request.session.get(CONVERSATION_SESSION_KEY)
    current = _owned_conversation(actor, remembered) if remembered else None
    if current is None:
        current = _open_conversation(request, actor)
    return current


def _open_conversation(request: HttpRequest, actor: ActorContext) -> AgentSession:
    opened = sessions.session_create(owner=actor.subject)
    request.session[CONVERSATION_SESSION_KEY] = str(opened.id)
    return opened


def _posted_conversation(
    request: HttpRequest, actor: ActorContext, session_id: Any
) -> AgentSession:
    """Return the conversation the page posted (its hidden field), else the session's own."""
    if not session_id:
        return _current_conversation(request, actor)
    posted = _owned_conversation(actor, session_id)
    if posted is None:
        raise LightNoteError("CHAT_CONVERSATION_NOT_FOUND", status=404)
    return posted


# --- View models (plain dicts for the templates) -------------------------------------------


def _zone(actor: ActorContext | None) -> ZoneInfo:
    """Return the zone times are shown in: the subject's, as the cards were prepared in."""
    return actor.subject.zone if actor else ZoneInfo(settings.LIGHTNOTE_TIME_ZONE)


def _card_view(
    card: dict[str, Any],
    *,
    dom_id: str,
    locale: str,
    zone: ZoneInfo,
    session_id: Any = None,
) -> dict[str, Any]:
    """Return what the card template shows; ``live`` only when the card carries its token."""
    preview = card.get("preview") or {}
    risk = str(card.get("risk") or "low")
    if risk not in {"low", "medium", "high"}:
        risk = "low"
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


def _notice_view(notice: dict[str, Any], locale: str) -> dict[str, Any]:
    status = str(notice.get("status", "rejected"))
    label_code = f"CHAT_NOTICE_{status.upper()}"
    return {
        "status": status,
        "label": translate(label_code, locale) if label_code in PAGE_TEXTS else status,
        "message": notice.get("message", ""),
        "code": notice.get("code", ""),
    }


def _assistant_entry(
    *,
    dom_id: str,
    reply: str,
    payload: dict[str, Any],
    locale: str,
    zone: ZoneInfo,
    session_id: Any = None,
) -> dict[str, Any]:
    """Return an assistant turn: its text, notices, facts and cards (live or read-only)."""
    notices = [_notice_view(notice, locale) for notice in payload.get("notices") or []]
    # The conversation appends each refusal to the reply; the notice already shows it.
    shown = {notice["message"] for notice in notices}
    text = "\n".join(line for line in reply.split("\n") if line.strip() not in shown).strip()
    facts = [
        fact
        for fact in payload.get("facts") or []
        if fact.get("summary") and fact["summary"] not in reply
    ]
    cards = [
        _card_view(
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


def _user_entry(*, dom_id: str, text: str) -> dict[str, Any]:
    return {"role": "user", "dom_id": dom_id, "text": text}


def _history(conversation_: AgentSession, *, locale: str, zone: ZoneInfo) -> list[dict[str, Any]]:
    """Return the conversation's last messages, oldest first; their cards are read-only."""
    recent = list(conversation_.messages.order_by("-created_at", "-id")[:HISTORY_LIMIT])
    entries = []
    for message in reversed(recent):
        dom_id = f"m-{message.id}"
        if message.role == Message.Role.USER:
            entries.append(_user_entry(dom_id=dom_id, text=message.text))
        else:
            entries.append(
                _assistant_entry(
                    dom_id=dom_id,
                    reply=message.text,
                    payload=message.payload or {},
                    locale=locale,
                    zone=zone,
                )
            )
    return entries


def _outcome_view(answer: execution.Answer, *, locale: str, zone: ZoneInfo) -> dict[str, Any]:
    """Return what the outcome template shows for a confirm / reject / status answer.

    Success is shown only for a settled ``ok: true`` outcome, i.e. with a receipt.
    """
    state = answer.body.get("state", "")
    outcome = answer.body.get("outcome") or {}
    if state == "settled":
        ok = outcome.get("ok")
        kind = "succeeded" if ok is True else "failed" if ok is False else "unknown"
    else:
        kind = state if state in {"running", "rejected", "ready"} else "unknown"
    receipt = outcome.get("receipt") if kind == "succeeded" else None
    if receipt and receipt.get("settled_at"):
        receipt = {**receipt, "settled_label": format_local_time(receipt["settled_at"], zone)}
    return {
        "kind": kind,
        "heading": translate(f"CHAT_OUTCOME_{kind.upper()}", locale),
        "receipt": receipt,
        "error": outcome.get("error"),
        "poll": kind in {"running", "unknown"},
    }


# --- Responses ---------------------------------------------------------------------------


def _page_context(
    request: HttpRequest,
    *,
    actor: ActorContext | None,
    locale: str,
    conversation_: AgentSession | None = None,
    history: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    zone = _zone(actor)
    context: dict[str, Any] = {"t": _texts(locale), "page_locale": locale}
    if actor is None:
        return context
    if conversation_ is None:
        conversation_ = _current_conversation(request, actor)
    context["conversation"] = conversation_
    context["history"] = (
        history if history is not None else _history(conversation_, locale=locale, zone=zone)
    )
    if actor.admin_context is not None:
        context["admin_banner"] = translate(
            "CHAT_ADMIN_BANNER",
            locale,
            actor=actor.actor.username,
            subject=actor.subject.username,
            expires=format_local_time(actor.admin_context.expires_at, actor.actor.zone),
        )
    return context


@dataclass
class Fragment:
    """A template and its context, rendered alone for htmx or inside the page without JS."""

    template: str
    context: dict[str, Any]
    status: int = 200
    is_list_item: bool = False  # renders <li> entries itself (a conversation turn)
    headers: dict[str, str] | None = None
    history: list[dict[str, Any]] | None = None  # the page's history for the no-JS answer
    conversation: AgentSession | None = None


def _respond(
    request: HttpRequest,
    fragment: Fragment,
    *,
    actor: ActorContext | None,
    locale: str,
    retarget: str | None = None,
    reswap: str = "innerHTML",
) -> HttpResponse:
    context = {"t": _texts(locale), "page_locale": locale, **fragment.context}
    body = render_to_string(fragment.template, context, request)
    if _is_htmx(request):
        response = HttpResponse(body, status=fragment.status)
        response[FRAGMENT_HEADER] = "1"
        if retarget:
            response["HX-Retarget"] = retarget
            response["HX-Reswap"] = reswap
    else:
        # Without JavaScript: the whole page, with this answer at the end of the conversation.
        page = _page_context(
            request,
            actor=actor,
            locale=locale,
            conversation_=fragment.conversation,
            history=fragment.history,
        )
        page.update(fragment=body, fragment_is_list_item=fragment.is_list_item)
        response = HttpResponse(
            render_to_string("agent/chat.html", page, request), status=fragment.status
        )
    for name, value in (fragment.headers or {}).items():
        response[name] = value
    return response


def _problem(
    error: LightNoteError, *, locale: str, retry: dict[str, Any] | None = None
) -> Fragment:
    return Fragment(
        "agent/notice.html",
        {"code": error.code, "message": error.message(locale), "retry": retry},
        status=error.status,
        headers=error.headers,
    )


def _run(
    request: HttpRequest,
    action: Callable[[ActorContext, str], Fragment],
    *,
    retarget: str | None = None,
    reswap: str = "innerHTML",
    retry: Callable[[], dict[str, Any] | None] = lambda: None,
) -> HttpResponse:
    """Run one page action; a ``LightNoteError`` becomes a localized notice, not a 500."""
    locale = page_locale(request)
    actor: ActorContext | None = None
    try:
        actor = actor_context(request)
        fragment = action(actor, locale)
    except LightNoteError as error:
        return _respond(
            request,
            _problem(error, locale=locale, retry=retry()),
            actor=actor,
            locale=locale,
            retarget=retarget,
            reswap=reswap,
        )
    return _respond(request, fragment, actor=actor, locale=locale)


def _retry_fields(request: HttpRequest, form_class: type[forms.Form]) -> dict[str, Any] | None:
    """Return the posted hidden fields for a retry form, when they were valid."""
    form = form_class(request.POST)
    if not form.is_valid():
        return None
    return {key: str(value) for key, value in form.cleaned_data.items() if value}


# --- Views -------------------------------------------------------------------------------


@login_required
@require_GET
def chat_page(request: HttpRequest) -> HttpResponse:
    """Show the conversation of this browser session and the message form."""
    locale = page_locale(request)
    try:
        actor = actor_context(request)
    except LightNoteError as error:
        return _respond(request, _problem(error, locale=locale), actor=None, locale=locale)
    return HttpResponse(
        render_to_string(
            "agent/chat.html", _page_context(request, actor=actor, locale=locale), request
        )
    )


@login_required
@require_POST
def chat_message(request: HttpRequest) -> HttpResponse:
    """Send one message through ``handle_message``; answer with the turn (cards included)."""

    def send(actor: ActorContext, locale: str) -> Fragment:
        data = _valid(_MessageForm(request.POST))
        current = _posted_conversation(request, actor, data["session_id"])
        text = data["text"]
        if not text:
            raise LightNoteError("CHAT_TEXT_REQUIRED")
        if len(text) > MESSAGE_MAX:
            raise LightNoteError("CHAT_TEXT_TOO_LONG", params={"limit": MESSAGE_MAX})
        zone = _zone(actor)
        history = None if _is_htmx(request) else _history(current, locale=locale, zone=zone)
        body = conversation.handle_message(
            request=request, actor=actor, session=current, text=text, locale=locale
        )
        turn = f"m-{body['message_id']}"
        entries = [
            _user_entry(dom_id=f"{turn}-user", text=text),
            _assistant_entry(
                dom_id=turn,
                reply=body["reply"],
                payload=body,
                locale=locale,
                zone=zone,
                session_id=current.id,
            ),
        ]
        return Fragment(
            "agent/turn.html",
            {"entries": entries},
            is_list_item=True,
            history=history,
            conversation=current,
        )

    return _run(request, send, retarget="#composer-problem")


def _card_action(
    request: HttpRequest, operation: Callable[..., execution.Answer]
) -> Callable[[ActorContext, str], Fragment]:
    """Return the action that posts a card's token to ``operation`` and shows the outcome."""

    def act(actor: ActorContext, locale: str) -> Fragment:
        fields = _card_fields(request)
        answer = operation(
            request=request,
            actor=actor,
            token=fields.token,
            session_id=fields.session_id,
            locale=locale,
        )
        view = _outcome_view(answer, locale=locale, zone=_zone(actor))
        return Fragment(
            "agent/outcome.html",
            {
                **view,
                "fields": fields.as_context(),
                # The reply needs only its own token: the card's stays out of that form.
                "reply_fields": {
                    "continuation_token": fields.continuation_token,
                    "session_id": str(fields.session_id),
                },
            },
            status=answer.status,
            headers=answer.headers,
        )

    return act


@login_required
@require_POST
def chat_confirm(request: HttpRequest) -> HttpResponse:
    """Confirm a card (``execution.confirm``); the card is replaced by the server's outcome."""
    # An error keeps the card (and its buttons) and shows the reason under them.
    return _run(request, _card_action(request, execution.confirm), retarget="next .card-problem")


@login_required
@require_POST
def chat_reject(request: HttpRequest) -> HttpResponse:
    """Reject a card (``execution.reject``)."""
    return _run(request, _card_action(request, execution.reject), retarget="next .card-problem")


@login_required
@require_POST
def chat_status(request: HttpRequest) -> HttpResponse:
    """Report a card's state (``execution.status``); polled while running or unknown."""

    def retry() -> dict[str, Any] | None:
        fields = _retry_fields(request, _CardForm)
        return {"kind": "status", "fields": fields} if fields else None

    # An error stops the polling: it replaces the status area with the reason and a button.
    return _run(
        request,
        _card_action(request, execution.status),
        retarget="closest .status-area",
        retry=retry,
    )


@login_required
@require_POST
def chat_reply(request: HttpRequest) -> HttpResponse:
    """Fetch the final reply after a succeeded action (``continuations.reply``)."""

    def fetch(actor: ActorContext, locale: str) -> Fragment:
        data = _valid(_ReplyForm(request.POST))
        fields = {
            "continuation_token": data["continuation_token"],
            "session_id": str(data["session_id"]),
        }
        answer = continuations.reply(
            request=request,
            actor=actor,
            token=data["continuation_token"],
            session_id=data["session_id"],
            locale=locale,
        )
        notices = [_notice_view(notice, locale) for notice in answer.body.get("notices", [])]
        shown = {notice["message"] for notice in notices}
        reply = answer.body.get("reply", "")
        return Fragment(
            "agent/reply.html",
            {
                "state": answer.body.get("state"),
                # The guard's fixed text is the server's words: shown as its notice, not as
                # the assistant's text.
                "reply": "\n".join(
                    line for line in reply.split("\n") if line.strip() not in shown
                ).strip(),
                "notices": notices,
                "fields": fields,
            },
            status=answer.status,
            headers=answer.headers,
        )

    def retry() -> dict[str, Any] | None:
        fields = _retry_fields(request, _ReplyForm)
        return {"kind": "reply", "fields": fields} if fields else None

    return _run(request, fetch, retry=retry)


@login_required
@require_POST
def chat_new(request: HttpRequest) -> HttpResponse:
    """Open a new conversation for this browser session."""
    locale = page_locale(request)
    try:
        actor = actor_context(request)
    except LightNoteError as error:
        return _respond(request, _problem(error, locale=locale), actor=None, locale=locale)
    _open_conversation(request, actor)
    return redirect("chat")


@require_POST
def chat_language(request: HttpRequest) -> HttpResponse:
    """Remember this browser's page language in Django's language cookie."""
    target = request.POST.get("next") or reverse("chat")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = reverse("chat")
    response = redirect(target)
    locale = normalize_locale(request.POST.get("language"))
    if locale:
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            COOKIE_VALUES[locale],
            max_age=int(LANGUAGE_COOKIE_AGE.total_seconds()),
            path=settings.LANGUAGE_COOKIE_PATH,
            secure=settings.SESSION_COOKIE_SECURE,
            httponly=True,
            samesite="Lax",
        )
    return response
