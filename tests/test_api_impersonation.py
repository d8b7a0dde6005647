"""Admin read-only impersonation (contract: docs/api.md, "Admin read-only impersonation")."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from lightnote.impersonation.context import ADMIN_CONTEXT_SESSION_KEY
from lightnote.impersonation.contexts import admin_context_end, admin_context_start
from lightnote.models import AdminContext, AuditEvent
from notes import services as note_services
from notes.models import Note
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

START = "/api/v1/admin/impersonation/"


def code(response: Any) -> str:
    return response.json()["error"]["code"]


@pytest.fixture
def staff(make_user: Any) -> Any:
    return make_user("staff", is_staff=True, time_zone="Europe/London")


@pytest.fixture
def staff_api(client_for: Any, staff: Any) -> Any:
    return client_for(staff)


def start(staff_api: Any, subject: Any) -> str:
    response = staff_api.post(START, {"user_id": subject.id, "mode": "readonly"}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["context_id"]


def as_context(client_for: Any, staff: Any, context_id: str) -> Any:
    return client_for(staff, **{"X-Admin-Context": context_id})


# --- starting ---------------------------------------------------------------------------


def test_staff_starts_a_readonly_context_for_twenty_minutes(staff_api, staff, user) -> None:
    before = timezone.now()
    response = staff_api.post(START, {"user_id": user.id, "mode": "readonly"}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"context_id", "subject", "mode", "expires_at"}
    assert body["subject"] == {"id": user.id, "username": "alice"}
    assert body["mode"] == "readonly"
    context = AdminContext.objects.get(id=body["context_id"])
    assert (context.staff, context.subject, context.ended_at) == (staff, user, None)
    expires_at = dt.datetime.fromisoformat(body["expires_at"])
    assert expires_at == context.expires_at
    assert dt.timedelta(minutes=20) <= expires_at - before <= dt.timedelta(minutes=20, seconds=5)
    # Rendered in the staff member's own zone (Europe/London), not the subject's.
    assert expires_at.utcoffset() == context.expires_at.astimezone(staff.zone).utcoffset()
    event = AuditEvent.objects.get(event_type="admin.context_started")
    assert (event.actor, event.subject, event.details["context_id"]) == (
        staff,
        user,
        body["context_id"],
    )


def test_mode_defaults_to_readonly_and_nothing_else_is_accepted(staff_api, user) -> None:
    assert staff_api.post(START, {"user_id": user.id}, format="json").json()["mode"] == "readonly"
    response = staff_api.post(START, {"user_id": user.id, "mode": "readwrite"}, format="json")
    assert (response.status_code, code(response)) == (400, "VALIDATION_ERROR")
    assert list(response.json()["error"]["fields"]) == ["mode"]
    assert AdminContext.objects.count() == 1


def test_non_staff_cannot_start_a_context(alice_api, other_user) -> None:
    response = alice_api.post(START, {"user_id": other_user.id, "mode": "readonly"}, format="json")
    assert (response.status_code, code(response)) == (403, "ADMIN_ONLY")
    assert AdminContext.objects.count() == 0
    assert alice_api.delete(START).status_code == 403


def test_an_unknown_user_is_404(staff_api) -> None:
    response = staff_api.post(START, {"user_id": 987654, "mode": "readonly"}, format="json")
    assert (response.status_code, code(response)) == (404, "USER_NOT_FOUND")
    assert AdminContext.objects.count() == 0
    assert not AuditEvent.objects.exists()


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"mode": "readonly"}, "user_id"),
        ({"user_id": "alice", "mode": "readonly"}, "user_id"),
        ({"user_id": 2**70, "mode": "readonly"}, "user_id"),
        ({"user_id": 1, "mode": "readonly", "minutes": 600}, "minutes"),
    ],
)
def test_start_validation_errors(staff_api, payload, field) -> None:
    response = staff_api.post(START, payload, format="json")
    assert (response.status_code, code(response)) == (400, "VALIDATION_ERROR")
    assert list(response.json()["error"]["fields"]) == [field]


def test_impersonation_needs_authentication(api_client, user) -> None:
    for response in (
        api_client.post(START, {"user_id": user.id}, format="json"),
        api_client.delete(START),
    ):
        assert (response.status_code, code(response)) == (401, "NOT_AUTHENTICATED")
    assert AdminContext.objects.count() == 0


# --- reading as the subject --------------------------------------------------------------


def test_staff_reads_the_subjects_data_with_the_header(
    staff_api, client_for, staff, user, other_user
) -> None:
    alices = todo_services.todo_create(owner=user, title="alice's todo")
    note = note_services.note_create(owner=user, title="alice's note")
    todo_services.todo_create(owner=staff, title="staff's own")
    todo_services.todo_create(owner=other_user, title="bob's")
    viewer = as_context(client_for, staff, start(staff_api, user))

    listed = viewer.get("/api/v1/todos/").json()
    assert [t["title"] for t in listed["results"]] == ["alice's todo"]
    assert viewer.get(f"/api/v1/todos/{alices.id}/").json()["title"] == "alice's todo"
    assert viewer.get(f"/api/v1/notes/{note.id}/").json()["title"] == "alice's note"
    assert viewer.get("/api/v1/me/").json()["username"] == "alice"
    # Without the header the staff member is themself again.
    assert [t["title"] for t in staff_api.get("/api/v1/todos/").json()["results"]] == [
        "staff's own"
    ]


# --- writes are refused -----------------------------------------------------------------


def test_every_write_in_a_context_is_403_admin_readonly_and_changes_nothing(
    staff_api, client_for, staff, user
) -> None:
    todo = todo_services.todo_create(owner=user, title="keep")
    note = note_services.note_create(owner=user, title="keep")
    viewer = as_context(client_for, staff, start(staff_api, user))

    attempts = [
        viewer.post("/api/v1/todos/", {"title": "planted"}, format="json"),
        viewer.patch(f"/api/v1/todos/{todo.id}/", {"version": 1, "title": "x"}, format="json"),
        viewer.delete(f"/api/v1/todos/{todo.id}/"),
        viewer.post("/api/v1/notes/", {"title": "planted"}, format="json"),
        viewer.patch(f"/api/v1/notes/{note.id}/", {"version": 1, "title": "x"}, format="json"),
        viewer.delete(f"/api/v1/notes/{note.id}/"),
        viewer.patch("/api/v1/me/", {"language": "en"}, format="json"),
    ]
    assert [(r.status_code, code(r)) for r in attempts] == [(403, "ADMIN_READONLY")] * 7
    todo.refresh_from_db()
    note.refresh_from_db()
    user.refresh_from_db()
    assert (todo.title, todo.version, note.title, note.version) == ("keep", 1, "keep", 1)
    assert (Todo.objects.count(), Note.objects.count(), user.language) == (1, 1, "zh-CN")
    refused = AuditEvent.objects.filter(event_type="admin.write_refused")
    assert refused.count() == 7
    assert {(e.actor_id, e.subject_id, e.code) for e in refused} == {
        (staff.id, user.id, "ADMIN_READONLY")
    }


def test_a_write_is_refused_before_its_body_is_even_validated(
    staff_api, client_for, staff, user
) -> None:
    viewer = as_context(client_for, staff, start(staff_api, user))
    response = viewer.post("/api/v1/todos/", {"bogus": True}, format="json")
    assert (response.status_code, code(response)) == (403, "ADMIN_READONLY")


# --- invalid contexts -------------------------------------------------------------------


@pytest.mark.parametrize("context_id", [str(uuid.uuid4()), "not-a-uuid", "1"])
def test_an_unknown_context_id_is_403_admin_context_invalid(
    client_for, staff, user, context_id
) -> None:
    todo_services.todo_create(owner=user, title="alice's")
    response = as_context(client_for, staff, context_id).get("/api/v1/todos/")
    assert (response.status_code, code(response)) == (403, "ADMIN_CONTEXT_INVALID")


def test_an_expired_context_is_403_admin_context_invalid(staff_api, client_for, staff, user):
    context_id = start(staff_api, user)
    viewer = as_context(client_for, staff, context_id)
    assert viewer.get("/api/v1/todos/").status_code == 200
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=20, seconds=1), tick=False):
        response = viewer.get("/api/v1/todos/")
    assert (response.status_code, code(response)) == (403, "ADMIN_CONTEXT_INVALID")


def test_another_staff_members_context_is_403(staff_api, make_user, client_for, user) -> None:
    context_id = start(staff_api, user)
    colleague = make_user("colleague", is_staff=True)
    response = as_context(client_for, colleague, context_id).get("/api/v1/todos/")
    assert (response.status_code, code(response)) == (403, "ADMIN_CONTEXT_INVALID")


def test_a_non_staff_user_sending_the_header_is_403(staff_api, client_for, user, other_user):
    context_id = start(staff_api, user)
    response = as_context(client_for, other_user, context_id).get("/api/v1/todos/")
    assert (response.status_code, code(response)) == (403, "ADMIN_ONLY")


# --- ending -----------------------------------------------------------------------------


def test_delete_ends_the_context_even_though_writes_are_refused(
    staff_api, client_for, staff, user
) -> None:
    context_id = start(staff_api, user)
    viewer = as_context(client_for, staff, context_id)

    response = viewer.delete(START)
    assert response.status_code == 204
    assert AdminContext.objects.get(id=context_id).ended_at is not None
    ended = AuditEvent.objects.get(event_type="admin.context_ended")
    assert (ended.actor, ended.subject, ended.details["context_id"]) == (staff, user, context_id)
    again = viewer.get("/api/v1/todos/")
    assert (again.status_code, code(again)) == (403, "ADMIN_CONTEXT_INVALID")


def test_delete_without_an_active_context_is_a_no_op(staff_api) -> None:
    assert staff_api.delete(START).status_code == 204
    assert not AuditEvent.objects.exists()


def test_ending_twice_records_one_end(staff, user) -> None:
    context = admin_context_start(staff=staff, subject_id=user.id)
    assert admin_context_end(staff=staff, context_id=context.id) is True
    assert admin_context_end(staff=staff, context_id=context.id) is False
    assert admin_context_end(staff=staff, context_id="garbage") is False
    assert AuditEvent.objects.filter(event_type="admin.context_ended").count() == 1


# --- the browser --------------------------------------------------------------------------


def test_browser_session_holds_the_context_until_it_ends(staff, user) -> None:
    todo_services.todo_create(owner=user, title="alice's")
    todo_services.todo_create(owner=staff, title="staff's own")
    browser = Client(enforce_csrf_checks=True)
    assert browser.login(username="staff", password="pw-staff")
    browser.get("/accounts/login/")
    csrf = {"X-CSRFToken": browser.cookies["csrftoken"].value}

    started = browser.post(
        START,
        json.dumps({"user_id": user.id, "mode": "readonly"}),
        content_type="application/json",
        headers=csrf,
    )
    assert started.status_code == 201
    assert browser.session[ADMIN_CONTEXT_SESSION_KEY] == started.json()["context_id"]
    titles = [t["title"] for t in browser.get("/api/v1/todos/").json()["results"]]
    assert titles == ["alice's"]
    refused = browser.post(
        "/api/v1/todos/", json.dumps({"title": "x"}), content_type="application/json", headers=csrf
    )
    assert (refused.status_code, code(refused)) == (403, "ADMIN_READONLY")

    assert browser.delete(START, headers=csrf).status_code == 204
    assert ADMIN_CONTEXT_SESSION_KEY not in browser.session
    assert AdminContext.objects.get().ended_at is not None
    titles = [t["title"] for t in browser.get("/api/v1/todos/").json()["results"]]
    assert titles == ["staff's own"]


def test_a_new_context_in_the_browser_ends_the_previous_one(staff, user, other_user) -> None:
    browser = Client()
    browser.login(username="staff", password="pw-staff")
    first = browser.post(START, {"user_id": user.id}, content_type="application/json").json()
    second = browser.post(START, {"user_id": other_user.id}, content_type="application/json")
    assert second.status_code == 201
    assert browser.session[ADMIN_CONTEXT_SESSION_KEY] == second.json()["context_id"]
    assert AdminContext.objects.get(id=first["context_id"]).ended_at is not None
    assert browser.get("/api/v1/me/").json()["username"] == "bob"


# --- the Django admin: staff look, services write ---------------------------------------


def test_admin_shows_data_and_audit_read_only(make_user, user) -> None:
    todo = todo_services.todo_create(owner=user, title="visible in admin")
    note = note_services.note_create(owner=user, title="a note in admin")
    admin_context_start(
        staff=make_user("root", is_staff=True, is_superuser=True), subject_id=user.id
    )
    browser = Client()
    assert browser.login(username="root", password="pw-root")

    for url, text in [
        ("/admin/todos/todo/", "visible in admin"),
        (f"/admin/todos/todo/{todo.id}/change/", "visible in admin"),
        ("/admin/notes/note/", "a note in admin"),
        ("/admin/lightnote/auditevent/", "admin.context_started"),
        ("/admin/agent/actionreceipt/", "操作回执"),  # the admin speaks zh-CN by default
        ("/admin/lightnote/admincontext/", "alice"),
        (f"/admin/lightnote/user/{user.id}/change/", "Asia/Shanghai"),
    ]:
        response = browser.get(url)
        assert response.status_code == 200, url
        assert text in response.content.decode(), url

    assert browser.get("/admin/todos/todo/add/").status_code == 403
    assert browser.post(f"/admin/todos/todo/{todo.id}/change/", {"title": "x"}).status_code == 403
    assert browser.post(f"/admin/notes/note/{note.id}/delete/", {"post": "yes"}).status_code == 403
    todo.refresh_from_db()
    assert (todo.title, Note.objects.count()) == ("visible in admin", 1)
