"""Chinese slot values: time expressions, priorities, titles, and the polite wrapper.

Each function cuts one kind of value out of a phrase and returns the rest, or cleans the
phrase around it. Times stay the user's words ("今晚 9 点"): the tool's ``prepare`` parses them.
"""

from __future__ import annotations

import re

from agent.planners.lexicon import ISO as _ISO
from agent.planners.lexicon import (
    STRIP,
    take_time,
    unquote,
)

# --- time expressions --------------------------------------------------------------------

_NUMBER = r"[0-9零〇一二两三四五六七八九十百]+"
_WEEKDAY = r"[一二三四五六日天1-7]"

_DAY_PIECES = [
    _ISO,
    # relative: 两小时后, 半小时后, 3天后, 一个半小时之后
    rf"(?:{_NUMBER}\s*个?\s*半?\s*(?:小时|钟头|分钟|刻钟|天|周|星期|礼拜|月)"
    rf"|半\s*个?\s*(?:小时|钟头|天|月))\s*(?:后|之后|以后|之内|以内|内)",
    r"大后天|后天|明天|明日|今天|今日|昨天|前天|今晚|明晚|昨晚|今早|明早|今夜|明夜",
    r"今儿个?|明儿个?|后儿个|昨儿个?",  # colloquial: 今儿有什么事 (timeparse reads them as 今天…)
    rf"(?:下下|下|上|本|这)?个?(?:周|星期|礼拜){_WEEKDAY}",
    # 2099年1月1日, 12月25日 (an explicit year stays with its date: the tool judges it)
    rf"(?:\d{{4}}\s*年\s*|明年\s*|今年\s*|后年\s*)?{_NUMBER}\s*月\s*{_NUMBER}\s*[日号]",
    rf"(?:下|本|这|上)?个?月\s*{_NUMBER}\s*[号日]",
    rf"{_NUMBER}\s*号",
    # 下个月底, 月初, 下周末, 年底: the part of the month, week or year stays with it (a card
    # titled 底交报告 was the rest of 下个月底交报告)
    r"(?:下下|下|上|本|这)\s*个?\s*(?:月|周|星期|礼拜|年)\s*(?:底|末|初|中旬)",
    r"月底|月末|月初|月中旬|周末|年底|下周|下个?星期|下个?礼拜|下个?月|本周|这周|本月"
    r"|这个?星期|本星期|这个?礼拜|本礼拜",
]
_CLOCK_PIECES = [
    r"凌晨|清晨|早上|早晨|上午|中午|正午|午后|下午|傍晚|晚上|夜里|夜间|半夜|晚间",
    # 晚8点, 早7:30: the short part of the day, only right before its clock time
    rf"[晚早夜](?=\s*(?:{_NUMBER})\s*[点點]|\s*\d{{1,2}}\s*[:：]\s*\d{{2}})",
    r"\d{1,2}\s*[:：]\s*\d{2}",
    # 9 点, 八点半, 9点15分 — not 快一点 ("a bit faster") nor 点心/点名
    rf"(?:(?<![快早慢多少好有差些])(?=一)|(?!一))(?:{_NUMBER})\s*[点點](?![心子名赞评击菜])"
    rf"(?:\s*(?:半|一刻|三刻|整|钟|{_NUMBER}\s*分?))?",
    r"以后|稍后",
    # vague: the tool asks which time (晚点提醒我回复邮件)
    r"晚点|晚些(?:时候)?|待会儿?|等会儿?|一会儿|回头|改天|过几天|过两天|有空(?:的时候|时)",
    # a moment set by something else (下班前, 睡前, 午饭后): vague too
    r"(?:下班|上班|放学|睡觉|睡|午饭|晚饭|早饭|吃饭|饭)(?:之前|以前|之后|以后|前|后)",
]
_PIECE = "|".join(_DAY_PIECES + _CLOCK_PIECES)
TIME = re.compile(rf"(?:{_PIECE})(?:\s*(?:{_PIECE}))*")
_DAY = re.compile("|".join(_DAY_PIECES))
_BEFORE_TIME = re.compile(
    r"(?:在|于|截止到?|截至|到期(?:时间)?|截止时间|截止日期|时间)\s*(?:是|为)?\s*[:：]?\s*$"
)
_TAKEN_BACK = re.compile(
    rf"(?:{_PIECE})\s*(?:不对|不是|哦不对?|说错了|错了)[，,\s]*(?:是|应该是|改成)?\s*(?=(?:{_PIECE}))"
)
_AFTER_TIME = re.compile(r"^\s*(?:之前|以前|前|为止|截止|到期)")
DEADLINE_SUFFIX = re.compile(r"\s*(?:之前|以前|前|为止)$")


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


# A day word that also says the part of the day (今晚 = today + 晚上): a clock time kept from
# it stays in that part.
_DAY_WITH_PART = {
    **dict.fromkeys(("今晚", "明晚", "昨晚", "今夜", "明夜"), "晚上"),
    **dict.fromkeys(("今早", "明早"), "早上"),
}


def keep_clock(prior: str, answer: str) -> str:
    """A correction that names only a day keeps the card's clock time: "明天下午3点" corrected
    to "后天" -> "后天下午3点" (and "今晚8点" to "明天" -> "明天晚上8点"). An answer with a
    clock time of its own, or a prior without one, stays as it is."""
    if not prior or not _DAY.search(answer) or _DAY.sub("", answer).strip(STRIP):
        return answer
    clock = _DAY.sub("", prior).strip(STRIP)
    if not re.search(r"\d|[零〇一二两三四五六七八九十][点點]", clock):
        return answer
    if not _PART_OF_DAY.search(clock):
        part = next((_DAY_WITH_PART[d] for d in _DAY.findall(prior) if d in _DAY_WITH_PART), "")
        clock = part + clock
    return answer + clock


