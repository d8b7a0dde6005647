"""The MCP server's synchronous core: which tools exist and what a call answers.

Who calls is ``mcpserver.callers``; what a card's state is, ``mcpserver.card_states``.
Nothing here knows the MCP SDK: ``mcpserver.server`` adapts these functions to the protocol.
Every tool comes from the agent's registry (``agent.tools.registry``) and every call goes
through the agent's one tool policy, so MCP offers exactly the chat's tools, with the chat's
rules. A read answers with data, marked as untrusted content. A write never runs here: it
becomes a card in the confirmation store, bound to the user, the ``mcp`` channel and the
MCP session's agent session, and the answer carries its ``card_id`` and the link of the
LightNote page where the owner confirms it. The confirm token is sealed server-side.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from agent.capabilities import CAPABILITIES, ENABLED, capability_for_unknown_tool
from agent.cards import history as lifecycle
from agent.cards import records as cards
from agent.cards.changes import changes_of
from agent.models import ActionReceipt
from agent.policy import capability_refusal, enforce_tool_policy
from agent.ratelimit import limit_new_card
from agent.tools import ToolContext, registry, user_roles
from lightnote.audit import audit_event
from lightnote.errors import LightNoteError
from lightnote.ops import metrics
from lightnote.texts.i18n import translate
from mcpserver import callers, sealing, tool_schemas
from mcpserver.callers import CHANNEL, Caller
from mcpserver.card_states import card_state, stored_card
from mcpserver.models import McpCard

logger = logging.getLogger(__name__)

STATUS_TOOL = "card_status"
CAPABILITIES_TOOL = "list_capabilities"
CONTENT_TRUST = "untrusted"


# --- the tool list ------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    is_write: bool
    effect: tool_schemas.Effect


def _spec(
    name: str,
    *,
    description: str,
    input_schema: dict[str, Any],
    is_write: bool,
    effect_key: str,
    locale: str,
) -> ToolSpec:
    return ToolSpec(
        name=name,
        title=translate(tool_schemas.title_code(name), locale),
        description=description,
        input_schema=input_schema,
        output_schema=tool_schemas.output_schema(tool_name=name, is_write=is_write),
        is_write=is_write,
        effect=tool_schemas.EFFECTS[effect_key],
    )


def _status_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"card_id": {"type": "string", "format": "uuid"}},
        "required": ["card_id"],
        "additionalProperties": False,
    }


def tool_specs(caller: Caller) -> list[ToolSpec]:
    """Return the tools this caller may use: the registry's, then status and capabilities.

    Names, descriptions and schemas are the registry's (the same specs the chat's planner
    is offered); nothing is listed twice or kept in a second list.
    """
    roles = user_roles(caller.actor.actor)
    specs = []
    for tool in registry.tools():
        if not roles & tool.allowed_roles:
            continue
        if tool.is_write and not caller.token.may_propose:
            continue  # a read-scoped token is offered the reads only
        function = tool.openai_spec(caller.locale)["function"]
        description = function["description"]
        if tool.is_write:
            description = f"{description} {translate('MCP_WRITE_SUFFIX', caller.locale)}"
        specs.append(
            _spec(
                tool.name,
                description=description,
                input_schema=function["parameters"],
                is_write=tool.is_write,
                effect_key=tool.capability_id,
                locale=caller.locale,
            )
        )
    specs.append(
        _spec(
            STATUS_TOOL,
            description=translate("MCP_TOOL_STATUS_DESCRIPTION", caller.locale),
            input_schema=_status_schema(),
            is_write=False,
            effect_key=STATUS_TOOL,
            locale=caller.locale,
        )
    )
    specs.append(
        _spec(
            CAPABILITIES_TOOL,
            description=translate("MCP_TOOL_CAPABILITIES_DESCRIPTION", caller.locale),
            input_schema={"type": "object", "properties": {}, "additionalProperties": False},
            is_write=False,
            effect_key=CAPABILITIES_TOOL,
            locale=caller.locale,
        )
    )
    return specs


# --- answers ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolAnswer:
    """What one tool call answers: structured data, and whether it is an error.

    ``card`` is set for a newly proposed card (the server adapter may ask the client to
    open its link).
    """

    data: dict[str, Any]
    is_error: bool = False
    card: dict[str, Any] | None = None
    unknown_tool: bool = False  # the protocol's error (-32602), not a tool result


def _error_answer(error: LightNoteError, locale: str) -> ToolAnswer:
    body: dict[str, Any] = {"kind": "error", "error": error.as_error(locale)}
    return ToolAnswer(body, is_error=True)


def confirm_url(card_id: str) -> str:
    """Return the absolute link of a card's confirmation page."""
    path = reverse("mcp-card", kwargs={"card_id": card_id})
    return settings.LIGHTNOTE_PUBLIC_URL.rstrip("/") + path


