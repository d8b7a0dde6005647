"""Preparation: concrete times, resolution, versions and no-ops (article section 17,
"业务执行测试" before execution, plus the due-time table through a real ``prepare``)."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from agent.policy import enforce_tool_policy
from agent.tools import ToolContext, registry, schema_violations
from lightnote.errors import LightNoteError
from notes.agent_tools import stable_note_id
from notes.models import Note
from notes.services import note_create
from todos.models import Todo
from todos.services import todo_create, todo_set_status

pytestmark = pytest.mark.django_db

SHANGHAI = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 12, 2, 14, 0, tzinfo=SHANGHAI)  # a Wednesday, as in due-times.tsv
SESSION = "8d4c8a9e-0000-4000-8000-000000000001"
DUE_TIMES = [  # shared/data/due-times.tsv, verbatim (now = NOW, zone = Asia/Shanghai)
    ("今晚9点", "2026-12-02T21:00:00+08:00"),
    ("今晚 9 点", "2026-12-02T21:00:00+08:00"),
    ("今天晚上九点", "2026-12-02T21:00:00+08:00"),
    ("明天下午3点", "2026-12-03T15:00:00+08:00"),
    ("明天下午三点", "2026-12-03T15:00:00+08:00"),
    ("后天早上8点半", "2026-12-04T08:30:00+08:00"),
    ("下周一上午10点", "2026-12-07T10:00:00+08:00"),
    ("12月25日上午9点", "2026-12-25T09:00:00+08:00"),
    ("今天23:30", "2026-12-02T23:30:00+08:00"),
    ("两小时后", "2026-12-02T16:00:00+08:00"),
    ("半小时后", "2026-12-02T14:30:00+08:00"),
    ("明天", "2026-12-03T23:59:00+08:00"),
    ("下周五", "2026-12-11T23:59:00+08:00"),
    ("3天后", "2026-12-05T23:59:00+08:00"),
    ("下个月1号", "2027-01-01T23:59:00+08:00"),
    ("昨天下午3点", "2026-12-01T15:00:00+08:00"),
    ("今晚", "TODO_DUE_AT_INVALID"),
    ("下午", "TODO_DUE_AT_INVALID"),
    ("以后", "TODO_DUE_AT_INVALID"),
    ("tonight at 9pm", "2026-12-02T21:00:00+08:00"),
    ("9pm tonight", "2026-12-02T21:00:00+08:00"),
    ("tomorrow 5pm", "2026-12-03T17:00:00+08:00"),
    ("tomorrow at 17:30", "2026-12-03T17:30:00+08:00"),
    ("next Monday 10am", "2026-12-07T10:00:00+08:00"),
    ("in 2 hours", "2026-12-02T16:00:00+08:00"),
    ("tomorrow", "2026-12-03T23:59:00+08:00"),
    ("soon", "TODO_DUE_AT_INVALID"),
    ("asap", "TODO_DUE_AT_INVALID"),
    ("2026-12-03 21:00", "2026-12-03T21:00:00+08:00"),
    ("2026-12-03T21:00:00", "2026-12-03T21:00:00+08:00"),
    ("2026-12-03T21:00:00+08:00", "2026-12-03T21:00:00+08:00"),
    ("2026-12-03", "2026-12-03T23:59:00+08:00"),
    ("2025-06-01 10:00", "TODO_DUE_AT_SUSPICIOUS"),
    ("2037-01-01 10:00", "TODO_DUE_AT_SUSPICIOUS"),
    ("2099-01-01", "TODO_DUE_AT_SUSPICIOUS"),
    ("not a time at all", "TODO_DUE_AT_INVALID"),
]


def context_for(user: Any, **changes: Any) -> ToolContext:
    context = ToolContext(
        actor=user, subject=user, session_id=SESSION, locale="zh-CN", now=NOW, zone=SHANGHAI
    )
    return dataclasses.replace(context, **changes)


def prepare(tool_name: str, args: dict[str, Any], context: ToolContext) -> Any:
    return enforce_tool_policy(tool_name=tool_name, args=args, context=context, phase="prepare")


def refusal(call: Any) -> LightNoteError:
    with pytest.raises(LightNoteError) as caught:
        call()
    return caught.value


# --- the article's business-execution tests (the ones before execution) --------------------


def test_card_shows_the_concrete_time_from_prepare(user: Any) -> None:
    result = prepare(
        "create_todo", {"title": "提交周报", "dueAt": "今晚 9 点", "priority": 2}, context_for(user)
    )
    assert result.args == {
        "title": "提交周报",
        "description": "",
        "priority": 2,
        "due_at": "2026-12-02T21:00:00+08:00",
        "due_at_said": "今晚 9 点",
    }
    assert (
        result.preview["impact"]
        == "确认后将创建一条截止于 2026-12-02 21:00 (Asia/Shanghai) 的待办。"
    )
    due = next(row for row in result.preview["details"] if row["key"] == "due_at")
    assert due["value"] == "2026-12-02 21:00 (Asia/Shanghai)"


@pytest.mark.parametrize(
    ("due_at", "shown"),
    [
        ("3026-12-02 21:00", "3026-12-02 21:00"),
        ("2099-01-01", "2099-01-01 23:59"),
        ("2025-06-01 10:00", "2025-06-01 10:00"),
    ],
)
def test_implausible_year_is_rejected_before_any_card(
    monkeypatch: pytest.MonkeyPatch, user: Any, due_at: str, shown: str
) -> None:
    previews: list[Any] = []
    tool = registry.get("create_todo")
    monkeypatch.setattr(tool, "preview", lambda *args: previews.append(args))
    error = refusal(
        lambda: prepare("create_todo", {"title": "提交周报", "due_at": due_at}, context_for(user))
    )
    assert (error.code, error.status) == ("TODO_DUE_AT_SUSPICIOUS", 400)
    assert shown in error.message("zh-CN")
    assert shown in error.message("en")
    assert previews == []  # no card was even built
    assert Todo.objects.count() == 0


@pytest.mark.parametrize("due_at", ["今晚", "下午", "以后", "soon", "not a time at all", ""])
def test_vague_time_is_refused_with_a_request_for_a_concrete_time(user: Any, due_at: str) -> None:
    args = {"title": "提交周报", "due_at": due_at}
    if due_at == "":  # an empty optional value means "no due time", not a vague one
        assert prepare("create_todo", args, context_for(user)).args["due_at"] is None
        return
    error = refusal(lambda: prepare("create_todo", args, context_for(user)))
    assert (error.code, error.status) == ("TODO_DUE_AT_INVALID", 400)
    assert "具体的日期和时间" in error.message("zh-CN")
    assert "concrete date and time" in error.message("en")


@pytest.mark.parametrize(("text", "expected"), DUE_TIMES)
def test_due_time_table_through_prepare(user: Any, text: str, expected: str) -> None:
    """Every row of the shared due-times table, as the card's prepared args."""
    args = {"title": "提交周报", "due_at": text}
    if expected.startswith("TODO_"):
        assert refusal(lambda: prepare("create_todo", args, context_for(user))).code == expected
    else:
        assert prepare("create_todo", args, context_for(user)).args["due_at"] == expected


