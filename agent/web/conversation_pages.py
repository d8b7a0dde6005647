"""The chat page's conversations: ``/chat/<session_id>/``, the list, switch, rename, delete.

Every change goes through ``agent.conversation.sessions`` (the services the API's ``PATCH`` /
``DELETE``
sessions call), so a deleted conversation is 404 here as everywhere. Another user's or a
deleted conversation id is a 404 page. Without JavaScript each form posts and redirects back
to a page that renders; with htmx a rename answers with the refreshed list, a delete of the
conversation on screen sends the browser to ``/chat/`` (the newest one left, or a new one).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET

from agent.conversation import sessions
from agent.models import AgentSession
from agent.web.conversation_list import conversation_page, list_context
from agent.web.conversations import (
    CONVERSATION_SESSION_KEY,
    owned_conversation,
    subject_conversation,
)
from agent.web.htmx import FRAGMENT_HEADER, is_htmx, page_context, problem, respond
from agent.web.presenters import page_message
from agent.web.texts import chat_texts
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext, actor_context
from lightnote.impersonation.permissions import refuse_admin_write
from lightnote.texts.i18n import translate
from lightnote.texts.page_texts import page_locale


class RenameForm(forms.Form):
    title = forms.CharField(required=False, strip=True)


def problems_as_pages(
    view: Callable[..., HttpResponse],
) -> Callable[..., HttpResponse]:
    """Show a ``LightNoteError`` (e.g. an unusable admin context) as a localized notice."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except LightNoteError as error:
            locale = page_locale(request)
            return respond(request, problem(error, locale=locale), actor=None, locale=locale)

    return wrapped


def _remember(request: HttpRequest, conversation_: AgentSession) -> None:
    if request.session.get(CONVERSATION_SESSION_KEY) != str(conversation_.id):
        request.session[CONVERSATION_SESSION_KEY] = str(conversation_.id)


def _owned_or_404(actor: ActorContext, session_id: uuid.UUID) -> AgentSession:
    found = owned_conversation(actor, session_id)
    if found is None:
        raise Http404("conversation")
    return found


@login_required
@problems_as_pages
@require_GET
def chat_index(request: HttpRequest) -> HttpResponse:
    """Open the newest live conversation, or a new one when there is none."""
    actor = actor_context(request)
    newest = sessions.session_list(owner=actor.subject).first()
    if newest is None:
        newest = sessions.session_create(owner=actor.subject)
    _remember(request, newest)
    return redirect("chat-conversation", newest.id)


