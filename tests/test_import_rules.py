"""The layers hold: lightnote imports no app, the agent no domain app, todos and notes reach
the agent only from agent_tools.py and never each other, and no modules import one another.

The checker (tests/import_rules.py) is first proved on small synthetic trees that contain
each violation the structure once had, so a green run means something.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.import_rules import (
    import_cycles,
    imports_of,
    layer_violations,
    project_modules,
)

ROOT = Path(__file__).resolve().parent.parent


def make_tree(root: Path, files: dict[str, str]) -> Path:
    """Write a minimal project: the four packages plus ``files`` (path -> source)."""
    for package in ("lightnote", "agent", "todos", "notes"):
        (root / package).mkdir(parents=True, exist_ok=True)
        (root / package / "__init__.py").touch()
    for path, source in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.parent != root and not (target.parent / "__init__.py").exists():
            (target.parent / "__init__.py").touch()
        target.write_text(textwrap.dedent(source), encoding="utf-8")
    return root


def check(root: Path, *, exempt: tuple[str, ...] = ()) -> tuple[list[str], list[list[str]]]:
    imports = imports_of(project_modules(root))
    return layer_violations(imports), import_cycles(imports, exempt=exempt)


# --- the real tree -------------------------------------------------------------------------


def test_the_project_keeps_its_layers() -> None:
    violations, _ = check(ROOT)
    assert violations == []


def test_no_modules_import_one_another() -> None:
    _, cycles = check(ROOT)
    assert cycles == []


def test_the_checker_sees_the_whole_project() -> None:
    modules = project_modules(ROOT)
    imports = imports_of(modules)
    assert {
        "lightnote.controlstore.store",
        "agent.cards.records",
        "todos.agent_tools",
        "notes.services",
    } <= set(modules)
    assert "reminders.services" in modules
    # A known edge of each kind is found: top level, and inside a function.
    edges = {(imp.importer, imp.target) for imp in imports}
    assert ("agent.cards.records", "lightnote.controlstore.store") in edges
    assert (
        "lightnote.impersonation.readonly",
        "lightnote.audit",
    ) in edges  # imported inside a function


# --- the checker on synthetic trees --------------------------------------------------------

VIOLATIONS = {
    "base imports the agent at top level": {
        "agent/store.py": "X = 1\n",
        "lightnote/idempotency.py": "from agent import store\n",
    },
    "base imports the agent inside a function": {
        "agent/audit.py": "def audit_event(): ...\n",
        "lightnote/permissions.py": """
            def refuse():
                from agent.audit import audit_event
                audit_event()
        """,
    },
    "base imports an agent model under TYPE_CHECKING": {
        "agent/models.py": "class AuditEvent: ...\n",
        "lightnote/admin.py": """
            from typing import TYPE_CHECKING
            if TYPE_CHECKING:
                from agent.models import AuditEvent
        """,
    },
    "base looks an app up by string": {
        "agent/admin.py": "",
        "lightnote/admin.py": """
            import importlib.util
            if importlib.util.find_spec("agent.admin") is None:
                pass
        """,
    },
    "base imports a domain app through importlib": {
        "todos/models.py": "",
        "lightnote/views.py": """
            import importlib
            models = importlib.import_module("todos.models")
        """,
    },
    "notes imports todos": {
        "todos/serializers.py": "class JSONCharField: ...\n",
        "notes/serializers.py": "from todos.serializers import JSONCharField\n",
    },
    "notes imports todos by a plain import": {
        "todos/serializers.py": "",
        "notes/api.py": "import todos.serializers\n",
    },
    "todos imports the agent outside agent_tools.py": {
        "agent/tools.py": "class Tool: ...\n",
        "todos/api.py": "from agent.tools import Tool\n",
    },
    "todos imports the agent from a module named like the adapter": {
        "agent/tools.py": "class Tool: ...\n",
        "todos/agent_tools_extra.py": "from agent.tools import Tool\n",
    },
    "notes imports the agent from a package beside the adapter package": {
        "agent/tools.py": "class Tool: ...\n",
        "notes/agent_tools/__init__.py": "",
        "notes/pages/agent_tools.py": "from agent.tools import Tool\n",
    },
    "the agent imports a domain app": {
        "notes/services.py": "",
        "agent/execution.py": "from notes import services\n",
    },
    "the agent imports the MCP server": {
        "mcpserver/gateway.py": "",
        "agent/views.py": "from mcpserver import gateway\n",
    },
    "the MCP server imports a domain app": {
        "todos/services.py": "",
        "mcpserver/gateway.py": "from todos import services\n",
    },
    "todos imports the reminders app": {
        "reminders/services.py": "",
        "todos/services.py": "from reminders import services\n",
    },
    "the reminders app imports the agent": {
        "agent/cards.py": "",
        "reminders/tasks.py": "from agent import cards\n",
    },
    "the agent imports a domain app inside a method of a subpackage": {
        "todos/selectors.py": "",
        "agent/web/views.py": """
            class Page:
                def get(self):
                    import todos.selectors as selectors
                    return selectors
        """,
    },
}


@pytest.mark.parametrize("name", sorted(VIOLATIONS))
def test_the_checker_catches(tmp_path: Path, name: str) -> None:
    violations, _ = check(make_tree(tmp_path, VIOLATIONS[name]))
    assert len(violations) == 1, violations


def test_the_checker_names_the_file_the_line_and_the_rule(tmp_path: Path) -> None:
    tree = make_tree(
        tmp_path,
        {
            "todos/serializers.py": "",
            "notes/serializers.py": "import os\nimport todos.serializers\n",
        },
    )
    violations, _ = check(tree)
    assert violations == [
        "notes.serializers:2 imports todos.serializers: a domain app never imports another"
    ]


def test_the_allowed_directions_pass(tmp_path: Path) -> None:
    tree = make_tree(
        tmp_path,
        {
            "lightnote/store.py": "",
            "agent/tools.py": "from lightnote import store\n",
            "todos/services.py": "from lightnote import store\n",
            "todos/agent_tools.py": "from agent.tools import Tool\nfrom todos import services\n",
            "notes/agent_tools.py": "from agent import tools\nfrom . import api\n",
            "notes/api.py": "import json\nfrom django.db import models\n",
            "mcpserver/gateway.py": "from agent import tools\nfrom lightnote import store\n",
        },
    )
    assert check(tree) == ([], [])


def test_an_adapter_package_may_reach_the_agent_from_each_of_its_modules(tmp_path: Path) -> None:
    tree = make_tree(
        tmp_path,
        {
            "agent/tools.py": "class Tool: ...\n",
            "todos/services.py": "",
            "todos/agent_tools/__init__.py": "from todos.agent_tools import tools\n",
            "todos/agent_tools/tools.py": "from agent.tools import Tool\nimport todos.services\n",
            "todos/agent_tools/cards.py": "from agent import tools\n",
        },
    )
    assert check(tree) == ([], [])


def test_the_checker_catches_a_cycle_hidden_inside_a_function(tmp_path: Path) -> None:
    tree = make_tree(
        tmp_path,
        {
            "agent/planners/base.py": """
                def get_planner():
                    from agent.planners.openai import OpenAIPlanner
                    return OpenAIPlanner()
            """,
            "agent/planners/openai.py": "from agent.planners.base import get_planner\n",
        },
    )
    _, cycles = check(tree)
    assert cycles == [["agent.planners.base", "agent.planners.openai"]]
    # The exemption used for the real tree silences exactly that package.
    assert check(tree, exempt=("agent.planners",))[1] == []
    assert check(tree, exempt=("agent.plan",))[1] == cycles


def test_the_checker_catches_a_longer_cycle_across_packages(tmp_path: Path) -> None:
    tree = make_tree(
        tmp_path,
        {
            "lightnote/a.py": "from lightnote import b\n",
            "lightnote/b.py": "from lightnote.c import x\n",
            "lightnote/c.py": "from . import a\nx = 1\n",
            "lightnote/d.py": "from lightnote import a\n",  # reaches the cycle, not part of it
        },
    )
    assert check(tree)[1] == [["lightnote.a", "lightnote.b", "lightnote.c"]]


def test_a_wing_that_imports_a_wing_above_it_is_caught(tmp_path: Path) -> None:
    tree = make_tree(
        tmp_path,
        {
            "lightnote/controlstore/store.py": "",
            "lightnote/rest/pagination.py": "from lightnote.controlstore import store\n",
            "lightnote/texts/i18n.py": "from lightnote.rest import pagination\n",
            "agent/cards/confirm.py": "",
            "agent/access.py": "from agent.cards import confirm\n",
        },
    )
    violations, _ = check(tree)
    assert sorted(violations) == [
        "agent.access:1 imports agent.cards.confirm: a wing imports only its own wing and the "
        "wings below it",
        "lightnote.texts.i18n:1 imports lightnote.rest.pagination: a wing imports only its own "
        "wing and the wings below it",
    ]


def test_the_app_root_imports_no_wing_but_a_composition_root_may(tmp_path: Path) -> None:
    tree = make_tree(
        tmp_path,
        {
            "agent/cards/confirm.py": "",
            "agent/policy.py": "from agent.cards import confirm\n",
            "agent/urls.py": "from agent.cards import confirm\n",
            "agent/continuations/store.py": "",
            "agent/cards/issue.py": "from agent.continuations import store\n",
        },
    )
    violations, _ = check(tree)
    assert violations == [
        "agent.policy:1 imports agent.cards.confirm: the agent root imports no wing "
        "(agent.cards.confirm is one)"
    ]
