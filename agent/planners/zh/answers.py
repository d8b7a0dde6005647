"""Chinese follow-up answers: yes/no, "第二个", a time or a priority given to a question,
and which item of a choice card an answer names ("删除今晚 9 点的那条").

Used by ``agent.conversation.followups`` to complete a pending clarification or choice.
"""

from __future__ import annotations

import re

from agent.planners.lexicon import (
    STRIP,
    named_kind,
    priority_of,
)
from agent.planners.zh.slots import DEADLINE_SUFFIX, is_time, strip_polite

_YES = re.compile(
    r"^(?:是|是的|对|对的|好|好的|好啊|行|可以|没错|嗯|嗯嗯|确定|要|需要|创建吧|就这样|ok|okay|yes"
    r"|(?:好的?|可以|行)?(?:加|加上|加吧|加上吧|记上|记上吧|记下吧|建吧|创建|添加吧?|帮我加上?))$",
    re.I,
)
_NO = re.compile(
    r"^(?:不|不是|不对|不用|不要|算|算了|取消|别|别了|没有|否|先不|先不用|先不要|不创建|不记|不改|不删|"
    r"不需要|没事|no|cancel)$",
    re.I,
)
_ORDINALS = {
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
}


def is_yes(text: str) -> bool:
    return bool(_YES.match(strip_polite(text).strip(STRIP) or text.strip(STRIP)))


# "待办" / "记成笔记吧": which kind of item the answer to "create the todo …?" asks for.
_KIND_ANSWER = re.compile(
    r"(?:就|那就|还是)?(?:记|存|建|弄|做|加|放|设)?(?:成|为|进|到|个|一个|一条|一篇)?\s*"
    r"(?:(?P<todo>待办事项|待办|任务|提醒|todo)|(?P<note>笔记|备忘录?|note))"
    r"(?:吧|就行|就好|好了|里|就可以)?",
    re.IGNORECASE,
)


def kind_answer(text: str) -> str | None:
    """Return "todo" or "note" when the answer names only the kind of item, else None."""
    return named_kind(_KIND_ANSWER, strip_polite(text).strip(STRIP) or text.strip(STRIP))


def is_no(text: str) -> bool:
    body = re.sub(r"(?:吧|啊|呀|哈|了)+$", "", text.strip().strip(STRIP))
    # 算了不用了 / 不用了谢谢 / 算了算了: every piece a no
    pieces = [p for p in re.split(r"[，,\s]+|(?<=了)|(?<=算)(?=[算不别])", body) if p]
    return bool(pieces) and all(
        _NO.match(re.sub(r"(?:吧|啊|呀|哈|了|谢谢|谢啦)+$", "", piece)) or piece in ("谢谢", "谢啦")
        for piece in pieces
    )


def ordinal(text: str) -> int | None:
    """Return the position an answer names: 第二个 / 第2条 / 2 / 最后一个 (-1)."""
    body = strip_polite(text).strip(STRIP)
    match = re.fullmatch(
        r"(?:是|选|要|就)?\s*第?\s*([0-9]+|[一二两三四五六七八九十])\s*(?:个|条|项|件|篇|号)?(?:吧)?",
        body,
    )
    if match:
        value = match.group(1)
        return int(value) if value.isdigit() else _ORDINALS[value]
    if re.fullmatch(r"(?:是|选)?最后一?[个条项]", body):
        return -1
    return None


_ORDINAL_REFERENCE = re.compile(
    r"第\s*(?P<n>[0-9]{1,2}|[一二两三四五六七八九十])\s*(?:个|条|项|件|篇)"
    r"(?:待办|任务|笔记|事项|事情|事)?"
    r"|(?P<last>最后(?:一|那)[个条项件篇])(?:待办|任务|笔记|事项|事情|事)?"
)


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
    body = re.sub(
        r"^(?:改到|改成|改为|定在|定为|设为|设在|截止(?:时间)?(?:是|为)?|就|在|是)\s*", "", body
    )
    body = DEADLINE_SUFFIX.sub("", body)
    return body if is_time(body) else None


def priority_answer(text: str) -> str | None:
    body = strip_polite(text).strip(STRIP)
    body = re.sub(r"^(?:改成|改为|设为|设成|调成|调到|就|是|要)\s*", "", body)
    return priority_of(body) or priority_of(re.sub(r"的?优先级|的$", "", body))


# --- picking from a choice card ----------------------------------------------------------

_PICK_VERB = re.compile(
    r"^(?:请|帮我|麻烦)?(?:把)?(?:删除|删掉|删|完成|标记|修改|更新|改|选择|选|要|就是|就|是)?\s*"
)
_PICK_TAIL = re.compile(r"(?:的)?(?:那|这)?(?:一)?(?:条|个|项|件|篇)?(?:待办|笔记|任务)?(?:吧)?$")


def pick_reference(text: str) -> str:
    """Return what an answer says about the item, without the verb ("删除X的那条" -> X的那条)."""
    return _PICK_VERB.sub("", strip_polite(text).strip(), count=1).strip()


def pick_time(reference: str) -> str:
    """Return the time a reference names, without "的那条" around it ("今晚 9 点的那条")."""
    return _PICK_TAIL.sub("", reference).strip()
