"""One user message: planner -> proposals -> tool policy -> cards -> a guarded reply.

Read tools may run during planning (through the tool policy). Write proposals never run
here: each becomes a server-prepared card (with its continuation) or a notice saying why not.
"""

from __future__ import annotations

import dataclasses
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from agent import (
    cards,
    choice_store,
    continuation_store,
    followups,
    lifecycle,
    pending,
    sessions,
)
from agent.capabilities import capability_by_tool, capability_for_unknown_tool
from agent.guard import guard_reply, guarded_notice
from agent.guard.provenance import merge, provenance, sources_of
from agent.guard.records import audit_guard, session_backings
from agent.models import ActionCard, AgentSession, Choice, Message
from agent.planners import get_planner
from agent.planners.base import (
    Clarification,
    Fact,
    PlanRequest,
    PlanResult,
    Proposal,
    reply_locale,
)
from agent.planners.lexicon import SLOT_TARGET
from agent.planners.questions import question
from agent.planners.replies import describe_facts
from agent.policy import PolicyResult, enforce_tool_policy
from agent.ratelimit import limit_new_card
from agent.tools import ToolContext, registry, user_roles
from lightnote import store
from lightnote.audit import audit_entry, audit_event, audit_events
from lightnote.context import ActorContext
from lightnote.errors import LightNoteError
from lightnote.i18n import define_messages, translate
from lightnote.models import AuditEvent

logger = logging.getLogger(__name__)

HISTORY_TURNS = 20

define_messages(
    {
        "AGENT_PLEASE_CONFIRM": (
            "请检查下面的确认卡；只有你确认后才会执行。",
            "Please review the card below; nothing happens until you confirm it.",
        ),
        "AGENT_PLANNER_FAILED": (
            "助手暂时无法处理这条消息，没有执行任何操作，请稍后重试。",
            "The assistant could not handle this message; nothing was done. Please retry.",
        ),
        "TOOL_ARGS_MALFORMED": (
            "模型给出的参数无法解析，未生成确认卡。",
            "The model's arguments could not be parsed; no card was made.",
        ),
        "TOO_MANY_PROPOSALS": (
            "一条消息最多生成 {limit} 张确认卡；其余操作没有生成确认卡，"
            "请先处理这些，再提出其余操作。",
            "One message makes at most {limit} cards; the other proposed actions got none. "
            "Handle these first, then ask for the rest.",
        ),
    }
)


def _request_id(request: Any) -> str:
    """Return the proxy's ``X-Request-ID`` (bounded) or a fresh id, bound into each card."""
    django_request = getattr(request, "_request", request)
    given = str(getattr(django_request, "META", {}).get("HTTP_X_REQUEST_ID", ""))[:64]
    return given or uuid.uuid4().hex


def _session_history(
    session: AgentSession, recent: Sequence[Any] | None = None
) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """Return the history the planner sees, and the stored items read on those turns.

    ``recent``: the session's latest ``HISTORY_TURNS`` messages (anything with their
    ``role``, ``text`` and ``payload``), newest first, when the caller read them already
    (``sessions.session_get_with_recent``).
    """
    if recent is None:
        recent = list(session.messages.order_by("-created_at", "-id")[:HISTORY_TURNS])
    history = [{"role": message.role, "text": message.text} for message in reversed(recent)]
    reads = merge(
        (message.payload or {}).get("reads") or []
        for message in reversed(recent)
        if message.role == Message.Role.ASSISTANT
    )
    return history, reads


def _notice(capability: str, status: str, message: str, code: str | None = None) -> dict[str, Any]:
    notice = {"capability": capability, "status": status, "message": message}
    if code:
        notice["code"] = code
    return notice


def _capability_id(tool_name: str) -> str:
    capability = capability_by_tool(tool_name) or capability_for_unknown_tool(tool_name)
    return capability.id if capability else tool_name


