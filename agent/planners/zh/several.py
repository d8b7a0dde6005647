"""Several requests in one Chinese message, each rewritten as a sentence of the grammar.

- a list of new todos after a plural head (加三个待办：A、B、C / 帮我加几个待办 A；B；C /
  添加两件事：A，B / 待办：1.A 2.B) or before 都加上 (1. A 2. B 帮我都加上; 把A、B加到待办里),
  and two timed items after one create (加待办明天八点跑步还有周五七点聚餐): "待办：<item>" each;
- one change to several items (把A和B都标记完成 / 删掉A和B这两个 / A、B、C这三个都做完了 /
  把A和B的截止时间都改到周五): the change once per item; two items joined by 和 with nothing
  saying "both" are tried as one title first (``Split.whole_first``);
- requests one after another, split at ；。！ and at commas, 然后 / 再 / 顺便 / 另外 … (the
  driver, ``agent.planners.several``, decides which clauses open a request).

A plural pronoun for the items (把那两个都删了) asks which, like 把它删了. The counts a list
head gives (三个, 5个) choose how the list is cut (；, 、, then commas, 和); a quoted span
(「打印、装订毕业论文」) is never cut.
"""

from __future__ import annotations

import re

from agent.planners.lexicon import STRIP
from agent.planners.several import (
    Clause,
    Split,
    cut_clauses,
    cut_outside_quotes,
)
from agent.planners.zh.slots import is_time, strip_polite, take_zh_time
from agent.planners.zh.writes import WRITE_HEAD

