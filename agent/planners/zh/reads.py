"""Chinese read requests: the read vocabulary and ``read_intent`` (query_todos / search_notes).

The patterns here (``READ_HEAD``, ``QUESTION``, ``TOPIC``, the item words) are also what the
grammar's order in ``agent.planners.zh`` tests first: a read can never become a card.
"""

from __future__ import annotations

import re
from typing import Any

from agent.planners import phrases
from agent.planners.lexicon import (
    QUOTED,
    STRIP,
    Intent,
    outside_quotes,
    read_filters,
    read_of,
    unquote,
)
from agent.planners.zh.slots import take_zh_time

# --- reads -------------------------------------------------------------------------------

TODO_WORD = (
    r"(?:待办事项|待办清单|待办列表|待办|代办|任务|事项|todo|to-do|要做的事|要做的|计划|清单|提醒)"
)
NOTE_WORD = r"(?:笔记|记录|备忘录|备忘|notes?|note)"
READ_HEAD = re.compile(
    r"^(?:列出|列一下|列举|罗列|列列|查看|查阅|看看|看一下|看一眼|看下|瞧瞧|瞅瞅|瞅一眼|看|显示|展示|"
    r"给我看看?|查一下|查下|查查|查询|查找|查|搜索|搜一下|搜下|搜搜|搜|找一下|找下|找找|找出|找|检索|翻翻|翻一下|"
    r"告诉我|说说|汇总|统计|回顾|浏览|打开)"
)
READ_TAIL = re.compile(
    r"(?:列出来|列一下|(?<![队排序系])列|看看|看一下|(?<=[的些办务项单])看|显示出来|给我看看?|调出来|找出来"
    r"|翻出来|搜搜|搜一搜|找找|找一找|查查|查一查)$"
)
QUESTION = re.compile(
    r"有哪些|有什么|有没有|有几[个条项件]|多少[个条项件]?|哪些|哪几|哪[个条篇项一]|什么|几个|几条|啥|怎么样|"
    r"还剩|剩下|剩几|是否|哪里|哪儿|在哪|怎么|如何|为什么|为啥|咋|干嘛|[吗么][？?]?$|[？?]$"
)
OPEN = (
    r"未完成|没完成|没有完成|未做完|没做完|还没做|还没完成|待完成|待处理|进行中|没搞定|未结束|没弄完|没干完|还没干"
    r"|(?:要|需要|得|该)完成"
    r"|open|开放"
)
DONE = (
    r"已完成|已经完成|完成了的|(?<![要需得该待])完成的|做完的|做完了的|已做完|搞定的|已结束|done|关闭的"
    r"|(?:完成|做完|搞定)了(?=哪|什么|几|多少)"
)
# 逾期的待办 / 过期没做的: open and past their due time
_OVERDUE = r"逾期|过期|超期|误期|过了截止|错过了?截止|拖欠|延误|overdue|past[\s-]due"
_PRIORITY_READ = (
    (0, r"低优先级|优先级(?:低|为低)|不急|不紧急|low[\s-]priority"),
    (2, r"最?高优先级|优先级(?:最?高|为高)|紧急|很急|重要|high[\s-]priority|urgent|important"),
    (1, r"普通优先级|中等?优先级|一般优先级|normal[\s-]priority"),
)
_EN_FILTERS = (
    r"\b(?:high|low|normal)[\s-]priority\b|\burgent\b|\bimportant\b|\boverdue\b|\bpast[\s-]due\b"
)
# 快到期的 / 即将截止: due within the next three days
_SOON = re.compile(
    r"快(?:要)?(?:到期|截止|过期)|即将(?:到期|截止|过期)|马上(?:就)?(?:要)?(?:到期|截止)"
)
# 这周/本周要做的: due by the end of this week (its Sunday)
_THIS_WEEK = re.compile(r"^(?:本周|这周|这个星期|本星期|这礼拜|这个礼拜)$")
# 下周有什么安排: due by the end of next week (its Sunday), not every item whatever its time
_NEXT_WEEK = re.compile(r"^(?:下周|下个?星期|下个?礼拜)$")
_READ_FILLER = re.compile(
    rf"我的|我|所有的?|全部的?|一下|一眼|最近的?|现在的?|目前的?|当前的?|还|都|吧|呢|有哪些|有什么|"
    rf"有没有|有啥|哪些|什么|多少|几个|几条|是|的|里面?|中|列表|清单|(?:{OPEN})|(?:{DONE})|"
    rf"高优先级|低优先级|普通优先级|优先级|重要的|紧急的|不紧急|不急|紧急|很急|重要|完成了|做完了|搞定了|完成|做完|搞定|相关|关于|有关|包含|含有|提到|提过|写过|记过|东西|内容|关键词是?|关键字是?|咋|找不到|那一?段了?|给我|啥|帮我?|嗯|哦|要做|要干|要处理|要交|要办|要|需要|安排|事情|事儿|日程|有事儿?|事儿?|干嘛|干啥|做啥|忙啥|忙|嘛|来着|有些|不(?=[？?]?$)|"
    rf"(?:{_OVERDUE})(?:了|的|没做|未做|还没做)*|(?:快|即将|马上)?(?:要)?(?:到期|截止)了?|之前|以前|前"
    rf"|[:：，,。？?！!、\s]"
)


READ_IN = re.compile(
    rf"^(?:在|从)?\s*(?:我的)?\s*(?:{NOTE_WORD}|{TODO_WORD})\s*(?:里面|里|中)\s*(?=[搜查找看翻])"
    rf"|^(?:在|从)\s*(?:我的)?\s*(?:{NOTE_WORD}|{TODO_WORD})\s*(?=[搜查找看翻])",
    re.IGNORECASE,
)


