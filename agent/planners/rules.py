"""The offline rules planner: deterministic sentence patterns in Chinese and English.

It is the default without an API key and the engine of ``LIGHTNOTE_PLANNER=rules``. Like
the model, it only *proposes*: times stay the user's words (``due_at: "今晚 9 点"``) for the
tool's ``prepare`` to parse, titles are named, never resolved, and read tools run through
the caller's runner. Its final reply is a template filled from the receipt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from agent.planners import prompts  # noqa: F401  (registers the planner texts)
from agent.planners.base import (
    FACT_SUCCEEDED,
    Fact,
    PlanRequest,
    PlanResult,
    Proposal,
    reply_locale,
    require_succeeded,
    run_read,
)
from lightnote.i18n import translate


@dataclass(frozen=True)
class Intent:
    """What a sentence asks for: a tool call, or a text code when no tool fits."""

    tool: str | None
    args: dict[str, Any] = field(default_factory=dict)
    message: str = "PLANNER_HELP"


# --- Shared pieces ----------------------------------------------------------------------

# A title in quotes: 「」『』“”‘’《》 or ASCII quotes.
_QUOTED = r"[「『“\"‘'《][^」』”\"’'》]+[」』”\"’'》]"
_QUOTES = "「」『』“”‘’《》\"'"
_STRIP = " \t，,。.!！?？、；;：:～~"

_ZH_NUMBER = r"[0-9０-９零〇一二两三四五六七八九十百]+"
_ZH_WEEKDAY = r"[一二三四五六日天1-7]"
_ISO = r"\d{4}-\d{1,2}-\d{1,2}(?:[ T]\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?"

# One piece of a Chinese time expression, longest alternatives first.
_ZH_TIME_PIECE = "|".join(
    [
        _ISO,
        # relative: 两小时后, 半小时后, 3天后, 一个半小时之后
        rf"(?:{_ZH_NUMBER}\s*个?\s*半?\s*(?:小时|钟头|分钟|天|周|星期|礼拜|月)"
        rf"|半\s*个?\s*(?:小时|钟头|天|月))\s*(?:后|之后|以后)",
        r"大后天|后天|明天|明日|今天|今日|昨天|前天|今晚|明晚|昨晚|今早|明早|今夜|明夜",
        rf"(?:下下|下|上|本|这)?个?(?:周|星期|礼拜){_ZH_WEEKDAY}",
        # 2099年1月1日, 12月25日 (an explicit year stays with its date: the tool judges it)
        rf"(?:\d{{4}}\s*年\s*)?{_ZH_NUMBER}\s*月\s*{_ZH_NUMBER}\s*[日号]",
        rf"(?:下|本|这|上)?个?月\s*{_ZH_NUMBER}\s*[号日]",
        rf"{_ZH_NUMBER}\s*号",
        r"月底|月末|周末|年底|下周|下个?星期|下个?月|本周|这周|本月",
        r"凌晨|清晨|早上|早晨|上午|中午|正午|午后|下午|傍晚|晚上|夜里|夜间|半夜|晚间",
        r"\d{1,2}\s*[:：]\s*\d{2}",
        # 9 点, 八点半, 9点15分 — not 快一点 ("a bit faster") nor 点心/点名
        rf"(?<![快早慢多少好有差些])(?:{_ZH_NUMBER})\s*[点點](?![心子名赞评击菜])"
        rf"(?:\s*(?:半|一刻|三刻|整|钟|{_ZH_NUMBER}\s*分?))?",
        r"以后|稍后",
    ]
)
_ZH_TIME = re.compile(rf"(?:{_ZH_TIME_PIECE})(?:\s*(?:{_ZH_TIME_PIECE}))*")
_ZH_BEFORE_TIME = re.compile(
    r"(?:在|于|截止到?|截至|到期(?:时间)?|截止时间|截止日期|时间)\s*(?:是|为)?\s*[:：]?\s*$"
)
_ZH_AFTER_TIME = re.compile(r"^\s*(?:之前|以前|前|为止|截止|到期)")
_ZH_DEADLINE_SUFFIX = re.compile(r"\s*(?:之前|以前|前|为止)$")

_EN_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_EN_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_EN_COUNT = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|half\s+an?)"
_EN_TIME_PIECE = "|".join(
    [
        _ISO,
        rf"in\s+{_EN_COUNT}\s+(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?)\b",
        r"in\s+half\s+an\s+hour\b",
        r"the\s+day\s+after\s+tomorrow\b",
        r"(?:tomorrow|today|tonight|yesterday)(?:\s+(?:morning|afternoon|evening|night))?\b",
        r"this\s+(?:morning|afternoon|evening|weekend|week)\b",
        rf"(?:(?:next|this|coming)\s+)?{_EN_WEEKDAY}(?:\s+(?:morning|afternoon|evening|night))?\b",
        r"next\s+(?:week|month|weekend)\b",
        r"end\s+of\s+(?:the\s+)?(?:day|week|month)\b|eod\b|eow\b",
        rf"{_EN_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s*\d{{4}}\b)?",
        rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_EN_MONTH}\b",
        r"\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)(?![a-z])",
        r"\d{1,2}:\d{2}\b",
        r"(?:noon|midnight|midday)\b",
        r"\d{1,2}\s*o'?clock\b",
        r"at\s+\d{1,2}(?::\d{2})?(?![\d:])"
        r"(?!\s*(?:am|pm|a\.m\.|p\.m\.|o'?clock|%|percent|people|items|minutes|hours))",
        r"(?:soon|asap)\b",
    ]
)
_EN_TIME = re.compile(
    rf"(?<![\w-])(?:{_EN_TIME_PIECE})(?:(?:\s*,\s*|\s+)(?:(?:at|on|by)\s+)?(?:{_EN_TIME_PIECE}))*",
    re.IGNORECASE,
)
_EN_BEFORE_TIME = re.compile(
    r"(?:\s*,)?\s+(?:at|on|by|before|due(?:\s+(?:on|at|by))?|until|till|for|from)\s*:?\s*$",
    re.IGNORECASE,
)

_ZH_PRIORITIES = (
    ("low", r"低优先级|优先级(?:为|是)?低|不紧急|不急|低优"),
    ("normal", r"普通优先级|中等?优先级|一般优先级|优先级(?:为|是)?(?:普通|中等?|一般)"),
    (
        "high",
        r"最?高优先级|优先级(?:为|是)?(?:最?高)|高优|(?<![^的，,、\s])(?:重要|紧急)(?=$|[的，,、\s])",
    ),
)
_EN_PRIORITIES = (
    ("low", r"(?:with\s+)?(?:a\s+)?low[\s-]+priority|priority\s*(?::|is|of)?\s*low"),
    (
        "normal",
        r"(?:with\s+)?(?:a\s+)?(?:normal|medium)[\s-]+priority|priority\s*(?::|is|of)?\s*"
        r"(?:normal|medium)",
    ),
    (
        "high",
        r"(?:with\s+)?(?:a\s+)?(?:high|top)[\s-]+priority|priority\s*(?::|is|of)?\s*high",
    ),
)
_PRIORITY_WORDS = {
    "高": "high", "高优先级": "high", "重要": "high", "紧急": "high", "high": "high",
    "urgent": "high", "top": "high", "低": "low", "低优先级": "low", "low": "low",
    "普通": "normal", "中": "normal", "中等": "normal", "一般": "normal", "normal": "normal",
    "medium": "normal", "普通优先级": "normal", "中优先级": "normal", "不急": "low",
    "不紧急": "low",
}  # fmt: skip


def _unquote(text: str) -> str:
    text = text.strip().strip(_STRIP)
    if len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
        text = text[1:-1]
    return text.strip()


def _priority_of(value: str) -> str | None:
    """Return the priority a bare value names ("高", "high priority"), or None."""
    word = re.sub(r"(?:优先级|[\s-]*priority)$", "", value.strip().strip(_STRIP).lower()).strip()
    return _PRIORITY_WORDS.get(word or value.strip().lower())


def _take_priority(text: str, *, english: bool) -> tuple[str, str | None]:
    """Remove a priority phrase from ``text``; return the rest and the priority."""
    for priority, pattern in _EN_PRIORITIES if english else _ZH_PRIORITIES:
        if english:
            regex = re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE)
        else:
            regex = re.compile(rf"的?(?:{pattern})的?")
        match = regex.search(text)
        if match:
            glue = " " if english else ""
            return (text[: match.start()] + glue + text[match.end() :]).strip(), priority
    return text, None


def _take_time(text: str, *, english: bool) -> tuple[str, str | None]:
    """Remove the time expression from ``text``; return the rest and the time, untouched."""
    pattern = _EN_TIME if english else _ZH_TIME
    matches = [m for m in pattern.finditer(text) if m.group().strip()]
    if not matches:
        return text, None
    # The longest expression wins; on a tie the one nearer the end (English puts the time
    # last) or nearer the start (Chinese puts it first).
    match = max(matches, key=lambda m: (len(m.group()), m.start() if english else -m.start()))
    left, right = text[: match.start()], text[match.end() :]
    if english:
        left = _EN_BEFORE_TIME.sub("", " " + left).strip()
        rest = f"{left} {right.strip()}".strip()
    else:
        left = _ZH_BEFORE_TIME.sub("", left)
        right = _ZH_AFTER_TIME.sub("", right)
        rest = (left.rstrip(_STRIP + "的") + right.lstrip(_STRIP)).strip()
    return rest, match.group().strip()


def _is_time(value: str, *, english: bool) -> bool:
    """Return True when ``value`` is a time expression and nothing else."""
    rest, due = _take_time(value, english=english)
    return due is not None and not rest.strip(_STRIP)


def _clean_zh_title(text: str) -> str:
    title = text.strip().strip(_STRIP).strip("的").strip(_STRIP)
    title = re.sub(r"^(?:我)?(?:需要|要|得)(?=..)", "", title)
    return _unquote(title)


def _clean_en_title(text: str) -> str:
    title = re.sub(r"\s+", " ", text).strip().strip(_STRIP)
    title = re.sub(r"^(?:to|that|about|for|which\s+is)\s+", "", title, flags=re.IGNORECASE)
    for _ in range(3):
        title = _EN_BEFORE_TIME.sub("", " " + title).strip().strip(_STRIP)
    title = _unquote(title)
    return title[:1].upper() + title[1:]


def _todo_fields(body: str, *, english: bool, priority: str | None = None) -> Intent:
    """Build create_todo from a body such as "今晚 9 点提交周报" or "submit it at 9pm"."""
    description = None
    tail = (
        r"[,;.]?\s*(?:with\s+)?(?:the\s+)?description\s*[:：]?\s*(?P<text>.+)$"
        if english
        else r"[，,；;。\s]\s*(?:备注|描述|说明)\s*[:：是为]?\s*(?P<text>.+)$"
    )
    match = re.search(tail, body, re.IGNORECASE)
    if match:
        description = match.group("text").strip().strip(_STRIP)
        body = body[: match.start()]
    quoted = re.search(_QUOTED, body)
    rest, found_priority = _take_priority(body, english=english)
    priority = priority or found_priority
    rest, due = _take_time(rest, english=english)
    if quoted:
        title = _unquote(quoted.group())
    else:
        title = _clean_en_title(rest) if english else _clean_zh_title(rest)
    if not title:
        return Intent(None, message="PLANNER_ASK_TODO")
    args: dict[str, Any] = {"title": title}
    if description:
        args["description"] = description
    if due:
        args["due_at"] = due
    if priority:
        args["priority"] = priority
    return Intent("create_todo", args)


def _split_tags(text: str) -> list[str]:
    return [tag for tag in re.split(r"[、,，;；\s]+", _unquote(text)) if tag.strip(_STRIP)]


def _note_fields(body: str, *, english: bool) -> Intent:
    """Build create_note from "标题 X，内容 Y" / "titled X: Y" / "X：Y" / "X"."""
    body = body.strip()
    tags = None
    tag_tail = (
        r"[,;.]?\s*(?:(?:with\s+)?tags?|tagged(?:\s+with)?)\s*[:：]?\s+(?P<tags>.+)$"
        if english
        else r"[，,；;。\s]?\s*标签\s*[:：是为]?\s*(?P<tags>.+)$"
    )
    match = re.search(tag_tail, body, re.IGNORECASE)
    if match:
        tags = _split_tags(match.group("tags"))
        body = body[: match.start()].strip()
    if english:
        labelled = re.match(
            rf"^(?:titled|called|named|with\s+(?:the\s+)?title)\s+(?P<title>{_QUOTED}|.+?)"
            r"(?:\s*:\s*|\s*[,;]\s*(?:(?:with\s+)?(?:the\s+)?(?:content|body|text)|saying|that\s+says)"
            r"\s*:?\s*|\s+(?:(?:with\s+)?(?:the\s+)?(?:content|body|text)|saying|that\s+says)"
            r"\s*:?\s*)(?P<content>.+)$",
            body,
            re.IGNORECASE | re.DOTALL,
        ) or re.match(
            rf"^(?:titled|called|named|with\s+(?:the\s+)?title)\s+(?P<title>{_QUOTED}|.+)$",
            body,
            re.IGNORECASE | re.DOTALL,
        )
    else:
        labelled = re.match(
            rf"^(?:标题|题目)\s*[:：是为]?\s*(?P<title>{_QUOTED}|.+?)\s*(?:[，,；;。]|\s)\s*"
            r"(?:内容|正文)\s*[:：是为]?\s*(?P<content>.+)$",
            body,
            re.DOTALL,
        ) or re.match(rf"^(?:标题|题目)\s*[:：是为]?\s*(?P<title>{_QUOTED}|.+)$", body, re.DOTALL)
    if labelled:
        title = labelled.group("title")
        content = labelled.groupdict().get("content")
    else:
        quoted = re.match(
            rf"^(?P<title>{_QUOTED})\s*[，,:：；;]?\s*(?P<content>.*)$", body, re.DOTALL
        )
        parts = quoted or re.match(r"^(?P<title>[^，,:：；;]+)[，,:：；;]\s*(?P<content>.+)$", body)
        title, content = (parts.group("title"), parts.group("content")) if parts else (body, None)
        if content and not english:
            content = re.sub(r"^(?:内容|正文)\s*[:：是为]?\s*", "", content)
    title = _unquote(title)
    if not title:
        return Intent(None, message="PLANNER_ASK_NOTE")
    args: dict[str, Any] = {"title": title}
    content = (content or "").strip()
    if content:
        args["content"] = content
    if tags:
        args["tags"] = tags
    return Intent("create_note", args)


# --- Chinese sentences ------------------------------------------------------------------

_ZH_POLITE = r"(?:请|麻烦|帮忙|能不能|可以|可不可以)?\s*(?:你)?\s*(?:帮我|给我|替我|为我|帮)?\s*"
_ZH_CREATE = r"(?:创建|新建|新增|添加|增加|加上|加|记下|记录|记|建|设置|设|安排|列)"
_ZH_MEASURE = r"(?:一下)?\s*(?:一|1)?\s*(?:条|个|项|件|篇|则)?"
_ZH_TODO = r"(?:待办事项|待办|任务|todo|TODO|Todo)"
_ZH_PRIORITY_WORD = r"高优先级|低优先级|普通优先级|中优先级|重要|紧急|不紧急|不急"
_ZH_END = r"\s*[。.!！]?\s*$"
_ZH_TITLE = rf"(?P<title>{_QUOTED}|.+?)"
_ZH_DONE = r"完成|已完成|做完|搞定|结束|done"
_ZH_OPEN = r"未完成|没完成|待完成|未做完|没做完|进行中|重新打开|打开|未开始|open"


def _zh(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | re.DOTALL)


_ZH_DELETE_ACCOUNT = _zh(
    r"(?:注销|删除|删掉|销毁|关闭|停用)\s*(?:我的|这个)?\s*(?:账号|账户|帐号|帐户|用户)"
)
_ZH_DELETE = [
    _zh(
        rf"^{_ZH_POLITE}(?:删除|删掉|删了|删|移除|去掉|清除)\s*(?:一下)?\s*(?:这条|这个|那条|那个)?"
        rf"\s*(?P<kind>笔记|待办|任务)\s*[：:]?\s*{_ZH_TITLE}{_ZH_END}"
    ),
    _zh(
        rf"^{_ZH_POLITE}(?:把|将)\s*(?:这条|这个)?\s*(?P<kind>笔记|待办|任务)\s*{_ZH_TITLE}\s*"
        rf"(?:给我)?(?:删除|删掉|删了|删|移除|去掉)(?:吧|了)?{_ZH_END}"
    ),
]
_ZH_STATUS = [
    _zh(
        rf"^{_ZH_POLITE}(?:把|将)?\s*(?:这个|这条)?\s*(?:待办|任务)?\s*(?!笔记){_ZH_TITLE}\s*"
        r"(?:标记为|标记成|标成|标为|设为|设置为|设置成|改为|改成|置为|变成|改回)\s*(?:已经?|为)?\s*"
        rf"(?P<state>{_ZH_OPEN}|{_ZH_DONE})(?:状态)?\s*了?{_ZH_END}"
    ),
    _zh(
        rf"^{_ZH_POLITE}(?P<state>完成|做完|勾掉|勾选|完结)了?\s*(?:这个|这条)?\s*(?:待办|任务)"
        rf"\s*[：:]?\s*{_ZH_TITLE}{_ZH_END}"
    ),
    _zh(
        rf"^{_ZH_POLITE}(?P<state>重新打开|重开|恢复|取消完成)\s*(?:这个|这条)?\s*(?:待办|任务)"
        rf"\s*[：:]?\s*{_ZH_TITLE}{_ZH_END}"
    ),
    _zh(
        rf"^(?:待办|任务)?\s*(?P<title>{_QUOTED})\s*(?:已经|已)?(?P<state>完成了|做完了|搞定了|完成|做完)"
        rf"{_ZH_END}"
    ),
]
_ZH_UPDATE_VERB = (
    r"改到|改成|改为|修改为|修改成|更新为|更新成|调整到|调整为|推迟到|推到|延后到|延期到|延迟到|"
    r"提前到|挪到|移到|改在|换到|设为|设置为|设置成|定为|重命名为|改名为"
)
_ZH_UPDATE_TODO = [
    _zh(
        rf"^{_ZH_POLITE}(?:把|将)\s*(?:这个|这条)?\s*(?:(?:待办|任务)\s*{_ZH_TITLE}|"
        rf"(?P<qtitle>{_QUOTED}))\s*的?\s*(?P<field>截止时间|截止日期|到期时间|截止|时间|日期|期限|"
        rf"标题|名称|名字|优先级|描述|备注)?\s*(?P<verb>{_ZH_UPDATE_VERB})\s*(?P<value>.+?){_ZH_END}"
    ),
    _zh(
        rf"^{_ZH_POLITE}(?:修改|更改|调整|更新)\s*(?:待办|任务)\s*{_ZH_TITLE}\s*的?\s*"
        r"(?P<field>截止时间|截止日期|到期时间|截止|时间|日期|期限|标题|名称|名字|优先级|描述|备注)\s*"
        rf"(?P<verb>为|成|到|改为|改成|改到)\s*(?P<value>.+?){_ZH_END}"
    ),
]
_ZH_UPDATE_NOTE = _zh(
    rf"^{_ZH_POLITE}(?:把|将)\s*(?:这条|这篇)?\s*笔记\s*{_ZH_TITLE}\s*的?\s*"
    r"(?P<field>标题|名称|名字|内容|正文|标签)?\s*"
    r"(?P<verb>改成|改为|修改为|修改成|更新为|更新成|替换为|设为|设置为|重命名为|改名为)"
    rf"\s*(?P<value>.+?){_ZH_END}"
)
_ZH_CREATE_NOTE = _zh(
    rf"^{_ZH_POLITE}(?:{_ZH_CREATE}|写)\s*{_ZH_MEASURE}\s*(?:新的?)?\s*笔记\s*"
    r"(?:[：:，,]\s*|\s+|(?=[「『“\"‘'《])|$)(?P<body>.*?)\s*$"
)
_ZH_SEARCH_NOTES = [
    _zh(
        r"^(?:请|帮我)?\s*(?:搜索|搜一下|搜|查找|查一下|查询|找一下|找找|找)\s*(?:一下)?\s*(?:我的)?"
        r"\s*笔记\s*(?:里|中)?\s*(?:的|关于|包含|有关)?\s*[：:]?\s*(?P<keyword>.*?)\s*[。？?]?\s*$"
    ),
    _zh(
        r"^(?:请|帮我)?\s*(?:在|从)?(?:我的)?笔记(?:里|中)\s*(?:搜索|搜一下|搜|查找|查一下|找一下|找)"
        r"\s*(?:一下)?\s*(?:关于|包含|有关)?\s*(?P<keyword>.*?)\s*[。？?]?\s*$"
    ),
    _zh(
        r"^(?:请|帮我)?\s*(?:搜索|搜一下|搜|查找|查一下|找一下|找找|找)\s*(?:一下)?\s*(?:关于|有关|包含)?"
        r"\s*(?P<keyword>.+?)\s*(?:相关)?的笔记\s*[。？?]?\s*$"
    ),
]
_ZH_CREATE_TODO = [
    # 记一个待办：周五前交报告 / 添加待办「提交周报」，截止今晚9点
    _zh(
        rf"^{_ZH_POLITE}{_ZH_CREATE}\s*{_ZH_MEASURE}\s*(?:新的?)?\s*"
        rf"(?:(?P<priority>{_ZH_PRIORITY_WORD})的?)?\s*{_ZH_TODO}\s*"
        r"(?:[：:，,]\s*|\s+|(?=[「『“\"‘'《]))(?P<body>.+?)\s*$"
    ),
    # 帮我创建一条今晚 9 点提交周报的高优先级待办
    _zh(rf"^{_ZH_POLITE}{_ZH_CREATE}\s*{_ZH_MEASURE}\s*(?P<body>.+?)\s*的?\s*{_ZH_TODO}{_ZH_END}"),
    # 提醒我明天下午3点开会 / 明天早上8点提醒我交报告
    _zh(r"^(?P<before>.*?)提醒我\s*(?P<body>.+?)\s*$"),
]
_ZH_ASK_TODO = _zh(rf"^{_ZH_POLITE}{_ZH_CREATE}\s*{_ZH_MEASURE}\s*(?:新的?)?\s*{_ZH_TODO}{_ZH_END}")
_ZH_WRITE_WORDS = re.compile(r"删除|删掉|创建|新建|添加|修改|更新|标记|改成|改为|改到|注销")


def _zh_update_todo(match: re.Match[str]) -> Intent:
    title = _unquote(match.group("title") or match.group("qtitle") or "")
    field_name = match.group("field") or ""
    verb = match.group("verb")
    value = match.group("value").strip()
    args: dict[str, Any] = {"todo_title": title}
    if field_name in {"标题", "名称", "名字"} or verb in {"重命名为", "改名为"}:
        args["title"] = _unquote(value)
    elif field_name == "优先级" or (not field_name and _priority_of(value)):
        priority = _priority_of(value)
        if priority is None:
            return Intent(None)
        args["priority"] = priority
    elif field_name in {"描述", "备注"}:
        args["description"] = _unquote(value)
    elif field_name or _is_time(value, english=False) or verb not in {"改成", "改为", "设为"}:
        args["due_at"] = _ZH_DEADLINE_SUFFIX.sub("", value) or value
    else:
        args["title"] = _unquote(value)
    return Intent("update_todo", args)


def _interpret_zh(text: str) -> Intent:
    if _ZH_DELETE_ACCOUNT.search(text):
        return Intent("delete_account", {})
    for pattern in _ZH_DELETE:
        match = pattern.match(text)
        if match:
            key, tool = (
                ("note_title", "delete_note")
                if match.group("kind") == "笔记"
                else ("todo_title", "delete_todo")
            )
            return Intent(tool, {key: _unquote(match.group("title"))})
    for pattern in _ZH_STATUS:
        match = pattern.match(text)
        if match and _unquote(match.group("title")):
            state = match.group("state")
            opened = re.fullmatch(rf"{_ZH_OPEN}|重开|恢复|取消完成", state, re.IGNORECASE)
            return Intent(
                "set_todo_status",
                {
                    "todo_title": _unquote(match.group("title")),
                    "status": "open" if opened else "done",
                },
            )
    match = _ZH_UPDATE_NOTE.match(text)
    if match:
        field_name = match.group("field") or ""
        value = match.group("value").strip()
        args: dict[str, Any] = {"note_title": _unquote(match.group("title"))}
        if field_name in {"标题", "名称", "名字"} or match.group("verb") in {"重命名为", "改名为"}:
            args["title"] = _unquote(value)
        elif field_name == "标签":
            args["tags"] = _split_tags(value)
        else:
            args["content"] = value
        return Intent("update_note", args)
    for pattern in _ZH_UPDATE_TODO:
        match = pattern.match(text)
        if match:
            return _zh_update_todo(match)
    match = _ZH_CREATE_NOTE.match(text)
    if match:
        return _note_fields(match.group("body"), english=False)
    for pattern in _ZH_SEARCH_NOTES:
        match = pattern.match(text)
        if match:
            keyword = _unquote(match.group("keyword"))
            if not keyword:
                return Intent(None, message="PLANNER_ASK_KEYWORD")
            return Intent("search_notes", {"keyword": keyword})
    if _ZH_ASK_TODO.match(text):
        return Intent(None, message="PLANNER_ASK_TODO")
    for pattern in _ZH_CREATE_TODO:
        match = pattern.match(text)
        if match:
            groups = match.groupdict()
            body = (groups.get("before") or "") + match.group("body")
            priority = _priority_of(groups["priority"]) if groups.get("priority") else None
            return _todo_fields(body, english=False, priority=priority)
    if re.search(r"待办|任务|todo", text, re.IGNORECASE) and not _ZH_WRITE_WORDS.search(text):
        return _zh_query(text)
    return Intent(None)


def _zh_query(text: str) -> Intent:
    args: dict[str, Any] = {}
    if re.search(r"没完成|未完成|没做完|未做完|待完成|还没|没有完成|进行中|待处理|未结束", text):
        args["status"] = "open"
    elif re.search(r"已完成|已经完成|做完|完成了|完成的|已结束", text):
        args["status"] = "done"
    keyword = re.search(_QUOTED, text) or re.search(
        r"(?:关于|有关|包含|含有)\s*(?P<keyword>.+?)\s*的(?:待办|任务)", text
    )
    if keyword:
        args["keyword"] = _unquote(keyword.groupdict().get("keyword") or keyword.group())
    return Intent("query_todos", args)


# --- English sentences ------------------------------------------------------------------

_EN_POLITE = (
    r"(?:(?:please|pls|kindly|hey|hi|ok|okay)[,\s]+)?(?:(?:can|could|would|will)\s+you\s+"
    r"(?:please\s+)?)?(?:help\s+me\s+)?(?:please\s+)?"
)
_EN_TODO = r"(?:todo|to-do|to\s+do|task|reminder)s?"
_EN_TITLE = rf"(?P<title>{_QUOTED}|.+?)"
_EN_END = r"\s*[.!]?\s*$"
_EN_DONE = r"done|completed?|finished|closed|checked(?:\s+off)?"
_EN_OPEN = r"not\s+done|undone|not\s+completed?|incomplete|unfinished|open|pending|active"


def _en(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | re.DOTALL)


_EN_DELETE_ACCOUNT = _en(
    r"\b(?:delete|close|remove|cancel|deactivate|terminate|erase)\s+(?:my\s+|the\s+|this\s+)?"
    r"(?:user\s+)?(?:account|profile)\b"
)
_EN_DELETE = _en(
    rf"^{_EN_POLITE}(?:delete|remove|erase|drop|trash)\s+(?:the\s+|my\s+|this\s+)?"
    rf"(?P<kind>note|todo|to-do|task)\s*(?:titled|called|named)?\s*:?\s*{_EN_TITLE}{_EN_END}"
)
_EN_STATUS = [
    _en(
        rf"^{_EN_POLITE}(?:mark|set|flag)\s+(?:the\s+|my\s+|this\s+)?(?:(?:todo|to-do|task)\s+)?"
        rf"{_EN_TITLE}\s+(?:as|to)\s+(?P<state>{_EN_OPEN}|{_EN_DONE}){_EN_END}"
    ),
    _en(
        rf"^{_EN_POLITE}(?P<state>complete|finish|check\s+off|tick\s+off|close)\s+(?:the\s+|my\s+)?"
        rf"(?:todo|to-do|task)\s*:?\s*{_EN_TITLE}{_EN_END}"
    ),
    _en(
        rf"^{_EN_POLITE}(?P<state>reopen|re-open|uncheck|unmark)\s+(?:the\s+|my\s+)?"
        rf"(?:todo|to-do|task)\s*:?\s*{_EN_TITLE}{_EN_END}"
    ),
    _en(
        rf"^i(?:'ve|\s+have)?\s+(?P<state>finished|completed|done)\s+(?:the\s+|my\s+)?"
        rf"(?:(?:todo|to-do|task)\s+)?(?P<title>{_QUOTED}){_EN_END}"
    ),
]
_EN_UPDATE_NOTE = [
    _en(
        rf"^{_EN_POLITE}(?:change|set|update|replace)\s+(?:the\s+)?(?P<field>content|text|body|title|"
        rf"name|tags)\s+(?:of|for|in|on)\s+(?:the\s+|my\s+)?note\s+{_EN_TITLE}\s+(?:to|with)\s+"
        rf"(?P<value>.+?){_EN_END}"
    ),
    _en(
        rf"^{_EN_POLITE}rename\s+(?:the\s+|my\s+)?note\s+{_EN_TITLE}\s+(?:to|as)\s+"
        rf"(?P<value>.+?){_EN_END}"
    ),
    _en(
        rf"^{_EN_POLITE}(?:update|change|edit)\s+(?:the\s+|my\s+)?note\s+{_EN_TITLE}\s+"
        rf"(?:to\s+say|to\s+read|to|with)\s+(?P<value>.+?){_EN_END}"
    ),
]
_EN_UPDATE_TODO = [
    _en(
        rf"^{_EN_POLITE}(?:change|set|update|move)\s+(?:the\s+)?(?P<field>due\s+(?:date|time)|"
        rf"deadline|due|priority|title|name|description)\s+(?:of|for|on)\s+(?:the\s+|my\s+)?"
        rf"(?:(?:todo|to-do|task)\s+)?{_EN_TITLE}\s+to\s+(?P<value>.+?){_EN_END}"
    ),
    _en(
        rf"^{_EN_POLITE}(?P<verb>rename)\s+(?:the\s+|my\s+)?(?:todo|to-do|task)\s+{_EN_TITLE}\s+"
        rf"(?:to|as)\s+(?P<value>.+?){_EN_END}"
    ),
    _en(
        rf"^{_EN_POLITE}(?P<verb>move|reschedule|postpone|push(?:\s+back)?|delay|shift|change|update)"
        rf"\s+(?:the\s+|my\s+)?(?:(?:todo|to-do|task)\s+)?{_EN_TITLE}\s+(?:to|until|till)\s+"
        rf"(?P<value>.+?){_EN_END}"
    ),
]
_EN_CREATE_NOTE = _en(
    rf"^{_EN_POLITE}(?:create|add|make|write|new|take|start)\s+(?:me\s+)?(?:a\s+|an\s+)?"
    r"(?:new\s+)?note\b\s*(?:[:\-–]\s*)?(?P<body>.*?)\s*[.!]?\s*$"
)
_EN_SEARCH_NOTES = [
    _en(
        rf"^{_EN_POLITE}(?:search|look)\s+(?:through\s+|in\s+)?(?:my\s+|the\s+)?notes\s+"
        r"(?:for|about|on)\s+(?P<keyword>.+?)\s*[.?!]?\s*$"
    ),
    _en(
        rf"^{_EN_POLITE}(?:find|search\s+for|look\s+for|show\s+me|get)\s+(?:my\s+|the\s+|any\s+|all\s+)?"
        r"notes\s+(?:about|on|mentioning|containing|with|for|regarding|that\s+mention)\s+"
        r"(?P<keyword>.+?)\s*[.?!]?\s*$"
    ),
    _en(
        rf"^{_EN_POLITE}(?:search|look)\s+(?:for\s+)?(?P<keyword>.+?)\s+in\s+(?:my\s+|the\s+)?notes"
        r"\s*[.?!]?\s*$"
    ),
    _en(rf"^{_EN_POLITE}search\s+(?:my\s+|the\s+)?notes\s*[.?!]?\s*$"),
]
_EN_CREATE_TODO = [
    _en(
        rf"^{_EN_POLITE}(?:create|add|make|new|set\s+up|put|record|note\s+down|write\s+down|"
        r"jot\s+down|schedule)\s+(?:me\s+)?(?:a\s+|an\s+|one\s+)?(?:new\s+)?"
        r"(?:(?P<priority>high|low|normal|medium|top|urgent)(?:[\s-]+priority)?\s+)?(?:new\s+)?"
        rf"{_EN_TODO}\b\s*(?:item\b)?\s*(?:(?:to|for|called|named|titled|that\s+says|saying)\b|"
        r"[:\-–])?\s*(?P<body>.+?)\s*[.!]?\s*$"
    ),
    _en(
        rf"^{_EN_POLITE}(?:add|put)\s+(?P<body>.+?)\s+(?:to|on|in)\s+(?:my\s+|the\s+)?"
        r"(?:todos?|to-dos?|todo\s+list|to-do\s+list|tasks?|task\s+list|list)\s*[.!]?\s*$"
    ),
    _en(rf"^{_EN_POLITE}remind\s+me\s+(?:to\s+)?(?P<body>.+?)\s*[.!]?\s*$"),
]
_EN_ASK_TODO = _en(
    rf"^{_EN_POLITE}(?:create|add|make|new)\s+(?:a\s+|an\s+)?(?:new\s+)?{_EN_TODO}\s*[.!?]?\s*$"
)
_EN_WRITE_WORDS = _en(r"\b(?:delete|remove|create|add|update|change|mark|rename|move|edit)\b")


def _en_update_todo(match: re.Match[str]) -> Intent:
    groups = match.groupdict()
    field_name = (groups.get("field") or "").lower()
    verb = (groups.get("verb") or "").lower()
    value = match.group("value").strip()
    args: dict[str, Any] = {"todo_title": _unquote(match.group("title"))}
    if field_name in {"title", "name"} or verb == "rename":
        args["title"] = _unquote(value)
    elif field_name == "priority" or (not field_name and _priority_of(value)):
        priority = _priority_of(value)
        if priority is None:
            return Intent(None)
        args["priority"] = priority
    elif field_name == "description":
        args["description"] = _unquote(value)
    elif field_name or verb not in {"change", "update"} or _is_time(value, english=True):
        args["due_at"] = value
    else:
        args["title"] = _unquote(value)
    return Intent("update_todo", args)


def _interpret_en(text: str) -> Intent:
    if _EN_DELETE_ACCOUNT.search(text):
        return Intent("delete_account", {})
    match = _EN_DELETE.match(text)
    if match:
        if match.group("kind").lower() == "note":
            return Intent("delete_note", {"note_title": _unquote(match.group("title"))})
        return Intent("delete_todo", {"todo_title": _unquote(match.group("title"))})
    for pattern in _EN_STATUS:
        match = pattern.match(text)
        if match and _unquote(match.group("title")):
            state = match.group("state").lower()
            opened = re.fullmatch(rf"{_EN_OPEN}|reopen|re-open|uncheck|unmark", state)
            return Intent(
                "set_todo_status",
                {
                    "todo_title": _unquote(match.group("title")),
                    "status": "open" if opened else "done",
                },
            )
    for pattern in _EN_UPDATE_NOTE:
        match = pattern.match(text)
        if match:
            field_name = (match.groupdict().get("field") or "content").lower()
            value = match.group("value").strip()
            args: dict[str, Any] = {"note_title": _unquote(match.group("title"))}
            if field_name in {"title", "name"} or text.lower().lstrip().startswith("rename"):
                args["title"] = _unquote(value)
            elif field_name == "tags":
                args["tags"] = _split_tags(value)
            else:
                args["content"] = _unquote(value)
            return Intent("update_note", args)
    for pattern in _EN_UPDATE_TODO:
        match = pattern.match(text)
        if match:
            return _en_update_todo(match)
    match = _EN_CREATE_NOTE.match(text)
    if match:
        return _note_fields(match.group("body"), english=True)
    for pattern in _EN_SEARCH_NOTES:
        match = pattern.match(text)
        if match:
            keyword = _unquote(match.groupdict().get("keyword") or "")
            if not keyword:
                return Intent(None, message="PLANNER_ASK_KEYWORD")
            return Intent("search_notes", {"keyword": keyword})
    if _EN_ASK_TODO.match(text):
        return Intent(None, message="PLANNER_ASK_TODO")
    for pattern in _EN_CREATE_TODO:
        match = pattern.match(text)
        if match:
            priority = match.groupdict().get("priority")
            return _todo_fields(
                match.group("body"),
                english=True,
                priority=_priority_of(priority) if priority else None,
            )
    mentions_todos = re.search(r"\b(?:todos?|to-dos?|tasks?|to\s+do\s+list)\b", text, re.I)
    if mentions_todos and not _EN_WRITE_WORDS.search(text):
        return _en_query(text)
    return Intent(None)


def _en_query(text: str) -> Intent:
    args: dict[str, Any] = {}
    if re.search(
        r"\b(?:open|pending|unfinished|incomplete|outstanding|remaining|not\s+done|undone|active"
        r"|left)\b",
        text,
        re.I,
    ):
        args["status"] = "open"
    elif re.search(r"\b(?:done|completed|finished|closed)\b", text, re.I):
        args["status"] = "done"
    keyword = re.search(_QUOTED, text) or re.search(
        r"\b(?:about|mentioning|containing|matching)\s+(?P<keyword>.+?)\s*[.?!]?\s*$", text, re.I
    )
    if keyword:
        args["keyword"] = _unquote(keyword.groupdict().get("keyword") or keyword.group())
    return Intent("query_todos", args)


def interpret(text: str) -> Intent:
    """Return what one sentence asks for, by the first matching sentence form."""
    text = re.sub(r"\s+", " ", text.replace("\u3000", " ")).strip()
    if not text:
        return Intent(None)
    if reply_locale(text, "en") == "zh-CN":
        return _interpret_zh(text)
    return _interpret_en(text)


# --- Describing facts and receipts ------------------------------------------------------

_MAX_LISTED = 10


def _items(data: dict[str, Any]) -> list[dict[str, Any]]:
    for key in ("results", "items", "todos", "notes"):
        value = data.get(key)
        if isinstance(value, list):
            return [item for item in value if isinstance(item, dict)]
    return []


def _as_datetime(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    return None


def _local_time(value: Any, zone_name: str | None) -> tuple[str, str | None] | None:
    """Return ``("2026-12-02 21:00", zone label)`` for a time, in ``zone_name`` when known.

    The label is the zone's name, else the time's UTC offset, else None (a naive time).
    """
    moment = _as_datetime(value)
    if moment is None:
        return None
    label = None
    if zone_name and moment.tzinfo is not None:
        try:
            moment = moment.astimezone(ZoneInfo(str(zone_name)))
            label = str(zone_name)
        except (ZoneInfoNotFoundError, ValueError):
            label = None
    if label is None and moment.tzinfo is not None:
        offset = moment.strftime("%z")
        label = f"UTC{offset[:3]}:{offset[3:]}"
    return moment.strftime("%Y-%m-%d %H:%M"), label


def _due_text(value: Any, zone_name: str | None, locale: str) -> str | None:
    local = _local_time(value, zone_name)
    if local is None:
        return None
    when, zone = local
    return translate("REPLY_DUE", locale, when=when, zone=zone) if zone else when


def describe_facts(facts: list[Fact], locale: str) -> str:
    """Summarise read-tool facts for the user.

    A tool's summary is shown as it is; when it is a single line, the items found in the
    fact's data are listed under it.
    """
    lines: list[str] = []
    for fact in facts:
        if fact.status != FACT_SUCCEEDED:
            lines.append(translate("PLANNER_FACT_FAILED", locale, summary=fact.summary))
            continue
        lines.append(fact.summary)
        if "\n" in fact.summary.strip():
            continue
        items = _items(fact.data)
        for item in items[:_MAX_LISTED]:
            title = str(item.get("title") or "")
            local = _local_time(item.get("due_at"), None)
            if local:
                line = translate("PLANNER_ITEM_DUE", locale, title=title, due=local[0])
            else:
                line = translate("PLANNER_ITEM", locale, title=title)
            lines.append(f"- {line}")
        if len(items) > _MAX_LISTED:
            lines.append(translate("PLANNER_MORE_ITEMS", locale, count=len(items) - _MAX_LISTED))
    return "\n".join(line for line in lines if line)


def _result_item(receipt: dict[str, Any]) -> dict[str, Any]:
    """Return the item the receipt's result describes (flat, or nested one level)."""
    result = receipt.get("result")
    if not isinstance(result, dict):
        return {}
    if "title" not in result:
        for key in ("todo", "note", "item", "resource"):
            if isinstance(result.get(key), dict):
                return result[key]
    return result


