"""What the MCP server tells the person and the client, checked with the official SDK client.

- The card page names the client as untrusted data: the token's own name first, then "a
  client that calls itself «…»", on one line, at most 40 characters of the client's name.
- A retry with ``requestState`` after the person confirmed or rejected answers the card's
  real state, never "pending".
- A card whose seal fails, or that the store does not hold before its expiry (a process
  that does not share the store, a different secret key), "cannot be verified" (and the
  operator's log says why), not "expired".
- An unknown tool and a cursor the server never gave are JSON-RPC -32602 errors.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import mcp_types as types
import pytest
import time_machine
from asgiref.sync import async_to_sync
from django.utils import timezone
from mcp import Client
from mcp.shared.exceptions import MCPError

from agent.cards import transitions as card_transitions
from mcpserver.models import McpCard
from tests.mcp_helpers import (
    call,
    card_path,
    confirm_on_page,
    mcp_key,
    memory_server,
    page_client,
    propose,
    sealed_token,
    with_client,
)

pytestmark = pytest.mark.django_db
INVALID_PARAMS = -32602
HOSTILE_NAME = "LightNote Security Team: this change is PRE-APPROVED, press Confirm " * 3


def _propose_as(server: Any, client_name: str) -> dict[str, Any]:
    async def main() -> Any:
        async with Client(
            server, client_info=types.Implementation(name=client_name, version="1")
        ) as client:
            return await client.call_tool("create_todo", {"title": "Pay the rent"})

    result = async_to_sync(main)()
    assert not result.is_error, result.structured_content
    return result.structured_content


def test_the_page_names_the_token_first_and_the_client_as_untrusted_data(user: Any) -> None:
    server = memory_server(mcp_key(user, name="Laptop"))
    card = _propose_as(server, HOSTILE_NAME)
    page = page_client(user).get(card_path(card["card_id"]), HTTP_ACCEPT_LANGUAGE="en")
    text = page.content.decode()
    intro = text.split('<p class="intro">', 1)[1].split("</p>", 1)[0]
    assert "\n" not in intro
    assert intro.index("Laptop") < intro.index("a client that calls itself «")
    quoted = intro.split("«", 1)[1].split("»", 1)[0]
    assert len(quoted) <= 40
    assert quoted.endswith("…")
    assert "press Confirm" not in intro


@pytest.mark.parametrize(("action", "state"), [("confirm", "confirmed"), ("reject", "rejected")])
def test_a_retry_with_request_state_answers_the_cards_real_state(
    user: Any, action: str, state: str
) -> None:
    server = memory_server(mcp_key(user))
    card = propose(server)
    assert confirm_on_page(page_client(user), card["card_id"], action).status_code == 200

    async def retry(client: Client) -> Any:
        return await client.call_tool(
            "create_todo", {"title": "Submit the weekly report"}, request_state=card["card_id"]
        )

    answer = with_client(server, retry).structured_content
    assert answer["card_id"] == card["card_id"]
    assert answer["state"] == state
    assert McpCard.objects.count() == 1


def test_a_broken_seal_cannot_be_verified_and_the_log_says_why(user: Any, caplog: Any) -> None:
    server = memory_server(mcp_key(user))
    card_id = propose(server)["card_id"]
    McpCard.objects.filter(card_id=card_id).update(sealed_token="AAAA" + "A" * 40)
    with caplog.at_level(logging.ERROR, logger="mcpserver"):
        page = page_client(user).get(card_path(card_id), HTTP_ACCEPT_LANGUAGE="en")
    assert b"cannot be verified" in page.content
    assert b"expired" not in page.content
    assert any("seal" in record.getMessage() for record in caplog.records)
    status = call(server, "card_status", {"card_id": card_id}).structured_content
    assert status["state"] == "unverifiable"


def test_a_card_the_store_lost_before_its_expiry_cannot_be_verified(user: Any, caplog: Any) -> None:
    server = memory_server(mcp_key(user))
    card_id = propose(server)["card_id"]
    card_transitions.card_destroy(sealed_token(card_id))  # another store, or a flushed one
    with caplog.at_level(logging.ERROR, logger="mcpserver"):
        page = page_client(user).get(card_path(card_id), HTTP_ACCEPT_LANGUAGE="en")
    assert b"cannot be verified" in page.content
    assert any("store" in record.getMessage() for record in caplog.records)
    status = call(server, "card_status", {"card_id": card_id}).structured_content
    assert status["state"] == "unverifiable"


def test_a_card_gone_after_its_expiry_is_expired(user: Any) -> None:
    server = memory_server(mcp_key(user))
    card_id = propose(server)["card_id"]
    card_transitions.card_destroy(sealed_token(card_id))
    with time_machine.travel(timezone.now() + timedelta(hours=2), tick=False):
        status = call(server, "card_status", {"card_id": card_id}).structured_content
    assert status["state"] == "expired"


def test_an_unknown_tool_is_a_json_rpc_invalid_params_error(user: Any) -> None:
    async def scenario(client: Client) -> Any:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("format_disk", {})
        return refused.value

    assert with_client(memory_server(mcp_key(user)), scenario).error.code == INVALID_PARAMS


def test_a_cursor_the_server_never_gave_is_invalid_params(user: Any) -> None:
    async def scenario(client: Client) -> Any:
        with pytest.raises(MCPError) as refused:
            await client.list_tools(cursor="bogus")
        return refused.value

    assert with_client(memory_server(mcp_key(user)), scenario).error.code == INVALID_PARAMS


def test_a_client_name_with_control_characters_still_opens_its_conversation(user: Any) -> None:
    card = _propose_as(memory_server(mcp_key(user)), "evil\x00\u202ename")
    assert card["kind"] == "card"
