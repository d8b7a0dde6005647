"""The direct todo API: /api/v1/todos/ (contract: docs/api.md, "Todos and notes")."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from todos import services
from todos.models import Todo

pytestmark = pytest.mark.django_db

LIST = "/api/v1/todos/"


def detail(todo: Any) -> str:
    return f"/api/v1/todos/{getattr(todo, 'id', todo)}/"


def code(response: Any) -> str:
    return response.json()["error"]["code"]


def make_todo(owner: Any, title: str = "写周报", **fields: Any) -> Todo:
    return services.todo_create(owner=owner, title=title, **fields)


# --- create -----------------------------------------------------------------------------


def test_create_returns_the_todo_with_times_in_the_users_zone(alice_api, user) -> None:
    response = alice_api.post(
        LIST,
        {"title": "提交周报", "priority": 2, "due_at": "2026-12-02T13:00:00Z"},
        format="json",
    )
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {
        "id",
        "title",
        "description",
        "priority",
        "due_at",
        "remind_at",
        "recurrence",
        "recurrence_text",
        "next_occurrences",
        "status",
        "version",
        "created_at",
        "updated_at",
    }
    assert (body["title"], body["description"], body["priority"]) == ("提交周报", "", 2)
    assert (body["status"], body["version"]) == ("open", 1)
    assert body["due_at"] == "2026-12-02T21:00:00+08:00"  # alice's zone: Asia/Shanghai
    assert body["created_at"].endswith("+08:00")
    todo = Todo.objects.get(id=body["id"])
    assert todo.owner == user
    assert todo.due_at.isoformat() == "2026-12-02T13:00:00+00:00"


def test_create_renders_due_at_in_another_users_own_zone(make_user, client_for) -> None:
    carol = make_user("carol", time_zone="America/New_York")
    response = client_for(carol).post(
        LIST, {"title": "call", "due_at": "2026-12-02T21:00:00+08:00"}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["due_at"] == "2026-12-02T08:00:00-05:00"


def test_create_defaults_priority_normal_and_no_due_time(alice_api) -> None:
    body = alice_api.post(LIST, {"title": "x"}, format="json").json()
    assert (body["priority"], body["due_at"], body["description"]) == (1, None, "")


def test_create_refuses_a_due_time_without_offset_with_a_clear_message(alice_api) -> None:
    response = alice_api.post(
        LIST,
        {"title": "x", "due_at": "2026-12-02T21:00:00"},
        format="json",
        headers={"Accept-Language": "en"},
    )
    assert response.status_code == 400
    assert code(response) == "VALIDATION_ERROR"
    assert response.json()["error"]["fields"]["due_at"] == [
        "The time needs a UTC offset, e.g. 2026-12-02T21:00:00+08:00."
    ]
    assert Todo.objects.count() == 0


@pytest.mark.parametrize(
    "due_at",
    [
        "tomorrow 9pm",
        "2026-13-01T00:00:00+08:00",
        "2026-12-02",
        "0001-01-01T00:00:00+05:00",
        12345,
        "",
    ],
)
def test_create_refuses_a_due_time_that_is_not_iso_8601(alice_api, due_at) -> None:
    response = alice_api.post(LIST, {"title": "x", "due_at": due_at}, format="json")
    assert response.status_code == 400
    assert code(response) == "VALIDATION_ERROR"
    assert list(response.json()["error"]["fields"]) == ["due_at"]
    assert Todo.objects.count() == 0


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "title"),
        ({"title": ""}, "title"),
        ({"title": "t" * 201}, "title"),
        ({"title": 12}, "title"),
        ({"title": None}, "title"),
        ({"title": "x", "description": "d" * 2001}, "description"),
        ({"title": "x", "priority": 3}, "priority"),
        ({"title": "x", "priority": -1}, "priority"),
        ({"title": "x", "priority": "2"}, "priority"),
        ({"title": "x", "priority": True}, "priority"),
        ({"title": "x", "priority": 1.5}, "priority"),
        ({"title": "x", "status": "done"}, "status"),  # not a create field
        ({"title": "x", "version": 7}, "version"),
        ({"title": "x", "owner": 1}, "owner"),
    ],
)
def test_create_validation_errors_name_the_field_and_write_nothing(
    alice_api, payload, field
) -> None:
    response = alice_api.post(LIST, payload, format="json")
    assert response.status_code == 400
    assert code(response) == "VALIDATION_ERROR"
    assert list(response.json()["error"]["fields"]) == [field]
    assert Todo.objects.count() == 0


def test_create_accepts_the_field_limits_exactly(alice_api) -> None:
    response = alice_api.post(
        LIST, {"title": "t" * 200, "description": "d" * 2000, "priority": 0}, format="json"
    )
    assert response.status_code == 201
    assert len(response.json()["title"]) == 200


def test_create_with_a_blank_title_is_the_domain_error(alice_api) -> None:
    response = alice_api.post(LIST, {"title": "   "}, format="json")
    assert response.status_code == 400
    assert code(response) == "TODO_TITLE_REQUIRED"
    assert Todo.objects.count() == 0


@pytest.mark.parametrize("body", ["[]", '"title"', "5", "null", '[{"title": "x"}]'])
def test_a_json_body_that_is_not_an_object_is_400(alice_api, body) -> None:
    response = alice_api.post(LIST, body, content_type="application/json")
    assert response.status_code == 400
    assert code(response) == "VALIDATION_ERROR"
    assert Todo.objects.count() == 0


def test_malformed_json_is_400(alice_api) -> None:
    response = alice_api.post(LIST, '{"title": ', content_type="application/json")
    assert response.status_code == 400
    assert code(response) == "MALFORMED_REQUEST"


# --- list -------------------------------------------------------------------------------


def test_list_is_paginated_and_holds_only_the_owners_todos(alice_api, user, other_user) -> None:
    mine = {str(make_todo(user, f"mine {i}").id) for i in range(3)}
    make_todo(other_user, "bob's")
    make_todo(other_user, "bob's too")

    first = alice_api.get(LIST, {"page_size": 2}).json()
    assert set(first) == {"count", "next", "previous", "results"}
    assert first["count"] == 3
    assert len(first["results"]) == 2
    assert first["previous"] is None
    assert "page=2" in first["next"]

    second = alice_api.get(LIST, {"page_size": 2, "page": 2}).json()
    assert len(second["results"]) == 1
    assert second["next"] is None
    assert second["previous"] is not None
    assert {t["id"] for t in first["results"] + second["results"]} == mine


def test_list_filters_by_status(alice_api, user) -> None:
    open_todo = make_todo(user, "open one")
    done_todo = make_todo(user, "done one")
    services.todo_set_status(owner=user, todo_id=done_todo.id, status="done")

    done = alice_api.get(LIST, {"status": "done"}).json()
    opened = alice_api.get(LIST, {"status": "open"}).json()
    assert [t["id"] for t in done["results"]] == [str(done_todo.id)]
    assert [t["id"] for t in opened["results"]] == [str(open_todo.id)]
    assert alice_api.get(LIST).json()["count"] == 2


@pytest.mark.parametrize("status", ["closed", "OPEN", "open,done"])
def test_list_refuses_an_unknown_status(alice_api, status) -> None:
    response = alice_api.get(LIST, {"status": status})
    assert response.status_code == 400
    assert code(response) == "VALIDATION_ERROR"
    assert list(response.json()["error"]["fields"]) == ["status"]


def test_list_page_past_the_end_is_404(alice_api, user) -> None:
    make_todo(user)
    response = alice_api.get(LIST, {"page": 9})
    assert response.status_code == 404
    assert code(response) == "NOT_FOUND"


def test_list_query_count_does_not_grow_with_the_page(
    alice_api, user, django_assert_max_num_queries
) -> None:
    for i in range(30):
        make_todo(user, f"t{i}")
    with django_assert_max_num_queries(3):  # token with its user, count, one page
        response = alice_api.get(LIST)
    assert response.json()["count"] == 30


# --- detail -----------------------------------------------------------------------------


def test_get_returns_the_owners_todo(alice_api, user) -> None:
    todo = make_todo(user, "read me")
    response = alice_api.get(detail(todo))
    assert response.status_code == 200
    assert (response.json()["id"], response.json()["title"]) == (str(todo.id), "read me")


@pytest.mark.parametrize("todo_id", [str(uuid.uuid4()), "not-a-uuid", "123"])
def test_get_an_unknown_or_malformed_id_is_404(alice_api, todo_id) -> None:
    response = alice_api.get(f"/api/v1/todos/{todo_id}/")
    assert response.status_code == 404
    assert code(response) == "TODO_NOT_FOUND"


def test_another_users_todo_is_404_for_get_patch_and_delete(alice_api, other_user) -> None:
    theirs = make_todo(other_user, "bob's secret")

    assert alice_api.get(detail(theirs)).status_code == 404
    patched = alice_api.patch(detail(theirs), {"version": 1, "title": "mine"}, format="json")
    deleted = alice_api.delete(detail(theirs))
    assert (patched.status_code, code(patched)) == (404, "TODO_NOT_FOUND")
    assert (deleted.status_code, code(deleted)) == (404, "TODO_NOT_FOUND")
    theirs.refresh_from_db()
    assert (theirs.title, theirs.version) == ("bob's secret", 1)
    # The 404 reveals nothing: it reads exactly like an id that never existed.
    assert (
        patched.json()
        == alice_api.patch(
            detail(uuid.uuid4()), {"version": 1, "title": "mine"}, format="json"
        ).json()
    )


def test_patch_changes_fields_and_bumps_the_version(alice_api, user) -> None:
    todo = make_todo(user, "draft", due_at=None)
    response = alice_api.patch(
        detail(todo),
        {
            "version": 1,
            "title": "final",
            "status": "done",
            "priority": 0,
            "due_at": "2026-12-03T09:30:00+08:00",
        },
        format="json",
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["title"], body["status"], body["priority"], body["version"]) == (
        "final",
        "done",
        0,
        2,
    )
    assert body["due_at"] == "2026-12-03T09:30:00+08:00"
    todo.refresh_from_db()
    assert (todo.title, todo.status, todo.version) == ("final", "done", 2)


def test_patch_with_null_due_at_clears_it(alice_api, user) -> None:
    todo = make_todo(user)
    alice_api.patch(detail(todo), {"version": 1, "due_at": "2026-12-03T09:30:00Z"}, format="json")
    response = alice_api.patch(detail(todo), {"version": 2, "due_at": None}, format="json")
    assert response.status_code == 200
    assert (response.json()["due_at"], response.json()["version"]) == (None, 3)


def test_patch_with_a_stale_version_is_409_and_changes_nothing(alice_api, user) -> None:
    todo = make_todo(user, "v1")
    first = alice_api.patch(detail(todo), {"version": 1, "title": "v2"}, format="json")
    assert first.status_code == 200
    stale = alice_api.patch(detail(todo), {"version": 1, "title": "lost update"}, format="json")
    assert stale.status_code == 409
    assert code(stale) == "TODO_VERSION_CONFLICT"
    assert stale.json()["error"]["current_version"] == 2
    todo.refresh_from_db()
    assert (todo.title, todo.version) == ("v2", 2)


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"title": "no version"}, "version"),
        ({"version": "1", "title": "x"}, "version"),
        ({"version": 0, "title": "x"}, "version"),
        ({"version": 1, "title": "x", "owner": 2}, "owner"),
        ({"version": 1, "id": str(uuid.uuid4())}, "id"),
        ({"version": 1, "status": "archived"}, "status"),
        ({"version": 1, "title": "t" * 201}, "title"),
        ({"version": 1, "due_at": "2026-12-02 21:00"}, "due_at"),
        ({"version": 1}, "non_field_errors"),
    ],
)
def test_patch_validation_errors_name_the_field_and_change_nothing(
    alice_api, user, payload, field
) -> None:
    todo = make_todo(user, "keep")
    response = alice_api.patch(detail(todo), payload, format="json")
    assert response.status_code == 400
    assert code(response) == "VALIDATION_ERROR"
    assert list(response.json()["error"]["fields"]) == [field]
    todo.refresh_from_db()
    assert (todo.title, todo.version) == ("keep", 1)


def test_patch_to_a_blank_title_is_the_domain_error(alice_api, user) -> None:
    todo = make_todo(user, "keep")
    response = alice_api.patch(detail(todo), {"version": 1, "title": " \t "}, format="json")
    assert (response.status_code, code(response)) == (400, "TODO_TITLE_REQUIRED")
    todo.refresh_from_db()
    assert todo.version == 1


def test_delete_removes_the_todo(alice_api, user) -> None:
    todo = make_todo(user)
    response = alice_api.delete(detail(todo))
    assert response.status_code == 204
    assert not Todo.objects.filter(id=todo.id).exists()
    assert alice_api.delete(detail(todo)).status_code == 404


def test_delete_with_a_version_checks_it(alice_api, user) -> None:
    todo = make_todo(user)
    services.todo_update(owner=user, todo_id=todo.id, expected_version=1, title="moved on")

    stale = alice_api.delete(detail(todo) + "?version=1")
    assert (stale.status_code, code(stale)) == (409, "TODO_VERSION_CONFLICT")
    assert Todo.objects.filter(id=todo.id).exists()

    bad = alice_api.delete(detail(todo) + "?version=abc")
    assert (bad.status_code, code(bad)) == (400, "VALIDATION_ERROR")

    assert alice_api.delete(detail(todo) + "?version=2").status_code == 204
    assert not Todo.objects.filter(id=todo.id).exists()


# --- authentication ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", LIST),
        ("post", LIST),
        ("get", "/api/v1/todos/{id}/"),
        ("patch", "/api/v1/todos/{id}/"),
        ("delete", "/api/v1/todos/{id}/"),
    ],
)
def test_every_todo_endpoint_needs_authentication(api_client, user, method, path) -> None:
    todo = make_todo(user)
    response = getattr(api_client, method)(
        path.format(id=todo.id), {"title": "x", "version": 1}, format="json"
    )
    assert response.status_code == 401
    assert code(response) == "NOT_AUTHENTICATED"
    assert response["WWW-Authenticate"] == "Token"
    todo.refresh_from_db()
    assert (todo.title, todo.version) == ("写周报", 1)
    assert Todo.objects.count() == 1


def test_a_wrong_token_is_401(api_client) -> None:
    api_client.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    response = api_client.get(LIST)
    assert (response.status_code, code(response)) == (401, "AUTHENTICATION_FAILED")


def test_create_logic_returns_status_and_body_for_an_idempotency_wrapper(user) -> None:
    from rest_framework.test import APIRequestFactory

    from todos.api import todo_create_response

    request = APIRequestFactory().post(LIST)
    request.user = user
    status, body = todo_create_response(request=request, data={"title": "via the seam"})
    assert status == 201
    assert body["title"] == "via the seam"
    assert Todo.objects.get(id=body["id"]).owner == user
