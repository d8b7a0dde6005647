"""A correction of the card just shown, in Chinese: 不对，是周五 / 改成下午5点 / 标题改成X.

:func:`correction` returns the values the sentence changes (raw, as said: ``due_at``,
``title``, ``priority``), or None. It needs a word that says it corrects (不对, 错了, 改成,
换成, 还是…吧, 标题改成…): a time or a title alone is a new request, never a correction.
The sentence names no item of its own (把X改成… is an ordinary update); which card it
corrects is the caller's (``agent.conversation.corrections``).
"""

from __future__ import annotations

import re

from agent.planners.lexicon import STRIP, priority_of, unquote
from agent.planners.zh.slots import is_time, strip_polite, take_priority

_OOPS = (
    r"(?:不对|不是|错了|说错了|搞错了|哦不|噢不|呃不|等等|等一下|不好意思|抱歉|sorry|其实|实际上)"
)
_CHANGE = (
    r"(?:改成|改为|改到|换成|换到|调到|调成|调整为|设成|设为|推迟到|延后到|提前到|挪到|定在|放在)"
)
_FIELD_TIME = r"(?:截止时间|截止日期|时间|日期|deadline|ddl|到期时间)"
_FIELD_TITLE = r"(?:标题|名字|名称|题目)"
# 不对， / 错了，应该是 / 改成 / 时间改成 / 还是…吧
# (标题写错了，应该是… / 标题改一下，叫…: the field, what is wrong with it, then the value)
_HEAD = re.compile(
    rf"^(?:{_OOPS}[，,。！!\s]*)*(?:(?:把|将)?\s*(?:这个|这条|这张|那条|那个|它)\s*)?"
    rf"(?P<field>{_FIELD_TIME}|{_FIELD_TITLE}|优先级)?\s*"
    r"(?P<wrong>(?:写错了|弄错了|错了|不对|改一下|换一下|得改一下)[，,\s]*)?"
    rf"(?P<verb>{_CHANGE}|应该是|应该叫|是|叫|要|得是)?\s*(?P<value>.+?)$",
    re.IGNORECASE,
)
_STILL = re.compile(r"^还是(?P<value>.+?)(?:吧|好了|比较好)?$")
_PRIORITY_ONLY = re.compile(r"^(?:最?高|低|普通|中等?|紧急|重要|不急)(?:优先级|一点|一些)?(?:的)?$")


def correction(text: str) -> dict[str, str] | None:
    """The values a correction of the card just shown changes, or None."""
    body = strip_polite(text).rstrip("。.!！ ")
    # (改成下午5点把: 把 typed for 吧 at the end)
    body = re.sub(r"(?:吧|把|才对|的|好了|就行|就好|就可以了|即可)$", "", body).strip(STRIP)
    still = _STILL.match(body)
    if still:
        return _value(still.group("value"), field=None) if still.group("value") else None
    match = _HEAD.match(body)
    if not match:
        return None
    field = match.group("field")
    said = (
        re.match(rf"^{_OOPS}", body)
        or match.group("wrong")
        or match.group("verb") not in (None, "是", "叫", "要", "得是")
    )
    value = match.group("value")
    if not said and not (field and match.group("verb")) and not _PRIORITY_ONLY.match(value):
        # no word of correcting: a new request, or nothing to correct (a priority alone —
        # 低优先级就行 — names nothing else it could be about)
        return None
    return _value(value, field=field)


def _value(value: str, *, field: str | None) -> dict[str, str] | None:
    value = value.strip(STRIP)
    if not value:
        return None
    if field is not None and re.fullmatch(_FIELD_TITLE, field):
        title = unquote(value)
        return {"title": title} if title else None
    if field == "优先级" or _PRIORITY_ONLY.match(value):
        rest, named = take_priority(value if "优先级" in value else f"{value}优先级")
        priority = (named if not rest.strip(STRIP) else None) or priority_of(value)
        return {"priority": priority} if priority else None
    if is_time(value):
        return {"due_at": value}
    return None