@pytest.mark.parametrize(
    ("zone", "text", "expected"),
    [
        ("America/New_York", "tomorrow 5pm", "2026-12-03T17:00:00-05:00"),
        ("America/New_York", "2026-12-03T13:00:00Z", "2026-12-03T08:00:00-05:00"),
        ("Asia/Shanghai", "2026-12-03T13:00:00Z", "2026-12-03T21:00:00+08:00"),
        ("Europe/Berlin", "2026-12-03 09:00", "2026-12-03T09:00:00+01:00"),
    ],
)
def test_due_time_is_prepared_in_the_users_zone(
    make_user: Any, zone: str, text: str, expected: str
) -> None:
    person = make_user("zoe", time_zone=zone)
    context = context_for(person, zone=ZoneInfo(zone), now=NOW.astimezone(ZoneInfo(zone)))
    result = prepare("create_todo", {"title": "x", "due_at": text}, context)
    assert result.args["due_at"] == expected


def test_context_from_actor_context_uses_the_subjects_zone(make_user: Any) -> None:
    from lightnote.impersonation.context import ActorContext

    person = make_user("zoe", time_zone="America/New_York")
    context = ToolContext.from_actor_context(
        ActorContext(actor=person, subject=person), session_id=None, locale="en-US", now=NOW
    )
    assert context.zone == ZoneInfo("America/New_York")
    assert context.locale == "en"
    assert context.session_id is None
    assert context.admin_context_id is None


