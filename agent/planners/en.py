"""The English grammar of the rules planner: one sentence -> one :class:`Intent`.

Same order as the Chinese grammar (the cardinal rule): a read verb at the head (show, list,
what are, find, search, look up…) or a question makes a read; then the explicit write forms
(create/add/remind me, delete, mark/complete/reopen, change/move/rename…); then a bare
"event + time" ("call mom tomorrow at 5pm"), which is asked about, never carded; else help.
"""

from __future__ import annotations

import re
from typing import Any

from agent.planners.lexicon import (
    HELP,
    ISO,
    QUOTED,
    SLOT_CHANGE,
    SLOT_DUE,
    SLOT_INTENT,
    SLOT_KEYWORD,
    SLOT_PRIORITY,
    SLOT_TARGET,
    SLOT_TITLE,
    STRIP,
    Intent,
    ask,
    priority_of,
    split_tags,
    take_time,
    unquote,
)

# --- time expressions --------------------------------------------------------------------

_WEEKDAY = (
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)"
)
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_COUNT = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|half\s+an?)"
_DAY_PIECES = [
    ISO,
    rf"in\s+{_COUNT}\s+(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?)\b",
    r"in\s+half\s+an\s+hour\b",
    r"the\s+day\s+after\s+tomorrow\b",
    r"(?:tomorrow|tmrw|tmr|today|tonight|yesterday)(?:\s+(?:morning|afternoon|evening|night))?\b",
    r"this\s+(?:morning|afternoon|evening|weekend|week)\b",
    rf"(?:(?:next|this|coming)\s+)?{_WEEKDAY}\b(?:\s+(?:morning|afternoon|evening|night))?",
    r"next\s+(?:week|month|weekend)\b",
    r"end\s+of\s+(?:the\s+)?(?:day|week|month)\b|eod\b|eow\b",
    rf"{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s*\d{{4}}\b)?",
    rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b",
]
_CLOCK_PIECES = [
    r"\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)(?![a-z])",
    r"\d{1,2}:\d{2}\b",
    r"(?:noon|midnight|midday)\b",
    r"\d{1,2}\s*o'?clock\b",
    r"at\s+\d{1,2}(?::\d{2})?(?![\d:])"
    r"(?!\s*(?:am|pm|a\.m\.|p\.m\.|o'?clock|%|percent|people|items|minutes|hours))",
    r"(?:in\s+the\s+)?(?:morning|afternoon|evening)\b",
    r"(?:soon|asap)\b",
]
_PIECE = "|".join(_DAY_PIECES + _CLOCK_PIECES)
TIME = re.compile(
    rf"(?<![\w-])(?:{_PIECE})(?:(?:\s*,\s*|\s+)(?:(?:at|on|by|in)\s+)?(?:{_PIECE}))*",
    re.IGNORECASE,
)
_DAY = re.compile(rf"(?<![\w-])(?:{'|'.join(_DAY_PIECES)})", re.IGNORECASE)
_BEFORE_TIME = re.compile(
    r"(?:\s*,)?\s+(?:at|on|by|before|due(?:\s+(?:on|at|by))?|until|till|for|from)\s*:?\s*$",
    re.IGNORECASE,
)


def take_en_time(text: str) -> tuple[str, str | None]:
    """Cut the time expression out of ``text``; return the rest and the time as typed."""
    return take_time(text, TIME, prefer_last=True, before=_BEFORE_TIME, glue=" ")


def is_time(value: str) -> bool:
    rest, due = take_en_time(value)
    return due is not None and not rest.strip(STRIP)


def merge_time(prior: str, answer: str) -> str:
    """Complete a vague time: "next Monday morning" + "10am" -> "next Monday 10am"."""
    if _DAY.search(answer) or not prior:
        return answer
    day = " ".join(match.group() for match in _DAY.finditer(prior))
    day = re.sub(r"\s+(?:morning|afternoon|evening|night)$", "", day, flags=re.I)
    day = re.sub(r"^tonight$", "today", day, flags=re.I)
    return f"{day} {answer}".strip() if day else answer


# --- priorities, titles ------------------------------------------------------------------

