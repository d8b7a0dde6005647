"""Alias and value normalisation: every alias of every tool, priority and status words."""

from __future__ import annotations

from typing import Any

import pytest

from agent.tools import Tool, registry

TODO_ID = "0b6f7a0e-9c1d-4c55-8f3e-2f1d6f0c9a11"
NOTE_ID = "5a1c2b3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"

# One raw sample per canonical property and what it normalises to.
SAMPLES: dict[str, tuple[Any, Any]] = {
    "title": ("提交周报", "提交周报"),
    "description": ("周五前", "周五前"),
    "content": ("第一章", "第一章"),
    "append": ("第二章", "第二章"),
    "priority": ("urgent", 2),
    "due_at": ("今晚 9 点", "今晚 9 点"),
    "remind_at": (" 明天上午 9:50 ", "明天上午 9:50"),
    "recurrence": (" FREQ=WEEKLY;BYDAY=MO ", "FREQ=WEEKLY;BYDAY=MO"),
    "due_before": (" 明天 ", "明天"),
    "status": ("已完成", "done"),
    "todo_id": (f" {TODO_ID} ", TODO_ID),
    "todo_title": (" 提交周报 ", "提交周报"),
    "note_id": (NOTE_ID, NOTE_ID),
    "note_title": ("读书笔记", "读书笔记"),
    "tags": ("书, 阅读", ["书", "阅读"]),
    "add_tags": ("书、阅读", ["书", "阅读"]),
    "overdue": ("yes", True),
    "keyword": (" 周报 ", "周报"),
    "limit": ("5", 5),
    "within": (" This Week ", "this_week"),
}


def every_alias() -> list[tuple[str, str, str]]:
    return [
        (tool.name, alias, target)
        for tool in registry.tools()
        for alias, target in sorted(tool.aliases.items())
    ]


@pytest.mark.parametrize(("tool_name", "alias", "target"), every_alias())
def test_every_alias_normalises_to_its_canonical_property(
    tool_name: str, alias: str, target: str
) -> None:
    tool = registry.get(tool_name)
    assert tool is not None
    raw, expected = SAMPLES[target]
    assert tool.normalize({alias: raw}) == {target: expected}


# The aliases the issue and docs/api.md name explicitly: removing one must fail a test.
REQUIRED_ALIASES = [
    ("create_todo", "taskTitle", "title"),
    ("create_todo", "deadline", "due_at"),
    ("create_todo", "dueAt", "due_at"),
    ("create_todo", "importance", "priority"),
    ("update_todo", "todoId", "todo_id"),
    ("update_todo", "todoTitle", "todo_title"),
    ("update_todo", "deadline", "due_at"),
    ("update_todo", "dueAt", "due_at"),
    ("update_todo", "importance", "priority"),
    ("set_todo_status", "todoId", "todo_id"),
    ("set_todo_status", "todoTitle", "todo_title"),
    ("set_todo_status", "state", "status"),
    ("delete_todo", "todoId", "todo_id"),
    ("delete_todo", "todoTitle", "todo_title"),
    ("create_note", "noteTitle", "title"),
    ("create_note", "body", "content"),
    ("update_note", "noteId", "note_id"),
    ("update_note", "noteTitle", "note_title"),
    ("query_todos", "dueBefore", "due_before"),
    ("query_todos", "query", "keyword"),
    ("search_notes", "query", "keyword"),
]


@pytest.mark.parametrize(("tool_name", "alias", "target"), REQUIRED_ALIASES)
def test_required_aliases_exist(tool_name: str, alias: str, target: str) -> None:
    tool = registry.get(tool_name)
    assert tool is not None
    assert tool.aliases[alias] == target


