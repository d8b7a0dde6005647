"""The Chinese grammar of the rules planner: one sentence -> one :class:`Intent`.

The order is the cardinal rule: a read verb at the head (列出 查看 看看 显示 搜索 找…) makes a
read, whatever follows; then the explicit write forms (each needs its verb: 创建/添加/记…,
删除, 完成/标记为, 改为/推迟到…, 提醒我); then questions and bare collections (我的待办有哪些);
then a bare "time + event" ("下周一上午开会"), which is *asked about*, never carded; anything
else is help. Times stay the user's words; the tool's ``prepare`` parses them.

This module holds that order (:func:`interpret`) and is the grammar interface the rules
planner and ``agent.conversation.followups`` use; the pieces live in ``slots`` (times, priorities,
titles,
politeness), ``reads``, ``writes`` and ``answers`` (follow-up answers).
"""

from __future__ import annotations

import re
from dataclasses import replace

from agent.planners import phrases
from agent.planners.lexicon import HELP, SLOT_INTENT, Intent, ask, asks_for_nothing, outside_quotes
from agent.planners.zh import undo
from agent.planners.zh.answers import (
    is_no,
    is_yes,
    kind_answer,
    ordinal,
    ordinal_reference,
    pick_reference,
    pick_time,
    priority_answer,
    time_answer,
)
from agent.planners.zh.corrections import correction
from agent.planners.zh.reads import (
    DONE,
    NOTE_WORD,
    OPEN,
    QUESTION,
    READ_HEAD,
    READ_IN,
    READ_TAIL,
    TODO_WORD,
    TOPIC,
    read_intent,
)
from agent.planners.zh.slots import (
    clean_title,
    is_time,
    keep_clock,
    merge_time,
    strip_polite,
    take_priority,
    take_zh_time,
)
from agent.planners.zh.writes import (
    DELETE_ACCOUNT,
    TODO_PHRASE,
    WRITE_HEAD,
    WRITE_WORDS,
    item_name,
    note_fields,
    todo_fields,
    write_intent,
)


def _is_read(text: str) -> bool:
    if READ_HEAD.match(text) or READ_TAIL.search(text):
        return True
    if QUESTION.search(text) and not WRITE_HEAD.match(text):
        return True
    # A bare collection: 我的待办, 未完成的任务, 所有笔记, 待办列表, 未完成的高优先级任务,
    # 这周到期的低优先级任务, 12月5号之前到期的待办. (Each qualifier is taken whole, never
    # given back (an atomic group): "已将截止日" repeated made the engine try every way of
    # cutting the text into qualifiers, twice as many with each repeat.)
    return bool(_BARE_COLLECTION.fullmatch(text) or phrases.whole("bare_read", text, "zh"))


_BARE_COLLECTION = re.compile(
    rf"(?>(?:我的|所有|全部|今天|明天|最近|这周|本周|(?:{OPEN})|(?:{DONE})"
    r"|(?:最?高|低|普通|中等?)优先级|紧急|重要|不急|不紧急|逾期|过期"
    r"|[^的，,。？?]{0,12}?(?:之前|以前|前)?(?:到期|截止))的?\s*)*"
    rf"(?:{TODO_WORD}|{NOTE_WORD})(?:列表|清单)?",
    re.IGNORECASE,
)


