"""Idempotency-Key on POST /api/v1/todos/ and /api/v1/notes/ (docs/api.md, last section; issue 6).

Runs on both passes; the 50-request burst needs the real MariaDB and Redis (``services``).
"""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import connections
from django.test import override_settings
from drf_spectacular.generators import SchemaGenerator
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from lightnote.controlstore import idempotency_claims, store
from lightnote.controlstore.redis import get_redis
from lightnote.rest import idempotency
from lightnote.texts.i18n import translate
from notes.models import Note
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

TODOS = "/api/v1/todos/"
NOTES = "/api/v1/notes/"
DAY = timedelta(hours=24)

# endpoint -> (path, model, a valid body, another valid body, a body the serializer refuses,
# a body the service refuses)
ENDPOINTS: dict[str, tuple[str, Any, dict[str, Any], dict[str, Any], dict[str, Any], Any]] = {
    "todos": (
        TODOS,
        Todo,
        {"title": "提交周报", "priority": 2, "due_at": "2026-12-02T21:00:00+08:00"},
        {"title": "提交月报"},
        {"title": "提交周报", "priority": 7},
        {"title": "   "},
    ),
    "notes": (
        NOTES,
        Note,
        {"title": "读书笔记", "content": "第一章", "tags": ["书", "笔记"]},
        {"title": "会议纪要"},
        {"title": "读书笔记", "tags": "not-a-list"},
        {"title": "   "},
    ),
}


@pytest.fixture(params=sorted(ENDPOINTS))
def endpoint(request: pytest.FixtureRequest) -> Any:
    return ENDPOINTS[request.param]


@pytest.fixture
def clock(time_machine: Any) -> Any:
    """Freeze the application's clock at the real current time; tests then shift it."""
    time_machine.move_to(datetime.now(tz=UTC), tick=False)
    return time_machine


def post(client: Any, path: str, body: Any, key: str | None = None, **headers: str) -> Any:
    if key is not None:
        headers["Idempotency-Key"] = key
    return client.post(path, body, format="json", headers=headers)


def code(response: Any) -> str:
    return response.json()["error"]["code"]


def redis_key(user: Any, key: str) -> str:
    return idempotency_claims.record_key(idempotency_claims.key_digest(user_id=user.pk, key=key))


def closed_port_caches() -> dict[str, Any]:
    return {"default": {**settings.CACHES["default"], "LOCATION": "redis://127.0.0.1:1/0"}}


class ProcessDied(Exception):
    """Stands for the process dying between the row's COMMIT and storing the response."""


# --- replay --------------------------------------------------------------------------------


def test_a_sequential_retry_replays_the_same_status_and_bytes_and_creates_one_row(
    alice_api, user, endpoint
) -> None:
    path, model, body, *_ = endpoint
    first = post(alice_api, path, body, key="retry-1")
    assert first.status_code == 201
    assert "Idempotent-Replayed" not in first.headers
    for _ in range(3):
        again = post(alice_api, path, body, key="retry-1")
        assert again.status_code == 201
        assert again.content == first.content
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.headers["Content-Type"] == first.headers["Content-Type"]
    row = model.objects.get()
    assert str(row.id) == first.json()["id"]
    assert row.owner == user
    assert row.idempotency_key == idempotency_claims.key_digest(user_id=user.pk, key="retry-1")
    assert len(row.idempotency_key) == 64


def test_a_completed_key_is_kept_24_hours_under_a_digest_name(alice_api, user) -> None:
    key = "keep-me-" + "x" * 40
    assert post(alice_api, TODOS, {"title": "t"}, key=key).status_code == 201
    name = redis_key(user, key)
    assert name.startswith("ln:idem:{")
    assert name.endswith("}")
    assert store.record_get(name)["state"] == "completed"
    assert DAY.total_seconds() * 1000 - 5_000 < get_redis().pttl(name) <= DAY.total_seconds() * 1000
    stored_names = [item.decode() for item in get_redis().scan_iter()]
    assert stored_names == [name]
    assert all(key not in item for item in stored_names)