def call_tool(
    caller: Caller, name: str, arguments: Any, *, request_state: str | None = None
) -> ToolAnswer:
    """Answer one ``tools/call``; never raises a ``LightNoteError`` (it becomes an error).
    Every answer but an error says what changed (``changes``), from receipts only."""
    answer = _call_tool(caller, name, arguments, request_state=request_state)
    if answer.is_error:
        return answer
    return replace(answer, data={**answer.data, "changes": _changes_of(answer.data, caller)})


def _changes_of(data: dict[str, Any], caller: Caller) -> dict[str, Any]:
    """A new card changes nothing yet (it waits); a card's status counts its receipt once
    it succeeded; a read changes nothing."""
    if data.get("kind") == "card":
        return changes_of([], locale=caller.locale, waiting=1)
    receipts: Any = []
    if data.get("kind") == "card_status" and data.get("state") == "confirmed":
        receipts = ActionReceipt.objects.filter(action_id=str(data.get("card_id")))
    return changes_of(receipts, locale=caller.locale)


def _call_tool(
    caller: Caller, name: str, arguments: Any, *, request_state: str | None = None
) -> ToolAnswer:
    try:
        if name == STATUS_TOOL:
            return card_status(caller, arguments)
        if name == CAPABILITIES_TOOL:
            return _capabilities(caller)
        tool = registry.get(name)
        if request_state and tool is not None and tool.is_write:
            # The retry of a call whose card was issued in the first round (URL elicitation
            # on the 2026 protocol): answer with that card, never issue a second one.
            return _card_again(caller, name, request_state)
        return _run_registry_tool(caller, name, arguments)
    except LightNoteError as error:
        if error.status >= 500:
            logger.warning("mcp tool %s failed: %s", name, error.code)
        answer = _error_answer(error, caller.locale)
        if error.code == "TOOL_NOT_FOUND":
            return ToolAnswer(answer.data, is_error=True, unknown_tool=True)
        return answer


def _tool_context(caller: Caller) -> ToolContext:
    return ToolContext.from_actor_context(
        caller.actor,
        session_id=caller.session.agent_session_id,
        locale=caller.locale,
        now=timezone.now(),
        request_id=f"mcp-{uuid.uuid4().hex}",
    )


def _audit(caller: Caller, event_type: str, **fields: Any) -> None:
    details = {**caller.audit_details, **fields.pop("details", {})}
    audit_event(
        event_type,
        actor=caller.actor.actor,
        subject=caller.actor.subject,
        session_id=caller.session.agent_session_id,
        details=details,
        **fields,
    )


