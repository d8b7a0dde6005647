"""Token login, session + CSRF, and the current user (/api/v1/me/)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token

from todos.models import Todo

pytestmark = pytest.mark.django_db

TOKEN = "/api/v1/auth/token/"
ME = "/api/v1/me/"


def code(response: Any) -> str:
    return response.json()["error"]["code"]


# --- token ------------------------------------------------------------------------------


def test_token_login_returns_a_token_that_authenticates(api_client, user) -> None:
    response = api_client.post(TOKEN, {"username": "alice", "password": "pw-alice"}, format="json")
    assert response.status_code == 200
    token = response.json()["token"]
    assert token == Token.objects.get(user=user).key
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api_client.get(ME).json()["username"] == "alice"
    again = api_client.post(TOKEN, {"username": "alice", "password": "pw-alice"}, format="json")
    assert again.json()["token"] == token


@pytest.mark.parametrize(
    "credentials",
    [
        {"username": "alice", "password": "wrong"},
        {"username": "nobody", "password": "pw-alice"},
        {"username": "alice", "password": " pw-alice"},
    ],
)
def test_token_login_with_bad_credentials_is_400(api_client, user, credentials) -> None:
    response = api_client.post(TOKEN, credentials, format="json")
    assert (response.status_code, code(response)) == (400, "INVALID_CREDENTIALS")
    assert not Token.objects.exists()


def test_token_login_of_an_inactive_user_is_400(api_client, make_user) -> None:
    make_user("gone", is_active=False)
    response = api_client.post(TOKEN, {"username": "gone", "password": "pw-gone"}, format="json")
    assert (response.status_code, code(response)) == (400, "INVALID_CREDENTIALS")


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"username": "alice", "password": "pw-alice", "remember": True}, "remember"),
        ({"username": "alice"}, "password"),
        ({"password": "pw-alice"}, "username"),
    ],
)
def test_token_login_refuses_unknown_and_missing_fields(api_client, user, payload, field) -> None:
    response = api_client.post(TOKEN, payload, format="json")
    assert (response.status_code, code(response)) == (400, "VALIDATION_ERROR")
    assert list(response.json()["error"]["fields"]) == [field]
    assert not Token.objects.exists()


# --- session + CSRF ---------------------------------------------------------------------


def _browser(user: Any) -> tuple[Client, str]:
    """Return a logged-in browser client that enforces CSRF, and its CSRF token."""
    browser = Client(enforce_csrf_checks=True)
    assert browser.login(username=user.username, password=f"pw-{user.username}")
    browser.get("/accounts/login/")  # any page with a form sets the csrftoken cookie
    return browser, browser.cookies["csrftoken"].value


def test_session_write_without_csrf_token_is_403_and_writes_nothing(user) -> None:
    browser, _ = _browser(user)
    response = browser.post(
        "/api/v1/todos/", json.dumps({"title": "x"}), content_type="application/json"
    )
    assert (response.status_code, code(response)) == (403, "PERMISSION_DENIED")
    assert Todo.objects.count() == 0


def test_session_write_with_csrf_token_is_accepted(user) -> None:
    browser, csrf = _browser(user)
    response = browser.post(
        "/api/v1/todos/",
        json.dumps({"title": "from the browser"}),
        content_type="application/json",
        headers={"X-CSRFToken": csrf},
    )
    assert response.status_code == 201
    assert Todo.objects.get().owner == user


def test_session_reads_need_no_csrf_token_but_a_session(user) -> None:
    browser, _ = _browser(user)
    assert browser.get(ME).json()["username"] == "alice"
    anonymous = Client(enforce_csrf_checks=True).get(ME)
    assert (anonymous.status_code, code(anonymous)) == (401, "NOT_AUTHENTICATED")


# --- /me/ -------------------------------------------------------------------------------


def test_me_returns_the_profile(alice_api, user) -> None:
    assert alice_api.get(ME).json() == {
        "id": user.id,
        "username": "alice",
        "time_zone": "Asia/Shanghai",
        "language": "zh-CN",
    }


def test_me_patch_changes_zone_and_language(alice_api, user) -> None:
    response = alice_api.patch(ME, {"time_zone": "Europe/Berlin", "language": "en"}, format="json")
    assert response.status_code == 200
    assert (response.json()["time_zone"], response.json()["language"]) == ("Europe/Berlin", "en")
    user.refresh_from_db()
    assert (user.time_zone, user.language) == ("Europe/Berlin", "en")


def test_me_zone_change_moves_the_offset_of_rendered_times(alice_api, user) -> None:
    created = alice_api.post(
        "/api/v1/todos/", {"title": "x", "due_at": "2026-07-01T12:00:00Z"}, format="json"
    )
    assert created.json()["due_at"] == "2026-07-01T20:00:00+08:00"
    alice_api.patch(ME, {"time_zone": "Europe/Berlin"}, format="json")
    again = alice_api.get(f"/api/v1/todos/{created.json()['id']}/")
    assert again.json()["due_at"] == "2026-07-01T14:00:00+02:00"


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"time_zone": "Mars/Olympus"}, "time_zone"),
        ({"time_zone": ""}, "time_zone"),
        ({"time_zone": "../../etc/passwd"}, "time_zone"),
        ({"language": "fr"}, "language"),
        ({"language": "zh"}, "language"),
        ({"username": "mallory"}, "username"),
        ({"id": 99}, "id"),
        ({"is_staff": True}, "is_staff"),
    ],
)
def test_me_patch_refuses_bad_values_and_unknown_fields(alice_api, user, payload, field) -> None:
    response = alice_api.patch(ME, payload, format="json")
    assert (response.status_code, code(response)) == (400, "VALIDATION_ERROR")
    assert list(response.json()["error"]["fields"]) == [field]
    user.refresh_from_db()
    assert (user.username, user.time_zone, user.language, user.is_staff) == (
        "alice",
        "Asia/Shanghai",
        "zh-CN",
        False,
    )


@pytest.mark.parametrize(
    ("accept_language", "user_language", "message"),
    [
        ("en", "zh-CN", "The request is not valid."),
        ("zh-CN", "en", "请求参数不合法。"),
        ("en-US,en;q=0.9", "zh-CN", "The request is not valid."),
        (None, "en", "The request is not valid."),
        (None, "zh-CN", "请求参数不合法。"),
    ],
)
def test_error_messages_follow_accept_language_then_the_users_language(
    make_user, client_for, accept_language, user_language, message
) -> None:
    client = client_for(make_user("lang", language=user_language))
    headers = {"Accept-Language": accept_language} if accept_language else {}
    response = client.patch(ME, {"time_zone": "Nowhere/Land"}, format="json", headers=headers)
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "VALIDATION_ERROR",
        "message": message,
        "fields": response.json()["error"]["fields"],
    }


def test_unauthenticated_message_defaults_to_chinese(api_client) -> None:
    assert api_client.get(ME).json()["error"]["message"] == "请先登录。"
    english = api_client.get(ME, headers={"Accept-Language": "en"})
    assert english.json()["error"]["message"] == "Authentication is required."