_PRIORITIES = (
    ("low", r"(?:with\s+)?(?:a\s+)?low[\s-]+priority|priority\s*(?::|is|of)?\s*low|not\s+urgent"),
    (
        "normal",
        r"(?:with\s+)?(?:a\s+)?(?:normal|medium)[\s-]+priority|priority\s*(?::|is|of)?\s*"
        r"(?:normal|medium)",
    ),
    (
        "high",
        r"(?:with\s+)?(?:a\s+)?(?:high|top)[\s-]+priority|priority\s*(?::|is|of)?\s*high|urgent(?:ly)?"
        r"|important",
    ),
)


def take_priority(text: str) -> tuple[str, str | None]:
    for priority, pattern in _PRIORITIES:
        match = re.search(rf"[,;]?\s*\b(?:{pattern})\b", text, re.IGNORECASE)
        if match:
            return (text[: match.start()] + " " + text[match.end() :]).strip(), priority
    return text, None


def clean_title(text: str) -> str:
    title = re.sub(r"\s+", " ", text).strip().strip(STRIP)
    title = re.sub(
        r"^(?:to|that|about|for|which\s+is|i\s+(?:need|have|must|should)\s+to|i\s+gotta)\s+",
        "",
        title,
        flags=re.IGNORECASE,
    )
    for _ in range(3):
        title = _BEFORE_TIME.sub("", " " + title).strip().strip(STRIP)
    title = unquote(title)
    return title[:1].upper() + title[1:]


# --- politeness --------------------------------------------------------------------------

_POLITE_HEAD = re.compile(
    r"^(?:(?:hey|hi|hello|ok|okay|so|um|uh|yo)\b[,!\s]*)*"
    r"(?:(?:please|pls|plz|kindly)\b[,\s]*|(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+)?|"
    r"(?:help\s+me|i(?:'d|\s+would)\s+like\s+(?:you\s+)?to|i\s+want\s+(?:you\s+)?to|"
    r"i\s+wanna|let'?s|go\s+ahead\s+and|quickly|just)\s+)*",
    re.IGNORECASE,
)
_POLITE_TAIL = re.compile(
    r"(?:[,\s]*\b(?:please|pls|plz|thanks|thank\s+you|thx|for\s+me|real\s+quick)\b|[.!?…]|\s)+$",
    re.IGNORECASE,
)


def strip_polite(text: str) -> str:
    body = _POLITE_TAIL.sub("", text.strip())
    return _POLITE_HEAD.sub("", body).strip() or body.strip()


# --- reads -------------------------------------------------------------------------------