def _run_registry_tool(caller: Caller, name: str, arguments: Any) -> ToolAnswer:
    tool = registry.get(name)
    if tool is None:
        intended = capability_for_unknown_tool(name)
        if intended is not None:
            error = capability_refusal(intended)
            _audit(caller, "card.refused", capability=intended.id, tool=name[:64], code=error.code)
            answer = _error_answer(error, caller.locale)
            answer.data["capability"] = {"id": intended.id, "status": intended.status}
            return answer
        raise LightNoteError("TOOL_NOT_FOUND", status=404, params={"tool": str(name)[:64]})
    if arguments is None:
        arguments = {}
    if tool.is_write and not caller.token.may_propose:
        raise LightNoteError("MCP_TOKEN_READ_ONLY", status=403)
    if tool.is_write and caller.actor.admin_context is None:
        # A proposal belongs to the token's conversation (opened by the first one); its
        # preparation already reads the session (e.g. a new note's stable id).
        callers.conversation_for(caller)
    context = _tool_context(caller)
    try:
        policy = enforce_tool_policy(
            tool_name=name, args=arguments, context=context, phase="prepare"
        )
    except LightNoteError as error:
        if tool.is_write:
            _audit(
                caller, "card.refused", capability=tool.capability_id, tool=name, code=error.code
            )
        raise
    if not policy.tool.is_write:
        read = policy.tool.run(policy.args, context)
        _audit(caller, "mcp.read", capability=policy.capability.id, tool=name)
        return ToolAnswer(
            {
                "kind": "data",
                "content_trust": CONTENT_TRUST,
                "note": translate("MCP_READ_NOTE", caller.locale),
                "tool": name,
                "summary": read.summary,
                "data": read.data,
            }
        )
    if caller.actor.admin_context is not None:  # the policy refused it already; never issue
        raise LightNoteError("ADMIN_READONLY", status=403)
    limit_new_card(caller.request, user_id=caller.actor.actor.pk)
    card = _issue(caller, policy, context)
    return ToolAnswer(card, card=card)


def _issue(caller: Caller, policy: Any, context: ToolContext) -> dict[str, Any]:
    """Store a ready card (no continuation: the MCP client writes its own reply) and seal
    its token for the confirmation page."""
    card_id = str(uuid.uuid4())
    subject = caller.actor.subject
    conversation = caller.session.agent_session
    if conversation is None:  # pragma: no cover - callers.conversation_for ran before
        raise RuntimeError("a proposal without its token's conversation")
    issued = cards.card_issue(
        card_id=card_id,
        owner_id=subject.pk,
        session_id=str(conversation.pk),
        subject_id=subject.pk,
        actor_id=caller.actor.actor.pk,
        tool=policy.tool.name,
        capability=policy.capability.id,
        risk=policy.capability.risk or "low",
        args=policy.args,
        preview=policy.preview or {},
        admin_context_id=caller.actor.admin_context_id,
        admin_mode=caller.actor.admin_mode,
        request_id=context.request_id,
        channel=CHANNEL,
    )
    metrics.card_issued(capability=policy.capability.id)
    expires_at = issued.card.expires_at
    if expires_at is None:  # pragma: no cover - a card just issued always has one
        raise RuntimeError("an issued card has no expiry")
    with transaction.atomic():
        # The card's lifecycle row (what history shows, settled by the execution path like
        # every card's) and its MCP row (the sealed token for the page) commit together.
        lifecycle.record_issued(
            [
                lifecycle.card_row(
                    issued,
                    session=conversation,
                    owner_id=subject.pk,
                    actor_id=caller.actor.actor.pk,
                )
            ],
            message=None,
        )
        McpCard.objects.create(
            card_id=card_id,
            owner=subject,
            mcp_session=caller.session,
            tool=policy.tool.name,
            capability=policy.capability.id,
            risk=policy.capability.risk or "low",
            sealed_token=sealing.seal(issued.token, card_id=card_id),
            expires_at=expires_at,
        )
    _audit(
        caller,
        "card.issued",
        capability=policy.capability.id,
        tool=policy.tool.name,
        action_id=card_id,
    )
    return _card_body(
        card_id=card_id,
        tool=policy.tool.name,
        capability=policy.capability.id,
        risk=policy.capability.risk or "low",
        preview=policy.preview or {},
        args=policy.args,
        expires_at=expires_at.astimezone(context.zone).isoformat(),
        locale=caller.locale,
    )


