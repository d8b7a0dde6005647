"""The agent's todo tools: thin adapters over ``todos.services`` and ``todos.selectors``.

Discovered by ``AgentConfig.ready`` (``autodiscover_modules("agent_tools")``). Every rule a
page also needs (title, description, priority limits; ownership; versions) lives in the
services; these tools only translate between a model's proposal, the card and the service.

The package is the one place ``todos`` reaches the agent from, one job a module:
``messages`` (the texts), ``schemas`` (aliases, argument schemas, normalisation), ``cards``
(due-time preparation, the todo a proposal names, snapshots, card rows), ``reads`` (the read
tool) and ``writes`` (the write tools). The read registers first, as it always has.
"""

from __future__ import annotations

from todos.agent_tools import messages  # noqa: F401  (registers the texts)
from todos.agent_tools.reads import QueryTodosTool
from todos.agent_tools.writes import (
    CreateTodoTool,
    DeleteTodoTool,
    RestoreTodoTool,
    SetTodoStatusTool,
    TodoWriteTool,
    UpdateTodoTool,
)

__all__ = [
    "CreateTodoTool",
    "DeleteTodoTool",
    "QueryTodosTool",
    "RestoreTodoTool",
    "SetTodoStatusTool",
    "TodoWriteTool",
    "UpdateTodoTool",
]
