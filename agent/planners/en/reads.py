"""English read requests: the read vocabulary and ``read_intent`` (query_todos / search_notes).

The patterns here (``READ_HEAD``, ``SEARCH_HEAD``, ``QUESTION``, ``TOPIC``, the item words)
are also what the grammar's order in ``agent.planners.en`` tests first: a read can never
become a card.
"""

from __future__ import annotations

import re
from typing import Any

from agent.planners.en.slots import take_en_time
from agent.planners.lexicon import (
    QUOTED,
    STRIP,
    Intent,
    read_of,
    unquote,
)

# --- reads -------------------------------------------------------------------------------

TODO_WORD = (
    r"\b(?:todos?|to-dos?|to\s+do\s+list|to-do\s+list|tasks?|task\s+list|reminders?|agenda"
    r"|checklist)\b"
)
NOTE_WORD = r"\bnotes?\b"
READ_HEAD = re.compile(
    r"^(?:show|list|display|view|see|give\s+me|get\s+me|get\s+my|what(?:'s|\s+is|\s+are|\s+do|\s+does|"
    r"\s+did|\s+have|\s+tasks|\s+todos|\s+notes)?|which|how\s+many|do\s+i\s+have|have\s+i|did\s+i|"
    r"are\s+there|is\s+there|any|find|search|look\s+up|look\s+for|look\s+through|look\s+at|pull\s+up|"
    r"check(?!\s+off)|open\s+my|browse|tell\s+me|remind\s+me\s+what|where(?:'s|\s+is|\s+are))\b",
    re.IGNORECASE,
)
_OPEN = (
    r"\b(?:open|pending|unfinished|incomplete|outstanding|remaining|not\s+done|undone|active"
    r"|left|(?:haven'?t|have\s+not|hasn'?t|not\s+yet|never|didn'?t)\s+(?:yet\s+)?"
    r"(?:finished|finish|done|completed?))\b"
)
_DONE = r"\b(?:done|completed?|finish(?:ed)?|closed|checked\s+off)\b"
_FILLER = re.compile(
    rf"\b(?:show|list|display|view|see|give|get|me|my|all|the|a|an|of|what|what's|whats|is|are|do|does|"
    rf"did|have|has|i|which|how|many|there|any|find|search|look|up|for|through|at|pull|check|open|"
    rf"browse|tell|in|on|with|about|mentioning|containing|matching|regarding|that|mention|current|"
    rf"currently|still|right|now|again|please|everything|stuff|items?|things?|to\s+do|left|got|need|"
    rf"needs|gotta|should|must|anything|something|due|overdue|doing|this|week|from|by|like|looks?|send|already|single|every)\b|"
    rf"{_OPEN}|{_DONE}|{TODO_WORD}|{NOTE_WORD}|['’](?:s|ve|re|ll|d)\b|[?.!,:;]",
    re.IGNORECASE,
)


def _keyword(text: str) -> str:
    quoted = re.search(QUOTED, text)
    if quoted:
        return unquote(quoted.group())
    about = re.search(
        r"\b(?:about|mentioning|containing|matching|regarding|with|on|for)\s+(?P<kw>.+?)\s*"
        r"(?:\bin\s+(?:my\s+|the\s+)?notes?\b.*)?[.?!]?\s*$",
        text,
        re.IGNORECASE,
    )
    if about:
        keyword = _FILLER.sub(" ", about.group("kw"))
        if keyword.strip():
            return " ".join(keyword.split())
    return " ".join(_FILLER.sub(" ", text).split()).strip(STRIP)


def read_intent(text: str) -> Intent:
    notes = re.search(NOTE_WORD, text, re.IGNORECASE) is not None
    todos = re.search(TODO_WORD, text, re.IGNORECASE) is not None
    args: dict[str, Any] = {}
    if re.search(_OPEN, text, re.IGNORECASE):
        args["status"] = "open"
    elif re.search(_DONE, text, re.IGNORECASE):
        args["status"] = "done"
    # "the stuff I've already finished": a todo's status (not "open my note about …")
    todos = todos or ("status" in args and not notes)
    rest, due = take_en_time(text)
    keyword = _keyword(rest if due else text)
    if not re.search(r"\w", keyword):
        keyword = ""  # what the fillers leave ("'") is no keyword
    if due and re.fullmatch(r"today|tomorrow|tonight|tmrw|tmr", due, re.IGNORECASE):
        args["due_before"] = due
    if keyword:
        args["keyword"] = keyword
    return read_of(notes=notes, todos=todos, keyword=keyword, todo_args=args)


# Explicit lookups read whatever follows; a question must be about the user's items.
SEARCH_HEAD = re.compile(
    r"^(?:show|list|display|view|give\s+me|get\s+me|get\s+my|find|search|look\s+up|look\s+for|"
    r"look\s+through|pull\s+up|check(?!\s+off)|open\s+my|browse)\b",
    re.IGNORECASE,
)
TOPIC = re.compile(
    rf"{TODO_WORD}|{NOTE_WORD}|{_OPEN}|{_DONE}|\b(?:due|overdue|deadline|priority|to\s+do|plans?|my\s+list|"
    r"schedule|need\s+to|have\s+to|on\s+my\s+plate|up\s+next|busy)\b|[\"“‘「]",
    re.IGNORECASE,
)
QUESTION = re.compile(
    r"\?\s*$|^(?:what|which|how|when|where|who|do|does|did|is|are|have|has)\b", re.I
)