def template_reply(*, snapshot: dict[str, Any], receipt: dict[str, Any], locale: str) -> str:
    """Describe a succeeded action from its receipt alone, naming the item."""
    require_succeeded(receipt)
    language = reply_locale(str(snapshot.get("question") or ""), locale)
    item = _result_item(receipt)
    title = str(item.get("title") or "")
    summary = str(receipt.get("summary") or "")
    zone_name = item.get("time_zone") or snapshot.get("time_zone") or receipt.get("time_zone")
    due = _due_text(item.get("due_at"), zone_name, language)
    tool = receipt.get("tool")
    if not title:
        return translate("REPLY_ACTION_DONE", language, summary=summary)
    if tool == "create_todo":
        code = "REPLY_TODO_CREATED_DUE" if due else "REPLY_TODO_CREATED"
    elif tool == "set_todo_status":
        code = "REPLY_TODO_REOPENED" if item.get("status") == "open" else "REPLY_TODO_DONE"
    elif tool == "update_todo":
        code = "REPLY_TODO_UPDATED_DUE" if due else "REPLY_TODO_UPDATED"
    elif tool == "delete_todo":
        code = "REPLY_TODO_DELETED"
    elif tool == "create_note":
        code = "REPLY_NOTE_CREATED"
    elif tool == "update_note":
        code = "REPLY_NOTE_UPDATED"
    else:
        return translate("REPLY_ACTION_DONE", language, summary=summary or title)
    return translate(code, language, title=title, due=due or "")


class RulesPlanner:
    """Deterministic planner: one sentence form, one proposal or one read."""

    def plan(self, request: PlanRequest) -> PlanResult:
        """Interpret the sentence; run a read tool through the caller, propose anything else."""
        locale = reply_locale(request.text, request.locale)
        intent = interpret(request.text)
        if intent.tool is None:
            return PlanResult(text=translate(intent.message, locale))
        if intent.tool in request.read_tools:
            fact = run_read(request, intent.tool, intent.args)
            return PlanResult(text=describe_facts([fact], locale), facts=[fact])
        # The reply is left to the caller: a card gets its fixed "please confirm" sentence,
        # a planned or forbidden capability its registry guidance.
        proposal = Proposal(tool=intent.tool, args=intent.args, call_id="rules-1")
        return PlanResult(text="", proposals=[proposal])

    def final_reply(self, *, snapshot: dict[str, Any], receipt: dict[str, Any], locale: str) -> str:
        """Fill the template of the receipt's tool; no model, so it cannot fail."""
        return template_reply(snapshot=snapshot, receipt=receipt, locale=locale)
