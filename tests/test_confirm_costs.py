"""What a confirm costs, pinned: SQL statements, Redis round trips, writes — and the
mechanisms that keep it small (one durable transaction without savepoints, the claim's
audit row inside it, repeats tallied in Redis, the one-round-trip claims limiter consumed
only by a winning claim, the token and session checked in one query).

Counts come from ``lightnote.request_counters.count_requests`` (SQL exactly as
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
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.test import APIClient

from agent import card_transitions, cards, receipts
from agent.execution import REPEAT_TALLIES_KEY, flush_repeat_tallies
from agent.models import ActionReceipt, AgentSession
from lightnote.models import AuditEvent
from lightnote.redis import get_redis
from lightnote.request_counters import count_requests
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

CONFIRM_SQL_MAX = 8
# token + session; BEGIN (autocommit off); the todo; the receipt, the card history row and
# the audit rows with the COMMIT (and autocommit on again) in one round trip
# (lightnote.write_statements)
CONFIRM_SQL_ROUND_TRIPS_MARIADB = 4
CONFIRM_REDIS_MAX = 2  # a single Redis whose limiter shares the cards' connection


def _warm(user: Any) -> None:
    """One confirm first, so every Lua script is loaded on the server (steady state)."""
    flow = flow_with_card(user, "帮我创建一条明天下午3点热身的待办")
    assert flow.confirm().status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_confirm_costs_at_most_8_statements_with_no_savepoint_and_its_audit_inside(
    user: Any,
) -> None:
    _warm(user)
    flow = flow_with_card(user)
    with count_requests(keep_statements=True) as counts:
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
    if connections["default"].vendor == "mysql":
        assert counts.sql_round_trips == CONFIRM_SQL_ROUND_TRIPS_MARIADB, counts.statements
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
    receipts.forget_succeeded()  # as in another process: it has not seen this receipt
    with count_requests() as counts:
        again = flow.confirm()
    assert again.content == first.content
    assert (counts.sql, counts.sql_writes) == (2, 0)  # token+user+session, the receipt check
    # A process that has seen the receipt (it wrote it, or checked it once) does not ask
    # again: a succeeded receipt never goes away.
    with count_requests() as counts:
        third = flow.confirm()
    assert third.content == first.content
    assert (counts.sql, counts.sql_writes) == (1, 0)
    assert AuditEvent.objects.count() == audit_rows


@pytest.mark.django_db
def test_the_process_that_executed_a_card_repeats_it_with_one_read(user: Any) -> None:
    flow = flow_with_card(user)
    receipts.forget_succeeded()
    first = flow.confirm()
    with count_requests() as counts:
        again = flow.confirm()
    assert again.content == first.content
    assert (counts.sql, counts.sql_writes) == (1, 0)  # the token query only


@pytest.mark.services
@pytest.mark.django_db
def test_round_trips_to_redis_per_confirm_and_per_repeat(user: Any) -> None:
    _warm(user)
    flow = flow_with_card(user)
    with count_requests() as confirm_counts:
        assert flow.confirm().status_code == 200
    with count_requests() as repeat_counts:
        assert flow.confirm().status_code == 200
    # read and claim the card, add its running-index entry and count the claim against the
    # limit, in one script; settle it + leave the index. Equal, not at most: a round trip
    # that comes back (a separate read before the claim, or the limit on its own) fails here.
    assert confirm_counts.redis == CONFIRM_REDIS_MAX
    assert repeat_counts.redis == 2  # the same script (claims nothing); tally the repeat


@pytest.mark.services
@pytest.mark.django_db
def test_a_limiter_on_its_own_connection_costs_the_confirm_one_more_round_trip(
    user: Any,
) -> None:
    _warm(user)
    flow = flow_with_card(user)
    caches = {name: dict(config) for name, config in settings.CACHES.items()}
    caches["ratelimit"] = dict(settings.CACHES["default"])
    own_connection = override_settings(CACHES=caches, RATELIMIT_USE_CACHE="ratelimit")
    with own_connection, count_requests() as counts:
        assert flow.confirm().status_code == 200
    # the claim; the limit on its own connection, after the claim; the settle
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
    from agent import execution

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
def test_a_claim_the_limit_refuses_is_given_back_with_its_ready_lifetime(
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


@pytest.mark.django_db
def test_the_compiled_token_query_answers_for_each_request_s_own_key_and_session(
    user: Any, other_user: Any
) -> None:
    """The token + session query is compiled once per thread, then filled in per request:
    every answer is the current key's and session's, never the compiling request's."""
    from agent import execution, sessions
    from lightnote.authentication import TokenAuthentication, TokenQueryExtension

    own = sessions.session_create(owner=user)
    deleted = sessions.session_create(owner=user)
    AgentSession.objects.filter(id=deleted.id).update(deleted_at=timezone.now())
    theirs = sessions.session_create(owner=other_user)
    keys = {
        person.pk: Token.objects.get_or_create(user=person)[0].key for person in (user, other_user)
    }

    def ask(person: Any, session: Any) -> dict[str, Any]:
        auth = TokenAuthentication()
        auth.extension = TokenQueryExtension(
            build=execution.session_check_annotation, value=session.id
        )
        auth.annotated = None
        found, _ = auth.authenticate_credentials(keys[person.pk])
        assert found.pk == person.pk
        return auth.annotated or {}

    for _ in range(2):  # compiled on the first round, reused on the second
        answers = {
            (person.username, session.id): (
                answers_for[execution.SESSION_ID_ANNOTATION],
                answers_for[execution.SESSION_LIVE_ANNOTATION],
            )
            for person in (user, other_user)
            for session in (own, deleted, theirs)
            for answers_for in [ask(person, session)]
        }
        assert answers == {
            ("alice", own.id): (str(own.id), True),
            ("alice", deleted.id): (str(deleted.id), False),
            ("alice", theirs.id): (str(theirs.id), None),
            (other_user.username, own.id): (str(own.id), None),
            (other_user.username, deleted.id): (str(deleted.id), None),
            (other_user.username, theirs.id): (str(theirs.id), True),
        }
    assert connections["default"].__dict__["lightnote_token_queries"][
        execution.session_check_annotation
    ]
    with pytest.raises(AuthenticationFailed):
        TokenAuthentication().authenticate_credentials("no-such-key")


