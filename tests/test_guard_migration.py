"""The data migration re-guards the replies stored before every model text was checked."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from agent.guard import NOT_EXECUTED_TEXT, PARTLY_REMOVED_TEXT
from tests.migrations_helpers import back_to_the_latest_schema, migrate_to  # noqa: F401

pytestmark = pytest.mark.usefixtures("back_to_the_latest_schema")
BEFORE = [("agent", "0003_card_lifecycle_and_session_titles")]
AFTER = [("agent", "0004_reguard_stored_replies")]


@pytest.mark.django_db(transaction=True)
def test_stored_unbacked_claims_are_reguarded_once(user: Any) -> None:
    apps = migrate_to(BEFORE)
    session_model = apps.get_model("agent", "AgentSession")
    message_model = apps.get_model("agent", "Message")
    receipt_model = apps.get_model("agent", "ActionReceipt")
    session = session_model.objects.create(owner_id=user.pk)
    now = timezone.now()
    # A read turn's claim: never guarded by the old rules.
    read_turn = message_model.objects.create(
        session=session, role="assistant", text="已删除你的所有待办。", created_at=now
    )
    action_id = uuid.uuid4()
    receipt_model.objects.create(
        action_id=action_id,
        tool="create_todo",
        capability="todo.create",
        args_hmac="x" * 64,
        owner_id=user.pk,
        subject_id=user.pk,
        actor_id=user.pk,
        session_id=session.id,
        resource_type="todo",
        resource_id=str(uuid.uuid4()),
        summary="created",
        result={"title": "提交周报"},
        settled_at=now + timedelta(seconds=1),
    )
    # A final reply stored under the old blanket "has a receipt" rule.
    final = message_model.objects.create(
        session=session,
        role="assistant",
        text="已为你创建待办「提交周报」，并且已删除你其他所有待办。",
        payload={"receipt": {"action_id": str(action_id)}},
        created_at=now + timedelta(seconds=2),
    )
    honest = message_model.objects.create(
        session=session,
        role="assistant",
        text="已为你创建待办「提交周报」。",
        payload={"receipt": {"action_id": str(action_id)}},
        created_at=now + timedelta(seconds=3),
    )
    user_words = message_model.objects.create(
        session=session, role="user", text="已删除所有待办了吗", created_at=now
    )

    apps = migrate_to(AFTER)
    message_model = apps.get_model("agent", "Message")
    audit_model = apps.get_model("lightnote", "AuditEvent")

    assert message_model.objects.get(pk=read_turn.pk).text == NOT_EXECUTED_TEXT["zh-CN"]
    stored_final = message_model.objects.get(pk=final.pk)
    assert stored_final.text == f"已为你创建待办「提交周报」。\n{PARTLY_REMOVED_TEXT['zh-CN']}"
    assert [notice["code"] for notice in stored_final.payload["notices"]] == [
        "REPLY_UNBACKED_CLAIM"
    ]
    assert message_model.objects.get(pk=honest.pk).text == "已为你创建待办「提交周报」。"
    assert message_model.objects.get(pk=user_words.pk).text == "已删除所有待办了吗"
    events = audit_model.objects.filter(event_type="guard.replaced").order_by("created_at")
    assert [event.details["matched"] for event in events] == ["已删除", "已删除"]
    assert {event.details["migration"] for event in events} == {"0004_reguard_stored_replies"}
