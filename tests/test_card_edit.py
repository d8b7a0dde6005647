"""Edit before confirming (docs/api.md "Card ids, history, choices, edits, undo").

A ready card's editable values are merged, prepared again through the tool policy, issued as
a new card whose parent is the old one; the old token then answers 410 and never executes.
The race between an edit and confirms of the old token (real threads, Redis, MariaDB) ends
with exactly one execution in total.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connections
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from agent.cards.edit import edited_args
from agent.models import ActionCard, ActionReceipt
from agent.tools import registry
from lightnote.models import AuditEvent
from tests.agent_helpers import (
    CONFIRM_URL,
    confirm,
    error_code,
    flow_with_card,
    issue_card,
    reject,
    store_down,
    token_client,
)
from todos import services as todo_services
from todos.models import Todo

EDIT_URL = "/api/v1/agent/confirmations/edit/"

pytestmark = pytest.mark.django_db(transaction=True)


def edit(client: APIClient, token: str, session_id: str, args: Any) -> Any:
    return client.post(
        EDIT_URL, {"token": token, "session_id": session_id, "args": args}, format="json"
    )


def test_an_edited_card_executes_the_edited_values_and_the_old_token_never(user: Any) -> None:
    flow = flow_with_card(user)
    old_id = flow.card["card_id"]
    response = edit(
        flow.client, flow.token, flow.session_id, {"title": "交季度报告", "priority": "高"}
    )
    assert response.status_code == 200, response.content
    new = response.json()["card"]
    assert new["parent_id"] == old_id
    assert new["card_id"] != old_id
    assert new["token"] != flow.token
    assert new["state"] == "ready"
    assert new["args"]["title"] == "交季度报告"
    assert new["args"]["priority"] == 2
    assert new["args"]["due_at"] == flow.card["args"]["due_at"]  # kept from the old card
    assert new["preview"]["target"] == "交季度报告"

    old_answer = flow.confirm()
    assert old_answer.status_code == 410
    assert error_code(old_answer) == "CONFIRMATION_EXPIRED"
    assert edit(flow.client, flow.token, flow.session_id, {"title": "x"}).status_code == 410

    done = confirm(flow.client, new["token"], flow.session_id)
    assert done.status_code == 200, done.content
    assert done.json()["outcome"]["ok"] is True
    todo = Todo.objects.get()
    assert (todo.title, todo.priority) == ("交季度报告", 2)
    assert [str(a) for a in ActionReceipt.objects.values_list("action_id", flat=True)] == [
        new["card_id"]
    ]
    old_row = ActionCard.objects.get(id=old_id)
    assert (old_row.state, old_row.void_reason) == ("voided", "superseded")
    new_row = ActionCard.objects.get(id=new["card_id"])
    assert str(new_row.parent_id) == old_id
    assert new_row.message_id == old_row.message_id
    assert new_row.state == "settled"
    edited = AuditEvent.objects.get(event_type="card.edited")
    assert str(edited.action_id) == new["card_id"]
    assert edited.details["parent_id"] == old_id
    assert edited.details["fields"] == ["priority", "title"]


def test_a_due_time_in_words_is_prepared_again_in_the_users_zone(user: Any) -> None:
    flow = flow_with_card(user)
    response = edit(flow.client, flow.token, flow.session_id, {"due_at": "后天上午10点"})
    assert response.status_code == 200, response.content
    due = response.json()["card"]["args"]["due_at"]
    assert due != flow.card["args"]["due_at"]
    assert "T10:00:00" in due


def test_a_reminder_at_the_due_time_moves_with_an_edited_due_time(user: Any) -> None:
    flow = flow_with_card(user, "明天下午3点提醒我提交周报")
    assert flow.card["args"]["remind_at"] == flow.card["args"]["due_at"]
    response = edit(flow.client, flow.token, flow.session_id, {"due_at": "后天上午10点"})
    assert response.status_code == 200, response.content
    args = response.json()["card"]["args"]
    assert "T10:00:00" in args["due_at"]
    assert args["remind_at"] == args["due_at"]
    new = response.json()["card"]
    cleared = edit(flow.client, new["token"], flow.session_id, {"due_at": None})
    assert cleared.status_code == 200, cleared.content
    assert "remind_at" not in cleared.json()["card"]["args"]  # no due time, nothing to remind


def test_a_reminder_set_apart_from_the_due_time_stays_when_the_due_time_moves() -> None:
    prepared = {
        "title": "提交周报",
        "due_at": "2026-12-03T15:00:00+08:00",
        "remind_at": "2026-12-03T09:00:00+08:00",
    }
    edits = {"due_at": "后天上午10点"}
    args = edited_args(registry.get("create_todo"), prepared, edits)
    assert args["remind_at"] == "2026-12-03T09:00:00+08:00"
    assert args["due_at"] == "后天上午10点"


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"due_at": "某个时候"}, "TODO_DUE_AT_INVALID"),
        ({"title": "   "}, "TODO_TITLE_REQUIRED"),
        ({"priority": 7}, "TOOL_ARGS_INVALID"),
        ({"status": "done"}, "TOOL_ARGS_INVALID"),  # not an editable field
        ({"expected_version": 1}, "TOOL_ARGS_INVALID"),
    ],
)
def test_invalid_edits_answer_the_tools_code_and_change_nothing(
    user: Any, args: dict[str, Any], code: str
) -> None:
    flow = flow_with_card(user)
    response = edit(flow.client, flow.token, flow.session_id, args)
    assert response.status_code == 400, response.content
    assert error_code(response) == code
    assert ActionCard.objects.count() == 1
    assert ActionCard.objects.get().state == "ready"
    assert flow.confirm().json()["outcome"]["ok"] is True  # the old card still works


def test_an_update_card_edits_its_new_values_and_keeps_its_target(user: Any) -> None:
    todo = todo_services.todo_create(owner=user, title="周报", priority=1)
    client = token_client(user)
    issued = issue_card(user, tool="update_todo", args={"todo_id": str(todo.id), "priority": 2})
    session_id = issued.card.session_id
    response = edit(client, issued.token, session_id, {"title": "周报（终稿）"})
    assert response.status_code == 200, response.content
    args = response.json()["card"]["args"]
    assert (args["todo_id"], args["priority"], args["title"]) == (str(todo.id), 2, "周报（终稿）")
    # A delete card has nothing to edit.
    delete = issue_card(user, tool="delete_todo", args={"todo_id": str(todo.id)})
    refused = edit(client, delete.token, delete.card.session_id, {"title": "x"})
    assert (refused.status_code, error_code(refused)) == (400, "TOOL_ARGS_INVALID")


def test_edit_runs_confirms_checks_in_order(user: Any, other_user: Any) -> None:
    flow = flow_with_card(user)
    # body shape first, even unauthenticated
    assert APIClient().post(EDIT_URL, {"token": "x"}, format="json").status_code == 400
    assert edit(flow.client, flow.token, flow.session_id, {}).status_code == 400
    assert edit(flow.client, flow.token, flow.session_id, "title").status_code == 400
    assert edit(APIClient(), flow.token, flow.session_id, {"title": "a"}).status_code == 401
    with store_down():
        down = edit(flow.client, flow.token, flow.session_id, {"title": "a"})
    assert (down.status_code, error_code(down)) == (503, "CONFIRMATION_STORE_UNAVAILABLE")
    unknown = edit(flow.client, "no-such-token", flow.session_id, {"title": "a"})
    assert (unknown.status_code, error_code(unknown)) == (410, "CONFIRMATION_EXPIRED")
    other = flow_with_card(other_user)
    stolen = edit(other.client, flow.token, other.session_id, {"title": "a"})
    assert (stolen.status_code, error_code(stolen)) == (403, "CONFIRMATION_FORBIDDEN")
    assert ActionCard.objects.filter(state="ready").count() == 2


def test_a_rejected_or_settled_card_cannot_be_edited(user: Any) -> None:
    flow = flow_with_card(user)
    assert reject(flow.client, flow.token, flow.session_id).status_code == 200
    rejected = edit(flow.client, flow.token, flow.session_id, {"title": "a"})
    assert (rejected.status_code, error_code(rejected)) == (409, "CONFIRMATION_REJECTED")
    settled_flow = flow_with_card(user)
    assert settled_flow.confirm().status_code == 200
    settled = edit(settled_flow.client, settled_flow.token, settled_flow.session_id, {"title": "a"})
    assert (settled.status_code, error_code(settled)) == (409, "CONFIRMATION_ALREADY_CLAIMED")
    assert settled.json()["state"] == "settled"
    assert Todo.objects.count() == 1


THREADS = 50


@pytest.mark.services
def test_an_edit_racing_fifty_confirms_of_both_tokens_executes_once(
    user: Any, settings: Any
) -> None:
    """The edit races 25 confirms of the original token; then 25 confirm the edited token."""
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "1000/m"
    flow = flow_with_card(user)
    key = Token.objects.get(user=user).key
    half = THREADS // 2
    barrier = threading.Barrier(half + 1)
    edited: dict[str, Any] = {}

    def client() -> APIClient:
        fresh = APIClient()
        fresh.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        return fresh

    def confirm_old(_: int) -> tuple[int, bytes]:
        try:
            barrier.wait(timeout=30)
            response = client().post(
                CONFIRM_URL, {"token": flow.token, "session_id": flow.session_id}, format="json"
            )
            return response.status_code, response.content
        finally:
            connections.close_all()

    def do_edit() -> None:
        try:
            barrier.wait(timeout=30)
            response = edit(client(), flow.token, flow.session_id, {"title": "改过的标题"})
            edited["status"] = response.status_code
            edited["body"] = response.json()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=half + 1) as pool:
        editor = pool.submit(do_edit)
        old_answers = list(pool.map(confirm_old, range(half)))
        editor.result()

    new_answers: list[tuple[int, bytes]] = []
    if edited["status"] == 200:
        new_token = edited["body"]["card"]["token"]
        second = threading.Barrier(half)

        def confirm_new(_: int) -> tuple[int, bytes]:
            try:
                second.wait(timeout=30)
                response = client().post(
                    CONFIRM_URL, {"token": new_token, "session_id": flow.session_id}, format="json"
                )
                return response.status_code, response.content
            finally:
                connections.close_all()

        with ThreadPoolExecutor(max_workers=half) as pool:
            new_answers = list(pool.map(confirm_new, range(half)))
    else:
        assert edited["status"] == 409, edited
        assert edited["body"]["error"]["code"] == "CONFIRMATION_ALREADY_CLAIMED"

    assert Todo.objects.count() == 1
    assert ActionReceipt.objects.count() == 1
    statuses = {code for code, _ in old_answers + new_answers}
    assert statuses <= {200, 202, 410}, statuses
    if edited["status"] == 200:
        assert Todo.objects.get().title == "改过的标题"
        assert {code for code, _ in old_answers} <= {410}
        assert str(ActionReceipt.objects.get().action_id) == edited["body"]["card"]["card_id"]
        assert ActionCard.objects.filter(state="ready").count() == 0
    else:
        assert Todo.objects.get().title != "改过的标题"
        assert ActionCard.objects.count() == 1  # the new card was never recorded
