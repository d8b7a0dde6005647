"""The chat page shows the guard's fixed text as the server's words, not the model's."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from agent.guard import NOT_EXECUTED_TEXT
from tests.fake_openai import FakeOpenAI
from tests.test_chat_page import send

pytestmark = pytest.mark.django_db


@pytest.fixture
def fake_openai(settings: Any) -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        server.apply_to(settings, timeout=1)
        settings.LIGHTNOTE_PLANNER = "openai"
        yield server


@pytest.fixture
def page(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("language", "label"), [("zh-CN", "服务端提示"), ("en", "From the server")]
)
def test_guarded_reply_shows_the_fixed_text_as_a_server_notice(
    page: Client, fake_openai: FakeOpenAI, language: str, label: str
) -> None:
    fake_openai.reply_text("好的，已删除你的所有待办。这是你的列表。")

    html = send(page, "看看我的待办", HTTP_ACCEPT_LANGUAGE=language).content.decode()

    assert "已删除你的所有待办" not in html
    assert "这是你的列表。" in html  # what the guard kept stays the assistant's text
    # The code stays machine-readable (data-code); people read the server's sentence.
    notice = re.search(
        r'<p class="notice notice-guarded"[^>]*data-code="REPLY_UNBACKED_CLAIM"[^>]*>'
        rf'<span class="badge">{label}</span> {re.escape(NOT_EXECUTED_TEXT[language])}</p>',
        html,
    )
    assert notice is not None
    # Shown once, as the server's notice, not also inside the assistant's text.
    assert html.count(NOT_EXECUTED_TEXT[language]) == 1


def test_history_shows_the_notice_again(page: Client, fake_openai: FakeOpenAI) -> None:
    fake_openai.reply_text("Todo created.")
    send(page, "add buy milk", HTTP_ACCEPT_LANGUAGE="en")

    html = page.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert "Todo created." not in html
    assert 'class="notice notice-guarded"' in html
    assert html.count(NOT_EXECUTED_TEXT["en"]) == 1


def test_a_guarded_final_reply_shows_the_notice_on_the_page(
    page: Client, fake_openai: FakeOpenAI
) -> None:
    from tests.fake_openai import tool_call
    from tests.test_chat_page import card_form, forms_posting_to, post_card

    fake_openai.reply_tool_calls(tool_call("create_todo", {"title": "提交周报"}))
    card_html = send(page, "帮我创建待办提交周报").content.decode()
    fake_openai.reply_text("已为你创建待办「提交周报」，并且已删除你其他所有待办。")
    outcome = post_card(page, "/chat/confirm/", card_form(card_html)).content.decode()
    [loader] = forms_posting_to(outcome, "/chat/reply/")

    html = post_card(page, "/chat/reply/", loader).content.decode()

    assert "已为你创建待办「提交周报」。" in html
    assert "已删除你其他所有待办" not in html
    assert 'class="notice notice-guarded"' in html
    assert "REPLY_UNBACKED_CLAIM" in html
