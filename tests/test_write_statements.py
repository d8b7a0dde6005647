"""``lightnote.write_statements``: the hot paths' INSERTs and UPDATEs, built once, mean what
the ORM calls they replace mean — on whichever database the pass runs (SQLite, MariaDB)."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import (
    IntegrityError,
    OperationalError,
    ProgrammingError,
    connection,
    connections,
    transaction,
)
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from agent.models import ActionCard, ActionReceipt, AgentSession, Message
from lightnote import write_statements
from lightnote.models import AuditEvent
from lightnote.overlap import Prepared
from lightnote.request_counters import count_requests
from lightnote.write_statements import (
    CommitUnknown,
    ConditionalUpdate,
    Statement,
    insert_statement,
    run_statements,
)
from tests.agent_helpers import commit_reply_lost

pytestmark = pytest.mark.django_db


def insert_rows(objs):
    """One INSERT of ``objs``, run at once (as the product's callers send it in a batch)."""
    run_statements([insert_statement(objs)])


def run_update(update, key, values, **params):
    """Run one conditional UPDATE now; return the number of rows it changed."""
    return run_statements([update.statement(key, values, **params)])[0].rowcount


@pytest.fixture
def user():
    return get_user_model().objects.create_user("writer", password="pw-writer-2026")


def _receipt(user, **overrides):
    values = {
        "action_id": uuid.uuid4(),
        "tool": "create_todo",
        "capability": "todo.create",
        "args_hmac": "a" * 64,
        "owner": user,
        "subject": user,
        "actor": user,
        "session_id": uuid.uuid4(),
        "resource_type": "todo",
        "resource_id": "42",
        "summary": "已创建待办「开会」",
        "result": {"id": 42, "title": "开会", "nested": {"due_at": None, "tags": ["a", "b"]}},
    }
    values.update(overrides)
    return ActionReceipt(**values)


def test_one_row_is_inserted_in_one_statement_and_gets_its_key(user):
    receipt = _receipt(user)
    with CaptureQueriesContext(connection) as queries:
        insert_rows([receipt])
    assert len(queries) == 1
    assert queries[0]["sql"].startswith("INSERT INTO")
    assert receipt.pk is not None
    assert not receipt._state.adding
    stored = ActionReceipt.objects.get(pk=receipt.pk)
    for field in ("action_id", "tool", "summary", "result", "session_id", "created_at"):
        assert getattr(stored, field) == getattr(receipt, field), field
    assert stored.owner_id == stored.subject_id == stored.actor_id == user.pk
    assert stored.status == ActionReceipt.Status.SUCCEEDED  # the field's default applied


def test_several_rows_are_one_insert_with_json_null_and_sql_null_kept_apart(user):
    events = [
        AuditEvent(event_type="confirm.claimed", actor=user, subject=user, details={"a": 1}),
        AuditEvent(event_type="action.executed", actor=None, subject=user, details={}),
        AuditEvent(event_type="x.y", action_id=uuid.uuid4(), details={"z": [None, "中文"]}),
    ]
    with CaptureQueriesContext(connection) as queries:
        insert_rows(events)
    assert len(queries) == 1
    stored = list(AuditEvent.objects.order_by("id"))
    assert [event.event_type for event in stored] == [
        "confirm.claimed",
        "action.executed",
        "x.y",
    ]
    assert stored[0].details == {"a": 1}
    assert stored[0].actor_id == user.pk
    assert stored[1].actor_id is None
    assert stored[1].details == {}
    assert stored[2].details == {"z": [None, "中文"]}
    assert stored[2].action_id == events[2].action_id


def test_rows_with_their_own_keys_and_foreign_keys(user):
    session = AgentSession.objects.create(owner=user)
    now = timezone.now()
    first = Message(session=session, role=Message.Role.USER, text="你好", created_at=now)
    second = Message(
        session=session,
        role=Message.Role.ASSISTANT,
        text="hello",
        created_at=now + timedelta(microseconds=1),
        payload={"cards": [], "facts": []},
    )
    insert_rows([first, second])
    assert list(session.messages.order_by("created_at").values_list("id", "text", "payload")) == [
        (first.id, "你好", {}),
        (second.id, "hello", {"cards": [], "facts": []}),
    ]


def test_a_taken_unique_slot_raises_django_s_integrity_error_and_rolls_back(user):
    action_id = uuid.uuid4()
    insert_rows([_receipt(user, action_id=action_id)])
    with pytest.raises(IntegrityError), transaction.atomic():
        insert_rows([_receipt(user, action_id=action_id)])
    assert ActionReceipt.objects.filter(action_id=action_id).count() == 1


def test_rows_of_two_models_are_refused(user):
    with pytest.raises(TypeError):
        insert_rows([_receipt(user), AuditEvent(event_type="x")])
    assert not ActionReceipt.objects.exists()


def test_a_key_the_database_assigns_is_never_given(user):
    with pytest.raises(ValueError, match="database-assigned"):
        insert_rows([_receipt(user, pk=12345)])
    assert not ActionReceipt.objects.exists()


def _card(user, session, **overrides):
    values = {
        "id": uuid.uuid4(),
        "session": session,
        "owner": user,
        "actor": user,
        "tool": "create_todo",
        "capability": "todo.create",
        "risk": "low",
        "args": {"title": "开会"},
        "preview": {"title": "开会"},
        "token_digest": uuid.uuid4().hex * 2,
        "expires_at": timezone.now() + timedelta(minutes=10),
    }
    values.update(overrides)
    return ActionCard(**values)


SETTLE = ConditionalUpdate(
    ActionCard,
    fields=("state", "outcome_kind", "receipt", "error", "settled_at"),
    where="NOT (state = %s AND outcome_kind IN (%s, %s))",
)


def _settle(card_id, receipt):
    return run_update(
        SETTLE,
        card_id,
        {
            "state": "settled",
            "outcome_kind": "succeeded",
            "receipt": receipt,  # a row stands for its key
            "error": None,
            "settled_at": receipt.settled_at,
        },
        where_params=("settled", "succeeded", "failed"),
    )


def test_a_conditional_update_changes_only_a_matching_row_and_counts_it(user):
    session = AgentSession.objects.create(owner=user)
    card = _card(user, session, error={"code": "X"})
    other = _card(user, session)
    insert_rows([card, other])
    receipt = _receipt(user, action_id=card.id)
    insert_rows([receipt])

    assert _settle(card.id, receipt) == 1
    card.refresh_from_db()
    assert (card.state, card.outcome_kind, card.receipt_id) == ("settled", "succeeded", receipt.pk)
    assert card.error is None
    assert card.settled_at == receipt.settled_at
    other.refresh_from_db()
    assert other.state == "ready"
    assert other.receipt_id is None

    # The guard: a final outcome is never overwritten.
    second = _receipt(user)
    insert_rows([second])
    assert _settle(card.id, second) == 0
    card.refresh_from_db()
    assert card.receipt_id == receipt.pk


def test_an_update_without_a_condition_and_with_the_wrong_values(user):
    session = AgentSession.objects.create(owner=user, title="旧")
    touch = ConditionalUpdate(AgentSession, fields=("updated_at", "title"))
    later = timezone.now() + timedelta(hours=1)
    assert run_update(touch, session.id, {"updated_at": later, "title": "新"}) == 1
    session.refresh_from_db()
    assert (session.title, session.updated_at) == ("新", later)
    assert run_update(touch, uuid.uuid4(), {"updated_at": later, "title": "x"}) == 0
    with pytest.raises(ValueError):
        run_update(touch, session.id, {"updated_at": later})
    with pytest.raises(TypeError):
        ConditionalUpdate(AgentSession, fields=("messages",))  # not a column


# --- Batches: several statements, one round trip on MariaDB, one transaction if asked -----


def _touch(session, title):
    return ConditionalUpdate(AgentSession, fields=("title",)).statement(
        session.id, {"title": title}
    )


def test_a_batch_runs_its_statements_in_order_and_reports_each(user):
    session = AgentSession.objects.create(owner=user)
    card = _card(user, session)
    receipt = _receipt(user, action_id=card.id)
    insert_rows([card])
    settle = ConditionalUpdate(
        ActionCard,
        fields=("state",),
        also_set="receipt_id = (SELECT id FROM agent_actionreceipt WHERE action_id = %s)",
        set_params_as=ActionReceipt._meta.get_field("action_id"),
    )
    with count_requests(keep_statements=True) as counts:
        results = run_statements(
            [
                insert_statement([receipt]),
                settle.statement(card.id, {"state": "settled"}, set_params=(card.id,)),
                settle.statement(uuid.uuid4(), {"state": "settled"}, set_params=(card.id,)),
                _touch(session, "新"),
            ]
        )
    assert [result.rowcount for result in results] == [1, 1, 0, 1]
    assert receipt.pk is not None
    assert results[0].lastrowid == receipt.pk
    card.refresh_from_db()
    assert (card.state, card.receipt_id) == ("settled", receipt.pk)  # the subquery's key
    # Each statement counts; on MariaDB they were one round trip.
    assert counts.sql == 4
    assert counts.sql_writes == 4
    assert [sql.split()[0] for sql in counts.statements] == ["INSERT", "UPDATE", "UPDATE", "UPDATE"]
    assert counts.sql_round_trips == (1 if connection.vendor == "mysql" else 4)


@pytest.mark.django_db(transaction=True)
def test_a_batch_of_its_own_transaction_is_one_round_trip_with_begin_and_commit(user):
    session = AgentSession.objects.create(owner=user)
    receipt = _receipt(user)
    with count_requests(keep_statements=True) as counts:
        run_statements([insert_statement([receipt]), _touch(session, "新")], in_transaction=True)
    assert ActionReceipt.objects.filter(pk=receipt.pk).exists()
    session.refresh_from_db()
    assert session.title == "新"
    words = [sql.split()[0].upper() for sql in counts.statements]
    assert words[0] in ("START", "BEGIN"), counts.statements
    assert words[-1] == "COMMIT", counts.statements
    assert counts.sql_round_trips == (1 if connection.vendor == "mysql" else 4)
    assert connection.get_autocommit()
    assert not connection.in_atomic_block


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("failing", ["unique slot", "not null"])
def test_a_batch_that_fails_part_way_leaves_nothing_and_the_connection_usable(user, failing):
    """The database refuses the last statement: the earlier ones are rolled back with it,
    the error is Django's ``IntegrityError`` (MariaDB's 1048 included, as Django maps it),
    and the same connection goes on (no half-read results, no open transaction)."""
    session = AgentSession.objects.create(owner=user, title="旧")
    taken = _receipt(user)
    insert_rows([taken])
    receipt = _receipt(user)
    if failing == "unique slot":
        last = insert_statement([_receipt(user, action_id=taken.action_id)])
    else:
        last = _touch(session, None)
    with pytest.raises(IntegrityError):
        run_statements(
            [insert_statement([receipt]), _touch(session, "新"), last], in_transaction=True
        )
    assert receipt.pk is None  # nothing ran to its end: no key handed out
    assert not ActionReceipt.objects.filter(action_id=receipt.action_id).exists()
    session.refresh_from_db()
    assert session.title == "旧"
    assert connection.get_autocommit()
    assert not connection.in_atomic_block
    again = _receipt(user)
    run_statements([insert_statement([again]), _touch(session, "新")], in_transaction=True)
    session.refresh_from_db()
    assert session.title == "新"
    assert ActionReceipt.objects.filter(pk=again.pk).exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("durable", [True, False], ids=["durable", "lost"])
def test_a_batch_of_its_own_transaction_whose_commit_reply_is_lost_is_commit_unknown(user, durable):
    """The COMMIT of a batch that is its own transaction (MariaDB: in its round trip;
    elsewhere: Django's at the block's exit) answers with a lost connection: whether the
    batch is durable is unknown (``CommitUnknown``, not the driver's error alone), and a
    fresh connection tells. A statement the database refused is still its own error (the
    test above)."""
    session = AgentSession.objects.create(owner=user, title="旧")
    receipt = _receipt(user)
    with commit_reply_lost(committed=durable) as events, pytest.raises(CommitUnknown) as raised:
        run_statements([insert_statement([receipt]), _touch(session, "新")], in_transaction=True)
    assert events == ["committed, reply lost" if durable else "lost before the server"]
    assert isinstance(raised.value.__cause__, OperationalError)
    connection.close()
    assert ActionReceipt.objects.filter(action_id=receipt.action_id).exists() is durable
    session.refresh_from_db()
    assert session.title == ("新" if durable else "旧")


@pytest.mark.django_db(transaction=True)
def test_a_follow_up_that_fails_after_a_batch_commits_itself_is_commit_unknown(user):
    def fails(result):
        raise RuntimeError("a follow-up failed")

    receipt = _receipt(user)
    with pytest.raises(CommitUnknown):
        run_statements([replace(insert_statement([receipt]), done=fails)], in_transaction=True)
    assert ActionReceipt.objects.filter(action_id=receipt.action_id).exists()


@pytest.mark.django_db(transaction=True)
def test_a_failed_batch_inside_a_caller_s_transaction_rolls_back_with_it(user):
    session = AgentSession.objects.create(owner=user, title="旧")
    receipt = _receipt(user)
    with pytest.raises(IntegrityError), transaction.atomic():
        run_statements([insert_statement([receipt]), _touch(session, None)])
    assert not ActionReceipt.objects.exists()
    session.refresh_from_db()
    assert session.title == "旧"
    with transaction.atomic():  # and the connection goes on
        run_statements([insert_statement([_receipt(user)]), _touch(session, "新")])
    assert ActionReceipt.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_failed_batch_caught_inside_a_caller_s_transaction_still_commits_nothing(user):
    """As for a failing ORM save: the caller's block is marked for rollback, so a caller
    that catches the error cannot commit the statements that ran before it."""
    session = AgentSession.objects.create(owner=user, title="旧")
    with transaction.atomic():
        with pytest.raises(IntegrityError):
            run_statements([insert_statement([_receipt(user)]), _touch(session, None)])
        assert connection.needs_rollback
    assert not ActionReceipt.objects.exists()
    session.refresh_from_db()
    assert session.title == "旧"


@pytest.mark.django_db(transaction=True)
def test_a_batch_that_ends_the_outermost_transaction_carries_its_commit(user):
    """On MariaDB the COMMIT goes in the batch's round trip and the block's exit sends
    nothing more (``lightnote.db_backends.mysql``); elsewhere the block commits as usual.
    Either way the block's writes are durable and Django's state is the usual one after."""
    session = AgentSession.objects.create(owner=user, title="旧")
    receipt = _receipt(user)
    hooks = []
    with count_requests(keep_statements=True) as counts, transaction.atomic(durable=True):
        transaction.on_commit(lambda: hooks.append("after commit"))
        AuditEvent.objects.create(event_type="test.before")  # the block's own earlier write
        run_statements([insert_statement([receipt]), _touch(session, "新")], end_transaction=True)
    assert hooks == ["after commit"]
    assert ActionReceipt.objects.filter(pk=receipt.pk).exists()
    assert AuditEvent.objects.filter(event_type="test.before").exists()
    session.refresh_from_db()
    assert session.title == "新"
    words = [sql.split()[0].upper() for sql in counts.statements]
    assert words == ["BEGIN", "INSERT", "INSERT", "UPDATE", "COMMIT"], counts.statements
    # BEGIN, the audit row, then the batch with the COMMIT (SQLite: each one, and COMMIT).
    assert counts.sql_round_trips == (3 if connection.vendor == "mysql" else 5)
    assert connection.get_autocommit()
    assert not connection.in_atomic_block
    with transaction.atomic():  # the next transaction commits as usual
        AuditEvent.objects.create(event_type="test.after")
    assert AuditEvent.objects.filter(event_type="test.after").exists()


@pytest.mark.django_db(transaction=True)
def test_a_batch_refused_before_its_commit_commits_nothing_of_the_block(user):
    """MariaDB stops at the refused statement, so the COMMIT never ran: the statement's own
    error (not ``CommitUnknown``), and the block rolls back whole."""
    session = AgentSession.objects.create(owner=user, title="旧")
    taken = _receipt(user)
    insert_rows([taken])

    def block():
        with transaction.atomic(durable=True):
            AuditEvent.objects.create(event_type="test.before")
            run_statements(
                [
                    insert_statement([_receipt(user)]),
                    _touch(session, "新"),
                    insert_statement([_receipt(user, action_id=taken.action_id)]),
                ],
                end_transaction=True,
            )

    with pytest.raises(IntegrityError) as raised:
        block()
    assert not isinstance(raised.value, CommitUnknown)
    assert ActionReceipt.objects.count() == 1
    assert not AuditEvent.objects.filter(event_type="test.before").exists()
    session.refresh_from_db()
    assert session.title == "旧"
    assert connection.get_autocommit()
    with transaction.atomic(durable=True):  # the connection goes on
        run_statements([insert_statement([_receipt(user)])], end_transaction=True)
    assert ActionReceipt.objects.count() == 2


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("durable", [True, False], ids=["durable", "lost"])
def test_a_batch_whose_round_trip_breaks_after_its_commit_is_commit_unknown(
    user, monkeypatch, durable
):
    """A connection lost during the round trip that carries the COMMIT: whether the block
    is durable is unknown (``CommitUnknown``, a ``DatabaseError``), and it is what the
    database says afterwards, asked on a fresh connection. (On SQLite the batch carries no
    COMMIT: the block's exit commits, so a lost batch there is an ordinary error.)"""
    if connection.vendor != "mysql":
        pytest.skip("only MariaDB sends the COMMIT with the batch")
    original = write_statements._send_batch

    def broken(connection_, statements, **flags):
        # The server got all of it (durable) or the statements only (lost before COMMIT).
        if durable:
            original(connection_, statements, **flags)
        else:
            original(connection_, statements, own_transaction=False)
        with connection_.wrap_database_errors:
            raise connection_.Database.OperationalError(2013, "Lost connection to server")

    monkeypatch.setattr(write_statements, "_send_batch", broken)
    receipt = _receipt(user)

    def block():
        with transaction.atomic(durable=True):
            run_statements([insert_statement([receipt])], end_transaction=True)

    with pytest.raises(CommitUnknown):
        block()
    monkeypatch.undo()
    connection.close()  # as the executor does: ask again on a fresh connection
    assert ActionReceipt.objects.filter(action_id=receipt.action_id).exists() is durable


@pytest.mark.django_db(transaction=True)
def test_a_follow_up_that_fails_after_the_batch_s_commit_is_commit_unknown(user):
    """The batch is durable before any ``done`` runs: a ``done`` that raises then must not
    read as "nothing happened" (on SQLite the block has not committed yet, so it rolls
    back as for any error)."""

    def fails(result):
        raise RuntimeError("a follow-up failed")

    receipt = _receipt(user)
    statement = replace(insert_statement([receipt]), done=fails)

    def block():
        with transaction.atomic(durable=True):
            run_statements([statement], end_transaction=True)

    if connection.vendor == "mysql":
        with pytest.raises(CommitUnknown):
            block()
    else:
        with pytest.raises(RuntimeError):
            block()
    committed = ActionReceipt.objects.filter(action_id=receipt.action_id).exists()
    assert committed is (connection.vendor == "mysql")


@pytest.mark.django_db(transaction=True)
def test_a_batch_inside_a_nested_block_leaves_the_commit_to_the_outer_one(user):
    """Only the outermost transaction can end in a batch: inside a savepoint (or a block
    nested without one) the statements just run and the outer block decides."""
    with transaction.atomic():
        with transaction.atomic():
            run_statements([insert_statement([_receipt(user)])], end_transaction=True)
        with transaction.atomic(savepoint=False):
            run_statements([insert_statement([_receipt(user)])], end_transaction=True)
        assert connection.in_atomic_block
        transaction.set_rollback(True)
    assert not ActionReceipt.objects.exists()
    run_statements([insert_statement([_receipt(user)])], end_transaction=True)  # autocommit
    assert ActionReceipt.objects.count() == 1


def test_a_batch_cannot_be_its_own_transaction_and_end_its_caller_s(user):
    with pytest.raises(ValueError, match="not both"):
        run_statements(
            [insert_statement([_receipt(user)])], in_transaction=True, end_transaction=True
        )


def test_statements_for_two_databases_are_refused(user):
    session = AgentSession.objects.create(owner=user)
    other = _touch(session, "x")
    with pytest.raises(ValueError, match="one database"):
        run_statements([insert_statement([_receipt(user)]), replace(other, alias="elsewhere")])
    assert not ActionReceipt.objects.exists()


# --- Work while the batch is with the database ----------------------------------------------


def _ending_batch(user, session, prepared, *first):
    """``first``, a receipt and the session's touch, ending a durable block, with
    ``prepared`` as the work while the batch is with the database."""
    with transaction.atomic(durable=True):
        return run_statements(
            [*first, insert_statement([_receipt(user)]), _touch(session, "新")],
            end_transaction=True,
            while_waiting=prepared,
        )


def _other_connection_sees(thread_id):
    """What MariaDB says connection ``thread_id`` is running, asked on another connection."""
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute(
                "SELECT COMMAND, INFO FROM information_schema.PROCESSLIST WHERE ID = %s",
                [thread_id],
            )
            return cursor.fetchone()
    finally:
        other.close()


@pytest.mark.django_db(transaction=True)
def test_work_prepared_while_the_batch_is_with_the_server_is_the_batch_s_round_trip(user):
    """On MariaDB the work runs between sending the batch and reading its replies: another
    connection then sees the batch still running. Elsewhere it is computed when asked, after
    the batch. Either way once, and the batch's results are the usual ones."""
    session = AgentSession.objects.create(owner=user, title="旧")
    seen = []

    def work():
        if connection.vendor == "mysql":
            seen.append(_other_connection_sees(connection.connection.thread_id()))
        else:
            seen.append("after")
        return "prepared"

    prepared = Prepared(work)
    slow = [Statement("DO SLEEP(%s)", [0.3], "default")] if connection.vendor == "mysql" else []
    results = _ending_batch(user, session, prepared, *slow)
    assert [result.rowcount for result in results][-2:] == [1, 1]
    if connection.vendor == "mysql":
        assert len(seen) == 1  # prepared during the round trip, not after it
        command, info = seen[0]
        assert command == "Query", seen
        assert "lightnote batch" in info, seen
    else:
        assert seen == []  # nothing to overlap: computed when asked
    assert prepared.value() == "prepared"
    assert prepared.value() == "prepared"
    assert len(seen) == 1  # computed once
    session.refresh_from_db()
    assert session.title == "新"
    assert connection.get_autocommit()


@pytest.mark.django_db(transaction=True)
def test_work_prepared_for_a_batch_that_fails_leaves_the_batch_s_own_error(user):
    """A refused statement raises its own error whether or not the work ran (the caller then
    never uses it); the block rolls back and the connection goes on."""
    taken = _receipt(user)
    insert_rows([taken])
    prepared = Prepared(lambda: "prepared")
    with pytest.raises(IntegrityError) as raised, transaction.atomic(durable=True):
        run_statements(
            [insert_statement([_receipt(user, action_id=taken.action_id)])],
            end_transaction=True,
            while_waiting=prepared,
        )
    assert not isinstance(raised.value, CommitUnknown)
    assert ActionReceipt.objects.count() == 1
    assert connection.get_autocommit()
    with transaction.atomic(durable=True):
        run_statements([insert_statement([_receipt(user)])], end_transaction=True)
    assert ActionReceipt.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_work_that_raises_never_touches_the_batch_and_is_computed_again_when_asked(user):
    """A preparation that failed (say, it needed the connection the batch holds) leaves the
    batch alone; its value is computed once more when asked, raising if it still fails."""
    session = AgentSession.objects.create(owner=user, title="旧")
    calls = []
    failing = [True]

    def work():
        calls.append(connection.in_atomic_block)
        if failing[0]:
            raise ValueError("a slip in the preparation")
        return "computed"

    prepared = Prepared(work)
    results = _ending_batch(user, session, prepared)
    assert [result.rowcount for result in results] == [1, 1]  # committed
    session.refresh_from_db()
    assert session.title == "新"
    assert calls == ([True] if connection.vendor == "mysql" else [])  # during the batch
    with pytest.raises(ValueError, match="slip"):
        prepared.value()  # computed again, and its error is the caller's
    failing[0] = False
    assert prepared.value() == "computed"
    assert prepared.value() == "computed"  # computed once it succeeded, not again
    assert calls == ([True, False, False] if connection.vendor == "mysql" else [False, False])
    assert connection.get_autocommit()


@pytest.mark.django_db(transaction=True)
def test_a_query_sent_by_the_work_is_refused_and_the_batch_s_replies_stay_its_own(user):
    """Between the batch and its replies the connection refuses a query of the work's own
    (libmariadb would send it and read the batch's reply as its answer)."""
    if connection.vendor != "mysql":
        pytest.skip("MariaDB only: elsewhere the work is not run during the batch")
    session = AgentSession.objects.create(owner=user, title="旧")
    errors = []

    def work():
        try:
            AgentSession.objects.count()
        except Exception as error:
            errors.append(error)
            raise

    prepared = Prepared(work)
    results = _ending_batch(user, session, prepared)
    assert [result.rowcount for result in results] == [1, 1]
    assert len(errors) == 1
    assert isinstance(errors[0], ProgrammingError)
    assert errors[0].args[0] == 2014
    assert prepared.value() is None  # computed again, after the batch: the count is fine
    session.refresh_from_db()
    assert session.title == "新"
    assert AgentSession.objects.count() == 1