# --- titles and values reuse the service rules ----------------------------------------------


def test_title_is_trimmed_by_the_service_rule_and_defaults_are_filled(user: Any) -> None:
    result = prepare("create_todo", {"title": "  提交   周报 "}, context_for(user))
    assert result.args == {"title": "提交 周报", "description": "", "priority": 1, "due_at": None}


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"title": "   "}, "TODO_TITLE_REQUIRED"),
        ({"title": "x" * 201}, "TODO_TITLE_TOO_LONG"),
        ({"title": "x", "description": "d" * 2001}, "TODO_DESCRIPTION_TOO_LONG"),
    ],
)
def test_service_field_rules_refuse_before_any_card(
    user: Any, args: dict[str, Any], code: str
) -> None:
    assert refusal(lambda: prepare("create_todo", args, context_for(user))).code == code


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"title": " "}, "NOTE_TITLE_REQUIRED"),
        ({"title": "x", "tags": ["t"] * 0 + [f"t{i}" for i in range(21)]}, "NOTE_TAGS_INVALID"),
        ({"title": "x", "tags": ["a" * 51]}, "NOTE_TAGS_INVALID"),
    ],
)
def test_note_field_rules_refuse_before_any_card(
    user: Any, args: dict[str, Any], code: str
) -> None:
    assert refusal(lambda: prepare("create_note", args, context_for(user))).code == code


# --- resolution by id or exact title --------------------------------------------------------


@pytest.mark.parametrize("tool_name", ["set_todo_status", "update_todo", "delete_todo"])
def test_todo_title_resolution_none_one_several(user: Any, tool_name: str) -> None:
    extra = {"set_todo_status": {"status": "done"}, "update_todo": {"priority": 2}}.get(
        tool_name, {}
    )
    context = context_for(user)
    error = refusal(lambda: prepare(tool_name, {"todo_title": "提交周报", **extra}, context))
    assert (error.code, error.status) == ("TODO_NOT_FOUND", 404)

    first = todo_create(owner=user, title="提交周报")
    result = prepare(tool_name, {"todo_title": " 提交周报 ", **extra}, context)
    assert result.args["todo_id"] == str(first.id)
    assert result.args["expected_version"] == 1

    second = todo_create(owner=user, title="提交周报", priority=2)
    error = refusal(lambda: prepare(tool_name, {"todo_title": "提交周报", **extra}, context))
    assert (error.code, error.status) == ("TODO_TITLE_AMBIGUOUS", 409)
    assert sorted(item["id"] for item in error.extra["candidates"]) == sorted(
        [str(first.id), str(second.id)]
    )
    assert {item["title"] for item in error.extra["candidates"]} == {"提交周报"}
    assert set(error.extra["candidates"][0]) >= {"id", "title", "status", "due_at"}
    assert "2" in error.message("zh-CN")
    json.dumps(error.extra)  # the candidates travel in a response body


def test_todos_of_another_user_are_never_resolved(user: Any, other_user: Any) -> None:
    theirs = todo_create(owner=other_user, title="提交周报")
    context = context_for(user)
    for args in (
        {"todo_title": "提交周报", "status": "done"},
        {"todo_id": str(theirs.id), "status": "done"},
        {"todo_id": "not-a-uuid", "status": "done"},
    ):
        error = refusal(lambda args=args: prepare("set_todo_status", args, context))
        assert (error.code, error.status) == ("TODO_NOT_FOUND", 404)
    assert Todo.objects.get().status == "open"


