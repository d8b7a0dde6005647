"""Issue 15, undo grows: a delete comes back from the trash, notes can be undone.

Undo of ``delete_todo`` issues a card for the internal ``restore_todo`` (version-checked);
undo of ``create_note`` a card for the internal ``discard_note`` (to the trash); undo of
``update_note`` puts back the full previous values (not the card's excerpt). Internal tools
are compensation-only: a planner, a model or an MCP client naming one is refused.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from agent.models import ActionCard
from agent.policy import enforce_tool_policy
from agent.tools import ToolContext
from lightnote.errors import LightNoteError
from notes import services as note_services
from notes.models import Note
from tests.agent_helpers import confirm, error_code, send_message, token_client
from tests.fake_openai import FakeOpenAI, tool_call
from todos import services as todo_services
from todos.models import Todo

UNDO_URL = "/api/v1/agent/confirmations/undo/"

pytestmark = pytest.mark.django_db(transaction=True)


def undo(client: APIClient, card_id: str, session_id: str) -> Any:
    return client.post(UNDO_URL, {"card_id": card_id, "session_id": session_id}, format="json")


def session_of(client: APIClient) -> str:
    return client.post("/api/v1/agent/sessions/", {}, format="json").json()["id"]


def confirmed_card(client: APIClient, session_id: str, text: str) -> dict[str, Any]:
    [card] = send_message(client, session_id, text)["cards"]
    answer = confirm(client, card["token"], session_id)
    assert answer.json()["outcome"]["ok"] is True, answer.content
    return card


def test_undoing_a_delete_restores_the_todo_from_the_trash_exactly(user: Any) -> None:
    due = timezone.now().replace(microsecond=0) + timedelta(days=3)
    todo = todo_services.todo_create(
        owner=user, title="周报", description="写给老板", priority=2, due_at=due
    )
    before = (todo.title, todo.description, todo.priority, todo.due_at, todo.status)
    client = token_client(user)
    session_id = session_of(client)
    card = confirmed_card(client, session_id, "删除待办「周报」")
    assert not Todo.objects.exists()
    response = undo(client, card["card_id"], session_id)
    assert response.status_code == 200, response.content
    restore = response.json()["card"]
    assert (restore["tool"], restore["capability"], restore["compensates_id"]) == (
        "restore_todo",
        "todo.restore",
        card["card_id"],
    )
    assert restore["args"]["todo_id"] == str(todo.id)
    assert Todo.all_objects.get(id=todo.id).deleted_at is not None  # not before the confirm
    assert confirm(client, restore["token"], session_id).json()["outcome"]["ok"] is True
    back = Todo.objects.get(id=todo.id)
    assert (back.title, back.description, back.priority, back.due_at, back.status) == before
    assert back.version == todo.version + 2  # the delete, the restore
    # Receipted once, and the undo is done.
    again = confirm(client, restore["token"], session_id).json()["outcome"]
    assert again["ok"] is True
    assert Todo.objects.count() == 1
    done = undo(client, card["card_id"], session_id)
    assert (done.status_code, error_code(done)) == (409, "UNDO_ALREADY_DONE")
    row = ActionCard.objects.get(id=restore["card_id"])
    assert (row.state, row.outcome_kind) == ("settled", "succeeded")


def test_a_restore_card_checks_the_version_it_was_issued_at(user: Any) -> None:
    todo = todo_services.todo_create(owner=user, title="周报")
    client = token_client(user)
    session_id = session_of(client)
    card = confirmed_card(client, session_id, "删除待办「周报」")
    restore = undo(client, card["card_id"], session_id).json()["card"]
    # Meanwhile the todo came back from the trash by hand, and went again.
    restored = todo_services.todo_restore(owner=user, todo_id=todo.id)
    todo_services.todo_delete(owner=user, todo_id=todo.id, expected_version=restored.version)
    outcome = confirm(client, restore["token"], session_id).json()["outcome"]
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == "TODO_VERSION_CONFLICT"
    assert not Todo.objects.exists()
    # Asked now, the undo is refused at once (the item changed since the delete).
    later = undo(client, card["card_id"], session_id)
    assert (later.status_code, error_code(later)) == (409, "UNDO_VERSION_CONFLICT")


def test_undoing_a_note_create_moves_the_note_to_the_trash(user: Any) -> None:
    client = token_client(user)
    session_id = session_of(client)
    card = confirmed_card(client, session_id, "新建笔记「周会」，内容是讨论下季度计划")
    note = Note.objects.get()
    response = undo(client, card["card_id"], session_id)
    assert response.status_code == 200, response.content
    discard = response.json()["card"]
    assert (discard["tool"], discard["capability"]) == ("discard_note", "note.discard")
    assert discard["args"]["note_id"] == str(note.id)
    assert confirm(client, discard["token"], session_id).json()["outcome"]["ok"] is True
    assert not Note.objects.exists()
    assert Note.all_objects.get(id=note.id).deleted_at is not None


def test_undoing_a_note_update_puts_back_the_whole_previous_content(user: Any) -> None:
    long_content = "第一段：" + "很长的会议记录。" * 60  # far beyond the card's excerpt
    note = note_services.note_create(owner=user, title="周会", content=long_content, tags=["a"])
    client = token_client(user)
    session_id = session_of(client)
    card = confirmed_card(client, session_id, "把笔记「周会」的内容改为讨论下季度计划")
    note.refresh_from_db()
    assert note.content == "讨论下季度计划"
    response = undo(client, card["card_id"], session_id)
    assert response.status_code == 200, response.content
    back = response.json()["card"]
    assert back["tool"] == "update_note"
    assert back["args"]["content"] == long_content
    assert confirm(client, back["token"], session_id).json()["outcome"]["ok"] is True
    note.refresh_from_db()
    assert (note.title, note.content, note.tags) == ("周会", long_content, ["a"])


def test_a_note_undo_is_version_checked(user: Any) -> None:
    note = note_services.note_create(owner=user, title="周会", content="旧")
    client = token_client(user)
    session_id = session_of(client)
    card = confirmed_card(client, session_id, "把笔记「周会」的内容改为新")
    back = undo(client, card["card_id"], session_id).json()["card"]
    note.refresh_from_db()
    note_services.note_update(
        owner=user, note_id=note.id, expected_version=note.version, content="更新"
    )
    outcome = confirm(client, back["token"], session_id).json()["outcome"]
    assert (outcome["ok"], outcome["error"]["code"]) == (False, "NOTE_VERSION_CONFLICT")
    note.refresh_from_db()
    assert note.content == "更新"


# --- internal tools are compensation-only ---------------------------------------------------


@pytest.mark.parametrize("tool", ["restore_todo", "discard_note"])
def test_an_internal_tool_cannot_be_proposed(user: Any, tool: str) -> None:
    todo = todo_services.todo_create(owner=user, title="周报")
    todo_services.todo_delete(owner=user, todo_id=todo.id)
    note = note_services.note_create(owner=user, title="周会")
    args = {"todo_id": str(todo.id)} if tool == "restore_todo" else {"note_id": str(note.id)}
    context = ToolContext(
        actor=user,
        subject=user,
        session_id="8d4c8a9e-0000-4000-8000-000000000001",
        locale="en",
        now=timezone.now(),
        zone=ZoneInfo("Asia/Shanghai"),
    )
    with pytest.raises(LightNoteError) as refused:
        enforce_tool_policy(tool_name=tool, args=args, context=context, phase="prepare")
    assert (refused.value.code, refused.value.status) == ("TOOL_NOT_FOUND", 404)
    prepared = enforce_tool_policy(
        tool_name=tool, args=args, context=context, phase="prepare", compensation=True
    )
    assert prepared.tool.name == tool


def test_a_model_naming_an_internal_tool_gets_no_card(user: Any, settings: Any) -> None:
    todo = todo_services.todo_create(owner=user, title="周报")
    todo_services.todo_delete(owner=user, todo_id=todo.id)
    client = token_client(user)
    with FakeOpenAI() as server:
        server.apply_to(settings, timeout=1)
        settings.LIGHTNOTE_PLANNER = "openai"
        server.reply_tool_calls(tool_call("restore_todo", {"todo_id": str(todo.id)}))
        body = send_message(client, session_of(client), "restore it")
    assert body["cards"] == []
    assert [notice["code"] for notice in body["notices"]] == ["TOOL_NOT_FOUND"]
    assert not Todo.objects.exists()