# 因为周五要出差，所以帮我把…: the reason before a request is not part of it.
_REASON = re.compile(
    r"^(?:(?:因为|由于)[^，,。！!？?]{1,30}?(?:(?:[，,]\s*|\s+)(?:所以|因此)?|所以|因此)"
    r"|[^，,。！!？?]{2,30}?[，,\s]+(?:所以|因此))"
    r"\s*"
)
# 3天后交物业费，记得提醒我 / 明天下午三点开会，帮我记一下: the request after what it is about.
_TAIL_REMIND = re.compile(
    r"^(?P<body>.+?)[，,\s]+(?:记得|别忘了|到时候?)?(?:提醒我|提醒一下我|叫我)(?:一下)?$"
)
_TAIL_NOTE_DOWN = re.compile(
    r"^(?P<body>.+?)[，,\s]+(?:请|麻烦)?(?:帮我|给我)?(?:记一下|记下来|记下|记住|记录一下|记录|记着|记上|记)$"
)
# 下周一开项目启动会，帮我加到待办里: the helper words between the item and its verb.
_HELPER_BEFORE_VERB = re.compile(
    r"[，,\s]+(?:请|麻烦)?(?:你)?(?:帮我|给我|帮忙)\s*(?=(?:加到|加进|加入|添加到|放到|放进|记到|记入|写到|列入|排进))"
)
# 整理书架重新打开吧，其实还没弄完: the reason after the request.
_REASON_AFTER = re.compile(
    r"(?:(?<=[\u4e00-\u9fff])[，,]\s*(?:其实|因为|毕竟|反正)|(?<=[吧了])(?:因为|毕竟|反正))[^，,。]*[。！!]?$"
)
_TIME_BEFORE_REQUEST = re.compile(
    r"^在?\s*(?P<time>[^，,：:]{2,16}?)\s*(?P<rest>(?:加|添加|新建|创建|记)(?:个|一个|一条)?(?:提醒|待办|任务).+)$"
)
_ITEM_THEN_FIELD = re.compile(
    r"^(?P<item>[^，,]{2,16}?)(?:那篇|那条|这篇|这条|那个|这个)?[，,]\s*"
    r"(?P<rest>(?:标题|名字|名称|截止时间|优先级)\s*(?:改叫|改成|改为|换成|改到|调成|设为).+)$"
)
_PRIORITY_FIRST = re.compile(
    r"^(?P<priority>(?:最?高|低|普通|紧急|重要)(?:优先级)?的?)[\s，,]+(?P<rest>.{4,})$"
)
_TOPIC_THAT = re.compile(
    r"^(?P<item>[^，,：:；;\s那这]{2,12}?)(?:那个|这个)(?!待办|任务|笔记)(?P<rest>.+)$"
)
# 那个买菜的删了吧 不用了: the afterthought after a delete.
_DELETE_AFTERTHOUGHT = re.compile(
    r"(?<=[删掉了吧])[，,\s]*(?:就是)?(?:那个|这个)?(?:待办|任务)?(?:不用了|不要了|不需要了|用不上了|没用了|用不着了)$"
)
# 甭管提交周报了 直接删了吧: "never mind X", then the delete.
_NEVER_MIND_DELETE = re.compile(
    r"^(?:甭管|别管|不管|不要|不用管)(?P<item>[^，,\s]+?)了?[，,\s]+(?:直接|就|干脆)?"
    r"(?P<verb>删了吧|删掉吧|删了|删掉|删除|删)$"
)
# 今晚记得倒垃圾: a reminder asked for with 记得 after its time.
_REMEMBER_TO = re.compile(r"^(?P<time>[^，,]{1,12}?)(?:要)?记得(?P<body>[^，,]{2,})$")
# 那个买菜的删了吧: the item named as "that … one".
_THAT_ONE = re.compile(
    r"^(?:那个|这个|那条|这条)\s*(?P<item>[^，,\s]+?)\s*的\s*"
    r"(?P<rest>(?:删|删除|删掉|去掉|标记|标成|完成|改|推迟|提前|重新打开|勾掉).*)$"
)
# 买菜已经搞定了，标记完成 / 整理书架其实还没弄完，重新打开吧: the item, its state, then the verb.
_STATE_THEN_DONE = re.compile(
    r"^(?P<item>[^，,]+?)(?:这件事|这事)?(?:其实|实际上)?(?:被我|我)?(?:(?:已经|都|也)?(?:搞定了|做完了|完成了|弄完了|办完了|处理完了|好了)"
    r"|(?:已经|都)[\u4e00-\u9fff]{1,2}(?:过)?了)"
    r"[，,\s]*(?:帮我|请|就|你)?(?:标记(?:为|成)?完成|标(?:为|成)?完成|勾掉|打勾|打个勾|标记一下|勾一下|完成|标一下|标记"
    r"|状态改一下|状态改|改一下状态|状态改成完成)$"
)
_STATE_THEN_OPEN = re.compile(
    r"^(?P<item>[^，,]+?)(?:其实|实际上)?(?:还没有?|没有?|并没有?)(?:弄|做|办|搞)?(?:完|好)(?:成)?[，,\s]*"
    r"(?:帮我|请|就)?(?:重新打开|重开|改回未完成|设回未完成|恢复(?:成|为)?未完成|打开|标(?:为|成|记为)?未完成)$"
)


# 不找了，提醒我… / 算了，帮我…: what was being done is dropped, the new request is the sentence
_DROPPED_BEFORE = re.compile(
    r"^(?:算了|不用了|不找了|不查了|不改了|不删了|不要了|先不[找查改删]了?|那个不要了)[吧啊]?\s*[，,。！!]\s*(?=..)"
    # 重要的事先说：帮我建一个待办…: a way of starting, no part of the request
    r"|^(?:重要的事先说|先说正事|说正事)\s*[：:，,]\s*(?=..)"
)


