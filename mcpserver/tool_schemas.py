"""What each MCP tool says about itself beyond the registry: its title, its hints, and the
output schema of its ``structuredContent``.

Hints follow the spec's definitions for the *action* a tool stands for (proposing only
issues a card; the hints tell a client what confirming it would do): ``destructiveHint``
for an action that overwrites or removes what exists, ``idempotentHint`` where doing it
twice with the same arguments changes nothing more, ``readOnlyHint`` for reads. One row per
capability; a test checks that every enabled capability has its row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lightnote.texts.i18n import define_messages

define_messages(
    {
        "MCP_TITLE_QUERY_TODOS": ("查询待办", "Find todos"),
        "MCP_TITLE_SEARCH_NOTES": ("搜索笔记", "Search notes"),
        "MCP_TITLE_CREATE_TODO": ("提议新建待办", "Propose a new todo"),
        "MCP_TITLE_SET_TODO_STATUS": (
            "提议完成或重开待办",
            "Propose completing or reopening a todo",
        ),
        "MCP_TITLE_UPDATE_TODO": ("提议修改待办", "Propose changing a todo"),
        "MCP_TITLE_DELETE_TODO": ("提议删除待办", "Propose deleting a todo"),
        "MCP_TITLE_CREATE_NOTE": ("提议新建笔记", "Propose a new note"),
        "MCP_TITLE_UPDATE_NOTE": ("提议修改笔记", "Propose changing a note"),
        "MCP_TITLE_CARD_STATUS": ("确认卡状态", "Confirmation card status"),
        "MCP_TITLE_LIST_CAPABILITIES": ("能力清单", "What LightNote can do"),
    }
)


@dataclass(frozen=True)
class Effect:
    """What the action behind a tool does to what already exists."""

    read_only: bool
    destructive: bool
    idempotent: bool


READ = Effect(read_only=True, destructive=False, idempotent=True)
ADDS = Effect(read_only=False, destructive=False, idempotent=False)
OVERWRITES = Effect(read_only=False, destructive=True, idempotent=True)
REMOVES = Effect(read_only=False, destructive=True, idempotent=True)

# capability id (or the MCP server's own tool) -> its effect.
EFFECTS: dict[str, Effect] = {
    "todo.query": READ,
    "note.search": READ,
    "todo.create": ADDS,
    "todo.status.set": OVERWRITES,
    "todo.update": OVERWRITES,
    "todo.delete": REMOVES,
    "note.create": ADDS,
    "note.update": OVERWRITES,
    "card_status": READ,
    "list_capabilities": READ,
}


def title_code(tool_name: str) -> str:
    return f"MCP_TITLE_{tool_name.upper()}"


# --- output schemas (JSON Schema 2020-12) ---------------------------------------------------

_TEXT = {"type": "string"}
_UUID = {"type": "string", "format": "uuid"}
_OBJECT = {"type": "object"}
_ERROR = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {"code": _TEXT, "message": _TEXT},
}
# What changed, said by the server from receipts (every successful answer carries it).
CHANGES = {
    "type": "object",
    "required": ["count", "text", "items"],
    "properties": {
        "count": {"type": "integer", "minimum": 0},
        "text": _TEXT,
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["action_id", "capability", "tool", "text"],
                "properties": {
                    "action_id": _UUID,
                    "capability": _TEXT,
                    "tool": _TEXT,
                    "text": _TEXT,
                },
            },
        },
    },
}
CARD_STATES = [
    "pending",
    "confirmed",
    "failed",
    "rejected",
    "voided",
    "running",
    "unknown",
    "expired",
    "invalid",
    "unverifiable",
]

CARD = {
    "type": "object",
    "required": [
        "kind",
        "card_id",
        "state",
        "tool",
        "capability",
        "risk",
        "preview",
        "args",
        "expires_at",
        "confirm_url",
        "content_trust",
        "message",
    ],
    "properties": {
        "kind": {"const": "card"},
        "card_id": _UUID,
        "state": {"const": "pending"},
        "tool": _TEXT,
        "capability": _TEXT,
        "risk": {"enum": ["low", "medium", "high"]},
        "preview": _OBJECT,
        "args": _OBJECT,
        "expires_at": {"type": "string", "format": "date-time"},
        "confirm_url": {"type": "string", "format": "uri"},
        "content_trust": {"const": "untrusted"},
        "message": _TEXT,
        "elicitation": {"enum": ["accept", "decline", "cancel"]},
        "changes": CHANGES,
    },
}

CARD_STATUS = {
    "type": "object",
    "required": ["kind", "card_id", "tool", "capability", "confirm_url", "state", "message"],
    "properties": {
        "kind": {"const": "card_status"},
        "card_id": _UUID,
        "tool": _TEXT,
        "capability": _TEXT,
        "confirm_url": {"type": "string", "format": "uri"},
        "state": {"enum": CARD_STATES},
        "message": _TEXT,
        "receipt": _OBJECT,
        "error": _ERROR,
        "reason": _TEXT,
        "changes": CHANGES,
    },
}

DATA = {
    "type": "object",
    "required": ["kind", "content_trust", "note", "tool", "summary", "data"],
    "properties": {
        "kind": {"const": "data"},
        "content_trust": {"const": "untrusted"},
        "note": _TEXT,
        "tool": _TEXT,
        "summary": _TEXT,
        "data": _OBJECT,
        "changes": CHANGES,
    },
}

CAPABILITIES = {
    "type": "object",
    "required": ["kind", "capabilities"],
    "properties": {
        "kind": {"const": "capabilities"},
        "capabilities": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "status"],
                "properties": {
                    "id": _TEXT,
                    "status": {"enum": ["enabled", "planned", "forbidden"]},
                    "tool": {"type": ["string", "null"]},
                    "kind": {"type": ["string", "null"]},
                    "risk": {"type": ["string", "null"]},
                    "needs_confirmation": {"type": "boolean"},
                    "internal": {"type": "boolean"},
                    "guidance": _TEXT,
                },
            },
        },
        "changes": CHANGES,
    },
}

# A write answers its new card, or — the retry of a proposal whose card the person already
# decided — that card's status.
WRITE_OUTPUT = {"type": "object", "oneOf": [CARD, CARD_STATUS]}


def output_schema(*, tool_name: str, is_write: bool) -> dict[str, Any]:
    """Return the output schema of a tool's successful ``structuredContent``."""
    if tool_name == "card_status":
        return CARD_STATUS
    if tool_name == "list_capabilities":
        return CAPABILITIES
    return WRITE_OUTPUT if is_write else DATA
