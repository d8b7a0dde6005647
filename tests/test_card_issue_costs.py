"""What a card-issuing message turn costs, pinned: SQL statements, writes, Redis round trips,
and the shape that keeps it small (its writes in one transaction: both messages in one
INSERT, the card's history row, its ``card.issued`` audit row and the session's activity).

Counts come from ``lightnote.ops.request_counters.count_requests`` (SQL exactly as
``CaptureQueriesContext`` counts it; Redis as packets sent); timings are ``make bench``'s.
The repeat confirm's costs are pinned in ``tests/test_confirm_costs.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from lightnote.models import AuditEvent
from lightnote.ops.request_counters import count_requests
from tests.agent_helpers import CREATE_TODO_TEXT, messages_url, open_session, token_client

# token; the session; its history; a create card's account cap (refused at once at the cap,
# not on confirming); BEGIN, the session's touch, both messages, the card row, the card.issued
# audit row, COMMIT
CARD_ISSUE_SQL_MAX = 10
CARD_ISSUE_WRITES = 4
# the card limit, the continuation and the card in one pipeline (the pending question is
# read only after a turn that asked one: the session row's ``pending_until``)
CARD_ISSUE_REDIS_MAX = 1
# ... and after a turn that left a question: read it, clear it, the card's records
CARD_ISSUE_AFTER_QUESTION_REDIS = 3


def _turn(client: Any, session_id: str, text: str = CREATE_TODO_TEXT) -> Any:
    response = client.post(messages_url(session_id), {"text": text}, format="json")
    assert response.status_code == 200, response.content
    assert len(response.json()["cards"]) == 1, response.content
    return response


@pytest.mark.django_db(transaction=True)
def test_a_card_turn_writes_everything_in_one_transaction_within_its_statement_budget(
    user: Any,
) -> None:
    client = token_client(user)
    session_id = open_session(client)
    _turn(client, session_id, "帮我创建一条明天下午3点热身的待办")  # steady state
    with count_requests(keep_statements=True) as counts:
        response = _turn(client, session_id)
    statements = counts.statements or []
    words = [sql.split()[0].upper() for sql in statements]
    assert counts.sql <= CARD_ISSUE_SQL_MAX, statements
    assert counts.sql_writes == CARD_ISSUE_WRITES, statements
    assert "SAVEPOINT" not in words, statements
    inserts = [sql for sql in statements if sql.lstrip().upper().startswith("INSERT")]
    assert len(inserts) == 3, inserts  # both messages in one INSERT, the card row, the audit
    assert sum("agent_message" in sql for sql in inserts) == 1, inserts
    # Every write between the transaction's start (Django's BEGIN where the backend logs
    # it; the batch's own START TRANSACTION on MariaDB) and its COMMIT.
    start = "START" if "START" in words else "BEGIN"
    if start in words:
        begin, commit = words.index(start), words.index("COMMIT")
        writes = [i for i, word in enumerate(words) if word in ("INSERT", "UPDATE")]
        assert all(begin < i < commit for i in writes), statements
    card_id = response.json()["cards"][0]["card_id"]
    issued = AuditEvent.objects.filter(action_id=card_id, event_type="card.issued")
    assert issued.count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_turn_whose_first_write_fails_leaves_nothing_of_the_turn(user: Any) -> None:
    """The turn's writes are one transaction: when the database refuses the first of them,
    the messages, the card row and its ``card.issued`` audit row are not written either,
    and the connection stays usable."""
    from unittest import mock

    from agent.conversation import sessions
    from agent.models import ActionCard, AgentSession, Message

    client = token_client(user)
    session_id = open_session(client)
    client.raise_request_exception = False
    table = AgentSession._meta.db_table

    def refused_touch(*, session: Any, **_: Any) -> None:
        # title is NOT NULL: the database itself refuses this UPDATE (an integrity error).
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} SET title = NULL WHERE id = %s",  # noqa: S608
                [AgentSession._meta.pk.get_db_prep_value(session.id, connection)],
            )

    with mock.patch.object(sessions, "session_touch", side_effect=refused_touch):
        response = client.post(messages_url(session_id), {"text": CREATE_TODO_TEXT}, format="json")
    assert response.status_code == 500
    assert not AuditEvent.objects.filter(event_type="card.issued").exists()
    assert not ActionCard.objects.exists()
    assert not Message.objects.filter(session_id=session_id).exists()
    # The same connection goes on: the next turn is written whole.
    response = client.post(messages_url(session_id), {"text": CREATE_TODO_TEXT}, format="json")
    assert response.status_code == 200
    assert Message.objects.filter(session_id=session_id).count() == 2
    assert AuditEvent.objects.filter(event_type="card.issued").count() == 1


@pytest.mark.services
@pytest.mark.django_db
def test_round_trips_to_redis_per_card_turn(user: Any) -> None:
    client = token_client(user)
    session_id = open_session(client)
    _turn(client, session_id, "帮我创建一条明天下午3点热身的待办")  # every script loaded
    with count_requests() as counts:
        _turn(client, session_id)
    assert counts.redis == CARD_ISSUE_REDIS_MAX


@pytest.mark.services
@pytest.mark.django_db
def test_the_pending_question_is_read_only_after_a_turn_that_asked_one(user: Any) -> None:
    client = token_client(user)
    session_id = open_session(client)
    _turn(client, session_id, "帮我创建一条明天下午3点热身的待办")  # every script loaded
    asked = client.post(
        messages_url(session_id), {"text": "提醒我下周一上午开会"}, format="json"
    ).json()
    assert [notice["status"] for notice in asked["notices"]] == ["clarify"], asked
    with count_requests() as counts:
        answered = client.post(messages_url(session_id), {"text": "10点"}, format="json")
    assert len(answered.json()["cards"]) == 1, answered.content  # the question completed
    assert counts.redis == CARD_ISSUE_AFTER_QUESTION_REDIS
    with count_requests() as counts:
        _turn(client, session_id)
    assert counts.redis == CARD_ISSUE_REDIS_MAX  # answered: nothing pending any more