def test_different_keys_with_the_same_payload_create_two_rows(alice_api) -> None:
    assert post(alice_api, TODOS, {"title": "t"}, key="a").status_code == 201
    assert post(alice_api, TODOS, {"title": "t"}, key="b").status_code == 201
    assert Todo.objects.count() == 2


# --- key syntax ---------------------------------------------------------------------------


@pytest.mark.parametrize("bad_key", ["", "   ", "k" * 256])
def test_an_empty_or_over_long_key_is_400_and_nothing_happens(alice_api, endpoint, bad_key) -> None:
    path, model, body, *_ = endpoint
    response = post(alice_api, path, body, key=bad_key, **{"Accept-Language": "en"})
    assert response.status_code == 400
    assert code(response) == "IDEMPOTENCY_KEY_INVALID"
    assert response.json()["error"]["message"] == (
        "The Idempotency-Key header must be 1 to 255 characters."
    )
    assert model.objects.count() == 0
    assert get_redis().dbsize() == 0


def test_a_key_of_255_characters_is_accepted(alice_api) -> None:
    key = "k" * 255
    first = post(alice_api, TODOS, {"title": "t"}, key=key)
    assert first.status_code == 201
    assert post(alice_api, TODOS, {"title": "t"}, key=key).content == first.content
    assert Todo.objects.count() == 1


# --- mismatch and in flight ---------------------------------------------------------------


def test_the_same_key_with_another_payload_is_422_and_creates_nothing(alice_api, endpoint) -> None:
    path, model, body, other_body, *_ = endpoint
    first = post(alice_api, path, body, key="k")
    response = post(alice_api, path, other_body, key="k", **{"Accept-Language": "en"})
    assert response.status_code == 422
    assert code(response) == "IDEMPOTENCY_KEY_REUSED"
    assert response.json()["error"]["message"] == (
        "This Idempotency-Key was already used for a different request."
    )
    assert model.objects.count() == 1
    # The stored answer is untouched by the refused request.
    assert post(alice_api, path, body, key="k").content == first.content


def test_the_same_key_on_the_other_endpoint_is_422(alice_api) -> None:
    assert post(alice_api, TODOS, {"title": "t"}, key="shared").status_code == 201
    response = post(alice_api, NOTES, {"title": "t"}, key="shared")
    assert (response.status_code, code(response)) == (422, "IDEMPOTENCY_KEY_REUSED")
    assert Note.objects.count() == 0


def held_claim(user: Any, key: str, path: str, body: Any) -> idempotency_claims.Claim:
    """Claim the key as a request in flight would (its holder never finishes)."""
    fingerprint = idempotency_claims.request_fingerprint(method="POST", path=path, body=body)
    result = idempotency_claims.claim(redis_key(user, key), fingerprint=fingerprint, path=path)
    assert result.status is idempotency_claims.ClaimStatus.HELD
    return result


def test_the_same_key_while_the_first_is_in_flight_is_409(alice_api, user, endpoint) -> None:
    path, model, body, other_body, *_ = endpoint
    held_claim(user, "busy", path, body)
    response = post(alice_api, path, body, key="busy", **{"Accept-Language": "zh-CN"})
    assert response.status_code == 409
    assert code(response) == "IDEMPOTENCY_KEY_IN_USE"
    assert (
        response.json()["error"]["message"]
        == "使用该 Idempotency-Key 的请求仍在处理中，请稍后重试。"
    )
    assert response.headers["Retry-After"] == "1"
    # Another payload under the same key is a reuse, in flight or not.
    assert post(alice_api, path, other_body, key="busy").status_code == 422
    assert model.objects.count() == 0


def test_a_holder_that_died_before_commit_is_taken_over_after_its_lease(
    alice_api, user, clock
) -> None:
    body = {"title": "t"}
    held_claim(user, "dead", TODOS, body)
    assert post(alice_api, TODOS, body, key="dead").status_code == 409
    clock.shift(timedelta(seconds=settings.LIGHTNOTE_EXECUTION_LEASE + 1))
    response = post(alice_api, TODOS, body, key="dead")
    assert response.status_code == 201
    assert "Idempotent-Replayed" not in response.headers  # nothing existed: created now
    assert Todo.objects.count() == 1
    assert post(alice_api, TODOS, body, key="dead").content == response.content


