"""Undo (docs/api.md "Card ids, history, choices, edits, undo"): a card for the
compensating action of a succeeded card, within LIGHTNOTE_UNDO_WINDOW, version-checked."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from django.db import connections
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from agent.models import ActionCard, ActionReceipt
from lightnote.errors import LightNoteError
from lightnote.models import AuditEvent
from tests.agent_helpers import (
    confirm,
    error_code,
    flow_with_card,
    reject,
    send_message,
    token_client,
)
from todos import services as todo_services
from todos.models import Todo

UNDO_URL = "/api/v1/agent/confirmations/undo/"
RACERS = 8

pytestmark = pytest.mark.django_db(transaction=True)


def undo(client: APIClient, card_id: str, session_id: str) -> Any:
    return client.post(UNDO_URL, {"card_id": card_id, "session_id": session_id}, format="json")


def confirmed_card(client: APIClient, session_id: str, text: str) -> dict[str, Any]:
    [card] = send_message(client, session_id, text)["cards"]
    answer = confirm(client, card["token"], session_id)
    assert answer.json()["outcome"]["ok"] is True, answer.content
    return card


def test_undoing_a_create_issues_a_delete_card_that_moves_the_todo_to_the_trash(
    user: Any,
) -> None:
    flow = flow_with_card(user)
    assert flow.confirm().json()["outcome"]["ok"] is True
    todo = Todo.objects.get()
    response = undo(flow.client, flow.card["card_id"], flow.session_id)
    assert response.status_code == 200, response.content
    card = response.json()["card"]
    assert (card["tool"], card["state"]) == ("delete_todo", "ready")
    assert card["compensates_id"] == flow.card["card_id"]
    assert card["args"]["todo_id"] == str(todo.id)
    assert Todo.objects.count() == 1  # an undo card never executes by itself
    row = ActionCard.objects.get(id=card["card_id"])
    assert str(row.compensates_id) == flow.card["card_id"]
    done = confirm(flow.client, card["token"], flow.session_id)
    assert done.json()["outcome"]["ok"] is True, done.content
    assert Todo.objects.count() == 0
    assert Todo.all_objects.get(id=todo.id).deleted_at is not None
    assert ActionReceipt.objects.count() == 2
    event = AuditEvent.objects.get(event_type="card.undo_issued")
    assert event.details["compensates_id"] == flow.card["card_id"]
    again = undo(flow.client, flow.card["card_id"], flow.session_id)
    assert (again.status_code, error_code(again)) == (409, "UNDO_ALREADY_DONE")


def test_undoing_an_update_restores_the_previous_values_exactly(user: Any) -> None:
    due = timezone.now().replace(microsecond=0) + timedelta(days=2)
    todo = todo_services.todo_create(
        owner=user, title="周报", description="写给老板", priority=0, due_at=due
    )
    client = token_client(user)
    session_id = client.post("/api/v1/agent/sessions/", {}, format="json").json()["id"]
    card = confirmed_card(client, session_id, "把待办「周报」的优先级改成高")
    todo.refresh_from_db()
    assert todo.priority == 2
    response = undo(client, card["card_id"], session_id)
    assert response.status_code == 200, response.content
    undo_card = response.json()["card"]
    assert undo_card["tool"] == "update_todo"
    assert undo_card["args"]["priority"] == 0
    assert confirm(client, undo_card["token"], session_id).json()["outcome"]["ok"] is True
    todo.refresh_from_db()
    assert (todo.title, todo.description, todo.priority, todo.due_at) == (
        "周报",
        "写给老板",
        0,
        due,
    )


def test_a_change_after_the_undo_card_fails_its_execution_with_a_version_conflict(
    user: Any,
) -> None:
    todo = todo_services.todo_create(owner=user, title="周报", priority=0)
    client = token_client(user)
    session_id = client.post("/api/v1/agent/sessions/", {}, format="json").json()["id"]
    card = confirmed_card(client, session_id, "把待办「周报」的优先级改成高")
    undo_card = undo(client, card["card_id"], session_id).json()["card"]
    todo.refresh_from_db()
    todo_services.todo_update(
        owner=user, todo_id=todo.id, expected_version=todo.version, title="周报（新）"
    )
    answer = confirm(client, undo_card["token"], session_id).json()["outcome"]
    assert answer["ok"] is False
    assert answer["error"]["code"] == "TODO_VERSION_CONFLICT"
    todo.refresh_from_db()
    assert (todo.title, todo.priority) == ("周报（新）", 2)  # nothing overwritten
    # A change before the undo is asked for: refused at once, no card.
    later = undo(client, card["card_id"], session_id)
    assert (later.status_code, error_code(later)) == (409, "UNDO_VERSION_CONFLICT")


def test_undoing_a_status_change_sets_the_opposite_status(user: Any) -> None:
    todo_services.todo_create(owner=user, title="周报")
    client = token_client(user)
    session_id = client.post("/api/v1/agent/sessions/", {}, format="json").json()["id"]
    card = confirmed_card(client, session_id, "完成待办「周报」")
    assert Todo.objects.get().status == "done"
    undo_card = undo(client, card["card_id"], session_id).json()["card"]
    assert (undo_card["tool"], undo_card["args"]["status"]) == ("set_todo_status", "open")
    assert confirm(client, undo_card["token"], session_id).json()["outcome"]["ok"] is True
    assert Todo.objects.get().status == "open"


def test_undo_refusals(user: Any, other_user: Any, settings: Any) -> None:
    flow = flow_with_card(user)
    pending = undo(flow.client, flow.card["card_id"], flow.session_id)
    assert (pending.status_code, error_code(pending)) == (409, "UNDO_NOT_SUCCEEDED")
    assert reject(flow.client, flow.token, flow.session_id).status_code == 200
    rejected = undo(flow.client, flow.card["card_id"], flow.session_id)
    assert (rejected.status_code, error_code(rejected)) == (409, "UNDO_NOT_SUCCEEDED")
    assert rejected.json()["state"] == "rejected"

    done = flow_with_card(user)
    assert done.confirm().json()["outcome"]["ok"] is True
    assert undo(APIClient(), done.card["card_id"], done.session_id).status_code == 401
    assert undo(done.client, "not-a-uuid", done.session_id).status_code == 400
    other = flow_with_card(other_user)
    theirs = undo(other.client, done.card["card_id"], other.session_id)
    assert (theirs.status_code, error_code(theirs)) == (404, "CARD_NOT_FOUND")
    foreign_session = undo(other.client, done.card["card_id"], done.session_id)
    assert foreign_session.status_code == 404
    ActionCard.objects.filter(id=done.card["card_id"]).update(
        settled_at=timezone.now() - timedelta(seconds=settings.LIGHTNOTE_UNDO_WINDOW + 1)
    )
    late = undo(done.client, done.card["card_id"], done.session_id)
    assert (late.status_code, error_code(late)) == (410, "CONFIRMATION_EXPIRED")
    assert ActionCard.objects.filter(compensates__isnull=False).count() == 0


def test_asking_for_an_undo_twice_leaves_one_live_undo_card(user: Any) -> None:
    flow = flow_with_card(user)
    assert flow.confirm().json()["outcome"]["ok"] is True
    first = undo(flow.client, flow.card["card_id"], flow.session_id).json()["card"]
    second = undo(flow.client, flow.card["card_id"], flow.session_id).json()["card"]
    assert first["card_id"] != second["card_id"]
    stale = confirm(flow.client, first["token"], flow.session_id)
    assert (stale.status_code, error_code(stale)) == (410, "CONFIRMATION_EXPIRED")
    assert ActionCard.objects.get(id=first["card_id"]).state == "voided"
    assert confirm(flow.client, second["token"], flow.session_id).json()["outcome"]["ok"] is True
    assert Todo.objects.count() == 0


@pytest.mark.services
def test_undo_requests_racing_for_one_card_leave_one_live_undo_card(
    user: Any, settings: Any
) -> None:
    """A double click (here eight requests at once, real threads on MariaDB and Redis):
    every request gets a card, as if they came one after another, and only the last one
    issued stays live; the others answer 410, and the undo runs once."""
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "1000/m"
    flow = flow_with_card(user)
    assert flow.confirm().json()["outcome"]["ok"] is True
    key = Token.objects.get(user=user).key
    barrier = threading.Barrier(RACERS)

    def ask(_: int) -> Any:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
            barrier.wait(timeout=30)
            return undo(client, flow.card["card_id"], flow.session_id)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=RACERS) as pool:
        answers = list(pool.map(ask, range(RACERS)))

    assert [answer.status_code for answer in answers] == [200] * RACERS
    issued = [answer.json()["card"] for answer in answers]
    rows = ActionCard.objects.filter(compensates_id=flow.card["card_id"])
    assert rows.count() == RACERS
    [live] = rows.filter(state=ActionCard.State.READY)
    assert set(rows.exclude(id=live.id).values_list("void_reason", flat=True)) == {"superseded"}
    for card in issued:
        answer = confirm(flow.client, card["token"], flow.session_id)
        if card["card_id"] == str(live.id):
            assert answer.json()["outcome"]["ok"] is True, answer.content
        else:
            assert (answer.status_code, error_code(answer)) == (410, "CONFIRMATION_EXPIRED")
    assert Todo.objects.count() == 0
    assert ActionReceipt.objects.filter(action_id=live.id).count() == 1


def test_an_undo_waits_for_one_being_issued_and_then_answers_busy(user: Any) -> None:
    """The turn-taking lease (``agent.control.one_at_a_time``): held by another request,
    an undo waits, then answers 409 UNDO_BUSY with Retry-After; once given back, it goes on;
    a holder that never gives it back is outlived by its TTL."""
    from agent import control

    flow = flow_with_card(user)
    assert flow.confirm().json()["outcome"]["ok"] is True
    name = f"undo:{flow.card['card_id']}"
    with control.one_at_a_time(name, busy_code="UNDO_BUSY"):
        busy = undo(flow.client, flow.card["card_id"], flow.session_id)
    assert (busy.status_code, error_code(busy)) == (409, "UNDO_BUSY")
    assert busy["Retry-After"] == "1"
    assert not ActionCard.objects.filter(compensates__isnull=False).exists()
    assert undo(flow.client, flow.card["card_id"], flow.session_id).status_code == 200

    with (
        control.one_at_a_time("held-by-the-test", busy_code="X_BUSY"),
        pytest.raises(LightNoteError) as refused,
        control.one_at_a_time("held-by-the-test", busy_code="X_BUSY", wait_ms=50),
    ):
        pass
    assert (refused.value.code, refused.value.status) == ("X_BUSY", 409)

    # A holder that died: its lease expires after its ttl, and the next request takes it.
    lease = control.store.record_key(control.LEASE_KEY_PREFIX, "abandoned")
    control.store.record_create(lease, state="held", record_json='{"holder":"gone"}', ttl_ms=100)
    with control.one_at_a_time("abandoned", busy_code="X_BUSY", wait_ms=2_000):
        pass
