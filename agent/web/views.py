"""The chat page's views: thin htmx views over the same functions as the API.

Every change goes through ``conversation.handle_message``, ``execution.confirm / reject /
status`` and ``continuations.reply`` — the functions the API calls. These views read the
form, call one of them and render its answer; a ``LightNoteError`` becomes a visible,
localized notice with its real HTTP status, never a 500 page.

The package around them: ``texts`` (page texts, language), ``forms`` (posted bodies),
``conversations`` (the browser session's conversation), ``presenters`` (what the templates
show) and ``htmx`` (a fragment or the whole page; errors as notices).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET

from agent.cards import confirm as execution
from agent.continuations import reply as continuations
from agent.conversation import turn as conversation
from agent.conversation.streaming import wants_stream
from agent.models import MESSAGE_MAX, AgentSession
from agent.web.card_views import undone_card_id
from agent.web.conversation_list import conversation_item
from agent.web.conversations import (
    open_conversation,
    posted_conversation,
    subject_conversation,
)
from agent.web.forms import (
    CardForm,
    MessageForm,
    ReplyForm,
    card_fields,
    retry_fields,
    valid_data,
)
from agent.web.history import history_entries, superseded_views
from agent.web.htmx import (
    Fragment,
    is_htmx,
    page_context,
    problem,
    respond,
    run_action,
)
from agent.web.presenters import (
    assistant_entry,
    notice_view,
    outcome_view,
    time_view,
    user_entry,
    zone_of,
)
from agent.web.reply_retry import remember_reply_token
from agent.web.streams import page_stream
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext, actor_context
from lightnote.texts.i18n import normalize_locale
from lightnote.texts.page_texts import page_locale, set_language_cookie


def post_or_back(
    view: Callable[[HttpRequest], HttpResponseBase],
) -> Callable[..., HttpResponseBase]:
    """Accept POST; any other method (a reload, a bookmarked form URL) goes to the chat page.

    A no-JS form posts to these URLs and the browser shows that URL: reloading it later, or
    opening it from the history, must land on a page that renders, never on a 405.
    """

    @functools.wraps(view)
    def wrapped(request: HttpRequest) -> HttpResponseBase:
        if request.method != "POST":
            return redirect("chat")
        return view(request)

    return wrapped


def _with_actor(
    request: HttpRequest, answer: Callable[[ActorContext, str], HttpResponse]
) -> HttpResponse:
    """Answer with the request's actor; an unusable admin context is a notice, not a 500."""
    locale = page_locale(request)
    try:
        actor = actor_context(request)
    except LightNoteError as error:
        return respond(request, problem(error, locale=locale), actor=None, locale=locale)
    return answer(actor, locale)


@login_required
@require_GET
def chat_page(request: HttpRequest) -> HttpResponse:
    """Show the conversation of this browser session and the message form."""

    def show(actor: ActorContext, locale: str) -> HttpResponse:
        # Inside an admin context, ?conversation=<id> shows one of the subject's
        # conversations read-only; without it, the staff member's context conversation.
        viewing = subject_conversation(actor, request.GET.get("conversation"))
        page = page_context(request, actor=actor, locale=locale, viewing=viewing)
        return HttpResponse(render_to_string("agent/chat.html", page, request))

    return _with_actor(request, show)


@login_required
@post_or_back
def chat_message(request: HttpRequest) -> HttpResponseBase:
    """Send one message through ``handle_message``; answer with the turn (cards included).

    The page's script asks for the turn as events (``Accept: text/event-stream``): the
    model's guarded sentences as they come, then this same fragment (``agent.web.streams``).
    """

    def send(actor: ActorContext, locale: str) -> Fragment | HttpResponseBase:
        data = valid_data(MessageForm(request.POST))
        current = posted_conversation(request, actor, data["session_id"])
        text = data["text"]
        if not text:
            raise LightNoteError("CHAT_TEXT_REQUIRED")
        if len(text) > MESSAGE_MAX:
            raise LightNoteError("CHAT_TEXT_TOO_LONG", params={"max": MESSAGE_MAX})
        zone = zone_of(actor)
        history = None if is_htmx(request) else history_entries(current, locale=locale, zone=zone)

        def turn(on_sentence: Callable[[str], None] | None = None) -> dict[str, Any]:
            return conversation.handle_message(
                request=request,
                actor=actor,
                session=current,
                text=text,
                locale=locale,
                on_sentence=on_sentence,
            )

        def shown(body: dict[str, Any]) -> Fragment:
            return _turn_fragment(
                request, actor, current, text=text, locale=locale, body=body, history=history
            )

        if is_htmx(request) and wants_stream(request):
            return page_stream(request, turn, shown, actor=actor, locale=locale)
        return shown(turn())

    return run_action(request, send, retarget="#composer-problem")


