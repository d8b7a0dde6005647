"""What an API confirm costs, pinned: at most 9 SQL statements and 3 Redis round trips, the
token authentication included; 0 SQL writes on a repeat; the claim's audit row inside the
one durable transaction, repeats tallied in Redis, the claims limiter consumed only by a
winning claim.

Counts come from ``lightnote.ops.request_counters.count_requests`` (SQL exactly as
``CaptureQueriesContext`` counts it; Redis as packets sent); timings are ``make bench``'s.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from typing import Any

import pytest
from django.conf import settings
from django.db import connections
from django.test import override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from agent.cards import transitions as card_transitions
from agent.cards.confirm import REPEAT_TALLIES_KEY, flush_repeat_tallies
from agent.models import ActionReceipt, AgentSession
from lightnote.controlstore.redis import get_redis
from lightnote.models import AuditEvent
from lightnote.ops.request_counters import count_requests
from tests.agent_helpers import (
    CONFIRM_URL,
    confirm,
    error_code,
    flow_with_card,
    issue_card,
    open_session,
    status,
    token_client,
)
from todos.models import Todo

# The budget: the token with its user, the session, BEGIN, the account cap's indexed read,
# the todo, the receipt, the card's history row, the audit rows of the claim and the
# execution, COMMIT.
CONFIRM_SQL_MAX = 9
# Read the card; claim it (the claims limit counted by the same script); settle it, with
# the list counts' best-effort script riding along. A single Redis.
CONFIRM_REDIS_MAX = 3


def _warm(user: Any) -> None:
    """One confirm first, so every Lua script is loaded on the server (steady state)."""
    flow = flow_with_card(user, "帮我创建一条明天下午3点热身的待办")
    assert flow.confirm().status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_confirm_costs_at_most_9_statements_with_no_savepoint_and_its_audit_inside(
    user: Any, django_assert_max_num_queries: Any
) -> None:
    _warm(user)
    flow = flow_with_card(user)
    with (
        django_assert_max_num_queries(CONFIRM_SQL_MAX),
        count_requests(keep_statements=True) as counts,
    ):
        response = flow.confirm()
    assert response.json()["outcome"]["ok"] is True
    statements = [sql.split()[0].upper() for sql in counts.statements or []]
    assert counts.sql <= CONFIRM_SQL_MAX, counts.statements
    assert "SAVEPOINT" not in statements, counts.statements  # the durable block holds it all
    # The change, the receipt and the audit rows of the claim and the execution are
    # written between one BEGIN and its COMMIT (where the backend logs them).
    writes = [sql for sql in counts.statements or [] if sql.lstrip().upper().startswith("INSERT")]
    assert len(writes) == 3, writes  # the todo, the receipt, both audit rows in one INSERT
    assert counts.sql_writes == 4, counts.statements  # ... and the card history row's UPDATE
    if "BEGIN" in statements:
        begin, commit = statements.index("BEGIN"), statements.index("COMMIT")
        changes = [i for i, word in enumerate(statements) if word in ("INSERT", "UPDATE")]
        assert all(begin < i < commit for i in changes), counts.statements
    assert counts.redis <= CONFIRM_REDIS_MAX
    protocol_rows = AuditEvent.objects.filter(action_id=flow.card_id()).exclude(
        event_type="card.issued"
    )
    assert list(protocol_rows.order_by("id").values_list("event_type", flat=True)) == [
        "confirm.claimed",
        "action.executed",
    ]


@pytest.mark.django_db
def test_a_repeat_confirm_reads_two_rows_and_writes_nothing_to_the_database(user: Any) -> None:
    flow = flow_with_card(user)
    first = flow.confirm()
    audit_rows = AuditEvent.objects.count()
    for _ in range(2):
        with count_requests() as counts:
            again = flow.confirm()
        assert again.content == first.content
        # the token with its user, the session, the receipt behind the stored success
        assert (counts.sql, counts.sql_writes) == (3, 0)
    assert AuditEvent.objects.count() == audit_rows


@pytest.mark.services
@pytest.mark.django_db
def test_round_trips_to_redis_per_confirm_and_per_repeat(user: Any) -> None:
    _warm(user)
    flow = flow_with_card(user)
    with count_requests() as confirm_counts:
        assert flow.confirm().status_code == 200
    with count_requests() as repeat_counts:
        assert flow.confirm().status_code == 200
    # read the card; claim it, add its running-index entry and count the claim against the
    # limit, in one script; settle it and leave the index. Equal, not at most: a round trip
    # that comes back (the limit on its own, a second read) fails here.
    assert confirm_counts.redis == CONFIRM_REDIS_MAX
    assert repeat_counts.redis == 2  # the read; tally the repeat


@pytest.mark.services
@pytest.mark.django_db
def test_a_limiter_on_its_own_connection_costs_the_confirm_one_more_round_trip(
    user: Any,
) -> None:
    _warm(user)
    flow = flow_with_card(user)
    caches = {name: dict(config) for name, config in settings.CACHES.items()}
    caches["ratelimit"] = dict(settings.CACHES["default"])
    own_connection = override_settings(CACHES=caches, LIGHTNOTE_RATE_LIMIT_CACHE="ratelimit")
    with own_connection, count_requests() as counts:
        assert flow.confirm().status_code == 200
    # the read; the limit on its own connection, before the claim; the claim; the settle
    assert counts.redis == CONFIRM_REDIS_MAX + 1


@pytest.mark.django_db
def test_repeats_are_tallied_and_flushed_into_one_audit_row_per_card_and_state(
    user: Any,
) -> None:
    flow = flow_with_card(user)
    flow.confirm()
    for _ in range(3):
        flow.confirm()
    running = issue_card(user, session_id=flow.session_id)
    card_transitions.card_claim(running.token, attempt_id="elsewhere")
    client = token_client(user)
    assert confirm(client, running.token, flow.session_id).status_code == 202

    assert flush_repeat_tallies() == 2
    rows = {
        (str(event.action_id), event.details["state"]): event.details["count"]
        for event in AuditEvent.objects.filter(event_type="confirm.duplicate")
    }
    assert rows == {(flow.card_id(), "settled"): 3, (running.card.id, "running"): 1}
    assert flush_repeat_tallies() == 0  # taken once: nothing left to write
    assert get_redis().exists(REPEAT_TALLIES_KEY) == 0


@pytest.mark.django_db
def test_tallies_the_database_refuses_are_kept_for_the_next_flush(
    user: Any, monkeypatch: Any
) -> None:
    from agent.cards import confirm as execution

    flow = flow_with_card(user)
    flow.confirm()
    flow.confirm()

    def refuse(events: Any) -> None:
        from django.db import OperationalError

        raise OperationalError("database away")

    monkeypatch.setattr(execution, "audit_events", refuse)
    with pytest.raises(Exception, match="database away"):
        flush_repeat_tallies()
    monkeypatch.undo()
    assert flush_repeat_tallies() == 1
    assert AuditEvent.objects.get(event_type="confirm.duplicate").details["count"] == 1


@pytest.mark.django_db
def test_a_confirm_the_limit_refuses_leaves_the_card_ready_with_its_lifetime(
    user: Any, settings: Any
) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "1/h"
    client = token_client(user)
    session_id = open_session(client)
    spent = issue_card(user, session_id=session_id)
    refused = issue_card(user, session_id=session_id)
    assert confirm(client, spent.token, session_id).status_code == 200

    response = confirm(client, refused.token, session_id)

    assert (response.status_code, error_code(response)) == (429, "RATE_LIMITED")
    assert status(client, refused.token, session_id).json() == {"state": "ready"}
    ttl_ms = get_redis().pttl(f"ln:card:{{{refused.card.digest}}}")
    assert 0 < ttl_ms <= settings.LIGHTNOTE_CONFIRMATION_TTL * 1000  # not the 24 h of a claim
    assert get_redis().zscore(card_transitions.RUNNING_INDEX_KEY, refused.card.digest) is None


@pytest.mark.django_db
def test_a_revoked_token_is_refused_at_once_and_a_deleted_session_is_forbidden(
    user: Any,
) -> None:
    flow = flow_with_card(user)
    client = token_client(user)
    AgentSession.objects.filter(id=flow.session_id).delete()
    response = confirm(client, flow.token, flow.session_id)
    assert (response.status_code, error_code(response)) == (403, "CONFIRMATION_FORBIDDEN")

    Token.objects.filter(user=user).delete()
    assert confirm(client, flow.token, flow.session_id).status_code == 401


def _racers(count: int, target: Any) -> list[tuple[int, bytes]]:
    answers: list[tuple[int, bytes]] = []
    barrier = threading.Barrier(count)

    def run(index: int) -> None:
        try:
            barrier.wait()
            answers.append(target(index))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_losers_of_a_race_for_one_card_are_never_counted_against_the_limit(
    user: Any, settings: Any
) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "1/h"
    flow = flow_with_card(user)
    key = Token.objects.get(user=user).key
    payload = {"token": flow.token, "session_id": flow.session_id}

    def confirm_once(_index: int) -> tuple[int, bytes]:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        response = client.post(CONFIRM_URL, payload, format="json")
        return response.status_code, response.content

    answers = _racers(20, confirm_once)

    assert set(Counter(code for code, _ in answers)) <= {200, 202}  # nobody is limited
    assert Todo.objects.count() == 1
    assert ActionReceipt.objects.count() == 1


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_concurrent_claims_of_different_cards_never_pass_the_limit(
    user: Any, settings: Any
) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "3/h"
    client = token_client(user)
    session_id = open_session(client)
    tokens = [issue_card(user, session_id=session_id).token for _ in range(12)]
    key = Token.objects.get(user=user).key

    def confirm_card(index: int) -> tuple[int, bytes]:
        racer = APIClient()
        racer.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        response = racer.post(
            CONFIRM_URL, {"token": tokens[index], "session_id": session_id}, format="json"
        )
        return response.status_code, response.content

    answers = _racers(len(tokens), confirm_card)

    assert Counter(code for code, _ in answers) == {200: 3, 429: 9}
    assert Todo.objects.count() == 3
    states = Counter(status(client, token, session_id).json()["state"] for token in tokens)
    assert states == {"settled": 3, "ready": 9}  # a refused claim wrote nothing


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_confirm_that_trashes_a_todo_voids_the_list_counts_within_4_round_trips(
    user: Any, monkeypatch: Any
) -> None:
    """The list-count generation bump after the commit rides in the settle's pipeline."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from lightnote.rest import pagination

    monkeypatch.setattr(pagination, "COUNT_CAP", 3)
    _warm(user)
    client = token_client(user)
    todos = [Todo.objects.create(owner=user, title=f"todo {i}") for i in range(4)]
    assert client.delete(f"/api/v1/todos/{todos[0].id}/").status_code == 204  # scripts loaded
    assert client.get("/api/v1/todos/").json()["count"] is None  # 4 live: past the cap, marked
    flow = flow_with_card(user, "删除待办 todo 1")
    assert flow.card["tool"] == "delete_todo", flow.card
    with count_requests() as counts:
        response = flow.confirm()
    assert response.json()["outcome"]["ok"] is True, response.content
    assert counts.redis == CONFIRM_REDIS_MAX
    with CaptureQueriesContext(connection) as captured:
        body = client.get("/api/v1/todos/").json()
    assert body["count"] == 3  # recounted: the mark was voided by the confirm
    assert any("COUNT(" in query["sql"].upper() for query in captured.captured_queries)


