"""The registered todo write tools: create, set status, update, delete, restore (undo only).

Each is a thin adapter: its schema and aliases (``schemas``), ``prepare`` through the
service's checks, a card from ``cards`` and the shared adapters of ``agent.tools``, and
``execute`` through ``todos.services``. None runs before the user confirms its card.
"""

from __future__ import annotations

from typing import Any, ClassVar

from agent.tools.adapters import (
    ItemCardTool,
    changed_values,
    run_versioned,
    undo_update,
    versioned_target,
)
from agent.tools.base import Compensation, ExecutionResult, ToolContext, WriteTool
from agent.tools.formatting import change_detail, detail, parse_aware, text, update_preview
from agent.tools.schema import (
    UUID_SCHEMA,
    VERSION_SCHEMA,
    closed_object,
    exactly_one_of,
    snapshot_schema,
    strip_text,
)
from agent.tools.tool_registry import registry
from lightnote.errors import LightNoteError
from todos import selectors as todo_selectors
from todos import services as todo_services
from todos.agent_tools.cards import (
    current_details,
    due_label,
    due_reading_detail,
    field_label,
    field_value,
    is_overdue,
    overdue_detail,
    prepare_due,
    prepare_recurrence,
    prepare_remind,
    priority_label,
    recurrence_details,
    resolve_todo,
    same_value,
    series_start,
    shifted,
    status_label,
    todo_data,
    todo_snapshot,
    with_unset,
)
from todos.agent_tools.schemas import (
    CHANGE_FIELDS,
    CURRENT_TODO,
    DESCRIPTION_ALIASES,
    DUE_ALIASES,
    DUE_AT_SCHEMA,
    ID_ALIASES,
    PREPARED_DUE_AT,
    PREPARED_DUE_AT_SAID,
    PREPARED_RECURRENCE,
    PRIORITY_ALIASES,
    PRIORITY_CHANGE_SCHEMA,
    PRIORITY_SCHEMA,
    PRIORITY_STEPS,
    RECURRENCE_ALIASES,
    RECURRENCE_SCHEMA,
    REMIND_ALIASES,
    REMIND_AT_SCHEMA,
    STATUS_ALIASES,
    STATUS_SCHEMA,
    TITLE_REF_ALIASES,
    TODO_ID_SCHEMA,
    TODO_TITLE_REF_SCHEMA,
    normalize_priority,
    normalize_status,
    optional_text,
)
from todos.models import PRIORITIES, Todo


class TodoWriteTool(WriteTool):
    resource_type = "todo"

    def normalize_value(self, name: str, value: Any) -> Any:
        if name == "priority":
            return normalize_priority(value)
        if name == "status":
            return normalize_status(value)
        if name in ("todo_id", "todo_title"):
            return strip_text(value)
        if name in ("due_at", "remind_at", "recurrence"):
            return optional_text(value) if value is not None else None
        return value