def test_concurrent_claims_of_one_key_have_exactly_one_holder() -> None:
    key = idempotency_claims.record_key("c" * 64)
    fingerprint = idempotency_claims.request_fingerprint(method="POST", path=TODOS, body={"t": 1})
    start = threading.Barrier(20)

    def one(_: int) -> idempotency_claims.ClaimStatus:
        start.wait()
        return idempotency_claims.claim(key, fingerprint=fingerprint, path=TODOS).status

    with ThreadPoolExecutor(max_workers=20) as pool:
        statuses = Counter(pool.map(one, range(20)))
    held, in_use = idempotency_claims.ClaimStatus.HELD, idempotency_claims.ClaimStatus.IN_USE
    assert statuses == {held: 1, in_use: 19}


# --- validation failures are not stored ---------------------------------------------------


@pytest.mark.parametrize("refused_by", ["serializer", "service"])
def test_a_validation_failure_is_not_stored_and_a_corrected_retry_creates_once(
    alice_api, user, endpoint, refused_by
) -> None:
    path, model, body, _other, bad_shape, bad_rule = endpoint
    bad = bad_shape if refused_by == "serializer" else bad_rule
    refused = post(alice_api, path, bad, key="fix-me")
    assert refused.status_code == 400
    title_required = "TODO_TITLE_REQUIRED" if path == TODOS else "NOTE_TITLE_REQUIRED"
    assert code(refused) == ("VALIDATION_ERROR" if refused_by == "serializer" else title_required)
    assert store.record_get(redis_key(user, "fix-me")) is None  # released, not stored
    assert model.objects.count() == 0
    corrected = post(alice_api, path, body, key="fix-me")
    assert corrected.status_code == 201
    assert "Idempotent-Replayed" not in corrected.headers
    again = post(alice_api, path, body, key="fix-me")
    assert (again.status_code, again.content) == (201, corrected.content)
    assert model.objects.count() == 1


def test_a_body_that_is_not_json_is_400_before_any_claim(alice_api) -> None:
    response = alice_api.post(
        TODOS, b"{not json", content_type="application/json", headers={"Idempotency-Key": "k"}
    )
    assert (response.status_code, code(response)) == (400, "MALFORMED_REQUEST")
    assert get_redis().dbsize() == 0


# --- per user -----------------------------------------------------------------------------


def test_keys_are_scoped_per_user(client_for, user, other_user, endpoint) -> None:
    path, model, body, *_ = endpoint
    alice = post(client_for(user), path, body, key="same-key")
    bob = post(client_for(other_user), path, body, key="same-key")
    assert (alice.status_code, bob.status_code) == (201, 201)
    assert "Idempotent-Replayed" not in bob.headers
    assert alice.json()["id"] != bob.json()["id"]
    assert {row.owner for row in model.objects.all()} == {user, other_user}
    assert model.objects.count() == 2
    assert redis_key(user, "same-key") != redis_key(other_user, "same-key")


# --- the store is down --------------------------------------------------------------------


def test_with_redis_down_keyed_posts_are_503_and_unkeyed_posts_still_create(
    alice_api, endpoint
) -> None:
    path, model, body, *_ = endpoint
    with override_settings(CACHES=closed_port_caches()):
        keyed = post(alice_api, path, body, key="k", **{"Accept-Language": "en"})
        unkeyed = post(alice_api, path, body)
    assert keyed.status_code == 503
    assert code(keyed) == "IDEMPOTENCY_STORE_UNAVAILABLE"
    assert keyed.json()["error"]["message"] == (
        "The idempotency service is unavailable; nothing was done. Please retry later."
    )
    assert unkeyed.status_code == 201
    assert [str(row.id) for row in model.objects.all()] == [unkeyed.json()["id"]]
    assert model.objects.get().idempotency_key is None