# --- priorities, titles ------------------------------------------------------------------

_PRIORITIES = (
    (
        "low",
        r"低优先级|优先级(?:为|是|设为|设成)?低|不紧急|不太急|不急|低优|(?<![A-Za-z])[Pp][3-9](?![\w.])",
    ),
    (
        "normal",
        r"普通优先级|中等?优先级|一般优先级|优先级(?:为|是)?(?:普通|中等?|一般)|(?<![A-Za-z])[Pp]2(?![\w.])",
    ),
    (
        "high",
        r"(?<![A-Za-z])[Pp][01](?![\w.])|"
        r"最?高优先级|优先级(?:为|是|设为|设成)?(?:最?高)|高优|很急|非常紧急|比较急|特别重要|很重要|非常重要|"
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
    # 修水管（高优先级）: the priority taken out leaves its brackets behind
    text = re.sub(r"[(（\[【]\s*[)）\]】]", " ", text)
    title = text.strip().strip(STRIP).strip("的").strip(STRIP)
    title = re.sub(r"^(?:我)?(?:需要|要|得|该|必须)(?=..)", "", title)
    title = re.sub(r"(?:这件事|这事|这个事)$", "", title)
    # 整理照片不着急没有截止时间: what the todo is not given is no part of its title
    title = re.sub(
        r"[，,\s]*(?:不着急|没有截止(?:时间|日期)|不设截止(?:时间|日期)|没有期限|没有deadline)+$",
        "",
        title,
    )
    title = re.sub(r"^(?:然后|就是|那个)+(?=..)", "", title)  # voice input's fillers
    return unquote(title).strip(STRIP)


# --- politeness --------------------------------------------------------------------------

_POLITE_HEAD = re.compile(
    r"^(?:(?:你好|您好|嗨|哈喽|hi|hello|hey)[呀啊哈]?[，,！!\s]*)?(?:(?:嗯|哦|噢|好的|那|那个|就是)[，,\s]+|那个?(?=帮|请|麻烦|给我))?"
    r"(?:(?:请你?|请您|麻烦(?:你|您)?|劳驾|拜托(?:你)?|要不(?!要)(?:然)?(?:你)?|是否可以|你能不能|能不能|能否|可不可以"
    r"|可以|你能|您能|能|你可以|"
    r"帮忙|帮个忙|帮我|帮|给我|替我|为我|我想要?|我要|我得|我需要|俺想要?|俺要|俺得|想|要)\s*)+"
)
_POLITE_TAIL = re.compile(
    # (么 closes a question, 能帮我记一下么, but not 什么 / 怎么: 今天要做什么 kept its 什 alone;
    # nor 嘛 in 干嘛 / 做嘛, "do what": 明天要干嘛 asks what is on)
    r"(?:[，,\s]*(?:好吗|好不好|可以吗|行吗|行不行|可以不|吗|(?<![什怎那这多要])么|吧|呗|呢|啊|呀|哈|(?<![干做])嘛|哦|喔|一下子?|谢谢你?|谢谢啦|"
    r"谢啦|多谢|麻烦了|辛苦了|please|thanks|thx)|[。.!！~～?？…]|\s)+$"
)


# Voice input's fillers (嗯, 呃) and a time said twice, the first one taken back
# (明天不对后天上午十点, 十点不对十一点, 大后天嗯不对是后天): the second stands.
_FILLER = re.compile(r"[嗯呃额]+[，,\s]*|那个就是|就是那个")


def _mend(text: str) -> str:
    return _TAKEN_BACK.sub("", _FILLER.sub("", text))


# After a note's content or a description the text is the user's own: only thanks and the
# final stop are taken off its end (修一下，谢谢！ keeps its 一下).
_CONTENT_LABEL = re.compile(r"(?:内容|正文|描述|备注|说明)\s*(?:[：:]|是|写)")
_THANKS_TAIL = re.compile(
    r"(?:[，,\s]*(?:谢谢你?|谢谢啦|谢啦|多谢|辛苦了|thanks|thx)|[。.!！~～…]|\s)+$"
)


def strip_polite(text: str) -> str:
    """Drop polite openings and closing particles: "请帮我列出我的待办吧" -> "列出我的待办"."""
    tail = _THANKS_TAIL if _CONTENT_LABEL.search(text) else _POLITE_TAIL
    body = tail.sub("", _mend(text.strip()))
    # "创建个待办吧：整理桌面": a particle before a colon or comma closes a phrase only.
    body = re.sub(r"(?:吧|呢|啊|呀|哈)\s*(?=[：:，,])", "", body)
    # "能帮我新建一个待办吗，明天交房租": the question particle closes the polite part only.
    question_mark = r"(?:好吗|好不好|可以吗|行吗|吗|(?<![什怎那这多要])么)\s*[，,？?：:]\s*(?=\S)"
    body = re.sub(question_mark, "：", body, count=1)
    stripped = _POLITE_HEAD.sub("", body)
    # "要" / "想" alone only open a request: keep them when nothing else remains.
    return stripped.strip() or body.strip()
