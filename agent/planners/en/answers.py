"""English follow-up answers: yes/no, "the second one", a time or a priority given to a question,
and which item of a choice card an answer names ("the one due tonight").

Used by ``agent.conversation.followups`` to complete a pending clarification or choice.
"""

from __future__ import annotations

import re

from agent.planners.en.slots import is_time, strip_polite
from agent.planners.lexicon import (
    STRIP,
    named_kind,
    priority_of,
)

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


# "todo" / "make it a note": which kind of item the answer to "create the todo …?" asks for.
_KIND_ANSWER = re.compile(
    r"(?:(?:make|save|put|add|keep|log|create|jot)\s+(?:it|that|this)?\s*(?:down\s+)?(?:as|in|into)?\s*"
    r"|(?:as|it'?s|its)\s+)?(?:a\s+|an\s+|my\s+)?"
    r"(?:(?P<todo>todo|to-do|task|reminder)|(?P<note>note|memo))s?(?:\s+(?:please|pls|thanks))?",
    re.IGNORECASE,
)


def kind_answer(text: str) -> str | None:
    """Return "todo" or "note" when the answer names only the kind of item, else None."""
    return named_kind(_KIND_ANSWER, strip_polite(text).strip(STRIP) or text.strip(STRIP))


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


_ORDINAL_REFERENCE = re.compile(
    r"\bt(?:he|eh)\s+(?P<word>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last"
    r"|1st|2nd|3rd|[4-9]th|10th)\s+(?:one|item|todo|to-do|task|note|entry)\b"
    r"|\b(?:number|no\.|item)\s*(?P<n>\d{1,2})\b|#(?P<hash>\d{1,2})\b",
    re.IGNORECASE,
)


def ordinal_reference(text: str) -> tuple[int, int, int] | None:
    """The position an item is named by inside a sentence ("mark the second one done",
    "delete #3") and its span, or None."""
    match = _ORDINAL_REFERENCE.search(text)
    if match is None:
        return None
    number = match.group("n") or match.group("hash")
    word = (match.group("word") or "").lower()
    position = int(number) if number else _ORDINAL_WORDS.get(word) or int(word[:-2])
    return (position, match.start(), match.end()) if position else None


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


# --- picking from a choice card ----------------------------------------------------------

_PICK_VERB = re.compile(
    r"^(?:please\s+)?(?:delete|remove|finish|complete|mark|update|change|edit|pick|choose|"
    r"select|take|i\s+mean|i\s+meant|it'?s)?\s*",
    re.IGNORECASE,
)
_PICK_ONE = re.compile(
    r"^(?:the|that)\s+(?:one|todo|task|note|item)\s*(?:that'?s|which\s+is|that\s+is)?\s*"
    r"(?:due|at|for|on|from)?\s*",
    re.IGNORECASE,
)
# "tomorrow's", "the 9pm one", "the tonight one": the time with the words around it.
_PICK_AROUND = re.compile(
    r"^(?:the|that)\s+|(?:'s|’s)$|\s+(?:one|todo|task|note|item)$", re.IGNORECASE
)


def pick_reference(text: str) -> str:
    """Return what an answer says about the item, without the verb ("the one due tonight" ->
    "tonight")."""
    body = _PICK_VERB.sub("", strip_polite(text).strip(), count=1).strip()
    return _PICK_ONE.sub("", body, count=1).strip()


def pick_time(reference: str) -> str:
    """Return the time a reference names, without the words around it ("the 9pm one")."""
    return _PICK_AROUND.sub("", reference).strip()