def test_unkeyed_posts_leave_redis_untouched(alice_api) -> None:
    assert post(alice_api, TODOS, {"title": "t"}).status_code == 201
    assert post(alice_api, NOTES, {"title": "t"}).status_code == 201
    assert get_redis().dbsize() == 0


def test_a_store_failure_after_commit_still_answers_201_and_the_row_fences_retries(
    alice_api, user, clock, monkeypatch
) -> None:
    def store_down(*args: Any, **kwargs: Any) -> bool:
        raise store.StoreUnavailable("ConnectionError: down")

    monkeypatch.setattr(idempotency_claims, "complete", store_down)
    first = post(alice_api, TODOS, {"title": "t"}, key="k")
    assert first.status_code == 201
    monkeypatch.undo()
    clock.shift(timedelta(seconds=settings.LIGHTNOTE_EXECUTION_LEASE + 1))
    retry = post(alice_api, TODOS, {"title": "t"}, key="k")
    assert (retry.status_code, retry.content) == (201, first.content)
    assert Todo.objects.count() == 1


# --- a Redis loss and a lost COMMIT reply -------------------------------------------------


def test_a_retry_after_a_lost_commit_reply_returns_the_row_and_creates_no_twin(
    alice_api, user, clock, monkeypatch, endpoint
) -> None:
    path, model, body, *_ = endpoint

    def die_after_commit(*args: Any, **kwargs: Any) -> bool:
        raise ProcessDied

    monkeypatch.setattr(idempotency_claims, "complete", die_after_commit)
    with pytest.raises(ProcessDied):
        post(alice_api, path, body, key="lost-reply")
    monkeypatch.undo()
    row = model.objects.get()  # committed, but the client never heard of it
    assert store.record_get(redis_key(user, "lost-reply"))["state"] == "running"

    in_flight = post(alice_api, path, body, key="lost-reply")
    assert (in_flight.status_code, code(in_flight)) == (409, "IDEMPOTENCY_KEY_IN_USE")

    clock.shift(timedelta(seconds=settings.LIGHTNOTE_EXECUTION_LEASE + 1))
    retry = post(alice_api, path, body, key="lost-reply")
    assert retry.status_code == 201
    assert retry.json()["id"] == str(row.id)
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert model.objects.count() == 1
    # The answer from the row is now the stored one.
    assert store.record_get(redis_key(user, "lost-reply"))["state"] == "completed"
    assert post(alice_api, path, body, key="lost-reply").content == retry.content


def test_a_lost_redis_record_is_answered_from_the_row(alice_api, endpoint) -> None:
    path, model, body, *_ = endpoint
    first = post(alice_api, path, body, key="k")
    get_redis().flushdb()  # a Redis failover without persistence
    retry = post(alice_api, path, body, key="k")
    assert (retry.status_code, retry.content) == (201, first.content)
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert model.objects.count() == 1


def test_a_create_that_loses_the_insert_race_answers_from_the_winners_row(
    alice_api, user, monkeypatch
) -> None:
    digest = idempotency_claims.key_digest(user_id=user.pk, key="race")
    # The other holder (after a takeover) commits between our lookup and our INSERT.
    winner = todo_services.todo_create(owner=user, title="t", idempotency_key=digest)
    real_find_row = idempotency._find_row
    lookups: list[Any] = []

    def lookup_before_the_winner_committed(*args: Any, **kwargs: Any) -> Any:
        lookups.append(kwargs["digest"])
        return None if len(lookups) == 1 else real_find_row(*args, **kwargs)

    monkeypatch.setattr(idempotency, "_find_row", lookup_before_the_winner_committed)
    response = post(alice_api, TODOS, {"title": "t"}, key="race")
    assert response.status_code == 201
    assert response.json()["id"] == str(winner.id)
    assert lookups == [digest, digest]  # the IntegrityError was answered from the row
    assert Todo.objects.count() == 1


# --- expiry -------------------------------------------------------------------------------


