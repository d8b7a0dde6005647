"""English slot values: time expressions, priorities, titles, and the polite wrapper.

Each function cuts one kind of value out of a phrase and returns the rest, or cleans the
phrase around it. Times stay the user's words ("tomorrow 9pm"): the tool's ``prepare``
parses them.
"""

from __future__ import annotations

import re

from agent.planners.lexicon import (
    ISO,
    STRIP,
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
    rf"(?:in|within(?:\s+the\s+next)?)\s+{_COUNT}\s+(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?)\b",
    rf"{_COUNT}\s+(?:days?|weeks?|months?)\s+from\s+(?:today|now|tomorrow)\b",
    r"(?:in|within)\s+a\s+(?:week|fortnight|month)\b",
    # the 20th (of the month): "on the 20th at 9am"
    r"(?:on\s+)?the\s+\d{1,2}(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?[a-z]*\s*(?:time|floor|century))",
    r"in\s+half\s+an\s+hour\b",
    r"the\s+day\s+after\s+tomorrow\b",
    r"(?:tomorrow|tmrw|tmr|today|tonight|yesterday)(?:\s+(?:morning|afternoon|evening|night))?\b",
    r"this\s+(?:morning|afternoon|evening|weekend|week|month|year)\b",
    # "monday after next", "the week after next": the time parser refuses, the tool asks
    rf"(?:the\s+)?(?:{_WEEKDAY}|week)\s+after\s+next\b",
    rf"(?:(?:next|this|coming|last)\s+)?{_WEEKDAY}\b(?:\s+(?:morning|afternoon|evening|night))?",
    r"next\s+(?:week|month|weekend|year)\b",
    # the part of a week, month or year, with it ("end of next month", "early next week", "in
    # april"): one time (a period, which the tool asks about), never "Pay rent end of" left
    # as the title
    r"(?:the\s+)?(?:end|beginning|start|middle)\s+of\s+(?:the\s+)?(?:(?:next|this|coming)\s+)?"
    r"(?:day|week|month|year|quarter)\b|eod\b|eow\b",
    r"(?:early|mid|late)[\s-]+(?:(?:next|this)\s+)?(?:week|month|year)\b",
    rf"(?:in\s+)?(?:early|mid|late)[\s-]+{_MONTH}\b(?!\.?\s*\d)",
    rf"in\s+{_MONTH}\b(?!\.?\s*\d)",
    rf"{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s*\d{{4}}\b)?",
    # 12/24 (the time parser decides what a numeric date means, or refuses it)
    r"(?<![\d/])\d{1,2}/\d{1,2}(?:/\d{2,4})?(?![\d/])",
    rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b",
]
_HOUR_WORD = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_CLOCK_PIECES = [
    # 7ish, 9pm-ish: vague, the tool asks (never a title ending in "ish")
    r"\d{1,2}(?::\d{2})?\s*(?:am|pm)?-?ish\b",
    r"\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)(?![a-z])",
    rf"{_HOUR_WORD}\s*(?:o'?clock\s*)?(?:am|pm|a\.m\.|p\.m\.)(?![a-z])",
    # half past seven, a quarter to 8, at twenty after 3pm (a number of minutes only after
    # "at": "read chapter ten to twelve" is no clock time)
    r"(?:at\s+)?(?:(?:a\s+)?quarter|half"
    r"|at\s+(?:\d{1,2}|five|ten|twenty(?:[- ]five)?)(?:\s+minutes?)?)"
    rf"\s+(?:past|after|to)\s+(?:\d{{1,2}}|{_HOUR_WORD}|noon|midnight)\b"
    r"(?:\s*(?:am|pm|a\.m\.|p\.m\.)(?![a-z]))?",
    rf"at\s+{_HOUR_WORD}(?:\s+o'?clock)?\b",
    r"\d{1,2}:\d{2}\b",
    r"(?:noon|midnight|midday)\b",
    r"\d{1,2}\s*o'?clock\b",
    r"at\s+\d{1,2}(?::\d{2})?(?![\d:])"
    r"(?!\s*(?:am|pm|a\.m\.|p\.m\.|o'?clock|%|percent|people|items|minutes|hours))",
    r"(?:in\s+the\s+)?(?:morning|afternoon|evening)\b",
    r"(?:soon|asap)\b",
    # a moment set by something else: vague, the tool asks which time
    r"(?:after|before)\s+(?:work|school|lunch|dinner|breakfast|bed|bedtime)\b",
    # vague: the tool asks which time ("remind me later")
    r"later(?:\s+(?:today|on|this\s+week))?\b|sometime\b|some\s+time\b|in\s+a\s+(?:bit|while)\b"
    r"|eventually\b|one\s+day\b",
]
_PIECE = "|".join(_DAY_PIECES + _CLOCK_PIECES)
TIME = re.compile(
    rf"(?<![\w-])(?:{_PIECE})(?:(?:\s*,\s*|\s+)(?:(?:at|on|by|in)\s+)?(?:{_PIECE}))*"
    # "next week's plan", "Friday's minutes": part of a name, not when (but "tomorrow's todos")
    r"(?!['’]s\s+(?!(?:todos?|to-?dos?|tasks?|list|reminders?|deadlines?|items?|schedule)\b))",
    re.IGNORECASE,
)
_DAY = re.compile(rf"(?<![\w-])(?:{'|'.join(_DAY_PIECES)})", re.IGNORECASE)
_BEFORE_TIME = re.compile(
    r"(?:\s*,)?\s+(?:at|on|by|before|deadline|due(?:\s+date)?(?:\s+(?:on|at|by))?|until|till|for"
    r"|from)\s*:?\s*$",
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
    if re.search(
        r"\b(?:am|pm|a\.m\.|p\.m\.|morning|afternoon|evening|night|tonight|noon)\b", answer, re.I
    ):
        # the answer names its own part of the day: the prior one gives way
        day = re.sub(r"\s+(?:morning|afternoon|evening|night)$", "", day, flags=re.I)
        day = re.sub(r"^tonight$", "today", day, flags=re.I)
    elif not re.search(r"\b(?:morning|afternoon|evening|night|tonight)\b", day, re.I):
        # "remind me to X this afternoon" then "4:15": the part said before, kept
        part = re.search(r"\b(?:this\s+)?(?:morning|afternoon|evening)\b|\btonight\b", prior, re.I)
        if part:
            day = f"{day} {part.group()}".strip()
    return f"{day} {answer}".strip() if day else answer


def keep_clock(prior: str, answer: str) -> str:
    """A correction that names only a day keeps the card's clock time: "tomorrow 5pm"
    corrected to "friday" -> "friday 5pm" ("tonight at 8" corrected to "friday" -> "friday
    8pm": tonight's evening is kept). An answer with a clock time of its own, or a prior
    without one, stays as it is."""
    if not prior or not _DAY.search(answer) or _DAY.sub("", answer).strip(STRIP):
        return answer
    clock = _DAY.sub("", prior).strip(STRIP + " ")
    clock = re.sub(r"^(?:,\s*)?(?:at|on|by)\s+(?=\S)", "", clock, flags=re.IGNORECASE)
    if not re.search(r"\d|\b(?:noon|midday)\b", clock, re.IGNORECASE):
        return answer
    evening = re.search(r"\b(?:tonight|tonite)\b", prior, re.IGNORECASE)
    if evening and not re.search(r"\b(?:am|pm|a\.m\.|p\.m\.|evening|night)\b", clock, re.I):
        bare = re.fullmatch(r"\d{1,2}(?::\d{2})?", clock)
        clock = f"{clock}pm" if bare else f"{clock} in the evening"
    return f"{answer} {clock}"


# --- priorities, titles ------------------------------------------------------------------

# P0 / P1 are the top of a three-level scale, P2 the middle, P3 and below the bottom
_P_HIGH, _P_NORMAL, _P_LOW = r"p[01](?![\w.])", r"p2(?![\w.])", r"p[3-9](?![\w.])"
_PRIORITIES = (
    (
        "low",
        r"(?:with\s+)?(?:a\s+)?low[\s-]+priority|priority\s*(?::|is|of)?\s*low|not\s+urgent"
        r"|no\s+rush|no\s+hurry|not\s+(?:that\s+)?important|not\s+a\s+priority|low\s+prio"
        rf"|{_P_LOW}",
    ),
    (
        "normal",
        r"(?:with\s+)?(?:a\s+)?(?:normal|medium)[\s-]+priority|priority\s*(?::|is|of)?\s*"
        rf"(?:normal|medium)|{_P_NORMAL}",
    ),
    (
        "high",
        r"(?:with\s+)?(?:a\s+)?(?:high|top)[\s-]+priority|priority\s*(?::|is|of)?\s*high|urgent(?:ly)?"
        rf"|important|{_P_HIGH}",
    ),
)


def take_priority(text: str) -> tuple[str, str | None]:
    for priority, pattern in _PRIORITIES:
        match = re.search(rf"[,;]?\s*\b(?:{pattern})\b", text, re.IGNORECASE)
        if match:
            return (text[: match.start()] + " " + text[match.end() :]).strip(), priority
    return text, None


def clean_title(text: str) -> str:
    # "Call mom (urgent)": the priority word taken out leaves its brackets behind
    text = re.sub(r"[(（\[]\s*[)）\]]", " ", text)
    title = re.sub(r"\s+", " ", text).strip().strip(STRIP)
    for _ in range(2):  # "i need to remember to water the plants"
        title = re.sub(
            r"^(?:to|that|about|for|which\s+is|i\s+(?:need|have|must|should)\s+to|i\s+gotta"
            r"|remember\s+to)\s+",
            "",
            title,
            flags=re.IGNORECASE,
        )
    # "get flu shot, no rush, no deadline": what the todo is not given is no part of its title
    title = re.sub(
        r"(?:\s*[,;]?\s*\b(?:no\s+rush|no\s+hurry|no\s+deadline|no\s+due\s+date|whenever))+\s*$",
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
    r"^(?:(?:hey|hi|hello|ok|okay|so|um|uh|yo|actually|oh|wait|well|hmm|right)\b[,!\s]*)*"
    r"(?:(?:do\s+(?:us|me)\s+a\s+favou?r\s+and|could\s+you\s+possibly|would\s+you\s+mind"
    r"|is\s+it\s+possible\s+(?:for\s+you\s+)?to|any\s+chance\s+(?:you\s+)?(?:could|can)"
    r"|(?:would|could)\s+you\s+be\s+able\s+to)\s+)?"
    r"(?:(?:if\s+(?:possible|you\s+can|you\s+could|you\s+don'?t\s+mind)"
    r"|when\s+you\s+(?:get\s+a\s+(?:chance|sec(?:ond)?|minute)|can))\s*,?\s*)?"
    r"(?:(?:please|pls|plz|kindly)\b[,\s]*|(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+)?|"
    r"(?:help\s+me|i(?:'d|\s+would)\s+like\s+(?:you\s+)?to|i\s+want\s+(?:you\s+)?to|i\s+need\s+to(?=\s+(?:update|change|edit|modify|rename|delete|remove))|"
    r"i\s+wanna|let'?s|go\s+ahead\s+and|quickly|just)\s+)*",
    re.IGNORECASE,
)
# (Each word or mark takes the spaces and commas before it, and only those: a space that
# could also be a piece of its own made "please " repeated try every way of splitting it.)
_POLITE_TAIL = re.compile(
    r"(?:[,\s]*(?:\b(?:please|pls|plz|thanks|thank\s+you|thx|for\s+me|real\s+quick|lol|lmao"
    r"|haha+|hehe)\b|[.!?…]))+\s*$",
    re.IGNORECASE,
)


def strip_polite(text: str) -> str:
    body = _POLITE_TAIL.sub("", text.strip())
    return _POLITE_HEAD.sub("", body).strip() or body.strip()
