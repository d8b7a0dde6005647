"""Conversations, languages and robust sending in a real browser (Playwright, Debian Chromium).

Phone (390×844) and desktop; each page checked with the vendored axe-core (no serious or
critical violation). The database is touched only before the browser starts and after it
closed (see tests/test_browser_chat.py). ``LIGHTNOTE_SCREENSHOT_DIR=docs/screenshots``
refreshes the README's screenshots.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import override_settings

from agent.models import ActionCard, AgentSession
from tests.browser_helpers import chat_page, open_menu
from tests.test_browser_chat import SEED
from tests.test_browser_pages import VIEWPORTS, _serious_violations, _shot
from todos.models import Todo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CONVERSATION_URL = re.compile(r"/chat/[0-9a-f-]{36}/$")


def _chat_page(playwright: Any, base: str, username: str, viewport: str) -> Any:
    """A logged-in chat page that starts at ``/chat/`` and lands on a conversation's URL."""
    return chat_page(playwright, base, username, viewport, path="/chat/", landing=CONVERSATION_URL)


def _send(page: Any, text: str, label: str = "你的消息", button: str = "发送") -> None:
    turns = page.locator("#messages > li.msg-assistant").count()
    page.get_by_label(label).fill(text)
    page.get_by_role("button", name=button).click()
    page.locator("#messages > li.msg-assistant").nth(turns).wait_for()