def test_note_title_resolution_none_one_several(user: Any, other_user: Any) -> None:
    context = context_for(user)
    note_create(owner=other_user, title="读书笔记")
    args = {"note_title": "读书笔记", "content": "新内容"}
    assert refusal(lambda: prepare("update_note", args, context)).code == "NOTE_NOT_FOUND"
    first = note_create(owner=user, title="读书笔记", content="旧内容")
    assert prepare("update_note", args, context).args["note_id"] == str(first.id)
    note_create(owner=user, title="读书笔记")
    error = refusal(lambda: prepare("update_note", args, context))
    assert (error.code, error.status) == ("NOTE_TITLE_AMBIGUOUS", 409)
    assert len(error.extra["candidates"]) == 2


# --- versions and no-ops ----------------------------------------------------------------------


def test_prepare_captures_the_current_version(user: Any) -> None:
    todo = todo_create(owner=user, title="提交周报")
    todo_set_status(owner=user, todo_id=todo.id, status="done")
    todo_set_status(owner=user, todo_id=todo.id, status="open")
    result = prepare(
        "set_todo_status", {"todoId": str(todo.id), "status": "完成"}, context_for(user)
    )
    assert result.args == {
        "todo_id": str(todo.id),
        "status": "done",
        "expected_version": 3,
        "current": {"title": "提交周报", "status": "open"},
    }


def test_no_op_status_change_is_refused(user: Any) -> None:
    todo = todo_create(owner=user, title="提交周报")
    error = refusal(
        lambda: prepare(
            "set_todo_status", {"todo_id": str(todo.id), "status": "open"}, context_for(user)
        )
    )
    assert (error.code, error.status) == ("TODO_STATUS_NOOP", 409)
    assert "提交周报" in error.message("zh-CN")


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"title": "提交周报"},
        {"title": " 提交周报 ", "priority": 1},
        {"due_at": "2026-12-02T13:00:00Z"},  # the same instant as the current 21:00 +08:00
    ],
)
def test_update_without_a_real_change_is_refused(user: Any, changes: dict[str, Any]) -> None:
    due = datetime(2026, 12, 2, 21, 0, tzinfo=SHANGHAI)
    todo = todo_create(owner=user, title="提交周报", due_at=due)
    args = {"todo_id": str(todo.id), **changes}
    error = refusal(lambda: prepare("update_todo", args, context_for(user)))
    assert (error.code, error.status) == ("TODO_UPDATE_NOOP", 400)


def test_update_keeps_only_changed_fields_and_the_current_values(user: Any) -> None:
    todo = todo_create(owner=user, title="提交周报", description="周五前")
    result = prepare(
        "update_todo",
        {"todo_id": str(todo.id), "title": "提交周报", "importance": "紧急", "deadline": "明天"},
        context_for(user),
    )
    assert result.args == {
        "todo_id": str(todo.id),
        "expected_version": 1,
        "priority": 2,
        "due_at": "2026-12-03T23:59:00+08:00",
        "due_at_said": "明天",
        "current": {
            "title": "提交周报",
            "description": "周五前",
            "priority": 1,
            "due_at": None,
            "status": "open",
        },
    }


def test_update_with_due_at_null_clears_the_due_time(user: Any) -> None:
    todo = todo_create(owner=user, title="x", due_at=datetime(2026, 12, 9, 9, 0, tzinfo=SHANGHAI))
    result = prepare("update_todo", {"todo_id": str(todo.id), "due_at": None}, context_for(user))
    assert result.args["due_at"] is None
    assert result.args["current"]["due_at"] == "2026-12-09T09:00:00+08:00"


