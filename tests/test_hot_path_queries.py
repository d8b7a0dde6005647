"""Query counts of the agent's hot paths, pinned so a regression (an N+1, a lookup in a
loop) fails loudly. The numbers are upper bounds measured on the current code."""

from __future__ import annotations

from typing import Any

import pytest

from tests.agent_helpers import CREATE_TODO_TEXT, confirm, open_session, send_message

pytestmark = pytest.mark.django_db


def test_a_message_that_issues_a_card_stays_within_its_query_budget(
    alice_api: Any, django_assert_max_num_queries: Any
) -> None:
    session_id = open_session(alice_api)
    send_message(alice_api, session_id, "帮我创建一条明天下午3点热身的待办")  # not the first turn
    with django_assert_max_num_queries(10):  # see test_card_issue_costs.py
        body = send_message(alice_api, session_id, CREATE_TODO_TEXT)
    assert len(body["cards"]) == 1


def test_a_confirm_stays_within_its_query_budget(
    alice_api: Any, django_assert_max_num_queries: Any
) -> None:
    session_id = open_session(alice_api)
    card = send_message(alice_api, session_id, CREATE_TODO_TEXT)["cards"][0]
    with django_assert_max_num_queries(9):  # API target; see test_confirm_costs.py
        response = confirm(alice_api, card["token"], session_id)
    assert response.json()["outcome"]["ok"] is True


def test_a_repeat_confirm_is_answered_from_the_store_with_few_queries(
    alice_api: Any, django_assert_max_num_queries: Any
) -> None:
    session_id = open_session(alice_api)
    card = send_message(alice_api, session_id, CREATE_TODO_TEXT)["cards"][0]
    confirm(alice_api, card["token"], session_id)
    with django_assert_max_num_queries(3):  # token with its user, the session, the receipt
        response = confirm(alice_api, card["token"], session_id)
    assert response.json()["state"] == "settled"
