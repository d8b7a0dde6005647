"""Card previews in zh-CN and en, built only from prepared args (+ context.now / zone)."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from agent.policy import enforce_tool_policy
from agent.tools import ToolContext, registry
from notes.services import note_create
from todos.models import Todo
from todos.services import todo_create

pytestmark = pytest.mark.django_db

SHANGHAI = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 12, 2, 14, 0, tzinfo=SHANGHAI)


def context_for(user: Any, locale: str = "zh-CN", **changes: Any) -> ToolContext:
    context = ToolContext(
        actor=user, subject=user, session_id="s-1", locale=locale, now=NOW, zone=SHANGHAI
    )
    return dataclasses.replace(context, **changes)


def preview(tool_name: str, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    result = enforce_tool_policy(tool_name=tool_name, args=args, context=context, phase="prepare")
    assert result.preview is not None
    return result.preview


CREATE_ARGS = {"taskTitle": "提交周报", "deadline": "今晚 9 点", "importance": "high"}


def test_create_todo_preview_in_chinese(user: Any) -> None:
    assert preview("create_todo", CREATE_ARGS, context_for(user, "zh-CN")) == {
        "title": "创建待办",
        "target": "提交周报",
        "impact": "确认后将创建一条截止于 2026-12-02 21:00 (Asia/Shanghai) 的待办。",
        "details": [
            {"key": "title", "label": "标题", "value": "提交周报"},
            {"key": "due_at", "label": "截止时间", "value": "2026-12-02 21:00 (Asia/Shanghai)"},
            {
                "key": "due_at_reading",
                "label": "截止时间的理解",
                "value": "今晚 9 点 (Asia/Shanghai) → 2026-12-02 (周三) 21:00",
            },
            {"key": "priority", "label": "优先级", "value": "高"},
        ],
    }


def test_create_todo_preview_in_english(user: Any) -> None:
    assert preview("create_todo", CREATE_ARGS, context_for(user, "en")) == {
        "title": "Create todo",
        "target": "提交周报",
        "impact": "After you confirm, a todo due 2026-12-02 21:00 (Asia/Shanghai) will be created.",
        "details": [
            {"key": "title", "label": "Title", "value": "提交周报"},
            {"key": "due_at", "label": "Due", "value": "2026-12-02 21:00 (Asia/Shanghai)"},
            {
                "key": "due_at_reading",
                "label": "Due time read as",
                "value": "今晚 9 点 (Asia/Shanghai) → 2026-12-02 (Wed) 21:00",
            },
            {"key": "priority", "label": "Priority", "value": "high"},
        ],
    }


@pytest.mark.parametrize(
    ("locale", "impact", "not_set", "priority", "description_label"),
    [
        ("zh-CN", "确认后将创建一条没有截止时间的待办。", "未设置", "低", "描述"),
        (
            "en",
            "After you confirm, a todo with no due time will be created.",
            "Not set",
            "low",
            "Description",
        ),
    ],
)
def test_create_todo_preview_without_a_due_time(
    user: Any, locale: str, impact: str, not_set: str, priority: str, description_label: str
) -> None:
    args = {"title": "买牛奶", "description": "两盒", "priority": "低"}
    card = preview("create_todo", args, context_for(user, locale))
    assert card["impact"] == impact
    values = {row["key"]: (row["label"], row["value"]) for row in card["details"]}
    assert values["due_at"][1] == not_set
    assert values["priority"][1] == priority
    assert values["description"] == (description_label, "两盒")
    assert "overdue" not in values


@pytest.mark.parametrize(
    ("locale", "label", "value", "note"),
    [
        ("zh-CN", "逾期", "截止时间已过", "注意：该截止时间已过，待办会显示为逾期。"),
        (
            "en",
            "Overdue",
            "The due time has passed",
            "Note: this due time has passed; the todo will show as overdue.",
        ),
    ],
)
def test_past_due_time_within_a_year_is_accepted_and_flagged_overdue(
    user: Any, locale: str, label: str, value: str, note: str
) -> None:
    card = preview(
        "create_todo", {"title": "交房租", "due_at": "昨天下午3点"}, context_for(user, locale)
    )
    assert "2026-12-01 15:00 (Asia/Shanghai)" in card["impact"]
    assert card["impact"].endswith(note)
    assert {"key": "overdue", "label": label, "value": value} in card["details"]


def test_future_due_time_is_not_flagged_overdue(user: Any) -> None:
    card = preview("create_todo", {"title": "交房租", "due_at": "明天"}, context_for(user))
    assert all(row["key"] != "overdue" for row in card["details"])
    assert "逾期" not in card["impact"]


def test_due_time_is_shown_in_the_users_zone_with_its_name(make_user: Any) -> None:
    zone = ZoneInfo("America/New_York")
    person = make_user("zoe", time_zone="America/New_York")
    context = context_for(person, "en", zone=zone, now=NOW.astimezone(zone))
    card = preview("create_todo", {"title": "x", "due_at": "2026-12-03T13:00:00Z"}, context)
    assert card["impact"] == (
        "After you confirm, a todo due 2026-12-03 08:00 (America/New_York) will be created."
    )


def test_preview_is_built_only_from_prepared_args(
    user: Any, django_assert_num_queries: Any
) -> None:
    todo = todo_create(owner=user, title="提交周报", priority=2)
    context = context_for(user)
    result = enforce_tool_policy(
        tool_name="delete_todo", args={"todo_id": str(todo.id)}, context=context, phase="prepare"
    )
    Todo.objects.all().delete()  # the database no longer knows the todo
    tool = registry.get("delete_todo")
    with django_assert_num_queries(0):
        again = tool.preview(result.args, context)
    assert again == result.preview


@pytest.mark.parametrize(
    ("locale", "title", "impact", "status_row"),
    [
        (
            "zh-CN",
            "将待办标记为已完成",
            "确认后将把待办「提交周报」从“未完成”改为“已完成”。",
            {
                "key": "status",
                "label": "状态",
                "value": "未完成 → 已完成",
                "current": "未完成",
                "new": "已完成",
            },
        ),
        (
            "en",
            "Mark todo as done",
            "After you confirm, the todo “提交周报” will change from open to done.",
            {
                "key": "status",
                "label": "Status",
                "value": "open → done",
                "current": "open",
                "new": "done",
            },
        ),
    ],
)
def test_status_preview_shows_the_current_status_next_to_the_new_one(
    user: Any, locale: str, title: str, impact: str, status_row: dict[str, str]
) -> None:
    todo_create(owner=user, title="提交周报")
    card = preview(
        "set_todo_status", {"title": "提交周报", "status": "完成"}, context_for(user, locale)
    )
    assert card["title"] == title
    assert card["target"] == "提交周报"
    assert card["impact"] == impact
    assert status_row in card["details"]


def test_update_preview_shows_current_values_next_to_new_ones(user: Any) -> None:
    todo_create(owner=user, title="提交周报", due_at=datetime(2026, 12, 2, 21, 0, tzinfo=SHANGHAI))
    args = {"todoTitle": "提交周报", "newTitle": "提交月报", "dueAt": "明天下午三点"}
    card = preview("update_todo", args, context_for(user))
    assert card["title"] == "修改待办"
    assert card["target"] == "提交周报"
    assert card["impact"] == "确认后将修改待办「提交周报」的 2 项内容：标题、截止时间。"
    rows = {row["key"]: row for row in card["details"] if "current" in row}
    assert rows["title"]["value"] == "提交周报 → 提交月报"
    assert rows["due_at"] == {
        "key": "due_at",
        "label": "截止时间",
        "value": "2026-12-02 21:00 (Asia/Shanghai) → 2026-12-03 15:00 (Asia/Shanghai)",
        "current": "2026-12-02 21:00 (Asia/Shanghai)",
        "new": "2026-12-03 15:00 (Asia/Shanghai)",
    }
    en = preview("update_todo", args, context_for(user, "en"))
    assert en["impact"] == (
        "After you confirm, 2 fields of the todo “提交周报” will change: Title, Due."
    )


def test_delete_preview_shows_what_will_be_lost(user: Any) -> None:
    todo_create(
        owner=user,
        title="提交周报",
        priority=2,
        due_at=datetime(2026, 11, 30, 18, 0, tzinfo=SHANGHAI),
    )
    card = preview("delete_todo", {"todo_title": "提交周报"}, context_for(user, "en"))
    assert card == {
        "title": "Delete todo",
        "target": "提交周报",
        "impact": "After you confirm, the todo “提交周报” moves to the trash (you can undo it, "
        "or restore it from the trash).",
        "details": [
            {"key": "title", "label": "Title", "value": "提交周报"},
            {"key": "priority", "label": "Priority", "value": "high"},
            {"key": "due_at", "label": "Due", "value": "2026-11-30 18:00 (Asia/Shanghai)"},
            {"key": "status", "label": "Status", "value": "open"},
            {"key": "overdue", "label": "Overdue", "value": "The due time has passed"},
        ],
    }


def test_note_previews_in_both_languages(user: Any) -> None:
    args = {"title": "读书笔记", "content": "第一章 读完", "tags": "书, 阅读"}
    zh = preview("create_note", args, context_for(user))
    assert zh == {
        "title": "创建笔记",
        "target": "读书笔记",
        "impact": "确认后将创建笔记「读书笔记」。",
        "details": [
            {"key": "title", "label": "标题", "value": "读书笔记"},
            {"key": "tags", "label": "标签", "value": "书、阅读"},
            {"key": "content", "label": "内容", "value": "第一章 读完"},
        ],
    }
    en = preview("create_note", args, context_for(user, "en"))
    assert en["impact"] == "After you confirm, the note “读书笔记” will be created."
    assert {"key": "tags", "label": "Tags", "value": "书, 阅读"} in en["details"]

    note_create(owner=user, title="读书笔记", content="旧", tags=["书"])
    update = preview("update_note", {"noteTitle": "读书笔记", "tags": []}, context_for(user, "en"))
    assert update["title"] == "Update note"
    assert update["impact"] == (
        "After you confirm, 1 field of the note “读书笔记” will change: Tags."
    )
    assert {
        "key": "tags",
        "label": "Tags",
        "value": "书 → None",
        "current": "书",
        "new": "None",
    } in update["details"]


@pytest.mark.parametrize("tool_name", [t.name for t in registry.tools() if t.is_write])
def test_every_write_preview_has_the_card_shape_in_both_languages(
    user: Any, tool_name: str
) -> None:
    todo = todo_create(owner=user, title="提交周报")
    note = note_create(owner=user, title="读书笔记")
    args = {
        "create_todo": {"title": "x", "due_at": "明天"},
        "set_todo_status": {"todo_id": str(todo.id), "status": "done"},
        "update_todo": {"todo_id": str(todo.id), "priority": 0},
        "delete_todo": {"todo_id": str(todo.id)},
        "create_note": {"title": "y"},
        "update_note": {"note_id": str(note.id), "content": "z"},
    }[tool_name]
    cards = {
        locale: preview(tool_name, args, context_for(user, locale)) for locale in ("zh-CN", "en")
    }
    for card in cards.values():
        assert set(card) == {"title", "target", "impact", "details"}
        assert all(
            isinstance(card[key], str) and card[key] for key in ("title", "target", "impact")
        )
        assert card["details"]
        for row in card["details"]:
            assert {"key", "label", "value"} <= set(row)
            assert all(isinstance(row[key], str) for key in ("key", "label", "value"))
    assert cards["zh-CN"]["title"] != cards["en"]["title"]
    assert cards["zh-CN"]["impact"] != cards["en"]["impact"]


@pytest.mark.parametrize(
    ("locale", "said", "reading"),
    [
        ("zh-CN", "下周一", "下周一 (Asia/Shanghai) → 2026-12-07 (周一) 23:59"),
        ("en", "next Monday", "next Monday (Asia/Shanghai) → 2026-12-07 (Mon) 23:59"),
        ("zh-CN", "明天  8:30pm", "明天 8:30pm (Asia/Shanghai) → 2026-12-03 (周四) 20:30"),
        ("en", "tomorrow 8.30pm", "tomorrow 8.30pm (Asia/Shanghai) → 2026-12-03 (Thu) 20:30"),
    ],
)
def test_the_card_shows_how_a_natural_due_time_was_read(
    user: Any, locale: str, said: str, reading: str
) -> None:
    card = preview("create_todo", {"title": "周报", "due_at": said}, context_for(user, locale))
    rows = {row["key"]: row for row in card["details"]}
    assert rows["due_at_reading"]["value"] == reading
    keys = [row["key"] for row in card["details"]]
    assert keys.index("due_at_reading") == keys.index("due_at") + 1


@pytest.mark.parametrize("due_at", ["2026-12-07T23:59:00+08:00", "2026-12-07 10:00", "2026-12-07"])
def test_a_plain_iso_due_time_needs_no_reading_row(user: Any, due_at: str) -> None:
    result = enforce_tool_policy(
        tool_name="create_todo",
        args={"title": "周报", "due_at": due_at},
        context=context_for(user),
        phase="prepare",
    )
    assert "due_at_said" not in result.args
    assert result.preview is not None
    assert "due_at_reading" not in {row["key"] for row in result.preview["details"]}


def test_an_update_card_shows_how_the_new_due_time_was_read(user: Any) -> None:
    todo = todo_create(owner=user, title="周报")
    card = preview(
        "update_todo", {"todo_id": str(todo.id), "due_at": "下周五下午3点"}, context_for(user)
    )
    rows = {row["key"]: row["value"] for row in card["details"]}
    assert rows["due_at"] == "未设置 → 2026-12-11 15:00 (Asia/Shanghai)"
    assert rows["due_at_reading"] == "下周五下午3点 (Asia/Shanghai) → 2026-12-11 (周五) 15:00"