def _turn_fragment(
    request: HttpRequest,
    actor: ActorContext,
    current: AgentSession,
    *,
    text: str,
    locale: str,
    body: dict[str, Any],
    history: list[dict[str, Any]] | None,
) -> Fragment:
    """The turn as the page shows it: the two messages (cards included), for htmx also the
    conversation's list entry and the cards the turn replaced."""
    zone = zone_of(actor)
    turn = f"m-{body['message_id']}"
    now = timezone.now()
    entries = [
        user_entry(dom_id=f"{turn}-user", text=text, at=now, zone=zone),
        assistant_entry(
            dom_id=turn,
            reply=body["reply"],
            payload=body,
            locale=locale,
            zone=zone,
            session_id=current.id,
        ),
    ]
    entries[1]["time"] = time_view(now, zone)
    # With htmx, the conversation's list entry follows out of band (its new title).
    item = conversation_item(actor, current, locale=locale) if is_htmx(request) else None
    # A card this turn replaced (a correction said in the chat) shows its new state.
    superseded = (
        superseded_views(body["cards"], locale=locale, zone=zone, subject=actor.subject)
        if is_htmx(request)
        else []
    )
    return Fragment(
        "agent/turn.html",
        {
            "entries": entries,
            "conversation_item": item,
            "conversation": current,
            "superseded": superseded,
        },
        is_list_item=True,
        history=history,
        conversation=current,
    )


def _card_action(
    request: HttpRequest, operation: Callable[..., execution.Answer]
) -> Callable[[ActorContext, str], Fragment]:
    """Return the action that posts a card's token to ``operation`` and shows the outcome."""

    def act(actor: ActorContext, locale: str) -> Fragment:
        fields = card_fields(request)
        answer = operation(
            request=request,
            actor=actor,
            token=fields.token,
            session_id=fields.session_id,
            locale=locale,
        )
        remember_reply_token(
            request,
            answer,
            continuation_token=fields.continuation_token,
            session_id=fields.session_id,
        )
        view = outcome_view(
            answer, locale=locale, zone=zone_of(actor), session_id=fields.session_id
        )
        if view["receipt"]:
            # An undo card that ran: the card it took back stops offering its undo on the
            # page (app.js), and the undo card offers none of its own — as the history
            # shows both after a reload.
            view["undid"] = undone_card_id(view["receipt"].get("action_id"))
            if view["undid"]:
                view["undo"] = None
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
@post_or_back
def chat_confirm(request: HttpRequest) -> HttpResponseBase:
    """Confirm a card (``execution.confirm``); the card is replaced by the server's outcome."""
    # An error keeps the card (and its buttons) and shows the reason under them.
    return run_action(
        request, _card_action(request, execution.confirm), retarget="next .card-problem"
    )


@login_required
@post_or_back
def chat_reject(request: HttpRequest) -> HttpResponseBase:
    """Reject a card (``execution.reject``)."""
    return run_action(
        request, _card_action(request, execution.reject), retarget="next .card-problem"
    )


@login_required
@post_or_back
def chat_status(request: HttpRequest) -> HttpResponseBase:
    """Report a card's state (``execution.status``); polled while running or unknown."""

    def retry() -> dict[str, Any] | None:
        fields = retry_fields(request, CardForm)
        return {"kind": "status", "fields": fields} if fields else None

    # An error stops the polling: it replaces the status area with the reason and a button.
    return run_action(
        request,
        _card_action(request, execution.status),
        retarget="closest .status-area",
        retry=retry,
    )


@login_required
@post_or_back
def chat_reply(request: HttpRequest) -> HttpResponseBase:
    """Fetch the final reply after a succeeded action (``continuations.reply``)."""

    def fetch(actor: ActorContext, locale: str) -> Fragment:
        data = valid_data(ReplyForm(request.POST))
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
        notices = [notice_view(notice, locale) for notice in answer.body.get("notices", [])]
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
                "changes": answer.body.get("changes"),
                "fields": fields,
            },
            status=answer.status,
            headers=answer.headers,
        )

    def retry() -> dict[str, Any] | None:
        fields = retry_fields(request, ReplyForm)
        return {"kind": "reply", "fields": fields} if fields else None

    return run_action(request, fetch, retry=retry)


@login_required
@post_or_back
def chat_new(request: HttpRequest) -> HttpResponseBase:
    """Open a new conversation for this browser session."""

    def start(actor: ActorContext, locale: str) -> HttpResponse:
        try:
            opened = open_conversation(request, actor)
        except LightNoteError as error:  # the conversation cap: say so on the page
            return respond(request, problem(error, locale=locale), actor=actor, locale=locale)
        return redirect("chat-conversation", opened.id)

    return _with_actor(request, start)


@post_or_back
def chat_language(request: HttpRequest) -> HttpResponseBase:
    """Remember this browser's page language in Django's language cookie."""
    target = request.POST.get("next") or reverse("chat")
    # Only a path on this site; anything else (another host, or a word that ``redirect``
    # would try to reverse as a URL name and fail on with a 500) goes to the chat.
    if not target.startswith("/") or not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = reverse("chat")
    response = HttpResponseRedirect(target)
    locale = normalize_locale(request.POST.get("language"))
    if locale:
        set_language_cookie(response, locale)
    return response
