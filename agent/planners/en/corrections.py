"""A correction of the card just shown, in English: "no, Friday" / "actually make it 5pm".

:func:`correction` returns the values the sentence changes (raw, as said: ``due_at``,
``title``, ``priority``), or None. It needs a word that says it corrects ("no", "actually",
"make it", "change it to", "… instead", "call it …"): a time or a title alone is a new
request, never a correction. The sentence names no item of its own ("move X to Friday" is an
ordinary update); which card it corrects is the caller's (``agent.conversation.corrections``).
"""

from __future__ import annotations

import re

from agent.planners.en.slots import is_time, strip_polite, take_priority
from agent.planners.lexicon import STRIP, priority_of, unquote

_OOPS = (
    r"(?:no|nope|nah|sorry|oops|wait|actually|actualy|acutally|acually|hmm|oh|correction"
    r"|my\s+bad|scratch\s+that|wrong\s+(?:name|title|time|day|date))"
)
_IT = r"(?:it|that|this(?:\s+one)?|the\s+card)"  # not "the todo 'Pay rent'": an item named
# make it 5pm / change it to Friday / move it to Monday / set it for 9am
_TIME_VERB = re.compile(
    rf"^(?:(?:make|change|move|push|set|put|schedule|switch)\s+{_IT}\s+(?:to|for|on|at|until)?"
    r"|let'?s\s+(?:say|do|make\s+it)|(?:it\s+)?should\s+be(?:\s+(?:due|on|at|for))?"
    rf"|(?:the\s+)?(?:due\s+(?:date|time)|deadline|time|date)\s+(?:should\s+be|is|to)"
    r"|change\s+the\s+(?:due\s+(?:date|time)|deadline|time|date)\s+to|due|i\s+meant"
    r"|it'?s\s+(?:due|on|at|for)|it\s+is\s+(?:due|on|at|for))\s*",
    re.IGNORECASE,
)
_TITLE_VERB = re.compile(
    rf"^(?:call\s+{_IT}|title\s+{_IT}|name\s+{_IT}|rename(?:\s+{_IT})?\s+(?:to|as)"
    rf"|change\s+the\s+(?:title|name)\s+to|(?:the\s+)?(?:title|name)\s+(?:should\s+be|is)"
    r"|it\s+should\s+(?:say|read|be\s+called)|(?:it'?s|it\s+is)\s+called)\s*:?\s*",
    re.IGNORECASE,
)
_PRIORITY_VERB = re.compile(
    rf"^(?:(?:make|set|change|mark)\s+{_IT}\s+(?:to\s+|as\s+)?|(?:it\s+)?should\s+be\s+"
    r"|(?:lower|raise|set|change|bump)\s+(?:the\s+)?priority\s+(?:to|down\s+to|up\s+to)\s+)",
    re.IGNORECASE,
)
_INSTEAD = re.compile(r"\s+instead$", re.IGNORECASE)


def correction(text: str) -> dict[str, str] | None:
    """The values a correction of the card just shown changes, or None."""
    body = text.strip().rstrip(".!? ")
    oops = re.match(rf"^(?:{_OOPS}\b[,.!:\s\-–—]*)+", body, re.IGNORECASE)
    rest = strip_polite(body[oops.end() :] if oops else body)
    instead = bool(_INSTEAD.search(rest))
    rest = _INSTEAD.sub("", rest).strip(STRIP)
    title = _TITLE_VERB.match(rest)
    if title:
        value = unquote(rest[title.end() :])
        return {"title": value} if value else None
    # "make it high priority", "actually, low priority", "high priority pls" (a priority
    # alone names nothing else it could be about)
    made = _PRIORITY_VERB.match(rest)
    left, priority = take_priority(rest[made.end() :] if made else rest)
    if made and not priority:
        left, priority = "", priority_of(rest[made.end() :])  # "lower the priority to low"
    if priority and not left.strip(STRIP):
        return {"priority": priority}
    verb = _TIME_VERB.match(rest)
    value = rest[verb.end() :] if verb else rest
    if (verb or oops or instead) and is_time(value):
        return {"due_at": value.strip()}
    remark, comma, last = rest.rpartition(",")
    if comma and remark and (_TITLE_VERB.match(last.strip()) or _PRIORITY_VERB.match(last.strip())):
        return correction(last)  # "this one's urgent, mark it high priority"
    return None
