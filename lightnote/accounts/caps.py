"""Per-user caps on what a person can create: one table, one check, a clear error code.

Each cap counts the owner's live rows (the trash and deleted conversations aside) and refuses
the create that would pass it with 403 ``<KIND>_LIMIT_REACHED``; the limit is a setting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.conf import settings

from lightnote.errors import LightNoteError
from lightnote.texts.i18n import define_messages


@dataclass(frozen=True)
class Cap:
    setting: str
    model: str  # "app_label.Model": read when checked, so no app imports another's models
    live: dict[str, Any]  # the filter that keeps what counts (besides the owner)
    code: str


CAPS = {
    "todo": Cap("LIGHTNOTE_MAX_TODOS", "todos.Todo", {}, "TODO_LIMIT_REACHED"),
    "note": Cap("LIGHTNOTE_MAX_NOTES", "notes.Note", {}, "NOTE_LIMIT_REACHED"),
    "conversation": Cap(
        "LIGHTNOTE_MAX_CONVERSATIONS",
        "agent.AgentSession",
        {"deleted_at__isnull": True},
        "CONVERSATION_LIMIT_REACHED",
    ),
    "mcp_token": Cap(
        "LIGHTNOTE_MAX_MCP_TOKENS",
        "mcpserver.McpToken",
        {"revoked_at__isnull": True},
        "MCP_TOKEN_LIMIT_REACHED",
    ),
}


def cap_limit(kind: str) -> int:
    return int(getattr(settings, CAPS[kind].setting))


def enforce_cap(kind: str, *, owner: Any) -> None:
    """Refuse one more ``kind`` for ``owner`` when they have the cap's limit already."""
    cap = CAPS[kind]
    limit = cap_limit(kind)
    rows = apps.get_model(cap.model)._default_manager.filter(owner=owner, **cap.live)
    # One indexed read that stops at the limit: no full count of a large owner's rows.
    if rows.order_by()[limit - 1 : limit].exists():
        raise LightNoteError(cap.code, status=403, params={"limit": limit})


define_messages(
    {
        "TODO_LIMIT_REACHED": (
            "你已有 {limit} 条待办，达到上限；请先删除一些。",
            "You have {limit} {limit:todo|todos}, the most an account may have; delete some first.",
        ),
        "NOTE_LIMIT_REACHED": (
            "你已有 {limit} 条笔记，达到上限；请先删除一些。",
            "You have {limit} {limit:note|notes}, the most an account may have; delete some first.",
        ),
        "CONVERSATION_LIMIT_REACHED": (
            "你已有 {limit} 个对话，达到上限；请先删除一些。",
            "You have {limit} {limit:conversation|conversations}, the most an account may have; "
            "delete some first.",
        ),
        "MCP_TOKEN_LIMIT_REACHED": (
            "你已有 {limit} 个 MCP 令牌，达到上限；请先撤销一些。",
            "You have {limit} MCP {limit:token|tokens}, the most an account may have; "
            "revoke some first.",
        ),
    }
)
