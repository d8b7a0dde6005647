"""DRF's own field messages follow the request's language, like the project's own errors.

The API's language is Accept-Language, else the user's saved language, else zh-CN
(``request_locale``). DRF renders its field messages ("This field is required.") through
gettext when a view validates, so Django's active language must be that same choice: set
from the header under ``/api/`` before authentication, and from the user once the API's
authentication knows them — never the language cookie's or Django's default.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from notes.models import TITLE_MAX as NOTE_TITLE_MAX
from todos import services as todo_services
from todos.models import TITLE_MAX as TODO_TITLE_MAX

pytestmark = pytest.mark.django_db

TOO_LONG = "t" * 300
MESSAGES = {
    "en": {
        "body": "The request is not valid.",
        "required": "This field is required.",
        "max_length": "Ensure this field has no more than {max} characters.",
    },
    "zh-CN": {
        "body": "请求参数不合法。",
        "required": "该字段是必填项。",
        "max_length": "请确保这个字段不能超过 {max} 个字符。",
    },
}


def _fields(response: Any, locale: str) -> dict[str, Any]:
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["message"] == MESSAGES[locale]["body"]
    return error["fields"]


@pytest.mark.parametrize(
    ("saved", "header", "expected"),
    [
        ("en", None, "en"),  # the user's setting (Django's default would be Chinese)
        ("zh-CN", None, "zh-CN"),
        ("zh-CN", "en-US,en;q=0.9", "en"),  # Accept-Language first
        ("en", "zh-CN", "zh-CN"),
    ],
)
def test_drf_field_messages_follow_the_header_else_the_users_language(
    make_user: Any, client_for: Any, saved: str, header: str | None, expected: str
) -> None:
    user = make_user("bob", language=saved)
    api = client_for(user, **({"Accept-Language": header} if header else {}))

    missing = _fields(api.post("/api/v1/todos/", {}, format="json"), expected)
    long = _fields(api.post("/api/v1/notes/", {"title": TOO_LONG}, format="json"), expected)

    assert missing == {"title": [MESSAGES[expected]["required"]]}
    assert long == {"title": [MESSAGES[expected]["max_length"].format(max=NOTE_TITLE_MAX)]}


def test_a_patch_of_an_english_user_names_every_field_in_english(
    make_user: Any, client_for: Any
) -> None:
    user = make_user("bob", language="en")
    todo = todo_services.todo_create(owner=user, title="x")

    response = client_for(user).patch(
        f"/api/v1/todos/{todo.id}/", {"version": 1, "title": TOO_LONG}, format="json"
    )

    too_long = MESSAGES["en"]["max_length"].format(max=TODO_TITLE_MAX)
    assert _fields(response, "en") == {"title": [too_long]}


def test_the_language_cookie_does_not_decide_the_apis_language(make_user: Any) -> None:
    browser = Client(HTTP_ACCEPT_LANGUAGE="zh-CN")
    browser.force_login(make_user("bob", language="en"))
    browser.cookies["django_language"] = "en"  # the pages' switch; the API keeps its own rule

    response = browser.post("/api/v1/auth/register/", {}, content_type="application/json")

    fields = _fields(response, "zh-CN")
    assert fields["username"] == [MESSAGES["zh-CN"]["required"]]
    assert response["Content-Language"] == "zh-hans"
