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
app's tools share: resolving an item, paging, cards, snapshots, undo proposals). Every
public name is also here, in ``agent.tools``; a domain app's tools import from the modules.
"""

from __future__ import annotations

from agent.tools.adapters import (
    ItemCardTool,
    card,
    changed_values,
    first_page,
    listing,
    page_data,
    resolve_by_id_or_title,
    run_versioned,
    undo_update,
    versioned_target,
)
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
    UUID_SCHEMA,
    VERSION_SCHEMA,
    args_invalid,
    closed_object,
    digits_to_int,
    exactly_one_of,
    schema_violations,
    snapshot_schema,
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
    "UUID_SCHEMA",
    "VERSION_SCHEMA",
    "Compensation",
    "ExecutionResult",
    "ItemCardTool",
    "ReadResult",
    "Tool",
    "ToolContext",
    "ToolRegistry",
    "WriteTool",
    "args_invalid",
    "card",
    "change_detail",
    "changed_values",
    "closed_object",
    "detail",
    "digits_to_int",
    "exactly_one_of",
    "excerpt",
    "first_page",
    "format_local_time",
    "joined",
    "list_separator",
    "listing",
    "page_data",
    "parse_aware",
    "registry",
    "resolve_by_id_or_title",
    "run_versioned",
    "schema_violations",
    "snapshot_schema",
    "strip_text",
    "text",
    "undo_update",
    "update_preview",
    "user_roles",
    "versioned_target",
]
