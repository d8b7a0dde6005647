"""The todo pages: ``/todos/`` (filters, paging, a create form) and ``/todos/<id>/`` (edit,
complete or reopen, delete). Every write goes through ``todos.services`` with the version the
page was rendered at, exactly as the API's PATCH does.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from django.db.models import QuerySet
from django.utils import timezone

from lightnote.audit import CHANNEL_PAGE
from lightnote.errors import LightNoteError
from lightnote.pages.items import (
    ItemPages,
    PageViewer,
    form_local_datetime,
    form_text,
    form_version,
)
from lightnote.texts.i18n import define_messages, translate
from lightnote.texts.page_texts import define_page_texts
from lightnote.times import is_plausible
from todos import list_views, selectors, services
from todos.models import Todo

PAGE_TEXTS = define_page_texts(
    {
        "PAGE_TODOS_HEADING": ("我的待办", "My todos"),
        "PAGE_TODOS_EMPTY": (
            "还没有待办。在上面新建一条，或在对话里让助手帮你创建。",
            "No todos yet. Add one above, or ask the assistant in the chat.",
        ),
        "PAGE_TODOS_EMPTY_FILTERED": ("没有符合条件的待办。", "No todo matches these filters."),
        "PAGE_TODO_NEW": ("新建待办", "New todo"),
        "PAGE_TODO_TITLE": ("标题", "Title"),
        "PAGE_TODO_DESCRIPTION": ("描述", "Description"),
        "PAGE_TODO_PRIORITY": ("优先级", "Priority"),
        "PAGE_TODO_DUE": ("截止时间", "Due"),
        "PAGE_TODO_STATUS": ("状态", "Status"),
        "PAGE_TODO_OPEN": ("未完成", "Open"),
        "PAGE_TODO_DONE": ("已完成", "Done"),
        "PAGE_TODO_ALL": ("全部", "All"),
        "PAGE_TODO_PRIORITY_0": ("低", "Low"),
        "PAGE_TODO_PRIORITY_1": ("普通", "Normal"),
        "PAGE_TODO_PRIORITY_2": ("高", "High"),
        "PAGE_TODO_NO_DUE": ("无截止时间", "No due time"),
        "PAGE_TODO_ADD": ("添加", "Add"),
        "PAGE_TODO_SAVE": ("保存修改", "Save changes"),
        "PAGE_TODO_MARK_DONE": ("标记为完成", "Mark as done"),
        "PAGE_TODO_REOPEN": ("重新打开", "Reopen"),
        "PAGE_TODO_DELETE": ("删除", "Delete"),
        "PAGE_TODO_DELETE_CONFIRM": (
            "确定删除这条待办吗？此操作会立即生效。",
            "Delete this todo? This takes effect at once.",
        ),
        "PAGE_TODO_DELETE_YES": ("确定删除", "Yes, delete"),
        "PAGE_TODO_CANCEL": ("取消", "Cancel"),
        "PAGE_TODO_BACK": ("返回待办列表", "Back to my todos"),
        "PAGE_TODO_CREATED_AT": ("创建于", "Created"),
        "PAGE_TODO_UPDATED_AT": ("更新于", "Updated"),
        "PAGE_TODO_VERSION": ("版本", "Version"),
        "PAGE_TODO_REMIND_AT": ("提醒时间", "Remind me at"),
        "PAGE_TODO_RECURRENCE": ("重复", "Repeats"),
        "PAGE_TODO_NO_REPEAT": ("不重复", "Does not repeat"),
        "PAGE_TODO_RECURRENCE_HINT": (
            "重复的待办需要截止时间；完成一次后会自动生成下一次。",
            "A repeating todo needs a due time; completing one makes the next.",
        ),
        "PAGE_TODO_REPEATS_PREFIX": ("重复：", "Repeats "),
        "PAGE_TODO_VIEWS": ("视图", "Views"),
        "PAGE_TODO_VIEW_OPEN": ("未完成", "Open"),
        "PAGE_TODO_VIEW_TODAY": ("今天", "Today"),
        "PAGE_TODO_VIEW_UPCOMING": ("即将到期", "Upcoming"),
        "PAGE_TODO_VIEW_OVERDUE": ("已逾期", "Overdue"),
        "PAGE_TODO_VIEW_DONE": ("已完成", "Done"),
        "PAGE_TODO_VIEW_ALL": ("全部", "All"),
        "PAGE_TODO_SORT": ("排序", "Sort"),
        "PAGE_TODO_SORT_DUE": ("按截止时间", "By due time"),
        "PAGE_TODO_SORT_PRIORITY": ("按优先级", "By priority"),
        "PAGE_TODO_SORT_CREATED": ("按创建时间", "By creation"),
        "PAGE_TODO_OVERDUE": ("已逾期", "Overdue"),
        "PAGE_TODO_COMPLETE_ONE": ("完成", "Done"),
        "PAGE_TODO_COMPLETE_LABEL": ("标记为完成：", "Mark as done:"),
        "PAGE_TODO_NARROWED": ("只显示：{filters}", "Showing only: {filters}"),
        "PAGE_TODO_SHOW_ALL_OF_VIEW": ("不限", "Show all"),
        "PAGE_TODO_WITHIN_TODAY": ("今天到期", "due today"),
        "PAGE_TODO_WITHIN_TOMORROW": ("明天到期", "due tomorrow"),
        "PAGE_TODO_WITHIN_THIS_WEEK": ("本周到期", "due this week"),
        "PAGE_TODO_WITHIN_NEXT_WEEK": ("下周到期", "due next week"),
        "PAGE_TODO_WITH_PRIORITY": ("优先级{level}", "{level} priority"),
    }
)
# The repeat rules the form offers (their words come from todos.recurrence).
RECURRENCE_PRESETS = (
    "FREQ=DAILY",
    "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
    "FREQ=WEEKLY",
    "FREQ=WEEKLY;INTERVAL=2",
    "FREQ=MONTHLY",
    "FREQ=MONTHLY;BYMONTHDAY=-1",
    "FREQ=YEARLY",
)
define_messages(
    {
        "PAGE_TODO_CREATED": ("已创建待办「{title}」。", "Todo “{title}” added."),
        "PAGE_TODO_SAVED": ("已保存待办「{title}」。", "Todo “{title}” saved."),
        "PAGE_TODO_MARKED_DONE": ("待办「{title}」已完成。", "Todo “{title}” is done."),
        "PAGE_TODO_REOPENED": ("待办「{title}」已重新打开。", "Todo “{title}” is open again."),
        "PAGE_TODO_DELETED": ("已删除待办「{title}」。", "Todo “{title}” deleted."),
    }
)


def _narrowed(viewer: PageViewer, query: dict[str, str]) -> str:
    """What a list narrowed beyond its view shows ("Showing only: due tomorrow"), or ""."""
    parts = []
    if query["within"] in list_views.WINDOWS:
        parts.append(translate(f"PAGE_TODO_WITHIN_{query['within'].upper()}", viewer.locale))
    level = list_views.priority_filter(query["priority"])
    if level is not None:
        name = translate(f"PAGE_TODO_PRIORITY_{level}", viewer.locale)
        parts.append(translate("PAGE_TODO_WITH_PRIORITY", viewer.locale, level=name))
    if not parts:
        return ""
    filters = " · ".join(parts)
    return translate("PAGE_TODO_NARROWED", viewer.locale, filters=filters)


def _priority(value: str) -> int:
    try:
        return services.check_priority(int(value))
    except ValueError:
        raise services.priority_invalid() from None


def _new_due(viewer: PageViewer, value: str) -> datetime | None:
    """A due time typed into a form, in the plausible window the API and the agent use
    (:func:`lightnote.times.is_plausible`), else ``TODO_DUE_AT_SUSPICIOUS``."""
    due = form_local_datetime(value, viewer.zone, "TODO_DUE_AT_INVALID")
    if due is not None and not is_plausible(due, now=timezone.now()):
        raise LightNoteError("TODO_DUE_AT_SUSPICIOUS", params={"due_at": f"{due:%Y-%m-%d %H:%M}"})
    return due


def _edited_due(viewer: PageViewer, item: Todo, value: str) -> datetime | None:
    """The due time a detail form asks for; an untouched field keeps the stored instant.

    The picker shows minutes only, so re-reading an unchanged field must not drop seconds.
    """
    shown = viewer.local(item.due_at)
    if shown is not None and value.strip() == shown.strftime("%Y-%m-%dT%H:%M"):
        return item.due_at
    return _new_due(viewer, value)


def _new_remind(viewer: PageViewer, value: str) -> datetime | None:
    """A reminder time typed into a form (the owner's wall clock)."""
    remind_at = form_local_datetime(value, viewer.zone, "TODO_REMIND_AT_INVALID")
    if remind_at is not None and not is_plausible(remind_at, now=timezone.now()):
        raise LightNoteError("TODO_REMIND_AT_INVALID")
    return remind_at


def _series_changes(viewer: PageViewer, form: dict[str, str], item: Todo | None) -> dict[str, Any]:
    """The reminder and rule a form gives (a field the form lacks is left as it is)."""
    changes: dict[str, Any] = {}
    if "remind_at" in form:
        shown = viewer.local(item.remind_at) if item is not None else None
        if shown is not None and form["remind_at"].strip() == shown.strftime("%Y-%m-%dT%H:%M"):
            changes["remind_at"] = item.remind_at if item is not None else None
        else:
            changes["remind_at"] = _new_remind(viewer, form["remind_at"])
    if "recurrence" in form:
        changes["recurrence"] = form["recurrence"].strip() or None
    return changes


class TodoPages(ItemPages):
    kind = "todo"
    list_template = "todos/list.html"
    detail_template = "todos/detail.html"
    text_codes = PAGE_TEXTS

    query_keys = ("view", "sort", "q", "status", "within", "priority")

    def rows(self, viewer: PageViewer, query: dict[str, str]) -> QuerySet[Any]:
        bounds = list_views.bounds_for(viewer.zone)
        view = list_views.view_name(query["view"], query["status"])
        window = list_views.WINDOWS.get(query["within"])
        todos = selectors.todo_list(
            owner=viewer.owner,
            keyword=query["q"] or None,
            due_within=window(bounds) if window else None,
            priority=list_views.priority_filter(query["priority"]),
        )
        return (
            todos.filter(list_views.VIEWS[view](bounds))
            .annotate(overdue=list_views.overdue_flag(bounds.now))
            .order_by(*list_views.SORTS[list_views.sort_name(query["sort"])])
        )

    def list_context(self, viewer: PageViewer, query: dict[str, str]) -> dict[str, Any]:
        view = list_views.view_name(query["view"], query["status"])
        sort = list_views.sort_name(query["sort"])
        back = "?" + urlencode({key: value for key, value in query.items() if value})
        return {
            "views": [
                (name, translate(f"PAGE_TODO_VIEW_{name.upper()}", viewer.locale))
                for name in list_views.VIEWS
            ],
            "view": view,
            "sorts": [
                (name, translate(f"PAGE_TODO_SORT_{name.upper()}", viewer.locale))
                for name in list_views.SORTS
            ],
            "sort": sort,
            "back": back if back != "?" else "",
            "narrowed": _narrowed(viewer, query),
        }

    def trash_rows(self, viewer: PageViewer) -> QuerySet[Any]:
        return selectors.todo_trash_list(owner=viewer.owner)

    def restore(self, viewer: PageViewer, item_id: str, version: int) -> Todo:
        return services.todo_restore(
            owner=viewer.owner, todo_id=item_id, expected_version=version, channel=CHANNEL_PAGE
        )

    def get(self, viewer: PageViewer, item_id: str) -> Todo:
        return selectors.todo_get(owner=viewer.owner, todo_id=item_id)

    def create(self, viewer: PageViewer, form: dict[str, str]) -> Todo:
        return services.todo_create(
            owner=viewer.owner,
            title=form.get("title", ""),
            description=form_text(form.get("description", "")),
            priority=_priority(form.get("priority", "1")),
            due_at=_new_due(viewer, form.get("due_at", "")),
            **_series_changes(viewer, form, None),
            channel=CHANNEL_PAGE,
        )

    def act(self, viewer: PageViewer, item: Todo, action: str, form: dict[str, str]) -> str:
        version = form_version(form)
        if action == "save":
            services.todo_update(
                owner=viewer.owner,
                todo_id=item.id,
                expected_version=version,
                title=form.get("title", ""),
                description=form_text(form.get("description", "")),
                priority=_priority(form.get("priority", "1")),
                due_at=_edited_due(viewer, item, form.get("due_at", "")),
                **_series_changes(viewer, form, item),
                channel=CHANNEL_PAGE,
            )
            return "PAGE_TODO_SAVED"
        if action in ("done", "open"):
            services.todo_set_status(
                owner=viewer.owner,
                todo_id=item.id,
                status=action,
                expected_version=version,
                channel=CHANNEL_PAGE,
            )
            return "PAGE_TODO_MARKED_DONE" if action == "done" else "PAGE_TODO_REOPENED"
        if action == "delete":
            services.todo_delete(
                owner=viewer.owner, todo_id=item.id, expected_version=version, channel=CHANNEL_PAGE
            )
            return "PAGE_TODO_DELETED"
        raise LightNoteError("PAGE_ACTION_UNKNOWN")


pages = TodoPages()
