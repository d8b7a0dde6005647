"""The chat page's card actions: pick from a choice, edit a card, undo (issue 15), ask again.

Thin views over the API's functions (``choices.choose``, ``card_edits.edit``,
``card_undo.undo``, ``derived_cards.reissue_card``): each answers with the card it issued —
a fragment for htmx, the whole page without JavaScript — or a localized notice with the real
status.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponseBase

from agent.cards import derived as derived_cards
from agent.cards import edit as card_edits
from agent.cards import undo as card_undo
from agent.choices import choose as choices
from agent.models import AgentSession
from agent.web.card_refresh import MOVED_ON, current_card_fragment
from agent.web.conversations import posted_conversation
from agent.web.forms import ChooseForm, EditForm, ReissueForm, valid_data
from agent.web.htmx import Fragment, card_fragment, run_action
from agent.web.views import post_or_back
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext
from lightnote.impersonation.permissions import refuse_admin_write

CardIssuer = Callable[..., dict[str, Any]]


def _card_action(
    request: HttpRequest,
    form_class: type[forms.Form],
    issue: CardIssuer,
    *,
    admin_write: str | None = None,
    template: str = "",
) -> HttpResponseBase:
    """Validate the posted form, find the posted conversation, let ``issue`` issue a card
    (keyword arguments ``actor``, ``locale``, ``form``, ``data``, ``current``) and answer
    with it; ``admin_write`` names a write refused in an admin read-only context;
    ``template``: a turn of its own at the end of the conversation (the undo's card)."""

    def act(actor: ActorContext, locale: str) -> Fragment:
        form = form_class(request.POST)
        data = valid_data(form)
        if admin_write:
            refuse_admin_write(request, what=admin_write)
        current = posted_conversation(request, actor, data["session_id"])
        card = issue(actor=actor, locale=locale, form=form, data=data, current=current)
        fragment = card_fragment(card, actor=actor, locale=locale, conversation=current)
        if template:
            fragment.template, fragment.is_list_item = template, True
        return fragment

    return run_action(request, act, retarget="next .card-problem")


@login_required
@post_or_back
def chat_choose(request: HttpRequest) -> HttpResponseBase:
    """Pick one candidate of a choice card: the choice is replaced by the ordinary card.

    A live choice posts its token; a ready choice in history (after a reload) its id."""

    def pick(
        *, actor: ActorContext, locale: str, data: dict[str, Any], current: AgentSession, **_: Any
    ) -> Any:
        if data["card_id"]:  # a ready choice shown by history (after a reload)
            return choices.choose_from_history(
                request=request,
                actor=actor,
                session=current,
                card_id=data["card_id"],
                candidate_id=str(data["candidate_id"]),
                locale=locale,
            )
        return choices.choose(
            request=request,
            actor=actor,
            token=data["token"],
            session_id=data["session_id"],
            candidate_id=str(data["candidate_id"]),
            locale=locale,
        )

    return _card_action(request, ChooseForm, pick)


@login_required
@post_or_back
def chat_edit(request: HttpRequest) -> HttpResponseBase:
    """Edit a ready card: a new card replaces it (the old token no longer confirms)."""

    def save(
        *, actor: ActorContext, locale: str, form: EditForm, data: dict[str, Any], **_: Any
    ) -> Any:
        return card_edits.edit(
            request=request,
            actor=actor,
            token=data["token"],
            session_id=data["session_id"],
            edits=form.edits(),
            locale=locale,
        )

    return _card_action(request, EditForm, save)


@login_required
@post_or_back
def chat_undo(request: HttpRequest) -> HttpResponseBase:
    """Undo a succeeded card: the card for its compensating action, to confirm like any."""

    def take_back(
        *, actor: ActorContext, locale: str, data: dict[str, Any], current: AgentSession, **_: Any
    ) -> Any:
        return card_undo.undo(
            request=request, actor=actor, session=current, card_id=data["card_id"], locale=locale
        )

    return _card_action(
        request, ReissueForm, take_back, admin_write="card.undo", template="agent/undo_turn.html"
    )


@login_required
@post_or_back
def chat_reissue(request: HttpRequest) -> HttpResponseBase:
    """Ask again: re-issue a still-ready history card as a new live card (the old is voided).

    A card that moved on meanwhile (confirmed in another tab, or before a Back restored this
    page) answers with its current state — its receipt, its rejection — not an error."""

    def act(actor: ActorContext, locale: str) -> Fragment:
        data = valid_data(ReissueForm(request.POST))
        current = posted_conversation(request, actor, data["session_id"])
        try:
            card = derived_cards.reissue_card(
                request=request,
                actor=actor,
                session=current,
                card_id=data["card_id"],
                locale=locale,
            )
        except LightNoteError as error:
            if error.code not in MOVED_ON:
                raise
            return current_card_fragment(
                actor=actor, session=current, card_id=data["card_id"], locale=locale
            )
        return card_fragment(card, actor=actor, locale=locale, conversation=current)

    return run_action(request, act, retarget="next .card-problem")
