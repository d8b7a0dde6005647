"""Issue 10, the HTTP half: every hostile or unlucky request answers in the one error format.

Rows: 3 (deep JSON -> 400 MALFORMED_REQUEST), 4 (oversized body -> 413 REQUEST_TOO_LARGE),
5 (database lost -> 503 DATABASE_UNAVAILABLE; a confirm before the claim leaves the card
ready), 7 (implausible due times refused, whole-minute offsets out), 11 (only real zone
names), 12 (an empty query value is a 400, never "absent"), and Django's own 400/403/404/405
in the error body under /api/. Every test goes through the HTTP API; the database tests
break the real connection (MariaDB in the services pass: a closed port).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import zoneinfo
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import time_machine
from django.db import OperationalError, connection
from django.test import Client, override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from agent.cards import checks as confirm_checks
from agent.cards import confirm as agent_execution
from agent.cards import records as cards
from agent.models import ActionReceipt
from notes.models import Note
from tests.agent_helpers import flow_with_card, token_client
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

TOKEN = "/api/v1/auth/token/"
ME = "/api/v1/me/"
TODOS = "/api/v1/todos/"
NOTES = "/api/v1/notes/"
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)$")


def code(response: Any) -> str:
    return response.json()["error"]["code"]


def assert_error_body(response: Any, status: int, error_code: str) -> None:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert body["error"]["code"] == error_code, body
    assert isinstance(body["error"]["message"], str)
    assert body["error"]["message"]


def deep_objects(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def deep_arrays(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.fixture
def staff(make_user: Any) -> Any:
    return make_user("root", is_staff=True, is_superuser=True)


# --- row 3: deep JSON --------------------------------------------------------------------

# Every JSON-taking operation (the corpus test covers them all from the schema as well).
JSON_OPERATIONS = [
    ("post", TOKEN),
    ("patch", ME),
    ("post", TODOS),
    ("patch", TODOS + "00000000-0000-0000-0000-000000000000/"),
    ("post", NOTES),
    ("patch", NOTES + "00000000-0000-0000-0000-000000000000/"),
    ("post", "/api/v1/agent/sessions/"),
    ("post", "/api/v1/agent/sessions/00000000-0000-0000-0000-000000000000/messages/"),
    ("post", "/api/v1/agent/confirmations/reissue/"),
    ("post", "/api/v1/agent/confirmations/confirm/"),
    ("post", "/api/v1/agent/confirmations/reject/"),
    ("post", "/api/v1/agent/confirmations/edit/"),
    ("post", "/api/v1/agent/confirmations/undo/"),
    ("post", "/api/v1/agent/confirmations/status/"),
    ("post", "/api/v1/agent/continuations/reply/"),
    ("post", "/api/v1/admin/impersonation/"),
]


@pytest.mark.parametrize(("method", "path"), JSON_OPERATIONS)
@pytest.mark.parametrize(
    "body", [deep_objects(1000), deep_arrays(100_000)], ids=["objects-1000", "arrays-100000"]
)
def test_deeply_nested_json_is_a_400_malformed_request_everywhere(
    client_for, staff, method, path, body, caplog
) -> None:
    client = client_for(staff)
    with caplog.at_level(logging.ERROR):
        response = getattr(client, method)(path, body, content_type="application/json")
    assert_error_body(response, 400, "MALFORMED_REQUEST")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], "no traceback logged"


def test_json_at_the_depth_limit_is_parsed_and_one_level_more_is_not(alice_api) -> None:
    # 32 levels: the body (1) and 31 arrays inside "title" are parsed, then refused by type.
    allowed = '{"title": ' + deep_arrays(31) + "}"
    response = alice_api.post(TODOS, allowed, content_type="application/json")
    assert_error_body(response, 400, "VALIDATION_ERROR")
    too_deep = '{"title": ' + deep_arrays(32) + "}"
    response = alice_api.post(TODOS, too_deep, content_type="application/json")
    assert_error_body(response, 400, "MALFORMED_REQUEST")
    assert not Todo.objects.exists()


def test_a_deeply_nested_page_cursor_is_a_400(alice_api, settings) -> None:
    import base64

    # Past the request line limit (a 414) if it were the default: the cursor's own check.
    settings.LIGHTNOTE_MAX_REQUEST_LINE = 10_000_000
    cursor = base64.urlsafe_b64encode(deep_arrays(50_000).encode()).decode()
    response = alice_api.get(TODOS, {"cursor": cursor})
    assert_error_body(response, 400, "PAGINATION_CURSOR_INVALID")


def test_invalid_utf8_and_nul_bytes_are_clean_400s(alice_api) -> None:
    response = alice_api.post(TODOS, b'{"title": "\xff\xfe"}', content_type="application/json")
    assert_error_body(response, 400, "MALFORMED_REQUEST")
    response = alice_api.post(TODOS, {"title": "a\x00b"}, format="json")
    assert_error_body(response, 400, "VALIDATION_ERROR")
    assert not Todo.objects.exists()


# --- row 4: oversized bodies -------------------------------------------------------------


def test_a_body_over_the_limit_is_a_413_json_error_unread(alice_api, settings) -> None:
    big = '{"title": "' + "x" * (settings.LIGHTNOTE_MAX_BODY_BYTES + 1) + '"}'
    response = alice_api.post(TODOS, big, content_type="application/json")
    assert_error_body(response, 413, "REQUEST_TOO_LARGE")
    assert str(settings.LIGHTNOTE_MAX_BODY_BYTES) in response.json()["error"]["message"]
    assert not Todo.objects.exists()


def test_a_ten_megabyte_token_login_is_a_413(api_client, user) -> None:
    big = '{"username": "alice", "password": "' + "p" * 10_000_000 + '"}'
    response = api_client.post(TOKEN, big, content_type="application/json")
    assert_error_body(response, 413, "REQUEST_TOO_LARGE")


def test_the_limit_is_configurable(alice_api, settings) -> None:
    settings.LIGHTNOTE_MAX_BODY_BYTES = 2048
    body = '{"title": "' + "x" * 3000 + '"}'
    assert_error_body(
        alice_api.post(TODOS, body, content_type="application/json"), 413, "REQUEST_TOO_LARGE"
    )
    settings.LIGHTNOTE_MAX_BODY_BYTES = 1_048_576
    response = alice_api.post(TODOS, body, content_type="application/json")
    assert_error_body(response, 400, "VALIDATION_ERROR")  # read now: the title is too long


def test_an_oversized_page_form_post_gets_a_page_not_djangos_400(user, settings) -> None:
    browser = Client()
    browser.force_login(user)
    response = browser.post(
        "/todos/",
        {"title": "x" * (settings.LIGHTNOTE_MAX_BODY_BYTES + 10)},
        HTTP_ACCEPT="text/html",
    )
    assert response.status_code == 413
    assert response["Content-Type"].startswith("text/html")
    assert 'data-code="REQUEST_TOO_LARGE"' in response.content.decode()
    assert not Todo.objects.exists()


def test_a_body_that_django_finds_too_big_while_reading_is_a_413(user) -> None:
    # Django's own reading limit (here lower than ours) raises RequestDataTooBig in the CSRF
    # middleware; that is the path a body without a usable Content-Length would take.
    browser = Client()
    browser.force_login(user)
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1024):
        response = browser.post("/todos/", {"title": "x" * 4000})
        api = browser.post("/api/v1/todos/", {"title": "x" * 4000})
    assert response.status_code == 413
    assert 'data-code="REQUEST_TOO_LARGE"' in response.content.decode()
    # The API reads no form: its parser refuses the content type before any byte is read.
    assert_error_body(api, 415, "UNSUPPORTED_MEDIA_TYPE")
    assert not Todo.objects.exists()


# --- row 5: the database goes away ---------------------------------------------------------


@contextmanager
def database_down() -> Iterator[None]:
    """Make the database unreachable for the block.

    MariaDB (services pass): the connection is closed and pointed at a closed port, so the
    next query really fails to connect. SQLite (in memory, cannot be "unreachable"): every
    statement raises the driver's OperationalError through Django's wrapper hook.
    """
    if connection.vendor == "mysql":
        original = connection.settings_dict["PORT"]
        connection.close()
        connection.settings_dict["PORT"] = "1"  # nothing listens there
        try:
            yield
        finally:
            connection.close()
            connection.settings_dict["PORT"] = original
        return

    def refuse(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        raise OperationalError("unable to open database file (test fault)")

    with connection.execute_wrapper(refuse):
        yield


DB_REQUESTS = [
    ("get", TODOS, None),
    ("get", NOTES, None),
    ("get", ME, None),
    ("post", TODOS, {"title": "x"}),
    ("patch", ME, {"language": "en"}),
    ("post", "/api/v1/agent/sessions/", {}),
    ("get", "/api/v1/agent/sessions/", None),
    (
        "post",
        "/api/v1/agent/sessions/00000000-0000-4000-8000-000000000000/messages/",
        {"text": "x"},
    ),
    ("post", "/api/v1/agent/confirmations/status/", {"token": "x", "session_id": "y"}),
]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("method", "path", "body"), DB_REQUESTS)
def test_a_lost_database_is_a_503_database_unavailable(user, method, path, body) -> None:
    client = token_client(user)
    with database_down():
        kwargs = {"format": "json"} if body is not None else {}
        response = getattr(client, method)(path, body, **kwargs)
    assert_error_body(response, 503, "DATABASE_UNAVAILABLE")
    assert response["Retry-After"]


@pytest.mark.django_db(transaction=True)
def test_a_lost_database_on_pages_and_session_requests_is_a_503(user) -> None:
    browser = Client()
    browser.force_login(user)
    with database_down():
        page = browser.get("/todos/", HTTP_ACCEPT="text/html")
        api = browser.get(TODOS)
    assert page.status_code == 503
    assert 'data-code="DATABASE_UNAVAILABLE"' in page.content.decode()
    assert_error_body(api, 503, "DATABASE_UNAVAILABLE")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("endpoint", ["confirm", "status", "reject"])
def test_confirm_before_the_claim_with_the_database_lost_leaves_the_card_ready(
    user, endpoint
) -> None:
    flow = flow_with_card(user)
    with database_down():
        response = getattr(flow, endpoint)()
    assert_error_body(response, 503, "DATABASE_UNAVAILABLE")
    current = cards.card_get(flow.token)
    assert current is not None
    assert current.state == cards.CardState.READY
    # The database is back: the same card confirms, exactly once.
    confirmed = flow.confirm()
    assert confirmed.status_code == 200, confirmed.content
    assert confirmed.json()["outcome"]["ok"] is True
    assert Todo.objects.filter(owner=user).count() == 1
    assert ActionReceipt.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_database_lost_after_the_claim_settles_ok_null_then_reconciles(
    user, monkeypatch, settings
) -> None:
    flow = flow_with_card(user)
    original = agent_execution.execute_claimed

    def execute_with_the_database_gone(*args: Any, **kwargs: Any) -> Any:
        with database_down():
            return original(*args, **kwargs)

    monkeypatch.setattr(agent_execution, "execute_claimed", execute_with_the_database_gone)
    response = flow.confirm()
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["state"] == "settled"
    assert body["outcome"]["ok"] is None
    assert body["outcome"]["error"]["code"] == "ACTION_OUTCOME_UNKNOWN"
    monkeypatch.undo()
    assert not Todo.objects.exists()
    assert not ActionReceipt.objects.exists()
    # Nothing executes again: a repeat confirm answers the same open outcome (the receipt
    # table decides once the lease has passed, as for a lost COMMIT).
    again = flow.confirm()
    assert again.status_code == 200
    assert again.json()["outcome"]["ok"] in {None, False}
    assert again.json()["outcome"]["ok"] is None  # the lease has not passed: still open
    assert not Todo.objects.exists()
    # After the lease the receipt table decides: no receipt, so a voided slot and "not
    # executed" (ok false), and still nothing written.
    lease = dt.timedelta(seconds=settings.LIGHTNOTE_EXECUTION_LEASE + 5)
    with time_machine.travel(timezone.now() + lease, tick=False):
        reconciled = flow.confirm()
    assert reconciled.status_code == 200, reconciled.content
    outcome = reconciled.json()["outcome"]
    assert (outcome["ok"], outcome["error"]["code"]) == (False, "ACTION_NOT_EXECUTED")
    assert not Todo.objects.exists()
    assert list(ActionReceipt.objects.values_list("status", flat=True)) == ["voided"]


# --- row 7: due times ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "due_at",
    [
        "1480-02-09T08:59:17.59-19:05",
        "1999-01-01T00:00:00+08:00",
        "9998-12-31T00:00:00+00:00",
        "2026-12-02T21:00:00+08:05:43",  # an offset with seconds is not RFC 3339
    ],
)
def test_an_implausible_due_time_is_a_400_on_due_at(alice_api, due_at) -> None:
    response = alice_api.post(TODOS, {"title": "x", "due_at": due_at}, format="json")
    assert_error_body(response, 400, "VALIDATION_ERROR")
    assert set(response.json()["error"]["fields"]) == {"due_at"}
    assert not Todo.objects.exists()


def test_an_implausible_due_time_is_refused_on_patch_too(alice_api, user) -> None:
    todo = todo_services.todo_create(owner=user, title="x")
    response = alice_api.patch(
        f"{TODOS}{todo.id}/", {"version": 1, "due_at": "1480-02-09T08:59:17-19:05"}, format="json"
    )
    assert_error_body(response, 400, "VALIDATION_ERROR")
    assert "due_at" in response.json()["error"]["fields"]
    todo.refresh_from_db()
    assert (todo.due_at, todo.version) == (None, 1)  # nothing written


def test_the_api_and_the_agent_share_one_window(alice_api) -> None:
    from lightnote import times

    now = timezone.now()
    earliest, latest = times.plausible_window(now)
    inside = (earliest + dt.timedelta(days=2)).isoformat()
    outside = (latest + dt.timedelta(days=2)).isoformat()
    assert (
        alice_api.post(TODOS, {"title": "in", "due_at": inside}, format="json").status_code == 201
    )
    refused = alice_api.post(TODOS, {"title": "out", "due_at": outside}, format="json")
    assert refused.status_code == 400
    from agent.timeparse import TimeParseError, parse_time

    with pytest.raises(TimeParseError) as caught:
        parse_time(outside, now=now, zone=zoneinfo.ZoneInfo("Asia/Shanghai"))
    assert caught.value.reason == "suspicious"


def test_a_stored_time_in_a_local_mean_time_zone_reads_back_with_whole_minute_offsets(
    alice_api, user
) -> None:
    # A row written before the rule (or by a migration): 1480, when Shanghai ran +08:05:43.
    instant = dt.datetime(1480, 2, 10, 4, 4, 17, 590000, tzinfo=dt.UTC)
    todo = todo_services.todo_create(owner=user, title="old", due_at=instant)
    user.time_zone = "Asia/Shanghai"
    user.save()
    for body in (
        alice_api.get(f"{TODOS}{todo.id}/").json(),
        alice_api.get(TODOS).json()["results"][0],
    ):
        due = body["due_at"]
        assert RFC3339.match(due), due
        assert dt.datetime.fromisoformat(due) == instant  # the same instant, exactly
        for name in ("created_at", "updated_at"):
            assert RFC3339.match(body[name]), body[name]


# --- row 11: time zones ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "zone",
    [
        "posix/Asia/Shanghai",
        "right/UTC",
        "localtime",
        "posixrules",
        "Factory",
        "asia/shanghai",
        "../../etc/passwd",
        "Asia/Shanghai\x00",
        "",
    ],
)
def test_me_refuses_zone_names_that_are_not_places(alice_api, user, zone) -> None:
    response = alice_api.patch(ME, {"time_zone": zone}, format="json")
    assert_error_body(response, 400, "VALIDATION_ERROR")
    user.refresh_from_db()
    assert user.time_zone == "Asia/Shanghai"


@pytest.mark.parametrize("zone", ["Asia/Calcutta", "UTC", "America/New_York", "Etc/GMT+5"])
def test_me_keeps_accepting_real_zones_and_links(alice_api, zone) -> None:
    response = alice_api.patch(ME, {"time_zone": zone}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["time_zone"] == zone


def test_the_settings_page_and_the_env_use_the_same_zone_rule(user, monkeypatch) -> None:
    from django.core.exceptions import ImproperlyConfigured

    from lightnote.accounts.preferences import zone_choices
    from lightnote.settings import env_time_zone

    choices = set(zone_choices())
    assert "Asia/Calcutta" in choices
    assert "UTC" in choices
    assert not {"localtime", "posixrules", "Factory"} & choices
    assert not [name for name in choices if name.startswith(("posix/", "right/"))]
    browser = Client()
    browser.force_login(user)
    browser.post("/settings/", {"time_zone": "posix/Asia/Shanghai", "language": "en"})
    user.refresh_from_db()
    assert user.time_zone == "Asia/Shanghai"
    monkeypatch.setenv("LIGHTNOTE_TIME_ZONE", "localtime")
    with pytest.raises(ImproperlyConfigured):
        env_time_zone("LIGHTNOTE_TIME_ZONE", "Asia/Shanghai")


# --- row 12: empty and garbage query values --------------------------------------------------


def test_delete_with_an_empty_version_is_a_400_and_deletes_nothing(alice_api, user) -> None:
    todo = todo_services.todo_create(owner=user, title="keep me")
    response = alice_api.delete(f"{TODOS}{todo.id}/?version=")
    assert_error_body(response, 400, "VALIDATION_ERROR")
    assert set(response.json()["error"]["fields"]) == {"version"}
    assert Todo.objects.filter(pk=todo.pk).exists()


@pytest.mark.parametrize("query", ["version=", "version=abc", "version=0", "version=1.5"])
def test_every_version_query_refuses_empty_and_garbage(alice_api, user, query) -> None:
    from notes import services as note_services

    todo = todo_services.todo_create(owner=user, title="t")
    note = note_services.note_create(owner=user, title="n")
    for url in (
        f"{TODOS}{todo.id}/?{query}",
        f"{NOTES}{note.id}/?{query}",
    ):
        assert_error_body(alice_api.delete(url), 400, "VALIDATION_ERROR")
    todo_services.todo_delete(owner=user, todo_id=todo.id, expected_version=None)
    assert_error_body(alice_api.post(f"{TODOS}{todo.id}/restore/?{query}"), 400, "VALIDATION_ERROR")
    assert Note.objects.filter(pk=note.pk).exists()


@pytest.mark.parametrize(
    ("url", "field"),
    [
        (TODOS + "?status=", "status"),
        (TODOS + "?status=banana", "status"),
        (TODOS + "?trashed=", "trashed"),
        (TODOS + "?trashed=maybe", "trashed"),
        (TODOS + "?page=", "page"),
        (TODOS + "?page_size=", "page_size"),
        (TODOS + "?page_size=abc", "page_size"),
        (TODOS + "?page_size=0", "page_size"),
        (TODOS + "?page_size=-3", "page_size"),
        (NOTES + "?q=", "q"),
        (NOTES + "?tag=", "tag"),
        (NOTES + "?trashed=", "trashed"),
        (NOTES + "?page_size=x", "page_size"),
        ("/api/v1/agent/sessions/?page_size=", "page_size"),
    ],
)
def test_list_filters_and_paging_refuse_empty_and_garbage_values(alice_api, url, field) -> None:
    response = alice_api.get(url)
    assert_error_body(response, 400, "VALIDATION_ERROR")
    assert field in response.json()["error"]["fields"]


def test_an_empty_cursor_still_means_the_first_page(alice_api, user) -> None:
    todo_services.todo_create(owner=user, title="t")
    response = alice_api.get(TODOS + "?cursor=")
    assert response.status_code == 200
    assert len(response.json()["results"]) == 1


# --- Django's own errors in the error body under /api/ --------------------------------------


def test_a_bad_host_is_a_400_error_body_under_api(alice_api) -> None:
    response = alice_api.get(ME, HTTP_HOST="evil.example")
    assert_error_body(response, 400, "BAD_REQUEST")


def test_405_and_404_under_api_are_error_bodies(alice_api) -> None:
    assert_error_body(alice_api.put(ME, {}, format="json"), 405, "METHOD_NOT_ALLOWED")
    assert_error_body(alice_api.get("/api/v1/nowhere/"), 404, "NOT_FOUND")
    assert_error_body(alice_api.get("/api/nowhere/"), 404, "NOT_FOUND")


def test_a_session_request_without_csrf_is_a_403_error_body(user) -> None:
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post(TODOS, {"title": "x"}, format="json")
    assert_error_body(response, 403, "PERMISSION_DENIED")
    assert not Todo.objects.exists()


def test_wrong_content_types_are_415_error_bodies(alice_api) -> None:
    for content_type in ("text/plain", "application/xml", "multipart/form-data; boundary=x"):
        response = alice_api.post(TODOS, "title=x", content_type=content_type)
        assert_error_body(response, 415, "UNSUPPORTED_MEDIA_TYPE")


def test_the_schema_declares_the_edge_errors_on_every_operation(api_client) -> None:
    schema = api_client.get("/api/schema/", {"format": "json"}).json()
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            assert "503" in responses, f"{method} {path}"
            if "requestBody" in operation:
                assert "413" in responses, f"{method} {path}"
                assert "411" in responses, f"{method} {path}"
                examples = responses["400"]["content"]["application/json"]["examples"]
                assert "MALFORMED_REQUEST" in examples, f"{method} {path}"


def test_the_todo_page_applies_the_same_window_but_keeps_an_untouched_old_due(user) -> None:
    browser = Client(HTTP_ACCEPT_LANGUAGE="en")
    browser.force_login(user)
    response = browser.post("/todos/", {"title": "old", "due_at": "1480-02-09T08:59"})
    assert response.status_code == 400
    assert "looks wrong" in response.content.decode()
    assert not Todo.objects.exists()
    # A todo already due long ago (stored before the rule) can still be edited unchanged.
    old = dt.datetime(2001, 5, 1, 9, 0, tzinfo=zoneinfo.ZoneInfo("Asia/Shanghai"))
    todo = todo_services.todo_create(owner=user, title="old", due_at=old)
    response = browser.post(
        f"/todos/{todo.id}/",
        {"action": "save", "version": 1, "title": "renamed", "due_at": "2001-05-01T09:00"},
    )
    assert response.status_code in {200, 302}, response.content[:300]
    todo.refresh_from_db()
    assert (todo.title, todo.due_at) == ("renamed", old)


class DatabaseLostInMiddleware:
    """A middleware whose own query fails (as a session or context lookup would)."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        raise OperationalError("server has gone away (test fault)")


