"""docs/api.md, statement by statement, through HTTP: the shapes and codes clients depend on.

Each test names the docs/api.md statement it pins. Behaviour already pinned in depth elsewhere
(races, lost COMMITs, idempotency races) is checked here only for its public shape.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import Client
from rest_framework.test import APIClient

from agent.capabilities import CAPABILITIES
from agent.cards import transitions as card_transitions
from agent.tools import registry
from lightnote.models import AuditEvent
from lightnote.texts.i18n import translate
from tests.agent_helpers import (
    CONFIRM_URL,
    CREATE_TODO_TEXT,
    REJECT_URL,
    SESSIONS_URL,
    STATUS_URL,
    confirm,
    issue_card,
    messages_url,
    open_session,
    rewrite_record,
    send_message,
    store_down,
    token_client,
)

pytestmark = pytest.mark.django_db

REPLY_URL = "/api/v1/agent/continuations/reply/"
TODOS = "/api/v1/todos/"
NOTES = "/api/v1/notes/"
ME = "/api/v1/me/"
TOKEN = "/api/v1/auth/token/"
IMPERSONATION = "/api/v1/admin/impersonation/"

TODO_FIELDS = {
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
NOTE_FIELDS = {"id", "title", "content", "tags", "version", "created_at", "updated_at"}
CARD_FIELDS = {
    "card_id",
    "token",
    "continuation_token",
    "capability",
    "tool",
    "risk",
    "state",
    "expires_at",
    "args",
    "preview",
}
RECEIPT_FIELDS = {
    "action_id",
    "tool",
    "capability",
    "status",
    "summary",
    "resource",
    "settled_at",
}


def error_of(response: Any, status: int, code: str, *, outer: set[str] | None = None) -> dict:
    """Assert the one error body ``{"error": {"code", "message", ...}}`` and return ``error``."""
    assert response.status_code == status, (response.status_code, response.content[:500])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"error"} | (outer or set()), body
    error = body["error"]
    assert error["code"] == code, body
    assert isinstance(error["message"], str)
    assert error["message"]
    assert error["message"] != code  # a registered text, not the bare code
    return error


def assert_offset_time(value: str) -> dt.datetime:
    parsed = dt.datetime.fromisoformat(value)
    assert parsed.utcoffset() is not None, value
    return parsed


def assert_uuid(value: Any) -> None:
    assert isinstance(value, str)
    assert str(uuid.UUID(value)) == value


@pytest.fixture
def staff(make_user: Any) -> Any:
    return make_user("root", is_staff=True)


# --- Conventions -------------------------------------------------------------------------


def test_token_login_answers_200_token_and_400_on_bad_credentials(api_client, user) -> None:
    good = api_client.post(TOKEN, {"username": "alice", "password": "pw-alice"}, format="json")
    assert good.status_code == 200
    assert set(good.json()) == {"token"}
    assert isinstance(good.json()["token"], str)
    bad = api_client.post(TOKEN, {"username": "alice", "password": "nope"}, format="json")
    error_of(bad, 400, "INVALID_CREDENTIALS")


AUTHENTICATED_OPERATIONS = [
    ("get", ME),
    ("patch", ME),
    ("get", TODOS),
    ("post", TODOS),
    ("get", f"{TODOS}{uuid.uuid4()}/"),
    ("patch", f"{TODOS}{uuid.uuid4()}/"),
    ("delete", f"{TODOS}{uuid.uuid4()}/"),
    ("get", NOTES),
    ("post", NOTES),
    ("get", f"{NOTES}{uuid.uuid4()}/"),
    ("patch", f"{NOTES}{uuid.uuid4()}/"),
    ("delete", f"{NOTES}{uuid.uuid4()}/"),
    ("post", SESSIONS_URL),
    ("post", messages_url(uuid.uuid4())),
    ("post", IMPERSONATION),
    ("delete", IMPERSONATION),
]


@pytest.mark.parametrize(("method", "path"), AUTHENTICATED_OPERATIONS)
def test_every_operation_without_credentials_is_401_with_the_error_body(
    api_client, method, path
) -> None:
    response = getattr(api_client, method)(path, {}, format="json")
    error = error_of(response, 401, "NOT_AUTHENTICATED")
    assert error["message"] == translate("NOT_AUTHENTICATED", "zh-CN")  # default locale
    assert response["WWW-Authenticate"].startswith("Token")


@pytest.mark.parametrize("url", [CONFIRM_URL, REJECT_URL, STATUS_URL, REPLY_URL])
def test_token_endpoints_without_credentials_are_401(api_client, url) -> None:
    body = {"token": "x" * 43, "session_id": str(uuid.uuid4())}
    error_of(api_client.post(url, body, format="json"), 401, "NOT_AUTHENTICATED")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/v1/no-such-thing/"),
        ("post", "/api/v1/agent/sessions/not-a-uuid/messages/"),
        ("get", "/api/v1/todos/a/b/"),
    ],
)
def test_an_unknown_api_path_is_a_404_with_the_error_body(alice_api, method, path) -> None:
    error_of(getattr(alice_api, method)(path, {}, format="json"), 404, "NOT_FOUND")


def test_messages_follow_accept_language_then_the_users_language_then_zh_cn(
    make_user, client_for
) -> None:
    english = make_user("eve", language="en")
    chinese = make_user("zed")
    missing = f"{TODOS}{uuid.uuid4()}/"
    zh, en = translate("TODO_NOT_FOUND", "zh-CN"), translate("TODO_NOT_FOUND", "en")
    assert zh != en
    cases = [
        (chinese, None, zh),  # default zh-CN
        (chinese, "en", en),
        (chinese, "en-US,en;q=0.9", en),
        (english, None, en),  # the user's language when no header is sent
        (english, "zh-CN", zh),  # the header wins over the user's language
    ]
    for who, header, expected in cases:
        client = client_for(who)
        headers = {"Accept-Language": header} if header else None
        error = error_of(client.get(missing, headers=headers), 404, "TODO_NOT_FOUND")
        assert error["message"] == expected, (who.username, header)


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", TODOS, {"title": "t", "owner": 2}),
        ("post", NOTES, {"title": "t", "pinned": True}),
        ("patch", ME, {"username": "mallory"}),
        ("post", SESSIONS_URL, {"title": "x"}),
        ("post", IMPERSONATION, {"user_id": 1, "mode": "readonly", "hours": 5}),
    ],
)
def test_an_unknown_field_is_a_400_validation_error_not_ignored(
    alice_api, staff, client_for, method, path, body
) -> None:
    client = client_for(staff) if path == IMPERSONATION else alice_api
    response = getattr(client, method)(path, body, format="json")
    error = error_of(response, 400, "VALIDATION_ERROR")
    known = {"user_id", "mode"} | ({"title"} if path in (TODOS, NOTES) else set())
    [unknown] = set(body) - known
    assert unknown in error["fields"]


def test_patch_bodies_with_an_unknown_field_are_refused_and_change_nothing(alice_api) -> None:
    todo = alice_api.post(TODOS, {"title": "t"}, format="json").json()
    note = alice_api.post(NOTES, {"title": "n"}, format="json").json()
    for base, item in ((TODOS, todo), (NOTES, note)):
        body = {"version": 1, "title": "changed", "owner": 7}
        error = error_of(
            alice_api.patch(f"{base}{item['id']}/", body, format="json"), 400, "VALIDATION_ERROR"
        )
        assert "owner" in error["fields"]
        assert alice_api.get(f"{base}{item['id']}/").json()["version"] == 1


@pytest.mark.parametrize("url", [CONFIRM_URL, REJECT_URL, STATUS_URL, REPLY_URL])
def test_token_bodies_with_an_unknown_field_are_400(alice_api, url) -> None:
    body = {"token": "t", "session_id": str(uuid.uuid4()), "force": True}
    assert (
        "force"
        in error_of(alice_api.post(url, body, format="json"), 400, "VALIDATION_ERROR")["fields"]
    )


def test_a_message_body_with_an_unknown_field_is_400(alice_api) -> None:
    session_id = open_session(alice_api)
    response = alice_api.post(messages_url(session_id), {"text": "hi", "x": 1}, format="json")
    error_of(response, 400, "VALIDATION_ERROR")


# --- The current user --------------------------------------------------------------------


def test_me_has_exactly_the_documented_fields_and_patch_changes_them(alice_api, user) -> None:
    body = alice_api.get(ME).json()
    assert body == {
        "id": user.pk,
        "username": "alice",
        "time_zone": django_settings.LIGHTNOTE_TIME_ZONE,
        "language": "zh-CN",
    }
    assert isinstance(body["id"], int)
    changed = alice_api.patch(ME, {"time_zone": "Europe/Berlin", "language": "en"}, format="json")
    assert changed.status_code == 200
    assert changed.json() == {**body, "time_zone": "Europe/Berlin", "language": "en"}
    for bad in ({"time_zone": "Mars/Base"}, {"language": "fr"}):
        error_of(alice_api.patch(ME, bad, format="json"), 400, "VALIDATION_ERROR")


def test_the_users_zone_is_the_zone_times_are_shown_in(alice_api) -> None:
    alice_api.patch(ME, {"time_zone": "America/New_York"}, format="json")
    todo = alice_api.post(
        TODOS, {"title": "t", "due_at": "2026-12-02T21:00:00+08:00"}, format="json"
    ).json()
    assert todo["due_at"] == "2026-12-02T08:00:00-05:00"


# --- Todos and notes ---------------------------------------------------------------------


def test_todo_crud_has_the_documented_shapes_and_statuses(alice_api) -> None:
    created = alice_api.post(
        TODOS,
        {
            "title": "提交周报",
            "description": "d",
            "priority": 2,
            "due_at": "2026-12-02T21:00:00+08:00",
        },
        format="json",
    )
    assert created.status_code == 201
    todo = created.json()
    assert set(todo) == TODO_FIELDS
    assert_uuid(todo["id"])
    assert (todo["priority"], todo["status"], todo["version"]) == (2, "open", 1)
    assert todo["due_at"] == "2026-12-02T21:00:00+08:00"
    for name in ("created_at", "updated_at"):
        assert_offset_time(todo[name])
    url = f"{TODOS}{todo['id']}/"
    assert alice_api.get(url).json() == todo

    default = alice_api.post(TODOS, {"title": "x"}, format="json").json()
    assert (default["priority"], default["due_at"], default["description"]) == (1, None, "")

    error = error_of(alice_api.patch(url, {"title": "y"}, format="json"), 400, "VALIDATION_ERROR")
    assert "version" in error["fields"]
    done = alice_api.patch(url, {"version": 1, "status": "done"}, format="json")
    assert done.status_code == 200
    assert (done.json()["status"], done.json()["version"]) == ("done", 2)
    stale = alice_api.patch(url, {"version": 1, "title": "z"}, format="json")
    error_of(stale, 409, "TODO_VERSION_CONFLICT")

    listing = alice_api.get(TODOS).json()
    assert set(listing) == {"count", "next", "previous", "results"}
    assert listing["count"] == 2
    assert [t["id"] for t in alice_api.get(TODOS, {"status": "done"}).json()["results"]] == [
        todo["id"]
    ]
    assert [t["id"] for t in alice_api.get(TODOS, {"status": "open"}).json()["results"]] == [
        default["id"]
    ]
    error_of(alice_api.get(TODOS, {"status": "closed"}), 400, "VALIDATION_ERROR")

    deleted = alice_api.delete(url)
    assert deleted.status_code == 204
    assert deleted.content == b""
    error_of(alice_api.get(url), 404, "TODO_NOT_FOUND")


def test_note_crud_has_the_documented_shapes_and_statuses(alice_api) -> None:
    created = alice_api.post(
        NOTES, {"title": "周会", "content": "c", "tags": ["work", "q3"]}, format="json"
    )
    assert created.status_code == 201
    note = created.json()
    assert set(note) == NOTE_FIELDS
    assert_uuid(note["id"])
    assert (note["tags"], note["version"]) == (["work", "q3"], 1)
    for name in ("created_at", "updated_at"):
        assert_offset_time(note[name])
    url = f"{NOTES}{note['id']}/"
    assert alice_api.get(url).json() == note
    error = error_of(alice_api.patch(url, {"content": "x"}, format="json"), 400, "VALIDATION_ERROR")
    assert "version" in error["fields"]
    changed = alice_api.patch(url, {"version": 1, "tags": []}, format="json")
    assert (changed.status_code, changed.json()["version"], changed.json()["tags"]) == (200, 2, [])
    error_of(
        alice_api.patch(url, {"version": 1, "content": "z"}, format="json"),
        409,
        "NOTE_VERSION_CONFLICT",
    )
    listing = alice_api.get(NOTES).json()
    assert set(listing) == {"count", "next", "previous", "results"}
    assert alice_api.delete(url).status_code == 204
    error_of(alice_api.get(url), 404, "NOTE_NOT_FOUND")


def test_another_users_todo_and_note_are_404_never_403(alice_api, client_for, other_user) -> None:
    bob = client_for(other_user)
    todo = bob.post(TODOS, {"title": "secret"}, format="json").json()
    note = bob.post(NOTES, {"title": "secret"}, format="json").json()
    for url, code in (
        (f"{TODOS}{todo['id']}/", "TODO_NOT_FOUND"),
        (f"{NOTES}{note['id']}/", "NOTE_NOT_FOUND"),
    ):
        error_of(alice_api.get(url), 404, code)
        error_of(alice_api.patch(url, {"version": 1, "title": "x"}, format="json"), 404, code)
        error_of(alice_api.delete(url), 404, code)
    assert bob.get(f"{TODOS}{todo['id']}/").json()["version"] == 1


# --- Idempotency-Key ---------------------------------------------------------------------


@pytest.mark.parametrize("url", [TODOS, NOTES])
def test_idempotency_key_replays_refuses_reuse_and_is_scoped_per_user(
    alice_api, client_for, other_user, url
) -> None:
    headers = {"Idempotency-Key": "k-1"}
    first = alice_api.post(url, {"title": "once"}, format="json", headers=headers)
    again = alice_api.post(url, {"title": "once"}, format="json", headers=headers)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert alice_api.get(url).json()["count"] == 1
    reused = alice_api.post(url, {"title": "other"}, format="json", headers=headers)
    error_of(reused, 422, "IDEMPOTENCY_KEY_REUSED")
    bob = client_for(other_user).post(url, {"title": "once"}, format="json", headers=headers)
    assert bob.status_code == 201
    assert bob.json()["id"] != first.json()["id"]
    error_of(
        alice_api.post(url, {"title": "x"}, format="json", headers={"Idempotency-Key": "k" * 256}),
        400,
        "IDEMPOTENCY_KEY_INVALID",
    )


# --- Agent: sessions and messages --------------------------------------------------------


def test_a_session_is_201_with_a_uuid_id(alice_api) -> None:
    response = alice_api.post(SESSIONS_URL, {}, format="json")
    assert response.status_code == 201
    assert set(response.json()) == {"id"}
    assert_uuid(response.json()["id"])


def test_a_message_with_a_write_returns_exactly_the_documented_card(alice_api) -> None:
    session_id = open_session(alice_api)
    body = send_message(alice_api, session_id, "帮我创建一条今晚 9 点提交周报的高优先级待办")
    assert set(body) == {"message_id", "reply", "facts", "cards", "choices", "notices", "changes"}
    assert body["choices"] == []
    assert_uuid(body["message_id"])
    assert isinstance(body["reply"], str)
    assert body["reply"]
    assert body["notices"] == []
    [card] = body["cards"]
    assert set(card) >= CARD_FIELDS
    assert card["token"] != card["continuation_token"]
    assert len(card["token"]) >= 22  # >= 128 bits in url-safe base64
    assert len(card["continuation_token"]) >= 22
    assert (card["capability"], card["tool"], card["risk"], card["state"]) == (
        "todo.create",
        "create_todo",
        "low",
        "ready",
    )
    assert_offset_time(card["expires_at"])
    assert card["args"]["title"] == "提交周报"
    assert card["args"]["priority"] == 2
    assert assert_offset_time(card["args"]["due_at"]).utcoffset() == dt.timedelta(hours=8)
    preview = card["preview"]
    assert {"title", "target", "impact", "details"} <= set(preview)
    assert preview["target"] == "提交周报"
    assert preview["details"]
    for detail in preview["details"]:
        assert {"key", "label", "value"} <= set(detail)


def test_a_read_gives_facts_with_tool_status_summary(alice_api) -> None:
    alice_api.post(TODOS, {"title": "交报告"}, format="json")
    session_id = open_session(alice_api)
    body = send_message(alice_api, session_id, "查看我的待办")
    assert body["cards"] == []
    assert body["facts"], body
    for fact in body["facts"]:
        assert {"tool", "status", "summary"} <= set(fact)
        assert set(fact) <= {"tool", "status", "summary", "count", "items", "code", "link"}
    assert body["facts"][0]["tool"] == "query_todos"
    assert body["facts"][0]["status"] == "succeeded"
    [item] = body["facts"][0]["items"]
    assert (item["type"], item["title"]) == ("todo", "交报告")
    assert uuid.UUID(item["id"])


@pytest.mark.parametrize(
    ("text", "capability", "status"),
    [("删除笔记 周会", "note.delete", "planned"), ("注销我的账号", "account.delete", "forbidden")],
)
def test_planned_and_forbidden_capabilities_give_a_notice_and_no_card(
    alice_api, text, capability, status
) -> None:
    session_id = open_session(alice_api)
    body = send_message(alice_api, session_id, text)
    assert body["cards"] == []
    [notice] = body["notices"]
    assert {"capability", "status", "message"} <= set(notice)
    assert (notice["capability"], notice["status"]) == (capability, status)
    guidance = next(c for c in CAPABILITIES if c.id == capability).guidance
    assert notice["message"] == guidance["zh-CN"]


def test_a_refused_proposal_gives_a_rejected_notice_with_code_in_reply(alice_api) -> None:
    session_id = open_session(alice_api)
    body = send_message(alice_api, session_id, "完成待办「不存在的事」")
    assert body["cards"] == []
    [notice] = body["notices"]
    assert set(notice) == {"capability", "status", "code", "message"}
    assert (notice["capability"], notice["status"], notice["code"]) == (
        "todo.status.set",
        "rejected",
        "TODO_NOT_FOUND",
    )
    assert notice["message"] in body["reply"]


def test_another_users_session_is_404(alice_api, client_for, other_user) -> None:
    session_id = open_session(client_for(other_user))
    response = alice_api.post(messages_url(session_id), {"text": "你好"}, format="json")
    error_of(response, 404, "SESSION_NOT_FOUND")


# --- Confirming --------------------------------------------------------------------------


def _card(client: APIClient) -> tuple[str, dict[str, Any]]:
    session_id = open_session(client)
    [card] = send_message(client, session_id, CREATE_TODO_TEXT)["cards"]
    return session_id, card


def _post(client: APIClient, url: str, token: str, session_id: str) -> Any:
    return client.post(url, {"token": token, "session_id": session_id}, format="json")


def test_confirm_settles_with_a_receipt_and_replays_it(alice_api) -> None:
    session_id, card = _card(alice_api)
    first = _post(alice_api, CONFIRM_URL, card["token"], session_id)
    assert first.status_code == 200
    body = first.json()
    assert set(body) == {"state", "outcome"}
    assert body["state"] == "settled"
    assert set(body["outcome"]) == {"ok", "receipt"}
    assert body["outcome"]["ok"] is True
    receipt = body["outcome"]["receipt"]
    assert set(receipt) == RECEIPT_FIELDS
    assert (receipt["tool"], receipt["capability"], receipt["status"]) == (
        "create_todo",
        "todo.create",
        "succeeded",
    )
    assert receipt["resource"]["type"] == "todo"
    assert alice_api.get(f"{TODOS}{receipt['resource']['id']}/").status_code == 200
    assert_offset_time(receipt["settled_at"])
    assert_uuid(receipt["action_id"])
    again = _post(alice_api, CONFIRM_URL, card["token"], session_id)
    assert (again.status_code, again.content) == (200, first.content)
    status = _post(alice_api, STATUS_URL, card["token"], session_id)
    assert (status.status_code, status.json()) == (200, body)
    refused = _post(alice_api, REJECT_URL, card["token"], session_id)
    error_of(refused, 409, "CONFIRMATION_ALREADY_CLAIMED", outer={"state"})
    assert refused.json()["state"] == "settled"


def test_a_business_failure_settles_ok_false_with_an_error(alice_api) -> None:
    todo = alice_api.post(TODOS, {"title": "交报告"}, format="json").json()
    session_id = open_session(alice_api)
    [card] = send_message(alice_api, session_id, "完成待办「交报告」")["cards"]
    alice_api.patch(f"{TODOS}{todo['id']}/", {"version": 1, "title": "moved"}, format="json")
    body = _post(alice_api, CONFIRM_URL, card["token"], session_id).json()
    assert body["state"] == "settled"
    assert body["outcome"]["ok"] is False
    assert set(body["outcome"]["error"]) >= {"code", "message"}
    assert body["outcome"]["error"]["code"] == "TODO_VERSION_CONFLICT"


def test_reject_and_status_answer_each_state(alice_api) -> None:
    session_id, card = _card(alice_api)
    ready = _post(alice_api, STATUS_URL, card["token"], session_id)
    assert (ready.status_code, ready.json()) == (200, {"state": "ready"})
    rejected = _post(alice_api, REJECT_URL, card["token"], session_id)
    assert (rejected.status_code, rejected.json()) == (200, {"state": "rejected"})
    assert _post(alice_api, STATUS_URL, card["token"], session_id).json() == {"state": "rejected"}
    error_of(_post(alice_api, CONFIRM_URL, card["token"], session_id), 409, "CONFIRMATION_REJECTED")
    for url in (CONFIRM_URL, REJECT_URL, STATUS_URL):
        error_of(_post(alice_api, url, "never-issued", session_id), 410, "CONFIRMATION_EXPIRED")


def test_running_status_and_reject_on_a_running_card(user) -> None:
    client = token_client(user)
    issued = issue_card(user)
    session_id = issued.card.session_id
    assert card_transitions.card_claim(issued.token, attempt_id="other").status == "claimed"
    running = _post(client, CONFIRM_URL, issued.token, session_id)
    assert (running.status_code, running.json()) == (202, {"state": "running"})
    assert _post(client, STATUS_URL, issued.token, session_id).json() == {"state": "running"}
    refused = _post(client, REJECT_URL, issued.token, session_id)
    error_of(refused, 409, "CONFIRMATION_ALREADY_CLAIMED", outer={"state"})
    assert refused.json()["state"] == "running"


@pytest.mark.usefixtures("steady_window")  # "1/m" below
def test_the_check_order_of_confirm(user, other_user, staff, client_for, settings) -> None:
    """400 -> 401 -> 403 ADMIN_READONLY -> 503 -> 410 -> 403 FORBIDDEN -> 409 -> state -> 429."""
    anonymous = APIClient()
    alice = token_client(user)
    error_of(anonymous.post(CONFIRM_URL, {"token": "t"}, format="json"), 400, "VALIDATION_ERROR")
    context_id = (
        client_for(staff)
        .post(IMPERSONATION, {"user_id": user.pk}, format="json")
        .json()["context_id"]
    )
    admin = token_client(staff, **{"X-Admin-Context": context_id})
    issued = issue_card(user)
    session_id = issued.card.session_id
    with store_down():
        error_of(_post(admin, CONFIRM_URL, issued.token, session_id), 403, "ADMIN_READONLY")
        error_of(
            _post(alice, CONFIRM_URL, issued.token, session_id),
            503,
            "CONFIRMATION_STORE_UNAVAILABLE",
        )
    bob_session = open_session(client_for(other_user))
    error_of(_post(alice, CONFIRM_URL, "unknown", bob_session), 410, "CONFIRMATION_EXPIRED")
    rewrite_record(issued.token, lambda record: record["args"].update(title="evil"))
    error_of(
        _post(client_for(other_user), CONFIRM_URL, issued.token, bob_session),
        403,
        "CONFIRMATION_FORBIDDEN",
    )
    error_of(_post(alice, CONFIRM_URL, issued.token, session_id), 409, "CONFIRMATION_INVALID")
    error_of(_post(alice, CONFIRM_URL, issued.token, session_id), 410, "CONFIRMATION_EXPIRED")

    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "1/m"
    done = issue_card(user, session_id=session_id)
    assert confirm(alice, done.token, session_id).status_code == 200
    rejected = issue_card(user, session_id=session_id)
    assert _post(alice, REJECT_URL, rejected.token, session_id).status_code == 200
    # Over the limit now: known states still answer; only a new claim is refused.
    assert confirm(alice, done.token, session_id).status_code == 200
    error_of(confirm(alice, rejected.token, session_id), 409, "CONFIRMATION_REJECTED")
    fresh = issue_card(user, session_id=session_id)
    limited = confirm(alice, fresh.token, session_id)
    error_of(limited, 429, "RATE_LIMITED")
    assert int(limited["Retry-After"]) >= 1
    assert _post(alice, STATUS_URL, fresh.token, session_id).json() == {"state": "ready"}


def test_a_card_of_another_user_or_session_is_403_and_reveals_nothing(
    alice_api, client_for, other_user
) -> None:
    session_id, card = _card(alice_api)
    bob = client_for(other_user)
    bob_session = open_session(bob)
    other_session = open_session(alice_api)
    for client, session in ((bob, bob_session), (bob, session_id), (alice_api, other_session)):
        for url in (CONFIRM_URL, REJECT_URL, STATUS_URL):
            error_of(_post(client, url, card["token"], session), 403, "CONFIRMATION_FORBIDDEN")
    assert _post(alice_api, STATUS_URL, card["token"], session_id).json() == {"state": "ready"}


# --- The final reply ---------------------------------------------------------------------


def test_the_continuation_reply_table(alice_api, client_for, other_user) -> None:
    session_id, card = _card(alice_api)
    pending = _post(alice_api, REPLY_URL, card["continuation_token"], session_id)
    error_of(pending, 409, "CONTINUATION_NOT_READY", outer={"state"})
    assert pending.json()["state"] == "pending"
    bob = client_for(other_user)
    error_of(
        _post(bob, REPLY_URL, card["continuation_token"], open_session(bob)),
        403,
        "CONTINUATION_FORBIDDEN",
    )
    error_of(
        _post(alice_api, REPLY_URL, card["continuation_token"], open_session(alice_api)),
        403,
        "CONTINUATION_FORBIDDEN",
    )
    error_of(_post(alice_api, REPLY_URL, "unknown", session_id), 410, "CONTINUATION_EXPIRED")
    # The card's own token is not a continuation token.
    error_of(_post(alice_api, REPLY_URL, card["token"], session_id), 410, "CONTINUATION_EXPIRED")
    assert _post(alice_api, CONFIRM_URL, card["token"], session_id).json()["outcome"]["ok"]
    first = _post(alice_api, REPLY_URL, card["continuation_token"], session_id)
    assert first.status_code == 200
    assert set(first.json()) == {"state", "reply", "changes"}
    assert first.json()["state"] == "settled"
    assert first.json()["reply"]
    again = _post(alice_api, REPLY_URL, card["continuation_token"], session_id)
    assert (again.status_code, again.json()) == (200, first.json())


# --- Capabilities and tools ----------------------------------------------------------------

CAPABILITY_TABLE = {
    "todo.query": ("query_todos", "enabled", None, "none"),
    "note.search": ("search_notes", "enabled", None, "none"),
    "todo.create": ("create_todo", "enabled", "low", "default"),
    "todo.status.set": ("set_todo_status", "enabled", "low", "always"),
    "todo.update": ("update_todo", "enabled", "medium", "always"),
    "todo.delete": ("delete_todo", "enabled", "high", "always"),
    "note.create": ("create_note", "enabled", "low", "default"),
    "note.update": ("update_note", "enabled", "medium", "always"),
    # Internal (compensation-only, issue 15): never offered to the model.
    "todo.restore": ("restore_todo", "enabled", "low", "always"),
    "note.discard": ("discard_note", "enabled", "medium", "always"),
    "note.delete": (None, "planned", None, None),
    "account.delete": (None, "forbidden", None, None),
}

TOOL_ARGUMENTS = {
    "create_todo": ({"title"}, {"description", "priority", "due_at"}),
    "set_todo_status": ({"todo_id", "status"}, set()),
    "update_todo": ({"todo_id"}, {"title", "description", "priority", "due_at"}),
    "delete_todo": ({"todo_id"}, set()),
    "create_note": ({"title"}, {"content", "tags"}),
    "update_note": ({"note_id"}, {"title", "content", "tags"}),
    "query_todos": (set(), {"status", "keyword", "due_before", "within", "limit", "cursor"}),
    # (no keyword: every note, most recently changed first)
    "search_notes": (set(), {"keyword", "limit", "cursor"}),
}


def test_the_capability_registry_is_the_api_md_table() -> None:
    table = {c.id: (c.tool, c.status, c.risk, c.confirmation) for c in CAPABILITIES}
    assert table == CAPABILITY_TABLE


def test_the_function_names_offered_to_the_model_are_exactly_the_tool_names() -> None:
    names = {spec["function"]["name"] for spec in registry.openai_tools(include_writes=True)}
    internal = {"restore_todo", "discard_note"}
    assert names == {tool for tool, *_ in CAPABILITY_TABLE.values() if tool} - internal


@pytest.mark.parametrize("tool", sorted(TOOL_ARGUMENTS))
def test_each_tool_declares_the_canonical_argument_names(tool) -> None:
    [spec] = [
        s for s in registry.openai_tools(include_writes=True) if s["function"]["name"] == tool
    ]
    parameters = spec["function"]["parameters"]
    required, optional = TOOL_ARGUMENTS[tool]
    declared = set(parameters["properties"])
    assert required | optional <= declared
    # An id may be replaced by an exact title, so an id is never strictly required.
    assert required - {"todo_id", "note_id"} <= set(parameters.get("required", []))


@pytest.mark.parametrize(
    ("titles", "code"), [([], "TODO_NOT_FOUND"), (["交报告", "交报告"], "TODO_AMBIGUOUS")]
)
def test_a_todo_title_resolves_among_the_users_own_items_only(
    alice_api, client_for, other_user, titles, code
) -> None:
    client_for(other_user).post(TODOS, {"title": "交报告"}, format="json")
    for title in titles:
        alice_api.post(TODOS, {"title": title}, format="json")
    session_id = open_session(alice_api)
    body = send_message(alice_api, session_id, "完成待办「交报告」")
    assert body["cards"] == []
    notice = body["notices"][0]
    assert notice["code"].startswith(code.split("_")[0])
    assert notice["code"] != "TODO_TITLE_REQUIRED"
    if titles:
        # Several of the user's own items match: the agent asks which one, listing exactly
        # those (never the other user's item of the same title).
        assert (notice["status"], notice["slot"]) == ("clarify", "target")
        assert "2. " in notice["message"]
        assert "3. " not in notice["message"]
    else:
        assert notice["status"] == "rejected"


def test_a_unique_todo_title_resolves_to_its_id(alice_api) -> None:
    todo = alice_api.post(TODOS, {"title": "交报告"}, format="json").json()
    session_id = open_session(alice_api)
    [card] = send_message(alice_api, session_id, "完成待办「交报告」")["cards"]
    assert card["args"]["todo_id"] == todo["id"]
    assert card["args"]["status"] == "done"
    assert "todo_title" not in card["args"]


# --- Admin read-only impersonation ---------------------------------------------------------


def test_impersonation_start_body_reads_refused_writes_and_end(
    staff, user, client_for, alice_api
) -> None:
    error_of(alice_api.post(IMPERSONATION, {"user_id": staff.pk}, format="json"), 403, "ADMIN_ONLY")
    started = client_for(staff).post(
        IMPERSONATION, {"user_id": user.pk, "mode": "readonly"}, format="json"
    )
    assert started.status_code == 201
    body = started.json()
    assert set(body) == {"context_id", "subject", "mode", "expires_at"}
    assert_uuid(body["context_id"])
    assert body["subject"] == {"id": user.pk, "username": "alice"}
    assert body["mode"] == "readonly"
    remaining = assert_offset_time(body["expires_at"]) - dt.datetime.now(dt.UTC)
    assert dt.timedelta(minutes=19) < remaining <= dt.timedelta(minutes=20)

    alice_api.post(TODOS, {"title": "mine"}, format="json")
    admin = client_for(staff, **{"X-Admin-Context": body["context_id"]})
    assert [t["title"] for t in admin.get(TODOS).json()["results"]] == ["mine"]
    assert admin.get(ME).json()["username"] == "alice"
    error_of(admin.post(TODOS, {"title": "x"}, format="json"), 403, "ADMIN_READONLY")
    session_id = open_session(admin)
    turn = send_message(admin, session_id, CREATE_TODO_TEXT)
    assert turn["cards"] == []
    assert [(n["status"], n.get("code")) for n in turn["notices"]] == [
        ("rejected", "ADMIN_READONLY")
    ]
    refusals = AuditEvent.objects.filter(code="ADMIN_READONLY")
    assert refusals.count() == 2
    assert {(e.actor_id, e.subject_id) for e in refusals} == {(staff.pk, user.pk)}

    ended = admin.delete(IMPERSONATION)
    assert (ended.status_code, ended.content) == (204, b"")
    error_of(admin.get(TODOS), 403, "ADMIN_CONTEXT_INVALID")
    events = AuditEvent.objects.filter(event_type__startswith="admin.context_")
    assert {(e.event_type, e.actor_id, e.subject_id) for e in events} == {
        ("admin.context_started", staff.pk, user.pk),
        ("admin.context_ended", staff.pk, user.pk),
    }


# --- OpenAPI ---------------------------------------------------------------------------------

SCHEMA_STATUSES = {
    ("/api/v1/todos/", "post"): {201, 400, 401, 403, 409, 415, 422},
    ("/api/v1/notes/", "post"): {201, 400, 401, 403, 409, 415, 422},
    ("/api/v1/agent/sessions/", "post"): {201, 400, 401, 403, 415},
    ("/api/v1/agent/sessions/{session_id}/messages/", "post"): {
        200,
        400,
        401,
        403,
        404,
        415,
        429,
        503,
    },
    ("/api/v1/agent/confirmations/confirm/", "post"): {
        200,
        202,
        400,
        401,
        403,
        409,
        410,
        415,
        429,
        503,
    },
    ("/api/v1/agent/confirmations/reject/", "post"): {200, 400, 401, 403, 409, 410, 415, 503},
    ("/api/v1/agent/confirmations/status/", "post"): {200, 400, 401, 403, 409, 410, 415, 503},
    ("/api/v1/agent/continuations/reply/", "post"): {
        200,
        202,
        400,
        401,
        403,
        409,
        410,
        415,
        429,
        503,
    },
}


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    response = Client().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    return json.loads(response.content)


@pytest.mark.parametrize(("path", "method"), sorted(SCHEMA_STATUSES))
def test_the_schema_declares_every_status_with_the_error_body(schema, path, method) -> None:
    responses = schema["paths"][path][method]["responses"]
    declared = {int(status) for status in responses}
    assert SCHEMA_STATUSES[(path, method)] <= declared, declared
    for status in declared:
        if status >= 400:
            content = responses[str(status)]["content"]["application/json"]["schema"]
            assert content == {"$ref": "#/components/schemas/ErrorBody"}


@pytest.mark.parametrize("url", ["/api/v1/agent/confirmations/confirm/", "/api/v1/agent/sessions/"])
def test_a_body_that_is_not_json_is_a_declared_error(alice_api, url) -> None:
    response = alice_api.post(url, "token=x", content_type="application/x-www-form-urlencoded")
    error_of(response, 415, "UNSUPPORTED_MEDIA_TYPE")


# --- Configuration -------------------------------------------------------------------------

CONFIG_PROBE = """
import json, lightnote.settings as s
print(json.dumps({
    "db": s.DATABASES["default"]["ENGINE"], "db_name": str(s.DATABASES["default"]["NAME"]),
    "redis": s.REDIS_URL, "debug": s.DEBUG, "hosts": s.ALLOWED_HOSTS, "https": s.HTTPS,
    "redirect": s.SECURE_SSL_REDIRECT, "cookie": s.SESSION_COOKIE_SECURE,
    "csrf": s.CSRF_COOKIE_SECURE, "hsts": s.SECURE_HSTS_SECONDS, "tz": s.TIME_ZONE,
    "ttl": s.LIGHTNOTE_CONFIRMATION_TTL, "lease": s.LIGHTNOTE_EXECUTION_LEASE,
    "cards": s.LIGHTNOTE_RATE_LIMIT_CARDS, "confirms": s.LIGHTNOTE_RATE_LIMIT_CONFIRMS,
    "cluster": s.REDIS_CLUSTER, "planner": s.LIGHTNOTE_PLANNER, "key": s.OPENAI_API_KEY,
    "base": s.OPENAI_BASE_URL, "model": s.LIGHTNOTE_LLM_MODEL, "secret": s.SECRET_KEY,
    "whitenoise": "whitenoise.middleware.WhiteNoiseMiddleware" in s.MIDDLEWARE,
}))
"""


def _settings_under(env: dict[str, str]) -> dict[str, Any]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LIGHTNOTE_", "OPENAI_"))}
    base.pop("DJANGO_SETTINGS_MODULE", None)
    root = Path(django_settings.BASE_DIR)
    result = subprocess.run(
        [sys.executable, "-c", CONFIG_PROBE],
        env={**base, "PYTHONPATH": str(root), **env},
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_configuration_defaults_are_the_documented_ones() -> None:
    values = _settings_under({"LIGHTNOTE_SECRET_KEY": "s" * 50})
    assert values["db"] == "django.db.backends.sqlite3"
    assert values["db_name"].endswith("db.sqlite3")
    assert values["redis"].startswith("fakeredis://")
    assert values["debug"] is False
    assert values["https"] is True  # default on when DEBUG is off
    assert (values["redirect"], values["cookie"], values["csrf"]) == (True, True, True)
    assert values["hsts"] > 0
    assert values["tz"] == "Asia/Shanghai"
    assert (values["ttl"], values["lease"]) == (300, 30)
    assert values["cluster"] is False
    assert values["planner"] == "rules"
    assert values["whitenoise"] is True


def test_configuration_variables_are_all_read() -> None:
    values = _settings_under(
        {
            "LIGHTNOTE_SECRET_KEY": "k" * 50,
            "LIGHTNOTE_DATABASE_URL": "mysql://root@127.0.0.1:3306/lightnote",
            "LIGHTNOTE_REDIS_URL": "redis://127.0.0.1:6379/3",
            "LIGHTNOTE_DEBUG": "1",
            "LIGHTNOTE_ALLOWED_HOSTS": "a.example, b.example",
            "LIGHTNOTE_HTTPS": "0",
            "LIGHTNOTE_TIME_ZONE": "Europe/Berlin",
            "LIGHTNOTE_CONFIRMATION_TTL": "120",
            "LIGHTNOTE_EXECUTION_LEASE": "45",
            "LIGHTNOTE_RATE_LIMIT_CARDS": "60/min",
            "LIGHTNOTE_RATE_LIMIT_CONFIRMS": "10/s",
            "LIGHTNOTE_REDIS_CLUSTER": "1",
            "OPENAI_API_KEY": "sk-test",
            "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
            "LIGHTNOTE_LLM_MODEL": "m-1",
        }
    )
    assert values["db"] == "django.db.backends.mysql"
    assert values["redis"] == "redis://127.0.0.1:6379/3"
    assert values["debug"] is True
    assert values["hosts"] == ["a.example", "b.example"]
    assert (values["https"], values["redirect"], values["cookie"], values["hsts"]) == (
        False,
        False,
        False,
        0,
    )
    assert values["tz"] == "Europe/Berlin"
    assert (values["ttl"], values["lease"]) == (120, 45)
    assert (values["cards"], values["confirms"]) == ("60/min", "10/s")
    assert values["cluster"] is True
    assert values["planner"] == "openai"  # the default when OPENAI_API_KEY is set
    assert (values["key"], values["base"], values["model"]) == (
        "sk-test",
        "http://127.0.0.1:9/v1",
        "m-1",
    )
    assert values["secret"] == "k" * 50


def test_https_zero_serves_plain_http_with_debug_off() -> None:
    values = _settings_under({"LIGHTNOTE_SECRET_KEY": "s" * 50, "LIGHTNOTE_HTTPS": "0"})
    assert (values["debug"], values["https"], values["redirect"], values["hsts"]) == (
        False,
        False,
        False,
        0,
    )


# --- Browser: Django session + CSRF ---------------------------------------------------------


def test_a_browser_confirms_with_its_session_and_csrf_token(user) -> None:
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    assert browser.get("/").status_code == 200  # the chat page sets the CSRF cookie
    csrf = {"X-CSRFToken": browser.cookies["csrftoken"].value}
    opened = browser.post(SESSIONS_URL, {}, content_type="application/json", headers=csrf)
    assert opened.status_code == 201
    session_id = opened.json()["id"]
    turn = browser.post(
        messages_url(session_id),
        {"text": CREATE_TODO_TEXT},
        content_type="application/json",
        headers=csrf,
    )
    [card] = turn.json()["cards"]
    body = {"token": card["token"], "session_id": session_id}
    without = browser.post(CONFIRM_URL, body, content_type="application/json")
    error_of(without, 403, "PERMISSION_DENIED")
    with_token = browser.post(CONFIRM_URL, body, content_type="application/json", headers=csrf)
    assert with_token.status_code == 200
    assert with_token.json()["outcome"]["ok"] is True


@pytest.mark.parametrize("url", [CONFIRM_URL, STATUS_URL, REPLY_URL])
def test_a_bad_token_body_is_in_the_users_language_without_accept_language(
    make_user, client_for, url
) -> None:
    english = client_for(make_user("eve", language="en"))
    error = error_of(english.post(url, {"token": "t"}, format="json"), 400, "VALIDATION_ERROR")
    assert error["message"] == translate("VALIDATION_ERROR", "en")


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/agent/confirmations/confirm/",
        "/api/v1/agent/confirmations/reject/",
        "/api/v1/agent/confirmations/status/",
        "/api/v1/agent/continuations/reply/",
    ],
)
@pytest.mark.django_db
def test_the_token_endpoints_answer_other_methods_with_405(alice_api, path) -> None:
    response = alice_api.get(path)

    assert response.status_code == 405
    assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"
