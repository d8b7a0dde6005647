"""Deletes are soft: a deleted todo or note goes to the trash, out of every live read and
write, restorable (version-checked) until ``purge_trash`` removes it after the retention."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connections
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from lightnote.errors import LightNoteError
from notes import services as note_services
from notes.models import Note
from todos import selectors as todo_selectors
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

KINDS = {
    "todos": (Todo, lambda owner, title: todo_services.todo_create(owner=owner, title=title)),
    "notes": (Note, lambda owner, title: note_services.note_create(owner=owner, title=title)),
}


@pytest.fixture(params=sorted(KINDS))
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _code(response: object) -> str:
    return response.json()["error"]["code"]  # type: ignore[attr-defined]


def test_delete_moves_to_the_trash_and_restore_brings_it_back(alice_api, user, kind) -> None:
    model, create = KINDS[kind]
    item = create(user, "Quarterly plan")
    assert alice_api.delete(f"/api/v1/{kind}/{item.id}/").status_code == 204

    assert alice_api.get(f"/api/v1/{kind}/{item.id}/").status_code == 404
    assert alice_api.get(f"/api/v1/{kind}/").json()["results"] == []
    patch = alice_api.patch(
        f"/api/v1/{kind}/{item.id}/", {"version": 2, "title": "x"}, format="json"
    )
    assert patch.status_code == 404
    trash = alice_api.get(f"/api/v1/{kind}/?trashed=1").json()
    assert [row["id"] for row in trash["results"]] == [str(item.id)]
    assert trash["results"][0]["version"] == 2  # the delete is a change

    restored = alice_api.post(f"/api/v1/{kind}/{item.id}/restore/")
    assert restored.status_code == 200
    assert restored.json()["title"] == "Quarterly plan"
    assert restored.json()["version"] == 3
    assert alice_api.get(f"/api/v1/{kind}/{item.id}/").status_code == 200
    assert alice_api.get(f"/api/v1/{kind}/?trashed=1").json()["results"] == []
    assert model.all_objects.filter(id=item.id).count() == 1


def test_restore_refuses_live_unknown_and_foreign_items(alice_api, user, other_user, kind) -> None:
    _model, create = KINDS[kind]
    live = create(user, "Still here")
    assert _code(alice_api.post(f"/api/v1/{kind}/{live.id}/restore/")).endswith("_NOT_FOUND")
    assert alice_api.post(f"/api/v1/{kind}/not-an-id/restore/").status_code == 404
    theirs = create(other_user, "Theirs")
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=other_user).key}")
    assert other.delete(f"/api/v1/{kind}/{theirs.id}/").status_code == 204
    response = alice_api.post(f"/api/v1/{kind}/{theirs.id}/restore/")
    assert response.status_code == 404  # never reveals another user's trash
    assert alice_api.get(f"/api/v1/{kind}/?trashed=1").json()["results"] == []


def test_todo_trashed_get_finds_only_the_owners_trashed_todo(user, other_user) -> None:
    """The lookup of the agent's ``restore_todo``: a live, unknown or foreign id is a 404."""
    trashed = todo_services.todo_create(owner=user, title="Gone")
    todo_services.todo_delete(owner=user, todo_id=trashed.id, expected_version=None)
    assert todo_selectors.todo_trashed_get(owner=user, todo_id=str(trashed.id)).id == trashed.id
    live = todo_services.todo_create(owner=user, title="Still here")
    theirs = todo_services.todo_create(owner=other_user, title="Theirs")
    todo_services.todo_delete(owner=other_user, todo_id=theirs.id, expected_version=None)
    for todo_id in (str(live.id), "not-an-id", str(theirs.id)):
        with pytest.raises(LightNoteError) as refused:
            todo_selectors.todo_trashed_get(owner=user, todo_id=todo_id)
        assert (refused.value.code, refused.value.status) == ("TODO_NOT_FOUND", 404)


def test_restore_is_version_checked(alice_api, user, kind) -> None:
    _model, create = KINDS[kind]
    item = create(user, "Draft")
    alice_api.delete(f"/api/v1/{kind}/{item.id}/")
    stale = alice_api.post(f"/api/v1/{kind}/{item.id}/restore/?version=1")
    assert stale.status_code == 409
    assert stale.json()["error"]["current_version"] == 2
    assert alice_api.post(f"/api/v1/{kind}/{item.id}/restore/?version=2").status_code == 200


def test_a_trashed_item_is_not_deleted_twice(alice_api, user, kind) -> None:
    _model, create = KINDS[kind]
    item = create(user, "Once")
    assert alice_api.delete(f"/api/v1/{kind}/{item.id}/").status_code == 204
    assert alice_api.delete(f"/api/v1/{kind}/{item.id}/").status_code == 404


def test_purge_removes_only_items_trashed_before_the_retention(user, kind) -> None:
    model, create = KINDS[kind]
    old, recent = create(user, "old"), create(user, "recent")
    create(user, "live")
    delete = todo_services.todo_delete if kind == "todos" else note_services.note_delete
    id_name = "todo_id" if kind == "todos" else "note_id"
    delete(owner=user, **{id_name: old.id})
    delete(owner=user, **{id_name: recent.id})
    model.all_objects.filter(id=old.id).update(deleted_at=timezone.now() - timedelta(days=31))
    out = StringIO()
    call_command("purge_trash", stdout=out)
    assert f"{model._meta.label}: 1 purged" in out.getvalue()
    assert set(model.all_objects.values_list("title", flat=True)) == {"recent", "live"}
    call_command("purge_trash", "--days", "1", stdout=StringIO())
    assert set(model.all_objects.values_list("title", flat=True)) == {"recent", "live"}


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_concurrent_restores_restore_once(user, kind) -> None:
    model, create = KINDS[kind]
    item = create(user, "Raced")
    token = Token.objects.create(user=user).key
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.delete(f"/api/v1/{kind}/{item.id}/").status_code == 204
    start = threading.Barrier(20)

    def one(_: int) -> int:
        racer = APIClient()
        racer.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        try:
            start.wait()
            return racer.post(f"/api/v1/{kind}/{item.id}/restore/").status_code
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=20) as pool:
        statuses = Counter(pool.map(one, range(20)))
    assert statuses[200] == 1
    assert statuses[200] + statuses[404] + statuses[409] == 20
    assert model.objects.get(id=item.id).version == 3  # created 1, deleted 2, restored 3
