"""The Chinese grammar of the rules planner: one sentence -> one :class:`Intent`.

The order is the cardinal rule: a read verb at the head (列出 查看 看看 显示 搜索 找…) makes a
read, whatever follows; then the explicit write forms (each needs its verb: 创建/添加/记…,
删除, 完成/标记为, 改为/推迟到…, 提醒我); then questions and bare collections (我的待办有哪些);
then a bare "time + event" ("下周一上午开会"), which is *asked about*, never carded; anything
else is help. Times stay the user's words; the tool's ``prepare`` parses them.

This module holds that order (:func:`interpret`) and is the grammar interface the rules
planner and ``agent.followups`` use; the pieces live in ``slots`` (times, priorities, titles,
politeness), ``reads``, ``writes`` and ``answers`` (follow-up answers).
"""

from __future__ import annotations

import re

from agent.planners.lexicon import HELP, SLOT_INTENT, Intent, ask, outside_quotes
from agent.planners.zh.answers import (
    is_no,
    is_yes,
    ordinal,
    pick_reference,
    pick_time,
    priority_answer,
    time_answer,
)
from agent.planners.zh.reads import (
    DONE,
    NOTE_WORD,
    OPEN,
    QUESTION,
    READ_HEAD,
    READ_IN,
    READ_TAIL,
    TODO_WORD,
    TOPIC,
    read_intent,
)
from agent.planners.zh.slots import clean_title, is_time, merge_time, strip_polite, take_zh_time
from agent.planners.zh.writes import (
    DELETE_ACCOUNT,
    TODO_PHRASE,
    WRITE_HEAD,
    WRITE_WORDS,
    note_fields,
    todo_fields,
    write_intent,
)


def _is_read(text: str) -> bool:
    if READ_HEAD.match(text) or READ_TAIL.search(text):
        return True
    if QUESTION.search(text) and not WRITE_HEAD.match(text):
        return True
    # A bare collection: 我的待办, 未完成的任务, 所有笔记, 待办列表.
    return bool(
        re.fullmatch(
            rf"(?:我的|所有的?|全部的?|今天的?|明天的?|最近的?|(?:{OPEN})的?|(?:{DONE})的?)*\s*"
            rf"(?:{TODO_WORD}|{NOTE_WORD})(?:列表|清单)?",
            text,
            re.IGNORECASE,
        )
    )


_NEGATED = re.compile(
    r"^(?:不要|不用|别|先别|先不要|不必|无需|不需要|千万别|没必要|暂时不要|暂时别|不想)"
)
# 如果明天下雨，就把体检预约删掉: a write on a condition the planner cannot check is no write.
_CONDITIONAL = re.compile(r"^(?:如果|要是|假如|万一|若是|倘若|一旦)")
_GREETING = re.compile(
    r"(?:早上好|早安|上午好|中午好|下午好|晚上好|晚安|你好|您好|嗨|哈喽|在吗|在不在|谢谢|多谢|好的|嗯|ok)"
    r"[！!。.~～]*",
    re.IGNORECASE,
)


def interpret(text: str) -> Intent:
    """Return what one Chinese sentence asks for; reads first, writes only when explicit."""
    if DELETE_ACCOUNT.search(outside_quotes(text)):  # not a todo titled "删除账号"
        return Intent("delete_account", {})
    body = strip_polite(text)
    if not body or _GREETING.fullmatch(body) or _NEGATED.match(body) or _CONDITIONAL.match(body):
        return HELP  # "不要删除买菜", "不用提醒我开会": a request NOT to write is no write
    if READ_HEAD.match(body) or READ_TAIL.search(body) or READ_IN.match(body):
        return read_intent(body)
    # A question is a read unless it is a polite wrapper around an explicit write
    # ("能帮我把周报标记为完成吗" asks for the write; "周报完成了吗" asks about it).
    question = bool(QUESTION.search(text))
    if question and not WRITE_HEAD.match(body):
        return read_intent(body) if TOPIC.search(body) else HELP
    write = write_intent(body)
    if write is not None:
        return write
    if _is_read(body):
        return read_intent(body)
    match = TODO_PHRASE.match(body)
    if match:
        intent = todo_fields(match.group("body"))
        if intent.tool == "create_todo" and not intent.slot and "due_at" in intent.args:
            return intent  # 下周一上午 10 点开会的待办: the todo and its time are both named
        return read_intent(body)
    rest, due = take_zh_time(
        re.sub(r"^(?:记一下|记下来|记下|记录一下|记一笔|记着|记住)\s*", "", body)
    )
    title = clean_title(rest)
    if due and title and not question and not WRITE_WORDS.search(title):
        # 下周一上午开会: probably a todo, but nothing asked for one: ask, never guess.
        return ask("create_todo", SLOT_INTENT, title=title, due_at=due)
    return HELP


__all__ = [
    "interpret",
    "is_no",
    "is_time",
    "is_yes",
    "merge_time",
    "note_fields",
    "ordinal",
    "pick_reference",
    "pick_time",
    "priority_answer",
    "strip_polite",
    "time_answer",
    "todo_fields",
]