_TODO_WORD = (
    r"\b(?:todos?|to-dos?|to\s+do\s+list|to-do\s+list|tasks?|task\s+list|reminders?|agenda"
    r"|checklist)\b"
)
_NOTE_WORD = r"\bnotes?\b"
_READ_HEAD = re.compile(
    r"^(?:show|list|display|view|see|give\s+me|get\s+me|get\s+my|what(?:'s|\s+is|\s+are|\s+do|\s+does|"
    r"\s+did|\s+have|\s+tasks|\s+todos|\s+notes)?|which|how\s+many|do\s+i\s+have|have\s+i|did\s+i|"
    r"are\s+there|is\s+there|any|find|search|look\s+up|look\s+for|look\s+through|look\s+at|pull\s+up|"
    r"check(?!\s+off)|open\s+my|browse|tell\s+me|remind\s+me\s+what|where(?:'s|\s+is|\s+are))\b",
    re.IGNORECASE,
)
_OPEN = (
    r"\b(?:open|pending|unfinished|incomplete|outstanding|remaining|not\s+done|undone|active"
    r"|left)\b"
)
_DONE = r"\b(?:done|completed?|finish(?:ed)?|closed|checked\s+off)\b"
_FILLER = re.compile(
    rf"\b(?:show|list|display|view|see|give|get|me|my|all|the|a|an|of|what|what's|whats|is|are|do|does|"
    rf"did|have|has|i|which|how|many|there|any|find|search|look|up|for|through|at|pull|check|open|"
    rf"browse|tell|in|on|with|about|mentioning|containing|matching|regarding|that|mention|current|"
    rf"currently|still|right|now|again|please|everything|stuff|items?|things?|to\s+do|left|got|need|"
    rf"needs|gotta|should|must|anything|something|due|overdue|doing|this|week|from|by)\b|"
    rf"{_OPEN}|{_DONE}|{_TODO_WORD}|{_NOTE_WORD}|'s\b|’s\b|[?.!,:;]",
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
    notes = re.search(_NOTE_WORD, text, re.IGNORECASE) is not None
    todos = re.search(_TODO_WORD, text, re.IGNORECASE) is not None
    args: dict[str, Any] = {}
    if re.search(_OPEN, text, re.IGNORECASE):
        args["status"] = "open"
    elif re.search(_DONE, text, re.IGNORECASE):
        args["status"] = "done"
    rest, due = take_en_time(text)
    keyword = _keyword(rest if due else text)
    if due and re.fullmatch(r"today|tomorrow|tonight|tmrw|tmr", due, re.IGNORECASE):
        args["due_before"] = due
    if keyword:
        args["keyword"] = keyword
    if notes and not todos:
        if not keyword:
            return ask("search_notes", SLOT_KEYWORD)
        return Intent("search_notes", {"keyword": keyword})
    if todos or not keyword:
        return Intent("query_todos", args)
    return Intent(
        "search_notes", {"keyword": keyword}, also=(("query_todos", {"keyword": keyword}),)
    )


# --- writes ------------------------------------------------------------------------------

_TODO = r"(?:todo|to-do|to\s+do|task|reminder|item)s?"
_TITLE = rf"(?P<title>{QUOTED}|.+?)"
_END = r"\s*[.!]?\s*$"
_DONE_STATE = r"done|completed?|finished|closed|checked(?:\s+off)?|complete"
_OPEN_STATE = (
    r"not\s+done|undone|not\s+completed?|incomplete|unfinished|open|pending|active|to\s?do"
)
_WRITE_HEAD = re.compile(
    r"^(?:create|add|make|new|set|put|record|note|write|jot|schedule|remind|delete|remove|erase|"
    r"drop|trash|get\s+rid|mark|complete|finish|check\s+off|tick|close|reopen|re-open|uncheck|"
    r"unmark|change|update|edit|rename|move|reschedule|postpone|push|delay|shift|save|take|start|"
    r"bump|lower|raise|i(?:'ve|\s+have)?\s+(?:finished|completed|done))\b",
    re.IGNORECASE,
)


def _en(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | re.DOTALL)


_DELETE_ACCOUNT = _en(
    r"\b(?:delete|close|remove|cancel|deactivate|terminate|erase)\s+(?:my\s+|the\s+|this\s+)?"
    r"(?:user\s+)?(?:account|profile)\b"
)
_DELETE = _en(
    r"^(?:delete|remove|erase|drop|trash|get\s+rid\s+of|clear)\s+(?:the\s+|my\s+|this\s+|that\s+)?"
    rf"(?:(?P<kind>notes?|todos?|to-dos?|tasks?|reminders?)\b\s*)?(?:titled|called|named)?\s*:?\s*"
    rf"(?P<title>{QUOTED}|.*?)(?:\s+(?P<kind2>note|todo|task))?"
    rf"(?:\s+from\s+my\s+(?:list|todos|tasks|notes))?{_END}"
)
_STATUS = [
    _en(
        r"^(?:mark|set|flag)\s+(?:the\s+|my\s+|this\s+)?(?:(?:todo|to-do|task)\s+)?"
        rf"{_TITLE}\s+(?:as\s+|to\s+)?(?P<state>{_OPEN_STATE}|{_DONE_STATE}){_END}"
    ),
    _en(
        r"^(?P<state>complete|finish|check\s+off|tick\s+off|close|cross\s+off)\s+(?:the\s+|my\s+)?"
        rf"(?:(?:todo|to-do|task)\s*:?\s*)?{_TITLE}(?:\s+(?:todo|task))?{_END}"
    ),
    _en(
        r"^(?P<state>reopen|re-open|uncheck|unmark|undo)\s+(?:the\s+|my\s+)?"
        rf"(?:(?:todo|to-do|task)\s*:?\s*)?{_TITLE}(?:\s+(?:todo|task))?{_END}"
    ),
    _en(
        r"^i(?:'ve|\s+have)?\s+(?:just\s+)?(?P<state>finished|completed|done)\s+(?:with\s+)?"
        rf"(?:the\s+|my\s+)?(?:(?:todo|to-do|task)\s+)?{_TITLE}{_END}"
    ),
    _en(
        rf"^(?:the\s+)?(?:(?:todo|task)\s+)?(?P<title>{QUOTED})\s+is\s+(?:now\s+)?"
        rf"(?P<state>done|finished|completed|not\s+done|open){_END}"
    ),
]
_UPDATE_NOTE = [
    _en(
        r"^(?:change|set|update|replace)\s+(?:the\s+)?(?P<field>content|text|body|title|name|tags)"
        rf"\s+(?:of|for|in|on)\s+(?:the\s+|my\s+)?note\s+{_TITLE}\s+(?:to|with)\s+"
        rf"(?P<value>.+?){_END}"
    ),
    _en(rf"^rename\s+(?:the\s+|my\s+)?note\s+{_TITLE}\s+(?:to|as)\s+(?P<value>.+?){_END}"),
    _en(
        rf"^(?:update|change|edit)\s+(?:the\s+|my\s+)?note\s+{_TITLE}\s+"
        rf"(?:to\s+say|to\s+read|to|with)\s*:?\s+(?P<value>.+?){_END}"
    ),
]
_FIELD = r"due\s+(?:date|time)|deadline|due|priority|title|name|description|notes?"
_UPDATE_TODO = [
    _en(
        rf"^(?:change|set|update|move|push|make)\s+(?:the\s+)?(?P<field>{_FIELD})\s+(?:of|for|on)\s+"
        rf"(?:the\s+|my\s+)?(?:(?:todo|to-do|task)\s+)?{_TITLE}\s+to\s+(?P<value>.+?){_END}"
    ),
    _en(
        rf"^(?:change|set|update|move|push|make)\s+(?:the\s+|my\s+)?(?:(?:todo|to-do|task)\s+)?"
        rf"{_TITLE}(?:'s|’s)\s+(?P<field>{_FIELD})\s+to\s+(?P<value>.+?){_END}"
    ),
    _en(
        rf"^(?P<verb>rename)\s+(?:the\s+|my\s+)?(?:(?:todo|to-do|task)\s+)?{_TITLE}\s+"
        rf"(?:to|as)\s+(?P<value>.+?){_END}"
    ),
    _en(
        r"^(?P<verb>move|reschedule|postpone|push(?:\s+back)?|delay|shift|change|update|bump)"
        rf"\s+(?:the\s+|my\s+)?(?:(?:todo|to-do|task)\s+)?{_TITLE}\s+(?:to|until|till)\s+"
        rf"(?P<value>.+?){_END}"
    ),
    _en(
        rf"^(?:make|set|mark)\s+(?:the\s+|my\s+)?(?:(?:todo|to-do|task)\s+)?{_TITLE}\s+(?:as\s+|to\s+)?"
        r"(?P<value>(?:high|low|normal|medium|top)(?:[\s-]+priority)?|urgent|important)" + _END
    ),
    _en(
        rf"^add\s+(?:a\s+)?(?P<field>description|note)\s+(?:to|on)\s+(?:the\s+|my\s+)?"
        rf"(?:(?:todo|to-do|task)\s+)?{_TITLE}\s*(?::|saying)\s*(?P<value>.+?){_END}"
    ),
]
_UPDATE_NO_VALUE = [
    _en(
        rf"^(?:change|update|edit|modify|set)\s+(?:the\s+)?(?P<field>{_FIELD})\s+(?:of|for|on)\s+"
        rf"(?:the\s+|my\s+)?(?:(?P<kind>note|todo|to-do|task)\s+)?{_TITLE}{_END}"
    ),
    _en(
        rf"^(?:change|update|edit|modify)\s+(?:the\s+|my\s+)?(?P<kind>note|todo|to-do|task)\s+"
        rf"(?:called\s+|titled\s+|named\s+)?{_TITLE}{_END}"
    ),
    _en(
        r"^(?P<verb>lower|raise|bump|increase|decrease|reduce|change)\s+(?:the\s+)?(?P<field>priority)"
        rf"\s+(?:of|for|on)\s+(?:the\s+|my\s+)?(?:(?P<kind>todo|to-do|task)\s+)?{_TITLE}{_END}"
    ),
]
_UPDATE_WHICH = _en(
    r"^(?:change|update|edit|modify)\s+(?:a\s+|the\s+|my\s+)?(?P<kind>note|todo|task)$"
)
_CREATE_NOTE = [
    _en(
        r"^(?:create|add|make|write|new|take|start|save|jot\s+down|put\s+down)\s+(?:me\s+)?(?:a\s+|an\s+)?"
        r"(?:new\s+|quick\s+)?note\b\s*(?:[:\-–—]\s*)?(?P<body>.*?)\s*[.!]?\s*$"
    ),
    _en(r"^note\s*:\s*(?P<body>.+?)\s*$"),
    _en(
        r"^(?:save|put|write|jot|add)\s+(?:this|that|it)\s+(?:down\s+)?(?:as|in|to|into)\s+(?:a\s+)?"
        r"(?:new\s+)?(?:my\s+)?notes?\s*[:\-–—]\s*(?P<body>.+?)\s*$"
    ),
    _en(
        r"^(?:save|put|add|write|jot)\s+(?P<body>.+?)\s+(?:as|to|in|into)\s+(?:a\s+)?(?:new\s+)?"
        r"(?:my\s+)?notes?\s*[.!]?\s*$"
    ),
]
_CREATE_TODO = [
    _en(
        r"^(?:create|add|make|new|set\s+up|set|put|record|note\s+down|write\s+down|jot\s+down|schedule)"
        r"\s+(?:me\s+)?(?:a\s+|an\s+|one\s+)?(?:new\s+)?"
        r"(?:(?P<priority>high|low|normal|medium|top|urgent|important)(?:[\s-]+priority)?\s+)?(?:new\s+)?"
        rf"{_TODO}\b\s*(?:item\b)?\s*(?:(?:to|for|called|named|titled|that\s+says|saying|about)\b|"
        r"[:\-–—])?\s*(?P<body>.+?)\s*[.!]?\s*$"
    ),
    _en(
        r"^(?:add|put|stick|throw)\s+(?P<body>.+?)\s+(?:to|on|in|onto)\s+(?:my\s+|the\s+)?"
        r"(?:todos?|to-dos?|todo\s+list|to-do\s+list|to\s+do\s+list|tasks?|task\s+list|list|agenda)"
        r"(?P<tail>\s+(?:for|by|on|at|due)\s+.+?)?\s*[.!]?\s*$"
    ),
    _en(
        r"^(?:remind\s+me|don'?t\s+let\s+me\s+forget|i\s+need\s+a\s+reminder|set\s+a\s+reminder)"
        r"\s+(?:to\s+|about\s+|that\s+)?(?P<body>.+?)\s*[.!]?\s*$"
    ),
    _en(r"^(?:todo|to-do|task)\s*:\s*(?P<body>.+?)\s*$"),
]
_ASK_TODO = _en(rf"^(?:create|add|make|new)\s+(?:a\s+|an\s+)?(?:new\s+)?{_TODO}\s*[.!?]?\s*$")
_ASK_NOTE = _en(
    r"^(?:create|add|make|write|new|take)\s+(?:a\s+|an\s+)?(?:new\s+)?note\s*[.!?]?\s*$"
)
_WRITE_WORDS = _en(r"\b(?:delete|remove|create|add|update|change|mark|rename|move|edit)\b")


def todo_fields(body: str, *, priority: str | None = None) -> Intent:
    """Build create_todo from a body such as "submit it at 9pm, description: the Q3 one"."""
    description = None
    match = re.search(
        r"[,;.]?\s*(?:with\s+)?(?:the\s+|a\s+)?(?:description|details?|notes?)\s*[:：]\s*(?P<text>.+)$"
        r"|[,;.]?\s*(?:with\s+)?(?:the\s+)?description\s+(?P<text2>.+)$",
        body,
        re.IGNORECASE,
    )
    if match:
        description = (match.group("text") or match.group("text2")).strip().strip(STRIP)
        body = body[: match.start()]
    quoted = re.search(QUOTED, body)
    rest, found_priority = take_priority(body)
    priority = priority or found_priority
    rest, due = take_en_time(rest)
    title = unquote(quoted.group()) if quoted else clean_title(rest)
    args: dict[str, Any] = {}
    if description:
        args["description"] = description
    if due:
        args["due_at"] = due
    if priority:
        args["priority"] = priority
    if not title:
        return ask("create_todo", SLOT_TITLE, **args)
    return Intent("create_todo", {"title": title, **args})


def note_fields(body: str) -> Intent:
    """Build create_note from "titled X: Y" / "X - Y" / "X: Y" / "X"."""
    body = body.strip()
    tags = None
    match = re.search(
        r"[,;.]?\s*(?:(?:with\s+)?tags?|tagged(?:\s+with)?)\s*[:：]?\s+(?P<tags>.+)$", body, re.I
    )
    if match:
        tags = split_tags(match.group("tags"))
        body = body[: match.start()].strip()
    content: str | None
    labelled = re.match(
        rf"^(?:titled|called|named|with\s+(?:the\s+)?title)\s+(?P<title>{QUOTED}|.+?)"
        r"(?:\s*:\s*|\s*[,;]\s*(?:(?:with\s+)?(?:the\s+)?(?:content|body|text)|saying|that\s+says)"
        r"\s*:?\s*|\s+(?:(?:with\s+)?(?:the\s+)?(?:content|body|text)|saying|that\s+says)"
        r"\s*:?\s*|\s+[-–—]\s+)(?P<content>.+)$",
        body,
        re.IGNORECASE | re.DOTALL,
    ) or re.match(
        rf"^(?:titled|called|named|with\s+(?:the\s+)?title)\s+(?P<title>{QUOTED}|.+)$",
        body,
        re.IGNORECASE | re.DOTALL,
    )
    if labelled:
        title, content = labelled.group("title"), labelled.groupdict().get("content")
    elif re.match(r"^(?:about|on)\s+", body, re.I):
        title, content = re.sub(r"^(?:about|on)\s+", "", body, flags=re.I), None
    else:
        quoted = re.match(rf"^(?P<title>{QUOTED})\s*[,:;\-–—]?\s*(?P<content>.*)$", body, re.DOTALL)
        parts = quoted or re.match(
            r"^(?P<title>.+?)(?:\s*[:;]\s*|\s*,\s*|\s+[-–—]+\s+|\s*—\s*)(?P<content>.+)$",
            body,
            re.DOTALL,
        )
        title, content = (parts.group("title"), parts.group("content")) if parts else (body, None)
    title = unquote(title)
    args: dict[str, Any] = {}
    if content and content.strip():
        args["content"] = content.strip()
    if tags:
        args["tags"] = tags
    if not title:
        return ask("create_note", SLOT_TITLE, **args)
    return Intent("create_note", {"title": title, **args})


def _update_todo(match: re.Match[str]) -> Intent:
    groups = match.groupdict()
    field_name = (groups.get("field") or "").lower()
    verb = (groups.get("verb") or "").lower()
    value = match.group("value").strip()
    title = unquote(match.group("title"))
    args: dict[str, Any] = {"todo_title": title}
    if field_name in {"title", "name"} or verb == "rename":
        args["title"] = unquote(value)
    elif field_name == "priority" or (not field_name and priority_of(value)):
        priority = priority_of(value)
        if priority is None:
            return ask("update_todo", SLOT_PRIORITY, todo_title=title)
        args["priority"] = priority
    elif field_name in {"description", "note", "notes"}:
        args["description"] = unquote(value)
    elif field_name or verb not in {"change", "update"} or is_time(value):
        args["due_at"] = value
    else:
        args["title"] = unquote(value)
    return Intent("update_todo", args)


def _writes(text: str) -> Intent | None:
    match = _DELETE.match(text)
    if match:
        kind = (match.group("kind") or match.group("kind2") or "todo").lower().rstrip("s")
        title = unquote(match.group("title"))
        if re.match(r"^(?:all|every|completed|done|finished)\b", title, re.I):
            return HELP  # bulk deletes are not offered
        if kind == "note":
            return Intent("delete_note", {"note_title": title} if title else {})
        if not title or title.lower() in {"it", "this", "that", "this one", "that one"}:
            return ask("delete_todo", SLOT_TARGET)
        return Intent("delete_todo", {"todo_title": title})
    for pattern in _UPDATE_NOTE:
        match = pattern.match(text)
        if match:
            field_name = (match.groupdict().get("field") or "content").lower()
            value = match.group("value").strip()
            args: dict[str, Any] = {"note_title": unquote(match.group("title"))}
            if field_name in {"title", "name"} or text.lower().lstrip().startswith("rename"):
                args["title"] = unquote(value)
            elif field_name == "tags":
                args["tags"] = split_tags(value)
            else:
                args["content"] = unquote(value)
            return Intent("update_note", args)
    for pattern in _STATUS:
        match = pattern.match(text)
        if match and unquote(match.group("title")):
            title = unquote(re.sub(r"\s+(?:todo|task|item)$", "", match.group("title"), flags=re.I))
            if re.match(r"^(?:all|every|everything)\b", title, re.I):
                return HELP
            state = match.group("state").lower()
            opened = re.fullmatch(rf"{_OPEN_STATE}|reopen|re-open|uncheck|unmark|undo", state)
            if title.lower() in {"it", "this", "that", "this one", "that one", "as", "it as"}:
                return ask("set_todo_status", SLOT_TARGET, status="open" if opened else "done")
            return Intent(
                "set_todo_status", {"todo_title": title, "status": "open" if opened else "done"}
            )
    for pattern in _UPDATE_TODO:
        match = pattern.match(text)
        if match:
            return _update_todo(match)
    match = _UPDATE_WHICH.match(text)
    if match:
        return ask(
            "update_note" if match.group("kind").lower() == "note" else "update_todo", SLOT_TARGET
        )
    match = next((m for m in (p.match(text) for p in _UPDATE_NO_VALUE) if m), None)
    if match:
        field_name = (match.groupdict().get("field") or "").lower()
        kind = (match.groupdict().get("kind") or "todo").lower()
        title = unquote(match.group("title"))
        if kind == "note":
            return ask("update_note", SLOT_CHANGE, note_title=title)
        slot = (
            SLOT_PRIORITY
            if field_name == "priority"
            else SLOT_DUE
            if field_name in {"due date", "due time", "deadline", "due"}
            else SLOT_CHANGE
        )
        return ask("update_todo", slot, todo_title=title)
    if _ASK_NOTE.match(text):
        return ask("create_note", SLOT_TITLE)
    for pattern in _CREATE_NOTE:
        match = pattern.match(text)
        if match:
            return note_fields(match.group("body"))
    if _ASK_TODO.match(text):
        return ask("create_todo", SLOT_TITLE)
    for pattern in _CREATE_TODO:
        match = pattern.match(text)
        if match:
            given = match.groupdict().get("priority")
            body = match.group("body") + (match.groupdict().get("tail") or "")
            return todo_fields(body, priority=priority_of(given) if given else None)
    return None


# Explicit lookups read whatever follows; a question must be about the user's items.
_SEARCH_HEAD = re.compile(
    r"^(?:show|list|display|view|give\s+me|get\s+me|get\s+my|find|search|look\s+up|look\s+for|"
    r"look\s+through|pull\s+up|check(?!\s+off)|open\s+my|browse)\b",
    re.IGNORECASE,
)
_TOPIC = re.compile(
    rf"{_TODO_WORD}|{_NOTE_WORD}|{_OPEN}|{_DONE}|\b(?:due|overdue|deadline|priority|to\s+do|plans?|"
    r"schedule|need\s+to|have\s+to|on\s+my\s+plate|up\s+next|busy)\b|[\"“‘「]",
    re.IGNORECASE,
)
_QUESTION = re.compile(
    r"\?\s*$|^(?:what|which|how|when|where|who|do|does|did|is|are|have|has)\b", re.I
)


_NEGATED = re.compile(r"^(?:don'?t|do\s+not|never|no\s+need\s+to|not\s+now)\b", re.IGNORECASE)
_GREETING = re.compile(
    r"(?:good\s+(?:morning|afternoon|evening|night|day)|morning|evening|hi|hello|hey|yo|thanks|"
    r"thank\s+you|ok|okay|cool|great|nice)(?:\s+there)?[!.]*",
    re.IGNORECASE,
)


def interpret(text: str) -> Intent:
    """Return what one English sentence asks for; reads first, writes only when explicit."""
    if _DELETE_ACCOUNT.search(text):
        return Intent("delete_account", {})
    body = strip_polite(text)
    if not body or _GREETING.fullmatch(body) or _NEGATED.match(body):
        return HELP  # "don't delete Pay rent": a request NOT to write is no write
    if _SEARCH_HEAD.match(body) and not _WRITE_HEAD.match(body):
        return read_intent(body)
    if (_READ_HEAD.match(body) or _QUESTION.search(text)) and not _WRITE_HEAD.match(body):
        return read_intent(body) if _TOPIC.search(body) else HELP
    write = _writes(body)
    if write is not None:
        return write
    mentions = re.search(_TODO_WORD, body, re.I) or re.search(_NOTE_WORD, body, re.I)
    if mentions and not _WRITE_WORDS.search(body):
        return read_intent(body)
    rest, due = take_en_time(body)
    title = clean_title(rest)
    if due and title and not _WRITE_WORDS.search(title) and len(title.split()) <= 12:
        return ask("create_todo", SLOT_INTENT, title=title, due_at=due)
    need = re.match(
        r"^i\s+(?:need|have|must|gotta|got|should)\s+(?:to\s+)?(?P<title>.+)$", body, re.I
    )
    if need and not _WRITE_WORDS.search(need.group("title")):
        # "I need to buy milk": probably a todo, but nothing asked for one: ask.
        return ask("create_todo", SLOT_INTENT, title=clean_title(need.group("title")))
    return HELP


# --- follow-up answers -------------------------------------------------------------------

_YES = re.compile(
    r"^(?:y|yes|yeah|yep|yup|sure|ok|okay|right|correct|exactly|please\s+do|do\s+it|go\s+ahead|"
    r"sounds\s+good|that'?s\s+right|create\s+it|add\s+it|yes\s+please)$",
    re.I,
)
_NO = re.compile(
    r"^(?:n|no|nope|nah|never\s*mind|cancel|forget\s+it|stop|don'?t|no\s+thanks)$", re.I
)
_ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "last": -1,
}  # fmt: skip