def _card_body(
    *,
    card_id: str,
    tool: str,
    capability: str,
    risk: str,
    preview: dict[str, Any],
    args: dict[str, Any],
    expires_at: str,
    locale: str,
) -> dict[str, Any]:
    return {
        "kind": "card",
        "card_id": card_id,
        "state": "pending",
        "tool": tool,
        "capability": capability,
        "risk": risk,
        "preview": preview,
        "args": args,
        "expires_at": expires_at,
        "confirm_url": confirm_url(card_id),
        "content_trust": CONTENT_TRUST,
        "message": translate("MCP_CARD_PENDING", locale),
    }


def _own_card(caller: Caller, card_id: Any) -> McpCard:
    """Return the caller's MCP card, or 404 (another user's card is as unknown as none)."""
    try:
        parsed = uuid.UUID(str(card_id))
    except ValueError:
        raise LightNoteError("MCP_CARD_ID_INVALID") from None
    row = McpCard.objects.filter(card_id=parsed, owner=caller.token.owner).first()
    if row is None:
        raise LightNoteError("MCP_CARD_NOT_FOUND", status=404)
    return row


def _card_again(caller: Caller, name: str, card_id: str) -> ToolAnswer:
    """Answer the retry of a proposal with the card its first round issued.

    ``card_id`` comes back from the client as ``requestState``: it is trusted only for a
    card of this caller, this MCP session and this tool.
    """
    row = _own_card(caller, card_id)
    if row.mcp_session_id != caller.session.pk or row.tool != name:
        raise LightNoteError("MCP_CARD_NOT_FOUND", status=404)
    if card_state(row, locale=caller.locale)["state"] != "pending":
        # Confirmed, rejected, failed, expired...: the client must hear what happened, not
        # "nothing has been done yet" (it would propose again).
        return card_status(caller, {"card_id": card_id})
    card = stored_card(row)
    if card is None:
        return card_status(caller, {"card_id": card_id})
    body = _card_body(
        card_id=str(row.card_id),
        tool=card.tool,
        capability=card.capability,
        risk=card.risk,
        preview=card.preview,
        args=card.args,
        expires_at=(card.expires_at or row.expires_at)
        .astimezone(caller.actor.subject.zone)
        .isoformat(),
        locale=caller.locale,
    )
    return ToolAnswer(body, card=body)


def card_status(caller: Caller, arguments: Any) -> ToolAnswer:
    """Answer ``card_status``: the state of one of the caller's MCP cards."""
    if not isinstance(arguments, dict) or set(arguments) != {"card_id"}:
        raise LightNoteError(
            "TOOL_ARGS_INVALID",
            params={"fields": "card_id"},
            extra={"fields": {"card_id": ["required"]}},
        )
    row = _own_card(caller, arguments["card_id"])
    state = card_state(row, locale=caller.locale)
    return ToolAnswer(
        {
            "kind": "card_status",
            "card_id": str(row.card_id),
            "tool": row.tool,
            "capability": row.capability,
            "confirm_url": confirm_url(str(row.card_id)),
            **state,
        }
    )


def _capabilities(caller: Caller) -> ToolAnswer:
    """Answer ``list_capabilities`` from the capability table (guidance included)."""
    rows = []
    for capability in CAPABILITIES:
        row: dict[str, Any] = {"id": capability.id, "status": capability.status}
        if capability.status == ENABLED:
            row.update(
                tool=capability.tool,
                kind=capability.kind,
                risk=capability.risk,
                needs_confirmation=capability.is_write,
            )
            if capability.internal:
                # Compensation-only (an undo's card): listed for completeness, never callable.
                row["internal"] = True
        else:
            row["guidance"] = (capability.guidance or {}).get(caller.locale, "")
        rows.append(row)
    return ToolAnswer({"kind": "capabilities", "capabilities": rows})
