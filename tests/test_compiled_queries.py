"""``lightnote.compiled_queries``: a query compiled once answers exactly what the ORM answers,
for each call's own values; a shape it cannot fill in is refused (the caller keeps the ORM)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from agent import sessions
from agent.models import AgentSession, Message
from lightnote.compiled_queries import STAND_IN_INTS, STAND_IN_UUIDS, CompiledSelect

pytestmark = pytest.mark.django_db


def _compile(build):
    return CompiledSelect.compile(
        build,
        alias="default",
        stand_ins=(STAND_IN_UUIDS[0], STAND_IN_INTS[0]),
        other_stand_ins=(STAND_IN_UUIDS[1], STAND_IN_INTS[1]),
    )


@pytest.fixture
def conversations():
    user_model = get_user_model()
    alice = user_model.objects.create_user("alice-cq", password="pw-alice-2026")
    bob = user_model.objects.create_user("bob-cq", password="pw-bob-2026")
    mine = AgentSession.objects.create(owner=alice, title="我的")
    theirs = AgentSession.objects.create(owner=bob)
    start = timezone.now()
    for index in range(5):
        Message.objects.create(
            session=mine,
            role="user" if index % 2 == 0 else "assistant",
            text=f"消息 {index}",
            created_at=start + timedelta(seconds=index),
            reads=[{"type": "todo", "id": index, "title": "开会"}] if index % 2 else None,
        )
    Message.objects.create(session=theirs, role="user", text="bob", created_at=start)
    return alice, bob, mine, theirs


def test_the_history_query_compiles_and_answers_as_the_orm(conversations):
    alice, bob, mine, theirs = conversations
    build = sessions._recent_query(3)
    compiled = _compile(build)
    assert compiled is not None  # on this pass's database (SQLite or MariaDB)
    for session, owner in ((mine, alice), (theirs, bob), (mine, bob), (theirs, alice)):
        expected = [tuple(row) for row in build(session.id, owner.pk)]
        assert [tuple(row) for row in compiled.rows(session.id, owner.pk)] == expected
    rows = compiled.rows(mine.id, alice.pk)
    assert [row[1] for row in rows] == ["消息 4", "消息 3", "消息 2"]  # newest first, limit 3
    assert rows[1][2] == [{"type": "todo", "id": 3, "title": "开会"}]  # JSON decoded
    assert compiled.rows(mine.id, bob.pk) == []  # someone else's conversation: nothing


def test_columns_read_from_the_first_row_only_are_converted_there_and_nowhere_else(
    conversations,
):
    alice, _, mine, _ = conversations
    build = sessions._recent_query(5)
    compiled = _compile(build)
    session_columns = sessions._RECENT_SESSION_POSITIONS
    width = len(sessions.RECENT_MESSAGE_COLUMNS)
    assert session_columns == frozenset(range(width, width + 5))
    converted = [tuple(row) for row in build(mine.id, alice.pk)]
    rows = compiled.rows(mine.id, alice.pk, first_row_only=session_columns)
    assert tuple(rows[0]) == converted[0]  # the first row whole, as the ORM gives it
    for row, expected in zip(rows[1:], converted[1:], strict=True):
        assert tuple(row[:width]) == expected[:width]  # every row's own columns converted
    # The session's id in later rows is as the database sent it: on MariaDB a UUID's hex
    # text, which the ORM would have converted (its times come as text on every row).
    assert isinstance(rows[0][width], uuid.UUID)
    if connection.vendor == "mysql":
        assert not isinstance(rows[1][width], uuid.UUID)
    # A single row is the first row: converted whole.
    [one] = _compile(sessions._recent_query(1)).rows(
        mine.id, alice.pk, first_row_only=session_columns
    )
    assert tuple(one) == converted[0]


def test_the_turn_reads_session_and_history_in_one_compiled_query(conversations):
    alice, _, mine, _ = conversations
    sessions.session_get_with_recent(session_id=mine.id, owner=alice, limit=20)  # compiled here
    with CaptureQueriesContext(connection) as queries:
        session, recent = sessions.session_get_with_recent(
            session_id=str(mine.id), owner=alice, limit=20
        )
    assert len(queries) == 1
    assert (session.id, session.title, session.owner_id) == (mine.id, "我的", alice.pk)
    assert [message.text for message in recent] == [f"消息 {i}" for i in range(4, -1, -1)]
    with pytest.raises(Exception) as refused:
        sessions.session_get_with_recent(session_id="not-a-uuid", owner=alice, limit=20)
    assert getattr(refused.value, "code", None) == "SESSION_NOT_FOUND"
    with pytest.raises(Exception) as unknown:
        sessions.session_get_with_recent(session_id=uuid.uuid4(), owner=alice, limit=20)
    assert getattr(unknown.value, "code", None) == "SESSION_NOT_FOUND"


@pytest.mark.parametrize(
    "times",
    [
        {},  # as created: microseconds, no pending question
        {
            "created_at": datetime(2026, 12, 5, 3, 0, 0, tzinfo=UTC),  # a whole second
            "updated_at": datetime(2026, 12, 5, 3, 0, 1, 5, tzinfo=UTC),
            "pending_until": datetime(2026, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
        },
        {"pending_until": datetime(2027, 1, 1, 0, 0, tzinfo=UTC)},
    ],
)
def test_the_turn_s_session_is_the_one_the_orm_reads(conversations, times):
    """The history query reads the session's times as text and parses the first row's:
    the session it gives is the ORM's, field for field, on both databases."""
    alice, _, mine, _ = conversations
    if times:
        AgentSession.objects.filter(id=mine.id).update(**times)
    found, recent = sessions.session_get_with_recent(session_id=mine.id, owner=alice, limit=3)
    expected = AgentSession.objects.get(id=mine.id)
    names = [field.attname for field in AgentSession._meta.concrete_fields]
    assert [getattr(found, name) for name in names] == [getattr(expected, name) for name in names]
    for name, value in times.items():
        assert getattr(found, name) == value
        assert getattr(found, name).utcoffset() == timedelta(0)
    assert len(recent) == 3


def test_a_value_that_does_not_reach_the_sql_as_a_parameter_is_refused(conversations):
    # The owner id reaches the SQL only through a transformation: nothing to fill in.
    def build(session_id, owner_id):
        return Message.objects.filter(session_id=session_id, text=f"x{owner_id}").values_list("id")

    assert _compile(build) is None

    def ignores_owner(session_id, owner_id):
        return Message.objects.filter(session_id=session_id).values_list("id")

    assert _compile(ignores_owner) is None


def test_a_value_of_another_type_than_its_stand_in_is_an_error(conversations):
    compiled = _compile(sessions._recent_query(3))
    assert compiled is not None
    with pytest.raises(TypeError):
        compiled.rows("not a uuid object", 1)
