"""One language per screen, server side: the admin's app and model names and the zone
error follow the request's language."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_browser(make_user: Any) -> Client:
    client = Client()
    client.force_login(make_user("boss", is_staff=True, is_superuser=True))
    return client


def test_the_chinese_admin_names_every_app_in_chinese(staff_browser: Client) -> None:
    staff_browser.cookies["django_language"] = "zh-hans"

    html = staff_browser.get("/admin/").content.decode()

    for name in ("待办", "笔记", "登录失败记录", "登录尝试", "账号"):
        assert name in html, name
    for raw in ("Axes", "AXES", "Access attempts", ">Todos<", ">Notes<", "MCP server"):
        assert raw not in html, raw


def test_the_english_admin_names_every_app_in_english(staff_browser: Client) -> None:
    staff_browser.cookies["django_language"] = "en"

    html = staff_browser.get("/admin/").content.decode()

    assert "Failed logins" in html
    assert "Todos" in html


@pytest.mark.parametrize(
    ("language", "expected"),
    [("en", "is not a time zone"), ("zh-CN", "不是时区")],
)
def test_a_bad_zone_is_refused_in_the_requests_language(
    alice_api: Any, language: str, expected: str
) -> None:
    response = alice_api.patch(
        "/api/v1/me/", {"time_zone": "Mars/Olympus"}, format="json", HTTP_ACCEPT_LANGUAGE=language
    )

    assert response.status_code == 400
    (message,) = response.json()["error"]["fields"]["time_zone"]
    assert expected in message


def test_the_chinese_audit_list_names_events_and_codes_in_chinese(
    staff_browser: Client, user: Any
) -> None:
    from lightnote.audit import audit_event

    audit_event("card.issued", actor=user, subject=user)
    audit_event("confirm.expired", actor=user, subject=user, code="CONFIRMATION_EXPIRED")
    staff_browser.cookies["django_language"] = "zh-hans"

    html = staff_browser.get("/admin/lightnote/auditevent/").content.decode()
    cells = html[html.index("<tbody>") : html.index("</tbody>")]

    assert "已发出确认卡" in cells
    assert "确认已过期" in cells
    assert "card.issued" not in cells
    assert "CONFIRMATION_EXPIRED" not in cells


def test_an_overdue_cards_two_sentences_are_apart_in_english(user: Any) -> None:
    from tests.test_tool_previews import context_for, preview

    args = {"title": "t", "due_at": "2026-12-01T09:00:00+08:00"}  # before the context's now

    english = preview("create_todo", args, context_for(user, "en"))["impact"]
    chinese = preview("create_todo", args, context_for(user))["impact"]

    assert "created. Note:" in english
    assert "。注意" in chinese