def _read_status(text: str) -> str | None:
    if re.search(OPEN, text, re.IGNORECASE):
        return "open"
    if re.search(DONE, text, re.IGNORECASE):
        return "done"
    return None


def _keyword(text: str) -> str:
    """Return what is left of a read once its verbs, targets and fillers are gone."""
    quoted = re.search(QUOTED, text)
    if quoted:
        return unquote(quoted.group())
    about = re.search(r"(?:关于|有关(?!于)|包含|含有|提到|提及)\s*(?P<kw>.+?)\s*(?:的|相关)", text)
    if about:
        return unquote(about.group("kw"))
    # 哪条笔记提到了第一章 / 哪个笔记里写了草稿: what the item says
    says = re.search(
        r"(?:提到了?|提及|写了|写着|写过|记了|记着|说了?|包含|含有)\s*(?P<kw>[^，,。？?的]+?)\s*(?:的|吗|呢|[？?。])*$",
        text,
    )
    if says:
        return unquote(says.group("kw"))
    # 跟合同有关的 / 和报销相关的: what the items are about
    related = re.search(r"(?:跟|和|与|同)\s*(?P<kw>[^，,。？?的]+?)\s*(?:有关|相关|有关系)", text)
    if related:
        return unquote(related.group("kw"))
    rest = READ_HEAD.sub("", READ_IN.sub("", text).strip())
    rest = READ_TAIL.sub("", rest)
    rest = re.sub(TODO_WORD, " ", rest, flags=re.IGNORECASE)
    rest = re.sub(NOTE_WORD, " ", rest, flags=re.IGNORECASE)
    rest = re.sub(r"^(?:把|将|在|从)", "", rest.strip())
    rest = _READ_FILLER.sub(" ", rest)
    words = [word for word in rest.split() if word not in _LEFTOVERS]
    return " ".join(words).strip(STRIP)


# What the fillers leave of a sentence and is no keyword: 已经逾期了 -> "已经", 还没做 -> "没做"
_LEFTOVERS = frozenset(
    [
        "已经",
        "已",
        "了",
        "事",
        "事情",
        "没做",
        "没干",
        "那些",
        "这些",
        "列出来",
        "于",
        "哪条",
        "哪个",
        "哪篇",
        "有",
        "下",
        "看",
        "给",
        "那",
        "这",
        "些",
    ]
)


# What a question must be about to be read as a lookup of the user's items.
TOPIC = re.compile(
    rf"{TODO_WORD}|{NOTE_WORD}|{OPEN}|{DONE}|安排|要做|做什么|干什么|忙什么|事情|事儿|日程|截止|到期|"
    r"过期|逾期|优先级|完成|记过|写过|要交|要办|要弄|要还|"
    # 下周有什么事 / 今天有啥事 / 后天有事吗 / 明天要干嘛: what the user has on, by its time
    r"有(?:什么|啥|哪些)?事(?![情儿])|干嘛|干啥|做啥|忙啥",
    re.IGNORECASE,
)


def read_intent(text: str) -> Intent:
    """Turn a read request into query_todos / search_notes (both when it names neither)."""
    notes = re.search(NOTE_WORD, text, re.IGNORECASE) is not None
    status = _read_status(text)
    todos = (
        # (not a word in quotes: 在笔记里搜「计划」 searches notes for 计划)
        re.search(TODO_WORD, outside_quotes(text), re.IGNORECASE) is not None
        or status is not None
        or re.search(r"完成|做完|搞定|截止|到期|过期|逾期|优先级|要做|要交|要办", text) is not None
    )
    rest, due = take_zh_time(text)
    keyword = _keyword(rest if due else text)
    todo_args: dict[str, Any] = {}
    if status:
        todo_args["status"] = status
    if keyword:
        todo_args["keyword"] = keyword
    if read_filters(text, todo_args, priorities=_PRIORITY_READ, overdue=_OVERDUE):
        todos = True
        if keyword:
            # "high priority" / "overdue" said in English inside Chinese: a filter, not a word
            keyword = " ".join(re.sub(_EN_FILTERS, " ", keyword, flags=re.IGNORECASE).split())
            todo_args.pop("keyword")
            if keyword:
                todo_args["keyword"] = keyword
    if _SOON.search(text) and not due:
        todo_args["due_before"] = "3天后"  # 快到期的: due within the next three days
        todo_args.setdefault("status", "open")
    # 明天到期的 / 这周截止的: due within that day or ISO week (明天之前到期: up to it); an
    # agenda (明天要做什么, 这周有什么事) is what is due by its end, overdue items too
    window = (
        phrases.window(due, text, "zh") if due and phrases.search("says_due", text, "zh") else None
    )
    if window:
        todo_args["within"] = window
    elif due and _THIS_WEEK.match(due) and status != "done":
        todo_args["due_before"] = "本周日"  # this week: by its Sunday
    elif due and _NEXT_WEEK.match(due) and status != "done":
        todo_args["due_before"] = "下周日"
    elif due and (
        re.fullmatch(r"今天|今日|明天|后天|今晚|明晚|今儿个?|明儿个?|后儿个", due)
        or (is_day(due) and re.search(r"到期|截止|之前|以前|前|要做|要交|要完成|要办", text))
    ):
        todo_args["due_before"] = due
    return read_of(notes=notes, todos=todos, keyword=keyword, todo_args=todo_args, text=text)


def is_day(value: str) -> bool:
    """Whether ``value`` (a time said) names a day or a time, not a span (下周, 月底) or a
    vague one (晚点, 过几天)."""
    return not re.search(
        r"周$|星期$|礼拜$|月$|月底|月末|周末|年底|以后|稍后|晚点|晚些|待会|等会|一会|回头|改天|过几天|过两天"
        r"|有空|[前后]$",
        value,
    )