@pytest.mark.parametrize(("path", "json_body"), [(TODOS, True), ("/todos/", False)])
def test_a_database_lost_inside_a_middleware_is_a_503_not_a_500(settings, path, json_body) -> None:
    settings.MIDDLEWARE = [
        *settings.MIDDLEWARE,
        "tests.test_security_http.DatabaseLostInMiddleware",
    ]
    client = Client(raise_request_exception=False)
    response = client.get(path, HTTP_ACCEPT="application/json" if json_body else "text/html")
    assert response.status_code == 503
    if json_body:
        assert_error_body(response, 503, "DATABASE_UNAVAILABLE")
    else:
        assert 'data-code="DATABASE_UNAVAILABLE"' in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_database_lost_after_authentication_but_before_the_claim_keeps_the_card_ready(
    user, monkeypatch
) -> None:
    # The session check's query is the first to meet the lost database, after
    # authentication, before the claim.
    flow = flow_with_card(user)
    browser = APIClient()
    browser.force_login(user)
    original = confirm_checks.session_access

    def session_check_with_the_database_gone(*args: Any, **kwargs: Any) -> Any:
        with database_down():
            return original(*args, **kwargs)

    monkeypatch.setattr(confirm_checks, "session_access", session_check_with_the_database_gone)
    body = {"token": flow.token, "session_id": flow.session_id}
    response = browser.post("/api/v1/agent/confirmations/confirm/", body, format="json")
    assert_error_body(response, 503, "DATABASE_UNAVAILABLE")
    monkeypatch.undo()
    current = cards.card_get(flow.token)
    assert current is not None
    assert current.state == cards.CardState.READY
    again = browser.post("/api/v1/agent/confirmations/confirm/", body, format="json")
    assert again.json()["outcome"]["ok"] is True
    assert Todo.objects.filter(owner=user).count() == 1


