"""The direct note API: /api/v1/notes/ (contract: docs/api.md, "Todos and notes")."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from notes import services
from notes.models import Note

pytestmark = pytest.mark.django_db

LIST = "/api/v1/notes/"


def detail(note: Any) -> str:
    return f"/api/v1/notes/{getattr(note, 'id', note)}/"


def code(response: Any) -> str:
    return response.json()["error"]["code"]


def make_note(owner: Any, title: str = "读书笔记", **fields: Any) -> Note:
    return services.note_create(owner=owner, title=title, **fields)


# --- create -----------------------------------------------------------------------------


def test_create_returns_the_note_with_times_in_the_users_zone(alice_api, user) -> None:
    response = alice_api.post(
        LIST,
        {"title": "会议纪要", "content": "讨论发布计划", "tags": ["work", " plan ", "work"]},
        format="json",
    )
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "title", "content", "tags", "version", "created_at", "updated_at"}
    assert (body["title"], body["content"], body["version"]) == ("会议纪要", "讨论发布计划", 1)
    assert body["tags"] == ["work", "plan"]  # trimmed and de-duplicated by the service
    assert body["created_at"].endswith("+08:00")
    assert Note.objects.get(id=body["id"]).owner == user


def test_create_defaults_to_empty_content_and_tags(alice_api) -> None:
    body = alice_api.post(LIST, {"title": "x"}, format="json").json()
    assert (body["content"], body["tags"]) == ("", [])


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "title"),
        ({"title": ""}, "title"),
        ({"title": "t" * 256}, "title"),
        ({"title": ["x"]}, "title"),
        ({"title": "x", "content": "c" * 60_001}, "content"),
        ({"title": "x", "content": 5}, "content"),
        ({"title": "x", "tags": "work"}, "tags"),
        ({"title": "x", "tags": [f"t{i}" for i in range(21)]}, "tags"),
        ({"title": "x", "tags": ["t" * 51]}, "tags"),
        ({"title": "x", "tags": [""]}, "tags"),
        ({"title": "x", "tags": [7]}, "tags"),
        ({"title": "x", "tags": None}, "tags"),
        ({"title": "x", "version": 1}, "version"),
        ({"title": "x", "pinned": True}, "pinned"),
    ],
)
def test_create_validation_errors_name_the_field_and_write_nothing(
    alice_api, payload, field
) -> None:
    response = alice_api.post(LIST, payload, format="json")
    assert response.status_code == 400
    assert code(response) == "VALIDATION_ERROR"
    assert list(response.json()["error"]["fields"]) == [field]
    assert Note.objects.count() == 0


def test_create_accepts_the_field_limits_exactly(alice_api) -> None:
    tags = [f"{i:02d}" + "t" * 48 for i in range(20)]
    response = alice_api.post(
        LIST, {"title": "t" * 255, "content": "c" * 60_000, "tags": tags}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["tags"] == tags


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        ({"title": "   "}, "NOTE_TITLE_REQUIRED"),
        ({"title": "x", "tags": ["ok", "   "]}, "NOTE_TAGS_INVALID"),
    ],
)
def test_create_domain_rules_answer_with_the_domain_code(alice_api, payload, error) -> None:
    response = alice_api.post(LIST, payload, format="json")
    assert (response.status_code, code(response)) == (400, error)
    assert Note.objects.count() == 0


@pytest.mark.parametrize("body", ["[]", '"note"', "true", "null"])
def test_a_json_body_that_is_not_an_object_is_400(alice_api, body) -> None:
    response = alice_api.post(LIST, body, content_type="application/json")
    assert (response.status_code, code(response)) == (400, "VALIDATION_ERROR")
    assert Note.objects.count() == 0


# --- list -------------------------------------------------------------------------------


def test_list_is_paginated_and_holds_only_the_owners_notes(alice_api, user, other_user) -> None:
    mine = {str(make_note(user, f"mine {i}").id) for i in range(5)}
    make_note(other_user, "bob's")

    pages = [alice_api.get(LIST, {"page_size": 2, "page": n}).json() for n in (1, 2, 3)]
    assert [page["count"] for page in pages] == [5, 5, 5]
    assert [len(page["results"]) for page in pages] == [2, 2, 1]
    assert pages[0]["previous"] is None
    assert pages[2]["next"] is None
    assert {note["id"] for page in pages for note in page["results"]} == mine


def test_list_searches_words_and_tags(alice_api, user, other_user) -> None:
    recipe = make_note(user, "Dumplings", content="flour, water, pork", tags=["food"])
    make_note(user, "Trip", content="train at 9", tags=["travel"])
    make_note(other_user, "Pork buns", content="pork", tags=["food"])

    by_word = alice_api.get(LIST, {"q": "pork"}).json()
    by_tag = alice_api.get(LIST, {"tag": "food"}).json()
    neither = alice_api.get(LIST, {"q": "pork", "tag": "travel"}).json()
    assert [n["id"] for n in by_word["results"]] == [str(recipe.id)]
    assert [n["id"] for n in by_tag["results"]] == [str(recipe.id)]
    assert neither["count"] == 0


def test_list_refuses_an_over_long_search(alice_api) -> None:
    response = alice_api.get(LIST, {"q": "x" * 201})
    assert (response.status_code, code(response)) == (400, "VALIDATION_ERROR")
    assert list(response.json()["error"]["fields"]) == ["q"]


# --- detail -----------------------------------------------------------------------------


def test_get_returns_the_owners_note(alice_api, user) -> None:
    note = make_note(user, "read me", tags=["a"])
    body = alice_api.get(detail(note)).json()
    assert (body["id"], body["title"], body["tags"]) == (str(note.id), "read me", ["a"])


@pytest.mark.parametrize("note_id", [str(uuid.uuid4()), "nope"])
def test_get_an_unknown_or_malformed_id_is_404(alice_api, note_id) -> None:
    response = alice_api.get(f"/api/v1/notes/{note_id}/")
    assert (response.status_code, code(response)) == (404, "NOTE_NOT_FOUND")


def test_another_users_note_is_404_for_get_patch_and_delete(alice_api, other_user) -> None:
    theirs = make_note(other_user, "bob's diary")

    got = alice_api.get(detail(theirs))
    patched = alice_api.patch(detail(theirs), {"version": 1, "content": "x"}, format="json")
    deleted = alice_api.delete(detail(theirs))
    assert [r.status_code for r in (got, patched, deleted)] == [404, 404, 404]
    assert {code(r) for r in (got, patched, deleted)} == {"NOTE_NOT_FOUND"}
    theirs.refresh_from_db()
    assert (theirs.content, theirs.version) == ("", 1)
    assert alice_api.get(LIST).json()["count"] == 0


def test_patch_changes_fields_and_bumps_the_version(alice_api, user) -> None:
    note = make_note(user, "draft", tags=["a"])
    response = alice_api.patch(
        detail(note), {"version": 1, "content": "body", "tags": ["b", "c"]}, format="json"
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["title"], body["content"], body["tags"], body["version"]) == (
        "draft",
        "body",
        ["b", "c"],
        2,
    )
    note.refresh_from_db()
    assert (note.content, note.tags, note.version) == ("body", ["b", "c"], 2)


def test_patch_with_a_stale_version_is_409_and_changes_nothing(alice_api, user) -> None:
    note = make_note(user, "v1")
    services.note_update(owner=user, note_id=note.id, expected_version=1, content="newer")
    stale = alice_api.patch(detail(note), {"version": 1, "content": "older"}, format="json")
    assert (stale.status_code, code(stale)) == (409, "NOTE_VERSION_CONFLICT")
    assert stale.json()["error"]["current_version"] == 2
    note.refresh_from_db()
    assert (note.content, note.version) == ("newer", 2)


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"content": "no version"}, "version"),
        ({"version": 1.0, "content": "x"}, "version"),
        ({"version": 1, "owner": 9}, "owner"),
        ({"version": 1, "tags": ["x"] * 3 + [""]}, "tags"),
        ({"version": 1}, "non_field_errors"),
    ],
)
def test_patch_validation_errors_name_the_field_and_change_nothing(
    alice_api, user, payload, field
) -> None:
    note = make_note(user, "keep")
    response = alice_api.patch(detail(note), payload, format="json")
    assert (response.status_code, code(response)) == (400, "VALIDATION_ERROR")
    assert list(response.json()["error"]["fields"]) == [field]
    note.refresh_from_db()
    assert note.version == 1


def test_delete_removes_the_note_and_honours_a_version(alice_api, user) -> None:
    note = make_note(user)
    services.note_update(owner=user, note_id=note.id, expected_version=1, title="changed")

    stale = alice_api.delete(detail(note) + "?version=1")
    assert (stale.status_code, code(stale)) == (409, "NOTE_VERSION_CONFLICT")
    assert Note.objects.filter(id=note.id).exists()

    assert alice_api.delete(detail(note)).status_code == 204
    assert not Note.objects.filter(id=note.id).exists()


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", LIST),
        ("post", LIST),
        ("get", "/api/v1/notes/{id}/"),
        ("patch", "/api/v1/notes/{id}/"),
        ("delete", "/api/v1/notes/{id}/"),
    ],
)
def test_every_note_endpoint_needs_authentication(api_client, user, method, path) -> None:
    note = make_note(user)
    response = getattr(api_client, method)(
        path.format(id=note.id), {"title": "x", "version": 1}, format="json"
    )
    assert (response.status_code, code(response)) == (401, "NOT_AUTHENTICATED")
    note.refresh_from_db()
    assert (note.title, note.version) == ("读书笔记", 1)
    assert Note.objects.count() == 1


def test_create_logic_returns_status_and_body_for_an_idempotency_wrapper(user) -> None:
    from rest_framework.test import APIRequestFactory

    from notes.api import note_create_response

    request = APIRequestFactory().post(LIST)
    request.user = user
    status, body = note_create_response(request=request, data={"title": "seam", "tags": ["a"]})
    assert (status, body["title"], body["tags"]) == (201, "seam", ["a"])
    assert Note.objects.get(id=body["id"]).owner == user
