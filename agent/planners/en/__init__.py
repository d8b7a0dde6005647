"""The English grammar of the rules planner: one sentence -> one :class:`Intent`.

Same order as the Chinese grammar (the cardinal rule): a read verb at the head (show, list,
what are, find, search, look up…) or a question makes a read; then the explicit write forms
(create/add/remind me, delete, mark/complete/reopen, change/move/rename…); then a bare
"event + time" ("call mom tomorrow at 5pm"), which is asked about, never carded; else help.

Laid out as ``agent.planners.zh`` is: the order here, then ``slots``, ``reads``, ``writes``
and ``answers``; the builders both languages share are in ``agent.planners.lexicon``.
"""

from __future__ import annotations

import re

from agent.planners.en.answers import (
    is_no,
    is_yes,
    ordinal,
    pick_reference,
    pick_time,
    priority_answer,
    time_answer,
)
from agent.planners.en.reads import (
    NOTE_WORD,
    QUESTION,
    READ_HEAD,
    SEARCH_HEAD,
    TODO_WORD,
    TOPIC,
    read_intent,
)
from agent.planners.en.slots import clean_title, is_time, merge_time, strip_polite, take_en_time
from agent.planners.en.writes import (
    DELETE_ACCOUNT,
    WRITE_HEAD,
    WRITE_WORDS,
    note_fields,
    todo_fields,
    write_intent,
)
from agent.planners.lexicon import HELP, SLOT_INTENT, Intent, ask, outside_quotes

_NEGATED = re.compile(r"^(?:don'?t|do\s+not|never|no\s+need\s+to|not\s+now)\b", re.IGNORECASE)
_GREETING = re.compile(
    r"(?:good\s+(?:morning|afternoon|evening|night|day)|morning|evening|hi|hello|hey|yo|thanks|"
    r"thank\s+you|ok|okay|cool|great|nice)(?:\s+there)?[!.]*",
    re.IGNORECASE,
)


def interpret(text: str) -> Intent:
    """Return what one English sentence asks for; reads first, writes only when explicit."""
    if DELETE_ACCOUNT.search(outside_quotes(text)):  # not a todo titled "删除账号"
        return Intent("delete_account", {})
    body = strip_polite(text)
    if not body or _GREETING.fullmatch(body) or _NEGATED.match(body):
        return HELP  # "don't delete Pay rent": a request NOT to write is no write
    if SEARCH_HEAD.match(body) and not WRITE_HEAD.match(body):
        return read_intent(body)
    if (READ_HEAD.match(body) or QUESTION.search(text)) and not WRITE_HEAD.match(body):
        return read_intent(body) if TOPIC.search(body) else HELP
    write = write_intent(body)
    if write is not None:
        return write
    mentions = re.search(TODO_WORD, body, re.I) or re.search(NOTE_WORD, body, re.I)
    if mentions and not WRITE_WORDS.search(body):
        return read_intent(body)
    rest, due = take_en_time(body)
    title = clean_title(rest)
    if due and title and not WRITE_WORDS.search(title) and len(title.split()) <= 12:
        return ask("create_todo", SLOT_INTENT, title=title, due_at=due)
    need = re.match(
        r"^i\s+(?:need|have|must|gotta|got|should)\s+(?:to\s+)?(?P<title>.+)$", body, re.I
    )
    if need and not WRITE_WORDS.search(need.group("title")):
        # "I need to buy milk": probably a todo, but nothing asked for one: ask.
        return ask("create_todo", SLOT_INTENT, title=clean_title(need.group("title")))
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