@login_required
@problems_as_pages
@require_GET
def chat_conversation(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    """Show one of the subject's conversations (switching to it); anything else is a 404."""
    locale = page_locale(request)
    actor = actor_context(request)
    viewing = subject_conversation(actor, session_id)
    if viewing is not None:  # inside an admin context: the subject's, read-only
        page = page_context(request, actor=actor, locale=locale, viewing=viewing)
        return HttpResponse(render_to_string("agent/chat.html", page, request))
    shown = _owned_or_404(actor, session_id)
    _remember(request, shown)
    page = page_context(request, actor=actor, locale=locale, conversation_=shown)
    return HttpResponse(render_to_string("agent/chat.html", page, request))


@login_required
@problems_as_pages
@require_GET
def chat_conversations_older(request: HttpRequest) -> HttpResponse:
    """The next page of the conversation list, after ``?cursor=`` (its "older" link).

    For htmx the entries and the next "older" link, which replace the link clicked; without
    JavaScript the page of the conversation on screen with the list from there
    (``?older=``). A malformed cursor is a 400 notice.
    """
    locale = page_locale(request)
    actor = actor_context(request)
    cursor = request.GET.get("cursor", "")
    current = _current(request, actor)
    if not is_htmx(request):
        target = (
            reverse("chat-conversation", args=[current.id]) if current else reverse("chat-index")
        )
        return redirect(f"{target}?{urlencode({'older': cursor})}")
    entries, older = conversation_page(actor, current, locale=locale, cursor=cursor)
    context = {
        "t": chat_texts(locale),
        "conversations": entries,
        "conversations_older": older,
        "conversation": current,
    }
    response = HttpResponse(render_to_string("agent/conversations_more.html", context, request))
    response[FRAGMENT_HEADER] = "1"
    return response


def _list_answer(
    request: HttpRequest,
    actor: ActorContext,
    locale: str,
    current: AgentSession | None,
    *,
    status: int = 200,
    problem: LightNoteError | None = None,
    done: str = "",
) -> HttpResponse:
    """The refreshed list for htmx; without JS the page of ``current`` (or ``/chat/``)."""
    if is_htmx(request):
        context = {
            "t": chat_texts(locale),
            **list_context(actor, current, locale=locale),
            "conversation": current,
            "conversations_open": True,
            "conversations_problem": page_message(problem.code, problem.message(locale), locale)
            if problem
            else "",
            "conversations_problem_code": problem.code if problem else "",
            "conversations_done": done,
        }
        response = HttpResponse(
            render_to_string("agent/conversations.html", context, request), status=status
        )
        response[FRAGMENT_HEADER] = "1"
        return response
    if problem is None:
        target = reverse("chat-conversation", args=[current.id]) if current else "chat-index"
        return redirect(target)
    page = page_context(request, actor=actor, locale=locale, conversation_=current)
    page.update(
        conversations_open=True,
        conversations_problem=page_message(problem.code, problem.message(locale), locale),
        conversations_problem_code=problem.code,
    )
    return HttpResponse(render_to_string("agent/chat.html", page, request), status=status)


def _current(request: HttpRequest, actor: ActorContext) -> AgentSession | None:
    remembered = request.session.get(CONVERSATION_SESSION_KEY)
    return owned_conversation(actor, remembered) if remembered else None


def _post_or_chat(request: HttpRequest) -> HttpResponse | None:
    if request.method != "POST":
        return redirect("chat-index")
    return None


@login_required
@problems_as_pages
def chat_conversation_rename(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    """Rename a conversation (``sessions.session_rename``, as ``PATCH`` sessions)."""
    back = _post_or_chat(request)
    if back is not None:
        return back
    locale = page_locale(request)
    actor = actor_context(request)
    renamed = _owned_or_404(actor, session_id)
    form = RenameForm(request.POST)
    form.is_valid()
    try:
        refuse_admin_write(request, what="session.rename")
        sessions.session_rename(session=renamed, title=form.cleaned_data.get("title") or "")
    except LightNoteError as error:
        current = _current(request, actor) or renamed
        return _list_answer(request, actor, locale, current, status=error.status, problem=error)
    current = _current(request, actor) or renamed
    return _list_answer(
        request, actor, locale, current, done=translate("CHAT_CONVERSATION_RENAMED", locale)
    )


@login_required
@problems_as_pages
def chat_conversation_delete(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    """Delete a conversation (soft, ``sessions.session_delete``, as ``DELETE`` sessions).

    Deleting the conversation on screen goes to ``/chat/``: the newest one left, or a new one.
    """
    back = _post_or_chat(request)
    if back is not None:
        return back
    locale = page_locale(request)
    actor = actor_context(request)
    deleted = _owned_or_404(actor, session_id)
    shown = request.POST.get("shown") == str(deleted.id)
    try:
        refuse_admin_write(request, what="session.delete")
    except LightNoteError as error:
        return _list_answer(
            request, actor, locale, _current(request, actor), status=error.status, problem=error
        )
    sessions.session_delete(session=deleted, actor=actor)
    if request.session.get(CONVERSATION_SESSION_KEY) == str(deleted.id):
        del request.session[CONVERSATION_SESSION_KEY]
    if shown or not is_htmx(request):
        target = reverse("chat-index")
        if not shown:
            current = _current(request, actor)
            target = reverse("chat-conversation", args=[current.id]) if current else target
        if is_htmx(request):
            response = HttpResponse(status=204)
            response["HX-Redirect"] = target
            return response
        return redirect(target)
    return _list_answer(
        request,
        actor,
        locale,
        _current(request, actor),
        done=translate("CHAT_CONVERSATION_DELETED", locale),
    )