def test_update_note_without_a_change_is_refused(user: Any) -> None:
    note = note_create(owner=user, title="读书笔记", content="第一章", tags=["书"])
    args = {"note_id": str(note.id), "content": "第一章", "tags": "书"}
    error = refusal(lambda: prepare("update_note", args, context_for(user)))
    assert (error.code, error.status) == ("NOTE_UPDATE_NOOP", 400)


# --- the stable note id -----------------------------------------------------------------------


def test_same_note_payload_in_one_session_gets_the_same_note_id(user: Any, other_user: Any) -> None:
    args = {"title": "读书笔记", "content": "第一章"}
    first = prepare("create_note", args, context_for(user)).args["note_id"]
    again = prepare(
        "create_note", {"noteTitle": " 读书笔记 ", "body": "第一章\n"}, context_for(user)
    )
    assert again.args["note_id"] == first
    other_session = prepare("create_note", args, context_for(user, session_id="another")).args
    assert other_session["note_id"] != first
    other_content = prepare("create_note", {**args, "content": "第二章"}, context_for(user)).args
    assert other_content["note_id"] != first
    other_owner = prepare("create_note", args, context_for(other_user)).args
    assert other_owner["note_id"] != first
    assert first == stable_note_id(
        subject_id=user.pk, session_id=SESSION, title="读书笔记", content="第一章"
    )


# --- the shape of prepared args ----------------------------------------------------------------


def test_prepared_args_are_json_safe_and_match_their_prepared_schema(user: Any) -> None:
    todo = todo_create(owner=user, title="提交周报", due_at=NOW)
    note = note_create(owner=user, title="读书笔记", content="第一章")
    context = context_for(user)
    calls = {
        "create_todo": {"title": "提交周报", "due_at": "明天下午三点", "priority": "low"},
        "set_todo_status": {"todo_id": str(todo.id), "status": "done"},
        "update_todo": {"todo_id": str(todo.id), "description": "写完"},
        "delete_todo": {"todo_id": str(todo.id)},
        "create_note": {"title": "新笔记", "tags": ["a", "b"]},
        "update_note": {"note_id": str(note.id), "title": "新标题"},
    }
    assert set(calls) == {tool.name for tool in registry.tools() if tool.is_write}
    for tool_name, args in calls.items():
        prepared = prepare(tool_name, args, context).args
        assert json.loads(json.dumps(prepared)) == prepared
        assert schema_violations(registry.get(tool_name).prepared_schema, prepared) == {}
    assert Todo.objects.count() == 1
    assert Note.objects.count() == 1


# --- an added line, a priority step, a title's letter case -----------------------------------


def test_update_note_append_adds_a_line_to_the_content_read_now(user: Any) -> None:
    note = note_create(owner=user, title="Trip ideas", content="Kyoto, Lisbon\n")
    result = prepare(
        "update_note", {"note_title": "Trip ideas", "append": " Porto "}, context_for(user)
    )
    assert result.args["content"] == "Kyoto, Lisbon\nPorto"
    assert result.args["expected_version"] == note.version  # a concurrent edit fails the card
    assert "append" not in result.args
    empty = note_create(owner=user, title="Empty", content="")
    first = prepare("update_note", {"note_id": str(empty.id), "append": "one"}, context_for(user))
    assert first.args["content"] == "one"


def test_update_note_add_tags_adds_to_the_tags_read_now(user: Any) -> None:
    note = note_create(owner=user, title="Recipes", tags=["food"])
    args = {"note_title": "Recipes", "add_tags": ["breakfast", "food", " quick "]}
    result = prepare("update_note", args, context_for(user))
    assert result.args["tags"] == ["food", "breakfast", "quick"]  # kept, added, no repeat
    assert result.args["expected_version"] == note.version
    assert "add_tags" not in result.args
    same = {"note_title": "Recipes", "add_tags": ["food"]}
    assert refusal(lambda: prepare("update_note", same, context_for(user))).code == (
        "NOTE_UPDATE_NOOP"
    )
    both = {"note_title": "Recipes", "tags": ["a"], "add_tags": ["b"]}
    error = refusal(lambda: prepare("update_note", both, context_for(user)))
    assert (error.code, error.status) == ("TOOL_ARGS_INVALID", 400)
    empty = {"note_title": "Recipes", "add_tags": []}
    assert refusal(lambda: prepare("update_note", empty, context_for(user))).status == 400


