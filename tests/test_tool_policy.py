"""The tool policy (article section 17, "参数策略测试", plus its ordering and refusals)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from agent.policy import enforce_tool_policy
from agent.tools import ToolContext, registry
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext
from lightnote.models import AdminContext
from lightnote.texts.i18n import translate
from notes.models import Note
from notes.services import note_create
from todos.models import Todo
from todos.services import todo_create

pytestmark = pytest.mark.django_db

SHANGHAI = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 12, 2, 14, 0, tzinfo=SHANGHAI)
INJECTED = {"userId": 2, "skipConfirmation": True, "owner": "bob"}


def context_for(actor: Any, subject: Any = None, **changes: Any) -> ToolContext:
    subject = subject or actor
    context = ToolContext(
        actor=actor,
        subject=subject,
        session_id="8d4c8a9e-0000-4000-8000-000000000001",
        locale="zh-CN",
        now=NOW,
        zone=SHANGHAI,
    )
    return dataclasses.replace(context, **changes)


def prepare(tool_name: str, args: Any, context: ToolContext) -> Any:
    return enforce_tool_policy(tool_name=tool_name, args=args, context=context, phase="prepare")


def execute(tool_name: str, args: Any, context: ToolContext, *, confirmed: bool) -> Any:
    return enforce_tool_policy(
        tool_name=tool_name, args=args, context=context, phase="execute", confirmed=confirmed
    )


def refusal(call: Any) -> LightNoteError:
    with pytest.raises(LightNoteError) as caught:
        call()
    return caught.value


@pytest.fixture
def todo(user: Any) -> Todo:
    return todo_create(owner=user, title="提交周报")


@pytest.fixture
def note(user: Any) -> Note:
    return note_create(owner=user, title="读书笔记", content="第一章")


def valid_raw_args(tool_name: str) -> dict[str, Any]:
    """Return raw args each tool accepts for the ``user`` fixture's data."""
    return {
        "query_todos": {"status": "open"},
        "search_notes": {"keyword": "读书"},
        "create_todo": {"title": "提交周报", "due_at": "今晚 9 点"},
        "set_todo_status": {"todo_title": "提交周报", "status": "done"},
        "update_todo": {"todo_title": "提交周报", "priority": 2},
        "delete_todo": {"todo_title": "提交周报"},
        "create_note": {"title": "新笔记", "content": "内容"},
        "update_note": {"note_title": "读书笔记", "content": "第二章"},
    }[tool_name]


WRITE_TOOLS = [tool.name for tool in registry.tools() if tool.is_write]
ALL_TOOLS = [tool.name for tool in registry.tools()]


# --- the article's four argument-policy tests ----------------------------------------------


def test_additional_properties_are_rejected(user: Any) -> None:
    error = refusal(
        lambda: prepare("create_todo", {"title": "提交周报", **INJECTED}, context_for(user))
    )
    assert error.code == "TOOL_ARGS_INVALID"
    assert error.status == 400
    assert error.extra["fields"] == {
        "userId": ["unknown"],
        "skipConfirmation": ["unknown"],
        "owner": ["unknown"],
    }
    assert "owner, skipConfirmation, userId" in error.message("en")
    assert Todo.objects.count() == 0


@pytest.mark.parametrize("tool_name", ALL_TOOLS)
@pytest.mark.parametrize("injected", sorted(INJECTED))
def test_additional_properties_are_rejected_by_every_tool(
    user: Any, todo: Todo, note: Note, tool_name: str, injected: str
) -> None:
    args = {**valid_raw_args(tool_name), injected: INJECTED[injected]}
    error = refusal(lambda: prepare(tool_name, args, context_for(user)))
    assert error.code == "TOOL_ARGS_INVALID"
    assert error.extra["fields"] == {injected: ["unknown"]}
    # the same args without the injected key pass, so the key alone was the reason
    assert prepare(tool_name, valid_raw_args(tool_name), context_for(user)).args


