"""The OpenAI planner: Chat Completions with ``tools`` against any OpenAI-compatible server.

The model sees every tool the user may use, but only read tools run here (through the
caller's runner, which applies the tool policy). Any other call — a write, an unknown or
invented tool, arguments that are not a JSON object — ends the turn as a proposal for the
caller to card or refuse. The final reply is one call with no ``tools`` parameter at all.

Planning calls stream (``stream=True``): the pieces are collected into the same message a
plain call returns, and a streamed turn's listener (``PlanRequest.listener``) hears the
text of a round that calls no tool as it arrives. A listener that raises
:class:`~agent.planners.base.TurnCancelled` closes the model's response there.
"""

from __future__ import annotations

import functools
import json
import logging
from dataclasses import dataclass, field
from typing import Any

import openai
from django.conf import settings

from agent.planners.base import (
    MALFORMED_ARGUMENTS,
    MAX_ROUNDS,
    PLANNER_TIMEOUT,
    PLANNER_UNAVAILABLE,
    Fact,
    PlannerError,
    PlanRequest,
    PlanResult,
    Proposal,
    ReplyListener,
    TurnCancelled,
    reply_locale,
    require_succeeded,
    run_read,
)
from agent.planners.prompts import as_data, final_reply_prompt, system_prompt
from agent.planners.replies import REPLY_CODE_KEY, template_reply
from lightnote.ops import metrics, tracing
from lightnote.rest.parsers import json_problem
from lightnote.texts.i18n import translate

logger = logging.getLogger(__name__)

# One retry: a dropped connection or a 5xx gets a second chance, while a turn stays
# bounded at about twice LIGHTNOTE_LLM_TIMEOUT per model call.
MAX_RETRIES = 1


@functools.lru_cache(maxsize=4)
def _client(api_key: str, base_url: str | None, timeout: float) -> openai.OpenAI:
    """Return a client per configuration, so its connection pool is reused."""
    return openai.OpenAI(
        api_key=api_key, base_url=base_url, timeout=timeout, max_retries=MAX_RETRIES
    )


def _history_messages(history: list[dict[str, str]]) -> list[dict[str, Any]]:
    return [
        {"role": turn["role"], "content": turn.get("text", "")}
        for turn in history
        if turn.get("role") in {"user", "assistant"}
    ]


def _proposal(call: Any, fallback_id: str) -> tuple[Proposal, str]:
    """Return the proposal for one tool call and its raw arguments text."""
    call_id = getattr(call, "id", None) or fallback_id
    function = getattr(call, "function", None)
    if function is None:  # a non-function tool call: nothing we can card
        name = str(getattr(call, "type", "") or "")
        return Proposal(tool=name, args={}, call_id=call_id, error=MALFORMED_ARGUMENTS), ""
    name = function.name or ""
    raw = function.arguments or ""
    if not raw.strip():
        return Proposal(tool=name, args={}, call_id=call_id), raw
    try:
        args = json.loads(raw)
    except (ValueError, RecursionError):  # a hostile model may nest past the recursion limit
        args = None
    if isinstance(args, dict) and json_problem(args) is not None:
        args = None  # nested deeper than any request body may be, or not text (parsers.py)
    if not isinstance(args, dict):
        return Proposal(tool=name, args={}, call_id=call_id, error=MALFORMED_ARGUMENTS), raw
    return Proposal(tool=name, args=args, call_id=call_id), raw


@dataclass
class _Function:
    name: str = ""
    arguments: str = ""


@dataclass
class _ToolCall:
    id: str = ""
    type: str = "function"
    function: _Function = field(default_factory=_Function)


@dataclass
class _Message:
    """A streamed answer put together: what a plain call's ``message`` holds."""

    content: str = ""
    tool_calls: list[_ToolCall] = field(default_factory=list)


def _collected(stream: Any, listener: ReplyListener | None) -> _Message:
    """Put a streamed answer together, telling ``listener`` its text while no tool is called."""
    text: list[str] = []
    calls: dict[int, _ToolCall] = {}
    answered = False
    for chunk in stream:
        choices = getattr(chunk, "choices", None)
        first = choices[0] if isinstance(choices, list) and choices else None
        delta = getattr(first, "delta", None)
        if delta is None:
            continue  # a usage chunk, or an answer with no message at all
        answered = True
        for piece in getattr(delta, "tool_calls", None) or []:
            call = calls.setdefault(getattr(piece, "index", len(calls)), _ToolCall())
            call.id = getattr(piece, "id", None) or call.id
            call.type = getattr(piece, "type", None) or call.type
            function = getattr(piece, "function", None)
            call.function.name += getattr(function, "name", None) or ""
            call.function.arguments += getattr(function, "arguments", None) or ""
            if listener is not None:
                listener.reply_reset()  # this round proposes: its text is not the reply
        content = getattr(delta, "content", None) or ""
        text.append(content)
        if listener is not None and not calls:
            listener.reply_text(content)
    if not answered:
        raise PlannerError(PLANNER_UNAVAILABLE, "the response has no message")
    if listener is not None and not calls:
        listener.reply_end()
    return _Message(content="".join(text), tool_calls=[calls[index] for index in sorted(calls)])


def _tool_message(call_id: str, fact: Fact) -> dict[str, Any]:
    content = as_data(
        "tool_result", tool=fact.tool, status=fact.status, summary=fact.summary, data=fact.data
    )
    return {"role": "tool", "tool_call_id": call_id, "content": content}