def test_after_24_hours_the_same_key_creates_anew(alice_api, user, clock, endpoint) -> None:
    path, model, body, *_ = endpoint
    first = post(alice_api, path, body, key="daily")
    name = redis_key(user, "daily")
    assert get_redis().pttl(name) > DAY.total_seconds() * 1000 - 5_000
    clock.shift(DAY + timedelta(seconds=1))
    get_redis().delete(name)  # what Redis does when the 24-hour TTL runs out
    second = post(alice_api, path, body, key="daily")
    assert second.status_code == 201
    assert "Idempotent-Replayed" not in second.headers
    assert second.json()["id"] != first.json()["id"]
    assert model.objects.count() == 2
    digest = idempotency_claims.key_digest(user_id=user.pk, key="daily")
    assert str(model.objects.get(idempotency_key=digest).id) == second.json()["id"]
    assert model.objects.get(id=first.json()["id"]).idempotency_key is None
    assert post(alice_api, path, body, key="daily").content == second.content


def test_within_24_hours_a_redis_loss_still_answers_from_the_row(alice_api, user, clock) -> None:
    first = post(alice_api, TODOS, {"title": "t"}, key="k")
    clock.shift(DAY - timedelta(seconds=1))
    get_redis().flushdb()
    retry = post(alice_api, TODOS, {"title": "t"}, key="k")
    assert (retry.status_code, retry.json()["id"]) == (201, first.json()["id"])
    assert Todo.objects.count() == 1


# --- 50 concurrent requests ---------------------------------------------------------------


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_50_concurrent_same_key_posts_create_exactly_one_row(user, endpoint) -> None:
    path, model, body, *_ = endpoint
    token = Token.objects.create(user=user).key
    start = threading.Barrier(50)

    def one(_: int) -> tuple[int, bytes, str | None]:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        try:
            start.wait()
            response = post(client, path, body, key="burst")
            return (
                response.status_code,
                response.content,
                response.headers.get("Idempotent-Replayed"),
            )
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=50) as pool:
        answers = list(pool.map(one, range(50)))

    assert model.objects.count() == 1
    created = [content for status, content, replayed in answers if status == 201 and not replayed]
    assert len(created) == 1
    statuses = Counter(status for status, _, _ in answers)
    assert set(statuses) <= {201, 409}
    for status, content, _ in answers:
        if status == 201:
            assert content == created[0]
        else:
            assert b"IDEMPOTENCY_KEY_IN_USE" in content
    late = post(APIClient(headers={"Authorization": f"Token {token}"}), path, body, key="burst")
    assert (late.status_code, late.content) == (201, created[0])


# --- schema and texts ---------------------------------------------------------------------


def test_the_openapi_schema_documents_the_header_and_statuses_on_both_posts() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    for path in (TODOS, NOTES):
        operation = schema["paths"][path]["post"]
        headers = {p["name"]: p for p in operation["parameters"] if p["in"] == "header"}
        assert headers["Idempotency-Key"].get("required", False) is False
        assert headers["Idempotency-Key"]["schema"] == {
            "type": "string",
            "minLength": 1,
            "maxLength": 255,
        }
        responses = operation["responses"]
        assert {"201", "400", "409", "422", "503"} <= set(responses)
        assert "IDEMPOTENCY_KEY_IN_USE" in responses["409"]["description"]
        assert "IDEMPOTENCY_KEY_REUSED" in responses["422"]["description"]
        assert "IDEMPOTENCY_KEY_INVALID" in responses["400"]["description"]
    # Other operations do not advertise the header.
    list_params = schema["paths"][TODOS]["get"]["parameters"]
    assert "Idempotency-Key" not in {p["name"] for p in list_params}


@pytest.mark.parametrize(
    "error_code",
    [
        "IDEMPOTENCY_KEY_INVALID",
        "IDEMPOTENCY_KEY_IN_USE",
        "IDEMPOTENCY_KEY_REUSED",
        "IDEMPOTENCY_STORE_UNAVAILABLE",
    ],
)
def test_every_idempotency_error_has_both_languages(error_code) -> None:
    zh, en = (
        translate(error_code, "zh-CN", max_length=255),
        translate(error_code, "en", max_length=255),
    )
    assert error_code not in (zh, en)
    assert zh != en
    assert "{" not in zh + en
