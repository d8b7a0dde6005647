"""The Chinese grammar of the rules planner: one sentence -> one :class:`Intent`.

The order is the cardinal rule: a read verb at the head (列出 查看 看看 显示 搜索 找…) makes a
read, whatever follows; then the explicit write forms (each needs its verb: 创建/添加/记…,
删除, 完成/标记为, 改为/推迟到…, 提醒我); then questions and bare collections (我的待办有哪些);
then a bare "time + event" ("下周一上午开会"), which is *asked about*, never carded; anything
else is help. Times stay the user's words; the tool's ``prepare`` parses them.
"""

from __future__ import annotations

import re
from typing import Any

from agent.planners.lexicon import (
    HELP,
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
from agent.planners.lexicon import ISO as _ISO

# --- time expressions --------------------------------------------------------------------

_NUMBER = r"[0-9零〇一二两三四五六七八九十百]+"
_WEEKDAY = r"[一二三四五六日天1-7]"

_DAY_PIECES = [
    _ISO,
    # relative: 两小时后, 半小时后, 3天后, 一个半小时之后
    rf"(?:{_NUMBER}\s*个?\s*半?\s*(?:小时|钟头|分钟|天|周|星期|礼拜|月)"
    rf"|半\s*个?\s*(?:小时|钟头|天|月))\s*(?:后|之后|以后)",
    r"大后天|后天|明天|明日|今天|今日|昨天|前天|今晚|明晚|昨晚|今早|明早|今夜|明夜",
    rf"(?:下下|下|上|本|这)?个?(?:周|星期|礼拜){_WEEKDAY}",
    # 2099年1月1日, 12月25日 (an explicit year stays with its date: the tool judges it)
    rf"(?:\d{{4}}\s*年\s*)?{_NUMBER}\s*月\s*{_NUMBER}\s*[日号]",
    rf"(?:下|本|这|上)?个?月\s*{_NUMBER}\s*[号日]",
    rf"{_NUMBER}\s*号",
    r"月底|月末|周末|年底|下周|下个?星期|下个?月|本周|这周|本月",
]
_CLOCK_PIECES = [
    r"凌晨|清晨|早上|早晨|上午|中午|正午|午后|下午|傍晚|晚上|夜里|夜间|半夜|晚间",
    r"\d{1,2}\s*[:：]\s*\d{2}",
    # 9 点, 八点半, 9点15分 — not 快一点 ("a bit faster") nor 点心/点名
    rf"(?:(?<![快早慢多少好有差些])(?=一)|(?!一))(?:{_NUMBER})\s*[点點](?![心子名赞评击菜])"
    rf"(?:\s*(?:半|一刻|三刻|整|钟|{_NUMBER}\s*分?))?",
    r"以后|稍后",
]
_PIECE = "|".join(_DAY_PIECES + _CLOCK_PIECES)
TIME = re.compile(rf"(?:{_PIECE})(?:\s*(?:{_PIECE}))*")
_DAY = re.compile("|".join(_DAY_PIECES))
_BEFORE_TIME = re.compile(
    r"(?:在|于|截止到?|截至|到期(?:时间)?|截止时间|截止日期|时间)\s*(?:是|为)?\s*[:：]?\s*$"
)
_AFTER_TIME = re.compile(r"^\s*(?:之前|以前|前|为止|截止|到期)")
_DEADLINE_SUFFIX = re.compile(r"\s*(?:之前|以前|前|为止)$")


def take_zh_time(text: str) -> tuple[str, str | None]:
    """Cut the time expression out of ``text``; return the rest and the time as typed."""
    return take_time(
        text, TIME, prefer_last=False, before=_BEFORE_TIME, after=_AFTER_TIME, tail="的"
    )


def is_time(value: str) -> bool:
    """Return True when ``value`` is a time expression and nothing else."""
    rest, due = take_zh_time(value)
    return due is not None and not rest.strip(STRIP + "的")


_PART_OF_DAY = re.compile(
    r"凌晨|清晨|早上|早晨|上午|中午|正午|午后|下午|傍晚|晚上|夜里|夜间|半夜|晚间"
)


def merge_time(prior: str, answer: str) -> str:
    """Complete a vague time with an answer: "下周一上午" + "10点" -> "下周一上午10点".

    An answer that names its own day replaces the prior time; a clock time keeps the prior
    day, and the prior part of the day unless the answer names its own ("下午3点").
    """
    if _DAY.search(answer) or not prior:
        return answer
    day = "".join(match.group() for match in _DAY.finditer(prior))
    if not _PART_OF_DAY.search(answer):
        part = _PART_OF_DAY.search(prior)
        if part and not day.startswith(("今晚", "明晚", "昨晚", "今早", "明早")):
            day += part.group()
    return day + answer


# --- priorities, titles ------------------------------------------------------------------

_PRIORITIES = (
    ("low", r"低优先级|优先级(?:为|是|设为|设成)?低|不紧急|不太急|不急|低优"),
    ("normal", r"普通优先级|中等?优先级|一般优先级|优先级(?:为|是)?(?:普通|中等?|一般)"),
    (
        "high",
        r"最?高优先级|优先级(?:为|是|设为|设成)?(?:最?高)|高优|很急|非常紧急|比较急|特别重要|"
        r"(?<![^的，,、\s])(?:重要|紧急|加急)(?=$|[的，,、\s])",
    ),
)


def take_priority(text: str) -> tuple[str, str | None]:
    """Remove a priority phrase from ``text``; return the rest and the priority."""
    for priority, pattern in _PRIORITIES:
        match = re.search(rf"[，,、\s]*的?(?:{pattern})的?", text)
        if match:
            return (text[: match.start()] + text[match.end() :]).strip(), priority
    return text, None


def clean_title(text: str) -> str:
    title = text.strip().strip(STRIP).strip("的").strip(STRIP)
    title = re.sub(r"^(?:我)?(?:需要|要|得|该|必须)(?=..)", "", title)
    title = re.sub(r"(?:这件事|这事|这个事)$", "", title)
    return unquote(title).strip(STRIP)


# --- politeness --------------------------------------------------------------------------

_POLITE_HEAD = re.compile(
    r"^(?:(?:你好|您好|嗨|hi|hello|hey)[，,！!\s]*)?"
    r"(?:(?:请你?|请您|麻烦(?:你|您)?|劳驾|拜托(?:你)?|能不能|能否|可不可以|可以|你能|您能|能|你可以|"
    r"帮忙|帮个忙|帮我|帮|给我|替我|为我|我想要?|我要|我得|我需要|想|要)\s*)+"
)
_POLITE_TAIL = re.compile(
    r"(?:[，,\s]*(?:好吗|好不好|可以吗|行吗|行不行|可以不|吗|么|吧|呢|啊|呀|哈|嘛|哦|喔|一下子?|谢谢你?|谢谢啦|"
    r"谢啦|多谢|麻烦了|辛苦了|please|thanks|thx)|[。.!！~～?？…]|\s)+$"
)


def strip_polite(text: str) -> str:
    """Drop polite openings and closing particles: "请帮我列出我的待办吧" -> "列出我的待办"."""
    body = _POLITE_TAIL.sub("", text.strip())
    # "创建个待办吧：整理桌面": a particle before a colon or comma closes a phrase only.
    body = re.sub(r"(?:吧|呢|啊|呀|哈)\s*(?=[：:，,])", "", body)
    # "能帮我新建一个待办吗，明天交房租": the question particle closes the polite part only.
    body = re.sub(r"(?:好吗|好不好|可以吗|行吗|吗|么)\s*[，,]\s*", "：", body, count=1)
    stripped = _POLITE_HEAD.sub("", body)
    # "要" / "想" alone only open a request: keep them when nothing else remains.
    return stripped.strip() or body.strip()


# --- reads -------------------------------------------------------------------------------

_TODO_WORD = (
    r"(?:待办事项|待办清单|待办列表|待办|代办|任务|事项|todo|to-do|要做的事|要做的|计划|清单|提醒)"
)
_NOTE_WORD = r"(?:笔记|记录|备忘录|备忘|notes?|note)"
_READ_HEAD = re.compile(
    r"^(?:列出|列一下|列举|罗列|列列|查看|查阅|看看|看一下|看一眼|看下|瞧瞧|瞅瞅|瞅一眼|看|显示|展示|"
    r"给我看看?|查一下|查查|查询|查找|查|搜索|搜一下|搜搜|搜|找一下|找找|找出|找|检索|翻翻|翻一下|"
    r"告诉我|说说|汇总|统计|回顾|浏览|打开)"
)
_READ_TAIL = re.compile(r"(?:列出来|列一下|看看|看一下|显示出来|给我看看?|调出来|找出来|翻出来)$")
_QUESTION = re.compile(
    r"有哪些|有什么|有没有|有几[个条项件]|多少[个条项件]?|哪些|哪几|什么|几个|几条|啥|怎么样|"
    r"还剩|剩下|剩几|是否|哪里|哪儿|在哪|怎么|如何|为什么|为啥|[吗么][？?]?$|[？?]$"
)
_OPEN = (
    r"未完成|没完成|没有完成|未做完|没做完|还没做|还没完成|待完成|待处理|进行中|没搞定|未结束|没弄完"
    r"|open|开放"
)
_DONE = r"已完成|已经完成|完成了的|完成的|做完的|做完了的|已做完|搞定的|已结束|done|关闭的"
_READ_FILLER = re.compile(
    rf"我的|我|所有的?|全部的?|一下|一眼|最近的?|现在的?|目前的?|当前的?|还|都|吧|呢|有哪些|有什么|"
    rf"有没有|哪些|什么|多少|几个|几条|是|的|里面?|中|列表|清单|(?:{_OPEN})|(?:{_DONE})|"
    rf"高优先级|低优先级|普通优先级|优先级|重要的|紧急的|完成了|做完了|搞定了|完成|做完|搞定|相关|关于|有关|包含|含有|提到|要做|要干|要处理|安排|事情|事儿|日程|[:：，,。？?！!、\s]"
)


_READ_IN = re.compile(
    rf"^(?:在|从)\s*(?:我的)?\s*(?:{_NOTE_WORD}|{_TODO_WORD})\s*(?:里面|里|中)?\s*(?=[搜查找看翻])",
    re.IGNORECASE,
)


def _read_status(text: str) -> str | None:
    if re.search(_OPEN, text, re.IGNORECASE):
        return "open"
    if re.search(_DONE, text, re.IGNORECASE):
        return "done"
    return None


def _keyword(text: str) -> str:
    """Return what is left of a read once its verbs, targets and fillers are gone."""
    quoted = re.search(QUOTED, text)
    if quoted:
        return unquote(quoted.group())
    about = re.search(r"(?:关于|有关|包含|含有|提到|提及)\s*(?P<kw>.+?)\s*(?:的|相关)", text)
    if about:
        return unquote(about.group("kw"))
    rest = _READ_HEAD.sub("", _READ_IN.sub("", text).strip())
    rest = _READ_TAIL.sub("", rest)
    rest = re.sub(_TODO_WORD, " ", rest, flags=re.IGNORECASE)
    rest = re.sub(_NOTE_WORD, " ", rest, flags=re.IGNORECASE)
    rest = re.sub(r"^(?:把|将|在|从)", "", rest.strip())
    rest = _READ_FILLER.sub(" ", rest)
    return " ".join(rest.split()).strip(STRIP)


# What a question must be about to be read as a lookup of the user's items.
_TOPIC = re.compile(
    rf"{_TODO_WORD}|{_NOTE_WORD}|{_OPEN}|{_DONE}|安排|要做|做什么|干什么|忙什么|事情|事儿|日程|截止|到期|"
    r"过期|逾期|优先级|完成|记过|写过",
    re.IGNORECASE,
)


def read_intent(text: str) -> Intent:
    """Turn a read request into query_todos / search_notes (both when it names neither)."""
    notes = re.search(_NOTE_WORD, text, re.IGNORECASE) is not None
    status = _read_status(text)
    todos = (
        re.search(_TODO_WORD, text, re.IGNORECASE) is not None
        or status is not None
        or re.search(r"完成|做完|搞定|截止|到期|过期|逾期|优先级|要做", text) is not None
    )
    rest, due = take_zh_time(text)
    keyword = _keyword(rest if due else text)
    todo_args: dict[str, Any] = {}
    if status:
        todo_args["status"] = status
    if keyword:
        todo_args["keyword"] = keyword
    if due and re.fullmatch(r"今天|今日|明天|后天|今晚|明晚", due):
        todo_args["due_before"] = due
    if notes and not todos:
        if not keyword:
            return ask("search_notes", SLOT_KEYWORD)
        return Intent("search_notes", {"keyword": keyword})
    if todos or not keyword:
        return Intent("query_todos", todo_args)
    # A search that names neither kind: look in both.
    return Intent(
        "search_notes", {"keyword": keyword}, also=(("query_todos", {"keyword": keyword}),)
    )


def _is_read(text: str) -> bool:
    if _READ_HEAD.match(text) or _READ_TAIL.search(text):
        return True
    if _QUESTION.search(text) and not _WRITE_HEAD.match(text):
        return True
    # A bare collection: 我的待办, 未完成的任务, 所有笔记, 待办列表.
    return bool(
        re.fullmatch(
            rf"(?:我的|所有的?|全部的?|今天的?|明天的?|最近的?|(?:{_OPEN})的?|(?:{_DONE})的?)*\s*"
            rf"(?:{_TODO_WORD}|{_NOTE_WORD})(?:列表|清单)?",
            text,
            re.IGNORECASE,
        )
    )


# --- writes ------------------------------------------------------------------------------

_CREATE = (
    r"(?:创建|新建|新增|添加|增加|加上|加个|加一个|加一条|加|记下|记录|记一下|记个|记一个|记一条|记|建"
    r"|设置|设个|设|安排|弄|开)"
)
_MEASURE = r"(?:一下)?\s*(?:一|1|几)?\s*(?:条|个|项|件|篇|则)?"
_TODO = r"(?:待办事项|待办|代办|任务|todo|to-do|提醒|事项)"
_NOTE = r"(?:笔记|备忘录|备忘|note)"
_END = r"\s*$"
_TITLE = rf"(?P<title>{QUOTED}|.+?)"
_DONE_STATE = r"完成|已完成|做完|搞定|结束|完结|done"
_OPEN_STATE = r"未完成|没完成|待完成|未做完|没做完|进行中|重新打开|打开|未开始|待办|open"
_WRITE_HEAD = re.compile(
    rf"^(?:{_CREATE}|写|删除|删掉|删了|删|移除|去掉|清除|把|将|给|完成|做完|勾掉|勾选|重新打开|重开|"
    r"修改|更改|调整|更新|改|重命名|推迟|延后|提前|标记|提醒)(?!的|过的|了的)"
)
_KINDS = {"笔记": "note", "备忘": "note", "备忘录": "note", "note": "note"}


def _kind(word: str | None) -> str:
    return _KINDS.get((word or "").lower(), "todo")


def _ref_key(kind: str) -> str:
    return "note_title" if kind == "note" else "todo_title"


def _zh(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | re.DOTALL)


_DELETE_ACCOUNT = _zh(
    r"(?:注销|删除|删掉|销毁|关闭|停用|注销掉)\s*(?:我的|这个)?\s*(?:账号|账户|帐号|帐户|用户)"
)
_DELETE_VERB = r"(?:删除|删掉|删了|删(?![除掉了])|移除|去掉|清除|清掉|干掉)"
_DELETE = [
    _zh(
        rf"^{_DELETE_VERB}\s*(?:一下)?\s*(?:这条|这个|那条|那个|我的)?\s*(?P<kind>{_NOTE}|{_TODO})?"
        rf"\s*[：:]?\s*{_TITLE}\s*(?:这条|这个)?\s*(?P<kind2>{_NOTE}|{_TODO})?{_END}"
    ),
    _zh(
        rf"^(?:把|将)\s*(?:这条|这个)?\s*(?P<kind>{_NOTE}|{_TODO})?\s*{_TITLE}\s*(?:这条|这个)?"
        rf"(?P<kind2>{_NOTE}|{_TODO})?\s*(?:给我)?{_DELETE_VERB}(?:掉)?(?:吧|了)?{_END}"
    ),
]
_STATUS_VERB = (
    r"标记为|标记成|标成|标为|标记|设为|设置为|设置成|设成|改为|改成|置为|变成|改回|更新为|更新成"
)
_STATUS = [
    _zh(
        rf"^(?:把|将)?\s*(?:这个|这条)?\s*(?:{_TODO})?\s*(?!笔记){_TITLE}\s*(?:{_STATUS_VERB})\s*"
        rf"(?:已经?|为)?\s*(?P<state>{_OPEN_STATE}|{_DONE_STATE})(?:状态)?\s*了?{_END}"
    ),
    _zh(
        rf"^(?P<state>完成|做完|勾掉|勾选|完结|搞定|结束|打勾)(?:了|一下)?\s*(?:这个|这条)?\s*(?:{_TODO})?"
        rf"\s*[：:]?\s*{_TITLE}\s*(?:这个|这条)?(?:{_TODO})?{_END}"
    ),
    _zh(
        rf"^(?P<state>重新打开|重开|恢复|取消完成|撤销完成|取消勾选|打开)(?:一下)?\s*(?:这个|这条)?\s*(?:{_TODO})?"
        rf"\s*[：:]?\s*{_TITLE}\s*(?:{_TODO})?{_END}"
    ),
    _zh(
        rf"^(?:{_TODO})?\s*{_TITLE}\s*(?:{_TODO})?\s*(?:我)?(?:已经|已)?"
        rf"(?P<state>完成了|做完了|搞定了|弄完了|办完了|处理完了|完成|做完|搞定)(?:啦|了)?{_END}"
    ),
    _zh(rf"^我(?:已经|已)?(?P<state>做完|完成|搞定|弄完|办完)了\s*(?:{_TODO})?\s*{_TITLE}{_END}"),
    _zh(
        rf"^(?:把|将)\s*(?:{_TODO})?\s*{_TITLE}\s*(?P<state>勾掉|勾选|划掉|打勾|完成|做完|搞定)(?:了)?"
        + _END
    ),
]
_FIELD = (
    r"截止时间|截止日期|到期时间|到期日|截止|期限|deadline|时间|日期|标题|名称|名字|优先级|描述|备注|说明|"
    r"内容|正文|标签"
)
_UPDATE_VERB = (
    r"改到|改成|改为|修改为|修改成|更新为|更新成|调整到|调整为|调到|调成|推迟到|推到|延后到|延期到|延迟到|"
    r"提前到|挪到|移到|改在|换到|换成|设为|设置为|设置成|设成|定为|定在|重命名为|改名为|改名叫|命名为|"
    r"替换为|替换成|变成"
)
_UPDATE = [
    # 把「周报」的截止时间改为明天下午 5 点 / 把周报推迟到周五 / 将任务X改成高优先级
    _zh(
        rf"^(?:把|将|给)\s*(?:这个|这条|这篇)?\s*(?P<kind>{_NOTE}|{_TODO})?\s*{_TITLE}\s*"
        rf"(?P<kind2>{_NOTE}|{_TODO})?\s*的?\s*(?P<field>{_FIELD})?\s*(?:也|都)?\s*"
        rf"(?P<verb>{_UPDATE_VERB})\s*(?P<value>.+?){_END}"
    ),
    # 修改待办X的截止时间为明天 / 改一下周报的优先级为高
    _zh(
        rf"^(?:修改|更改|调整|更新|改|编辑)(?:一下)?\s*(?P<kind>{_NOTE}|{_TODO})?\s*{_TITLE}\s*"
        rf"(?P<kind2>{_NOTE}|{_TODO})?\s*的\s*(?P<field>{_FIELD})\s*[，,]?\s*"
        rf"(?P<verb>为|成|到|改为|改成|改到|设为|{_UPDATE_VERB})\s*(?P<value>.+?){_END}"
    ),
    # 周报的截止时间改成周五 / 待办X的优先级调成高
    _zh(
        rf"^(?P<kind>{_NOTE}|{_TODO})?\s*{_TITLE}\s*(?P<kind2>{_NOTE}|{_TODO})?\s*的\s*"
        rf"(?P<field>{_FIELD})\s*(?:要|请|帮我)?\s*(?P<verb>{_UPDATE_VERB})\s*(?P<value>.+?){_END}"
    ),
    # 推迟待办X到周五 / 重命名待办X为Y
    _zh(
        rf"^(?P<verb>推迟|延后|延期|提前|改期|挪|重命名|改名)\s*(?P<kind>{_NOTE}|{_TODO})?\s*{_TITLE}\s*"
        rf"(?:到|为|成|至)\s*(?P<value>.+?){_END}"
    ),
]
# Asked without a value: 把周报的优先级改一下 / 修改待办X
_UPDATE_NO_VALUE = _zh(
    rf"^(?:把|将)?\s*(?P<kind>{_NOTE}|{_TODO})?\s*{_TITLE}\s*(?P<kind2>{_NOTE}|{_TODO})?\s*的?\s*"
    rf"(?P<field>{_FIELD})?\s*(?:改一下|修改一下|调整一下|更新一下|改改|修改|更改|调整|更新|编辑|改){_END}"
)
_UPDATE_HEAD_ONLY = _zh(
    rf"^(?:修改|更改|调整|更新|编辑|改)(?:一下)?\s*(?P<kind>{_NOTE}|{_TODO})\s*{_TITLE}?{_END}"
)
_DESCRIBE = _zh(
    rf"^(?:给|为|在)\s*(?P<kind>{_TODO})?\s*{_TITLE}\s*(?:{_TODO})?\s*(?:里|上)?\s*"
    r"(?:加|添加|写|补充|加上)(?:一下|个|一个|一条|上)?\s*(?:描述|备注|说明)\s*[：:，,]?\s*(?P<value>.+?)"
    + _END
)
_PRIORITY_SET = _zh(
    rf"^(?:把|将|给)\s*(?P<kind>{_TODO})?\s*{_TITLE}\s*(?:{_TODO})?\s*(?:设|设为|设成|设置为|标|标为|"
    r"标成|标记为|改为|改成|调为|调成|调到|提到|提高到|降到|降低到|加|加上|打上)\s*(?:个|一个)?\s*"
    r"(?P<value>(?:最?高|低|普通|中等?|一般)\s*优先级|优先级\s*(?:最?高|低|普通|中等?)|紧急|重要|不急)"
    + _END
)

_CREATE_NOTE = [
    _zh(
        rf"^(?:{_CREATE}|写|存|保存)\s*{_MEASURE}\s*(?:新的?)?\s*{_NOTE}\s*"
        r"(?:[：:，,—–-]\s*|\s+|(?=[「『“\"‘'《])|$)(?P<body>.*?)\s*$"
    ),
    _zh(
        rf"^(?:把|将)?\s*(?P<body>.+?)\s*(?:记到|记在|记进|存到|存进|保存到|保存为|写到|写进|加到|放到|记成|记为)"
        rf"\s*(?:我的)?\s*(?:一条|一篇)?\s*{_NOTE}\s*(?:里|中|里面)?{_END}"
    ),
    _zh(rf"^{_NOTE}\s*[：:]\s*(?P<body>.+?)\s*$"),
]
_CREATE_TODO = [
    # 记一个待办：周五前交报告 / 添加待办「提交周报」，截止今晚9点 / 新建一个高优先级任务 X
    _zh(
        rf"^{_CREATE}\s*{_MEASURE}\s*(?:新的?)?\s*(?:(?P<priority>[^\s，,：:]{{1,6}}?)的?)?\s*{_TODO}\s*"
        r"(?:[：:，,—–-]\s*|\s+|(?=[「『“\"‘'《])|(?=[^\s]))(?P<body>.+?)\s*$"
    ),
    # 帮我创建一条今晚 9 点提交周报的高优先级待办
    _zh(rf"^{_CREATE}\s*{_MEASURE}\s*(?P<body>.+?)\s*的?\s*{_TODO}{_END}"),
    # 把买牛奶加到待办 / 买牛奶加入待办清单
    _zh(
        rf"^(?:把|将)?\s*(?P<body>.+?)\s*(?:加到|加进|加入|添加到|放到|放进|记到|记入|写到|列入|列到|排进)"
        rf"\s*(?:我的)?\s*{_TODO}(?:列表|清单)?\s*(?:里|中|里面)?{_END}"
    ),
    # 待办：买牛奶
    _zh(rf"^{_TODO}\s*[：:]\s*(?P<body>.+?)\s*$"),
    # 提醒我明天下午3点开会 / 明天早上8点提醒我交报告
    _zh(
        r"^(?P<before>.*?)(?:提醒我|提醒一下我|叫我|通知我|别让我忘了|别忘了提醒我)\s*(?P<body>.+?)\s*$"
    ),
]
_ASK_TODO = _zh(rf"^{_CREATE}\s*{_MEASURE}\s*(?:新的?)?\s*{_TODO}{_END}")
_ASK_NOTE = _zh(rf"^(?:{_CREATE}|写)\s*{_MEASURE}\s*(?:新的?)?\s*{_NOTE}{_END}")
# A todo named by a noun phrase that carries its own time: 下周一上午 10 点开会的待办.
_TODO_PHRASE = _zh(rf"^(?P<body>.+?)\s*的\s*{_TODO}{_END}")
_WRITE_WORDS = re.compile(
    r"删除|删掉|创建|新建|添加|修改|更新|标记|改成|改为|改到|注销|完成|推迟|提醒|记|加|改|删|设"
)


_MOVE_VERBS = frozenset(
    [
        "推迟",
        "延后",
        "延期",
        "提前",
        "改期",
        "挪",
        "改到",
        "推迟到",
        "推到",
        "延后到",
        "延期到",
        "延迟到",
        "提前到",
        "挪到",
        "移到",
        "改在",
        "换到",
        "调到",
        "定在",
    ]
)
_RENAME_VERBS = frozenset(["重命名为", "改名为", "改名叫", "命名为", "重命名", "改名"])
_TIME_FIELDS = frozenset(
    ["截止时间", "截止日期", "到期时间", "到期日", "截止", "期限", "时间", "日期", "deadline"]
)


def _field_args(kind: str, field_name: str, verb: str, value: str) -> Intent:
    """Build update_todo / update_note from a field word and its new value."""
    value = value.strip()
    renamed = field_name in {"标题", "名称", "名字"} or verb in _RENAME_VERBS
    if kind == "note" or field_name in {"内容", "正文", "标签"}:
        if renamed:
            return Intent("update_note", {"title": unquote(value)})
        if field_name == "标签":
            return Intent("update_note", {"tags": split_tags(value)})
        return Intent("update_note", {"content": value})
    if renamed:
        return Intent("update_todo", {"title": unquote(value)})
    if field_name == "优先级" or (not field_name and priority_of(value)):
        priority = priority_of(re.sub(r"优先级", "", value) or value) or priority_of(value)
        if priority is None:
            return ask("update_todo", SLOT_PRIORITY)
        return Intent("update_todo", {"priority": priority})
    if field_name in {"描述", "备注", "说明"}:
        return Intent("update_todo", {"description": unquote(value)})
    timed = field_name or is_time(_DEADLINE_SUFFIX.sub("", value) or value)
    if timed or verb in _MOVE_VERBS:
        return Intent("update_todo", {"due_at": _DEADLINE_SUFFIX.sub("", value) or value})
    # "把X改成Y" with a Y that is no time nor priority: a new title.
    return Intent("update_todo", {"title": unquote(value)})


def _update(match: re.Match[str]) -> Intent:
    groups = match.groupdict()
    kind = _kind(groups.get("kind") or groups.get("kind2"))
    title = unquote(groups.get("title") or "")
    value = groups["value"].strip().lstrip("：:，,")
    intent = _field_args(kind, groups.get("field") or "", groups.get("verb") or "", value)
    key = "note_title" if intent.tool == "update_note" else "todo_title"
    if not title:
        return ask(intent.tool or "update_todo", SLOT_TARGET, **intent.args)
    return Intent(intent.tool, {key: title, **intent.args}, slot=intent.slot)


def todo_fields(body: str, *, priority: str | None = None) -> Intent:
    """Build create_todo from a body such as "今晚 9 点提交周报，备注：第三季度的"."""
    description = None
    match = re.search(r"[，,；;。\s]\s*(?:备注|描述|说明|详情)\s*[:：是为]?\s*(?P<text>.+)$", body)
    if match:
        description = match.group("text").strip().strip(STRIP)
        body = body[: match.start()]
    body = re.sub(r"^(?:内容|标题|名字|名称)?\s*(?:是|为|叫做?|：|:)\s*", "", body.strip())
    quoted = re.search(QUOTED, body)
    rest, found_priority = take_priority(body)
    priority = priority or found_priority
    rest, due = take_zh_time(rest)
    rest = re.sub(r"^(?:我)?(?:要|得|需要)?(?:在|于)\s*$", "", rest)
    title = unquote(quoted.group()) if quoted else clean_title(rest)
    args: dict[str, Any] = {}
    if description:
        args["description"] = description
    if due:
        args["due_at"] = _DEADLINE_SUFFIX.sub("", due) or due
    if priority:
        args["priority"] = priority
    if not title:
        return ask("create_todo", SLOT_TITLE, **args)
    return Intent("create_todo", {"title": title, **args})


_NOTE_SPLIT = re.compile(r"\s*(?:——|—|–|--|：|:|，|,|；|;|\n)\s*|\s+-\s+")


def note_fields(body: str) -> Intent:
    """Build create_note from "标题 X，内容 Y" / "X — Y" / "X：Y" / "X"."""
    body = body.strip()
    tags = None
    match = re.search(r"[，,；;。\s]?\s*(?:标签|tags?)\s*[:：是为]?\s*(?P<tags>.+)$", body)
    if match and match.start() > 0:
        tags = split_tags(match.group("tags"))
        body = body[: match.start()].strip()
    labelled = re.match(
        rf"^(?:标题|题目)\s*(?:是|为)?\s*[:：]?\s*(?P<title>{QUOTED}|.+?)\s*(?:[，,；;。]|\s)\s*"
        r"(?:内容|正文)\s*(?:是|为)?\s*[:：]?\s*(?P<content>.+)$",
        body,
        re.DOTALL,
    ) or re.match(
        rf"^(?:标题|题目)\s*(?:是|为)?\s*[:：]?\s*(?P<title>{QUOTED}|.+)$", body, re.DOTALL
    )
    content: str | None
    if labelled:
        title, content = labelled.group("title"), labelled.groupdict().get("content")
    elif re.match(r"^(?:内容|正文)\s*(?:是|为)?\s*[:：]?", body):
        content = re.sub(r"^(?:内容|正文)\s*(?:是|为)?\s*[:：]?\s*", "", body)
        return ask("create_note", SLOT_TITLE, content=content.strip())
    else:
        quoted = re.match(rf"^(?P<title>{QUOTED})\s*(?P<content>.*)$", body, re.DOTALL)
        if quoted:
            title, content = quoted.group("title"), quoted.group("content").lstrip(STRIP + "—–-")
        else:
            parts = _NOTE_SPLIT.split(body, maxsplit=1)
            title, content = (parts[0], parts[1]) if len(parts) == 2 else (body, None)
        if content:
            content = re.sub(r"^(?:内容|正文)\s*(?:是|为)?\s*[:：]?\s*", "", content)
    title = unquote(title)
    args: dict[str, Any] = {}
    if content and content.strip():
        args["content"] = content.strip()
    if tags:
        args["tags"] = tags
    if not title:
        return ask("create_note", SLOT_TITLE, **args)
    return Intent("create_note", {"title": title, **args})


def _status(match: re.Match[str]) -> Intent | None:
    title = re.sub(
        rf"\s*(?:这个|这条|那个|那条)?\s*(?:{_TODO})?$", "", unquote(match.group("title"))
    )
    title = unquote(title)
    if not title or re.fullmatch(r"(?:这个|这条|它|那个|待办|任务|了)", title):
        state = match.group("state")
        opened = re.fullmatch(rf"{_OPEN_STATE}|重开|恢复|取消完成|撤销完成|取消勾选", state, re.I)
        return ask("set_todo_status", SLOT_TARGET, status="open" if opened else "done")
    if re.search(rf"^(?:所有|全部|已完成的|{_OPEN})", title):
        return None
    state = match.group("state")
    opened = re.fullmatch(rf"{_OPEN_STATE}|重开|恢复|取消完成|撤销完成|取消勾选|打开", state, re.I)
    return Intent("set_todo_status", {"todo_title": title, "status": "open" if opened else "done"})


def _writes(text: str) -> Intent | None:
    """Return the write (or its clarification) the sentence clearly asks for, else None."""
    for pattern in _DELETE:
        match = pattern.match(text)
        if match:
            title = unquote(match.group("title"))
            kind = _kind(match.group("kind") or match.group("kind2"))
            if re.search(r"^(?:所有|全部|已完成的?|未完成的?|这些|那些)", title):
                return HELP  # bulk deletes are not offered
            tool = "delete_note" if kind == "note" else "delete_todo"
            if re.fullmatch(rf"(?:这条|这个|那条|那个|我的)?{_NOTE}", title):
                tool = "delete_note"
            vague = not title or re.fullmatch(
                rf"(?:它|这个|那个|这条|那条|一下)?(?:{_TODO}|{_NOTE})?", title
            )
            if tool == "delete_note":  # planned: the registry's guidance answers, whatever the note
                return Intent(tool, {} if vague else {"note_title": title})
            if vague:
                return ask(tool, SLOT_TARGET)
            return Intent(tool, {_ref_key(kind): title})
    match = _DESCRIBE.match(text)
    if match:
        return Intent(
            "update_todo",
            {"todo_title": unquote(match.group("title")), "description": match.group("value")},
        )
    match = _PRIORITY_SET.match(text)
    if match and unquote(match.group("title")):
        return Intent(
            "update_todo",
            {
                "todo_title": unquote(match.group("title")),
                "priority": priority_of(re.sub(r"\s", "", match.group("value"))) or "high",
            },
        )
    for pattern in _UPDATE:
        match = pattern.match(text)
        if match and not re.fullmatch(
            rf"\s*(?:{_DONE_STATE}|{_OPEN_STATE})(?:状态)?\s*了?", match.group("value")
        ):
            return _update(match)
    for pattern in _STATUS:
        match = pattern.match(text)
        if match:
            intent = _status(match)
            if intent is not None:
                return intent
    match = _UPDATE_HEAD_ONLY.match(text)
    if match and not (match.group("title") or "").strip():
        tool = "update_note" if _kind(match.group("kind")) == "note" else "update_todo"
        return ask(tool, SLOT_TARGET)
    match = _UPDATE_NO_VALUE.match(text) or _UPDATE_HEAD_ONLY.match(text)
    if match and (match.groupdict().get("title") or "").strip():
        kind = _kind(match.groupdict().get("kind") or match.groupdict().get("kind2"))
        field_name = match.groupdict().get("field") or ""
        tool = (
            "update_note"
            if kind == "note" or field_name in {"内容", "正文", "标签"}
            else "update_todo"
        )
        slot = (
            SLOT_PRIORITY
            if field_name == "优先级"
            else SLOT_DUE
            if field_name in _TIME_FIELDS
            else SLOT_CHANGE
        )
        return ask(
            tool,
            slot,
            **{_ref_key(kind if tool == "update_note" else "todo"): unquote(match.group("title"))},
        )
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
            groups = match.groupdict()
            body = (groups.get("before") or "") + match.group("body")
            given = groups.get("priority")
            priority = priority_of(given) if given else None
            if given and priority is None:
                body = given + body  # not a priority word: part of the title ("开会的待办")
            return todo_fields(body, priority=priority)
    return None


_NEGATED = re.compile(
    r"^(?:不要|不用|别|先别|先不要|不必|无需|不需要|千万别|没必要|暂时不要|暂时别|不想)"
)
_GREETING = re.compile(
    r"(?:早上好|早安|上午好|中午好|下午好|晚上好|晚安|你好|您好|嗨|哈喽|在吗|在不在|谢谢|多谢|好的|嗯|ok)"
    r"[！!。.~～]*",
    re.IGNORECASE,
)


def interpret(text: str) -> Intent:
    """Return what one Chinese sentence asks for; reads first, writes only when explicit."""
    if _DELETE_ACCOUNT.search(text):
        return Intent("delete_account", {})
    body = strip_polite(text)
    if not body or _GREETING.fullmatch(body) or _NEGATED.match(body):
        return HELP  # "不要删除买菜", "不用提醒我开会": a request NOT to write is no write
    if _READ_HEAD.match(body) or _READ_TAIL.search(body) or _READ_IN.match(body):
        return read_intent(body)
    # A question is a read unless it is a polite wrapper around an explicit write
    # ("能帮我把周报标记为完成吗" asks for the write; "周报完成了吗" asks about it).
    question = bool(_QUESTION.search(text))
    if question and not _WRITE_HEAD.match(body):
        return read_intent(body) if _TOPIC.search(body) else HELP
    write = _writes(body)
    if write is not None:
        return write
    if _is_read(body):
        return read_intent(body)
    match = _TODO_PHRASE.match(body)
    if match:
        intent = todo_fields(match.group("body"))
        if intent.tool == "create_todo" and not intent.slot and "due_at" in intent.args:
            return intent  # 下周一上午 10 点开会的待办: the todo and its time are both named
        return read_intent(body)
    rest, due = take_zh_time(
        re.sub(r"^(?:记一下|记下来|记下|记录一下|记一笔|记着|记住)\s*", "", body)
    )
    title = clean_title(rest)
    if due and title and not question and not _WRITE_WORDS.search(title):
        # 下周一上午开会: probably a todo, but nothing asked for one: ask, never guess.
        return ask("create_todo", SLOT_INTENT, title=title, due_at=due)
    return HELP


# --- follow-up answers -------------------------------------------------------------------

_YES = re.compile(
    r"^(?:是|是的|对|对的|好|好的|好啊|行|可以|没错|嗯|嗯嗯|确定|要|需要|创建吧|就这样|ok|okay|yes)$",
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


def is_no(text: str) -> bool:
    return bool(_NO.match(re.sub(r"(?:吧|啊|呀|哈|了)+$", "", text.strip().strip(STRIP))))


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


def time_answer(text: str) -> str | None:
    """Return the time an answer gives ("10点", "改到明天下午3点吧"), else None."""
    body = strip_polite(text).strip(STRIP)
    body = re.sub(
        r"^(?:改到|改成|改为|定在|定为|设为|设在|截止(?:时间)?(?:是|为)?|就|在|是)\s*", "", body
    )
    body = _DEADLINE_SUFFIX.sub("", body)
    return body if is_time(body) else None


def priority_answer(text: str) -> str | None:
    body = strip_polite(text).strip(STRIP)
    body = re.sub(r"^(?:改成|改为|设为|设成|调成|调到|就|是|要)\s*", "", body)
    return priority_of(body) or priority_of(re.sub(r"的?优先级|的$", "", body))