# 那个不要了，删掉: the item pointed at, then the verb
_POINTED_THEN_DELETE = re.compile(
    r"^(?P<ref>那个|这个|那条|这条|它)(?:不要了|没用了|不需要了|用不着了)[，,]?\s*(?:帮我|给我)?"
    r"(?P<verb>删掉|删了|删除|删)(?:吧|了)?$"
)


def _reframe(body: str) -> str:
    """Put a request told in two parts (item, then the verb) into one sentence of the grammar."""
    pointed = _POINTED_THEN_DELETE.match(body)
    if pointed:
        return f"把{pointed.group('ref')}{pointed.group('verb')}"
    dropped = _DROPPED_BEFORE.sub("", body)
    body = strip_polite(dropped) if dropped != body else body
    reason = _REASON.match(body)
    if (
        reason
        and body[reason.end() :].strip()
        and (
            WRITE_HEAD.match(strip_polite(body[reason.end() :]))
            # 因为…所以交房租那个改成…: the rest asks for a write (not 所以今天的列表里看不到它)
            or (
                re.search(r"所以|因此", body[: reason.end()])
                and re.search(
                    r"改成|改到|改为|推迟|提前|删|标记|勾掉|重新打开|提醒我|记个",
                    body[reason.end() :],
                )
            )
        )
    ):
        body = strip_polite(body[reason.end() :])
    # 高优先级的 帮我加个待办 …: the priority said first goes with the rest
    first = _PRIORITY_FIRST.match(body)
    if first:
        body = f"{strip_polite(first.group('rest'))}，{first.group('priority')}"
    # 在下周一上午9点加个提醒：交季度报表: the time said before the request goes with it
    timed = _TIME_BEFORE_REQUEST.match(body)
    if timed and is_time(timed.group("time")):
        body = f"{timed.group('rest')}，{timed.group('time')}"
    # 读书笔记那篇，标题改叫读书摘录: the item, then its field
    named = _ITEM_THEN_FIELD.match(body)
    if named and item_name(named.group("item")):
        body = f"{named.group('item')}的{named.group('rest')}"
    # 交房租那个改成… / 准备周会材料那个我做完了: "that … one" after the item's name
    topic = _TOPIC_THAT.match(body)
    if topic and item_name(topic.group("item")):
        body = topic.group("item") + topic.group("rest")
    body = _DELETE_AFTERTHOUGHT.sub("", _HELPER_BEFORE_VERB.sub("", body))
    body = _REASON_AFTER.sub("", body)
    never_mind = _NEVER_MIND_DELETE.match(body)
    if never_mind and item_name(never_mind.group("item")):
        return f"把{never_mind.group('item')}删掉"
    remember = _REMEMBER_TO.match(body)
    if remember and is_time(remember.group("time")):
        return f"提醒我{remember.group('time')}{remember.group('body')}"
    that_one = _THAT_ONE.match(body)
    if that_one and not QUESTION.search(body):  # not 这个月的完成情况怎么样
        return f"把{that_one.group('item')}{that_one.group('rest')}"
    for pattern, verb in ((_STATE_THEN_DONE, "标记为完成"), (_STATE_THEN_OPEN, "重新打开")):
        split = pattern.match(body)
        if split and item_name(split.group("item")):
            return f"把{split.group('item')}{verb}"
    remind = _TAIL_REMIND.match(body)
    if remind and not WRITE_HEAD.match(remind.group("body")):
        return f"提醒我{remind.group('body')}"
    noted = _TAIL_NOTE_DOWN.match(body)
    if noted and not WRITE_HEAD.match(noted.group("body")):
        return f"记一下{noted.group('body')}"
    return body


