"""Issue 15 in a real browser: choose -> confirm, then undo -> confirm, on the chat page.

An ambiguous delete shows a choice with one button per todo (its due time and description
tell them apart); the pick answers the ordinary card; confirming it deletes exactly that
todo (two clicks). The outcome offers "Undo"; its card, confirmed, brings the todo back from
the trash. Phone (390×844) and desktop (1280×800), each state checked with axe-core.
``LIGHTNOTE_SCREENSHOT_DIR=/some/dir`` keeps the screenshots.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from agent.models import ActionReceipt
from tests.browser_helpers import chat_page
from tests.test_browser_chat import SEED
from tests.test_browser_pages import VIEWPORTS, _serious_violations, _shot
from todos import services as todo_services
from todos.models import Todo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ZONE = ZoneInfo("Asia/Shanghai")


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_browser_choose_confirm_then_undo_restores_the_todo(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str
) -> None:
    user = make_user(f"pick{viewport}")
    user.time_zone = "Asia/Shanghai"
    user.save()
    today = timezone.now().astimezone(ZONE).date()
    evening = datetime(today.year, today.month, today.day, 21, 0, tzinfo=ZONE)
    keep = todo_services.todo_create(
        owner=user, title="提交周报", description="给老板的版本", due_at=evening + timedelta(days=1)
    )
    drop = todo_services.todo_create(
        owner=user, title="提交周报", description="团队内部版", due_at=evening
    )
    violations: dict[str, list[str]] = {}

    with (
        sync_playwright() as playwright,
        chat_page(playwright, live_server.url, f"pick{viewport}", viewport) as (_, page),
    ):
        page.get_by_label("你的消息").fill("删除待办「提交周报」")
        page.get_by_role("button", name="发送").click()
        choice = page.locator("article.choice-card")
        choice.wait_for()
        choice_text = choice.inner_text()
        buttons = choice.get_by_role("button").count()
        violations["choice"] = _serious_violations(page)
        _shot(page, f"chat-choice-{viewport}")

        # Click 1: pick the todo due tonight (its item names its description).
        item = choice.locator(".choice-item").filter(has_text="团队内部版")
        item.get_by_role("button").click()
        confirm = page.get_by_role("button", name="确认执行")
        card = page.locator("article.card").filter(has=confirm)
        card.wait_for()
        card_text = card.inner_text()
        violations["picked"] = _serious_violations(page)
        _shot(page, f"chat-picked-{viewport}")
        # Click 2: confirm.
        card.get_by_role("button", name="确认执行").click()
        outcome = page.locator(".outcome-succeeded")
        outcome.wait_for()

        page.locator(".msg-final").first.wait_for()  # the deletion's reply
        # Undo: a card for the restore, confirmed like any card; it comes last, after the
        # card it takes back and that card's reply.
        outcome.get_by_role("button", name="撤销").click()
        undo_area = page.locator("li.msg-undo")
        undo_area.get_by_role("button", name="确认执行").wait_for()
        undo_text = undo_area.inner_text()
        violations["undo"] = _serious_violations(page)
        _shot(page, f"chat-undo-{viewport}")
        undo_area.get_by_role("button", name="确认执行").click()
        undo_area.locator(".outcome-succeeded").wait_for()
        # the final reply, from the restore's receipt (once replaced by "not executed")
        restored = undo_area.locator(".msg-final")
        restored.wait_for()
        restored_text = restored.inner_text()
        last_entry = page.locator("#messages > li").last.get_attribute("class")
        replies_before_undo = page.locator("#messages > li.msg-undo ~ li").count()
        # The deletion's own link follows the todo back to its page, without a reload.
        deletion_link = outcome.first.locator(":scope > .item-link a")
        deletion_link_now = (deletion_link.inner_text(), deletion_link.get_attribute("href"))
        _shot(page, f"chat-undone-{viewport}")

    assert buttons == 2
    assert "团队内部版" in choice_text
    assert "给老板的版本" in choice_text
    assert "删除待办" in card_text
    # The delete reached exactly the picked todo; the restore brought that one back.
    receipts = dict(ActionReceipt.objects.values_list("tool", "resource_id"))
    assert receipts == {"delete_todo": str(drop.id), "restore_todo": str(drop.id)}
    assert "恢复待办" in undo_text
    assert "msg-undo" in (last_entry or "")
    assert replies_before_undo == 0
    assert "已恢复待办「提交周报」。" in restored_text
    assert deletion_link_now == ("打开", f"/todos/{drop.id}/")
    assert set(Todo.objects.values_list("id", flat=True)) == {keep.id, drop.id}
    assert violations == {"choice": [], "picked": [], "undo": []}


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_browser_a_choice_still_ready_after_a_reload_is_picked_and_confirmed(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str
) -> None:
    user = make_user(f"reload{viewport}")
    user.time_zone = "Asia/Shanghai"
    user.save()
    keep = todo_services.todo_create(owner=user, title="提交周报", description="给老板的版本")
    drop = todo_services.todo_create(owner=user, title="提交周报", description="团队内部版")

    with (
        sync_playwright() as playwright,
        chat_page(playwright, live_server.url, f"reload{viewport}", viewport) as (_, page),
    ):
        page.get_by_label("你的消息").fill("删除待办「提交周报」")
        page.get_by_role("button", name="发送").click()
        page.locator("article.choice-card").wait_for()
        page.reload()
        choice = page.locator("article.choice-card")
        choice.wait_for()
        buttons = choice.get_by_role("button").count()
        violations = _serious_violations(page)
        _shot(page, f"chat-choice-reloaded-{viewport}")
        item = choice.locator(".choice-item").filter(has_text="团队内部版")
        item.get_by_role("button").click()
        card = page.locator("article.card").filter(has=page.get_by_role("button", name="确认执行"))
        card.wait_for()
        card.get_by_role("button", name="确认执行").click()
        page.locator(".outcome-succeeded").wait_for()
        _shot(page, f"chat-choice-reloaded-done-{viewport}")

    assert buttons == 2
    assert violations == []
    receipts = dict(ActionReceipt.objects.values_list("tool", "resource_id"))
    assert receipts == {"delete_todo": str(drop.id)}
    assert list(Todo.objects.values_list("id", flat=True)) == [keep.id]


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_browser_edit_a_card_then_confirm_executes_the_edited_values(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str
) -> None:
    user = make_user(f"edit{viewport}")
    violations: dict[str, list[str]] = {}

    with (
        sync_playwright() as playwright,
        chat_page(playwright, live_server.url, f"edit{viewport}", viewport) as (_, page),
    ):
        page.get_by_label("你的消息").fill(SEED)
        page.get_by_role("button", name="发送").click()
        card = page.locator("article.card").filter(has=page.locator(".card-edit"))
        card.wait_for()
        card.locator(".card-edit summary").click()
        card.get_by_label("标题").fill("提交月报")
        violations["edit"] = _serious_violations(page)
        _shot(page, f"chat-edit-{viewport}")
        card.get_by_role("button", name="保存修改").click()
        edited = page.locator("article.card").filter(has_text="提交月报")
        edited.get_by_role("button", name="确认执行").click()
        page.locator(".outcome-succeeded").wait_for()

    assert list(Todo.objects.filter(owner=user).values_list("title", flat=True)) == ["提交月报"]
    assert violations == {"edit": []}


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_browser_undo_said_in_the_chat_offers_a_card_and_only_its_confirm_undoes(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str
) -> None:
    make_user(f"sayundo{viewport}")

    with (
        sync_playwright() as playwright,
        chat_page(playwright, live_server.url, f"sayundo{viewport}", viewport) as (_, page),
    ):
        page.get_by_label("你的消息").fill("帮我加个待办：明天上午10点开会")
        page.get_by_role("button", name="发送").click()
        first = page.locator("article.card").filter(has=page.get_by_role("button", name="确认执行"))
        first.wait_for()
        first.get_by_role("button", name="确认执行").click()
        page.locator(".outcome-succeeded").first.wait_for()

        page.get_by_label("你的消息").fill("撤销刚才的操作")
        page.get_by_role("button", name="发送").click()
        reply = page.get_by_text("这是撤销上一个操作的确认卡")
        reply.wait_for()
        undo_card = page.locator("article.card").filter(
            has=page.get_by_role("button", name="确认执行")
        )
        undo_card.wait_for()
        undo_text = undo_card.inner_text()
        violations = _serious_violations(page)
        # Until the undo card runs, the first card still offers its own undo.
        undo_offered_before = page.get_by_role("button", name="撤销", exact=True).count()
        _shot(page, f"chat-undo-said-{viewport}")
        undo_card.get_by_role("button", name="确认执行").click()
        page.locator(".outcome-succeeded").nth(1).wait_for()
        # Once it has, the first card's undo button gives way to a note, without a reload,
        # and its link follows the todo into the trash (its own page answers 404 now).
        page.locator(".undo-ran").wait_for()
        undo_ran_text = page.locator(".undo-ran").inner_text()
        created_link = page.locator(".outcome-succeeded").first.locator(":scope > .item-link a")
        created_link_now = (created_link.inner_text(), created_link.get_attribute("href"))
        undo_offered_after = page.get_by_role("button", name="撤销", exact=True).count()
        # the final reply, from the undo's receipt (kept by the guard)
        final = page.locator(".msg-final").nth(1)
        final.wait_for()
        final_text = final.inner_text()
        _shot(page, f"chat-undo-said-done-{viewport}")
        # Reloaded, the history offers no undo: the first card's has run, the undo card's
        # own is not offered.
        page.reload()
        page.get_by_text("已删除待办「开会」。").first.wait_for()
        undo_buttons = page.get_by_role("button", name="撤销", exact=True).count()
        trash_links = page.get_by_role("link", name="在回收站中查看").count()
        _shot(page, f"chat-undo-said-reloaded-{viewport}")

    assert "删除待办" in undo_text
    assert "开会" in undo_text
    assert violations == []
    assert "已删除待办「开会」。" in final_text
    assert "尚未执行" not in final_text
    assert undo_offered_before == 1
    assert undo_offered_after == 0
    assert undo_ran_text == "已撤销：见下方的撤销卡。"
    assert created_link_now == ("在回收站中查看", "/todos/trash/")
    assert undo_buttons == 0
    assert trash_links == 2  # the created card's and the undo card's, after the reload too
    assert Todo.objects.count() == 0
    assert sorted(ActionReceipt.objects.values_list("tool", flat=True)) == [
        "create_todo",
        "delete_todo",
    ]
