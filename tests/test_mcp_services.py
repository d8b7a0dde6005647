"""The MCP server against the real MariaDB and Redis: races, stdio and streamable HTTP.

- 50 threads confirm one MCP card on its page at once (each its own browser session, CSRF
  token and database connection): one execution, one receipt.
- ``manage.py mcp_serve`` runs as a subprocess over stdio against the test database; the
  SDK's client lists the tools, proposes, and after the page confirm reads the receipt.
- The streamable HTTP app runs under uvicorn: bearer MCP tokens per request, Host and
  Origin checks, and the same propose -> confirm -> status flow with the SDK's client.
"""

from __future__ import annotations

import os
import sys
import threading
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import mcp_types as types
import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.db import connections
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from agent.models import ActionReceipt
from agent.tools import registry
from lightnote.models import AuditEvent
from mcpserver import gateway
from mcpserver.models import McpSession
from tests.mcp_helpers import (
    CLIENT_NAME,
    card_path,
    confirm_on_page,
    csrf_from,
    mcp_key,
    memory_server,
    page_client,
    propose,
    serving_http,
)
from todos import services as todo_services
from todos.models import Todo

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

THREADS = 50
TOOL_NAMES = {tool.name for tool in registry.tools()} | {
    gateway.STATUS_TOOL,
    gateway.CAPABILITIES_TOOL,
}


@pytest.fixture(autouse=True)
def _generous_claim_limit(settings: Any) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "1000/m"


def test_fifty_threads_confirming_one_mcp_card_on_its_page_execute_it_once(user: Any) -> None:
    card_id = propose(memory_server(mcp_key(user)))["card_id"]
    browsers = []
    for _ in range(THREADS):
        browser = page_client(user)
        browsers.append((browser, csrf_from(browser.get(card_path(card_id)))))
    connections.close_all()
    barrier = threading.Barrier(THREADS)

    def confirm_once(index: int) -> int:
        browser, csrf = browsers[index]
        try:
            barrier.wait(timeout=30)
            response = browser.post(f"{card_path(card_id)}confirm/", {"csrfmiddlewaretoken": csrf})
            return response.status_code
        finally:
            connections.close_all()  # this thread's own connection

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        statuses = Counter(pool.map(confirm_once, range(THREADS)))

    assert set(statuses) <= {200, 202}, statuses  # no 4xx, no 5xx
    assert Todo.objects.count() == 1
    assert [str(a) for a in ActionReceipt.objects.values_list("action_id", flat=True)] == [card_id]
    assert AuditEvent.objects.filter(action_id=card_id, event_type="action.executed").count() == 1


# --- stdio ----------------------------------------------------------------------------------


def _server_env(**extra: str) -> dict[str, str]:
    """The environment of a real ``mcp_serve`` process sharing this test's database."""
    database = settings.DATABASES["default"]
    url = (
        f"mysql://{database['USER']}:{database['PASSWORD']}@{database['HOST']}:"
        f"{database['PORT']}/{database['NAME']}"
    )
    return {
        "PATH": os.environ.get("PATH", ""),
        "DJANGO_SETTINGS_MODULE": "lightnote.settings",
        "LIGHTNOTE_DATABASE_URL": url,
        "LIGHTNOTE_REDIS_URL": settings.REDIS_URL,
        "LIGHTNOTE_SECRET_KEY": settings.SECRET_KEY,
        "LIGHTNOTE_HTTPS": "0",
        "LIGHTNOTE_PLANNER": "rules",
        "LIGHTNOTE_LOG_LEVEL": "WARNING",
        **extra,
    }


def test_stdio_server_lists_proposes_and_reports_the_receipt(user: Any) -> None:
    key = mcp_key(user, "stdio")
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp_serve"],
        env=_server_env(LIGHTNOTE_MCP_TOKEN=key),
        cwd=str(settings.BASE_DIR),
    )

    async def over_stdio() -> tuple[set[str], dict[str, Any], dict[str, Any]]:
        async with Client(
            parameters, client_info=types.Implementation(name=CLIENT_NAME, version="1")
        ) as client:
            listed = {tool.name for tool in (await client.list_tools()).tools}
            result = await client.call_tool("create_todo", {"title": "From a desktop client"})
            card = result.structured_content
            assert await sync_to_async(Todo.objects.count)() == 0
            # The person confirms in LightNote while the client session stays open.
            page = await sync_to_async(
                lambda: confirm_on_page(page_client(user), card["card_id"])
            )()
            assert page.status_code == 200
            status = await client.call_tool(gateway.STATUS_TOOL, {"card_id": card["card_id"]})
            return listed, card, status.structured_content

    listed, card, status = async_to_sync(over_stdio)()
    assert listed == TOOL_NAMES
    assert card["kind"] == "card"
    assert Todo.objects.filter(title="From a desktop client").count() == 1
    session = McpSession.objects.get()
    assert (session.transport, session.client_name) == ("stdio", CLIENT_NAME)
    assert status["state"] == "confirmed"
    assert status["receipt"]["action_id"] == card["card_id"]