_FINISH_HEAD = re.compile(r"^(?:完成|做完|写完|弄完|搞定)(?=..)")
# A span to do it within (3天内) and a title of several clauses: a statement about a span.
_WITHIN = re.compile(r"内$")
_CLAUSES = re.compile(r"[，,；;。！!？?]")
# A time gone by, or an event reported over (取消了): no todo.
_PAST_TIME = re.compile(
    r"昨|前天|上个?(?:周|星期|礼拜|月)|去年|前年|\d+\s*(?:天|小时|分钟|个月|年)前"
)
_REPORTED = re.compile(r"(?:取消|推迟|延期|改期|结束|开完|做完|办完)了|已经.*了")
_NEGATED = re.compile(
    r"^(?:不要|不用|别|先别|先不要|不必|无需|不需要|千万别|没必要|暂时不要|暂时别|不想)"
)
# 刚刚误删了 / 我误操作了: a mishap reported, no request (not a delete of a todo titled 刚刚误).
_MISHAP = re.compile(
    r"^(?:刚才|刚刚|刚|方才|我|你|不小心|一不小心)*(?:误删|误操作|误点|误触|误标)(?:了|掉了|啦)?[。！!～~]*$"
)
# 如果明天下雨，就把体检预约删掉: a write on a condition the planner cannot check is no write.
_CONDITIONAL = re.compile(r"^(?:如果|要是|假如|万一|若是|倘若|一旦)")
# 你觉得体检预约该不该标记完成？/ 怎样才能更好地安排时间？: advice asked for, no write
_ADVICE = re.compile(
    r"你觉得|你说我|我是不是(?:该|应该)|该不该|应不应该|要不要.{0,20}(?:你觉得|好)|怎样才能|怎么才能|如何才能"
    r"|(?:怎么|如何|怎样)(?:给|把|在|设置|设定|设|添加|删除|修改|新建|创建|标记)(?=.*[吗？?]|.*(?:呢|啊)$)"
    r"|有什么(?:办法|技巧|建议)"
)
# 你能做什么 / 你会干啥: what the assistant can do, not a lookup of the user's items
_ABOUT_YOU = re.compile(
    r"^(?:请问)?你(?:都|还)?(?:能|会|可以)(?:帮我)?(?:做|干|帮)(?:些|点)?(?:什么|啥)(?:事|事情)?"
    r"[吗呢呀啊]?[？?。!！]*$"
)
# 能告诉我怎么给待办设置优先级吗？: how to do it, asked
_HOW_TO = re.compile(
    r"(?:怎么|如何|怎样)(?:给|把|在|设置|设定|设|添加|删除|修改|新建|创建|标记).*(?:吗|[？?])\s*$"
)
_REMARK = re.compile(
    r"(?:心情|天气)|(?:不错|很好|挺好|真好|还行|好累|很累|真累|开心|高兴|难过|郁闷|无聊|好热|好冷|好困)[啊呀呢哦]?$"
)
_GREETING = re.compile(
    r"(?:早上好|早安|上午好|中午好|下午好|晚上好|晚安|你好|您好|嗨|哈喽|在吗|在不在|谢谢|多谢|好的|嗯|ok)"
    r"[！!。.~～]*",
    re.IGNORECASE,
)


_TODO_EDITS = frozenset(["update_todo", "set_todo_status", "delete_todo"])


def interpret(text: str) -> Intent:
    """Return what one Chinese sentence asks for; reads first, writes only when explicit."""
    intent = _interpret(text)
    named = str(intent.args.get("todo_title") or "")
    if intent.tool in _TODO_EDITS and named and not named.startswith("给") and f"给{named}" in text:
        # 给妈妈打电话这件事提高一下优先级: 给 read as "for", but it may open the title (the
        # todo's reading with its 给 first, then any other)
        other = {**intent.args, "todo_title": f"给{named}"}
        return replace(intent, otherwise=((intent.tool, other), *intent.otherwise))
    return intent


# Typing slips of the request's own words (a pinyin input method's neighbours).
_TYPOS = (
    (re.compile(r"完城|完乘|完承"), "完成"),
    (re.compile(r"标己|标计"), "标记"),
    (re.compile(r"提型|题醒"), "提醒"),
    (re.compile(r"截至(?=日期|时间)"), "截止"),  # 截至 (up to) typed for 截止 (deadline)
)
# 在读书笔记里加上第二章: a line added to the note named
_IN_NOTE_ADD = re.compile(
    r"^在\s*(?P<note>「[^」]+」|“[^”]+”|[^，,。里中]{1,20}?笔记)\s*(?:里面?|中)\s*"
    r"(?P<verb>加上|添加|加|补充|补上|写上|追加|记上)(?P<rest>.+)$"
)
# English verbs in a Chinese request (把续签合同delete掉, 把周报mark一下done): the Chinese verb.
_CODE_SWITCHED = (
    (re.compile(r"(?<=[\u4e00-\u9fff])\s*(?:delete|remove)\s*(?:掉|了)", re.I), "删掉"),
    (
        re.compile(r"(?<=[\u4e00-\u9fff])\s*mark\s*(?:一下)?\s*(?:成|为)?\s*(?:done|完成)", re.I),
        "标记为完成",
    ),
)
# 体检预约改成高优先级，别删哈: what not to do, said after the request, is no part of it.
_NOT_THIS_AFTER = re.compile(
    r"[，,]\s*(?:但是?|可是)?(?:别|不要|不用|千万别|先别)(?:给我)?(?:删|删除|删掉)(?:它|了)?[哈啊哦呀啦吧了]*[。!！]?$"
)


