"""Several tabs send messages to one conversation at once: every turn is answered and saved.

Each turn writes its messages (and card rows) and touches the conversation's row in one
transaction. The inserts' foreign-key checks take a shared lock on that row; had the touch
come last, two turns at once would each hold the shared lock and each ask for the write
lock: MariaDB breaks such a deadlock by refusing one transaction, and that turn answered
503 DATABASE_UNAVAILABLE (seen in 6 of 15 rounds before the touch moved first). Real threads
on MariaDB and Redis; both write paths: the one-batch turn and the turn with choice rows.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connections
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from agent.models import Message
from tests.agent_helpers import messages_url, open_session, send_message, token_client
from todos import services as todo_services

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]

ROUNDS = 5
CREATES = [f"帮我创建一条待办：第{n}件事" for n in range(6)]
ANSWERS = ["第一个", "第二个", "1", "删除待办「重名的事」", "取消", "帮我创建一条待办：买菜"]


@pytest.mark.parametrize("texts", [CREATES, ANSWERS], ids=["one-batch turns", "choice turns"])
@pytest.mark.parametrize("round_number", range(ROUNDS))
def test_turns_of_one_conversation_at_once_are_all_answered_and_saved(
    user: Any, settings: Any, texts: list[str], round_number: int
) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "1000/m"
    for _ in range(2):
        todo_services.todo_create(owner=user, title="重名的事")
    client = token_client(user)
    session_id = open_session(client)
    asked = send_message(client, session_id, "删除待办「重名的事」")  # a choice waits
    assert asked["choices"], asked
    key = Token.objects.get(user=user).key
    barrier = threading.Barrier(len(texts))

    def tab(text: str) -> tuple[int, Any]:
        try:
            tab_client = APIClient()
            tab_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
            barrier.wait(timeout=30)
            response = tab_client.post(messages_url(session_id), {"text": text}, format="json")
            return response.status_code, response.json()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=len(texts)) as pool:
        answers = list(pool.map(tab, texts))

    assert [status for status, _ in answers] == [200] * len(texts), answers
    saved = set(Message.objects.filter(session_id=session_id).values_list("id", flat=True))
    assert {body["message_id"] for _, body in answers} <= {str(pk) for pk in saved}
    assert len(saved) == 2 * (len(texts) + 1)  # each turn: the question and its answer