# --- The settle built while the COMMIT is with the database ---------------------------------


def _settle_spies(monkeypatch: pytest.MonkeyPatch, events: list[Any]) -> None:
    """Record the execution's bookkeeping built ahead, each settle call built, each one sent,
    and (MariaDB) each reply read after work that rode on a query
    (``lightnote.db_backends.mysql.Connection``)."""
    from agent.cards import execute as executor
    from lightnote.controlstore import store

    built = card_transitions.CardSettle._call
    sent = store.run_transition
    bookkeeping = executor._bookkeeping

    def build_bookkeeping(*args: Any) -> Any:
        events.append("bookkeeping built")
        return bookkeeping(*args)

    monkeypatch.setattr(executor, "_bookkeeping", build_bookkeeping)
    claim_built = card_transitions.claim_call

    def build_claim(*args: Any, **kwargs: Any) -> Any:
        events.append("claim built")
        return claim_built(*args, **kwargs)

    monkeypatch.setattr(card_transitions, "claim_call", build_claim)

    def build(self: Any, kind: str, outcome: Any) -> Any:
        events.append(("built", kind))
        return built(self, kind, outcome)

    def send(call: Any) -> Any:
        if call.args[1] == "settled":
            events.append(("sent", json.loads(call.args[8])))
        return sent(call)

    sent_later = store.send_transition_later

    def send_later(call: Any, on_result: Any) -> bool:
        went = sent_later(call, on_result)
        if went and call.args[1] == "settled":
            events.append(("sent", json.loads(call.args[8])))
        return went

    monkeypatch.setattr(card_transitions.CardSettle, "_call", build)
    monkeypatch.setattr(store, "run_transition", send)
    monkeypatch.setattr(store, "send_transition_later", send_later)
    if connections["default"].vendor == "mysql":
        from MySQLdb import _mysql

        from lightnote.db_backends.mysql.base import Connection

        def read(self: Any) -> Any:
            events.append("reply read")
            return _mysql.connection.read_query_result(self)

        monkeypatch.setattr(Connection, "read_query_result", read)
