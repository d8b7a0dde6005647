"""The texts of the todo tools: errors, card labels and values, previews, results, replies."""

from __future__ import annotations

from lightnote.texts.i18n import define_messages

define_messages(
    {
        "TODO_TITLE_AMBIGUOUS": (
            "有 {count} 条待办的标题都是“{title}”，请说明是哪一条。",
            "{count} todos are titled “{title}”; say which one.",
        ),
        "TODO_STATUS_NOOP": (
            "待办「{title}」已经是这个状态，无需更改。",
            "The todo “{title}” already has that status; nothing to change.",
        ),
        "TODO_UPDATE_NOOP": (
            "没有需要修改的内容：未给出新值，或新值与当前值相同。",
            "Nothing to change: no new value was given, or it equals the current one.",
        ),
        "TODO_LABEL_TITLE": ("标题", "Title"),
        "TODO_LABEL_DESCRIPTION": ("描述", "Description"),
        "TODO_LABEL_PRIORITY": ("优先级", "Priority"),
        "TODO_LABEL_DUE_AT": ("截止时间", "Due"),
        "TODO_LABEL_DUE_AT_READING": ("截止时间的理解", "Due time read as"),
        "TODO_DUE_AT_READING": (
            "{said} ({zone}) → {date} ({weekday}) {time}",
            "{said} ({zone}) → {date} ({weekday}) {time}",
        ),
        "TODO_WEEKDAY_0": ("周一", "Mon"),
        "TODO_WEEKDAY_1": ("周二", "Tue"),
        "TODO_WEEKDAY_2": ("周三", "Wed"),
        "TODO_WEEKDAY_3": ("周四", "Thu"),
        "TODO_WEEKDAY_4": ("周五", "Fri"),
        "TODO_WEEKDAY_5": ("周六", "Sat"),
        "TODO_WEEKDAY_6": ("周日", "Sun"),
        "TODO_LABEL_STATUS": ("状态", "Status"),
        "TODO_LABEL_REMIND_AT": ("提醒时间", "Reminder"),
        "TODO_LABEL_RECURRENCE": ("重复", "Repeats"),
        "TODO_LABEL_NEXT_OCCURRENCES": ("接下来几次", "Next occurrences"),
        "TODO_PREVIEW_REMIND_NOTE": (
            "到 {remind_at} 会提醒你。",
            " You will be reminded at {remind_at}.",
        ),
        "TODO_PREVIEW_REPEAT_NOTE": (
            "完成后会按“{rule}”生成下一次。",
            " Once done, the next one follows {rule}.",
        ),
        "TODO_LABEL_OVERDUE": ("逾期", "Overdue"),
        "TODO_VALUE_OVERDUE": ("截止时间已过", "The due time has passed"),
        "TODO_PRIORITY_LABEL_0": ("低", "low"),
        "TODO_PRIORITY_LABEL_1": ("普通", "normal"),
        "TODO_PRIORITY_LABEL_2": ("高", "high"),
        "TODO_STATUS_LABEL_OPEN": ("未完成", "open"),
        "TODO_STATUS_LABEL_DONE": ("已完成", "done"),
        "TODO_PREVIEW_CREATE_TITLE": ("创建待办", "Create todo"),
        "TODO_PREVIEW_CREATE_IMPACT_DUE": (
            "确认后将创建一条截止于 {due_at} 的待办。",
            "After you confirm, a todo due {due_at} will be created.",
        ),
        "TODO_PREVIEW_CREATE_IMPACT_NO_DUE": (
            "确认后将创建一条没有截止时间的待办。",
            "After you confirm, a todo with no due time will be created.",
        ),
        "TODO_PREVIEW_OVERDUE_NOTE": (
            "注意：该截止时间已过，待办会显示为逾期。",
            "Note: this due time has passed; the todo will show as overdue.",
        ),
        "TODO_PREVIEW_STATUS_TITLE_DONE": ("将待办标记为已完成", "Mark todo as done"),
        "TODO_PREVIEW_STATUS_TITLE_OPEN": ("将待办重新打开", "Reopen todo"),
        "TODO_PREVIEW_STATUS_IMPACT": (
            "确认后将把待办「{title}」从“{current}”改为“{new}”。",
            "After you confirm, the todo “{title}” will change from {current} to {new}.",
        ),
        "TODO_PREVIEW_UPDATE_TITLE": ("修改待办", "Update todo"),
        "TODO_PREVIEW_UPDATE_IMPACT": (
            "确认后将修改待办「{title}」的 {count} 项内容：{fields}。",
            "After you confirm, {count} {count:field|fields} of the todo “{title}” "
            "will change: {fields}.",
        ),
        "TODO_PREVIEW_DELETE_TITLE": ("删除待办", "Delete todo"),
        "TODO_PREVIEW_DELETE_IMPACT": (
            "确认后将把待办「{title}」移入回收站（之后可撤销或从回收站恢复）。",
            "After you confirm, the todo “{title}” moves to the trash (you can undo it, "
            "or restore it from the trash).",
        ),
        "TODO_PREVIEW_RESTORE_TITLE": ("恢复待办", "Restore todo"),
        "TODO_PREVIEW_RESTORE_IMPACT": (
            "确认后将把待办「{title}」从回收站恢复。",
            "After you confirm, the todo “{title}” comes back from the trash.",
        ),
        "TODO_RESULT_RESTORED": ("已恢复待办「{title}」。", "Restored the todo “{title}”."),
        "REPLY_TODO_RESTORED": ("已恢复待办「{title}」。", 'Restored the todo "{title}".'),
        "TODO_RESULT_CREATED": ("已创建待办「{title}」。", "Created the todo “{title}”."),
        "TODO_RESULT_STATUS": (
            "待办「{title}」已标记为{status}。",
            "The todo “{title}” is now {status}.",
        ),
        "TODO_RESULT_UPDATED": ("已更新待办「{title}」。", "Updated the todo “{title}”."),
        "TODO_RESULT_DELETED": ("已删除待办「{title}」。", "Deleted the todo “{title}”."),
        "TODO_RESULT_QUERY": ("找到 {count} 条待办：", "Found {count} {count:todo|todos}:"),
        "REPLY_TODO_CREATED": ("已为你创建待办「{title}」。", 'Created the todo "{title}".'),
        "REPLY_TODO_CREATED_DUE": (
            "已为你创建待办「{title}」，截止 {due}。",
            'Created the todo "{title}", due {due}.',
        ),
        "REPLY_TODO_DONE": (
            "已将待办「{title}」标记为完成。",
            'Marked the todo "{title}" as done.',
        ),
        "REPLY_TODO_REOPENED": (
            "已将待办「{title}」标记为未完成。",
            'Marked the todo "{title}" as open again.',
        ),
        "REPLY_TODO_UPDATED": ("已更新待办「{title}」。", 'Updated the todo "{title}".'),
        "REPLY_TODO_UPDATED_DUE": (
            "已更新待办「{title}」，截止 {due}。",
            'Updated the todo "{title}"; it is now due {due}.',
        ),
        "REPLY_TODO_DELETED": ("已删除待办「{title}」。", 'Deleted the todo "{title}".'),
        "TODO_RESULT_QUERY_EMPTY": ("没有找到符合条件的待办。", "No todo matches."),
        "TODO_RESULT_QUERY_LINE": (
            "- {title}（{status}，优先级{priority}，截止 {due_at}）",
            "- {title} ({status}, {priority} priority, due {due_at})",
        ),
    }
)