def test_article_example_is_normalised_to_canonical_names() -> None:
    tool = registry.get("create_todo")
    assert tool is not None
    raw = {"taskTitle": "提交周报", "deadline": "2026-08-18 21:00:00", "importance": 2}
    assert tool.normalize(raw) == {
        "title": "提交周报",
        "due_at": "2026-08-18 21:00:00",
        "priority": 2,
    }


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("high", 2),
        ("High", 2),
        ("高", 2),
        ("urgent", 2),
        ("紧急", 2),
        ("重要", 2),
        ("高优先级", 2),
        ("2", 2),
        (2, 2),
        (2.0, 2),
        ("normal", 1),
        ("medium", 1),
        ("普通", 1),
        ("中", 1),
        ("一般", 1),
        (" 1 ", 1),
        ("low", 0),
        ("低", 0),
        ("不急", 0),
        (0, 0),
    ],
)
def test_priority_words_become_numbers(word: Any, expected: int) -> None:
    for tool_name in ("create_todo", "update_todo"):
        tool = registry.get(tool_name)
        assert tool is not None
        assert tool.normalize({"priority": word}) == {"priority": expected}


@pytest.mark.parametrize("word", ["someday", "p9", True, 2.5])
def test_unknown_priority_words_are_left_for_the_schema_to_refuse(word: Any) -> None:
    tool = registry.get("create_todo")
    assert tool is not None
    assert tool.normalize({"priority": word}) == {"priority": word}


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("done", "done"),
        ("DONE", "done"),
        ("finished", "done"),
        ("completed", "done"),
        ("完成", "done"),
        ("已完成", "done"),
        ("做完了", "done"),
        (True, "done"),
        ("true", "done"),
        ("open", "open"),
        ("reopen", "open"),
        ("not done", "open"),
        ("未完成", "open"),
        ("重新打开", "open"),
        (False, "open"),
        ("false", "open"),
    ],
)
def test_status_words_become_open_or_done(word: Any, expected: str) -> None:
    for tool_name in ("set_todo_status", "query_todos"):
        tool = registry.get(tool_name)
        assert tool is not None
        assert tool.normalize({"status": word}) == {"status": expected}


def test_a_completed_flag_sets_the_status() -> None:
    tool = registry.get("set_todo_status")
    assert tool is not None
    assert tool.normalize({"title": "提交周报", "completed": True}) == {
        "todo_title": "提交周报",
        "status": "done",
    }


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("书, 阅读", ["书", "阅读"]),
        ("书，阅读、笔记", ["书", "阅读", "笔记"]),
        ("单个", ["单个"]),
        (["a", "b"], ["a", "b"]),
        ("", []),
    ],
)
def test_tags_given_as_text_become_a_list(raw: Any, expected: list[str]) -> None:
    tool = registry.get("create_note")
    assert tool is not None
    assert tool.normalize({"tags": raw}) == {"tags": expected}


def test_unknown_keys_pass_through_to_be_refused_by_the_schema() -> None:
    tool = registry.get("create_todo")
    assert tool is not None
    raw = {"title": "x", "userId": 2, "skipConfirmation": True, "owner": "bob"}
    assert tool.normalize(raw) == raw


def test_null_means_not_given_except_where_it_clears_a_value() -> None:
    create = registry.get("create_todo")
    update = registry.get("update_todo")
    assert create is not None
    assert update is not None
    assert create.normalize({"title": "x", "due_at": None, "priority": None}) == {"title": "x"}
    assert create.normalize({"title": "x", "due_at": "  ", "priority": ""}) == {"title": "x"}
    assert update.normalize({"todo_id": TODO_ID, "due_at": None}) == {
        "todo_id": TODO_ID,
        "due_at": None,
    }


def test_the_same_value_under_an_alias_and_its_canonical_name_is_accepted() -> None:
    tool = registry.get("create_todo")
    assert tool is not None
    assert tool.normalize({"title": "x", "taskTitle": "x"}) == {"title": "x"}


@pytest.mark.parametrize("tool", registry.tools(), ids=lambda tool: tool.name)
def test_camel_case_forms_of_canonical_names_are_aliases(tool: Tool) -> None:
    for name in tool.schema["properties"]:
        if "_" in name:
            head, *rest = name.split("_")
            camel = head + "".join(part.title() for part in rest)
            assert tool.aliases[camel] == name