_DIGITS = {"两": 2, "二": 2, "俩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_COUNT = r"(?:[2-9]|[两二俩三四五六七八九十几])"
_MEASURE = r"(?:个|条|件|项|样)"
_KIND = r"(?:待办事项|待办|代办|任务|提醒|事情|事项|事儿|事|todos?|to-dos?)"
_ADD = r"(?:添加|新建|创建|增加|新增|加上|加入|加|建|记下|记录|记|列|安排|写下|写)"
_PLURAL = (
    rf"(?:(?P<count>{_COUNT}){_MEASURE}|(?:这|以下|下面|如下)?(?:几|些){_MEASURE}?"
    r"|以下|下面|如下|这些)"
)
# 帮我加三个待办：A、B、C / 添加两件事：A，B / 帮我加几个待办哈 A；B / 记下这几件事：A；B
_LIST_HEAD = re.compile(
    rf"^(?:再|还|另外)?{_ADD}(?:一下|上|下|入)?\s*{_PLURAL}\s*(?:新的?)?{_KIND}?"
    r"(?:哈|吧|啊|呀)?\s*(?:[：:，,]\s*|\s+)(?P<items>.+)$",
    re.IGNORECASE,
)
# 待办：1.复印身份证 2.寄快递 / 新建待办：订机票；订酒店 (a kind and a colon, the items numbered
# or cut by ；)
_KIND_HEAD = re.compile(
    rf"^(?:{_ADD}(?:一下|上)?\s*)?(?:一些|几个)?{_KIND}\s*(?:[：:]\s*|\s+)(?P<items>.+)$",
    re.IGNORECASE,
)
# 1. 洗车 2. 买狗粮 帮我都加上 / 把订机票、订酒店加到待办里
_LIST_THEN_ADD = re.compile(
    r"^把?(?P<items>.+?)[，,\s]*(?:帮我|请|麻烦)?(?:都|全都|全部|一起)?"
    r"(?:加上|加进去|加进|加到|添加到|放进|放到|记到|加入|添上|加)"
    rf"(?:{_KIND}|清单|列表)?(?:里面?|中|上)?(?:去|来)?(?:吧|哈|啊)?$",
    re.IGNORECASE,
)
# 加待办明天早上八点跑步还有周五晚上七点聚餐: one create, two timed items
_CREATE_HEAD = re.compile(
    rf"^(?:再|还)?{_ADD}(?:一下|个|一个|一条)?\s*{_KIND}\s*[：:，,]?\s*(?P<items>.+)$",
    re.IGNORECASE,
)
_LAST_AND = re.compile(r"\s*(?:和|以及|及|还有)\s*")
_AND_MORE = re.compile(r"还有|以及|另外还?有?|外加")

_NUMBERED = re.compile(
    r"(?:^|(?<=[\s，,；;。]))(?:\d{1,2}|[一二三四五六七八九十])\s*[.、)）．]\s*(?!\d)|[①②③④⑤⑥⑦⑧⑨⑩]\s*"
)
_ALL = (
    r"(?:(?:这|那)?(?P<n>[两俩三四五六几])(?:个|条|项|件|篇)?(?P<kind>待办|任务|笔记)?都?"
    r"|都|全都|全部|统统|一起|一并)"
)
_TARGET_VERB = (
    r"(?:标记|标为|标成|标注|设为|设成|设置为|改为|改成|改回|改到|调到|调成|调整为|推迟|延后|提前"
    r"|删除|删掉|删了|删|去掉|移除|勾掉|勾选|打勾|打个勾|重新打开|重开|恢复|完成|做完|搞定"
    r"|delete|remove|mark)"
)
# 把A和B都标记完成 / 把A、B标记为完成 / 把A和B的截止时间都改到周五
_TARGETS_BA = re.compile(
    rf"^(?:把|将)(?P<items>.+?)(?P<all>{_ALL})?(?P<rest>{_TARGET_VERB}.*)$", re.IGNORECASE
)
# 删掉体检预约和准备周会材料这两个 / 删除A、B
_TARGETS_VERB_FIRST = re.compile(
    r"^(?P<verb>删除|删掉|删了|删|移除|去掉|勾掉|完成|重新打开|重开)\s*(?P<items>.+?)"
    rf"(?P<all>{_ALL})?(?:吧|了|哈)?$"
)
# 买菜 交房租 给妈妈打电话 这三个都做完了 / A和B都删了吧
_TARGETS_FIRST = re.compile(rf"^(?P<items>.+?)\s*(?P<all>{_ALL})(?P<rest>.+)$")
_PLURAL_PRONOUN = re.compile(r"^(?:那|这)(?:[两俩三四五几些](?:个|条|项|件)?)$|^它们$|^他们$")
_POINTED = re.compile(
    r"^(?:把|将)?(?:(?:那|这)[两俩三四五几些](?:个|条|项|件)?(?:待办|任务|笔记)?|它们)"
    rf"(?:都|全都|全部|一起)?(?P<rest>{_TARGET_VERB}.*)$"
)
# What the items are called after their names: 周会那条笔记 → 周会 is kept whole (the
# grammar reads it), but a field after the last item goes with every item.
_FIELD = re.compile(
    r"(?P<item>.+?)(?P<field>的(?:截止时间|截止日期|截止|优先级|标题|名字|描述|备注|状态))$"
)
_NOT_AN_ITEM = re.compile(r"^(?:然后|再|顺便|另外|还要|也)|^(?:把|将|删|标记|新建|添加|创建|提醒)")
_ALSO = re.compile(r"(?:^|(?<=[\u4e00-\u9fff\w]))也(?=删|标记|标成|改|完成|做完|勾|重新)")
# Items named in a row: 、 and 和 (commas too in a list said to be several: 都, 这三个)
_ITEM_SEPARATORS = re.compile(r"\s*(?:、|和|跟|与|以及|还有|及)\s*")
_MARKED_SEPARATORS = re.compile(r"\s*(?:、|，|,|和|跟|与|以及|还有|及)\s*")

# Clauses: a full stop or semicolon, a comma, or a connector, each outside quotes.
_JOINTS = re.compile(
    r"(?P<stop>[；;。！!]\s*)(?P<then>(?:然后|再|顺便|另外|还有|同时|并且|接着|之后|此外)?)"
    r"|(?P<comma>[，,]\s*)(?P<after>(?:然后|再|顺便|另外|还有|同时|并且|接着|之后|此外)?)"
    r"|(?P<word>\s*(?:然后|顺便|另外|接着|此外)(?:再)?|(?<=[了吧掉])\s*再(?=把|帮|给我|加|添加|新建|建|删|标记|提醒|记))\s*"
)


# Nothing of a list or of several items in it: no need to look further (every message
# passes here).
_MAYBE_SEVERAL = re.compile(
    rf"[、；;①-⑩]|\d\s*[.、)）．]|{_COUNT}{_MEASURE}|这些|以下|下面|如下|都|全部|统统|一起"
    r"|和|跟|与|以及|还有|外加"
)


# Ways of starting a note or of listing two requests that the grammar reads in another form.
_NOTE_HEAD_TITLE = re.compile(
    r"^(?:帮我)?(?:(?:新建|新的?|记一下|记个|记一个|记)\s*(?:一条|个)?\s*)?(?:笔记|备忘)?\s*[，,：:\s]*"
    r"(?=(?:标题|题目))"
)
_JOT_TITLE = re.compile(r"^(?:帮我)?记一下[，,：:\s]*(?=(?:标题|题目))")
_BARE_NOTE = re.compile(r"^笔记\s+(?P<rest>[^：:，,]{1,30}[：:].+)$")
_PASTE_INTO = re.compile(
    r"^把(?:这段|这些|下面的?|以下)(?:话|内容|文字)?\s*(?:加到|加进|添加到|追加到|放到|放进|记到|写到)"
    r"\s*(?P<note>.{1,20}?笔记)(?:里面?|中)?\s*[：:]\s*(?P<rest>.+)$"
)
_TWO_THINGS = re.compile(
    r"^(?:两|三|几)件事[：:，,]?\s*第一[，,、：:]?\s*(?P<a>.+?)[；;。]\s*第二[，,、：:]?\s*(?P<b>.+)$"
)


def reword(text: str) -> str:
    """The message in the form the grammar reads: 笔记标题：X，内容：… → 记一条笔记，标题：X…;
    把这段加到预算笔记里：… → 给预算笔记加上：…; 两件事：第一，A；第二，B → A；另外B."""
    body = text.strip()
    two = _TWO_THINGS.match(body)
    if two:
        body = f"{two.group('a')}；另外{two.group('b')}"
    pasted = _PASTE_INTO.match(body)
    if pasted:
        return f"给{pasted.group('note')}加上：{pasted.group('rest')}"
    if re.search(r"内容|正文", body):
        for head in (_JOT_TITLE, _NOTE_HEAD_TITLE):
            match = head.match(body)
            if match and match.end() > 0:
                return f"记一条笔记，{body[match.end() :]}"
    bare = _BARE_NOTE.match(body)
    if bare:
        return f"记一条笔记：{bare.group('rest')}"
    return body


def split(text: str) -> Split | None:
    """The message as one sentence per item, when it lists several (else None)."""
    if not _MAYBE_SEVERAL.search(text):
        return None
    body = strip_polite(text)
    return _new_items(body) or _targets(body)


# A description's or a note's text: a numbered list in it is its content, not several items.
_CONTENT_LABEL = re.compile(r"(?:描述|备注|内容|正文|说明|详情)\s*[：:是]", re.IGNORECASE)


def _new_items(body: str) -> Split | None:
    if _CONTENT_LABEL.search(body):
        return None
    head = _LIST_HEAD.match(body)
    if head and not re.match(r"^[一1]?个", head.group("items")):
        count = head.group("count")
        items = _cut(head.group("items"), _number(count) if count else None, loose=True)
        if items:
            return Split(tuple(f"待办：{item}" for item in items))
    head = _KIND_HEAD.match(body)
    if head:
        items = _cut(head.group("items"), None, loose=False)
        if items:
            return Split(tuple(f"待办：{item}" for item in items))
    listed = _LIST_THEN_ADD.match(body)
    if listed:
        items = _cut(listed.group("items"), None, loose=False)
        if items:
            return Split(tuple(f"待办：{item}" for item in items))
    created = _CREATE_HEAD.match(body)
    if created:
        pieces = [
            piece.strip(STRIP) for piece in cut_outside_quotes(_AND_MORE, created.group("items"))
        ]
        if len(pieces) > 1 and all(take_zh_time(piece)[1] for piece in pieces):
            return Split(tuple(f"待办：{piece}" for piece in pieces))
    return None


def _targets(body: str) -> Split | None:
    for pattern in (_TARGETS_BA, _TARGETS_VERB_FIRST, _TARGETS_FIRST):
        match = pattern.match(body)
        if not match:
            continue
        marked = bool(match.group("all"))
        items_text = match.group("items").strip(STRIP)
        if marked and _PLURAL_PRONOUN.match(items_text):
            return None  # 把那两个都删了: which two? the grammar asks, as for 把它删了
        field = ""
        last = _FIELD.match(items_text)
        if last:
            items_text, field = last.group("item"), last.group("field")
        separators = _MARKED_SEPARATORS if marked else _ITEM_SEPARATORS
        pieces = [piece for piece in cut_outside_quotes(separators, items_text) if piece]
        if marked and len(pieces) < 2:  # 买菜 交房租 给妈妈打电话 这三个都做完了
            pieces = items_text.split()
        if len(pieces) < 2 or not all(_item_like(piece) for piece in pieces):
            continue
        if match.group("kind") == "笔记":  # 把周会和预算两条笔记都删掉: notes, each
            field = f"笔记{field}"
        if pattern is _TARGETS_VERB_FIRST:
            sentences = [f"{match.group('verb')}{piece}{field}" for piece in pieces]
        elif pattern is _TARGETS_BA:
            sentences = [f"把{piece}{field}{match.group('rest')}" for piece in pieces]
        else:
            sentences = [f"{piece}{field}{match.group('rest')}" for piece in pieces]
        listed = "、" in items_text or "，" in items_text or "," in items_text
        whole_first = not marked and len(pieces) == 2 and not listed
        return Split(tuple(sentences), whole_first=whole_first)
    return None


def _item_like(piece: str) -> bool:
    """A piece naming an item, not a time or a request of its own (然后把X…)."""
    return len(piece) > 1 and not is_time(piece) and not _NOT_AN_ITEM.match(piece)


def plural_pronoun(text: str) -> str | None:
    """把那两个都删了 → 把它删了: several items pointed at, none named (asked about)."""
    if not re.search(r"[那这][两俩三四五几些]|它们", text):
        return None
    match = _POINTED.match(strip_polite(text))
    return f"把它{match.group('rest')}" if match else None


def clauses(text: str) -> list[Clause]:
    """The message's clauses, each with the joint that came before it."""
    return cut_clauses(text, _JOINTS, _clause)


def _clause(text: str, joint: str, strong: bool, connector: bool) -> Clause:
    """预算笔记也删了 → 预算笔记删了, and led by 也 ("too": a request of its own)."""
    plain = _ALSO.sub("", text)
    return Clause(plain, joint, strong or plain != text, connector or plain != text)


# 另外帮我加个待办… / 再帮我建个待办 / 你再帮我记一个笔记: a request said anew to the assistant
_ASKS_ANEW = re.compile(
    # (…，然后把买菜删了: a 把-imperative that ends the message)
    r"^把[^，,；;。]{1,20}?(?:删了|删掉|删除|标记为完成|标记完成|标成已完成|勾掉)(?:吧|了)?[。！!]?$"
    r"|^(?:你|请|麻烦)?\s*(?:也|再|还)?\s*(?:帮我|给我|帮忙|替我)"
    # (…内容 星际穿越 然后提醒我周六去看: "remind me" is said to the assistant)
    r"|^(?:然后|再|另外|顺便|还有)?\s*(?:你|请|麻烦)?\s*(?:也|再|还)?\s*提醒(?:我|一下我)"
    r"|^(?:再|也|还)?\s*(?:加|添加|新建|创建|建|记|设|写)\s*(?:个|一个|一条|一下)?\s*(?:新的?)?"
    r"(?:待办|任务|提醒|笔记|备忘)"
)


def asks_anew(text: str) -> bool:
    """Whether a clause after a note's content asks the assistant for something else."""
    return bool(_ASKS_ANEW.match(text.strip()))


def opens_request(text: str) -> bool:
    """Whether a clause starts a request of its own (a write verb at its head)."""
    return bool(WRITE_HEAD.match(strip_polite(text)))


def _number(count: str) -> int | None:
    if count.isdigit():
        return int(count)
    return _DIGITS.get(count)


def _cut(items: str, count: int | None, *, loose: bool) -> list[str]:
    """The items of a list: numbered, else cut at ；, 、, then (``loose``) commas or 和."""
    items = re.sub(r"（([^（）]+)）|\(([^()]+)\)", lambda m: f" {m.group(1) or m.group(2)}", items)
    numbered = [piece.strip(STRIP) for piece in cut_outside_quotes(_NUMBERED, items)]
    numbered = [piece for piece in numbered if piece]
    if len(numbered) > 1 and _NUMBERED.search(items):
        return _clean(numbered)
    separators = [r"\s*[；;]\s*", r"\s*、\s*"]
    if loose:
        separators += [r"\s*[，,]\s*", r"\s*(?:和|以及|还有)\s*", r"\s+"]
    best: list[str] = []
    for separator in separators:
        pieces = [piece.strip(STRIP) for piece in cut_outside_quotes(re.compile(separator), items)]
        if separator == r"\s*、\s*" and len(pieces) > 1:  # A、B和C: the last 和 joins the list
            pieces[-1:] = cut_outside_quotes(_LAST_AND, pieces[-1])
        pieces = [piece.strip(STRIP) for piece in pieces if piece.strip(STRIP)]
        if len(pieces) < 2:
            continue
        if count is None or len(pieces) == count:
            return _clean(pieces)
        best = best or pieces
    return _clean(best)  # a count that does not match the list: the list as written


def _clean(pieces: list[str]) -> list[str]:
    cleaned = [re.sub(r"^(?:还有|和|以及|再|然后)\s*", "", piece).strip(STRIP) for piece in pieces]
    return cleaned if all(cleaned) else []
