"""The n-th item of the list just shown, named in the next message: 把第二个标记完成 / "delete
the first one".

A reply that listed the user's items stores them, in the order shown, as its message's
``reads`` (``[{type, id, title}]``). When the conversation's last message is such a reply
and the next message names a position (each grammar's ``ordinal_reference``: 第二个, 最后一条,
"the second one", "#3"), the position is replaced by that item's title, quoted — and, for a
note, called a note — before the message is planned, so the request names the item as if
the user had typed it (the policy then finds it, or offers a choice when several items share
the title). A list of several kinds (notes and todos from one search) or a position past
its end leaves the message as it was: the planner asks which item, as before.
"""

from __future__ import annotations

import re
from typing import Any

from agent.planners.rules import grammar_for
from agent.planners.zh import ordinal_reference as zh_reference


def resolve(text: str, listed: list[dict[str, Any]]) -> str:
    """``text`` with a position in the list just shown replaced by that item's title."""
    items = [item for item in listed if item.get("id")]
    if not items or len({item.get("type") for item in items}) != 1:
        return text
    grammar = grammar_for(text)
    found = grammar.ordinal_reference(text)
    if found is None:
        return text
    position, start, end = found
    index = position - 1 if position > 0 else len(items) + position
    if not 0 <= index < len(items):
        return text
    item = items[index]
    title, note = str(item.get("title") or ""), item.get("type") == "note"
    if not title:
        return text
    before, after = text[:start], text[end:]
    if grammar.ordinal_reference is zh_reference:
        named = f"笔记「{title}」" if note else f"「{title}」"
        if _ZH_FIELD.match(after):
            named += "的"  # 第4条截止日期改成… → 「X」的截止日期改成…
        elif not before.strip() and _ZH_VERB.match(after):
            named = f"把{named}"  # 最后一条笔记删了 → 把笔记「X」删了
    else:
        named = f'the note "{title}"' if note else f'"{title}"'
        after = re.sub(r"^['’]s\b", " is", after)  # "the third one's done"
    return f"{before}{named}{after}"


# What follows a position: a field of the item (它的截止日期), or the verb done to it.
_ZH_FIELD = re.compile(r"^\s*(?:截止|到期|优先级|标题|名字|名称|描述|备注|内容|状态|标签)")
_ZH_VERB = re.compile(r"^\s*(?:删|移除|去掉|标记|标成|设为|改|调|推迟|提前|重新打开|重开|勾)")