class _Turn:
    """The state of one message's handling (kept small and explicit)."""

    def __init__(
        self,
        *,
        request: Any,
        actor: ActorContext,
        session: AgentSession,
        text: str,
        locale: str,
        earlier_reads: list[dict[str, str]] | None = None,
    ):
        self.request = request
        # Stored content the model saw on earlier turns still in its history.
        self.earlier_reads = earlier_reads or []
        self.text = text
        self.actor = actor
        self.session = session
        self.locale = locale
        self.context = ToolContext.from_actor_context(
            actor,
            session_id=str(session.id),
            locale=locale,
            now=timezone.now(),
            request_id=_request_id(request),
        )
        # The reply (and what reads say in it) is in the language of the message it answers.
        self.reply_locale = reply_locale(text, locale)
        self.read_context = dataclasses.replace(self.context, locale=self.reply_locale)
        self.facts: list[Fact] = []
        self.cards: list[dict[str, Any]] = []
        self.card_rows: list[ActionCard] = []
        # The ``card.issued`` rows, written by the caller's transaction (``flush_audit``).
        self.audit_rows: list[AuditEvent] = []
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
        unknown = capability_for_unknown_tool(proposal.tool)
        if registry.get(proposal.tool) is None and unknown is not None:
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
            if self._ask_about(proposal, error):
                return
            self.notices.append(
                _notice(
                    _capability_id(proposal.tool),
                    "rejected",
                    error.message(self.locale),
                    error.code,
                )
            )
            self._audit_refusal(proposal, error.code)
            return
        if not prepared.tool.is_write:  # a read proposed alongside writes: run it, no card
            self.run_read_tool(proposal.tool, proposal.args)
            return
        limit_new_card(self.request, user_id=self.actor.actor.pk)
        try:
            self.issue(prepared)
        except LightNoteError as error:
            if error.status >= 500 or error.status == 429:
                raise  # the store is down or the user is over the limit: the whole turn fails
            # Too large to store (args, preview or snapshot): refused like a failed prepare.
            self.notices.append(
                _notice(prepared.capability.id, "rejected", error.message(self.locale), error.code)
            )
            self._audit_refusal(proposal, error.code)

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

    def reads(self) -> list[dict[str, str]]:
        """Return the stored items the model read on this turn (note bodies, todo lists)."""
        return merge(sources_of(fact.data) for fact in self.facts if fact.status == "succeeded")

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
        id_key, title_key = (
            ("note_id", "note_title")
            if "note" in tool.name
            else (
                "todo_id",
                "todo_title",
            )
        )
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
        choice = checked_choice(
            choice_store.choice_get_by_digest(digest),
            owner=self.actor.subject,
            session_id=str(self.session.id),
        )
        card = take_pick(choice, candidate_id, self.issue_audited)
        self.chosen.append((choice.id, candidate_id, card["card_id"]))
        return card

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

    def issue(self, prepared: PolicyResult) -> dict[str, Any]:
        """Store the card and its pending continuation; add the card to the turn; return it."""
        return self.issue_audited(**prepared_fields(prepared))

    def issue_audited(
        self,
        *,
        tool: str,
        capability: str,
        risk: str,
        args: dict[str, Any],
        preview: dict[str, Any],
    ) -> dict[str, Any]:
        """:meth:`issue_prepared`, with its ``card.issued`` audit row queued in ``audit_rows``:
        the caller writes it in the transaction that writes the card's history row
        (:meth:`flush_audit`)."""
        card = self.issue_prepared(
            tool=tool, capability=capability, risk=risk, args=args, preview=preview
        )
        entry = audit_entry(
            "card.issued",
            actor=self.actor.actor,
            subject=self.actor.subject,
            session_id=self.session.id,
            capability=card["capability"],
            tool=card["tool"],
            action_id=card["card_id"],
        )
        self.audit_rows.append(entry)
        return card

    def flush_audit(self) -> None:
        """Write the queued audit rows (one INSERT). Needs: the caller's transaction."""
        if self.audit_rows:
            audit_events(self.audit_rows)
            self.audit_rows = []

    def issue_prepared(
        self,
        *,
        tool: str,
        capability: str,
        risk: str,
        args: dict[str, Any],
        preview: dict[str, Any],
    ) -> dict[str, Any]:
        """Issue a card (and its pending continuation) for prepared args; return the API card.

        The card's history row is queued in ``card_rows`` for the caller's transaction.
        """
        # The continuation is issued first so the card can name it; it stays pending until
        # a succeeded receipt for this card's action exists.
        action_id = str(uuid.uuid4())
        continuation_token, _ = continuation_store.continuation_issue(
            action_id=action_id,
            owner_id=self.actor.subject.pk,
            session_id=str(self.session.id),
            snapshot={
                "question": self.text,
                "locale": self.locale,
                "time_zone": self.context.zone.key,
                "facts": [self._fact_dict(fact) for fact in self.facts],
            },
        )
        issued = cards.card_issue(
            card_id=action_id,
            owner_id=self.actor.subject.pk,
            session_id=str(self.session.id),
            subject_id=self.actor.subject.pk,
            actor_id=self.actor.actor.pk,
            tool=tool,
            capability=capability,
            risk=risk,
            args=args,
            preview=preview,
            admin_context_id=self.actor.admin_context_id,
            admin_mode=self.actor.admin_mode,
            request_id=self.context.request_id,
            continuation_digest=store.token_digest(continuation_token),
        )
        expires_at = issued.card.expires_at
        if expires_at is None:  # pragma: no cover - a card just issued always has one
            raise RuntimeError("an issued card has no expiry")
        self.card_rows.append(
            lifecycle.card_row(
                issued,
                session=self.session,
                owner_id=self.actor.subject.pk,
                actor_id=self.actor.actor.pk,
                continuation_digest=store.token_digest(continuation_token),
            )
        )
        card = {
            "card_id": issued.card.id,
            "token": issued.token,
            "continuation_token": continuation_token,
            "capability": capability,
            "tool": tool,
            "risk": risk,
            "state": "ready",
            "expires_at": expires_at.astimezone(self.context.zone).isoformat(),
            "args": args,
            "preview": preview,
            # A card proposed after the model read stored content says so (issue 9).
            "provenance": provenance(merge([self.reads(), self.earlier_reads]), self.locale),
        }
        self.cards.append(card)
        return card

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

    @staticmethod
    def _fact_dict(fact: Fact) -> dict[str, Any]:
        return {"tool": fact.tool, "status": fact.status, "summary": fact.summary}


