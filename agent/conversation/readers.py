"""One message turn as a table of readers: the first reader that matches decides its plan.

A reader is a small class with ``match(said) -> Reading | None``. :func:`read_message`
runs the table the configured planner calls for, in order, and returns the first reading:

- the offline rules planner (``LIGHTNOTE_PLANNER=rules``): a pick from the choice the last
  turn offered ("第二个"), the answer to the pending question, a correction of the card just
  shown ("不对，是明天"), an undo of the last change ("撤销刚才的操作"), a "never mind" to the
  waiting card ("算了"), a position in the list just shown ("把第二个标记完成"), then the
  planner itself;
- a model (``LIGHTNOTE_PLANNER=openai``): every message is the model's, with the cards and
  candidates in front of the user in its context. Its answer uses the ordinary tools, and
  the server maps one that names a card in front of the user (:mod:`agent.conversation.
  mapping`): a write on the ready card's item corrects that card, a pick of a candidate
  uses the choice, the compensation of the last change is its undo. The offline grammar
  never reads a model deployment's messages; buttons (choose, edit, undo, reject) are
  their own endpoints on either planner.

A reading carries the plan (text, facts, proposals, a question) and what the turn must
write beside its cards: the corrected card (withdrawn), the undo offered.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from django.conf import settings

from agent.conversation import (
    card_items,
    card_questions,
    list_references,
    mapping,
    paging,
    pronouns,
)
from agent.conversation import corrections as card_corrections
from agent.conversation import undo as card_undo
from agent.conversation.decisions import Turn
from agent.conversation.reading import Reading, Said
from agent.planners import get_planner, phrases
from agent.planners.base import PlanRequest, PlanResult, TurnCancelled, reply_locale
from agent.planners.lexicon import normalise
from agent.planners.replies import describe_facts
from agent.planners.rules import grammar_for
from agent.ratelimit import limit_new_card
from agent.tools import registry, user_roles
from lightnote.errors import LightNoteError
from lightnote.texts.hanzi import simplified
from lightnote.texts.i18n import translate

logger = logging.getLogger(__name__)


class Reader(Protocol):
    def match(self, said: Said) -> Reading | None:
        """Return the reading of ``said``, or None to let the next reader try."""
        ...


class ChoicePick:
    """ "第二个" to a choice card: the ordinary card for that item, from the choice's own
    prepared args; a choice used or gone meanwhile leaves the message to the next reader."""

    def match(self, said: Said) -> Reading | None:
        waiting, resumed = said.waiting, said.resumed
        if waiting is None or resumed is None or not resumed.pick or not waiting.choice:
            return None
        limit_new_card(said.turn.request, user_id=said.turn.actor.actor.pk)
        try:
            said.turn.take_choice(waiting.choice, resumed.pick)
        except LightNoteError as error:
            if error.status >= 500:
                raise
            return None
        return Reading(PlanResult(text=""), notes=["choice pick"])


class PendingAnswer:
    """The answer to the pending question: it completes the request (proposed like any
    other, so policy, preparation and the card decide as for a one-line request), cancels
    it, or leaves the slot still open (asked again)."""

    def match(self, said: Said) -> Reading | None:
        resumed = said.resumed
        if resumed is None:
            return None
        if resumed.cancelled:
            language = reply_locale(said.text, said.waiting.locale if said.waiting else said.locale)
            return Reading(PlanResult(text=translate("PLANNER_CLARIFY_CANCELLED", language)))
        if resumed.again is not None:
            return Reading(PlanResult(text="", clarify=resumed.again))
        proposal = resumed.proposal
        if proposal is None:
            return None
        tool = registry.get(proposal.tool)
        if tool is not None and not tool.is_write:
            fact = said.turn.run_read_tool(proposal.tool, proposal.args)
            text = describe_facts([fact], said.turn.reply_locale)
            return Reading(PlanResult(text=text, facts=[fact]), notes=["pending answer"])
        return Reading(PlanResult(text="", proposals=[proposal]), notes=["pending answer"])


class CardCorrection:
    """不对，是周五 / "actually make it 5pm": the card just shown, proposed again changed."""

    def match(self, said: Said) -> Reading | None:
        turn = said.turn
        corrected = card_corrections.correction_for(
            session=turn.session, text=said.text, now=turn.context.now
        )
        if corrected is None:
            return None
        plan = PlanResult(text="", proposals=[corrected.proposal])
        return Reading(plan, corrected=corrected, notes=["correction"])


class UndoSaid:
    """撤销刚才的操作 / "undo that": the conversation's last change, taken back by a card."""

    def match(self, said: Said) -> Reading | None:
        turn = said.turn
        undoing = card_undo.undo_said(
            session=turn.session, actor=turn.actor, text=said.text, now=turn.context.now
        )
        if undoing is None:
            return None
        card_undo.offer_undo(turn, undoing, said.leases)
        return Reading(PlanResult(text=""), undoing=undoing, notes=["undo"])


