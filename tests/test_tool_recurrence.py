"""The todo tools with ``remind_at`` and ``recurrence``: a proposal with them gets a card with
the reminder, the rule in words and the next occurrences (both languages), is refused before
any card when the rule is outside the subset, and executes through the same service."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from agent.policy import enforce_tool_policy
from agent.tools import ToolContext, registry, schema_violations
from lightnote.errors import LightNoteError
from todos.models import Todo
from todos.services import todo_create

pytestmark = pytest.mark.django_db

SHANGHAI = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 12, 2, 14, 0, tzinfo=SHANGHAI)  # a Wednesday
SESSION = "8d4c8a9e-0000-4000-8000-000000000002"


def context_for(user: Any, **changes: Any) -> ToolContext:
    context = ToolContext(
        actor=user, subject=user, session_id=SESSION, locale="zh-CN", now=NOW, zone=SHANGHAI
    )
    return dataclasses.replace(context, **changes)


def prepare(tool_name: str, args: dict[str, Any], context: ToolContext) -> Any:
    return enforce_tool_policy(tool_name=tool_name, args=args, context=context, phase="prepare")


def run_confirmed(tool_name: str, prepared: dict[str, Any], context: ToolContext) -> Any:
    policy = enforce_tool_policy(
        tool_name=tool_name, args=prepared, context=context, phase="execute", confirmed=True
    )
    return policy.tool.execute(policy.args, context)


def rows(preview: dict[str, Any]) -> dict[str, str]:
    return {row["key"]: row["value"] for row in preview["details"]}


def test_remind_me_to_call_mom_tomorrow_at_10_gets_a_card_with_due_and_reminder(
    user: Any,
) -> None:
    result = prepare(
        "create_todo",
        {"title": "给妈妈打电话", "due_at": "明天上午10点", "reminder": "明天上午10点"},
        context_for(user),
    )
    assert result.args["due_at"] == "2026-12-03T10:00:00+08:00"
    assert result.args["remind_at"] == "2026-12-03T10:00:00+08:00"
    assert rows(result.preview)["remind_at"] == "2026-12-03 10:00 (Asia/Shanghai)"
    assert "到 2026-12-03 10:00 (Asia/Shanghai) 会提醒你。" in result.preview["impact"]
    english = prepare(
        "create_todo",
        {"title": "Call mom", "due_at": "tomorrow 10am", "remind_at": "tomorrow 10am"},
        context_for(user, locale="en"),
    )
    assert english.args["remind_at"] == "2026-12-03T10:00:00+08:00"
    assert english.preview["impact"].endswith(
        " You will be reminded at 2026-12-03 10:00 (Asia/Shanghai)."
    )
    labels = {row["key"]: row["label"] for row in english.preview["details"]}
    assert labels["remind_at"] == "Reminder"


# (what was said, the rule, the first due time, zh words, en words, the next three in zh)
SERIES = [
    (
        "每周一早上9点开周会",
        "FREQ=WEEKLY;BYDAY=MO",
        "下周一上午9点",
        "每周一",
        "every Monday",
        "2026-12-07 (周一) 09:00、2026-12-14 (周一) 09:00、2026-12-21 (周一) 09:00",
    ),
    (
        "water the plants every other day",
        "FREQ=DAILY;INTERVAL=2",
        "tomorrow 8am",
        "每 2 天",
        "every 2 days",
        "2026-12-03 (周四) 08:00、2026-12-05 (周六) 08:00、2026-12-07 (周一) 08:00",
    ),
    (
        "每月最后一天交房租",
        "FREQ=MONTHLY;BYMONTHDAY=-1",
        "2026-12-31 09:00",
        "每月最后一天",
        "every month on the last day",
        "2026-12-31 (周四) 09:00、2027-01-31 (周日) 09:00、2027-02-28 (周日) 09:00",
    ),
]


@pytest.mark.parametrize(("title", "rule", "due", "chinese", "english", "upcoming"), SERIES)
def test_a_repeating_proposal_gets_the_rule_in_words_and_the_next_occurrences(
    user: Any, title: str, rule: str, due: str, chinese: str, english: str, upcoming: str
) -> None:
    result = prepare(
        "create_todo", {"title": title, "due_at": due, "rrule": rule}, context_for(user)
    )
    assert result.args["recurrence"] == rule
    assert schema_violations(registry.get("create_todo").prepared_schema, result.args) == {}
    shown = rows(result.preview)
    assert shown["recurrence"] == chinese
    assert shown["next_occurrences"] == upcoming
    assert f"完成后会按“{chinese}”生成下一次。" in result.preview["impact"]
    in_english = prepare(
        "create_todo",
        {"title": title, "due_at": due, "recurrence": rule},
        context_for(user, locale="en"),
    )
    assert rows(in_english.preview)["recurrence"] == english
    assert rows(in_english.preview)["next_occurrences"].count(", ") == 2


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"due_at": "明天上午9点", "recurrence": "FREQ=HOURLY"}, "TODO_RECURRENCE_UNSUPPORTED"),
        (
            {"due_at": "明天上午9点", "recurrence": "every third full moon"},
            "TODO_RECURRENCE_UNSUPPORTED",
        ),
        ({"due_at": "明天上午9点", "remind_at": "以后"}, "TODO_REMIND_AT_INVALID"),
    ],
)
def test_a_rule_or_reminder_the_service_refuses_is_refused_before_any_card(
    user: Any, args: dict[str, Any], code: str
) -> None:
    with pytest.raises(LightNoteError) as caught:
        prepare("create_todo", {"title": "看月亮", **args}, context_for(user))
    assert caught.value.code == code


@pytest.mark.parametrize(
    ("rule", "due", "first"),
    [
        # said with no time: from the end of today (a Wednesday)
        ("FREQ=DAILY", None, "2026-12-02T23:59:00+08:00"),
        ("FREQ=MONTHLY;BYMONTHDAY=-1", None, "2026-12-31T23:59:00+08:00"),
        # said with a time that is no occurrence: the first occurrence from it
        ("FREQ=WEEKLY;BYDAY=MO", "明天上午9点", "2026-12-07T09:00:00+08:00"),
    ],
)
def test_a_new_series_is_due_at_its_first_occurrence_with_its_reminder(
    user: Any, rule: str, due: str | None, first: str
) -> None:
    args = {"title": "开周会", "recurrence": rule}
    if due:
        args.update(due_at=due, remind_at=due)
    prepared = prepare("create_todo", args, context_for(user))
    assert prepared.args["due_at"] == first
    if due:
        assert prepared.args["remind_at"] == first  # moved with the due time


def test_a_confirmed_repeating_card_creates_the_series_through_the_service(user: Any) -> None:
    context = context_for(user)
    prepared = prepare(
        "create_todo",
        {
            "title": "开周会",
            "due_at": "下周一上午9点",
            "remind_at": "下周一上午8点50分",
            "recurrence": "FREQ=WEEKLY;BYDAY=MO",
        },
        context,
    ).args
    run_confirmed("create_todo", prepared, context)
    todo = Todo.objects.get()
    assert todo.recurrence == "FREQ=WEEKLY;BYDAY=MO"
    assert todo.remind_at.astimezone(SHANGHAI).strftime("%H:%M") == "08:50"
    assert todo.series_id is not None


def test_stop_repeating_is_an_update_card_that_clears_the_rule_and_undoes(user: Any) -> None:
    due = datetime(2026, 12, 7, 9, 0, tzinfo=SHANGHAI)
    todo = todo_create(owner=user, title="开周会", due_at=due, recurrence="FREQ=WEEKLY;BYDAY=MO")
    context = context_for(user)
    result = prepare("update_todo", {"todo_title": "开周会", "recurrence": None}, context)
    assert result.args["recurrence"] is None
    assert result.args["current"]["recurrence"] == "FREQ=WEEKLY;BYDAY=MO"
    change = next(row for row in result.preview["details"] if row["key"] == "recurrence")
    assert change["value"] == "每周一 → 未设置"
    assert schema_violations(registry.get("update_todo").prepared_schema, result.args) == {}
    outcome = run_confirmed("update_todo", result.args, context)
    todo.refresh_from_db()
    assert todo.recurrence is None
    tool = registry.get("update_todo")
    undo = tool.compensation(result.args, outcome.data)
    assert undo.args["recurrence"] == "FREQ=WEEKLY;BYDAY=MO"


def test_a_new_rule_on_an_update_card_shows_its_next_occurrences(user: Any) -> None:
    due = datetime(2026, 12, 7, 9, 0, tzinfo=SHANGHAI)
    todo_create(owner=user, title="开周会", due_at=due)
    result = prepare(
        "update_todo",
        {"todo_title": "开周会", "recurrence": "FREQ=WEEKLY;BYDAY=MO"},
        context_for(user, locale="en"),
    )
    shown = rows(result.preview)
    assert shown["recurrence"] == "Not set → every Monday"
    assert shown["next_occurrences"] == (
        "2026-12-07 (Mon) 09:00, 2026-12-14 (Mon) 09:00, 2026-12-21 (Mon) 09:00"
    )
    with pytest.raises(LightNoteError) as caught:
        prepare(
            "update_todo",
            {"todo_title": "开周会", "recurrence": "FREQ=WEEKLY;BYDAY=MO", "due_at": None},
            context_for(user),
        )
    assert caught.value.code == "TODO_RECURRENCE_NEEDS_DUE_AT"