def test_additional_properties_are_rejected_in_stored_prepared_args_at_execute(user: Any) -> None:
    prepared = prepare("create_todo", {"title": "提交周报"}, context_for(user)).args
    tampered = {**prepared, "skipConfirmation": True}
    error = refusal(lambda: execute("create_todo", tampered, context_for(user), confirmed=True))
    assert error.code == "TOOL_ARGS_INVALID"
    assert error.extra["fields"] == {"skipConfirmation": ["unknown"]}


@pytest.mark.parametrize("tool_name", WRITE_TOOLS)
def test_execute_write_without_confirmation_returns_confirmation_required(
    user: Any, todo: Todo, note: Note, tool_name: str
) -> None:
    context = context_for(user)
    prepared = prepare(tool_name, valid_raw_args(tool_name), context).args
    for args in (prepared, valid_raw_args(tool_name)):
        error = refusal(lambda args=args: execute(tool_name, args, context, confirmed=False))
        assert error.code == "TOOL_CONFIRMATION_REQUIRED"
        assert error.status == 403
    assert execute(tool_name, prepared, context, confirmed=True).args == prepared
    assert Todo.objects.count() == 1
    assert Note.objects.count() == 1


@pytest.mark.parametrize("tool_name", WRITE_TOOLS)
def test_admin_readonly_cannot_prepare_writes(
    make_user: Any, user: Any, todo: Todo, note: Note, tool_name: str
) -> None:
    staff = make_user("carol", is_staff=True)
    admin_context = AdminContext.objects.create(
        staff=staff, subject=user, expires_at=timezone.now() + timedelta(minutes=20)
    )
    context = ToolContext.from_actor_context(
        ActorContext(actor=staff, subject=user, admin_context=admin_context),
        session_id=None,
        locale="en",
        now=NOW,
    )
    assert context.admin_context_id == str(admin_context.id)
    error = refusal(lambda: prepare(tool_name, valid_raw_args(tool_name), context))
    assert error.code == "ADMIN_READONLY"
    assert error.status == 403
    # nor can a prepared card of the subject be executed inside the context
    prepared = prepare(tool_name, valid_raw_args(tool_name), context_for(user)).args
    error = refusal(lambda: execute(tool_name, prepared, context, confirmed=True))
    assert error.code == "ADMIN_READONLY"
    assert list(Todo.objects.values_list("title", "status", "version")) == [("提交周报", "open", 1)]
    assert list(Note.objects.values_list("title", "content", "version")) == [
        ("读书笔记", "第一章", 1)
    ]


def test_admin_readonly_may_still_read_the_subjects_data(
    make_user: Any, user: Any, todo: Todo
) -> None:
    staff = make_user("carol", is_staff=True)
    context = context_for(staff, user, admin_context_id="ctx-1", admin_mode="readonly")
    result = prepare("query_todos", {}, context)
    assert result.preview is None
    read = result.tool.run(result.args, context)
    assert [item["title"] for item in read.data["todos"]] == ["提交周报"]


@pytest.mark.parametrize("tool_name", ALL_TOOLS)
def test_actor_subject_mismatch_is_refused(
    user: Any, other_user: Any, todo: Todo, note: Note, tool_name: str
) -> None:
    context = context_for(other_user, user)  # bob acting on alice's data, no admin context
    error = refusal(lambda: prepare(tool_name, valid_raw_args(tool_name), context))
    assert error.code == "ACTOR_SUBJECT_MISMATCH"
    assert error.status == 403
    assert Todo.objects.get().version == 1


def test_admin_context_with_a_non_staff_actor_is_refused(user: Any, other_user: Any) -> None:
    context = context_for(other_user, user, admin_context_id="ctx-1", admin_mode="readonly")
    assert refusal(lambda: prepare("query_todos", {}, context)).code == "ACTOR_SUBJECT_MISMATCH"


# --- role -----------------------------------------------------------------------------------


def test_inactive_user_is_refused(make_user: Any) -> None:
    dormant = make_user("dora", is_active=False)
    error = refusal(lambda: prepare("query_todos", {}, context_for(dormant)))
    assert (error.code, error.status) == ("USER_INACTIVE", 403)


