"""The one tool-policy function every entry path calls.

Planner proposals, the chat page and direct confirmation all go through
:func:`enforce_tool_policy`, so a rule added here holds everywhere. Order (issue 3):

1. the tool exists (else the registry's planned/forbidden guidance, or ``TOOL_NOT_FOUND``;
   an internal, compensation-only tool exists only for an undo and for execution);
2. actor/subject boundary (they differ only inside an admin context);
3. role (inactive users refused; per-tool ``allowed_roles``);
4. admin read-only refuses write tools already at prepare;
5. closed-schema validation of the normalised args (unknown properties are refused even if
   a later step would ignore them);
6. ``phase="execute"`` of a write requires ``confirmed=True``;
7. prepare: ``prepare`` + ``preview``; execute: the STORED prepared args are validated
   against ``prepared_schema`` and returned unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent.capabilities import FORBIDDEN, Capability, capability_by_id, capability_for_unknown_tool
from agent.tools import Tool, ToolContext, args_invalid, registry, schema_violations, user_roles
from lightnote.errors import LightNoteError
from lightnote.texts.i18n import define_messages

PHASE_PREPARE = "prepare"
PHASE_EXECUTE = "execute"

define_messages(
    {
        "TOOL_NOT_FOUND": ("没有名为 {tool} 的工具。", "There is no tool named {tool}."),
        # The message IS the registry's fixed guidance, in the request's language.
        "CAPABILITY_PLANNED": ("{guidance_zh}", "{guidance_en}"),
        "CAPABILITY_FORBIDDEN": ("{guidance_zh}", "{guidance_en}"),
        "ACTOR_SUBJECT_MISMATCH": (
            "操作者与数据所属用户不一致，已拒绝。",
            "The acting user is not the owner of this data; refused.",
        ),
        "USER_INACTIVE": (
            "账号已停用，不能使用 Agent 工具。",
            "This account is inactive and may not use agent tools.",
        ),
        "TOOL_ROLE_FORBIDDEN": (
            "你的账号角色不能使用工具 {tool}。",
            "Your role may not use the tool {tool}.",
        ),
        "TOOL_CONFIRMATION_REQUIRED": (
            "写操作必须由用户确认后才能执行。",
            "A write runs only after the user has confirmed it.",
        ),
    }
)


@dataclass(frozen=True)
class PolicyResult:
    tool: Tool
    capability: Capability
    args: dict[str, Any]  # prepared (writes) or normalised (reads)
    preview: dict[str, Any] | None  # writes only

    @property
    def requires_confirmation(self) -> bool:
        return self.tool.is_write


def capability_refusal(capability: Capability) -> LightNoteError:
    """Return the error carrying a planned/forbidden capability's fixed guidance."""
    guidance = capability.guidance or {}
    forbidden = capability.status == FORBIDDEN
    return LightNoteError(
        "CAPABILITY_FORBIDDEN" if forbidden else "CAPABILITY_PLANNED",
        status=403,
        params={"guidance_zh": guidance.get("zh-CN", ""), "guidance_en": guidance.get("en", "")},
        extra={"capability": capability.id, "status": capability.status},
    )


def _find_tool(tool_name: str, *, internal: bool = False) -> tuple[Tool, Capability]:
    tool = registry.get(tool_name)
    if tool is not None and registry.is_internal(tool.name) and not internal:
        tool = None  # a compensation-only tool: proposed by name, it does not exist
    if tool is None:
        intended = capability_for_unknown_tool(tool_name)
        if intended is not None:
            raise capability_refusal(intended)
        raise LightNoteError("TOOL_NOT_FOUND", status=404, params={"tool": str(tool_name)[:64]})
    capability = capability_by_id(tool.capability_id)
    if capability is None:  # registration makes this impossible; fail closed anyway
        raise LightNoteError("TOOL_NOT_FOUND", status=404, params={"tool": tool_name})
    return tool, capability


def _check_boundary(context: ToolContext) -> None:
    # Outside an admin context the actor may only touch their own data; inside one, only
    # staff may be the actor (the context itself was resolved for that staff member).
    same_user = context.actor.pk == context.subject.pk
    if context.admin_context_id is None and not same_user:
        raise LightNoteError("ACTOR_SUBJECT_MISMATCH", status=403)
    if context.admin_context_id is not None and not context.actor.is_staff:
        raise LightNoteError("ACTOR_SUBJECT_MISMATCH", status=403)


def _check_role(tool: Tool, context: ToolContext) -> None:
    if not context.actor.is_active or not context.subject.is_active:
        raise LightNoteError("USER_INACTIVE", status=403)
    if not user_roles(context.actor) & tool.allowed_roles:
        raise LightNoteError("TOOL_ROLE_FORBIDDEN", status=403, params={"tool": tool.name})


def _validated(schema: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    violations = schema_violations(schema, args)
    if violations:
        raise args_invalid(violations)
    return args


def enforce_tool_policy(
    *,
    tool_name: str,
    args: dict[str, Any],
    context: ToolContext,
    phase: str,
    confirmed: bool = False,
    compensation: bool = False,
) -> PolicyResult:
    """Check one tool call and return its prepared (or normalised) args.

    An internal (compensation-only) tool is found only with ``compensation=True`` (an undo
    preparing it) or at ``phase="execute"`` (its card was issued that way); anywhere else
    it answers like an unknown tool.

    At ``phase="prepare"`` raw model args are normalised, validated, prepared and previewed.
    At ``phase="execute"`` ``args`` must be the prepared args stored with the card: they are
    validated against ``prepared_schema`` and returned unchanged, never prepared again (a
    second prepare would capture the item's current version and hide a conflict).
    """
    if phase not in (PHASE_PREPARE, PHASE_EXECUTE):
        raise ValueError(f"unknown policy phase {phase!r}")
    tool, capability = _find_tool(tool_name, internal=compensation or phase == PHASE_EXECUTE)
    _check_boundary(context)
    _check_role(tool, context)
    if tool.is_write and context.admin_context_id is not None:
        raise LightNoteError("ADMIN_READONLY", status=403)

    if tool.is_write and phase == PHASE_EXECUTE:
        if not confirmed:
            raise LightNoteError("TOOL_CONFIRMATION_REQUIRED", status=403)
        if not isinstance(args, dict):
            raise args_invalid({"$": ["invalid"]})
        prepared = _validated(tool.prepared_schema, args)
        return PolicyResult(tool=tool, capability=capability, args=prepared, preview=None)

    normalized = _validated(tool.schema, tool.normalize(args))
    if not tool.is_write:
        return PolicyResult(tool=tool, capability=capability, args=normalized, preview=None)
    prepared = _validated(tool.prepared_schema, tool.prepare(normalized, context))
    preview = tool.preview(prepared, context)
    return PolicyResult(tool=tool, capability=capability, args=prepared, preview=preview)