class Dismissed:
    """算了 / "never mind" with no question pending: a waiting card is left to its buttons
    (words neither run nor withdraw it), and the reply says so; with none, nothing changed."""

    def match(self, said: Said) -> Reading | None:
        turn = said.turn
        read = simplified(normalise(said.text))
        if not grammar_for(read).is_no(read):
            return None
        row = card_questions.waiting_card(
            session=turn.session, owner=turn.actor.subject, now=turn.context.now
        )
        text = card_questions.dismissal_reply(row, locale=turn.reply_locale)
        return Reading(PlanResult(text=text), notes=["dismissed"])


class ListReference:
    """把第二个标记完成 right after a list: the second item listed, by its title."""

    def match(self, said: Said) -> Reading | None:
        resolved = list_references.resolve(said.text, said.listed)
        if resolved == said.text:
            return None
        return Reading(plan_with_planner(said, resolved), notes=["list reference"])


class PageAsked:
    """下一页 / "show more" / 第二页: another page of the conversation's last list (or of the
    read said before the page: 列出我的待办，第二页); with no list, a sentence saying so."""

    def match(self, said: Said) -> Reading | None:
        asked = phrases.page_asked(said.text)
        if asked is None:
            return None
        read, page = asked
        turn = said.turn
        if read:
            plan = plan_with_planner(said, read)
            if not turn.lists:
                _forget_reads(turn, plan)
                return None  # not a list read after all: the message as a whole
            return Reading(paging.read_at_page(turn, plan, page), notes=["page"])
        states = paging.last_lists(turn.session)
        if states is None:
            return Reading(PlanResult(text=translate("PLANNER_PAGE_NOTHING", turn.reply_locale)))
        text, facts = paging.another_page(turn, states, page)
        text = text or describe_facts(facts, turn.reply_locale)
        return Reading(PlanResult(text=text, facts=facts), notes=["page"])


class CardAsked:
    """删了吗？ / "is it done?": the state of the conversation's last card, as stored."""

    def match(self, said: Said) -> Reading | None:
        if not card_questions.asks_about_card(said.text):
            return None
        turn = said.turn
        row = card_questions.last_card(session=turn.session, owner=turn.actor.subject)
        if row is None:
            return None  # no card here: the planner's (a lookup, or help)
        text = card_questions.card_state_reply(
            row, now=turn.context.now, zone=turn.context.zone, locale=turn.reply_locale
        )
        return Reading(PlanResult(text=text), notes=["card question"])


class ItemPronoun:
    """它什么时候到期？ / "when is it due?": a read of the item of the last card or single read."""

    def match(self, said: Said) -> Reading | None:
        turn = said.turn
        owner, now = turn.actor.subject, turn.context.now
        unmade = pronouns.unmade_in_front(said.text, session=turn.session, owner=owner, now=now)
        if unmade is not None:
            reply = card_questions.not_made_yet_reply(unmade, locale=turn.reply_locale)
            return Reading(PlanResult(text=reply), notes=["pronoun", "not made yet"])
        text = pronouns.with_item(said.text, session=turn.session, owner=owner)
        if text is None:
            return None
        plan = plan_with_planner(said, text)
        if not plan.facts or plan.proposals or plan.clarify:
            _forget_reads(turn, plan)
            return None  # not a read of it: the message as said
        return Reading(plan, notes=["pronoun"])