@pytest.mark.parametrize(
    ("title", "said"),
    [
        ("周会", "周会笔记"),
        ("读书笔记", "读书"),
        ("Standup", "Standup note"),
        ("Standup", "standup Note"),
    ],
)
def test_a_note_named_with_or_without_its_kind_word_is_found(
    user: Any, other_user: Any, title: str, said: str
) -> None:
    args = {"note_title": said, "content": "新内容"}
    note_create(owner=other_user, title=title)
    assert refusal(lambda: prepare("update_note", args, context_for(user))).code == (
        "NOTE_NOT_FOUND"
    )  # never another user's
    note = note_create(owner=user, title=title)
    assert prepare("update_note", args, context_for(user)).args["note_id"] == str(note.id)


def test_a_note_titled_exactly_as_said_wins_over_the_kind_word_reading(user: Any) -> None:
    note_create(owner=user, title="周会")
    exact = note_create(owner=user, title="周会笔记")
    args = {"note_title": "周会笔记", "content": "新内容"}
    assert prepare("update_note", args, context_for(user)).args["note_id"] == str(exact.id)


def test_update_note_with_both_new_content_and_an_added_line_is_refused(user: Any) -> None:
    note_create(owner=user, title="Trip ideas", content="Kyoto")
    args = {"note_title": "Trip ideas", "content": "Porto", "append": "Rome"}
    error = refusal(lambda: prepare("update_note", args, context_for(user)))
    assert (error.code, error.status) == ("TOOL_ARGS_INVALID", 400)


@pytest.mark.parametrize(
    ("present", "step", "expected"),
    [(0, "raise", 1), (1, "raise", 2), (1, "提高", 2), (2, "lower", 1), (1, "降低", 0)],
)
def test_update_todo_moves_the_priority_one_step_from_its_present_level(
    user: Any, present: int, step: str, expected: int
) -> None:
    todo = todo_create(owner=user, title="x", priority=present)
    result = prepare("update_todo", {"todo_id": str(todo.id), "priority": step}, context_for(user))
    assert result.args["priority"] == expected
    assert result.args["current"]["priority"] == present


@pytest.mark.parametrize(("present", "step"), [(2, "raise"), (0, "lower")])
def test_a_priority_step_past_the_top_or_the_bottom_changes_nothing(
    user: Any, present: int, step: str
) -> None:
    todo = todo_create(owner=user, title="x", priority=present)
    args = {"todo_id": str(todo.id), "priority": step}
    error = refusal(lambda: prepare("update_todo", args, context_for(user)))
    assert error.code == "TODO_UPDATE_NOOP"


def test_a_priority_step_is_an_edit_only(user: Any) -> None:
    error = refusal(
        lambda: prepare("create_todo", {"title": "x", "priority": "raise"}, context_for(user))
    )
    assert error.code == "TOOL_ARGS_INVALID"


def test_a_title_is_found_in_another_letter_case_when_none_matches_exactly(user: Any) -> None:
    todo = todo_create(owner=user, title="Submit the weekly report")
    args = {"todo_title": "submit the weekly report", "status": "done"}
    assert prepare("set_todo_status", args, context_for(user)).args["todo_id"] == str(todo.id)
    note = note_create(owner=user, title="Standup", content="x")
    found = prepare("update_note", {"note_title": "STANDUP", "title": "Daily"}, context_for(user))
    assert found.args["note_id"] == str(note.id)
    # an exact match wins over one in another case
    exact = todo_create(owner=user, title="submit the weekly report")
    assert prepare("set_todo_status", args, context_for(user)).args["todo_id"] == str(exact.id)