def public_fact(fact: Fact) -> dict[str, Any]:
    """Return a fact as the API shows it: the summary, plus the items a read found.

    A read tool's data names its items under the plural of its capability's resource
    (``todo.query`` -> ``{"count", "todos": [...]}``); each item keeps its fields (``id``,
    ``title``, ...) and gains ``type``, so a client can render and link a list. A failed
    read carries its ``code``.
    """
    body: dict[str, Any] = {"tool": fact.tool, "status": fact.status, "summary": fact.summary}
    if fact.status != "succeeded":
        if fact.data.get("code"):
            body["code"] = fact.data["code"]
        return body
    capability = capability_by_tool(fact.tool)
    resource = capability.id.split(".", 1)[0] if capability else ""
    found = fact.data.get(f"{resource}s") if resource else None
    if isinstance(found, list):
        body["count"] = fact.data.get("count", len(found))
        body["items"] = [
            {"type": resource, **item} for item in found if isinstance(item, dict) and "id" in item
        ]
    return body


def _offered_tools(actor: ActorContext) -> tuple[list[dict[str, Any]], frozenset[str]]:
    """Return the OpenAI specs of every tool this user may use, and which of them read."""
    roles = user_roles(actor.actor)
    allowed = {tool.name for tool in registry.tools() if roles & tool.allowed_roles}
    specs = [
        spec
        for spec in registry.openai_tools(include_writes=True)
        if spec["function"]["name"] in allowed
    ]
    reads = frozenset(tool.name for tool in registry.tools() if not tool.is_write) & allowed
    return specs, reads


def _pending_request(actor: ActorContext, session_id: str) -> pending.PendingRequest | None:
    """Return the session's pending request; an unreachable store reads as none.

    Reading it is a convenience (completing a question): without it the message is planned
    as a new request, which can only be less helpful, never write anything.
    """
    try:
        return pending.pending_get(owner_id=actor.subject.pk, session_id=session_id)
    except LightNoteError as error:
        if error.status < 500:
            raise
        logger.warning("pending request unavailable for session %s", session_id)
        return None


