"""The web process serves MCP's streamable HTTP itself, at ``/mcp/`` (stateless, JSON).

So ``make run`` alone gives a working MCP endpoint whose cards the same process confirms:
the official SDK client talks to a real WSGI server (Django's, on a free port) over HTTP,
lists the tools, proposes, the owner confirms on the page, and the status shows the
receipt. ``mcp_serve`` refuses to start where its store could not be shared.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any

import mcp_types as types
import pytest
from asgiref.sync import async_to_sync
from django.core.management import call_command
from django.core.management.base import CommandError
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from mcpserver import gateway
from tests.mcp_helpers import confirm_on_page, mcp_key, page_client
from todos.models import Todo

pytestmark = pytest.mark.django_db(transaction=True)


def _over_http(url: str, key: str, name: str, arguments: dict[str, Any], mode: str) -> Any:
    async def main() -> Any:
        http_client = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
        async with (
            http_client,
            Client(
                streamable_http_client(url, http_client=http_client),
                mode=mode,  # type: ignore[arg-type]
                client_info=types.Implementation(name="web-client", version="1"),
            ) as client,
        ):
            listed = {tool.name for tool in (await client.list_tools()).tools}
            result = await client.call_tool(name, arguments)
            return listed, result

    return async_to_sync(main)()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_web_process_serves_mcp_and_confirms_its_own_cards(
    live_server: Any, user: Any, mode: str
) -> None:
    url = f"{live_server.url}/mcp/"
    key = mcp_key(user, "web")
    listed, result = _over_http(url, key, "create_todo", {"title": "Over the web"}, mode)
    assert {gateway.STATUS_TOOL, "create_todo", "query_todos"} <= listed
    card = result.structured_content
    assert card["kind"] == "card"
    assert Todo.objects.count() == 0
    assert confirm_on_page(page_client(user), card["card_id"]).status_code == 200
    _, status = _over_http(url, key, gateway.STATUS_TOOL, {"card_id": card["card_id"]}, mode)
    assert status.structured_content["state"] == "confirmed"
    assert Todo.objects.filter(title="Over the web").count() == 1


def _post(url: str, headers: dict[str, str]) -> tuple[int, dict[str, str]]:
    request = urllib.request.Request(  # noqa: S310 (the test's own http:// URL)
        url,
        data=b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            return int(response.status), dict(response.headers)
    except urllib.error.HTTPError as error:
        return int(error.code), dict(error.headers)


def test_the_web_endpoint_needs_a_bearer_mcp_token_and_a_trusted_origin(
    live_server: Any, user: Any
) -> None:
    url = f"{live_server.url}/mcp/"
    assert _post(url, {})[0] == 401
    assert _post(url, {"Authorization": "Bearer lnmcp_forged"})[0] == 401
    authorized = {"Authorization": f"Bearer {mcp_key(user)}"}
    assert _post(url, {**authorized, "Origin": "http://evil.example"})[0] == 403
    status, headers = _post(url, authorized)
    assert status == 200
    assert headers.get("X-Content-Type-Options") == "nosniff"


def test_mcp_serve_refuses_an_in_process_store(monkeypatch: Any, settings: Any, user: Any) -> None:
    monkeypatch.setenv("LIGHTNOTE_MCP_TOKEN", mcp_key(user))
    caches = {name: dict(config) for name, config in settings.CACHES.items()}
    caches["default"]["LOCATION"] = "fakeredis://embedded"
    settings.CACHES = caches
    for transport in ("stdio", "http"):
        with pytest.raises(CommandError, match="in-process"):
            call_command("mcp_serve", "--transport", transport)
