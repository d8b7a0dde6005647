"""Languages on the chat page: history cards in the page's current language, replies in the
language of the message they answer (not the page's)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from agent.models import ActionCard
from agent.web.conversations import CONVERSATION_SESSION_KEY
from tests.agent_helpers import open_session, send_message, token_client
from tests.test_chat_page import HTMX, SEED

pytestmark = pytest.mark.django_db


@pytest.fixture
def page(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_history_card_is_rendered_again_in_the_page_language(page: Client) -> None:
    page.get("/")
    session_id = page.session[CONVERSATION_SESSION_KEY]
    live = page.post("/chat/message/", {"text": SEED, "session_id": session_id}, **HTMX)
    assert "创建待办" in live.content.decode()
    stored = ActionCard.objects.get()
    assert stored.preview["title"] == "创建待办"  # stored as issued

    english = page.get(f"/chat/{session_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    page.cookies["django_language"] = "zh-hans"
    chinese = page.get(f"/chat/{session_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert ">Create todo</h3>" in english
    assert "<dt>Priority</dt>" in english
    assert "<dt>优先级</dt>" not in english
    assert "Waiting for confirmation" in english
    assert ">创建待办</h3>" in chinese
    assert "<dt>优先级</dt>" in chinese
    stored.refresh_from_db()
    assert stored.preview["title"] == "创建待办"  # reading never rewrites the row


def test_history_keeps_the_stored_preview_when_the_args_cannot_be_rendered(page: Client) -> None:
    page.get("/")
    session_id = page.session[CONVERSATION_SESSION_KEY]
    page.post("/chat/message/", {"text": SEED, "session_id": session_id}, **HTMX)
    ActionCard.objects.update(args={"unexpected": True})

    html = page.get(f"/chat/{session_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert ">创建待办</h3>" in html


@pytest.mark.parametrize(
    ("page_language", "text", "expected", "unexpected"),
    [
        ("zh-CN", "show my todos", "No todo matches.", "没有找到"),
        ("en", "列出我的待办", "没有找到符合条件的待办。", "No todo"),
        ("zh-CN", "create a todo to call mom tomorrow at 3pm", "Please review the card", "请检查"),
        ("en", SEED, "请检查下面的确认卡", "Please review"),
    ],
)
def test_the_reply_is_in_the_language_of_the_message(
    user: Any, page_language: str, text: str, expected: str, unexpected: str
) -> None:
    client = token_client(user, **{"Accept-Language": page_language})
    session_id = open_session(client)

    body = send_message(client, session_id, text)

    assert expected in body["reply"]
    assert unexpected not in body["reply"]
    for fact in body.get("facts") or []:
        assert unexpected not in fact["summary"]


def test_a_confirmed_cards_receipt_summary_follows_the_page_language(page: Client) -> None:
    from tests.test_chat_page import card_form

    page.get("/")
    session_id = page.session[CONVERSATION_SESSION_KEY]
    html = page.post("/chat/message/", {"text": SEED, "session_id": session_id}, **HTMX)
    page.post("/chat/confirm/", card_form(html.content.decode()).fields, **HTMX)

    english = page.get(f"/chat/{session_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    chinese = page.get(f"/chat/{session_id}/").content.decode()

    assert "Confirmed and done" in english
    assert '<p class="receipt-summary">Created the todo “提交周报”.</p>' in english
    assert '<p class="receipt-summary">已创建待办「提交周报」。</p>' in chinese


def test_the_history_api_renders_card_previews_in_the_readers_language(user: Any) -> None:
    from tests.agent_helpers import messages_url

    chinese = token_client(user, **{"Accept-Language": "zh-CN"})
    session_id = open_session(chinese)
    issued = send_message(chinese, session_id, SEED)["cards"][0]
    english = token_client(user, **{"Accept-Language": "en"})

    en_body = english.get(messages_url(session_id)).json()
    zh_body = chinese.get(messages_url(session_id)).json()
    [en_card] = [card for message in en_body["results"] for card in message["cards"]]
    [zh_card] = [card for message in zh_body["results"] for card in message["cards"]]

    assert issued["preview"]["title"] == "创建待办"
    assert en_card["preview"]["title"] == "Create todo"
    assert [detail["label"] for detail in en_card["preview"]["details"]][:2] == ["Title", "Due"]
    assert zh_card["preview"] == issued["preview"]
    assert en_card["args"] == issued["args"]


def test_the_final_replys_receipt_note_follows_the_page_language(page: Client) -> None:
    from tests.test_chat_page import card_form, forms_posting_to, post_card

    page.get("/")
    session_id = page.session[CONVERSATION_SESSION_KEY]
    html = page.post("/chat/message/", {"text": SEED, "session_id": session_id}, **HTMX)
    confirmed = post_card(page, "/chat/confirm/", card_form(html.content.decode()))
    (loader,) = forms_posting_to(confirmed.content.decode(), "/chat/reply/")
    assert post_card(page, "/chat/reply/", loader).status_code == 200

    english = page.get(f"/chat/{session_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    chinese = page.get(f"/chat/{session_id}/").content.decode()

    assert '<p class="receipt-note">Server receipt: Created the todo “提交周报”.</p>' in english
    assert "服务器回执" not in english
    assert '<p class="receipt-note">服务器回执：已创建待办「提交周报」。</p>' in chinese