def _int_of(value: Any) -> dict[str, Any]:
    from django.db.models import CharField, Value

    return {"lightnote_value_text": Value(f"v{value.int}", output_field=CharField())}


@pytest.mark.django_db
def test_a_token_query_shape_the_cache_cannot_fill_in_falls_back_to_the_orm(user: Any) -> None:
    """A value that reaches the SQL in a form the compiled query cannot find (here its
    integer, inside a text) is never answered with the stand-in: the ORM builds the query."""
    import uuid

    from lightnote.authentication import TokenAuthentication, TokenQueryExtension

    key = Token.objects.get_or_create(user=user)[0].key
    value = uuid.uuid4()
    auth = TokenAuthentication()
    auth.extension = TokenQueryExtension(build=_int_of, value=value)
    found, _ = auth.authenticate_credentials(key)
    assert found.pk == user.pk
    assert auth.annotated == {"lightnote_value_text": f"v{value.int}", "user_id": user.pk}
    compiled = connections["default"].__dict__["lightnote_token_queries"]
    assert compiled[_int_of] is None
    plain, _ = TokenAuthentication().authenticate_credentials(key)  # the plain token query
    assert plain.pk == user.pk
    assert compiled[None] is not None  # compiled, as the session check's is


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

    from lightnote import pagination

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
    from agent import executor
    from lightnote import store

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