def _plan(
    turn: _Turn, history: list[dict[str, str]], text: str, locale: str, actor: ActorContext
) -> PlanResult:
    """Run the configured planner for one new request."""
    tools, read_tools = _offered_tools(actor)
    request_to_plan = PlanRequest(
        text=text,
        history=history,
        locale=locale,
        zone=turn.context.zone,
        now=turn.context.now,
        tools=tools,
        read_tools=read_tools,
        run_read_tool=turn.run_read_tool,
    )
    try:
        return get_planner().plan(request_to_plan)
    except LightNoteError:
        raise  # the store is down or similar: the API's own error
    except Exception:
        # A response the planner could not read (e.g. a malformed completion) is a failed
        # turn with a clear reply, never a 500; only read tools can have run, so nothing
        # was written.
        logger.exception("planner failed on session %s", turn.session.id)
        return PlanResult(text="", error="PLANNER_UNAVAILABLE")


def handle_message(
    *,
    request: Any,
    actor: ActorContext,
    session: AgentSession,
    text: str,
    locale: str,
    recent: Sequence[Any] | None = None,
) -> dict[str, Any]:
    """Handle one user message and return the API's message body.

    Needs: ``session`` belongs to the caller; ``recent``, if given, is its latest
    ``HISTORY_TURNS`` messages, newest first (read with the session: one query for both).
    Issues cards (Redis) outside any database transaction, then writes the user's message,
    the assistant's guarded reply, the cards' history rows (with their ``card.issued`` audit
    rows) and the session's title/activity together in one transaction: a turn that fails
    (store down, rate limited) leaves no half-turn.
    """
    history, earlier_reads = _session_history(session, recent)
    turn = _Turn(
        request=request,
        actor=actor,
        session=session,
        text=text,
        locale=locale,
        earlier_reads=earlier_reads,
    )
    session_id = str(session.id)
    waiting = _pending_request(actor, session_id)
    resumed = (
        followups.resume(waiting, text, now=turn.context.now, zone=turn.context.zone)
        if waiting is not None
        else None
    )
    picked = False
    if waiting is not None and resumed is not None and resumed.pick and waiting.choice:
        # "第二个" to a choice card: the ordinary card for that item, from the choice's own
        # prepared args; a choice used or gone meanwhile falls back to a fresh proposal.
        limit_new_card(request, user_id=actor.actor.pk)
        try:
            turn.take_choice(waiting.choice, resumed.pick)
            picked = True
        except LightNoteError as error:
            if error.status >= 500:
                raise
    if picked:
        plan = PlanResult(text="")
    elif resumed is not None and resumed.cancelled:
        plan = PlanResult(
            text=translate(
                "PLANNER_CLARIFY_CANCELLED",
                reply_locale(text, waiting.locale if waiting else locale),
            )
        )
    elif resumed is not None and resumed.again is not None:
        plan = PlanResult(text="", clarify=resumed.again)
    elif resumed is not None and resumed.proposal is not None:
        # The question's answer completed the request: it is proposed like any other, so
        # the policy, preparation and the card decide exactly as for a one-line request.
        proposal = resumed.proposal
        resumed_tool = registry.get(proposal.tool)
        if resumed_tool is not None and not resumed_tool.is_write:
            fact = turn.run_read_tool(proposal.tool, proposal.args)
            plan = PlanResult(text=describe_facts([fact], turn.reply_locale), facts=[fact])
        else:
            plan = PlanResult(text="", proposals=[proposal])
    else:
        plan = _plan(turn, history, text, locale, actor)
    if plan.error:
        reply = plan.text or translate("AGENT_PLANNER_FAILED", turn.reply_locale)
    else:
        for fact in plan.facts:
            if fact not in turn.facts:
                turn.facts.append(fact)
        if plan.clarify is not None:
            turn.ask(plan.clarify)
            plan.text = ""  # the notice carries the question (worded with its candidates)
        for proposal in plan.proposals:
            turn.card_for(proposal)
        turn.audit_over_card_limit()
        reply = plan.text or ""
    # One pending request per session: this turn's question replaces any older one, and a
    # turn that asked nothing ends the wait (answered, cancelled, or a new request).
    if turn.asked is not None:
        pending.pending_save(owner_id=actor.subject.pk, session_id=session_id, request=turn.asked)
    elif waiting is not None:
        pending.pending_clear(session_id=session_id)
    original = reply
    # Every model text is guarded, whatever the turn looks like: a claim is kept only when
    # one of this session's succeeded receipts backs it (no write executes during a turn).
    verdict = guard_reply(
        reply,
        backings=lambda: session_backings(session.id),
        locale=locale,
        titles=tuple(source["title"] for source in turn.reads() if source.get("title")),
    )
    if verdict.replaced:
        turn.notices.append(guarded_notice(verdict))
    reply = verdict.text
    if turn.cards and not reply.strip():
        reply = translate("AGENT_PLEASE_CONFIRM", turn.reply_locale)
    # docs/api.md: a refused proposal's reason appears in the reply, also after a replacement
    # (the fixed text and the reason are both true).
    # Each distinct reason once (70 proposals over the card limit are one sentence).
    refusals = list(
        dict.fromkeys(
            notice["message"]
            for notice in turn.notices
            if notice["message"] and notice["status"] != "guarded"
        )
    )
    reply = "\n".join(part for part in [reply.strip(), *refusals] if part)
    facts = [public_fact(fact) for fact in turn.facts]
    with transaction.atomic():
        # Both messages in one INSERT (ids and times are set here, not by the database).
        user_message = Message(
            session=session, role=Message.Role.USER, text=text, created_at=turn.context.now
        )
        message = Message(
            session=session,
            role=Message.Role.ASSISTANT,
            text=reply,
            # Strictly after the question, so history keeps its order even on a coarse clock.
            created_at=max(timezone.now(), user_message.created_at + timedelta(microseconds=1)),
            payload={
                "facts": facts,
                "notices": turn.notices,
                "reads": turn.reads(),
                # Public parts only: a raw token is never stored.
                "cards": [
                    {key: value for key, value in card.items() if "token" not in key}
                    for card in turn.cards
                ],
                "choices": [
                    {key: value for key, value in choice.items() if key != "token"}
                    for choice in turn.choices
                ],
            },
        )
        Message.objects.bulk_create([user_message, message])
        lifecycle.record_issued(turn.card_rows, message=message)
        record_choices(turn, message=message)
        turn.flush_audit()
        sessions.session_touch(session=session, first_text=text)
        if verdict.replaced:
            audit_guard(verdict, actor=actor, session_id=session.id, original=original)
    return {
        "message_id": str(message.id),
        "reply": reply,
        "facts": facts,
        "cards": turn.cards,
        "choices": turn.choices,
        "notices": turn.notices,
    }


