"""Clarifying questions: short, in the user's language, naming what was understood.

Both engines' clarifications are worded here (the rules grammar's, and those the
conversation derives from a model proposal that failed preparation), so the same request
gets the same question whichever planner runs.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from agent.planners.base import Clarification
from agent.planners.lexicon import (
    SLOT_CHANGE,
    SLOT_DUE,
    SLOT_INTENT,
    SLOT_KEYWORD,
    SLOT_PRIORITY,
    SLOT_TARGET,
    SLOT_TITLE,
)
from agent.timeparse import TimeParseError, parse_time
from agent.timeparse.grammar import scan
from agent.timeparse.normalise import normalise
from lightnote.texts.i18n import define_messages, translate

MAX_CANDIDATES_SHOWN = 5
DETAIL_CHARS = 24

define_messages(
    {
        "PLANNER_ASK_TODO": (
            "要创建什么待办？请告诉我内容，例如：帮我创建一条明天下午三点开会的待办。",
            "What should the todo say? For example: create a todo to call the bank tomorrow 5pm.",
        ),
        "PLANNER_ASK_NOTE": (
            "这条笔记的标题是什么？例如：记一条笔记：标题 周会，内容 讨论下季度计划。",
            "What is the note's title? "
            "For example: create a note titled Standup: discuss the plan.",
        ),
        "PLANNER_ASK_KEYWORD": (
            "要搜索什么？例如：搜索笔记 周报。",
            "What should I search for? For example: search notes for weekly report.",
        ),
        "PLANNER_ASK_TODO_TITLE_DUE": (
            "好的，截止 {due}。这条待办要叫什么？",
            "OK, due {due}. What should the todo say?",
        ),
        "PLANNER_ASK_NOTE_TITLE_CONTENT": (
            "这条笔记的标题是什么？内容我已记下：{content}",
            "What is the note's title? I have its content: {content}",
        ),
        "PLANNER_ASK_DUE_VAGUE": (
            "要创建待办「{title}」，但“{due}”还不够具体：具体几点？例如“{example}”。",
            'To create the todo "{title}" I need an exact time, "{due}" is too vague: '
            'what time? For example "{example}".',
        ),
        "PLANNER_ASK_DUE_TODO": (
            "要创建待办「{title}」：什么时候提醒你？请说一个具体时间，例如“{example}”。",
            'To create the todo "{title}": when should it be due? Give an exact time, for '
            'example "{example}".',
        ),
        "PLANNER_ASK_DUE_UPDATE": (
            "要把待办「{title}」的截止时间改到什么时候？请说一个具体时间，例如“明天下午3点”。",
            'When should the todo "{title}" be due? Give an exact time, for example '
            '"tomorrow 3pm".',
        ),
        "PLANNER_ASK_INTENT": (
            "要为你创建待办「{title}」（{due}）吗？回复“好”确认，或告诉我具体时间。",
            'Shall I create the todo "{title}" ({due})? Say "yes", or give the exact time.',
        ),
        "PLANNER_ASK_INTENT_VAGUE": (
            "要为你创建待办「{title}」吗？“{due}”还不是确切的时间：告诉我具体时间，例如“{example}”。",
            'Shall I create the todo "{title}"? "{due}" is not an exact time: tell me when, '
            'for example "{example}".',
        ),
        "PLANNER_ASK_INTENT_UNTIMED": (
            "要为你创建待办「{title}」吗？回复“好”确认，也可以告诉我截止时间。",
            'Shall I create the todo "{title}"? Say "yes", or tell me when it is due.',
        ),
        "PLANNER_ASK_PRIORITY": (
            "要把待办「{title}」的优先级改成什么？高、普通还是低？",
            'Which priority should the todo "{title}" get: high, normal or low?',
        ),
        "PLANNER_ASK_CHANGE_TODO": (
            "要修改待办「{title}」的什么？例如：截止时间改到明天下午3点、优先级改为高、标题改为……",
            'What should change on the todo "{title}"? For example: due tomorrow 3pm, '
            "high priority, or a new title.",
        ),
        "PLANNER_ASK_CHANGE_NOTE": (
            "要把笔记「{title}」改成什么？例如：内容改为……、标题改为……",
            'What should change in the note "{title}"? For example: content to …, title to ….',
        ),
        "PLANNER_ASK_TARGET": (
            "要{action}哪一条{kind}？请告诉我它的标题。",
            "Which {kind} should I {action}? Tell me its title.",
        ),
        "PLANNER_ASK_TARGET_CHOICES": (
            "要{action}哪一条{kind}？回复序号或标题：\n{choices}",
            "Which {kind} should I {action}? Reply with a number or the title:\n{choices}",
        ),
        "PLANNER_ASK_TARGET_NOT_FOUND": (
            "没有找到标题为「{title}」的{kind}。你指的是哪一条？回复序号或标题：\n{choices}",
            'No {kind} is titled "{title}". Which one did you mean? Reply with a number or '
            "the title:\n{choices}",
        ),
        "PLANNER_CHOICE_LINE": ("{number}. 「{title}」", '{number}. "{title}"'),
        "PLANNER_CHOICE_LINE_DUE": (
            "{number}. 「{title}」（截止 {due}）",
            '{number}. "{title}" (due {due})',
        ),
        "PLANNER_CHOICE_LINE_DETAIL": (
            "{number}. 「{title}」（{detail}）",
            '{number}. "{title}" ({detail})',
        ),
        "PLANNER_CHOICE_LINE_DUE_DETAIL": (
            "{number}. 「{title}」（截止 {due}；{detail}）",
            '{number}. "{title}" (due {due}; {detail})',
        ),
        "PLANNER_CHOICE_CREATED": ("创建于 {at}", "created {at}"),
        "PLANNER_CLARIFY_CANCELLED": (
            "好的，这次不做任何修改。",
            "OK, nothing will be changed.",
        ),
        "PLANNER_KIND_TODO": ("待办", "todo"),
        "PLANNER_KIND_NOTE": ("笔记", "note"),
        "PLANNER_ACTION_DONE": ("标记为完成", "mark as done"),
        "PLANNER_ACTION_REOPEN": ("重新打开", "reopen"),
        "PLANNER_ACTION_UPDATE": ("修改", "change"),
        "PLANNER_ACTION_DELETE": ("删除", "delete"),
    }
)

_TARGET_ACTIONS = {
    "update_todo": "PLANNER_ACTION_UPDATE",
    "update_note": "PLANNER_ACTION_UPDATE",
    "delete_todo": "PLANNER_ACTION_DELETE",
    "delete_note": "PLANNER_ACTION_DELETE",
}


def _kind(tool: str, locale: str) -> str:
    return translate("PLANNER_KIND_NOTE" if "note" in tool else "PLANNER_KIND_TODO", locale)


def _action(clarification: Clarification, locale: str) -> str:
    if clarification.tool == "set_todo_status":
        opened = clarification.args.get("status") == "open"
        return translate("PLANNER_ACTION_REOPEN" if opened else "PLANNER_ACTION_DONE", locale)
    return translate(_TARGET_ACTIONS.get(clarification.tool, "PLANNER_ACTION_UPDATE"), locale)


def _named(args: dict[str, Any]) -> str:
    return str(args.get("todo_title") or args.get("note_title") or args.get("title") or "")


def _minute(value: Any) -> str:
    """An ISO time as the lines show it: ``YYYY-MM-DD HH:MM`` (in the zone it was given in)."""
    return str(value or "")[:16].replace("T", " ")


def _detail(item: dict[str, Any], locale: str) -> str:
    """What tells an item apart from another of the same title and due time: the start of
    its description (a note: its content), else when it was created."""
    text = " ".join(
        str(
            item.get("excerpt") or item.get("description") or item.get("content_excerpt") or ""
        ).split()
    )
    if text:
        return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 1] + "…"
    created = _minute(item.get("created_at"))
    return translate("PLANNER_CHOICE_CREATED", locale, at=created) if created else ""


def choice_lines(candidates: list[dict[str, Any]], locale: str) -> str:
    """Number the candidates the way an answer ("第二个", "the second one") refers to them.

    Each line names the title and the due time; lines that would read the same (several
    items of one title and due time) also say what tells them apart (:func:`_detail`).
    """
    shown = candidates[:MAX_CANDIDATES_SHOWN]
    keys = [(str(item.get("title", "")), _minute(item.get("due_at"))) for item in shown]
    lines = []
    for number, (item, (title, due)) in enumerate(zip(shown, keys, strict=True), start=1):
        detail = _detail(item, locale) if keys.count((title, due)) > 1 else ""
        code = "PLANNER_CHOICE_LINE" + ("_DUE" if due else "") + ("_DETAIL" if detail else "")
        lines.append(translate(code, locale, number=number, title=title, due=due, detail=detail))
    return "\n".join(lines)


def question(
    clarification: Clarification,
    locale: str,
    *,
    candidates: list[dict[str, Any]] | None = None,
    not_found: bool = False,
) -> str:
    """Return the clarifying question for ``clarification`` in ``locale``."""
    args, slot, tool = clarification.args, clarification.slot, clarification.tool
    chinese = locale.startswith("zh")
    if slot == SLOT_TITLE and tool == "create_note":
        content = str(args.get("content") or "")
        if content:
            return translate("PLANNER_ASK_NOTE_TITLE_CONTENT", locale, content=content[:80])
        return translate("PLANNER_ASK_NOTE", locale)
    if slot == SLOT_TITLE:
        if args.get("due_at"):
            return translate("PLANNER_ASK_TODO_TITLE_DUE", locale, due=args["due_at"])
        return translate("PLANNER_ASK_TODO", locale)
    if slot == SLOT_KEYWORD:
        return translate("PLANNER_ASK_KEYWORD", locale)
    if slot == SLOT_INTENT:
        due = str(args.get("due_at") or "").strip()
        if due and not _readable(due):
            # 下班后买菜: a "yes" could not be taken (no time to create it with), so none is
            # invited; the time is
            return translate(
                "PLANNER_ASK_INTENT_VAGUE",
                locale,
                title=args.get("title", ""),
                due=due,
                example=due_example(due, chinese=chinese),
            )
        return translate(
            "PLANNER_ASK_INTENT" if due else "PLANNER_ASK_INTENT_UNTIMED",
            locale,
            title=args.get("title", ""),
            due=due,
        )
    if slot == SLOT_DUE and tool == "create_todo":
        due = str(args.get("due_at") or "").strip()
        return translate(
            "PLANNER_ASK_DUE_VAGUE" if due else "PLANNER_ASK_DUE_TODO",
            locale,
            title=args.get("title", ""),
            due=due,
            example=due_example(due, chinese=chinese),
        )
    if slot == SLOT_DUE:
        return translate("PLANNER_ASK_DUE_UPDATE", locale, title=_named(args))
    if slot == SLOT_PRIORITY:
        return translate("PLANNER_ASK_PRIORITY", locale, title=_named(args))
    if slot == SLOT_CHANGE:
        code = "PLANNER_ASK_CHANGE_NOTE" if tool == "update_note" else "PLANNER_ASK_CHANGE_TODO"
        return translate(code, locale, title=_named(args))
    # SLOT_TARGET
    kind, action = _kind(tool, locale), _action(clarification, locale)
    if candidates:
        choices = choice_lines(candidates, locale)
        if not_found and _named(args):
            return translate(
                "PLANNER_ASK_TARGET_NOT_FOUND",
                locale,
                title=_named(args),
                kind=kind,
                choices=choices,
            )
        return translate(
            "PLANNER_ASK_TARGET_CHOICES", locale, action=action, kind=kind, choices=choices
        )
    return translate("PLANNER_ASK_TARGET", locale, action=action, kind=kind)


# An example clock time for each part of the day (``agent.timeparse.words.PARTS_OF_DAY``),
# inside its hours: 下午 + 10点 would be refused (10 pm is not an afternoon hour).
_EXAMPLE_CLOCKS = {
    "early": ("5点", "5am"),
    "morning": ("9点", "9am"),
    "noon": ("12点", "12pm"),
    "afternoon": ("3点", "3pm"),
    "evening": ("8点", "8pm"),
}
_FALLBACK_EXAMPLE = ("明天下午3点", "tomorrow 3pm")


def _readable(due: str) -> bool:
    """Whether the due-time parser reads ``due`` as one instant (any day will do)."""
    try:
        parse_time(due, now=datetime.now(UTC), zone=ZoneInfo("UTC"))
    except TimeParseError:
        return False
    return True


def due_example(due: str, *, chinese: bool) -> str:
    """An exact time to suggest for the vague ``due`` the user said: that day and part of
    the day with a clock time inside the part ("今晚" -> "今晚8点", "this afternoon" ->
    "this afternoon 3pm"), which the due-time parser itself accepts; else a generic one
    ("以后", "later", a period such as "周末": "明天下午3点" / "tomorrow 3pm")."""
    language = 0 if chinese else 1
    fallback = _FALLBACK_EXAMPLE[language]
    if not due.strip():
        return fallback
    parts = set(scan(normalise(due)).parts)
    if len(parts) != 1:  # no part of the day, or two that disagree
        return fallback
    clock = _EXAMPLE_CLOCKS.get(parts.pop())
    if clock is None:
        return fallback
    example = f"{due}{clock[0]}" if chinese else f"{due} {clock[1]}"
    now = datetime.now(UTC)
    try:
        parse_time(example, now=now, zone=ZoneInfo("UTC"))
    except TimeParseError:
        return fallback  # the vague words do not take a clock time after all
    return example


__all__ = [
    "SLOT_CHANGE",
    "SLOT_DUE",
    "SLOT_INTENT",
    "SLOT_KEYWORD",
    "SLOT_PRIORITY",
    "SLOT_TARGET",
    "SLOT_TITLE",
    "choice_lines",
    "question",
]
