"""A read-only (admin "view as user") view offers no write control at all: no Undo, no Ask
again, no Save — the subject's confirmed and waiting cards show their state only."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from lightnote.impersonation.context import ADMIN_CONTEXT_SESSION_KEY
from lightnote.impersonation.contexts import admin_context_start
from tests.test_chat_page import HTMX, card_form, conversation_id, forms_posting_to, post_card, send

pytestmark = pytest.mark.django_db


@pytest.fixture
def subject_conversation(user: Any) -> str:
    client = Client()
    client.force_login(user)
    post_card(client, "/chat/confirm/", card_form(send(client).content.decode()))
    send(client, "帮我创建一条明天提交月报的待办")  # a card left waiting
    return conversation_id(client)


@pytest.fixture
def impersonating(make_user: Any, user: Any) -> Client:
    staff = make_user("staffer", is_staff=True, is_superuser=True)
    context = admin_context_start(staff=staff, subject_id=user.pk)
    client = Client()
    client.force_login(staff)
    session = client.session
    session[ADMIN_CONTEXT_SESSION_KEY] = str(context.id)
    session.save()
    return client


def test_the_subjects_history_shows_no_undo_and_no_ask_again(
    impersonating: Client, subject_conversation: str
) -> None:
    html = impersonating.get(f"/?conversation={subject_conversation}").content.decode()

    assert "已确认并执行" in html
    assert "等待确认" in html
    assert forms_posting_to(html, "/chat/undo/") == []
    assert forms_posting_to(html, "/chat/reissue/") == []
    assert forms_posting_to(html, "/chat/confirm/") == []


def test_the_subjects_own_history_still_offers_undo_to_the_subject(
    user: Any, subject_conversation: str
) -> None:
    client = Client()
    client.force_login(user)

    html = client.get(f"/chat/{subject_conversation}/").content.decode()

    assert len(forms_posting_to(html, "/chat/undo/")) == 1


@pytest.mark.parametrize("path", ["/settings/", "/todos/", "/notes/"])
def test_read_only_pages_offer_no_save_and_no_create(impersonating: Client, path: str) -> None:
    html = impersonating.get(path).content.decode()

    assert 'type="submit">保存设置' not in html
    assert 'action="/accounts/delete/"' not in html
    posts = [form for form in forms_posting_to(html, path) if form.attrs.get("method") == "post"]
    assert posts == []


def test_an_undo_answers_a_turn_of_its_own_at_the_end_of_the_conversation(user: Any) -> None:
    client = Client()
    client.force_login(user)
    post_card(client, "/chat/confirm/", card_form(send(client).content.decode()))
    (undo,) = forms_posting_to(client.get("/").content.decode(), "/chat/undo/")

    answer = client.post("/chat/undo/", undo.fields, **HTMX).content.decode()

    assert answer.lstrip().startswith('<li class="msg msg-result msg-undo">')
    assert 'class="card-actions"' in answer
