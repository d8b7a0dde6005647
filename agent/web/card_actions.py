"""The chat page's card actions of issue 15: pick from a choice, edit a card, undo.

Thin views over the API's functions (``choices.choose``, ``card_edits.edit``,
``card_undo.undo``): each answers with the ordinary card it issued — a fragment for htmx,
the whole page without JavaScript — or a localized notice with the real status.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse

from agent import card_edits, card_undo, choices
from agent.web.conversations import posted_conversation
from agent.web.forms import ChooseForm, EditForm, ReissueForm, valid_data
from agent.web.htmx import Fragment, card_fragment, run_action
from agent.web.views import post_or_back
from lightnote.context import ActorContext
from lightnote.permissions import refuse_admin_write


@login_required
@post_or_back
def chat_choose(request: HttpRequest) -> HttpResponse:
    """Pick one candidate of a choice card: the choice is replaced by the ordinary card."""

    def pick(actor: ActorContext, locale: str) -> Fragment:
        data = valid_data(ChooseForm(request.POST))
        current = posted_conversation(request, actor, data["session_id"])
        card = choices.choose(
            request=request,
            actor=actor,
            token=data["token"],
            session_id=data["session_id"],
            candidate_id=str(data["candidate_id"]),
            locale=locale,
        )
        return card_fragment(card, actor=actor, locale=locale, conversation=current)

    return run_action(request, pick, retarget="next .card-problem")


@login_required
@post_or_back
def chat_edit(request: HttpRequest) -> HttpResponse:
    """Edit a ready card: a new card replaces it (the old token no longer confirms)."""

    def save(actor: ActorContext, locale: str) -> Fragment:
        form = EditForm(request.POST)
        data = valid_data(form)
        current = posted_conversation(request, actor, data["session_id"])
        card = card_edits.edit(
            request=request,
            actor=actor,
            token=data["token"],
            session_id=data["session_id"],
            edits=form.edits(),
            locale=locale,
        )
        return card_fragment(card, actor=actor, locale=locale, conversation=current)

    return run_action(request, save, retarget="next .card-problem")


@login_required
@post_or_back
def chat_undo(request: HttpRequest) -> HttpResponse:
    """Undo a succeeded card: the card for its compensating action, to confirm like any."""

    def take_back(actor: ActorContext, locale: str) -> Fragment:
        data = valid_data(ReissueForm(request.POST))
        refuse_admin_write(request, what="card.undo")
        current = posted_conversation(request, actor, data["session_id"])
        card = card_undo.undo(
            request=request, actor=actor, session=current, card_id=data["card_id"], locale=locale
        )
        return card_fragment(card, actor=actor, locale=locale, conversation=current)

    return run_action(request, take_back, retarget="next .card-problem")
