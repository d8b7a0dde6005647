"""One message turn's decisions: each proposal becomes a card, a question or a notice.

:class:`Turn` is the state of one user message's handling (``agent.conversation.turn`` drives
it). It runs read tools through the tool policy (a refusal is a failed fact, never an
error); turns each write proposal into a card (:class:`agent.cards.issue.CardIssuer`), or
into a notice saying why not (unknown capability, malformed args, a policy refusal, more
than ``LIGHTNOTE_MAX_CARDS_PER_TURN`` cards), each refusal audited as ``card.refused``; asks
one question per turn for a missing or vague slot (a pending request for the next message),
offering a choice card when a write's target matches several items; and takes a pick from
an earlier choice. Nothing here writes the database except audit rows of refusals: the
cards', choices' and picks' rows are queued for the caller's transaction.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.conf import settings

from agent.capabilities import capability_by_tool, capability_for_unknown_tool
from agent.cards.issue import CardIssuer
from agent.choices import choose as choices
from agent.choices import store as choice_store
from agent.conversation import followups, paging, pending
from agent.models import Choice
from agent.planners.base import Clarification, Fact, Proposal, reply_locale
from agent.planners.lexicon import SLOT_TARGET
from agent.planners.questions import question
from agent.policy import enforce_tool_policy
from agent.tools import registry
from lightnote.audit import audit_event
from lightnote.errors import LightNoteError
from lightnote.ops import metrics
from lightnote.texts.i18n import define_messages, translate

define_messages(
    {
        "TOOL_ARGS_MALFORMED": (
            "模型给出的参数无法解析，未生成确认卡。",
            "The model's arguments could not be parsed; no card was made.",
        ),
        "TITLED_TODO_NOT_FOUND": ("没有名为「{title}」的待办。", 'No todo is titled "{title}".'),
        "TITLED_NOTE_NOT_FOUND": ("没有名为「{title}」的笔记。", 'No note is titled "{title}".'),
        "TOO_MANY_PROPOSALS": (
            "一条消息最多生成 {limit} 张确认卡；其余操作没有生成确认卡，"
            "请先处理这些，再提出其余操作。",
            "One message makes at most {limit} cards; the other proposed actions got none. "
            "Handle these first, then ask for the rest.",
        ),
    }
)


def _notice(capability: str, status: str, message: str, code: str | None = None) -> dict[str, Any]:
    notice = {"capability": capability, "status": status, "message": message}
    if code:
        notice["code"] = code
    return notice


def _capability_id(tool_name: str) -> str:
    capability = capability_by_tool(tool_name) or capability_for_unknown_tool(tool_name)
    return capability.id if capability else tool_name


class Turn(CardIssuer):
    """The state of one message's handling (kept small and explicit)."""

    def __init__(self, **issuer: Any):
        """``issuer``: :class:`CardIssuer`'s arguments (request, actor, session, text, ...)."""
        super().__init__(**issuer)
        # The reply (and what reads say in it) is in the language of the message it answers.
        self.reply_locale = reply_locale(self.text, self.locale)
        self.read_context = dataclasses.replace(self.context, locale=self.reply_locale)
        self.notices: list[dict[str, Any]] = []
        # Choice cards offered on this turn (API shape, with their token) and their rows.
        self.choices: list[dict[str, Any]] = []
        self.choice_rows: list[Choice] = []
        # Picks made on this turn from an earlier choice: (choice id, candidate id, card id).
        self.chosen: list[tuple[str, str, str]] = []
        # The one request this turn asks about (kept for the next message), if any.
        self.asked: pending.PendingRequest | None = None
        # Write proposals refused because the turn already made LIGHTNOTE_MAX_CARDS_PER_TURN.
        self.over_card_limit: list[str] = []
        # The lists this turn read, as the next page needs them (agent.conversation.paging).
        self.lists: list[dict[str, Any]] = []

    def run_read_tool(self, name: str, args: dict[str, Any]) -> Fact:
        """Run a read tool through the policy; a refusal becomes a failed fact."""
        try:
            result = enforce_tool_policy(
                tool_name=name, args=args, context=self.read_context, phase="prepare"
            )
            if result.tool.is_write:  # never reached via the planners; refuse, never run
                raise LightNoteError("TOOL_NOT_FOUND", status=404, params={"tool": name})
            read = result.tool.run(result.args, self.read_context)
            fact = Fact(tool=name, status="succeeded", summary=read.summary, data=read.data)
            if "next" in read.data:  # a list, paged (agent.tools.adapters.page_data)
                self.lists.append(paging.list_state(name, result.args, read.data))
        except LightNoteError as error:
            fact = Fact(
                tool=name,
                status="failed",
                summary=error.message(self.reply_locale),
                data={"code": error.code},
            )
        self.facts.append(fact)
        return fact

    def card_for(self, proposal: Proposal) -> None:
        """Turn one write proposal into a card, or into a notice saying why not.

        Once the turn holds ``LIGHTNOTE_MAX_CARDS_PER_TURN`` cards, every further proposal
        (other than a known read tool) gets the notice ``TOO_MANY_PROPOSALS``: it is not
        prepared, stores nothing and takes nothing from the user's card rate limit.
        """
        if len(self.cards) >= settings.LIGHTNOTE_MAX_CARDS_PER_TURN:
            tool = registry.get(proposal.tool)
            if tool is None or tool.is_write:
                self._refuse_over_card_limit(proposal)
                return
        unknown = (
            capability_for_unknown_tool(proposal.tool)
            if registry.get(proposal.tool) is None
            else None
        )
        if unknown is not None:
            guidance = (unknown.guidance or {}).get(self.locale, "")
            code = f"CAPABILITY_{unknown.status.upper()}"
            self.notices.append(_notice(unknown.id, unknown.status, guidance, code))
            self._audit_refusal(proposal, code)
            return
        if proposal.error:
            code = "TOOL_ARGS_MALFORMED"
            self.notices.append(
                _notice(
                    _capability_id(proposal.tool), "rejected", translate(code, self.locale), code
                )
            )
            self._audit_refusal(proposal, code)
            return
        try:
            prepared = enforce_tool_policy(
                tool_name=proposal.tool, args=proposal.args, context=self.context, phase="prepare"
            )
        except LightNoteError as error:
            otherwise = self._prepared_otherwise(proposal, error)
            if otherwise is None and proposal.instead and error.code.endswith("_NOT_FOUND"):
                for part in proposal.instead:  # several items after all: a card (or ask) each
                    self.card_for(part)
                return
            if otherwise is None:
                if not self._ask_about(proposal, error):
                    self.notices.append(
                        _notice(
                            _capability_id(proposal.tool),
                            "rejected",
                            self._refusal_message(proposal, error),
                            error.code,
                        )
                    )
                    self._audit_refusal(proposal, error.code)
                return
            prepared = otherwise
        if not prepared.tool.is_write:  # a read proposed alongside writes: run it, no card
            self.run_read_tool(proposal.tool, proposal.args)
            return
        try:
            # Counted against the user's card limit in the round trip that stores it.
            self.issue(prepared, limited=True)
        except LightNoteError as error:
            if error.status >= 500 or error.status == 429:
                raise  # the store is down or the user is over the limit: the whole turn fails
            # Too large to store (args, preview or snapshot): refused like a failed prepare.
            self.notices.append(
                _notice(prepared.capability.id, "rejected", error.message(self.locale), error.code)
            )
            self._audit_refusal(proposal, error.code)

    def _refusal_message(self, proposal: Proposal, error: LightNoteError) -> str:
        """The refusal as the user reads it; an item named that does not exist is named
        back (several in one message are told apart: 没有名为「洗车」的待办。)."""
        titled = {"TODO_NOT_FOUND": "todo_title", "NOTE_NOT_FOUND": "note_title"}
        title = str(proposal.args.get(titled.get(error.code, "")) or "").strip()
        if not title:
            return error.message(self.locale)
        return translate(f"TITLED_{error.code}", self.locale, title=title)

    def _refuse_over_card_limit(self, proposal: Proposal) -> None:
        code = "TOO_MANY_PROPOSALS"
        message = translate(code, self.locale, limit=settings.LIGHTNOTE_MAX_CARDS_PER_TURN)
        self.notices.append(_notice(_capability_id(proposal.tool), "rejected", message, code))
        self.over_card_limit.append(proposal.tool)

    def audit_over_card_limit(self) -> None:
        """Record the proposals refused for the per-turn card limit: one row with the count."""
        if not self.over_card_limit:
            return
        audit_event(
            "card.refused",
            actor=self.actor.actor,
            subject=self.actor.subject,
            session_id=self.session.id,
            code="TOO_MANY_PROPOSALS",
            details={
                "count": len(self.over_card_limit),
                "limit": settings.LIGHTNOTE_MAX_CARDS_PER_TURN,
                "tools": sorted(set(self.over_card_limit))[:20],
            },
        )

    def ask(
        self,
        clarification: Clarification,
        *,
        candidates: list[dict[str, Any]] | None = None,
        not_found: bool = False,
        code: str | None = None,
    ) -> None:
        """Ask for the clarification's slot: a ``clarify`` notice, no card, a pending request.

        One question per turn (one pending request per session): later ones are dropped.
        """
        if self.asked is not None:
            return
        if candidates is None and clarification.slot == SLOT_TARGET:
            candidates = self._candidates(clarification.tool, clarification.args)
        offered = None
        if clarification.slot == SLOT_TARGET and candidates and len(candidates) > 1:
            offered = self._offer_choice(clarification, candidates)
            if offered is not None:
                candidates = offered[1]  # the question lists exactly the choice's items
        # The planner's own words: in the language of the sentence, like every planner text.
        language = reply_locale(self.text, self.locale)
        message = question(clarification, language, candidates=candidates, not_found=not_found)
        notice = {
            "capability": _capability_id(clarification.tool),
            "status": "clarify",
            "slot": clarification.slot,
            "message": message,
        }
        if code:
            notice["code"] = code
        self.notices.append(notice)
        metrics.clarification_asked(reason=clarification.slot)
        self.asked = pending.PendingRequest(
            tool=clarification.tool,
            args=dict(clarification.args),
            slot=clarification.slot,
            candidates=[
                {key: item.get(key) for key in ("id", "title", "due_at", "status")}
                for item in (candidates or [])[: followups.MAX_CANDIDATES]
            ],
            locale=language,
            kind=pending.KIND_CHOICE if offered is not None else pending.KIND_CLARIFY,
            choice=offered[0] if offered is not None else "",
        )

    def _offer_choice(
        self, clarification: Clarification, candidates: list[dict[str, Any]]
    ) -> tuple[str, list[dict[str, Any]]] | None:
        """Offer a choice card for a write whose target matches several items.

        Each candidate's proposal is prepared through the tool policy (so a pick is bound to
        exactly those args, like a card); candidates it refuses are left out. Returns the
        choice's token digest and the candidates it offers, or None (fewer than two could
        be prepared: the question alone asks).
        """
        tool = registry.get(clarification.tool)
        if tool is None or not tool.is_write:
            return None
        id_key, title_key = followups.item_keys(tool.name)
        base = {k: v for k, v in clarification.args.items() if k not in (id_key, title_key)}
        picks: dict[str, dict[str, Any]] = {}
        offered: list[dict[str, Any]] = []
        shown: list[dict[str, Any]] = []
        capability = None
        for item in candidates[: choice_store.MAX_CANDIDATES]:
            item_id = str(item.get("id") or "")
            if not item_id or item_id in picks:
                continue
            try:
                prepared = enforce_tool_policy(
                    tool_name=tool.name,
                    args={**base, id_key: item_id},
                    context=self.context,
                    phase="prepare",
                )
            except LightNoteError:
                continue
            capability = prepared.capability
            picks[item_id] = {"args": prepared.args, "preview": prepared.preview or {}}
            offered.append(item)
            shown.append(choice_store.candidate_view(item, prepared.args))
        if len(picks) < 2 or capability is None:
            return None
        issued = choice_store.choice_issue(
            owner_id=self.actor.subject.pk,
            session_id=str(self.session.id),
            subject_id=self.actor.subject.pk,
            actor_id=self.actor.actor.pk,
            tool=tool.name,
            capability=capability.id,
            risk=capability.risk or "low",
            candidates=shown,
            picks=picks,
            request_id=self.context.request_id,
        )
        expires_at = issued.choice.expires_at
        self.choices.append(
            {
                "card_id": issued.choice.id,
                "kind": "choice",
                "token": issued.token,
                "tool": tool.name,
                "capability": capability.id,
                "state": "ready",
                "expires_at": expires_at.astimezone(self.context.zone).isoformat()
                if expires_at
                else None,
                "candidates": shown,
            }
        )
        self.choice_rows.append(
            choice_store.choice_row(issued, session=self.session, owner_id=self.actor.subject.pk)
        )
        audit_event(
            "choice.issued",
            actor=self.actor.actor,
            subject=self.actor.subject,
            session_id=self.session.id,
            capability=capability.id,
            tool=tool.name,
            action_id=issued.choice.id,
            details={"candidates": len(shown)},
        )
        return issued.choice.digest, offered

    def take_choice(self, digest: str, candidate_id: str) -> dict[str, Any]:
        """Issue the ordinary card for one candidate of the choice ``digest`` (a follow-up).

        The choice must be this owner's and this session's, intact and ready; it is used
        with one compare-and-set after the card is issued (a lost race destroys the card).
        Raises 410 ``CONFIRMATION_EXPIRED`` (gone, used), 403, 409, 400 like the endpoint.
        """
        choice = choices.checked_choice(
            choice_store.choice_get_by_digest(digest),
            owner=self.actor.subject,
            session_id=str(self.session.id),
        )
        card = choices.take_pick(choice, candidate_id, self.issue_audited)
        self.chosen.append((choice.id, candidate_id, card["card_id"]))
        return card

    def _prepared_otherwise(self, proposal: Proposal, error: LightNoteError) -> Any:
        """The first of the proposal's other readings that prepares, tried in order only while
        the item the readings name is not found (else None: the first refusal stands)."""
        other = proposal.otherwise
        while other is not None and error.code.endswith("_NOT_FOUND"):
            if not other.error and registry.get(other.tool) is not None:
                try:
                    return enforce_tool_policy(
                        tool_name=other.tool, args=other.args, context=self.context, phase="prepare"
                    )
                except LightNoteError as refused:
                    error = refused
            other = other.otherwise
        return None

    def _ask_about(self, proposal: Proposal, error: LightNoteError) -> bool:
        """Turn a refusal for a missing or vague slot into a question; True when asked."""
        slot = followups.slot_for_error(error, proposal.args)
        if slot is None or self.asked is not None:
            return False
        candidates = None
        not_found = error.code.endswith("NOT_FOUND")
        if slot == SLOT_TARGET:
            extra = getattr(error, "extra", None) or {}
            candidates = list(extra.get("candidates") or []) or self._candidates(
                proposal.tool, proposal.args
            )
            if not candidates:
                return False  # nothing to choose from: the refusal says it best
        clarification = Clarification(tool=proposal.tool, args=dict(proposal.args), slot=slot)
        self.ask(clarification, candidates=candidates, not_found=not_found, code=error.code)
        self._audit_refusal(proposal, error.code)
        return True

    def _candidates(self, tool_name: str, args: dict[str, Any]) -> list[dict[str, Any]]:
        """Return the user's items a vague reference may mean (a read through the policy)."""
        note = "note" in tool_name
        read_tool = "search_notes" if note else "query_todos"
        named = str(args.get("note_title" if note else "todo_title") or "").strip()
        keywords = followups.search_words(named)
        queries: list[dict[str, Any]] = [{"keyword": word} for word in keywords]
        if not note and not named:
            status = args.get("status")
            queries = [{"status": "done" if status == "open" else "open"}] if status else [{}]
        found: dict[str, dict[str, Any]] = {}
        for read_args in queries:
            try:
                result = enforce_tool_policy(
                    tool_name=read_tool, args=read_args, context=self.context, phase="prepare"
                )
                data = result.tool.run(result.args, self.context).data
            except LightNoteError:
                continue
            for item in data.get("notes" if note else "todos") or []:
                found.setdefault(str(item["id"]), item)
            if len(found) >= followups.MAX_CANDIDATES:
                break
        return list(found.values())[: followups.MAX_CANDIDATES]

    def _audit_refusal(self, proposal: Proposal, code: str) -> None:
        audit_event(
            "card.refused",
            actor=self.actor.actor,
            subject=self.actor.subject,
            session_id=self.session.id,
            capability=_capability_id(proposal.tool),
            tool=proposal.tool,
            code=code,
        )
