"""MCP token scopes, and one conversation per token.

A token is ``read`` (the read tools, ``card_status``, ``list_capabilities``) or ``propose``
(the default: reads and proposals), chosen when it is made (the command, the settings page)
and shown in the token list. Its proposals, from any of its MCP sessions, go to one
conversation, opened by the first proposal — never by a bare ``tools/list``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from mcp import Client as McpClient

from agent.models import AgentSession
from agent.tools import registry
from mcpserver import gateway
from mcpserver.models import McpCard, McpToken
from tests.mcp_helpers import call, memory_server, propose, with_client

pytestmark = pytest.mark.django_db
READS = {tool.name for tool in registry.tools() if not tool.is_write}


def _key(user: Any, **options: Any) -> str:
    from mcpserver.tokens import mcp_token_create

    return mcp_token_create(owner=user, name="t", **options)[1]


def _listed(server: Any) -> set[str]:
    async def scenario(client: McpClient) -> Any:
        return await client.list_tools()

    return {tool.name for tool in with_client(server, scenario).tools}


def test_a_read_token_lists_and_runs_only_reads(user: Any) -> None:
    server = memory_server(_key(user, scope="read"))
    assert _listed(server) == READS | {gateway.STATUS_TOOL, gateway.CAPABILITIES_TOOL}
    assert not call(server, "query_todos", {}).is_error
    refused = call(server, "create_todo", {"title": "no"})
    assert refused.is_error
    assert refused.structured_content["error"]["code"] == "MCP_TOKEN_READ_ONLY"
    assert not McpCard.objects.exists()


def test_a_token_proposes_by_default(user: Any) -> None:
    key = _key(user)
    assert McpToken.objects.get().scope == "propose"
    assert propose(memory_server(key))["kind"] == "card"


def test_the_command_chooses_the_scope_and_lists_it(user: Any, capsys: Any) -> None:
    call_command("mcp_token", "create", "--user", user.username, "--name", "r", "--scope", "read")
    assert McpToken.objects.get().scope == "read"
    capsys.readouterr()
    call_command("mcp_token", "list", "--user", user.username)
    assert "\tread\t" in capsys.readouterr().out


def test_the_settings_page_chooses_the_scope_and_shows_it(user: Any) -> None:
    client = Client()
    client.force_login(user)
    page = client.post(
        "/settings/mcp/", {"name": "reader", "scope": "read"}, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert page.status_code == 201
    assert McpToken.objects.get().scope == "read"
    assert b'name="scope"' in page.content
    assert b"Read only" in page.content
    refused = client.post("/settings/mcp/", {"name": "x", "scope": "admin"})
    assert refused.status_code == 400
    assert McpToken.objects.count() == 1


def test_listing_tools_opens_no_conversation_and_the_first_proposal_does(user: Any) -> None:
    key = _key(user)
    server = memory_server(key)
    _listed(server)
    assert not call(server, "query_todos", {}).is_error
    assert not AgentSession.objects.exists()
    propose(server)
    assert AgentSession.objects.count() == 1


def test_every_session_of_one_token_proposes_into_one_conversation(user: Any) -> None:
    key = _key(user)
    first, second = memory_server(key), memory_server(key)
    propose(first)
    propose(second)
    propose(memory_server(_key(user)))  # another token: its own conversation
    sessions = {card.mcp_session.agent_session_id for card in McpCard.objects.all()}
    assert len(sessions) == 2
    assert AgentSession.objects.count() == 2
