"""Execution through the domain services (article section 17, "业务执行测试"), version
conflicts after prepare, the create_note dedupe, reads and result texts."""

from __future__ import annotations

import dataclasses
import json
import uuid
from datetime import datetime
from typing import Any
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
from django.db import transaction

from agent.policy import enforce_tool_policy
from agent.tools import ExecutionResult, ToolContext, registry
from lightnote.errors import LightNoteError
from notes import services as note_services
from notes.agent_tools import stable_note_id
from notes.models import Note
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

SHANGHAI = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 12, 2, 14, 0, tzinfo=SHANGHAI)
SESSION = "8d4c8a9e-0000-4000-8000-000000000001"


def context_for(user: Any, **changes: Any) -> ToolContext:
    context = ToolContext(
        actor=user, subject=user, session_id=SESSION, locale="zh-CN", now=NOW, zone=SHANGHAI
    )
    return dataclasses.replace(context, **changes)


def prepare(tool_name: str, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    result = enforce_tool_policy(tool_name=tool_name, args=args, context=context, phase="prepare")
    return result.args


def run_confirmed(tool_name: str, prepared: dict[str, Any], context: ToolContext) -> Any:
    """What the execution module does after a won claim: policy again, then the tool."""
    policy = enforce_tool_policy(
        tool_name=tool_name, args=prepared, context=context, phase="execute", confirmed=True
    )
    return policy.tool.execute(policy.args, context)


def refusal(call: Any) -> LightNoteError:
    with pytest.raises(LightNoteError) as caught:
        call()
    return caught.value


# --- the real write calls the domain service -------------------------------------------------


def test_execute_calls_the_domain_service(user: Any) -> None:
    context = context_for(user)
    prepared = prepare("create_todo", {"title": "提交周报", "due_at": "今晚 9 点"}, context)
    with mock.patch.object(
        todo_services, "todo_create", wraps=todo_services.todo_create
    ) as service:
        result = run_confirmed("create_todo", prepared, context)
    service.assert_called_once_with(
        owner=user,
        title="提交周报",
        description="",
        priority=1,
        due_at=datetime(2026, 12, 2, 21, 0, tzinfo=SHANGHAI),
        actor=user,
        channel="agent",
    )
    todo = Todo.objects.get()  # the spy wrapped the service: the row really exists
    assert (todo.owner_id, todo.title, todo.priority, todo.version) == (user.pk, "提交周报", 1, 1)
    assert todo.due_at == datetime(2026, 12, 2, 13, 0, tzinfo=ZoneInfo("UTC"))
    assert result == ExecutionResult(
        resource_type="todo",
        resource_id=str(todo.id),
        summary="已创建待办「提交周报」。",
        data={
            "id": str(todo.id),
            "title": "提交周报",
            "description": "",
            "priority": 1,
            "due_at": "2026-12-02T21:00:00+08:00",
            "status": "open",
            "version": 1,
        },
    )


def _existing(user: Any) -> dict[str, str]:
    todo = todo_services.todo_create(owner=user, title="提交周报")
    note = note_services.note_create(owner=user, title="读书笔记", content="第一章")
    return {"todo": str(todo.id), "note": str(note.id)}


SERVICE_CALLS = [
    ("set_todo_status", todo_services, "todo_set_status", {"status": "done"}),
    ("update_todo", todo_services, "todo_update", {"title": "提交月报"}),
    ("delete_todo", todo_services, "todo_delete", {}),
    ("create_note", note_services, "note_create", {"title": "新笔记"}),
    ("update_note", note_services, "note_update", {"content": "第二章"}),
]


@pytest.mark.parametrize(("tool_name", "module", "function", "args"), SERVICE_CALLS)
def test_every_write_tool_executes_through_its_service_as_the_subject(
    user: Any, other_user: Any, tool_name: str, module: Any, function: str, args: dict[str, Any]
) -> None:
    ids = _existing(user)
    theirs = todo_services.todo_create(owner=other_user, title="提交周报")
    context = context_for(user)
    if tool_name.endswith("_todo") or tool_name == "set_todo_status":
        args = {"todo_id": ids["todo"], **args}
    elif tool_name == "update_note":
        args = {"note_id": ids["note"], **args}
    prepared = prepare(tool_name, args, context)
    with mock.patch.object(module, function, wraps=getattr(module, function)) as service:
        result = run_confirmed(tool_name, prepared, context)
    assert service.call_count == 1
    assert service.call_args.kwargs["owner"] == user
    if "expected_version" in prepared:
        assert service.call_args.kwargs["expected_version"] == 1
    json.dumps(result.data)  # a receipt stores it
    assert result.resource_type in ("todo", "note")
    theirs.refresh_from_db()
    assert (theirs.title, theirs.status, theirs.version) == ("提交周报", "open", 1)


def test_executed_changes_are_in_the_database(user: Any) -> None:
    ids = _existing(user)
    context = context_for(user)
    run_confirmed(
        "update_todo",
        prepare("update_todo", {"todo_id": ids["todo"], "deadline": "明天下午3点"}, context),
        context,
    )
    todo = Todo.objects.get()
    assert todo.due_at == datetime(2026, 12, 3, 15, 0, tzinfo=SHANGHAI)
    assert todo.version == 2
    run_confirmed(
        "update_todo",
        prepare("update_todo", {"todo_id": ids["todo"], "due_at": None}, context),
        context,
    )
    todo.refresh_from_db()
    assert (todo.due_at, todo.version) == (None, 3)
    run_confirmed(
        "update_note",
        prepare("update_note", {"note_id": ids["note"], "tags": "书, 阅读"}, context),
        context,
    )
    assert Note.objects.get().tags == ["书", "阅读"]
    run_confirmed("delete_todo", prepare("delete_todo", {"todo_id": ids["todo"]}, context), context)
    assert Todo.objects.count() == 0


# --- a change between prepare and execute is a conflict, never an overwrite ----------------------


@pytest.mark.parametrize(
    ("tool_name", "args", "code"),
    [
        ("set_todo_status", {"status": "done"}, "TODO_VERSION_CONFLICT"),
        ("update_todo", {"title": "提交月报"}, "TODO_VERSION_CONFLICT"),
        ("delete_todo", {}, "TODO_VERSION_CONFLICT"),
    ],
)
def test_todo_changed_after_prepare_conflicts_at_execute(
    user: Any, tool_name: str, args: dict[str, Any], code: str
) -> None:
    todo = todo_services.todo_create(owner=user, title="提交周报")
    context = context_for(user)
    prepared = prepare(tool_name, {"todo_id": str(todo.id), **args}, context)
    # the user edits the todo on the page after the card was prepared
    todo_services.todo_update(
        owner=user, todo_id=todo.id, expected_version=1, description="页面上改过"
    )
    error = refusal(lambda: run_confirmed(tool_name, prepared, context))
    assert (error.code, error.status) == (code, 409)
    assert error.extra["current_version"] == 2
    todo.refresh_from_db()
    assert (todo.title, todo.description, todo.status, todo.version) == (
        "提交周报",
        "页面上改过",
        "open",
        2,
    )


def test_note_changed_after_prepare_conflicts_at_execute(user: Any) -> None:
    note = note_services.note_create(owner=user, title="读书笔记", content="第一章")
    context = context_for(user)
    prepared = prepare("update_note", {"note_id": str(note.id), "content": "模型写的"}, context)
    note_services.note_update(owner=user, note_id=note.id, expected_version=1, content="我写的")
    error = refusal(lambda: run_confirmed("update_note", prepared, context))
    assert (error.code, error.status) == ("NOTE_VERSION_CONFLICT", 409)
    note.refresh_from_db()
    assert (note.content, note.version) == ("我写的", 2)


def test_todo_deleted_after_prepare_is_not_found_at_execute(user: Any) -> None:
    todo = todo_services.todo_create(owner=user, title="提交周报")
    context = context_for(user)
    prepared = prepare("set_todo_status", {"todo_id": str(todo.id), "status": "done"}, context)
    todo_services.todo_delete(owner=user, todo_id=todo.id)
    error = refusal(lambda: run_confirmed("set_todo_status", prepared, context))
    assert (error.code, error.status) == ("TODO_NOT_FOUND", 404)


# --- create_note: a repeat after an unknown outcome returns the first note -----------------------


def test_create_note_again_returns_the_existing_note(user: Any) -> None:
    context = context_for(user)
    prepared = prepare("create_note", {"title": "读书笔记", "content": "第一章"}, context)
    first = run_confirmed("create_note", prepared, context)
    asked_again = prepare("create_note", {"noteTitle": "读书笔记", "body": "第一章"}, context)
    second = run_confirmed("create_note", asked_again, dataclasses.replace(context, locale="en"))
    assert Note.objects.count() == 1
    assert first.resource_id == second.resource_id == prepared["note_id"]
    assert first.data["already_existed"] is False
    assert second.data["already_existed"] is True
    assert first.summary == "已创建笔记「读书笔记」。"
    assert (
        second.summary == "The note “读书笔记” had already been created; no second copy was made."
    )


@pytest.mark.django_db(transaction=True)
def test_create_note_repeat_inside_a_durable_transaction_keeps_it_usable(user: Any) -> None:
    """The execution module wraps execute + receipt in one durable transaction."""
    context = context_for(user)
    prepared = prepare("create_note", {"title": "读书笔记"}, context)
    with transaction.atomic(durable=True):
        run_confirmed("create_note", prepared, context)
    with transaction.atomic(durable=True):
        again = run_confirmed("create_note", prepared, context)
        todo_services.todo_create(owner=user, title="the transaction still works")
    assert again.data["already_existed"] is True
    assert Note.objects.count() == 1
    assert Todo.objects.count() == 1


def test_create_note_in_another_session_makes_a_new_note(user: Any) -> None:
    args = {"title": "读书笔记", "content": "第一章"}
    for session in ("session-a", "session-b"):
        context = context_for(user, session_id=session)
        run_confirmed("create_note", prepare("create_note", args, context), context)
    assert Note.objects.count() == 2


def test_create_note_never_returns_another_users_note(user: Any, other_user: Any) -> None:
    context = context_for(user)
    prepared = prepare("create_note", {"title": "读书笔记"}, context)
    # someone else's note happens to hold the derived id
    note_services.note_create(
        owner=other_user, title="bob's", note_id=uuid.UUID(prepared["note_id"])
    )
    error = refusal(lambda: run_confirmed("create_note", prepared, context))
    assert (error.code, error.status) == ("NOTE_ALREADY_EXISTS", 409)
    assert list(Note.objects.values_list("owner_id", "title")) == [(other_user.pk, "bob's")]
    assert prepared["note_id"] == stable_note_id(
        subject_id=user.pk, session_id=SESSION, title="读书笔记", content=""
    )


def test_todos_deliberately_do_not_dedupe(user: Any) -> None:
    context = context_for(user)
    prepared = prepare("create_todo", {"title": "喝水"}, context)
    run_confirmed("create_todo", prepared, context)
    run_confirmed("create_todo", prepared, context)
    assert Todo.objects.filter(title="喝水").count() == 2


# --- reads ----------------------------------------------------------------------------------


def test_query_todos_returns_only_the_subjects_matching_todos(user: Any, other_user: Any) -> None:
    due = datetime(2026, 12, 2, 21, 0, tzinfo=SHANGHAI)
    todo_services.todo_create(owner=user, title="提交周报", priority=2, due_at=due)
    todo_services.todo_create(owner=user, title="买牛奶")
    done = todo_services.todo_create(owner=user, title="周报草稿")
    todo_services.todo_set_status(owner=user, todo_id=done.id, status="done")
    todo_services.todo_create(owner=other_user, title="提交周报")
    context = context_for(user)
    policy = enforce_tool_policy(
        tool_name="query_todos",
        args={"keyword": "周报", "status": "未完成", "dueBefore": "明天"},
        context=context,
        phase="prepare",
    )
    read = policy.tool.run(policy.args, context)
    assert read.data["count"] == 1
    assert [item["title"] for item in read.data["todos"]] == ["提交周报"]
    assert read.summary == "找到 1 条待办：\n- 提交周报（未完成，优先级高，截止 2026-12-02 21:00）"
    assert policy.tool.transform(read, "en") == (
        "Found 1 todo:\n- 提交周报 (open, high priority, due 2026-12-02 21:00)"
    )
    json.dumps(read.data)


def test_query_todos_by_priority_overdue_and_due_by_the_end_of_a_day(user: Any) -> None:
    def titles(args: dict[str, Any]) -> set[str]:
        context = context_for(user)
        policy = enforce_tool_policy(
            tool_name="query_todos", args=args, context=context, phase="prepare"
        )
        return {item["title"] for item in policy.tool.run(policy.args, context).data["todos"]}

    at = lambda *day_time: datetime(*day_time, tzinfo=SHANGHAI)  # noqa: E731
    todo_services.todo_create(owner=user, title="today, no time", due_at=at(2026, 12, 2, 23, 59))
    todo_services.todo_create(owner=user, title="tonight", priority=2, due_at=at(2026, 12, 2, 21))
    late = todo_services.todo_create(owner=user, title="late", due_at=at(2026, 11, 30, 18))
    settled = todo_services.todo_create(owner=user, title="late, done", due_at=at(2026, 12, 1))
    todo_services.todo_set_status(owner=user, todo_id=settled.id, status="done")
    todo_services.todo_create(owner=user, title="friday", priority=0, due_at=at(2026, 12, 4, 9))
    todo_services.todo_create(owner=user, title="no due", priority=2)
    # a day said without a time is due at its 23:59: "due by today" lists it
    assert titles({"due_before": "今天"}) == {"today, no time", "tonight", "late", "late, done"}
    assert titles({"overdue": True}) == {late.title}  # open and past due (now: Wed 14:00)
    assert titles({"overdue": "true", "priority": "high"}) == set()
    assert titles({"priority": "高"}) == {"tonight", "no due"}
    assert titles({"importance": "low", "due_before": "周五"}) == {"friday"}
    assert titles({"overdue": False}) == titles({})  # no filter
    with pytest.raises(LightNoteError) as error:
        enforce_tool_policy(
            tool_name="query_todos",
            args={"overdue": "maybe"},
            context=context_for(user),
            phase="prepare",
        )
    assert error.value.code == "TOOL_ARGS_INVALID"


def test_query_todos_limit_and_total(user: Any) -> None:
    for index in range(4):
        todo_services.todo_create(owner=user, title=f"t{index}")
    context = context_for(user)
    read = registry.get("query_todos").run({"limit": 2}, context)
    assert read.data["count"] == 4
    assert len(read.data["todos"]) == 2


def test_search_notes_returns_only_the_subjects_notes(user: Any, other_user: Any) -> None:
    note_services.note_create(owner=user, title="读书笔记", content="第一章", tags=["书"])
    note_services.note_create(owner=user, title="菜谱", content="番茄")
    note_services.note_create(owner=other_user, title="读书笔记 bob")
    context = context_for(user)
    tool = registry.get("search_notes")
    read = tool.run(tool.normalize({"query": "读书"}), context)
    assert [item["title"] for item in read.data["notes"]] == ["读书笔记"]
    assert read.summary == "找到 1 条笔记：\n- 读书笔记（标签：书）"
    empty = tool.run({"keyword": "不存在"}, dataclasses.replace(context, locale="en"))
    assert empty.summary == "No note matches."


# --- result texts in both languages ---------------------------------------------------------


@pytest.mark.parametrize(
    ("tool_name", "args", "zh", "en"),
    [
        (
            "set_todo_status",
            {"status": "done"},
            "待办「提交周报」已标记为已完成。",
            "The todo “提交周报” is now done.",
        ),
        (
            "update_todo",
            {"title": "提交月报"},
            "已更新待办「提交月报」。",
            "Updated the todo “提交月报”.",
        ),
        ("delete_todo", {}, "已删除待办「提交周报」。", "Deleted the todo “提交周报”."),
    ],
)
def test_transform_states_the_result_in_both_languages(
    user: Any, tool_name: str, args: dict[str, Any], zh: str, en: str
) -> None:
    todo = todo_services.todo_create(owner=user, title="提交周报")
    context = context_for(user)
    result = run_confirmed(
        tool_name, prepare(tool_name, {"todo_id": str(todo.id), **args}, context), context
    )
    tool = registry.get(tool_name)
    assert result.summary == zh
    assert tool.transform(result, "zh-CN") == zh
    assert tool.transform(result, "en") == en
