"""The chat history in a real browser: cards in their real state after a reload.

A ready card survives a reload through "ask again" (a new live card, no stored token); a
confirmed card shows its receipt and a link to the item; a ready card's remaining time runs
live. Phone (390×844) and desktop, each page checked with the vendored axe-core (no serious
or critical violation). Set
``LIGHTNOTE_SCREENSHOT_DIR=docs/screenshots`` to refresh the README's chat screenshots.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser_helpers import chat_page
from tests.test_browser_chat import SEED
from tests.test_browser_pages import VIEWPORTS, _serious_violations, _shot
from todos.models import Todo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_browser_reload_ask_again_confirm_and_history_shows_the_receipt(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str
) -> None:
    user = make_user(f"hist{viewport}")
    violations: dict[str, list[str]] = {}

    with (
        sync_playwright() as playwright,
        chat_page(playwright, live_server.url, f"hist{viewport}", viewport) as (_, page),
    ):
        page.get_by_label("你的消息").fill(SEED)
        page.get_by_role("button", name="发送").click()
        page.locator("article.card .card-actions").wait_for()

        # A reload: the card is still waiting, offered again (no token in the page).
        page.reload()
        ready = page.locator("article.card-ready")
        ready.wait_for()
        ready_text = ready.inner_text()
        remaining = ready.locator(".card-remaining").inner_text()
        tokens_after_reload = page.locator("input[name=token]").count()
        violations["history-ready"] = _serious_violations(page)
        _shot(page, f"chat-history-ready-{viewport}")

        ready.get_by_role("button", name="重新发起确认").click()
        confirm = page.get_by_role("button", name="确认执行")
        live = page.locator("article.card").filter(has=confirm)
        live.wait_for()
        live.get_by_role("button", name="确认执行").click()
        page.locator(".outcome-succeeded").wait_for()
        page.locator(".msg-final").wait_for()
        outcome_link = page.locator(".outcome-succeeded .item-link a").get_attribute("href")

        page.reload()
        done = page.locator("article.card-succeeded")
        done.wait_for()
        done_text = done.inner_text()
        history_link = done.locator(".item-link a").get_attribute("href")
        superseded = page.locator("article.card-voided").inner_text()
        # Only "Undo" (issue 15) may remain on a settled history card: no live card buttons.
        live_buttons = page.locator("article.card button:not(.undo)").count()
        violations["history-settled"] = _serious_violations(page)
        _shot(page, f"chat-{viewport}")

    todo = Todo.objects.get(owner=user)
    assert "等待确认" in ready_text
    assert "只读" not in ready_text
    assert re.fullmatch(r"剩余 \d+:\d{2}", remaining)
    assert tokens_after_reload == 0
    assert outcome_link == f"/todos/{todo.id}/"
    assert history_link == f"/todos/{todo.id}/"
    assert "已确认并执行" in done_text
    assert "提交周报" in done_text
    assert "已被一张新的确认卡取代" in superseded
    assert live_buttons == 0
    assert violations == {"history-ready": [], "history-settled": []}
