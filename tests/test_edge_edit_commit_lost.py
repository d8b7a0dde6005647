"""An edit whose database COMMIT is lost says what happened, never "nothing was changed".

By the time the edit's history rows commit, the store has already voided the old card and
holds the new one. So when the COMMIT's reply is lost, the edit asks a fresh connection:
recorded, it answers the new card; not recorded, it records it there and answers the new
card. The old token answers 410 either way, the new card confirms once, and history shows
the old card voided (superseded) and the new one. Runs in both passes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest

from agent.models import ActionCard
from tests.agent_helpers import commit_reply_lost, confirm, error_code, flow_with_card
from todos.models import Todo

pytestmark = pytest.mark.django_db(transaction=True)
EDIT_URL = "/api/v1/agent/confirmations/edit/"


@pytest.mark.parametrize("committed", [True, False])
def test_an_edit_whose_commit_was_lost_answers_the_new_card_and_history_agrees(
    user: Any, committed: bool
) -> None:
    flow = flow_with_card(user)
    old_id = flow.card["card_id"]
    body = {"token": flow.token, "session_id": flow.session_id, "args": {"title": "交季度报告"}}
    with commit_reply_lost(committed=committed) as events:
        response = flow.client.post(EDIT_URL, body, format="json")
    assert len(events) == 1
    assert response.status_code == 200, response.content
    new = response.json()["card"]
    old_row = ActionCard.objects.get(id=old_id)
    assert (old_row.state, old_row.void_reason) == ("voided", "superseded")
    assert str(ActionCard.objects.get(id=new["card_id"]).parent_id) == old_id
    old_answer = flow.confirm()
    assert (old_answer.status_code, error_code(old_answer)) == (410, "CONFIRMATION_EXPIRED")
    done = confirm(flow.client, new["token"], flow.session_id)
    assert done.json()["outcome"]["ok"] is True
    assert list(Todo.objects.values_list("title", flat=True)) == ["交季度报告"]


CHOOSE = "/api/v1/agent/choices/choose/"
SESSIONS = "/api/v1/agent/sessions/"


@pytest.mark.parametrize("committed", [True, False])
def test_a_choice_whose_commit_was_lost_answers_its_card_and_history_shows_it_used(
    client_for: Any, user: Any, committed: bool
) -> None:
    from agent.models import Choice
    from todos import services as todo_services

    for description in ("给老板的版本", "团队内部版"):
        todo_services.todo_create(owner=user, title="提交周报", description=description)
    api = client_for(user)
    session_id = api.post(SESSIONS, {}, format="json").json()["id"]
    said = api.post(
        f"{SESSIONS}{session_id}/messages/", {"text": "删除待办「提交周报」"}, format="json"
    )
    [choice] = said.json()["choices"]
    candidate = choice["candidates"][0]["id"]
    body = {"token": choice["token"], "session_id": session_id, "candidate_id": candidate}
    with commit_reply_lost(committed=committed) as events:
        response = api.post(CHOOSE, body, format="json")
    assert len(events) == 1
    assert response.status_code == 200, response.content
    card = response.json()["card"]
    assert Choice.objects.get().state == "chosen"
    assert ActionCard.objects.filter(id=card["card_id"]).exists()
    again = api.post(CHOOSE, body, format="json")
    assert (again.status_code, error_code(again)) == (410, "CONFIRMATION_EXPIRED")
    done = confirm(api, card["token"], session_id)
    assert done.json()["outcome"]["ok"] is True
    assert Todo.objects.count() == 1


@contextmanager
def every_commit_lost() -> Iterator[None]:
    """Every COMMIT (Django's, or a write batch's) fails before the server: the database
    stays unreachable for writes, also on a fresh connection."""
    from django.db import connections

    from tests.agent_helpers import LOST_CONNECTION

    wrapper_class = type(connections["default"])

    def lose(connection: Any) -> Any:
        with connection.wrap_database_errors:
            raise connection.Database.OperationalError(*LOST_CONNECTION)

    with mock.patch.object(wrapper_class, "_commit", lose):
        yield


def test_an_edit_the_database_cannot_record_says_the_old_card_is_withdrawn(user: Any) -> None:
    flow = flow_with_card(user)
    body = {"token": flow.token, "session_id": flow.session_id, "args": {"title": "交季度报告"}}
    with every_commit_lost():
        response = flow.client.post(EDIT_URL, body, format="json", HTTP_ACCEPT_LANGUAGE="en")
    assert (response.status_code, error_code(response)) == (503, "CARD_EDIT_UNRECORDED")
    assert "withdrawn" in response.json()["error"]["message"]
    old_answer = flow.confirm()
    assert (old_answer.status_code, error_code(old_answer)) == (410, "CONFIRMATION_EXPIRED")
    assert not Todo.objects.exists()
