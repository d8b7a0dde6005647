"""Records the store cannot vouch for: a claim lost to a failover, an altered continuation,
a success planted without a receipt. The receipt table has the last word in each."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent import control
from agent.cards import records as cards
from agent.cards import transitions as card_transitions
from agent.continuations import store as continuation_store
from agent.models import ActionReceipt, Message
from lightnote.controlstore.redis import get_redis
from tests.agent_helpers import (
    card_via_message,
    confirm,
    error_code,
    issue_card,
    open_session,
    receipts_for,
    restore_as_ready,
    token_client,
)
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db(transaction=True)

REPLY_URL = "/api/v1/agent/continuations/reply/"


def _settled_outcome(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["state"] == "settled"
    return body["outcome"]


# --- 1. a re-executed versioned write after a lost claim must answer from its receipt ------


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("update_todo", {"title": "新标题"}),
        ("set_todo_status", {"status": "done"}),
        ("delete_todo", {}),
    ],
)
def test_a_failover_that_lost_the_claim_of_a_versioned_write_answers_the_first_receipt(
    user: Any, tool: str, args: dict[str, Any]
) -> None:
    todo = todo_services.todo_create(owner=user, title="周报")
    issued = issue_card(user, tool=tool, args={"todo_id": str(todo.id), **args})
    client = token_client(user)
    session_id = issued.card.session_id
    first = _settled_outcome(confirm(client, issued.token, session_id))
    assert first["ok"] is True
    restore_as_ready(issued.token)  # a failover lost the claim and the settle

    # The second execution meets the bumped version (or the deleted row) before the receipt's
    # unique key; it must still answer from the receipt, never "failed".
    second = _settled_outcome(confirm(client, issued.token, session_id))

    assert second == first
    assert cards.card_get(issued.token).outcome_kind == "succeeded"  # type: ignore[union-attr]
    assert [r.status for r in receipts_for(issued.card.id)] == [ActionReceipt.Status.SUCCEEDED]
    if tool == "delete_todo":
        assert Todo.objects.count() == 0
    else:
        assert Todo.objects.get(pk=todo.pk).version == 2


# --- 2. a continuation past pending is still checked against its binding HMAC ------------


def test_an_altered_ready_continuation_never_reads_another_users_receipt(
    user: Any, other_user: Any
) -> None:
    bob_card = issue_card(other_user, args={"title": "鲍勃的绝密计划"})
    bob_outcome = _settled_outcome(
        confirm(token_client(other_user), bob_card.token, bob_card.card.session_id)
    )
    assert bob_outcome["ok"] is True
    alice = token_client(user)
    session_id = open_session(alice)
    card = card_via_message(alice, session_id)
    assert _settled_outcome(confirm(alice, card["token"], session_id))["ok"] is True
    continuation = continuation_store.continuation_get(card["continuation_token"])
    assert continuation is not None
    assert (
        continuation_store.continuation_activate(
            card["continuation_token"],
            receipt_action_id=continuation.action_id,
            receipt_status="succeeded",
        )
        == "ready"
    )
    # A party with raw Redis access points Alice's ready record at Bob's action.
    key = control.continuation_key(continuation.digest)
    record = json.loads(get_redis().hget(key, "record"))
    record["action_id"] = bob_card.card.id
    get_redis().hset(key, "record", json.dumps(record, ensure_ascii=False))

    response = alice.post(
        REPLY_URL,
        {"token": card["continuation_token"], "session_id": session_id},
        format="json",
    )

    assert response.status_code == 409, response.content
    assert error_code(response) == "CONTINUATION_NOT_READY"
    assert "鲍勃" not in response.content.decode()
    assert not Message.objects.filter(text__contains="鲍勃").exists()
    assert continuation_store.continuation_get(card["continuation_token"]).state == "ready"  # type: ignore[union-attr]


# --- 3. a success planted in Redis without a receipt is never repeated ----------------------


def test_a_success_planted_in_the_store_without_a_receipt_is_refused(user: Any) -> None:
    client = token_client(user)
    session_id = open_session(client)
    card = card_via_message(client, session_id)
    stored = cards.card_get(card["token"])
    assert stored is not None
    # Someone with write access to Redis claims and settles the card with a made-up receipt.
    assert card_transitions.card_claim(card["token"], attempt_id="forger").status == "claimed"
    fake = {"ok": True, "receipt": {"action_id": stored.id, "status": "succeeded"}}
    assert card_transitions.card_settle(
        card["token"], attempt_id="forger", outcome_kind="succeeded", outcome=fake
    )

    response = confirm(client, card["token"], session_id)

    assert response.status_code == 409
    assert error_code(response) == "CONFIRMATION_INVALID"
    assert Todo.objects.count() == 0
    assert receipts_for(stored.id) == []
    assert cards.card_get(card["token"]) is None  # destroyed: later calls answer 410