define_messages(
    {
        "CARD_NOT_FOUND": ("确认卡不存在。", "The card does not exist."),
        "CARD_NOT_READY": (
            "这张确认卡已不在等待确认状态，不能再次发起。",
            "This card is no longer waiting for confirmation; it cannot be asked again.",
        ),
    }
)


def reissue_card(
    *, request: Any, actor: ActorContext, session: AgentSession, card_id: Any, locale: str
) -> dict[str, Any]:
    """Ask again: re-issue a still-ready card's prepared action as a new card; void the old.

    For a client that lost the token (a reload, a second tab, a phone restoring history):
    the new card carries the same prepared args and preview, ``parent_id`` = the old card,
    and a fresh token. The old card is voided first with one compare-and-set in the store,
    so at most one token is ever live for the action; a card claimed, rejected or expired
    meanwhile is refused and nothing new is issued. Execution re-runs the tool policy and
    version checks as for any card.

    Needs: ``session`` belongs to the caller. Raises 404 ``CARD_NOT_FOUND``, 410
    ``CONFIRMATION_EXPIRED`` (expired or gone), 409 ``CARD_NOT_READY``, 429, 503.
    """
    try:
        old = (
            ActionCard.objects.select_related("message")
            .filter(id=card_id, session=session, owner=actor.subject)
            .first()
        )
    except (ValueError, ValidationError):
        old = None
    if old is None:
        raise LightNoteError("CARD_NOT_FOUND", status=404)
    now = timezone.now()
    if old.state == ActionCard.State.READY and old.expires_at <= now:
        raise LightNoteError("CONFIRMATION_EXPIRED", status=410)
    if old.state != ActionCard.State.READY:
        raise LightNoteError("CARD_NOT_READY", status=409, outer={"state": old.state})
    limit_new_card(request, user_id=actor.actor.pk)
    if not cards.card_void(old.token_digest):
        raise LightNoteError("CONFIRMATION_EXPIRED", status=410)  # claimed, rejected or gone
    question = (
        session.messages.filter(role=Message.Role.USER, created_at__lte=old.created_at)
        .order_by("-created_at", "-id")
        .values_list("text", flat=True)
        .first()
    )
    payload = (old.message.payload if old.message else None) or {}
    turn = _Turn(request=request, actor=actor, session=session, text=question or "", locale=locale)
    turn.facts = [
        Fact(
            tool=str(fact.get("tool", "")),
            status=str(fact.get("status", "")),
            summary=str(fact.get("summary", "")),
        )
        for fact in payload.get("facts") or []
    ]
    try:
        card = turn.issue_prepared(
            tool=old.tool,
            capability=old.capability,
            risk=old.risk,
            args=old.args,
            preview=old.preview,
        )
    finally:
        with transaction.atomic():
            lifecycle.record_voided([str(old.id)], reason=ActionCard.VoidReason.SUPERSEDED)
            for row in turn.card_rows:
                row.parent_id = old.id
            # A card proposed over MCP has no chat message: its successor still gets its
            # history row (message None, like its parent) so the execution path settles it.
            lifecycle.record_issued(turn.card_rows, message=old.message)
    audit_event(
        "card.reissued",
        actor=actor.actor,
        subject=actor.subject,
        session_id=session.id,
        capability=old.capability,
        tool=old.tool,
        action_id=card["card_id"],
        details={"parent_id": str(old.id)},
    )
    return {**card, "parent_id": str(old.id)}