@pytest.mark.django_db(transaction=True)
def test_a_confirm_builds_its_settle_while_the_commit_is_with_the_database_and_sends_it_after(
    user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On MariaDB the claim's call is built while the token query is with the database
    (for the user the key named before), the receipt, history and claim rows while the
    service's first statement is, and the settle's call between sending the batch that
    carries the COMMIT and reading its reply, then sent; elsewhere each is built in turn.
    Each built once, the settle for the outcome answered; the costs stay the same."""
    _warm(user)
    events: list[Any] = []
    _settle_spies(monkeypatch, events)
    flow = flow_with_card(user)
    events.clear()
    with count_requests() as counts:
        response = flow.confirm()
    body = response.json()
    assert body["outcome"]["ok"] is True
    answered = ("sent", body["outcome"])
    if connections["default"].vendor == "mysql":
        assert events == [
            "claim built",
            "reply read",  # the token query
            "bookkeeping built",
            "reply read",  # the todo's INSERT
            ("built", "succeeded"),
            "reply read",  # the batch with the COMMIT
            answered,
        ]
        assert counts.sql_round_trips == CONFIRM_SQL_ROUND_TRIPS_MARIADB
    else:
        assert events == ["claim built", "bookkeeping built", ("built", "succeeded"), answered]
    assert counts.redis <= CONFIRM_REDIS_MAX
    assert cards.card_get(flow.token).outcome == body["outcome"]


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_confirm_s_settle_goes_out_before_its_answer_is_rendered_and_is_read_after(
    user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A success's settle is sent as soon as the COMMIT is known and its reply read once the
    response is built (``StoreRepliesMiddleware``), so the round trip overlaps the rendering;
    the card is settled with the very outcome answered, and the round trips are as many."""
    from rest_framework.renderers import JSONRenderer

    from lightnote import store_scripts

    _warm(user)
    events: list[Any] = []
    _settle_spies(monkeypatch, events)
    real_render = JSONRenderer.render

    def render(self: Any, *args: Any, **kwargs: Any) -> Any:
        events.append("rendered")
        return real_render(self, *args, **kwargs)

    real_finish = store_scripts._LateReplies.finish

    def finish(self: Any) -> None:
        events.append("settle's reply read")
        real_finish(self)

    monkeypatch.setattr(JSONRenderer, "render", render)
    monkeypatch.setattr(store_scripts._LateReplies, "finish", finish)
    flow = flow_with_card(user)
    events.clear()
    with count_requests() as counts:
        response = flow.confirm()
    body = response.json()
    assert body["outcome"]["ok"] is True
    settle = [("sent", body["outcome"]), "rendered", "settle's reply read"]
    assert settle[0] in events, events
    after = events[events.index(settle[0]) :]  # (the test client renders the request too)
    assert [event for event in after if event in settle] == settle, events
    assert counts.redis == CONFIRM_REDIS_MAX
    assert cards.card_get(flow.token).outcome == body["outcome"]
    assert (
        get_redis().zscore(card_transitions.RUNNING_INDEX_KEY, cards.card_get(flow.token).digest)
        is None
    )


@pytest.mark.django_db(transaction=True)
def test_a_settle_prepared_for_another_outcome_is_built_again_for_the_one_sent(
    user: Any,
) -> None:
    flow = flow_with_card(user)
    attempt = "attempt-1"
    claim = card_transitions.card_claim(flow.token, attempt_id=attempt)
    assert claim.status is card_transitions.ClaimStatus.CLAIMED
    settle = card_transitions.CardSettle(flow.token, attempt_id=attempt)
    settle.prepare("succeeded", {"ok": True, "receipt": {"status": "succeeded"}})
    failed = {"ok": False, "error": {"code": "ACTION_EXECUTION_FAILED", "message": "x"}}
    assert settle("failed", failed) is True
    stored = cards.card_get(flow.token)
    assert (stored.outcome_kind, stored.outcome) == ("failed", failed)


@pytest.mark.django_db(transaction=True)
def test_a_settle_whose_preparation_fails_is_built_again_and_raises_when_sent(
    user: Any,
) -> None:
    flow = flow_with_card(user)
    claim = card_transitions.card_claim(flow.token, attempt_id="attempt-1")
    assert claim.status is card_transitions.ClaimStatus.CLAIMED
    settle = card_transitions.CardSettle(flow.token, attempt_id="attempt-1")
    outcome = {"ok": True}
    settle.prepare("no such kind", outcome)  # never raises
    with pytest.raises(ValueError, match="outcome_kind"):
        settle("no such kind", outcome)
    assert cards.card_get(flow.token).state == "running"  # nothing was sent


@pytest.mark.django_db(transaction=True)
def test_an_outcome_whose_preparation_needs_the_database_is_built_after_the_commit(
    user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built while the batch holds the connection, an outcome that reads the database fails
    there (MariaDB: commands out of sync) and is built again once the COMMIT is known: the
    answer is the success, never a 500 or a false failure."""
    from agent import executor

    built = executor.succeeded_outcome
    reads: list[int] = []

    def outcome_reading_the_database(receipt: Any) -> Any:
        reads.append(Todo.objects.count())
        return built(receipt)

    monkeypatch.setattr(executor, "succeeded_outcome", outcome_reading_the_database)
    flow = flow_with_card(user)
    response = flow.confirm()
    assert response.status_code == 200, response.content
    assert response.json()["outcome"]["ok"] is True
    assert reads == [1]  # the one that succeeded, after the COMMIT
    assert Todo.objects.count() == 1
    assert cards.card_get(flow.token).outcome == response.json()["outcome"]


# --- The claim built while the token query runs ---------------------------------------------


def _claims_built(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Record each claim call built (its owner) and each one sent (its owner hash)."""
    from lightnote import store

    seen: list[dict[str, Any]] = []
    built, sent = card_transitions.claim_call, store.run_transition

    def build(token: str, **kwargs: Any) -> Any:
        seen.append({"built for": kwargs.get("owner_id")})
        return built(token, **kwargs)

    def send(call: Any) -> Any:
        if call.args[1] == "running":
            pairs = dict(zip(call.args[18::2], call.args[19::2], strict=True))
            seen.append({"sent for": pairs.get("owner_hash")})
        return sent(call)

    monkeypatch.setattr(card_transitions, "claim_call", build)
    monkeypatch.setattr(store, "run_transition", send)
    return seen


@pytest.mark.django_db(transaction=True)
def test_the_claim_is_built_ahead_for_the_user_the_key_named_before(
    user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key never seen in this process gets nothing ahead; once it authenticated, its next
    confirm's claim is built for that user while the token query runs, and sent as built."""
    from lightnote import authentication
    from lightnote.binding import owner_hash

    monkeypatch.setattr(authentication, "_hints", {})
    flow = flow_with_card(user)  # the key authenticated: its user is remembered
    key = Token.objects.get(user=user).key
    assert authentication._hints == {authentication._hint_key(key): user.pk}
    seen = _claims_built(monkeypatch)
    assert flow.confirm().json()["outcome"]["ok"] is True
    assert seen == [{"built for": user.pk}, {"sent for": owner_hash(user.pk)}]
    assert Todo.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_claim_built_ahead_for_another_user_is_never_sent(
    user: Any, other_user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wrong guess (here planted: the key said to name someone else) builds a claim for
    that user, which is dropped: the claim sent names the authenticated user, once."""
    from lightnote import authentication
    from lightnote.binding import owner_hash

    flow = flow_with_card(user)
    key = Token.objects.get(user=user).key
    monkeypatch.setitem(authentication._hints, authentication._hint_key(key), other_user.pk)
    seen = _claims_built(monkeypatch)
    response = flow.confirm()
    assert response.json()["outcome"]["ok"] is True
    assert {"built for": other_user.pk} in seen  # the guess, built and dropped
    assert [entry for entry in seen if "sent for" in entry] == [{"sent for": owner_hash(user.pk)}]
    assert Todo.objects.filter(owner=user).count() == 1
    assert authentication._hints[authentication._hint_key(key)] == user.pk  # corrected


@pytest.mark.django_db(transaction=True)
def test_only_a_key_that_authenticated_is_remembered_and_the_hints_are_bounded(
    user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lightnote import authentication

    monkeypatch.setattr(authentication, "_hints", {})
    monkeypatch.setattr(authentication, "_HINTS_MAX", 3)
    stranger = APIClient()
    stranger.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert stranger.post(CONFIRM_URL, {}, format="json").status_code == 400  # body first
    body = {"token": "t" * 43, "session_id": "8d6f4c1e-59f4-4a4e-9f55-3a4a8d1c2b7e"}
    assert stranger.post(CONFIRM_URL, body, format="json").status_code == 401
    assert authentication._hints == {}
    for number in range(5):
        authentication._remember_hint(f"key-{number}", number)
    assert authentication._hints == {"key-2": 2, "key-3": 3, "key-4": 4}  # the oldest go first


@pytest.mark.django_db(transaction=True)
def test_a_settle_that_cannot_be_sent_ahead_is_sent_as_before_and_the_answer_is_the_same(
    user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sending the settle ahead fails in an unexpected way after the COMMIT: never an error
    answer for an action that ran; the settle is sent and read as before."""
    from lightnote import store

    def broken(call: Any, on_result: Any) -> bool:
        raise TypeError("a bug in sending ahead")

    monkeypatch.setattr(store, "send_transition_later", broken)
    flow = flow_with_card(user)
    response = flow.confirm()
    assert response.status_code == 200
    body = response.json()
    assert body["outcome"]["ok"] is True
    stored = cards.card_get(flow.token)
    assert stored is not None
    assert stored.state == cards.CardState.SETTLED
    assert stored.outcome == body["outcome"]
    assert Todo.objects.filter(owner=user).count() == 1