def test_a_chunked_body_without_a_length_is_a_411_not_an_empty_body(alice_api) -> None:
    # Django reads a body only up to its Content-Length; without one it would act on "{}".
    response = alice_api.generic(
        "POST",
        TODOS,
        b'{"title": "x"}',
        content_type="application/json",
        CONTENT_LENGTH="",
        HTTP_TRANSFER_ENCODING="chunked",
    )
    assert_error_body(response, 411, "LENGTH_REQUIRED")
    assert not Todo.objects.exists()


# --- the MCP HTTP transport (a separate ASGI app: the MCP SDK parses JSON-RPC) ---------------


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_the_mcp_http_transport_answers_deep_json_with_a_400(mcp_http_server, user) -> None:
    from tests.mcp_helpers import mcp_key
    from tests.test_mcp_services import _raw_exchange

    authorized = {"Authorization": f"Bearer {mcp_key(user, 'http')}"}
    for body in (deep_objects(1000), deep_arrays(100_000)):
        status, _ = _raw_exchange(mcp_http_server, authorized, body.encode())
        assert status == 400


@pytest.fixture
def mcp_http_server() -> Iterator[str]:
    """The MCP HTTP app under uvicorn on a free port (as ``mcp_serve --transport http``)."""
    from tests.mcp_helpers import serving_http

    with serving_http() as url:
        yield url


# --- found by the form corpus ------------------------------------------------------------------


@pytest.mark.parametrize("target", ["-1", "1480-02-09T08:59", "%FF", "chat", "//evil.example/x"])
def test_the_language_switch_sends_any_odd_next_back_to_the_chat(user, target) -> None:
    browser = Client()
    browser.force_login(user)
    response = browser.post("/chat/language/", {"language": "en", "next": target})
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_a_huge_search_on_the_item_pages_is_bounded(user, settings) -> None:
    settings.LIGHTNOTE_MAX_REQUEST_LINE = 10_000_000  # the pages' own bound, not the 414
    todo_services.todo_create(owner=user, title="x" * 10)
    browser = Client()
    browser.force_login(user)
    from lightnote.pages.items import QUERY_MAX

    for path in ("/todos/", "/notes/"):
        response = browser.get(path, {"q": "x" * 100_000, "tag": "y" * 100_000})
        assert response.status_code == 200, path
        # The page read (and echoes in its search box) only the first QUERY_MAX characters.
        html = response.content.decode()
        assert f'name="q" maxlength="{QUERY_MAX}" value="{"x" * QUERY_MAX}"' in html, path
