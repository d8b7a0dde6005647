"""The capability registry: what the agent may do, as data, and its lookups.

The table mirrors the "Capabilities" table of docs/api.md. ``enabled`` capabilities have exactly
one tool; ``planned`` and ``forbidden`` ones have none and answer with fixed guidance, so the
system never relies on the model "remembering" what it may not do. Tool registration
(``agent.tools.ToolRegistry``) is validated against this table at start-up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ENABLED = "enabled"
PLANNED = "planned"
FORBIDDEN = "forbidden"

READ = "read"
WRITE = "write"

# Risk levels of write capabilities, lowest first: the one list cards, the API schema and the
# chat page use.
RISK_LOW = "low"
RISK_MEDIUM = "medium"
RISK_HIGH = "high"
RISKS = (RISK_LOW, RISK_MEDIUM, RISK_HIGH)

# Confirmation policies. ``default`` and ``always`` both require a card in this version;
# ``always`` marks writes that must keep an explicit card even if a later preference
# streamlines ``default`` ones. ``none`` is for read tools only.
CONFIRMATION_NONE = "none"
CONFIRMATION_DEFAULT = "default"
CONFIRMATION_ALWAYS = "always"


@dataclass(frozen=True)
class Capability:
    id: str
    status: str  # "enabled" | "planned" | "forbidden"
    tool: str | None = None
    kind: str | None = None  # "read" | "write"
    risk: str | None = None  # one of RISKS (writes only)
    confirmation: str | None = None  # "none" | "default" | "always"
    guidance: dict[str, str] | None = None  # {"zh-CN", "en"} for planned / forbidden
    # Tool names a model might invent for a capability that has no tool, so the registry
    # can answer with its guidance instead of a bare "unknown tool".
    intent_names: tuple[str, ...] = ()
    # Internal: only the undo of another capability (a compensation, issue 15) may prepare
    # it. Never offered to a model or over MCP, never proposed: a proposal naming it is
    # refused like an unknown tool. Its cards are ordinary cards (confirmed, receipted).
    internal: bool = False

    @property
    def is_write(self) -> bool:
        return self.kind == WRITE


CAPABILITIES: tuple[Capability, ...] = (
    Capability("todo.query", ENABLED, "query_todos", READ, None, CONFIRMATION_NONE),
    Capability("note.search", ENABLED, "search_notes", READ, None, CONFIRMATION_NONE),
    Capability("todo.create", ENABLED, "create_todo", WRITE, RISK_LOW, CONFIRMATION_DEFAULT),
    Capability("todo.status.set", ENABLED, "set_todo_status", WRITE, RISK_LOW, CONFIRMATION_ALWAYS),
    Capability("todo.update", ENABLED, "update_todo", WRITE, RISK_MEDIUM, CONFIRMATION_ALWAYS),
    Capability("todo.delete", ENABLED, "delete_todo", WRITE, RISK_HIGH, CONFIRMATION_ALWAYS),
    Capability("note.create", ENABLED, "create_note", WRITE, RISK_LOW, CONFIRMATION_DEFAULT),
    Capability("note.update", ENABLED, "update_note", WRITE, RISK_MEDIUM, CONFIRMATION_ALWAYS),
    # Compensations only (undo): restore a todo an agent card deleted; move a note an agent
    # card created to the trash (the agent cannot delete notes otherwise, see note.delete).
    Capability(
        "todo.restore",
        ENABLED,
        "restore_todo",
        WRITE,
        RISK_LOW,
        CONFIRMATION_ALWAYS,
        internal=True,
    ),
    Capability(
        "note.discard",
        ENABLED,
        "discard_note",
        WRITE,
        RISK_MEDIUM,
        CONFIRMATION_ALWAYS,
        internal=True,
    ),
    Capability(
        "note.delete",
        PLANNED,
        guidance={
            "zh-CN": "Agent 暂不支持删除笔记，请前往笔记页面手动删除。",
            "en": "The agent cannot delete notes yet; delete it on the notes page.",
        },
        intent_names=("delete_note", "remove_note", "note_delete", "trash_note", "delete_notes"),
    ),
    Capability(
        "account.delete",
        FORBIDDEN,
        guidance={
            "zh-CN": "Agent 不允许执行账号注销或删除，请在账号设置中自行处理。",
            "en": "The agent never deletes or closes accounts; use your account settings.",
        },
        intent_names=(
            "delete_account",
            "remove_account",
            "close_account",
            "deactivate_account",
            "account_delete",
            "delete_user",
            "remove_user",
        ),
    ),
)

_BY_ID = {capability.id: capability for capability in CAPABILITIES}
_BY_TOOL = {capability.tool: capability for capability in CAPABILITIES if capability.tool}


def capability_by_id(capability_id: str) -> Capability | None:
    """Return the capability with this id, or None."""
    return _BY_ID.get(capability_id)


def capability_by_tool(name: str) -> Capability | None:
    """Return the enabled capability whose tool is ``name``, or None."""
    return _BY_TOOL.get(name)


def _snake(name: str) -> str:
    """Return ``name`` as lower snake case (``deleteNote`` / ``Delete-Note`` -> ``delete_note``)."""
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.strip())
    return re.sub(r"[\s\-.]+", "_", name).lower()


def capability_for_unknown_tool(name: str) -> Capability | None:
    """Return the planned or forbidden capability a tool name refers to, or None.

    Matches the capability id itself (``note.delete``) and its ``intent_names``, in any of
    the spellings a model tends to produce (``deleteNote``, ``delete-note``).
    """
    if not isinstance(name, str):
        return None
    wanted = _snake(name)
    for capability in CAPABILITIES:
        if capability.status == ENABLED:
            continue
        names = {_snake(capability.id), *(_snake(intent) for intent in capability.intent_names)}
        if wanted in names:
            return capability
    return None
