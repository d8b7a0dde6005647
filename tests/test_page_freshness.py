"""Signed-in pages are never cached, and a stale page's "Ask again" shows the card's outcome."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.test_chat_page import HTMX, card_form, forms_posting_to, post_card, send
from todos.models import Todo

pytestmark = pytest.mark.django_db


@pytest.fixture
def page(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("path", ["/", "/todos/", "/notes/", "/settings/"])
def test_a_signed_in_page_is_sent_no_store_and_private(page: Client, path: str) -> None:
    response = page.get(path, follow=True)

    assert response.status_code == 200
    cache = {part.strip() for part in response["Cache-Control"].split(",")}
    assert {"no-store", "private"} <= cache


def test_the_api_json_is_not_marked_as_a_page(page: Client) -> None:
    response = page.get("/api/v1/me/")

    assert "no-store" not in response.get("Cache-Control", "")


def test_ask_again_on_a_card_confirmed_meanwhile_shows_its_receipt(page: Client, user: Any) -> None:
    live = card_form(send(page).content.decode())
    stale = page.get("/").content.decode()  # the chat as a second tab (or a Back) has it
    confirmed = post_card(page, "/chat/confirm/", live)
    (ask,) = forms_posting_to(stale, "/chat/reissue/")

    answer = page.post("/chat/reissue/", ask.fields, **HTMX)

    body = answer.content.decode()
    todo = Todo.objects.get(owner=user)
    assert confirmed.status_code == 200
    assert answer.status_code == 200
    assert "已确认并执行" in body
    assert f'href="/todos/{todo.id}/"' in body
    assert "card-actions" not in body
    assert Todo.objects.filter(owner=user).count() == 1


def test_ask_again_on_a_card_rejected_meanwhile_shows_it_rejected(page: Client) -> None:
    live = card_form(send(page).content.decode())
    stale = page.get("/").content.decode()
    post_card(page, "/chat/reject/", live)
    (ask,) = forms_posting_to(stale, "/chat/reissue/")

    answer = page.post("/chat/reissue/", ask.fields, **HTMX)

    assert answer.status_code == 200
    assert "已拒绝" in answer.content.decode()
