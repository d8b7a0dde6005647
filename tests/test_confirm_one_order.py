"""Every entry point confirms through one function, in one order (docs/api.md "Confirming").

The steps of ``agent.cards.confirm.confirm`` are recorded as they run (each step function is
wrapped where the confirm looks it up), for a confirm through the REST API, the chat page
and the MCP confirmation page; the three sequences are the same, and are the contract's.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from agent import policy
from agent.cards import checks as confirm_checks
from agent.cards import confirm as execution
from agent.cards import history as lifecycle
from agent.cards import records as cards
from agent.cards import transitions as card_transitions
from tests.agent_helpers import confirm, flow_with_card, token_client
from tests.mcp_helpers import confirm_on_page, mcp_key, memory_server, page_client, propose
from tests.test_chat_page import card_form, post_card, send

pytestmark = pytest.mark.django_db

# (module, attribute, step): where the confirm looks each step up.
STEPS = (
    (cards, "card_get", "record"),
    (confirm_checks, "session_access", "session"),
    (confirm_checks, "_check_owner_and_binding", "owner, session, binding"),
    (execution, "answer_for_state", "state"),
    (execution, "new_claim_unit", "rate limit"),
    (card_transitions, "card_claim", "claim"),
    (execution, "execute_claimed", "execute"),
    (policy, "enforce_tool_policy", "policy"),
    (lifecycle, "record_succeeded", "receipt"),
    (card_transitions, "card_settle", "settle"),
)
THE_ORDER = [
    "record",
    "session",
    "owner, session, binding",
    "state",
    "rate limit",
    "claim",
    "execute",
    "policy",
    "receipt",
    "settle",
]


@pytest.fixture
def steps(monkeypatch: Any) -> list[str]:
    taken: list[str] = []
    for module, name, step in STEPS:
        original = getattr(module, name)

        def recorded(*args: Any, __original: Any = original, __step: str = step, **kw: Any) -> Any:
            taken.append(__step)
            return __original(*args, **kw)

        monkeypatch.setattr(module, name, recorded)
    return taken


def test_an_api_confirm_takes_the_contract_s_steps_in_order(user: Any, steps: list[str]) -> None:
    flow = flow_with_card(user)
    steps.clear()
    assert confirm(token_client(user), flow.token, flow.session_id).status_code == 200
    assert steps == THE_ORDER


def test_a_chat_page_confirm_takes_the_same_steps(user: Any, steps: list[str]) -> None:
    page = Client()
    page.force_login(user)
    form = card_form(send(page).content.decode())
    steps.clear()
    assert post_card(page, "/chat/confirm/", form).status_code == 200
    assert steps == THE_ORDER


def test_an_mcp_page_confirm_takes_the_same_steps(user: Any, steps: list[str]) -> None:
    card = propose(memory_server(mcp_key(user)))
    client = page_client(user)
    steps.clear()
    assert confirm_on_page(client, card["card_id"]).status_code == 200
    # The page reads the card to render itself (before and after the confirm: "record"
    # alone); the confirm's own steps are the contract's, in one run.
    runs = [steps[i : i + len(THE_ORDER)] for i in range(len(steps))]
    assert THE_ORDER in runs, steps
    assert [step for step in steps if step != "record"] == THE_ORDER[1:], steps


def test_a_repeat_stops_at_the_state_and_never_claims(user: Any, steps: list[str]) -> None:
    flow = flow_with_card(user)
    client = token_client(user)
    assert confirm(client, flow.token, flow.session_id).status_code == 200
    steps.clear()
    assert confirm(client, flow.token, flow.session_id).status_code == 200
    assert steps == THE_ORDER[:4]