# --- Cards issued outside a message turn (edit, undo, choose) --------------------------------


def prepared_fields(prepared: PolicyResult) -> dict[str, Any]:
    """Return the card fields of a prepared write: tool, capability, risk, args, preview."""
    return {
        "tool": prepared.tool.name,
        "capability": prepared.capability.id,
        "risk": prepared.capability.risk or "low",
        "args": prepared.args,
        "preview": prepared.preview or {},
    }


@dataclass
class DerivedCard:
    """A card issued from an earlier one (an edit, an undo, a choice), not yet recorded.

    ``card`` is the API card (with its token). :meth:`record` writes its history row, in the
    caller's transaction, on the origin's message — ``None`` for a card proposed over MCP,
    which has no chat message: the row is written all the same, so the execution path
    settles it (the fix of commit 420e3e8, for every derived card).
    """

    card: dict[str, Any]
    rows: list[ActionCard]
    message: Message | None
    extra: dict[str, Any] = field(default_factory=dict)
    audit_rows: list[Any] = field(default_factory=list)

    def record(self, *, parent_id: Any = None, compensates_id: Any = None) -> None:
        """Insert the history row, naming its ``parent`` / the card it ``compensates``, and
        its ``card.issued`` audit row (both in the caller's transaction)."""
        for row in self.rows:
            if parent_id is not None:
                row.parent_id = uuid.UUID(str(parent_id))
            if compensates_id is not None:
                row.compensates_id = uuid.UUID(str(compensates_id))
        lifecycle.record_issued(self.rows, message=self.message)
        if self.audit_rows:
            audit_events(self.audit_rows)
            self.audit_rows = []


def derived_context(
    *,
    request: Any,
    actor: ActorContext,
    session: AgentSession,
    locale: str,
    message: Message | None,
    asked_before: datetime | None,
) -> _Turn:
    """Return the turn a derived card is issued in: the origin's question and facts.

    ``message`` is the origin's assistant message (None over MCP); the question is the
    user's last message at or before ``asked_before``. The turn's ``context`` is what the
    tool policy prepares against.
    """
    question = ""
    if asked_before is not None:
        question = (
            session.messages.filter(role=Message.Role.USER, created_at__lte=asked_before)
            .order_by("-created_at", "-id")
            .values_list("text", flat=True)
            .first()
        ) or ""
    turn = _Turn(request=request, actor=actor, session=session, text=question, locale=locale)
    payload = (message.payload if message else None) or {}
    turn.facts = [
        Fact(
            tool=str(fact.get("tool", "")),
            status=str(fact.get("status", "")),
            summary=str(fact.get("summary", "")),
        )
        for fact in payload.get("facts") or []
        if isinstance(fact, dict)
    ]
    return turn