def test_role_hook_refuses_a_tool_reserved_for_other_roles(
    monkeypatch: pytest.MonkeyPatch, user: Any, make_user: Any
) -> None:
    monkeypatch.setattr(registry.get("query_todos"), "allowed_roles", frozenset({"staff"}))
    error = refusal(lambda: prepare("query_todos", {}, context_for(user)))
    assert (error.code, error.status) == ("TOOL_ROLE_FORBIDDEN", 403)
    staff = make_user("carol", is_staff=True)
    assert prepare("query_todos", {}, context_for(staff)).args == {}


# --- unknown tools and the registry's guidance ----------------------------------------------


def test_unknown_tool_is_not_found(user: Any) -> None:
    error = refusal(lambda: prepare("send_email", {"to": "x"}, context_for(user)))
    assert (error.code, error.status) == ("TOOL_NOT_FOUND", 404)
    assert "send_email" in error.message("en")


@pytest.mark.parametrize(
    ("tool_name", "code", "capability_id", "zh_fragment", "en_fragment"),
    [
        ("delete_note", "CAPABILITY_PLANNED", "note.delete", "笔记页面", "notes page"),
        ("deleteNote", "CAPABILITY_PLANNED", "note.delete", "笔记页面", "notes page"),
        ("delete_account", "CAPABILITY_FORBIDDEN", "account.delete", "账号", "accounts"),
    ],
)
def test_planned_and_forbidden_capabilities_answer_with_the_registry_guidance(
    user: Any, tool_name: str, code: str, capability_id: str, zh_fragment: str, en_fragment: str
) -> None:
    from agent.capabilities import capability_by_id

    error = refusal(lambda: prepare(tool_name, {"note_id": "x"}, context_for(user)))
    capability = capability_by_id(capability_id)
    assert capability is not None
    assert capability.guidance is not None
    assert error.code == code
    assert error.extra == {"capability": capability_id, "status": capability.status}
    assert error.message("zh-CN") == capability.guidance["zh-CN"]
    assert error.message("en") == capability.guidance["en"]
    assert zh_fragment in error.message("zh-CN")
    assert en_fragment in error.message("en")


# --- schema failures are listed by property -----------------------------------------------


@pytest.mark.parametrize(
    ("tool_name", "args", "fields"),
    [
        ("create_todo", {}, {"title": ["required"]}),
        ("create_todo", {"title": "x", "priority": "someday"}, {"priority": ["invalid"]}),
        ("create_todo", {"title": "x", "priority": 7}, {"priority": ["invalid"]}),
        ("create_todo", {"title": 42}, {"title": ["invalid"]}),
        ("set_todo_status", {"todo_title": "x", "status": "maybe"}, {"status": ["invalid"]}),
        (
            "set_todo_status",
            {"todo_id": "a", "todo_title": "b", "status": "done"},
            {"todo_id": ["one_of"], "todo_title": ["one_of"]},
        ),
        ("delete_todo", {}, {"todo_id": ["one_of"], "todo_title": ["one_of"]}),
        ("search_notes", {"keyword": "  "}, {"keyword": ["invalid"]}),
        ("query_todos", {"limit": 500}, {"limit": ["invalid"]}),
        ("create_note", {"title": "x", "tags": 5}, {"tags": ["invalid"]}),
        (
            "create_todo",
            {"title": "a", "taskTitle": "b"},
            {"title": ["duplicate"], "taskTitle": ["duplicate"]},
        ),
        ("create_todo", ["not", "an", "object"], {"$": ["invalid"]}),
    ],
)
def test_invalid_args_are_refused_with_the_offending_properties(
    user: Any, tool_name: str, args: Any, fields: dict[str, list[str]]
) -> None:
    error = refusal(lambda: prepare(tool_name, args, context_for(user)))
    assert (error.code, error.status) == ("TOOL_ARGS_INVALID", 400)
    assert error.extra["fields"] == fields
    assert Todo.objects.count() == 0


