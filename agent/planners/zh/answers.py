"""Chinese follow-up answers: yes/no, "第二个", a time or a priority given to a question,
and which item of a choice card an answer names ("删除今晚 9 点的那条").

Used by ``agent.conversation.followups`` to complete a pending clarification or choice.
"""

from __future__ import annotations

from functools import partial

from agent.planners import tables
from agent.planners.lexicon import (
    STRIP,
    named_kind,
    priority_of,
)
from agent.planners.zh.slots import DEADLINE_SUFFIX, is_time, strip_polite

_rule = partial(tables.compiled, "zh", "answers")

_YES = _rule("YES")
_NO = _rule("NO")
_PARTICLES = _rule("PARTICLES")
_NO_PIECES = _rule("NO_PIECES")
_PIECE_TAIL = _rule("PIECE_TAIL")
_THANKS = tables.words("zh", "answers", "THANKS")
_ORDINALS = {numeral: int(n) for numeral, n in tables.rows("zh", "answers")["ordinal"]}
_ORDINAL = _rule("ORDINAL")
_LAST = _rule("LAST")
_TIME_HEAD = _rule("TIME_HEAD")
_PRIORITY_HEAD = _rule("PRIORITY_HEAD")
_PRIORITY_TAIL = _rule("PRIORITY_TAIL")


def is_yes(text: str) -> bool:
    return bool(_YES.match(strip_polite(text).strip(STRIP) or text.strip(STRIP)))


# "待办" / "记成笔记吧": which kind of item the answer to "create the todo …?" asks for.
_KIND_ANSWER = _rule("KIND_ANSWER")


def kind_answer(text: str) -> str | None:
    """Return "todo" or "note" when the answer names only the kind of item, else None."""
    return named_kind(_KIND_ANSWER, strip_polite(text).strip(STRIP) or text.strip(STRIP))


def is_no(text: str) -> bool:
    body = _PARTICLES.sub("", text.strip().strip(STRIP))
    # 算了不用了 / 不用了谢谢 / 算了算了: every piece a no
    pieces = [piece for piece in _NO_PIECES.split(body) if piece]
    return bool(pieces) and all(
        _NO.match(_PIECE_TAIL.sub("", piece)) or piece in _THANKS for piece in pieces
    )


def ordinal(text: str) -> int | None:
    """Return the position an answer names: 第二个 / 第2条 / 2 / 最后一个 (-1)."""
    body = strip_polite(text).strip(STRIP)
    match = _ORDINAL.fullmatch(body)
    if match:
        value = match.group(1)
        return int(value) if value.isdigit() else _ORDINALS[value]
    if _LAST.fullmatch(body):
        return -1
    return None


_ORDINAL_REFERENCE = _rule("ORDINAL_REFERENCE")


def ordinal_reference(text: str) -> tuple[int, int, int] | None:
    """The position an item is named by inside a sentence (把第二个标记完成, 删掉最后一条) and
    its span, or None."""
    match = _ORDINAL_REFERENCE.search(text)
    if match is None:
        return None
    value = match.group("n")
    position = -1 if match.group("last") else int(value) if value.isdigit() else _ORDINALS[value]
    return position, match.start(), match.end()


def time_answer(text: str) -> str | None:
    """Return the time an answer gives ("10点", "改到明天下午3点吧"), else None."""
    body = strip_polite(text).strip(STRIP)
    body = _TIME_HEAD.sub("", body, count=1)
    body = DEADLINE_SUFFIX.sub("", body)
    return body if is_time(body) else None


def priority_answer(text: str) -> str | None:
    body = strip_polite(text).strip(STRIP)
    body = _PRIORITY_HEAD.sub("", body, count=1)
    return priority_of(body) or priority_of(_PRIORITY_TAIL.sub("", body))


# --- picking from a choice card ----------------------------------------------------------

_PICK_VERB = _rule("PICK_VERB")
_PICK_TAIL = _rule("PICK_TAIL")


def pick_reference(text: str) -> str:
    """Return what an answer says about the item, without the verb ("删除X的那条" -> X的那条)."""
    return _PICK_VERB.sub("", strip_polite(text).strip(), count=1).strip()


def pick_time(reference: str) -> str:
    """Return the time a reference names, without "的那条" around it ("今晚 9 点的那条")."""
    return _PICK_TAIL.sub("", reference).strip()
