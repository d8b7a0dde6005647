"""The chat page in a real browser: Playwright driving Debian's Chromium against the live server.

Skipped, with the reason, when ``/usr/bin/chromium`` (or the ``playwright`` package) is
missing — unless ``REQUIRE_SERVICES=1``, where a missing browser fails the run. Set
``LIGHTNOTE_BROWSER_SCREENSHOT=/tmp/chat.png`` to keep a screenshot of the finished page.

Playwright's sync API runs its own event loop on this thread, and Django refuses ORM calls
from a thread with a running loop; so the database is touched only before the browser
starts and after it has closed. The live server answers from its own thread.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

from tests.conftest import BROWSER as CHROMIUM
from todos.models import Todo

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
SEED = "帮我创建一条今晚 9 点提交周报的高优先级待办"
TIMEOUT_MS = 15_000

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_browser_confirm_twice_executes_once_and_shows_the_reply(
    live_server: Any, make_user: Any, sync_playwright: Any
) -> None:
    user = make_user("walker")  # password "pw-walker"
    confirm_requests: list[str] = []

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(locale="zh-CN", viewport={"width": 900, "height": 1000})
            context.set_default_timeout(TIMEOUT_MS)
            page = context.new_page()
            page.on(
                "request",
                lambda request: (
                    confirm_requests.append(request.url)
                    if request.url.endswith("/chat/confirm/")
                    else None
                ),
            )

            page.goto(f"{live_server.url}/")
            page.wait_for_url(re.compile(r"/accounts/login/"))
            page.get_by_label("用户名").fill("walker")
            page.get_by_label("密码").fill("pw-walker")
            page.locator("main").get_by_role("button", name="登录").click()
            page.wait_for_url(f"{live_server.url}/")

            page.get_by_label("你的消息").fill(SEED)
            page.get_by_role("button", name="发送").click()
            card = page.locator("article.card").filter(has=page.locator(".card-actions"))
            card.wait_for()
            card_text = card.inner_text()
            due = card.locator(".detail-due_at dd").inner_text()

            card.get_by_role("button", name="确认执行").dblclick()
            page.locator(".outcome-succeeded").wait_for()
            page.locator(".msg-final").wait_for()
            successes = page.locator(".outcome-succeeded").count()
            receipt = page.locator(".outcome-succeeded .receipt-summary").inner_text()
            replies = page.locator(".msg-final").all_inner_texts()
            live_cards = page.locator(".card-actions").count()
            problems = page.locator("#problems").inner_text()

            screenshot = os.environ.get("LIGHTNOTE_BROWSER_SCREENSHOT")
            if screenshot:
                page.screenshot(path=screenshot, full_page=True)
        finally:
            browser.close()

    # The card shows the prepared, concrete time with its zone — not the user's words.
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} 21:00 \(Asia/Shanghai\)", due)
    assert "21:00" in card_text
    assert "提交周报" in card_text
    # The button disabled itself on the first click: one request, one success, one reply.
    assert len(confirm_requests) == 1
    assert successes == 1
    assert receipt == "已创建待办「提交周报」。"
    assert len(replies) == 1
    assert f"已为你创建待办「提交周报」，截止 {due[:16]}" in replies[0]
    assert live_cards == 0
    assert problems == ""
    assert Todo.objects.filter(owner=user).count() == 1
    todo = Todo.objects.get(owner=user)
    assert f"{todo.due_at.astimezone(user.zone):%Y-%m-%d %H:%M}" == due[:16]


def test_browser_shows_a_refused_confirm_inside_the_card_in_english(
    live_server: Any, make_user: Any, sync_playwright: Any
) -> None:
    user = make_user("reader")  # password "pw-reader"

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(locale="en-US")
            context.set_default_timeout(TIMEOUT_MS)
            page = context.new_page()
            page.goto(f"{live_server.url}/accounts/login/")
            page.get_by_label("Username").fill("reader")
            page.get_by_label("Password").fill("pw-reader")
            page.locator("main").get_by_role("button", name="Log in").click()
            page.wait_for_url(f"{live_server.url}/")

            page.get_by_label("Your message").fill("Create a todo to call mom in 2 hours")
            page.keyboard.press("Enter")
            card = page.locator("article.card").filter(has=page.locator(".card-actions"))
            card.wait_for()
            # The card is rejected elsewhere (another tab) before this one is confirmed.
            fields = {
                name: card.locator(f'.card-actions input[name="{name}"]').get_attribute("value")
                for name in ("csrfmiddlewaretoken", "token", "session_id")
            }
            rejected = page.request.post(
                f"{live_server.url}/chat/reject/",
                form=fields,
                headers={"HX-Request": "true", "Referer": f"{live_server.url}/"},
            )
            card.get_by_role("button", name="Confirm").click()
            problem = card.locator(".card-problem [role=alert]")
            problem.wait_for()
            problem_text = problem.inner_text()
            problem_code = problem.get_attribute("data-code")
            buttons_enabled = card.get_by_role("button", name="Confirm").is_enabled()
            successes = page.locator(".outcome-succeeded").count()
        finally:
            browser.close()

    assert rejected.status == 200
    assert "This confirmation was rejected." in problem_text
    assert "CONFIRMATION_REJECTED" not in problem_text  # a friendly message, not a raw code
    assert problem_code == "CONFIRMATION_REJECTED"
    assert buttons_enabled  # the card stays; the server's answer is shown under it
    assert successes == 0
    assert Todo.objects.filter(owner=user).count() == 0
