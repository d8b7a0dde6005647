"""A message turn whose COMMIT's reply is lost (scenario 6, on the turn that issues a card).

The turn's writes (both messages, the card's row, its ``card.issued`` row, the session's
touch) commit together: on MariaDB in one round trip that carries the COMMIT, elsewhere in
Django's transaction. If the COMMIT's reply is lost, nobody knows whether the turn was
saved; the turn asks a fresh connection. Saved: it is answered as usual, and its card
confirms. Not saved: 503 ``DATABASE_UNAVAILABLE`` and nothing of the turn is stored; asking
again works. A turn that offers a choice (written statement by statement in one ORM
transaction) is covered the same way. Runs in both passes.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from agent.models import ActionCard, AgentSession, Choice, Message
from lightnote.models import AuditEvent
from tests.agent_helpers import commit_reply_lost, error_code
from tests.agent_helpers import confirm as confirm_token
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db(transaction=True)

SESSIONS = "/api/v1/agent/sessions/"
CREATE = "帮我创建一个明天上午10点开会的待办"


@pytest.fixture
def api(client_for: Any, user: Any) -> Any:
    return client_for(user)


def session_of(client: Any) -> str:
    return client.post(SESSIONS, {}, format="json").json()["id"]


def say(client: Any, session_id: str, text: str) -> Any:
    return client.post(f"{SESSIONS}{session_id}/messages/", {"text": text}, format="json")


def test_a_turn_saved_whose_commit_reply_was_lost_is_answered_and_its_card_confirms(
    api: Any,
) -> None:
    session_id = session_of(api)
    with commit_reply_lost(committed=True) as events:
        response = say(api, session_id, CREATE)
    assert events == ["committed, reply lost"]
    assert response.status_code == 200, response.content
    [card] = response.json()["cards"]
    assert (card["tool"], card["state"]) == ("create_todo", "ready")
    # Saved exactly once: both messages, the card's row and its card.issued row.
    assert Message.objects.filter(session_id=session_id).count() == 2
    assert list(ActionCard.objects.values_list("id", flat=True)) == [uuid.UUID(card["card_id"])]
    assert AuditEvent.objects.filter(event_type="card.issued").count() == 1
    assert AgentSession.objects.get(id=session_id).title  # titled by the turn
    confirmed = confirm_token(api, card["token"], session_id)
    assert confirmed.status_code == 200
    assert confirmed.json()["outcome"]["ok"] is True
    assert Todo.objects.count() == 1


def test_a_turn_whose_commit_never_reached_the_server_answers_503_and_leaves_nothing(
    api: Any,
) -> None:
    session_id = session_of(api)
    with commit_reply_lost(committed=False) as events:
        response = say(api, session_id, CREATE)
    assert events == ["lost before the server"]
    assert (response.status_code, error_code(response)) == (503, "DATABASE_UNAVAILABLE")
    assert not Message.objects.filter(session_id=session_id).exists()
    assert not ActionCard.objects.exists()
    assert not AuditEvent.objects.filter(event_type="card.issued").exists()
    # Asking again works, and the one card it shows confirms once.
    again = say(api, session_id, CREATE)
    assert again.status_code == 200
    [card] = again.json()["cards"]
    assert confirm_token(api, card["token"], session_id).json()["outcome"]["ok"] is True
    assert Todo.objects.count() == 1


@pytest.mark.parametrize("committed", [True, False])
def test_a_turn_offering_a_choice_learns_whether_its_commit_happened(
    api: Any, user: Any, committed: bool
) -> None:
    for description in ("给老板的版本", "团队内部版"):
        todo_services.todo_create(owner=user, title="提交周报", description=description)
    session_id = session_of(api)
    with commit_reply_lost(committed=committed):
        response = say(api, session_id, "删除待办「提交周报」")
    if committed:
        assert response.status_code == 200, response.content
        [choice] = response.json()["choices"]
        assert Choice.objects.get().id == uuid.UUID(choice["card_id"])
        assert Message.objects.filter(session_id=session_id).count() == 2
    else:
        assert (response.status_code, error_code(response)) == (503, "DATABASE_UNAVAILABLE")
        assert not Choice.objects.exists()
        assert not Message.objects.filter(session_id=session_id).exists()
    assert Todo.objects.count() == 2
