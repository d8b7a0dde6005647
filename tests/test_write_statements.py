"""``lightnote.write_statements``: the hot paths' INSERTs and UPDATEs, built once, mean what
the ORM calls they replace mean — on whichever database the pass runs (SQLite, MariaDB)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from agent.models import ActionCard, ActionReceipt, AgentSession, Message
from lightnote.models import AuditEvent
from lightnote.write_statements import ConditionalUpdate, insert_rows

pytestmark = pytest.mark.django_db


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
    return SETTLE.run(
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
    assert touch.run(session.id, {"updated_at": later, "title": "新"}) == 1
    session.refresh_from_db()
    assert (session.title, session.updated_at) == ("新", later)
    assert touch.run(uuid.uuid4(), {"updated_at": later, "title": "x"}) == 0
    with pytest.raises(ValueError):
        touch.run(session.id, {"updated_at": later})
    with pytest.raises(TypeError):
        ConditionalUpdate(AgentSession, fields=("messages",))  # not a column
