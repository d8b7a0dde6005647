"""English follow-up answers: yes/no, "the second one", a time or a priority given to a question,
and which item of a choice card an answer names ("the one due tonight").

Used by ``agent.conversation.followups`` to complete a pending clarification or choice.
"""

from __future__ import annotations

from functools import partial

from agent.planners import tables
from agent.planners.en.slots import is_time, strip_polite
from agent.planners.lexicon import (
    STRIP,
    named_kind,
    priority_of,
)

_rule = partial(tables.compiled, "en", "answers")

_YES = _rule("YES")
_NO = _rule("NO")
_ORDINAL_WORDS = {word: int(n) for word, n in tables.rows("en", "answers")["ordinal"]}
_ORDINAL_HEAD = _rule("ORDINAL_HEAD")
_ORDINAL_ARTICLE = _rule("ORDINAL_ARTICLE")
_ORDINAL_TAIL = _rule("ORDINAL_TAIL")
_TIME_HEAD = _rule("TIME_HEAD")
_PRIORITY_HEAD = _rule("PRIORITY_HEAD")


def is_yes(text: str) -> bool:
    return bool(_YES.match(text.strip().strip(STRIP).lower()))


# "todo" / "make it a note": which kind of item the answer to "create the todo …?" asks for.
_KIND_ANSWER = _rule("KIND_ANSWER")


def kind_answer(text: str) -> str | None:
    """Return "todo" or "note" when the answer names only the kind of item, else None."""
    return named_kind(_KIND_ANSWER, strip_polite(text).strip(STRIP) or text.strip(STRIP))


def is_no(text: str) -> bool:
    return bool(_NO.match(text.strip().strip(STRIP).lower()))


def ordinal(text: str) -> int | None:
    """Return the position an answer names: "the second one", "#2", "2", "last"."""
    body = strip_polite(text).strip(STRIP).lower()
    body = _ORDINAL_HEAD.sub("", body, count=1)
    body = _ORDINAL_ARTICLE.sub("", body, count=1)
    body = _ORDINAL_TAIL.sub("", body, count=1)
    if body.isdigit():
        return int(body)
    return _ORDINAL_WORDS.get(body)


_ORDINAL_REFERENCE = _rule("ORDINAL_REFERENCE")


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
    body = _TIME_HEAD.sub("", body, count=1)
    return body if is_time(body) else None


def priority_answer(text: str) -> str | None:
    body = strip_polite(text).strip(STRIP)
    body = _PRIORITY_HEAD.sub("", body, count=1)
    return priority_of(body)


# --- picking from a choice card ----------------------------------------------------------

_PICK_VERB = _rule("PICK_VERB")
_PICK_ONE = _rule("PICK_ONE")
_PICK_AROUND = _rule("PICK_AROUND")  # "tomorrow's", "the 9pm one": the words around a time


def pick_reference(text: str) -> str:
    """Return what an answer says about the item, without the verb ("the one due tonight" ->
    "tonight")."""
    body = _PICK_VERB.sub("", strip_polite(text).strip(), count=1).strip()
    return _PICK_ONE.sub("", body, count=1).strip()


def pick_time(reference: str) -> str:
    """Return the time a reference names, without the words around it ("the 9pm one")."""
    return _PICK_AROUND.sub("", reference).strip()