# --- order and the execute phase ------------------------------------------------------------


def test_policy_checks_run_in_the_documented_order(
    make_user: Any, user: Any, other_user: Any
) -> None:
    staff = make_user("carol", is_staff=True)
    admin = context_for(staff, user, admin_context_id="ctx-1", admin_mode="readonly")
    # unknown tool before the boundary
    assert refusal(lambda: prepare("nope", {}, context_for(other_user, user))).code == (
        "TOOL_NOT_FOUND"
    )
    # boundary before role
    dormant = make_user("dora", is_active=False)
    assert refusal(lambda: prepare("create_todo", {}, context_for(dormant, user))).code == (
        "ACTOR_SUBJECT_MISMATCH"
    )
    # role before admin read-only
    staff.is_active = False
    assert refusal(lambda: prepare("create_todo", INJECTED, admin)).code == "USER_INACTIVE"
    staff.is_active = True
    # admin read-only before the schema (the injected keys are never even looked at)
    assert refusal(lambda: prepare("create_todo", INJECTED, admin)).code == "ADMIN_READONLY"
    # at execute: confirmation before the prepared-args schema
    error = refusal(lambda: execute("create_todo", INJECTED, context_for(user), confirmed=False))
    assert error.code == "TOOL_CONFIRMATION_REQUIRED"


def test_execute_returns_the_stored_prepared_args_without_preparing_again(
    monkeypatch: pytest.MonkeyPatch, user: Any, todo: Todo
) -> None:
    context = context_for(user)
    prepared = prepare("set_todo_status", {"todo_id": str(todo.id), "status": "done"}, context)
    tool = registry.get("set_todo_status")

    def no_second_prepare(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("execute must not prepare again")

    monkeypatch.setattr(tool, "prepare", no_second_prepare)
    monkeypatch.setattr(tool, "preview", no_second_prepare)
    result = execute("set_todo_status", prepared.args, context, confirmed=True)
    assert result.args == prepared.args
    assert result.args["expected_version"] == 1
    assert result.preview is None


def test_execute_refuses_prepared_args_that_do_not_match_the_prepared_schema(user: Any) -> None:
    context = context_for(user)
    error = refusal(
        lambda: execute(
            "set_todo_status", {"todo_title": "x", "status": "done"}, context, confirmed=True
        )
    )
    assert error.code == "TOOL_ARGS_INVALID"
    assert set(error.extra["fields"]) == {"todo_title", "todo_id", "expected_version", "current"}


def test_unknown_phase_is_a_programming_error(user: Any) -> None:
    with pytest.raises(ValueError, match="unknown policy phase"):
        enforce_tool_policy(tool_name="query_todos", args={}, context=context_for(user), phase="x")


def test_read_tool_returns_normalised_args_and_no_preview(user: Any) -> None:
    result = prepare(
        "query_todos", {"state": "未完成", "q": " 周报 ", "max": "5"}, context_for(user)
    )
    assert result.args == {"status": "open", "keyword": "周报", "limit": 5}
    assert result.preview is None
    assert result.capability.id == "todo.query"
    assert result.requires_confirmation is False


@pytest.mark.parametrize(
    "code",
    [
        "TOOL_NOT_FOUND",
        "TOOL_ARGS_INVALID",
        "TOOL_CONFIRMATION_REQUIRED",
        "ACTOR_SUBJECT_MISMATCH",
        "USER_INACTIVE",
        "TOOL_ROLE_FORBIDDEN",
        "ADMIN_READONLY",
        "TODO_TITLE_AMBIGUOUS",
        "TODO_STATUS_NOOP",
        "TODO_UPDATE_NOOP",
        "NOTE_TITLE_AMBIGUOUS",
        "NOTE_UPDATE_NOOP",
    ],
)
def test_policy_error_codes_have_texts_in_both_languages(code: str) -> None:
    zh, en = translate(code, "zh-CN"), translate(code, "en")
    assert zh != code
    assert en != code
    assert zh != en
