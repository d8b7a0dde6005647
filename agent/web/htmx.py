"""htmx plumbing: a fragment for htmx requests, the whole page for a plain form POST.

htmx requests get a fragment, marked with ``X-LightNote-Fragment`` so the page's script swaps
only our own answers (and ``HX-Retarget`` for a problem shown elsewhere); a plain form POST
(no JavaScript) gets the whole page with the result at the end of the conversation. A
``LightNoteError`` becomes a visible, localized notice with its real status, never a 500.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.template.loader import render_to_string

from agent.models import MESSAGE_MAX, AgentSession
from agent.web.conversation_list import list_context
from agent.web.conversations import current_conversation
from agent.web.history import history_entries
from agent.web.presenters import card_view, page_message, zone_of
from agent.web.reply_retry import attach_reply_retries
from agent.web.texts import chat_texts
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext, actor_context
from lightnote.texts.i18n import translate
from lightnote.texts.page_texts import page_locale

FRAGMENT_HEADER = "X-LightNote-Fragment"


def is_htmx(request: HttpRequest) -> bool:
    """Return True for a request htmx sent (it answers with a fragment)."""
    return request.headers.get("HX-Request") == "true"


def page_context(
    request: HttpRequest,
    *,
    actor: ActorContext | None,
    locale: str,
    conversation_: AgentSession | None = None,
    history: list[dict[str, Any]] | None = None,
    viewing: AgentSession | None = None,
) -> dict[str, Any]:
    """The chat page's context. ``viewing``: one of the subject's conversations, shown
    read-only inside an admin context (no composer, no card actions)."""
    zone = zone_of(actor)
    context: dict[str, Any] = {
        "t": chat_texts(locale),
        "page_locale": locale,
        "message_max": MESSAGE_MAX,
    }
    if actor is None:
        return context
    if viewing is not None:
        conversation_ = viewing
    if conversation_ is None:
        conversation_ = current_conversation(request, actor)
    context["conversation"] = conversation_
    context["history"] = (
        history if history is not None else history_entries(conversation_, locale=locale, zone=zone)
    )
    attach_reply_retries(request, context["history"])

    if actor.admin_context is None:
        # ``?older=<cursor>``: the list from further down (the "older" link without JS).
        context.update(
            list_context(actor, conversation_, locale=locale, cursor=request.GET.get("older"))
        )
    else:
        # The banner itself is every page's (base.html); here: the subject's conversations
        # (the same list entries, the one viewed marked), readable, and what the composer
        # does inside a context.
        # 50 at a time as in the user's own list; the "older" link reloads the page from
        # there (``?older=<cursor>``), keeping the conversation viewed.
        listing = list_context(actor, viewing, locale=locale, cursor=request.GET.get("older"))
        context["subject_conversations"] = listing["conversations"]
        context["subject_conversations_older"] = listing["conversations_older"]
        context["subject_conversations_from"] = listing["conversations_from"]
        context["readonly_view"] = viewing is not None
        context["admin_texts"] = {
            code: translate(f"CHAT_ADMIN_{code}", locale, subject=actor.subject.username)
            for code in ("CONVERSATIONS", "NO_CONVERSATIONS", "VIEWING", "ASK", "COMPOSER")
        }
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


def respond(
    request: HttpRequest,
    fragment: Fragment,
    *,
    actor: ActorContext | None,
    locale: str,
    retarget: str | None = None,
    reswap: str = "innerHTML",
) -> HttpResponse:
    context = {"t": chat_texts(locale), "page_locale": locale, **fragment.context}
    body = render_to_string(fragment.template, context, request)
    if is_htmx(request):
        response = HttpResponse(body, status=fragment.status)
        response[FRAGMENT_HEADER] = "1"
        if retarget:
            response["HX-Retarget"] = retarget
            response["HX-Reswap"] = reswap
    else:
        # Without JavaScript: the whole page, with this answer at the end of the conversation.
        page = page_context(
            request,
            actor=actor,
            locale=locale,
            conversation_=fragment.conversation,
            history=fragment.history,
        )
        page.update(fragment=body, fragment_is_list_item=fragment.is_list_item)
        if fragment.status >= 400:
            # A refused message keeps its text in the box, as with JavaScript.
            page["draft"] = request.POST.get("text", "")
        response = HttpResponse(
            render_to_string("agent/chat.html", page, request), status=fragment.status
        )
    for name, value in (fragment.headers or {}).items():
        response[name] = value
    return response


def card_fragment(
    card: dict[str, Any], *, actor: ActorContext, locale: str, conversation: AgentSession
) -> Fragment:
    """The live card the server just issued, as the card fragment of ``conversation``."""
    view = card_view(
        card,
        dom_id=f"card-{card['card_id']}",
        locale=locale,
        zone=zone_of(actor),
        session_id=conversation.id,
    )
    return Fragment("agent/card.html", {"card": view}, conversation=conversation)


def problem(error: LightNoteError, *, locale: str, retry: dict[str, Any] | None = None) -> Fragment:
    return Fragment(
        "agent/notice.html",
        {
            "code": error.code,
            "message": page_message(error.code, error.message(locale), locale),
            "retry": retry,
        },
        status=error.status,
        headers=error.headers,
    )


def run_action(
    request: HttpRequest,
    action: Callable[[ActorContext, str], Fragment | HttpResponseBase],
    *,
    retarget: str | None = None,
    reswap: str = "innerHTML",
    retry: Callable[[], dict[str, Any] | None] = lambda: None,
) -> HttpResponseBase:
    """Run one page action; a ``LightNoteError`` becomes a localized notice, not a 500.

    An action may answer with a response of its own (a streamed turn, ``agent.web.streams``).
    """
    locale = page_locale(request)
    actor: ActorContext | None = None
    try:
        actor = actor_context(request)
        fragment = action(actor, locale)
    except LightNoteError as error:
        return respond(
            request,
            problem(error, locale=locale, retry=retry()),
            actor=actor,
            locale=locale,
            retarget=retarget,
            reswap=reswap,
        )
    if isinstance(fragment, HttpResponseBase):
        return fragment
    return respond(request, fragment, actor=actor, locale=locale)
