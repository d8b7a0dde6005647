"""Issue 46 in a real browser (Playwright + Debian's Chromium), phone and desktop: Back after
a confirm shows the card as done, the keyboard reaches a confirmed card in a few Tabs with
focus on its outcome line, and sign-up -> verify -> login -> password reset by the emailed
link works. Mail is Django's locmem outbox (the test settings' backend), read from the live
server's own process.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail

from lightnote.accounts.email_verification import is_verified
from lightnote.models import User
from tests.browser_helpers import chat_page, open_menu
from tests.test_browser_chat import CHROMIUM, CHROMIUM_ARGS, SEED, TIMEOUT_MS
from tests.test_browser_pages import VIEWPORTS, _serious_violations, _shot
from todos.models import Todo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TAB_BUDGET = 10


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_browser_back_after_a_confirm_shows_the_card_done_not_waiting(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str
) -> None:
    user = make_user(f"back{viewport}")
    with (
        sync_playwright() as playwright,
        chat_page(playwright, live_server.url, user.username, viewport) as (_, page),
    ):
        page.get_by_label("你的消息").fill(SEED)
        page.get_by_role("button", name="发送").click()
        card = page.locator("article.card").filter(has=page.locator(".card-actions"))
        card_id = card.get_attribute("data-card-id")
        card.get_by_role("button", name="确认执行").click()
        page.locator(".outcome-succeeded").wait_for()
        page.locator("nav.site-nav").get_by_role("link", name="待办").click()
        page.wait_for_url(re.compile(r"/todos/$"))
        page.go_back()
        page.locator(f'article[data-card-id="{card_id}"]').wait_for()
        back_card = page.locator(f'article[data-card-id="{card_id}"]')
        state = back_card.locator(".card-state").inner_text()
        ask_again = back_card.get_by_role("button", name="重新发起确认").count()
        cache = page.request.get(f"{live_server.url}/").headers.get("cache-control", "")

    assert "已确认并执行" in state
    assert ask_again == 0
    assert "no-store" in cache
    assert Todo.objects.filter(owner=user).count() == 1


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_browser_keyboard_only_from_page_load_to_a_confirmed_card(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str
) -> None:
    user = make_user(f"keys{viewport}")
    for _ in range(30):  # a long conversation list must not stand in the way
        from agent.conversation.sessions import session_create

        session_create(owner=user)
    tabs = 0
    with (
        sync_playwright() as playwright,
        chat_page(playwright, live_server.url, user.username, viewport) as (_, page),
    ):
        page.keyboard.press("Tab")
        tabs += 1
        skip = page.evaluate("document.activeElement.className")
        page.keyboard.press("Enter")
        landed = page.evaluate("document.activeElement.id")
        page.keyboard.insert_text(SEED)
        page.keyboard.press("Enter")  # Enter sends (a desktop keyboard)
        page.locator("article.card .card-actions").wait_for()
        while page.evaluate("document.activeElement.classList.contains('confirm')") is False:
            page.keyboard.press("Shift+Tab")
            tabs += 1
            assert tabs <= 40, "the Confirm button is not reachable backwards"
        page.keyboard.press("Enter")
        page.locator(".outcome-succeeded").wait_for()
        from playwright.sync_api import expect  # here: the module loads without playwright

        expect(page.locator(".outcome-line")).to_be_focused()
        focused = page.evaluate("document.activeElement.textContent")
        _shot(page, f"keyboard-confirmed-{viewport}")

    assert skip == "skip-link"
    assert landed == "chat-text"
    assert tabs <= TAB_BUDGET
    assert focused.strip()
    assert Todo.objects.filter(owner=user).count() == 1


def _link(outbox_index: int) -> str:
    (link,) = re.findall(r"https?://\S+", mail.outbox[outbox_index].body)
    return link


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_browser_signup_verify_login_then_reset_the_password_by_the_emailed_link(
    live_server: Any, sync_playwright: Any, viewport: str
) -> None:
    name = f"new{viewport}"
    first, second = "tulip-harbor-9431", "quartz-meadow-2718"
    violations: dict[str, list[str]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(locale="zh-CN", viewport=VIEWPORTS[viewport])
            context.set_default_timeout(TIMEOUT_MS)
            page = context.new_page()
            page.goto(f"{live_server.url}/accounts/login/")
            page.get_by_role("link", name="没有账号？注册").click()
            page.get_by_label("用户名").fill(name)
            page.get_by_label("邮箱").fill(f"{name}@example.com")
            page.get_by_label("密码").fill(first)
            violations["signup"] = _serious_violations(page)
            _shot(page, f"signup-{viewport}")
            page.locator("main").get_by_role("button", name="注册").click()
            page.get_by_text("请查收邮件").wait_for()

            page.goto(_link(-1))  # the verification mail
            page.get_by_text("已验证").wait_for()
            page.get_by_role("link", name="去登录").click()
            page.get_by_label("用户名").fill(name)
            page.get_by_label("密码").fill(first)
            page.locator("main").get_by_role("button", name="登录").click()
            page.wait_for_url(re.compile(r"/chat/|/$"))
            page.locator(".topbar .who").get_by_text(name).wait_for(state="attached")
            open_menu(page)
            page.locator("form.inline").get_by_role("button").click()  # log out
            page.wait_for_url(re.compile(r"/accounts/login/"))

            page.get_by_role("link", name="忘记密码？").click()
            page.get_by_label("邮箱").fill(f"{name}@example.com")
            violations["reset"] = _serious_violations(page)
            page.get_by_role("button", name="发送重设链接").click()
            page.wait_for_url(re.compile(r"/accounts/password_reset/done/"))
            page.goto(_link(-1))  # the reset mail
            page.get_by_label("新密码", exact=True).fill(second)
            page.get_by_label("再次输入新密码").fill(second)
            violations["reset-confirm"] = _serious_violations(page)
            page.get_by_role("button", name="保存新密码").click()
            page.get_by_text("密码已更新").wait_for()
            page.get_by_role("link", name="去登录").click()
            page.get_by_label("用户名").fill(name)
            page.get_by_label("密码").fill(second)
            page.locator("main").get_by_role("button", name="登录").click()
            page.wait_for_url(re.compile(r"/chat/|/$"))
            logged_in = page.locator(".topbar .who").text_content()
        finally:
            browser.close()

    user = User.objects.get(username=name)
    assert logged_in == name
    assert is_verified(user)
    assert user.check_password(second)
    assert [m.to for m in mail.outbox] == [[f"{name}@example.com"]] * 2
    assert {page_name: found for page_name, found in violations.items() if found} == {}


def test_browser_phone_one_row_top_bar_folded_todo_form_and_return_adds_a_line(
    live_server: Any, make_user: Any, sync_playwright: Any
) -> None:
    user = make_user("thumb")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(
                locale="zh-CN", viewport=VIEWPORTS["phone"], has_touch=True, is_mobile=True
            )
            context.set_default_timeout(TIMEOUT_MS)
            page = context.new_page()
            from tests.browser_helpers import login

            login(page, live_server.url, user.username)
            bar = page.locator(".topbar").bounding_box()
            menu_hidden = not page.locator(".lang-switch").is_visible()
            open_menu(page)
            menu_shown = page.locator(".lang-switch").is_visible()
            text = page.get_by_label("你的消息")
            text.click()
            page.keyboard.type("第一行")
            page.keyboard.press("Enter")
            page.keyboard.type("第二行")
            typed = text.input_value()
            sent_meanwhile = page.locator("article.card").count()
            hint = page.locator("#chat-hint").inner_text()
            _shot(page, "phone-chat-menu-open")

            page.goto(f"{live_server.url}/todos/")
            folded = not page.get_by_label("标题").is_visible()
            todos_bar = page.locator(".topbar").bounding_box()
            page.locator("summary", has_text="新建待办").click()
            unfolded = page.get_by_label("标题").is_visible()
            _shot(page, "phone-todos-new-open")
        finally:
            browser.close()

    assert bar is not None
    assert todos_bar is not None
    assert bar["height"] <= 60  # one row (it took ~300 px before)
    assert todos_bar["height"] <= 60
    assert menu_hidden
    assert menu_shown
    assert typed == "第一行\n第二行"
    assert sent_meanwhile == 0
    assert "回车换行" in hint
    assert folded
    assert unfolded


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_browser_the_todo_list_completes_a_row_by_its_checkbox_and_marks_overdue(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from todos import services as todo_services

    user = make_user(f"list{viewport}")
    late = todo_services.todo_create(
        owner=user, title="交房租", due_at=timezone.now() - timedelta(days=1)
    )
    todo_services.todo_create(owner=user, title="读书")
    violations: dict[str, list[str]] = {}
    with (
        sync_playwright() as playwright,
        chat_page(playwright, live_server.url, user.username, viewport, path="/todos/") as (
            _,
            page,
        ),
    ):
        rows = page.locator(".item-list .item-title").all_inner_texts()
        overdue = page.locator(".item-overdue .item-title").all_inner_texts()
        violations["todos"] = _serious_violations(page)
        _shot(page, f"todos-views-{viewport}")
        # A click, not check(): the change posts the row's form and the list comes back
        # without the row, so there is no checkbox left to read as checked.
        page.get_by_label("标记为完成： 交房租").click()
        page.get_by_text("待办「交房租」已完成。").wait_for()
        after = page.locator(".item-list .item-title").all_inner_texts()
        page.locator(".todo-views").get_by_role("link", name="已完成").click()
        done = page.locator(".item-list .item-title").all_inner_texts()

    late.refresh_from_db()
    assert rows == ["交房租", "读书"]  # by due time, none last
    assert overdue == ["交房租"]
    assert after == ["读书"]
    assert done == ["交房租"]
    assert late.status == "done"
    assert {name: found for name, found in violations.items() if found} == {}


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
@pytest.mark.parametrize(
    ("language", "line", "show_all"),
    [
        ("zh-CN", "只显示：本周到期 · 优先级高", "不限"),
        ("en", "Showing only: due this week · High priority", "Show all"),
    ],
)
def test_browser_a_list_narrowed_by_window_and_priority_says_so_and_widens_back(
    live_server: Any,
    make_user: Any,
    sync_playwright: Any,
    viewport: str,
    language: str,
    line: str,
    show_all: str,
) -> None:
    # The assistant's reads link here (/todos/?within=this_week&priority=2): the page must
    # say it shows only part of the view, in the user's language, and offer the whole view.
    from datetime import timedelta

    from django.utils import timezone

    from todos import services as todo_services

    user = make_user(f"narrow{language}{viewport}")
    soon = timezone.now() + timedelta(hours=1)
    todo_services.todo_create(owner=user, title="Urgent soon", due_at=soon, priority=2)
    todo_services.todo_create(owner=user, title="Normal soon", due_at=soon)
    todo_services.todo_create(owner=user, title="Urgent later", priority=2)
    path = "/todos/?within=this_week&priority=2"
    with (
        sync_playwright() as playwright,
        chat_page(
            playwright, live_server.url, user.username, viewport, path=path, locale=language
        ) as (_, page),
    ):
        brand = page.locator(".topbar .brand").bounding_box()
        menu = page.locator(".menu-toggle").bounding_box() if viewport == "phone" else None
        narrowed = page.locator(".narrowed").inner_text()
        rows = page.locator(".item-list .item-title").all_inner_texts()
        violations = _serious_violations(page)
        _shot(page, f"todos-narrowed-{language}-{viewport}")
        page.locator(".narrowed").get_by_role("link", name=show_all).click()
        page.wait_for_url(lambda url: "within=" not in url)
        widened = sorted(page.locator(".item-list .item-title").all_inner_texts())

    if menu is not None:  # a phone: "Menu" sits on the brand's row, in either language
        assert brand is not None
        assert abs((menu["y"] + menu["height"] / 2) - (brand["y"] + brand["height"] / 2)) < 8
    assert narrowed.split(" · ")[:-1] == line.split(" · ")
    assert narrowed.endswith(show_all)
    assert rows == ["Urgent soon"]
    assert widened == ["Normal soon", "Urgent later", "Urgent soon"]
    assert violations == []