def is_yes(text: str) -> bool:
    return bool(_YES.match(text.strip().strip(STRIP).lower()))


def is_no(text: str) -> bool:
    return bool(_NO.match(text.strip().strip(STRIP).lower()))


def ordinal(text: str) -> int | None:
    """Return the position an answer names: "the second one", "#2", "2", "last"."""
    body = strip_polite(text).strip(STRIP).lower()
    body = re.sub(r"^(?:i\s+mean|i\s+meant|it'?s|its|number|no\.?|#|pick|choose)\s*", "", body)
    body = re.sub(r"^the\s+", "", body)
    body = re.sub(r"\s+(?:one|item|todo|task|note)$", "", body)
    if body.isdigit():
        return int(body)
    return _ORDINAL_WORDS.get(body)


def time_answer(text: str) -> str | None:
    body = strip_polite(text).strip(STRIP)
    body = re.sub(
        r"^(?:make\s+it|change\s+it\s+to|move\s+it\s+to|set\s+it\s+to|due|by|at|on|it'?s)\s+",
        "",
        body,
        flags=re.I,
    )
    return body if is_time(body) else None


def priority_answer(text: str) -> str | None:
    body = strip_polite(text).strip(STRIP)
    body = re.sub(r"^(?:make\s+it|set\s+it\s+to|change\s+it\s+to|it'?s)\s+", "", body, flags=re.I)
    return priority_of(body)