def _interpret(text: str) -> Intent:
    if DELETE_ACCOUNT.search(outside_quotes(text)):  # not a todo titled "删除账号"
        return Intent("delete_account", {})
    for pattern, verb in (*_TYPOS, *_CODE_SWITCHED):
        text = pattern.sub(verb, text)
    in_note = _IN_NOTE_ADD.match(strip_polite(text)) if "笔记" in text else None
    if in_note:
        added = re.sub(
            r"^(?:一句|一行|一条|一项|一段|一点|几句)(?:话|内容)?", "", in_note.group("rest")
        )
        text = f"给{in_note.group('note')}加上：{added.lstrip('：:，, ')}"
    text = _NOT_THIS_AFTER.sub("", text) or text
    # (然后 / 再 / 另外 opening a request after another: 再帮我建个待办…)
    opened = re.sub(
        r"^(?:然后|就是|再|另外|还有|顺便|也|你(?=再|也|帮|给))+(?:那个)?(?=..)",
        "",
        strip_polite(text),
    )
    body = _reframe(strip_polite(opened))
    if (
        not body
        or _GREETING.fullmatch(body)
        or _NEGATED.match(body)
        or _CONDITIONAL.match(body)
        or _MISHAP.match(body)
        or _ADVICE.search(body)
        or _HOW_TO.search(text)
        or _ABOUT_YOU.match(text.strip())
    ):
        return HELP  # "不要删除买菜", "不用提醒我开会": a request NOT to write is no write
    if READ_HEAD.match(body) or READ_TAIL.search(body) or READ_IN.match(body):
        return read_intent(body)
    # A question is a read unless it is a polite wrapper around an explicit write
    # ("能帮我把周报标记为完成吗" asks for the write; "周报完成了吗" asks about it).
    question = bool(QUESTION.search(text))
    if question and not WRITE_HEAD.match(body):
        return read_intent(body) if TOPIC.search(body) else HELP
    write = write_intent(body)
    if write is not None:
        return write
    if _is_read(body):
        return read_intent(body)
    match = TODO_PHRASE.match(body)
    if match:
        intent = todo_fields(match.group("body"))
        if intent.tool == "create_todo" and not intent.slot and "due_at" in intent.args:
            return intent  # 下周一上午 10 点开会的待办: the todo and its time are both named
        return read_intent(body)
    captured = re.sub(
        r"^(?:记一下|记下来|记下|记录一下|记一笔|记着|记住|记个事儿?|记件事|记一件事)\s*[：:，,]?\s*",
        "",
        body,
    )
    rest, due = take_zh_time(captured)
    rest, priority = take_priority(rest)
    title = clean_title(rest)
    if captured != body and title and not due and not question and not WRITE_WORDS.search(title):
        # 记一下：快递柜取件码 8848: something to keep, not said whether a todo or a note: asked
        return ask("create_todo", SLOT_INTENT, title=title)
    if _REMARK.search(title):
        return HELP  # 今天心情不错: a remark about the day, not something to do
    if due and (_PAST_TIME.search(due) or _REPORTED.search(title)):
        return HELP  # 昨天下午开会开了三个小时, 我周五下午三点的会取消了: what happened
    clauses = _CLAUSES.search(body.rstrip("。.！! "))
    if due and clauses and (_WITHIN.search(due) or _FINISH_HEAD.match(title)):
        return HELP  # 已经丢进回收站了，30 天内可以找回: a statement, not a task
    # 周五前完成报告: a task whose title starts with the verb of finishing it
    if due and title and not question and not WRITE_WORDS.search(_FINISH_HEAD.sub("", title)):
        # 下周一上午开会: probably a todo, but nothing asked for one: ask, never guess.
        extra = {"priority": priority} if priority else {}
        return ask("create_todo", SLOT_INTENT, title=title, due_at=due, **extra)
    return HELP


def undo_request(text: str) -> str | None:
    """Whether ``text`` asks to take back the last change (``undo.undo_request``): its
    other clauses may only say what went wrong, none may ask for something else."""
    return undo.undo_request(text, asks_nothing=lambda clause: asks_for_nothing(interpret(clause)))


__all__ = [
    "correction",
    "interpret",
    "is_no",
    "is_time",
    "is_yes",
    "keep_clock",
    "kind_answer",
    "merge_time",
    "note_fields",
    "ordinal",
    "ordinal_reference",
    "pick_reference",
    "pick_time",
    "priority_answer",
    "strip_polite",
    "time_answer",
    "todo_fields",
    "undo_request",
]