@registry.register
class CreateTodoTool(TodoWriteTool):
    name = "create_todo"
    capability_id = "todo.create"
    result_code = "TODO_RESULT_CREATED"
    description: ClassVar[dict[str, str]] = {
        "zh-CN": "为用户创建一条待办。需要用户确认卡片后才会执行。",
        "en": "Create a todo for the user. Runs only after the user confirms the card.",
    }
    schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "title": {"type": "string", "description": "The todo's title."},
            "description": {"type": "string"},
            "priority": PRIORITY_SCHEMA,
            "due_at": DUE_AT_SCHEMA,
            "remind_at": REMIND_AT_SCHEMA,
            "recurrence": RECURRENCE_SCHEMA,
        },
        required=("title",),
    )
    prepared_schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "title": {"type": "string", "minLength": 1},
            "description": {"type": "string"},
            "priority": {"type": "integer", "enum": PRIORITIES},
            "due_at": PREPARED_DUE_AT,
            "due_at_said": PREPARED_DUE_AT_SAID,
            "remind_at": PREPARED_DUE_AT,
            "recurrence": PREPARED_RECURRENCE,
        },
        required=("title", "description", "priority", "due_at"),
    )
    declared_aliases: ClassVar[dict[str, str]] = {
        "taskTitle": "title",
        "task_title": "title",
        "todoTitle": "title",
        "todo_title": "title",
        "task": "title",
        "name": "title",
        **DESCRIPTION_ALIASES,
        **PRIORITY_ALIASES,
        **DUE_ALIASES,
        **REMIND_ALIASES,
        **RECURRENCE_ALIASES,
    }

    def prepare(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        todo_services.check_room(owner=context.subject)  # at the cap: refused, no card
        due_at, said = prepare_due(args.get("due_at"), context)
        # a series is due at an occurrence: "every other day" from today, 每周一 9点 on Monday
        said_due = due_at
        due_at = series_start(args.get("recurrence"), context, due_at=said_due)
        prepared = {
            "title": todo_services.check_title(args.get("title")),
            "description": todo_services.check_description(args.get("description")),
            "priority": todo_services.check_priority(
                args.get("priority", Todo.Priority.NORMAL.value)
            ),
            "due_at": due_at,
        }
        if said is not None:
            prepared["due_at_said"] = said
        remind_at = prepare_remind(args.get("remind_at"), context)
        if remind_at is not None:
            # moved with the due time to the series' first occurrence, the offset kept
            prepared["remind_at"] = shifted(remind_at, said_due, due_at)
        recurrence = prepare_recurrence(args.get("recurrence"), due_at, context)
        if recurrence is not None:
            prepared["recurrence"] = recurrence
        return prepared

    def preview(self, prepared: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        locale = context.locale
        due_at = prepared["due_at"]
        overdue = is_overdue(due_at, context)
        if due_at:
            impact = text(
                "TODO_PREVIEW_CREATE_IMPACT_DUE", locale, due_at=due_label(due_at, context)
            )
        else:
            impact = text("TODO_PREVIEW_CREATE_IMPACT_NO_DUE", locale)
        if overdue:
            # Two sentences: English puts a space between them, Chinese none.
            impact += (" " if locale == "en" else "") + text("TODO_PREVIEW_OVERDUE_NOTE", locale)
        remind_at, recurrence = prepared.get("remind_at"), prepared.get("recurrence")
        if remind_at:
            shown = due_label(remind_at, context)
            impact += text("TODO_PREVIEW_REMIND_NOTE", locale, remind_at=shown)
        if recurrence:
            rule = field_value("recurrence", recurrence, context)
            impact += text("TODO_PREVIEW_REPEAT_NOTE", locale, rule=rule)
        details = [
            detail("title", field_label("title", locale), prepared["title"]),
            detail("due_at", field_label("due_at", locale), due_label(due_at, context)),
        ]
        if due_at and prepared.get("due_at_said"):
            details.append(due_reading_detail(prepared["due_at_said"], due_at, context))
        if remind_at:
            details.append(
                detail("remind_at", field_label("remind_at", locale), due_label(remind_at, context))
            )
        details += recurrence_details(recurrence, due_at, context)
        details += [
            detail(
                "priority",
                field_label("priority", locale),
                priority_label(prepared["priority"], locale),
            ),
        ]
        if prepared["description"]:
            details.append(
                detail("description", field_label("description", locale), prepared["description"])
            )
        if overdue:
            details.append(overdue_detail(context))
        return {
            "title": text("TODO_PREVIEW_CREATE_TITLE", locale),
            "target": prepared["title"],
            "impact": impact,
            "details": details,
        }

    def execute(self, prepared: dict[str, Any], context: ToolContext) -> ExecutionResult:
        todo = todo_services.todo_create(
            owner=context.subject,
            title=prepared["title"],
            description=prepared["description"],
            priority=prepared["priority"],
            due_at=parse_aware(prepared["due_at"]) if prepared["due_at"] else None,
            **self._series_args(prepared),
            actor=context.actor,
            channel=context.channel,
        )
        return self.write_result(todo_data(todo, context), context)

    @staticmethod
    def _series_args(prepared: dict[str, Any]) -> dict[str, Any]:
        """The reminder and the rule, as the service takes them (only those prepared)."""
        given: dict[str, Any] = {}
        if prepared.get("remind_at"):
            given["remind_at"] = parse_aware(prepared["remind_at"])
        if prepared.get("recurrence"):
            given["recurrence"] = prepared["recurrence"]
        return given

    def reply_code(self, data: dict[str, Any]) -> str:
        return "REPLY_TODO_CREATED_DUE" if data.get("due_at") else "REPLY_TODO_CREATED"

    def compensation(self, prepared: dict[str, Any], result: dict[str, Any]) -> Compensation:
        """Undo a create: delete (to the trash) the todo it made, as it was made."""
        return Compensation("delete_todo", {"todo_id": result["id"]}, result["version"])


@registry.register
class SetTodoStatusTool(TodoWriteTool):
    name = "set_todo_status"
    capability_id = "todo.status.set"
    description: ClassVar[dict[str, str]] = {
        "zh-CN": "把用户的一条待办标记为完成（done）或重新打开（open）。需要用户确认。",
        "en": "Mark one of the user's todos done, or reopen it. Runs only after confirmation.",
    }
    schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "todo_id": TODO_ID_SCHEMA,
            "todo_title": TODO_TITLE_REF_SCHEMA,
            "status": STATUS_SCHEMA,
        },
        required=("status",),
        **exactly_one_of("todo_id", "todo_title"),
    )
    prepared_schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "todo_id": UUID_SCHEMA,
            "status": STATUS_SCHEMA,
            "expected_version": VERSION_SCHEMA,
            "current": closed_object(
                {"title": {"type": "string"}, "status": STATUS_SCHEMA},
                required=("title", "status"),
            ),
        },
        required=("todo_id", "status", "expected_version", "current"),
    )
    declared_aliases: ClassVar[dict[str, str]] = {
        **ID_ALIASES,
        **TITLE_REF_ALIASES,
        "title": "todo_title",
        "name": "todo_title",
        **STATUS_ALIASES,
        "done": "status",
        "isDone": "status",
        "is_done": "status",
    }

    def prepare(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        todo = resolve_todo(args, context)
        status = todo_services.check_status(args["status"])
        if todo.status == status:
            raise LightNoteError("TODO_STATUS_NOOP", status=409, params={"title": todo.title})
        current = {"title": todo.title, "status": str(todo.status)}
        return versioned_target("todo_id", todo, status=status, current=current)

    def preview(self, prepared: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        locale = context.locale
        title = prepared["current"]["title"]
        current = status_label(prepared["current"]["status"], locale)
        new = status_label(prepared["status"], locale)
        return {
            "title": text(f"TODO_PREVIEW_STATUS_TITLE_{prepared['status'].upper()}", locale),
            "target": title,
            "impact": text(
                "TODO_PREVIEW_STATUS_IMPACT", locale, title=title, current=current, new=new
            ),
            "details": [
                detail("title", field_label("title", locale), title),
                change_detail("status", field_label("status", locale), current, new, locale),
            ],
        }

    def execute(self, prepared: dict[str, Any], context: ToolContext) -> ExecutionResult:
        todo = run_versioned(
            todo_services.todo_set_status, "todo_id", prepared, context, status=prepared["status"]
        )
        return self.write_result(todo_data(todo, context), context)

    def reply_code(self, data: dict[str, Any]) -> str:
        return "REPLY_TODO_REOPENED" if data.get("status") == "open" else "REPLY_TODO_DONE"

    def compensation(self, prepared: dict[str, Any], result: dict[str, Any]) -> Compensation:
        """Undo a status change: set the status it had before (reopen / mark done)."""
        return Compensation(
            "set_todo_status",
            {"todo_id": prepared["todo_id"], "status": prepared["current"]["status"]},
            result["version"],
        )

    def summarize(self, data: dict[str, Any], locale: str) -> str:
        return text(
            "TODO_RESULT_STATUS",
            locale,
            title=data["title"],
            status=status_label(data["status"], locale),
        )


@registry.register
class UpdateTodoTool(TodoWriteTool):
    name = "update_todo"
    capability_id = "todo.update"
    result_code = "TODO_RESULT_UPDATED"
    # An explicit null clears the due time, the reminder, or the repeat ("stop repeating").
    nullable = frozenset({"due_at", "remind_at", "recurrence"})
    description: ClassVar[dict[str, str]] = {
        "zh-CN": "修改用户一条待办的标题、描述、优先级或截止时间（due_at 为 null 表示清除）。"
        "需要用户确认。",
        "en": "Change a todo's title, description, priority or due time (due_at null clears "
        "it). Runs only after confirmation.",
    }
    schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "todo_id": TODO_ID_SCHEMA,
            "todo_title": TODO_TITLE_REF_SCHEMA,
            "title": {"type": "string", "description": "The new title."},
            "description": {"type": "string"},
            "priority": PRIORITY_CHANGE_SCHEMA,
            "due_at": {**DUE_AT_SCHEMA, "type": ["string", "null"]},
            "remind_at": {**REMIND_AT_SCHEMA, "type": ["string", "null"]},
            "recurrence": {**RECURRENCE_SCHEMA, "type": ["string", "null"]},
        },
        **exactly_one_of("todo_id", "todo_title"),
    )
    prepared_schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "todo_id": UUID_SCHEMA,
            "expected_version": VERSION_SCHEMA,
            "title": {"type": "string", "minLength": 1},
            "description": {"type": "string"},
            "priority": {"type": "integer", "enum": PRIORITIES},
            "due_at": PREPARED_DUE_AT,
            "due_at_said": PREPARED_DUE_AT_SAID,
            "remind_at": PREPARED_DUE_AT,
            "recurrence": PREPARED_RECURRENCE,
            "current": CURRENT_TODO,
        },
        required=("todo_id", "expected_version", "current"),
        anyOf=[{"required": [field]} for field in CHANGE_FIELDS],
    )
    declared_aliases: ClassVar[dict[str, str]] = {
        **ID_ALIASES,
        **TITLE_REF_ALIASES,
        "newTitle": "title",
        "new_title": "title",
        **DESCRIPTION_ALIASES,
        "newDescription": "description",
        "new_description": "description",
        **PRIORITY_ALIASES,
        "newPriority": "priority",
        "new_priority": "priority",
        **DUE_ALIASES,
        "newDueAt": "due_at",
        "new_due_at": "due_at",
        **REMIND_ALIASES,
        **RECURRENCE_ALIASES,
    }

    def prepare(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        todo = resolve_todo(args, context)
        current = todo_snapshot(todo, context)
        wanted = args.get("priority")
        step = PRIORITY_STEPS.get(wanted) if isinstance(wanted, str) else None
        if step is not None:
            # "raise" / "lower": one step from the level read now (the card's expected
            # version keeps it from applying to a priority changed meanwhile); at the top or
            # the bottom already, nothing changes (TODO_UPDATE_NOOP).
            level = min(max(current["priority"] + step, min(PRIORITIES)), max(PRIORITIES))
            args = {**args, "priority": level}
        said: list[str | None] = []

        def check_due(value: Any) -> str | None:
            due_at, as_said = prepare_due(value, context)
            said.append(as_said)
            return due_at

        # A rule is checked against the due time the todo will have: the new one, if given.
        if "due_at" in args:
            due_for_rule = prepare_due(args["due_at"], context)[0]
        else:
            due_for_rule = current["due_at"]

        checks = {
            "title": todo_services.check_title,
            "description": todo_services.check_description,
            "priority": todo_services.check_priority,
            "due_at": check_due,
            "remind_at": lambda value: prepare_remind(value, context),
            "recurrence": lambda value: prepare_recurrence(value, due_for_rule, context),
        }
        changes = changed_values(
            args, checks, with_unset(current), noop_code="TODO_UPDATE_NOOP", same=same_value
        )
        if said and said[0] is not None and changes.get("due_at"):
            changes["due_at_said"] = said[0]
        return versioned_target("todo_id", todo, **changes, current=current)

    def preview(self, prepared: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        locale = context.locale
        current = with_unset(prepared["current"])
        due_at = prepared.get("due_at")

        def shown(field: str) -> tuple[str, str]:
            old = field_value(field, current[field], context)
            return old, field_value(field, prepared[field], context)

        def after(field: str) -> list[dict[str, Any]]:
            if field == "due_at" and due_at and prepared.get("due_at_said"):
                return [due_reading_detail(prepared["due_at_said"], due_at, context)]
            if field == "recurrence" and prepared["recurrence"]:
                start = prepared.get("due_at") or current["due_at"]
                return recurrence_details(prepared["recurrence"], start, context)[1:]
            return []

        card = update_preview(
            title_code="TODO_PREVIEW_UPDATE_TITLE",
            impact_code="TODO_PREVIEW_UPDATE_IMPACT",
            target=current["title"],
            fields=[field for field in CHANGE_FIELDS if field in prepared],
            label=lambda field: field_label(field, locale),
            shown=shown,
            after=after,
            locale=locale,
        )
        if due_at and is_overdue(due_at, context):
            card["details"].append(overdue_detail(context))
        return card

    def execute(self, prepared: dict[str, Any], context: ToolContext) -> ExecutionResult:
        changes = {field: prepared[field] for field in CHANGE_FIELDS if field in prepared}
        for moment in ("due_at", "remind_at"):
            if moment in changes:
                changes[moment] = parse_aware(changes[moment]) if changes[moment] else None
        todo = run_versioned(todo_services.todo_update, "todo_id", prepared, context, **changes)
        return self.write_result(todo_data(todo, context), context)

    def reply_code(self, data: dict[str, Any]) -> str:
        return "REPLY_TODO_UPDATED_DUE" if data.get("due_at") else "REPLY_TODO_UPDATED"

    def compensation(self, prepared: dict[str, Any], result: dict[str, Any]) -> Compensation:
        """Undo an update: put back the values it changed, as the card's snapshot shows them.

        The snapshot is exact: the update ran only at ``expected_version``, the version the
        snapshot was read at.
        """
        return undo_update(
            "update_todo",
            "todo_id",
            prepared,
            with_unset(prepared["current"]),
            CHANGE_FIELDS,
            result["version"],
        )


@registry.register
class DeleteTodoTool(TodoWriteTool, ItemCardTool):
    name = "delete_todo"
    capability_id = "todo.delete"
    description: ClassVar[dict[str, str]] = {
        "zh-CN": "删除用户的一条待办（移入回收站）。需要用户确认。",
        "en": "Delete one of the user's todos (it moves to the trash). Runs only after "
        "confirmation.",
    }
    schema: ClassVar[dict[str, Any]] = closed_object(
        {"todo_id": TODO_ID_SCHEMA, "todo_title": TODO_TITLE_REF_SCHEMA},
        **exactly_one_of("todo_id", "todo_title"),
    )
    prepared_schema: ClassVar[dict[str, Any]] = snapshot_schema("todo_id", CURRENT_TODO)
    declared_aliases: ClassVar[dict[str, str]] = {
        **ID_ALIASES,
        **TITLE_REF_ALIASES,
        "title": "todo_title",
        "name": "todo_title",
    }
    preview_title_code = "TODO_PREVIEW_DELETE_TITLE"
    preview_impact_code = "TODO_PREVIEW_DELETE_IMPACT"
    result_code = "TODO_RESULT_DELETED"
    reply_text_code = "REPLY_TODO_DELETED"

    def prepare(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        todo = resolve_todo(args, context)
        return versioned_target("todo_id", todo, current=todo_snapshot(todo, context))

    def item_details(self, current: dict[str, Any], context: ToolContext) -> list[dict[str, Any]]:
        return current_details(current, context)

    def execute(self, prepared: dict[str, Any], context: ToolContext) -> ExecutionResult:
        deleted_id = run_versioned(todo_services.todo_delete, "todo_id", prepared, context)
        data = {"id": str(deleted_id), **prepared["current"], "deleted": True}
        return self.write_result(data, context)

    def compensation(self, prepared: dict[str, Any], result: dict[str, Any]) -> Compensation:
        """Undo a delete: restore the todo from the trash.

        The delete ran only at ``expected_version`` and bumped it once, so the trashed todo
        is at ``expected_version + 1`` unless it changed since (then the undo is refused).
        """
        return Compensation(
            "restore_todo", {"todo_id": prepared["todo_id"]}, prepared["expected_version"] + 1
        )


@registry.register
class RestoreTodoTool(TodoWriteTool, ItemCardTool):
    """Internal (compensation-only): take a todo an agent card deleted out of the trash."""

    name = "restore_todo"
    capability_id = "todo.restore"
    description: ClassVar[dict[str, str]] = {
        "zh-CN": "从回收站恢复一条待办（仅用于撤销删除）。需要用户确认。",
        "en": "Restore a todo from the trash (only as the undo of a delete). Runs only after "
        "confirmation.",
    }
    schema: ClassVar[dict[str, Any]] = closed_object(
        {"todo_id": TODO_ID_SCHEMA}, required=("todo_id",)
    )
    prepared_schema: ClassVar[dict[str, Any]] = snapshot_schema("todo_id", CURRENT_TODO)
    preview_title_code = "TODO_PREVIEW_RESTORE_TITLE"
    preview_impact_code = "TODO_PREVIEW_RESTORE_IMPACT"
    result_code = "TODO_RESULT_RESTORED"
    reply_text_code = "REPLY_TODO_RESTORED"

    def prepare(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        todo = todo_selectors.todo_trashed_get(owner=context.subject, todo_id=args["todo_id"])
        return versioned_target("todo_id", todo, current=todo_snapshot(todo, context))

    def item_details(self, current: dict[str, Any], context: ToolContext) -> list[dict[str, Any]]:
        return current_details(current, context)

    def execute(self, prepared: dict[str, Any], context: ToolContext) -> ExecutionResult:
        todo = run_versioned(todo_services.todo_restore, "todo_id", prepared, context)
        return self.write_result(todo_data(todo, context), context)
