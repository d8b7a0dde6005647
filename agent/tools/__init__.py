"""The tool base, the tool registry and the helpers tools share.

A tool is a thin adapter between a model's proposal and a domain service: a closed JSON
Schema, an alias table, ``normalize``, ``prepare`` (server-side parsing and state checks),
``preview`` (the card, from prepared args only), ``execute`` (calls the service) and
``transform``. Domain apps declare their tools in ``<app>/agent_tools``; ``AgentConfig.ready``
imports those modules and validates the registry against the capability table, so this
package knows no domain app.

The package, one job a module: ``base`` (context, results, ``Tool`` / ``WriteTool``),
``tool_registry`` (the registry), ``schema`` (argument schemas and their validation),
``formatting`` (local times, detail rows, inline lists) and ``adapters`` (what every domain
app's tools share: resolving an item, paging, cards, snapshots, undo proposals). Import
from ``agent.tools``: every public name is here.
"""

from __future__ import annotations

from agent.tools.adapters import first_page, resolve_by_id_or_title
from agent.tools.base import (
    DROP,
    Compensation,
    ExecutionResult,
    ReadResult,
    Tool,
    ToolContext,
    WriteTool,
    user_roles,
)
from agent.tools.formatting import (
    LOCALE_EN,
    LOCALE_ZH,
    change_detail,
    detail,
    excerpt,
    format_local_time,
    joined,
    list_separator,
    parse_aware,
    text,
    update_preview,
)
from agent.tools.schema import (
    AWARE_ISO_PATTERN,
    KEYWORD_ALIASES,
    LIMIT_ALIASES,
    UUID_PATTERN,
    args_invalid,
    closed_object,
    digits_to_int,
    exactly_one_of,
    schema_violations,
    strip_text,
)
from agent.tools.tool_registry import ToolRegistry, registry

__all__ = [
    "AWARE_ISO_PATTERN",
    "DROP",
    "KEYWORD_ALIASES",
    "LIMIT_ALIASES",
    "LOCALE_EN",
    "LOCALE_ZH",
    "UUID_PATTERN",
    "Compensation",
    "ExecutionResult",
    "ReadResult",
    "Tool",
    "ToolContext",
    "ToolRegistry",
    "WriteTool",
    "args_invalid",
    "change_detail",
    "closed_object",
    "detail",
    "digits_to_int",
    "exactly_one_of",
    "excerpt",
    "first_page",
    "format_local_time",
    "joined",
    "list_separator",
    "parse_aware",
    "registry",
    "resolve_by_id_or_title",
    "schema_violations",
    "strip_text",
    "text",
    "update_preview",
    "user_roles",
]