def _forget_reads(turn: Turn, plan: PlanResult) -> None:
    """Drop what a reading tried and did not take: the reads it ran are neither shown nor
    kept for a next page (the next reader reads the message again)."""
    turn.facts[:] = [fact for fact in turn.facts if fact not in plan.facts]
    turn.lists.clear()  # (only the reading being dropped has read anything yet)


class Planned:
    """The configured planner, on the message as said ("it" right after a card: that card's
    item, :mod:`agent.conversation.card_items`; the item a waiting create card would make
    does not exist yet, and the reply says so)."""

    def match(self, said: Said) -> Reading | None:
        turn = said.turn
        plan = plan_with_planner(said, said.text)
        unmade = card_items.unmade(plan, turn.session, now=turn.context.now)
        if unmade is not None:
            text = card_questions.not_made_yet_reply(unmade, locale=turn.reply_locale)
            return Reading(PlanResult(text=text), notes=["planner", "not made yet"])
        return Reading(card_items.aimed(plan, turn.session), notes=["planner"])


class ModelPlanned:
    """A model's turn: the message with the cards and candidates in front of the user; an
    answer that names one of them is mapped to its correction, pick or undo."""

    def match(self, said: Said) -> Reading | None:
        front = mapping.in_front(said.turn, said.waiting)
        plan = plan_with_planner(said, said.text, in_front=front.described())
        return mapping.mapped(said, plan, front)


RULES_READERS: tuple[Reader, ...] = (
    ChoicePick(),
    PageAsked(),
    CardAsked(),
    PendingAnswer(),
    CardCorrection(),
    UndoSaid(),
    Dismissed(),
    ListReference(),
    ItemPronoun(),
    Planned(),
)
MODEL_READERS: tuple[Reader, ...] = (ModelPlanned(),)


def readers() -> tuple[Reader, ...]:
    """The table the configured planner calls for."""
    return MODEL_READERS if settings.LIGHTNOTE_PLANNER == "openai" else RULES_READERS


def read_message(said: Said) -> Reading:
    """Run the readers in order; the first reading wins (the last reader always reads)."""
    for reader in readers():
        reading = reader.match(said)
        if reading is not None:
            return reading
    raise AssertionError("the last reader of every table reads every message")


def offered_tools(turn: Turn) -> tuple[list[dict[str, Any]], frozenset[str]]:
    """Return the OpenAI specs of every tool this user may use, and which of them read."""
    roles = user_roles(turn.actor.actor)
    allowed = [tool for tool in registry.tools() if roles & tool.allowed_roles]
    specs = [tool.openai_spec() for tool in allowed]
    return specs, frozenset(tool.name for tool in allowed if not tool.is_write)


def plan_with_planner(
    said: Said, text: str, *, in_front: list[dict[str, Any]] | None = None
) -> PlanResult:
    """Run the configured planner for ``text``; a planner that fails is a clear reply."""
    turn = said.turn
    tools, read_tools = offered_tools(turn)
    request = PlanRequest(
        text=text,
        history=said.history,
        locale=said.locale,
        zone=turn.context.zone,
        now=turn.context.now,
        tools=tools,
        read_tools=read_tools,
        run_read_tool=turn.run_read_tool,
        in_front=in_front or [],
        listener=said.listener,
    )
    try:
        return get_planner().plan(request)
    except (LightNoteError, TurnCancelled):
        raise  # the store is down or similar: the API's own error; or the client left
    except Exception:
        # A response the planner could not read (e.g. a malformed completion) is a failed
        # turn with a clear reply, never a 500; only read tools can have run, so nothing
        # was written.
        logger.exception("planner failed on session %s", turn.session.id)
        return PlanResult(text="", error="PLANNER_UNAVAILABLE")
