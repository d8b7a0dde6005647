"""Failed-login lockout (issue 10 row 6): 5 failures per username + address -> 429.

Through HTTP, on both ways in: the token endpoint answers 429 ``RATE_LIMITED`` in the one
error body with ``Retry-After``; the login page is rendered again with status 429 and a
message in its language. Failed logins and the start of a lockout are audit events.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from lightnote.models import AuditEvent

pytestmark = pytest.mark.django_db

TOKEN = "/api/v1/auth/token/"
LOGIN = "/accounts/login/"


def token_login(
    password: str, *, username: str = "alice", address: str = "203.0.113.7", lang: str = "en"
) -> Any:
    return APIClient().post(
        TOKEN,
        {"username": username, "password": password},
        format="json",
        REMOTE_ADDR=address,
        HTTP_ACCEPT_LANGUAGE=lang,
    )


def page_login(password: str, *, username: str = "alice", lang: str = "en") -> Any:
    browser = Client()
    browser.cookies["django_language"] = "en" if lang == "en" else "zh-hans"
    return browser.post(
        LOGIN,
        {"username": username, "password": password},
        REMOTE_ADDR="198.51.100.9",
        HTTP_ACCEPT_LANGUAGE=lang,
    )


def assert_locked(response: Any) -> None:
    assert response.status_code == 429, response.content
    body = response.json()
    assert body["error"]["code"] == "RATE_LIMITED"
    retry_after = int(response["Retry-After"])
    assert retry_after == 900
    assert str(retry_after) in body["error"]["message"]


def test_five_wrong_passwords_lock_the_token_endpoint_for_that_username_and_address(
    user: Any,
) -> None:
    answers = [token_login("wrong") for _ in range(4)]
    assert [response.status_code for response in answers] == [400] * 4

    assert_locked(token_login("wrong"))  # the fifth failure locks
    assert_locked(token_login("pw-alice"))  # the right password is refused too
    assert not Token.objects.exists()

    # Another address, or another username from this address, is not affected.
    assert token_login("pw-alice", address="203.0.113.8").status_code == 200
    assert token_login("wrong", username="bob").status_code == 400


def test_the_lockout_counts_the_username_case_insensitively(user: Any) -> None:
    for name in ("alice", "Alice", "ALICE", "aLice"):
        assert token_login("wrong", username=name).status_code == 400
    assert_locked(token_login("wrong", username="alicE"))


def test_the_lockout_message_is_chinese_by_default(user: Any) -> None:
    for _ in range(5):
        response = token_login("wrong", lang="zh-CN")
    assert response.status_code == 429
    assert response.json()["error"]["message"] == "操作过于频繁，请 900 秒后再试。"


def test_the_lockout_ends_after_the_cool_off(user: Any) -> None:
    start = datetime.now(tz=UTC)
    with time_machine.travel(start, tick=False):
        for _ in range(5):
            token_login("wrong")
        assert_locked(token_login("pw-alice"))
    with time_machine.travel(start + timedelta(minutes=16), tick=False):
        assert token_login("pw-alice").status_code == 200


def test_a_successful_token_login_resets_the_count(user: Any) -> None:
    for _ in range(4):
        assert token_login("wrong").status_code == 400
    assert token_login("pw-alice").status_code == 200
    answers = [token_login("wrong") for _ in range(4)]
    assert [response.status_code for response in answers] == [400] * 4


def test_a_successful_page_login_resets_the_count(user: Any) -> None:
    for _ in range(4):
        assert page_login("wrong").status_code == 200
    assert page_login("pw-alice").status_code == 302
    for _ in range(4):
        assert page_login("wrong").status_code == 200


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "Too many failed logins for this username from your address. Try again in 15"),
        ("zh-CN", "此用户名在你的网络地址上登录失败次数过多，请 15 分钟后再试。"),
    ],
)
def test_the_login_page_locks_after_five_failures_with_a_message(
    user: Any, lang: str, text: str
) -> None:
    answers = [page_login("wrong", lang=lang) for _ in range(4)]
    assert [response.status_code for response in answers] == [200] * 4

    for response in (page_login("wrong", lang=lang), page_login("pw-alice", lang=lang)):
        assert response.status_code == 429
        assert response["Retry-After"] == "900"
        assert response["Content-Type"].startswith("text/html")
        page = response.content.decode()
        assert text in page
        assert 'data-code="RATE_LIMITED"' in page
        assert 'name="username"' in page  # the form is still there
        assert "_auth_user_id" not in response.client.session


def test_the_admin_login_locks_too(make_user: Any) -> None:
    make_user("root", is_staff=True, is_superuser=True)
    browser = Client()
    answers = [
        browser.post("/admin/login/", {"username": "root", "password": "wrong"}).status_code
        for _ in range(5)
    ]
    assert answers == [200, 200, 200, 200, 429]
    refused = browser.post("/admin/login/", {"username": "root", "password": "pw-root"})
    assert refused.status_code == 429
    assert "_auth_user_id" not in browser.session


def test_failed_logins_and_the_lockout_are_audited_once(user: Any) -> None:
    for _ in range(5):
        token_login("wrong")
    for _ in range(20):  # refused while locked: counted by axes, no audit row each
        token_login("wrong")
    page_login("wrong", username="bob")

    failed = AuditEvent.objects.filter(event_type="auth.login_failed")
    assert failed.count() == 6
    assert {(e.code, e.details["username"]) for e in failed} == {
        ("INVALID_CREDENTIALS", "alice"),
        ("INVALID_CREDENTIALS", "bob"),
    }
    assert {e.details["path"] for e in failed} == {TOKEN, LOGIN}
    assert all("password" not in e.details for e in failed)
    locked = AuditEvent.objects.get(event_type="auth.locked_out")
    assert locked.code == "RATE_LIMITED"
    assert locked.details["username"] == "alice"
    assert locked.details["address"] == "203.0.113.7"
    assert locked.details["failures"] == 5


def test_a_forwarded_header_does_not_change_the_counted_address(user: Any) -> None:
    client = APIClient()
    answers = [
        client.post(
            TOKEN,
            {"username": "alice", "password": "wrong"},
            format="json",
            REMOTE_ADDR="203.0.113.7",
            HTTP_X_FORWARDED_FOR=f"10.0.0.{n}",
        )
        for n in range(5)
    ]
    assert_locked(answers[-1])


# --- the login page in a real browser ----------------------------------------------------


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("viewport", "lang"), [("phone", "zh-CN"), ("desktop", "en")])
def test_browser_the_login_page_shows_the_lockout(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str, lang: str
) -> None:
    from tests.test_browser_chat import CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS
    from tests.test_browser_pages import SCREENSHOT_DIR, VIEWPORTS, _serious_violations

    make_user("walker")
    statuses: list[int] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(locale=lang, viewport=VIEWPORTS[viewport])
            context.set_default_timeout(TIMEOUT_MS)
            page = context.new_page()
            page.goto(f"{live_server.url}{LOGIN}")
            for _ in range(5):
                page.fill("section.login input[name=username]", "walker")
                page.fill("section.login input[name=password]", "wrong")
                with page.expect_navigation() as navigation:
                    page.click("section.login button[type=submit]")
                statuses.append(navigation.value.status)
            alert = page.locator('[role=alert][data-code="RATE_LIMITED"]')
            text = alert.inner_text()
            violations = _serious_violations(page)
            if SCREENSHOT_DIR:
                page.screenshot(
                    path=f"{SCREENSHOT_DIR}/login-lockout-{viewport}.png", full_page=True
                )
        finally:
            browser.close()

    assert statuses == [200, 200, 200, 200, 429]
    expected = "15 分钟后再试" if lang == "zh-CN" else "Try again in 15 minutes"
    assert expected in text
    assert violations == []


def test_the_limit_and_cool_off_come_from_the_environment() -> None:
    import os
    import subprocess
    import sys

    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from lightnote import settings as s; "
            "print(s.AXES_FAILURE_LIMIT, int(s.AXES_COOLOFF_TIME.total_seconds()))",
        ],
        env={
            **os.environ,
            "LIGHTNOTE_DEBUG": "1",
            "LIGHTNOTE_LOGIN_FAILURE_LIMIT": "3",
            "LIGHTNOTE_LOGIN_COOLOFF": "120",
        },
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.split() == ["3", "120"]