# --- streamable HTTP --------------------------------------------------------------------------


@pytest.fixture
def http_server() -> Iterator[str]:
    """Serve the MCP HTTP app under uvicorn on a free port; yield its /mcp URL."""
    with serving_http() as url:
        yield url


def _raw_post(
    url: str, headers: dict[str, str], body: bytes = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
) -> int:
    return _raw_exchange(url, headers, body)[0]


def _raw_exchange(url: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, str]]:
    request = urllib.request.Request(  # noqa: S310 - a local test server
        url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            return int(response.status), {k.lower(): v for k, v in response.headers.items()}
    except urllib.error.HTTPError as error:
        return int(error.code), {}


def test_http_transport_requires_a_bearer_mcp_token_and_checks_host_and_origin(
    http_server: str, user: Any
) -> None:
    key = mcp_key(user, "http")
    assert _raw_post(http_server, {}) == 401
    assert _raw_post(http_server, {"Authorization": "Bearer lnmcp_forged"}) == 401
    api_token = "0123456789abcdef0123456789abcdef01234567"
    assert _raw_post(http_server, {"Authorization": f"Token {api_token}"}) == 401
    authorized = {"Authorization": f"Bearer {key}"}
    assert _raw_post(http_server, {**authorized, "Origin": "http://evil.example"}) == 403
    assert _raw_post(http_server, {**authorized, "Host": "evil.example"}) == 421


def test_http_transport_proposes_and_reports_the_receipt(http_server: str, user: Any) -> None:
    key = mcp_key(user, "http")
    todo_services.todo_create(owner=user, title="Already here")

    async def over_http(name: str, arguments: dict[str, Any]) -> Any:
        http_client = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
        async with (
            http_client,
            Client(
                streamable_http_client(http_server, http_client=http_client),
                client_info=types.Implementation(name="http-client", version="1"),
            ) as client,
        ):
            listed = {tool.name for tool in (await client.list_tools()).tools}
            result = await client.call_tool(name, arguments)
            return listed, result.structured_content

    listed, read = async_to_sync(over_http)("query_todos", {})
    assert listed == TOOL_NAMES
    assert read["content_trust"] == "untrusted"
    _, card = async_to_sync(over_http)("create_todo", {"title": "Over HTTP"})
    assert card["kind"] == "card"
    assert Todo.objects.count() == 1
    assert confirm_on_page(page_client(user), card["card_id"]).status_code == 200
    _, status = async_to_sync(over_http)(gateway.STATUS_TOOL, {"card_id": card["card_id"]})
    assert status["state"] == "confirmed"
    assert status["receipt"]["action_id"] == card["card_id"]
    assert Todo.objects.filter(title="Over HTTP").count() == 1
    assert McpSession.objects.filter(transport="http").exists()


def test_an_http_session_answers_only_the_token_that_opened_it(
    http_server: str, user: Any, other_user: Any
) -> None:
    initialize = (
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
        b'"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}'
    )
    alice = {"Authorization": f"Bearer {mcp_key(user, 'a')}"}
    status, headers = _raw_exchange(http_server, alice, initialize)
    assert status == 200
    session = {"Mcp-Session-Id": headers["mcp-session-id"]}
    assert _raw_post(http_server, {**alice, **session}) == 200
    alices_second = {"Authorization": f"Bearer {mcp_key(user, 'b')}"}
    bob = {"Authorization": f"Bearer {mcp_key(other_user)}"}
    assert _raw_post(http_server, {**alices_second, **session}) == 404
    assert _raw_post(http_server, {**bob, **session}) == 404


def test_http_admin_context_header_reads_the_subject_and_refuses_writes(
    http_server: str, user: Any, make_user: Any
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from lightnote.models import AdminContext
    from mcpserver.models import McpCard

    staff = make_user("staff", is_staff=True)
    context = AdminContext.objects.create(
        staff=staff, subject=user, expires_at=timezone.now() + timedelta(minutes=10)
    )
    todo_services.todo_create(owner=user, title="Alice's plan")
    headers = {"Authorization": f"Bearer {mcp_key(staff)}", "X-Admin-Context": str(context.id)}

    async def over_http() -> tuple[Any, Any]:
        http_client = create_mcp_http_client(headers=headers)
        async with (
            http_client,
            Client(streamable_http_client(http_server, http_client=http_client)) as client,
        ):
            read = await client.call_tool("query_todos", {})
            write = await client.call_tool("create_todo", {"title": "sneaky"})
            return read.structured_content, write.structured_content

    read, write = async_to_sync(over_http)()
    assert "Alice's plan" in str(read["data"])
    assert write["error"]["code"] == "ADMIN_READONLY"
    assert McpCard.objects.count() == 0
