"""An unknown field in a request body is a 400 ``VALIDATION_ERROR`` on the bodiless writes too.

``POST …/restore/`` and every ``DELETE`` take no body; one that names fields is refused
before anything changes, as the contract says for every request body.
"""

from __future__ import annotations

from typing import Any

import pytest

from agent.models import AgentSession
from notes import services as note_services
from notes.models import Note
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db
SURPRISE = {"surprise": 1}


def _assert_refused(response: Any) -> None:
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert "surprise" in error["fields"]


def test_delete_of_a_todo_or_note_refuses_an_unknown_field(alice_api: Any, user: Any) -> None:
    todo = todo_services.todo_create(owner=user, title="t")
    note = note_services.note_create(owner=user, title="n")
    _assert_refused(alice_api.delete(f"/api/v1/todos/{todo.id}/", SURPRISE, format="json"))
    _assert_refused(alice_api.delete(f"/api/v1/notes/{note.id}/", SURPRISE, format="json"))
    assert Todo.objects.get(pk=todo.pk).deleted_at is None
    assert Note.objects.get(pk=note.pk).deleted_at is None


def test_restore_of_a_todo_or_note_refuses_an_unknown_field(alice_api: Any, user: Any) -> None:
    todo = todo_services.todo_create(owner=user, title="t")
    note = note_services.note_create(owner=user, title="n")
    todo_services.todo_delete(owner=user, todo_id=todo.id)
    note_services.note_delete(owner=user, note_id=note.id)
    _assert_refused(alice_api.post(f"/api/v1/todos/{todo.id}/restore/", SURPRISE, format="json"))
    _assert_refused(alice_api.post(f"/api/v1/notes/{note.id}/restore/", SURPRISE, format="json"))
    assert Todo.all_objects.get(pk=todo.pk).deleted_at is not None
    assert Note.all_objects.get(pk=note.pk).deleted_at is not None


def test_delete_of_a_conversation_refuses_an_unknown_field(alice_api: Any, user: Any) -> None:
    session = AgentSession.objects.create(owner=user)
    url = f"/api/v1/agent/sessions/{session.id}/"
    _assert_refused(alice_api.delete(url, SURPRISE, format="json"))
    assert AgentSession.objects.get(pk=session.pk).deleted_at is None


def test_ending_an_admin_context_refuses_an_unknown_field(client_for: Any, make_user: Any) -> None:
    staff = make_user("staff", is_staff=True)
    response = client_for(staff).delete("/api/v1/admin/impersonation/", SURPRISE, format="json")
    _assert_refused(response)


def test_an_empty_body_or_an_empty_object_is_accepted(alice_api: Any, user: Any) -> None:
    first = todo_services.todo_create(owner=user, title="t")
    second = todo_services.todo_create(owner=user, title="u")
    assert alice_api.delete(f"/api/v1/todos/{first.id}/").status_code == 204
    assert alice_api.delete(f"/api/v1/todos/{second.id}/", {}, format="json").status_code == 204
    restored = alice_api.post(f"/api/v1/todos/{first.id}/restore/", {}, format="json")
    assert restored.status_code == 200
