"""A final reply that failed (or never arrived) can be retried from the page, also from
history; the outcome line (the receipt) never depends on it."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from django.test import Client

from agent.models import ActionReceipt, Message
from agent.planners.base import PlannerError
from agent.web.conversations import CONVERSATION_SESSION_KEY
from tests.test_chat_page import HTMX, SEED, card_form, forms_posting_to
from todos.models import Todo

pytestmark = pytest.mark.django_db

FAIL = mock.patch(
    "agent.planners.rules.RulesPlanner.final_reply",
    side_effect=PlannerError("PLANNER_TIMEOUT", "test"),
)
RETRY_TEXT = "重新生成回复"


@pytest.fixture
def page(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def confirmed_card(page: Client) -> tuple[str, Any]:
    page.get("/")
    session_id = page.session[CONVERSATION_SESSION_KEY]
    html = page.post("/chat/message/", {"text": SEED, "session_id": session_id}, **HTMX)
    form = card_form(html.content.decode())
    confirmed = page.post("/chat/confirm/", form.fields, **HTMX)
    assert confirmed.status_code == 200
    return session_id, confirmed


def retry_forms(html: str) -> list[Any]:
    return [
        form
        for form in forms_posting_to(html, "/chat/reply/")
        if RETRY_TEXT in "".join(form.texts) or "重试" in "".join(form.texts)
    ]


def test_a_failed_live_reply_offers_retry_and_the_retry_settles_it(page: Client) -> None:
    _, confirmed = confirmed_card(page)
    (loader,) = forms_posting_to(confirmed.content.decode(), "/chat/reply/")

    with FAIL:
        failed = page.post("/chat/reply/", loader.fields, **HTMX)
    (retry,) = retry_forms(failed.content.decode())
    replied = page.post("/chat/reply/", retry.fields, **HTMX)

    assert failed.status_code == 503
    assert 'data-code="CONTINUATION_GENERATION_FAILED"' in failed.content.decode()
    assert retry.fields["continuation_token"] == loader.fields["continuation_token"]
    assert replied.status_code == 200
    assert "msg-final" in replied.content.decode()
    assert Todo.objects.count() == 1
    assert Message.objects.filter(payload__has_key="receipt").count() == 1


def test_history_offers_the_reply_retry_after_a_reload_and_keeps_the_receipt(
    page: Client,
) -> None:
    session_id, confirmed = confirmed_card(page)
    (loader,) = forms_posting_to(confirmed.content.decode(), "/chat/reply/")
    with FAIL:
        assert page.post("/chat/reply/", loader.fields, **HTMX).status_code == 503
    summary = ActionReceipt.objects.get().summary

    reloaded = page.get(f"/chat/{session_id}/").content.decode()
    (retry,) = retry_forms(reloaded)
    assert "这项操作已执行，但它的回复没有生成" in reloaded
    assert summary in reloaded  # the outcome line is there, reply or not
    assert "已确认并执行" in reloaded
    replied = page.post("/chat/reply/", retry.fields, **HTMX)
    after = page.get(f"/chat/{session_id}/").content.decode()

    assert replied.status_code == 200
    assert retry_forms(after) == []
    assert "已为你创建待办「提交周报」" in after
    assert summary in after
    assert Todo.objects.count() == 1


def test_without_js_the_history_retry_renders_the_whole_page(page: Client) -> None:
    session_id, _ = confirmed_card(page)
    (retry,) = retry_forms(page.get(f"/chat/{session_id}/").content.decode())

    response = page.post("/chat/reply/", retry.fields)

    assert response.status_code == 200
    assert "<html" in response.content.decode()
    assert "msg-final" in response.content.decode()


def test_another_browser_sees_the_receipt_but_no_token_to_retry_with(
    page: Client, user: Any
) -> None:
    session_id, _ = confirmed_card(page)
    other = Client()
    other.force_login(user)

    html = other.get(f"/chat/{session_id}/").content.decode()

    assert "已确认并执行" in html
    assert ActionReceipt.objects.get().summary in html
    assert retry_forms(html) == []
    assert "continuation_token" not in html