def _open_list(page: Any) -> Any:
    box = page.locator("#conversations > details")
    if box.get_attribute("open") is None:
        page.locator("#conversations > details > summary").click()
    return page.locator("#conversations")


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_browser_conversations_switch_rename_and_delete(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str
) -> None:
    user = make_user(f"conv{viewport}")
    violations: dict[str, list[str]] = {}

    with (
        sync_playwright() as playwright,
        _chat_page(playwright, live_server.url, f"conv{viewport}", viewport) as (_, page),
    ):
        first_url = page.url
        _send(page, "列出我的待办")

        page.get_by_role("button", name="新对话").click()
        page.wait_for_url(lambda url: CONVERSATION_URL.search(url) and url != first_url)
        second_url = page.url
        _send(page, "列出我的笔记")
        _send(page, "帮我创建一条明天下午3点提交周报的待办")
        listed = _open_list(page)  # no reload: the entry's title came with the turn
        titles = listed.locator(".conversation-link").all_inner_texts()
        current = listed.locator(".conversation-link[aria-current=page]").inner_text()
        violations["list"] = _serious_violations(page)
        _shot(page, f"chat-conversations-{viewport}")

        # Switch back: the old conversation is reachable, with its messages.
        listed.get_by_role("link", name="列出我的待办").click()
        page.wait_for_url(first_url)
        old_messages = page.locator("#messages .msg-user").all_inner_texts()

        # Rename it (htmx: the list is refreshed in place, the page stays).
        listed = _open_list(page)
        item = listed.locator(".conversation-item.is-current")
        item.locator(".conversation-manage > summary").click()
        item.get_by_label("新标题").fill("我的待办清单")
        item.get_by_role("button", name="保存标题").click()
        page.locator("#conversations .conversations-status").filter(
            has_text="对话已重命名。"
        ).wait_for()
        renamed = page.locator("#conversations .conversation-link").all_inner_texts()
        url_after_rename = page.url
        violations["renamed"] = _serious_violations(page)

        # Delete the other one (htmx: it leaves the list), then the one on screen.
        other = page.locator("#conversations .conversation-item").filter(
            has=page.locator(f'a[href="{second_url.removeprefix(live_server.url)}"]')
        )
        other.locator(".conversation-manage > summary").click()
        other.get_by_role("button", name="删除这个对话").click()
        page.locator("#conversations .conversations-status").filter(
            has_text="对话已删除。"
        ).wait_for()
        after_delete = page.locator("#conversations .conversation-link").all_inner_texts()
        shown = page.locator("#conversations .conversation-item.is-current")
        if shown.locator("details.conversation-manage").get_attribute("open") is None:
            shown.locator(".conversation-manage > summary").click()
        shown.get_by_role("button", name="删除这个对话").click()
        page.wait_for_url(lambda url: CONVERSATION_URL.search(url) and url != first_url)
        final_url = page.url
        final_empty = page.locator(".conversation .empty").inner_text()

    assert titles == ["列出我的笔记", "列出我的待办"]
    assert current == "列出我的笔记"
    assert len(old_messages) == 1
    assert "列出我的待办" in old_messages[0]
    assert renamed == ["我的待办清单", "列出我的笔记"]  # a rename is activity: newest first
    assert url_after_rename == first_url
    assert after_delete == ["我的待办清单"]
    assert final_url not in (first_url, second_url)
    assert final_empty == "还没有消息。"
    assert AgentSession.objects.live().filter(owner=user).count() == 1
    assert AgentSession.objects.filter(owner=user, deleted_at__isnull=False).count() == 2
    # The deleted conversation's waiting card was withdrawn, not left live.
    assert list(ActionCard.objects.filter(owner=user).values_list("state", flat=True)) == [
        ActionCard.State.VOIDED
    ]
    assert violations == {"list": [], "renamed": []}


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_browser_language_switch_renders_history_cards_again_and_replies_follow_the_message(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str
) -> None:
    make_user(f"lang{viewport}")
    violations: dict[str, list[str]] = {}

    with (
        sync_playwright() as playwright,
        _chat_page(playwright, live_server.url, f"lang{viewport}", viewport) as (_, page),
    ):
        url = page.url
        _send(page, SEED)
        live_title = page.locator("article.card h3").first.inner_text()
        _send(page, "show my todos")
        english_reply = page.locator("#messages > li.msg-assistant").last.inner_text()

        open_menu(page)
        page.locator(".lang-switch").get_by_role("button", name="English").click()
        page.wait_for_url(url)
        page.locator("article.card-ready").wait_for()
        card_title = page.locator("article.card-ready h3").inner_text()
        card_text = page.locator("article.card-ready").inner_text()
        violations["english"] = _serious_violations(page)
        _shot(page, f"chat-english-{viewport}")
        _send(page, "列出我的待办", label="Your message", button="Send")
        chinese_reply = page.locator("#messages > li.msg-assistant").last.inner_text()

        open_menu(page)
        page.locator(".lang-switch").get_by_role("button", name="中文").click()
        page.wait_for_url(url)
        back_title = page.locator("article.card-ready h3").inner_text()

    assert live_title == "创建待办"
    assert card_title == "Create todo"
    assert "Priority" in card_text
    assert "Ask again" in card_text
    assert "优先级" not in card_text
    assert back_title == "创建待办"
    assert "No todo matches." in english_reply
    assert "没有找到符合条件的待办。" in chinese_reply
    assert violations == {"english": []}


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_browser_message_echo_while_the_planner_runs_and_login_expiry_in_another_tab(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str
) -> None:
    make_user(f"echo{viewport}")
    held: list[Any] = []

    with (
        sync_playwright() as playwright,
        _chat_page(playwright, live_server.url, f"echo{viewport}", viewport) as (context, page),
    ):
        # The message shows at once, pending, while the server has not answered.
        page.route("**/chat/message/", lambda route: held.append(route))
        page.get_by_label("你的消息").fill("列出我的待办")
        page.get_by_role("button", name="发送").click()
        echo = page.locator("#pending-echo")
        echo.wait_for()
        page.wait_for_function("() => document.querySelector('#pending-echo') !== null")
        echo_text = echo.inner_text()
        echo_busy = echo.get_attribute("aria-busy")
        held[0].continue_()
        page.locator("#messages > li.msg-assistant").first.wait_for()
        page.unroute("**/chat/message/")
        echoes_after = page.locator("#pending-echo").count()
        users_after = page.locator("#messages > li.msg-user").count()
        box_after_success = page.get_by_label("你的消息").input_value()

        # Another tab logs out; this tab's send keeps the text and says to log in again.
        other = context.new_page()
        other.goto(page.url)
        open_menu(other)
        other.locator("header").get_by_role("button", name="退出登录").click()
        other.wait_for_load_state()
        draft = "明天提醒我给妈妈打电话\n第二行"
        page.get_by_label("你的消息").fill(draft)
        page.get_by_role("button", name="发送").click()
        problem = page.locator("#problems")
        problem.filter(has_text="登录已过期").wait_for()
        problem_text = problem.inner_text()
        login_link = problem.get_by_role("link").get_attribute("href")
        kept = page.get_by_label("你的消息").input_value()
        echoes_on_failure = page.locator("#pending-echo").count()
        users_on_failure = page.locator("#messages > li.msg-user").count()
        _shot(page, f"chat-login-expired-{viewport}")

    assert "列出我的待办" in echo_text
    assert "正在思考…" in echo_text
    assert echo_busy == "true"
    assert echoes_after == 0
    assert users_after == 1
    assert box_after_success == ""
    assert "请重新登录" in problem_text
    assert "在新标签页中重新登录" in problem_text
    assert login_link.startswith("/accounts/login/?next=%2Fchat%2F")
    assert kept == draft
    assert echoes_on_failure == 0
    assert users_on_failure == 1


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_browser_second_tab_asks_again_and_the_first_tabs_card_is_refused(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str
) -> None:
    user = make_user(f"tabs{viewport}")
    violations: dict[str, list[str]] = {}

    with (
        sync_playwright() as playwright,
        _chat_page(playwright, live_server.url, f"tabs{viewport}", viewport) as (context, first),
    ):
        _send(first, SEED)
        first_card = first.locator("article.card").filter(has=first.locator(".card-actions"))
        first_card.wait_for()

        second = context.new_page()
        second.goto(first.url)
        ready = second.locator("article.card-ready")
        ready.wait_for()
        ready_buttons = ready.get_by_role("button").all_inner_texts()
        violations["second-tab"] = _serious_violations(second)
        ready.get_by_role("button", name="重新发起确认").click()
        live = second.locator("article.card").filter(
            has=second.get_by_role("button", name="确认执行")
        )
        live.wait_for()
        live.get_by_role("button", name="确认执行").click()
        second.locator(".outcome-succeeded").wait_for()

        first_card.get_by_role("button", name="确认执行").click()
        refused = first_card.locator(".card-problem [role=alert]")
        refused.wait_for()
        refused_text = refused.inner_text()
        refused_code = refused.get_attribute("data-code")

    assert ready_buttons == ["重新发起确认"]
    assert refused_code not in refused_text
    assert refused_code in ("CONFIRMATION_EXPIRED", "CONFIRMATION_REJECTED", "CARD_VOIDED")
    assert Todo.objects.filter(owner=user).count() == 1
    assert violations == {"second-tab": []}


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_browser_countdown_disables_the_buttons_at_expiry(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str
) -> None:
    user = make_user(f"ttl{viewport}")

    with (
        override_settings(LIGHTNOTE_CONFIRMATION_TTL=4),
        sync_playwright() as playwright,
        _chat_page(playwright, live_server.url, f"ttl{viewport}", viewport) as (_, page),
    ):
        _send(page, SEED)
        card = page.locator("article.card").filter(has=page.locator(".card-actions"))
        card.wait_for()
        enabled_before = card.get_by_role("button", name="确认执行").is_enabled()
        card.locator(".card-expired-note").wait_for()
        note = card.locator(".card-expired-note").inner_text()
        disabled = [button.is_disabled() for button in card.get_by_role("button").all()]
        page.reload()
        expired = page.locator("article.card-expired").inner_text()
        history_buttons = page.locator("article.card-expired button").count()

    assert enabled_before
    assert note == "这张确认卡已过期，没有执行任何操作。"
    assert disabled == [True, True]
    assert "已过期，未执行" in expired
    assert history_buttons == 0
    assert Todo.objects.filter(owner=user).count() == 0


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_browser_a_long_conversation_list_loads_older_ones_in_place(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str
) -> None:
    user = make_user(f"long{viewport}")
    AgentSession.objects.bulk_create(
        AgentSession(owner=user, title=f"对话 {number:03d}") for number in range(70)
    )
    with (
        sync_playwright() as playwright,
        _chat_page(playwright, live_server.url, f"long{viewport}", viewport) as (_, page),
    ):
        listing = _open_list(page)
        before = listing.locator(".conversation-link").count()
        count_before = listing.locator(".count").inner_text()
        older = listing.get_by_role("link", name="显示更早的对话")
        older.scroll_into_view_if_needed()
        violations = _serious_violations(page)
        _shot(page, f"chat-conversations-older-{viewport}")
        older.click()
        listing.locator(".conversation-link").nth(before).wait_for()
        after = listing.locator(".conversation-link").count()
        link_left = listing.get_by_role("link", name="显示更早的对话").count()
        url = page.url

    assert (before, count_before) == (50, "50+")
    assert after == 70  # /chat/ opened the newest of them: every one listed once
    assert link_left == 0
    assert CONVERSATION_URL.search(url)  # loaded in place: the page did not change
    assert violations == []