class OpenAIPlanner:
    """Plan with a chat model; run read tools between calls; never run a write."""

    def __init__(self, *, client: openai.OpenAI | None = None, model: str | None = None) -> None:
        self.client = client or _client(
            settings.OPENAI_API_KEY,
            settings.OPENAI_BASE_URL,
            float(settings.LIGHTNOTE_LLM_TIMEOUT),
        )
        self.model = model or settings.LIGHTNOTE_LLM_MODEL

    def _complete(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        last_round: bool = False,
        stream: bool = False,
        listener: ReplyListener | None = None,
    ) -> Any:
        """Call the model once; raise PlannerError on any API failure or timeout.

        ``stream``: ask for the answer in pieces and put them together (the listener hears
        them); the timeout then bounds each wait for the next piece.
        """
        options: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            options["tools"] = tools
            if last_round:  # the round budget is spent: ask for an answer, not more calls
                options["tool_choice"] = "none"
        if stream:
            options["stream"] = True
        purpose = "plan" if tools else "final_reply"
        # The span and the metrics carry the model and the purpose, never the prompt.
        with (
            metrics.llm_call(model=self.model, purpose=purpose) as call,
            tracing.span(
                "llm.chat_completion",
                **{"gen_ai.request.model": self.model, "lightnote.llm.purpose": purpose},
            ),
        ):
            try:
                response = self.client.chat.completions.create(**options)
                if stream:
                    # Closed however it ends: a cancelled turn hangs up on the model here.
                    with response:
                        return _collected(response, listener)
            except TurnCancelled:
                call.failed("cancelled")
                raise
            except openai.APITimeoutError as error:  # also a stream stalled between pieces
                logger.warning("planner model call timed out: %s", error)
                call.failed("timeout")
                raise PlannerError(PLANNER_TIMEOUT, str(error)) from error
            except openai.OpenAIError as error:  # also a stream broken after its first piece
                logger.warning("planner model call failed: %r", error)
                call.failed("unavailable")
                raise PlannerError(PLANNER_UNAVAILABLE, str(error)) from error
        choices = getattr(response, "choices", None)
        message = (
            getattr(choices[0], "message", None) if isinstance(choices, list) and choices else None
        )
        if message is None:
            raise PlannerError(PLANNER_UNAVAILABLE, "the response has no message")
        return message

    def plan(self, request: PlanRequest) -> PlanResult:
        """Run one turn: read tools loop (at most MAX_ROUNDS calls); anything else is proposed."""
        locale = reply_locale(request.text, request.locale)
        prompt = system_prompt(
            locale=locale, zone=request.zone, now=request.now, read_tools=request.read_tools
        )
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": prompt},
            *_history_messages(request.history),
            *(
                [
                    {
                        "role": "system",
                        "content": as_data("in_front_of_the_user", items=request.in_front),
                    }
                ]
                if request.in_front
                else []
            ),
            {"role": "user", "content": request.text},
        ]
        facts: list[Fact] = []
        for round_number in range(1, MAX_ROUNDS + 1):
            last_round = round_number == MAX_ROUNDS
            try:
                if request.listener is not None:
                    request.listener.reply_reset()  # a new round: nothing of its text yet
                message = self._complete(
                    messages,
                    tools=request.tools,
                    last_round=last_round,
                    stream=True,
                    listener=request.listener,
                )
            except PlannerError as error:
                return PlanResult(text=translate(error.code, locale), facts=facts, error=error.code)
            text = message.content or ""
            calls = list(message.tool_calls or [])
            if not calls:
                return PlanResult(text=text, facts=facts)
            parsed = [
                _proposal(call, f"call_{round_number}_{index}")
                for index, call in enumerate(calls, start=1)
            ]
            reads: list[Proposal] = []
            proposals: list[Proposal] = []
            for proposal, _ in parsed:
                runnable = proposal.error is None and proposal.tool in request.read_tools
                (reads if runnable else proposals).append(proposal)
            if proposals:
                # Reads proposed beside a write are harmless and give the reply its facts.
                facts.extend(run_read(request, p.tool, p.args) for p in reads)
                return PlanResult(text=text, proposals=proposals, facts=facts)
            if last_round:
                return PlanResult(text=text or translate("PLANNER_READ_LIMIT", locale), facts=facts)
            messages.append(
                {
                    "role": "assistant",
                    "content": text or None,
                    "tool_calls": [
                        {
                            "id": proposal.call_id,
                            "type": "function",
                            "function": {"name": proposal.tool, "arguments": raw or "{}"},
                        }
                        for proposal, raw in parsed
                    ],
                }
            )
            for proposal in reads:
                fact = run_read(request, proposal.tool, proposal.args)
                facts.append(fact)
                messages.append(_tool_message(proposal.call_id, fact))
        raise AssertionError("unreachable: the last round always returns")  # pragma: no cover

    def final_reply(self, *, snapshot: dict[str, Any], receipt: dict[str, Any], locale: str) -> str:
        """Describe the succeeded action in one model call that offers no tools at all."""
        require_succeeded(receipt)
        language = reply_locale(str(snapshot.get("question") or ""), locale)
        messages = [
            {"role": "system", "content": final_reply_prompt(locale=language)},
            {
                "role": "user",
                "content": as_data(
                    "action_receipt",
                    question=snapshot.get("question", ""),
                    facts=snapshot.get("facts", []),
                    # The reply code is the offline template's; the model needs the receipt only.
                    receipt={k: v for k, v in receipt.items() if k != REPLY_CODE_KEY},
                ),
            },
        ]
        message = self._complete(messages)
        text = (message.content or "").strip()
        # An empty answer is no reason to fail the user: the receipt alone names the item.
        return text or template_reply(snapshot=snapshot, receipt=receipt, locale=language)
