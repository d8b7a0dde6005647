"""Helpers for the MCP server tests: a token, an SDK client session, the card page."""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import mcp_types as types
from asgiref.sync import async_to_sync
from django.test import Client as PageClient
from mcp import Client

from mcpserver.models import McpCard, McpSession
from mcpserver.server import Binding, build_server
from mcpserver.tokens import mcp_token_create

T = TypeVar("T")
CLIENT_NAME = "pytest-mcp-client"
CSRF_FIELD = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')


def mcp_key(user: Any, name: str = "test client") -> str:
    """Create an MCP token for ``user`` and return its raw key."""
    return mcp_token_create(owner=user, name=name)[1]


def memory_server(key: str, **binding: Any) -> Any:
    """Return an in-process MCP server authenticated by ``key`` (one MCP session)."""
    return build_server(Binding(transport=McpSession.Transport.MEMORY, key=key, **binding))


def with_client(
    server: Any,
    scenario: Callable[[Client], Awaitable[T]],
    *,
    mode: str = "auto",
    elicitation_callback: Any = None,
) -> T:
    """Run ``scenario`` with the SDK's own client connected to ``server`` in-process.

    ``async_to_sync`` keeps the server's thread-sensitive database calls on this thread,
    so they see the test's transaction.
    """

    async def main() -> T:
        async with Client(
            server,
            mode=mode,  # type: ignore[arg-type]
            client_info=types.Implementation(name=CLIENT_NAME, version="9.9"),
            elicitation_callback=elicitation_callback,
        ) as client:
            return await scenario(client)

    return async_to_sync(main)()


def call(server: Any, name: str, arguments: dict[str, Any] | None = None) -> Any:
    """Call one tool and return its ``CallToolResult``."""

    async def scenario(client: Client) -> Any:
        return await client.call_tool(name, arguments or {})

    return with_client(server, scenario)


def propose(server: Any, name: str = "create_todo", **arguments: Any) -> dict[str, Any]:
    """Propose a write and return the card (structured content)."""
    result = call(server, name, arguments or {"title": "Submit the weekly report"})
    assert not result.is_error, result.structured_content
    card = result.structured_content
    assert card["kind"] == "card"
    return card


def card_path(card_id: str) -> str:
    return f"/cards/{card_id}/"


def page_client(user: Any) -> PageClient:
    """Return a browser-like client logged in as ``user`` that enforces CSRF."""
    client = PageClient(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def csrf_from(page: Any) -> str:
    match = CSRF_FIELD.search(page.content)
    assert match, "the page has no CSRF field"
    return match.group(1).decode()


def confirm_on_page(client: PageClient, card_id: str, action: str = "confirm") -> Any:
    """Open the card page, then post its form (with the page's CSRF token)."""
    page = client.get(card_path(card_id))
    assert page.status_code == 200
    return client.post(f"{card_path(card_id)}{action}/", {"csrfmiddlewaretoken": csrf_from(page)})


def sealed_token(card_id: str) -> str:
    """Return the card's confirm token (tests only: to check it never leaves the server)."""
    from mcpserver import sealing

    row = McpCard.objects.get(card_id=card_id)
    token = sealing.unseal(row.sealed_token, card_id=card_id)
    assert token
    return token


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serving_http() -> Iterator[str]:
    """Serve the MCP HTTP app (as ``mcp_serve --transport http``) under uvicorn on a free
    port; yield its /mcp URL."""
    import uvicorn

    from mcpserver.http import build_http_app

    port = free_port()
    app = build_http_app(f"127.0.0.1:{port}")
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="on", log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(timeout=20)