def issue_derived_card(
    turn: _Turn,
    *,
    message: Message | None,
    tool: str,
    capability: str,
    risk: str,
    args: dict[str, Any],
    preview: dict[str, Any],
) -> DerivedCard:
    """Issue (store; ``card.issued`` queued) one derived card in ``turn``; record it later.

    The public way to issue a card outside a message turn: the caller decides (after its
    own compare-and-set, e.g. voiding the card it replaces) whether to :meth:`record` it or
    to destroy it.
    """
    card = turn.issue_audited(
        tool=tool, capability=capability, risk=risk, args=args, preview=preview
    )
    rows = [row for row in turn.card_rows if str(row.id) == card["card_id"]]
    # The card's audit row travels with it: written by :meth:`DerivedCard.record`, never for
    # a card destroyed instead.
    audit_rows, turn.audit_rows = turn.audit_rows, []
    return DerivedCard(card=card, rows=rows, message=message, audit_rows=audit_rows)


# --- Choices: a pick issues the ordinary card --------------------------------------------


def checked_choice(
    choice: choice_store.StoredChoice | None, *, owner: Any, session_id: str
) -> choice_store.StoredChoice:
    """Return the choice if it may be picked from, else the first failing check's error.

    In confirm's order: gone/expired 410 -> another owner or session 403
    ``CONFIRMATION_FORBIDDEN`` -> altered 409 ``CONFIRMATION_INVALID`` (destroyed) -> used
    (``chosen``) 410 ``CONFIRMATION_EXPIRED``.
    """
    if choice is None:
        raise LightNoteError("CONFIRMATION_EXPIRED", status=410)
    if not choice.owned_by(owner.pk) or not choice.in_session(session_id):
        raise LightNoteError("CONFIRMATION_FORBIDDEN", status=403)
    if not choice.binding_valid():
        choice_store.choice_destroy(choice.digest)
        raise LightNoteError("CONFIRMATION_INVALID", status=409)
    if choice.state != choice_store.STATE_READY:
        raise LightNoteError("CONFIRMATION_EXPIRED", status=410)
    return choice


def take_pick(choice: choice_store.StoredChoice, candidate_id: str, issue: Any) -> dict[str, Any]:
    """Issue (``issue(**card fields)``) the card of one candidate, then use the choice.

    The card carries exactly the args and preview the choice prepared for that item. The
    choice is used with one compare-and-set after the card exists: a pick that loses the
    race destroys its card and answers 410, so one choice yields at most one card.
    Raises 400 ``CHOICE_CANDIDATE_INVALID`` for a candidate the choice does not offer.
    """
    pick = choice.picks.get(str(candidate_id))
    if not isinstance(pick, dict):
        raise choice_store.refuse_unknown_candidate()
    card: dict[str, Any] = issue(
        tool=choice.tool,
        capability=choice.capability,
        risk=choice.risk,
        args=dict(pick["args"]),
        preview=dict(pick["preview"]),
    )
    if not choice_store.choice_take(choice.digest):
        cards.card_destroy(card["token"])
        raise LightNoteError("CONFIRMATION_EXPIRED", status=410)
    return card


def record_choices(turn: _Turn, *, message: Message | None) -> None:
    """Write the turn's choice rows and the picks it made. Needs: the turn's transaction,
    after the cards' rows (a pick names its card)."""
    for row in turn.choice_rows:
        row.message = message
    if turn.choice_rows:
        Choice.objects.bulk_create(turn.choice_rows)
    for choice_id, candidate_id, card_id in turn.chosen:
        choice_store.record_chosen(choice_id, candidate_id=candidate_id, card_id=card_id)
