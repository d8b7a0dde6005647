"""The migration that moves each assistant message's ``reads`` into a column of its own."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from tests.migrations_helpers import back_to_the_latest_schema, migrate_to  # noqa: F401

pytestmark = pytest.mark.usefixtures("back_to_the_latest_schema")
BEFORE = [("agent", "0009_session_pending_until")]
AFTER = [("agent", "0010_message_reads")]
READS = [{"type": "note", "id": "n1", "title": "周会记录"}]


@pytest.mark.django_db(transaction=True)
def test_reads_move_to_their_column_and_back(user: Any) -> None:
    apps = migrate_to(BEFORE)
    session = apps.get_model("agent", "AgentSession").objects.create(owner_id=user.pk)
    message = apps.get_model("agent", "Message")
    now = timezone.now()
    read_turn = message.objects.create(
        session=session,
        role="assistant",
        text="找到了。",
        created_at=now,
        payload={"reads": READS, "facts": [{"tool": "search_notes"}], "cards": []},
    )
    no_reads = message.objects.create(
        session=session, role="assistant", text="好的。", created_at=now, payload={"facts": []}
    )
    question = message.objects.create(
        session=session, role="user", text="搜一下周会", created_at=now, payload={}
    )

    apps = migrate_to(AFTER)
    message = apps.get_model("agent", "Message")
    moved = message.objects.get(pk=read_turn.pk)
    assert moved.reads == READS
    assert moved.payload == {"facts": [{"tool": "search_notes"}], "cards": []}
    assert message.objects.get(pk=no_reads.pk).reads is None
    assert message.objects.get(pk=no_reads.pk).payload == {"facts": []}
    assert message.objects.get(pk=question.pk).reads is None

    apps = migrate_to(BEFORE)
    message = apps.get_model("agent", "Message")
    assert message.objects.get(pk=read_turn.pk).payload == {
        "reads": READS,
        "facts": [{"tool": "search_notes"}],
        "cards": [],
    }
    assert message.objects.get(pk=no_reads.pk).payload == {"facts": []}


@pytest.mark.django_db
def test_a_turn_stores_its_reads_in_the_column_and_the_next_turn_sees_them(
    user: Any, client_for: Any
) -> None:
    from agent.conversation import sessions
    from agent.models import Message
    from notes import services as note_services
    from tests.test_conversation_api import new_session, say

    note_services.note_create(owner=user, title="周会记录", content="讨论计划")
    api = client_for(user)
    session_id = new_session(api)
    say(api, session_id, "搜索笔记 周会")
    stored = Message.objects.get(session_id=session_id, role=Message.Role.ASSISTANT)
    assert [item["title"] for item in stored.reads] == ["周会记录"]
    assert "reads" not in stored.payload
    _, recent = sessions.session_get_with_recent(session_id=session_id, owner=user, limit=20)
    assert [item["title"] for item in recent[0].reads] == ["周会记录"]
