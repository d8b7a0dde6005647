"""English read requests: the read vocabulary and ``read_intent`` (query_todos / search_notes).

The patterns here (``READ_HEAD``, ``SEARCH_HEAD``, ``QUESTION``, ``TOPIC``, the item words)
are also what the grammar's order in ``agent.planners.en`` tests first: a read can never
become a card.
"""

from __future__ import annotations

import re
from typing import Any

from agent.planners import phrases
from agent.planners.en.slots import take_en_time
from agent.planners.lexicon import (
    QUOTED,
    STRIP,
    Intent,
    read_filters,
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
    r"|to\s+(?:get|be)\s+(?:done|finished)|need\s+doing"
    r"|left|(?:haven'?t|have\s+not|hasn'?t|not\s+yet|never|didn'?t)\s+(?:yet\s+)?"
    r"(?:finished|finish|done|completed?))\b"
)
_DONE = r"\b(?:done|completed?|finish(?:ed)?|closed|checked\s+off)\b"
# "overdue tasks", "what's past due": open and past their due time
_OVERDUE = r"\b(?:overdue|past[\s-]due|late|behind\s+on|missed(?:\s+the)?\s+deadlines?)\b"
# A time that is a span or vague: no bound for "due before".
_VAGUE_DUE = (
    r"\b(?:week|weekend|month|year|later|sometime|soon|asap|eventually|while|bit|one\s+day)\b"
)
_PRIORITY_READ = (
    (2, r"\b(?:high(?:est)?[\s-]priority|top[\s-]priority|urgent|important|critical)\b"),
    (0, r"\b(?:low(?:est)?[\s-]priority|not\s+urgent|unimportant)\b"),
    (1, r"\b(?:normal|medium|regular)[\s-]priority\b"),
)
_FILLER = re.compile(
    rf"\b(?:show|list|display|view|see|give|get|me|my|all|the|a|an|of|what|what's|whats|is|are|do|does|"
    rf"did|have|has|i|which|how|many|there|any|find|search|look|up|for|through|at|pull|check|open|"
    rf"browse|tell|in|on|with|about|mentioning|containing|matching|regarding|that|mention|current|"
    rf"currently|still|right|now|again|please|everything|stuff|items?|things?|to\s+do|left|got|need|"
    rf"needs|gotta|should|must|anything|something|due|overdue|doing|this|week|from|by|like|looks?|send|already|single|every|ones?"
    rf"|high(?:est)?|low(?:est)?|top|normal|medium|regular|priority|urgent|important|critical|late|past|behind"
    rf"|missed|deadlines?|before|until|related|to|plate|next|busy|schedule|plans?|am|we|you"
    rf"|soon|coming|expiring|expire|and|yet|or|but|not|going\s+on|going(?=\s*[?.!]?\s*$))\b|"
    rf"{_OPEN}|{_DONE}|{TODO_WORD}|{NOTE_WORD}|['’](?:s|ve|re|ll|d)\b|[?.!,:;]",
    re.IGNORECASE,
)


def _keyword(text: str) -> str:
    quoted = re.search(QUOTED, text)
    if quoted:
        return unquote(quoted.group())
    # "Which todos have Renew in the title?", "todos with passport in the title"
    titled = re.search(
        r"\b(?:have|has|with|containing|contain|contains)\s+(?:the\s+word\s+)?(?P<kw>.+?)\s+in\s+"
        r"(?:the|their|its)\s+(?:titles?|names?)\b",
        text,
        re.IGNORECASE,
    )
    if titled:
        return unquote(titled.group("kw"))
    about = re.search(
        r"\b(?:about|mentioning|mentions?|containing|matching|regarding|with|on|for|related\s+to"
        r"|to\s+do\s+with|that\s+says|says|talks\s+about)\s+(?P<kw>.+?)\s*"
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
    # "due tomorrow" / "due this week": due within that day or ISO week ("due by tomorrow":
    # up to it); an agenda ("what do I have tomorrow") is what is due by its end, overdue too
    said_due = phrases.search("says_due", text, "en")
    window = phrases.window(due, text, "en") if due and said_due else None
    if window:
        args["within"] = window
    elif due and re.fullmatch(r"this\s+week", due, re.IGNORECASE) and args.get("status") != "done":
        args["due_before"] = "sunday this week"  # this week: by its Sunday
    elif due and re.fullmatch(r"next\s+week", due, re.IGNORECASE) and args.get("status") != "done":
        args["due_before"] = "sunday next week"  # next week: by its Sunday
    elif due and (
        re.fullmatch(r"today|tomorrow|tonight|tmrw|tmr", due, re.IGNORECASE)
        or (
            not re.search(_VAGUE_DUE, due, re.I)
            and re.search(r"\b(?:due|before|by|until|deadline)\b", text, re.I)
        )
    ):
        args["due_before"] = due
    if re.search(r"\b(?:due\s+soon|coming\s+up|expiring\s+soon|about\s+to\s+expire)\b", text, re.I):
        args["due_before"] = "in 3 days"  # "due soon": within the next three days
        args.setdefault("status", "open")
    if keyword:
        args["keyword"] = keyword
    if read_filters(text, args, priorities=_PRIORITY_READ, overdue=_OVERDUE):
        todos = True
    return read_of(notes=notes, todos=todos, keyword=keyword, todo_args=args, text=text)


# Explicit lookups read whatever follows; a question must be about the user's items.
SEARCH_HEAD = re.compile(
    r"^(?:show|list|display|view|give\s+me|get\s+me|get\s+my|find|search|look\s+up|look\s+for|"
    r"look\s+through|pull\s+up|check(?!\s+off)|open\s+my|browse)\b",
    re.IGNORECASE,
)
TOPIC = re.compile(
    rf"{TODO_WORD}|{NOTE_WORD}|{_OPEN}|{_DONE}|\b(?:due|overdue|late\s+on|behind\s+on|past\s+due"
    r"|in\s+(?:the|their|its)\s+titles?"
    r"|deadline|priority|to\s+do|plans?|my\s+list|"
    r"schedule|need\s+to|have\s+to|on\s+my\s+plate|up\s+next|busy)\b|[\"“‘「]"
    # "what do I have next week", "what have I got on tomorrow", "do I have anything today",
    # "what's on for friday": what the user has on, by its time
    r"|\bwhat\s+do\s+i\s+have\b|\bwhat\s+have\s+i\s+got\b"
    r"|\b(?:do\s+i\s+have|have\s+i\s+got)\s+anything\b|^anything\s+(?:on|planned|scheduled|due)\b"
    r"|\bwhat(?:'s|’s|\s+is)\s+on\s+(?:for\s+)?(?:today|tonight|tomorrow|this|next|mon|tue|wed|thu"
    r"|fri|sat|sun)",
    re.IGNORECASE,
)
QUESTION = re.compile(
    r"\?\s*$|^(?:what|which|how|when|where|who|do|does|did|is|are|am|have|has)\b", re.I
)
