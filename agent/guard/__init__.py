"""The truthfulness guard: no outcome claim reaches the user unless a receipt backs it.

The last line of defence (article section 13). Every model text passes here, on every turn
(write turns, read turns, final replies) and before it is stored. The guard:

1. cuts the reply into clauses (:mod:`agent.guard.text`),
2. finds the outcome claims in each with a grammar per language
   (:mod:`agent.guard.grammar_zh`, :mod:`agent.guard.grammar_en`),
3. checks each claim against this session's succeeded receipts (:mod:`agent.guard.backing`),
4. removes every clause holding an unbacked claim and appends a fixed server text.

It decides nothing about what the user wants and does no I/O: the caller loads the
receipts (:func:`agent.guard.receipts.session_backings`) and records the audit event.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.guard import grammar_en, grammar_zh
from agent.guard.backing import Backing, backing_for, is_backed, normalise_name
from agent.guard.claims import Claim, is_sweeping
from agent.guard.text import Clause, clauses, remove_spans, restore
from lightnote.texts.i18n import DEFAULT_LOCALE, normalize_locale

__all__ = [
    "GUARDED_CODE",
    "NOT_EXECUTED_TEXT",
    "PARTLY_REMOVED_TEXT",
    "Backing",
    "Claim",
    "GuardVerdict",
    "backing_for",
    "claims_completed_write",
    "find_claims",
    "guard_reply",
    "guarded_notice",
]

GUARDED_CODE = "REPLY_UNBACKED_CLAIM"

_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
# "…is already done — no need to mark it again": the state was so before this turn.
_STATE_WAS_SO = re.compile(
    r"\bno\s+need\s+(?:to|for)\b|(?:不需要|不用|无需|无须|不必|没必要)(?:再|重复|又)"
    r"|\bbefore\s+you\s+asked\b|\bleft\s+it\s+(?:as\s+is|alone)\b|没有?再改动|没再动"
    # "…is already marked done — you checked it off on Monday": the user did it
    r"|\byou\s+(?:already\s+|just\s+)?(?:checked|ticked|crossed|marked|completed|finished|did"
    r"|deleted|removed|added|created|moved|changed)\b"
    r"|(?:你|您)[^，。]{0,8}(?:勾|剔|完成|标记|删|加|建|改)[^，。]{0,4}(?:了|的)"
    # "… is already marked done — the history says that happened Tuesday": it was so before
    r"|\b(?:history|activity\s+log|log)\s+(?:says|shows)\b"
    # "… is already high — there's nothing to change"
    r"|\bnothing\s+to\s+change\b|\bno\s+change\s+(?:is\s+)?needed\b",
    re.IGNORECASE,
)
_ALREADY_STATE = re.compile(
    r"^(?:is|are|was|were|'s|’s)\s+already\b|已经是",
    re.IGNORECASE,
)
_BARE_STATUS = re.compile(
    r"(?:recently\s+)?(?:completed|done|finished|open|pending|已完成|未完成|进行中|待完成)",
    re.IGNORECASE,
)
# "- Created: 22", "删除：3 条": a word that labels a count
_COUNT_LABEL = re.compile(
    r"[-*•]?\s*(?:completed|done|finished|created|added|deleted|removed|updated|edited|archived"
    r"|restored|moved|已?完成|新建|新增|创建|添加|删除|修改|更新|归档|恢复)",
    re.IGNORECASE,
)
# "Removed: 4 · Skipped: 0 · Errors: 0": the counts of a run, not of a read
_RUN_RESULT = re.compile(
    r"(?:\berrors?|\bfail(?:ed|ures?)|\bskipped|失败|跳过|出错)\s*[:：]\s*\d", re.IGNORECASE
)
_COUNT_AFTER = re.compile(r"\s*[:：]\s*\d+(?![\d.)、])")  # a count, not "Deleted: 1. Rent"
_DONE_LABEL = re.compile(r"(?:completed|done|finished|已完成)\s*[:：]", re.IGNORECASE)
# "笔记里写着：…" / "Your note says: …": what follows quotes stored content (not "The
# system says: …", which is the model's own report).
_CONTENT_LABEL = re.compile(
    r"(?:笔记|内容|备注|描述|原文|里面|上面|\bnotes?\b|\bcontent|\bdescription|\bmemo|\btext)"
    r".*(?:写着|写道|写的是|内容是|内容如下|记录着|记着|提到|\bsays|\breads|\bwrites|\bstates"
    r"|\bsaid)\s*$",
    re.IGNORECASE,
)
# "已取消，这次什么也没改" / "Cancelled — nothing was changed": the card was cancelled.
_NOTHING_CHANGED = re.compile(
    r"什么(?:也|都)没|没有(?:做|进行)?任何(?:修改|改动|操作|变更)|未做任何|不做任何|没做任何|没有动"
    r"|nothing\s+(?:was|has\s+been|got)\s+(?:changed|done|touched|modified|saved)"
    r"|\bnothing\s+changed\b|没有任何(?:变化|改变)|(?:数据|内容)(?:没有|并没有|并未|未)(?:任何)?(?:变化|改变)"
    r"|no\s+changes?\s+(?:were|was|have\s+been)\s+made"
    r"|\b(?:haven'?t|didn'?t|have\s+not|did\s+not)\s+(?:touched|touch|changed|change)\s+anything"
    r"|\bleft\s+(?:everything|it|them|all\s+of\s+it)\s+(?:as\s+(?:it\s+)?(?:is|was)|alone|untouched"
    r"|unchanged)\b|保持原样|原封不动",
    re.IGNORECASE,
)
# "执行失败：这条待办已被修改" / "That failed: the todo was changed elsewhere": what follows a
# failure explains it.
_FAILURE_LABEL = re.compile(r"(?:失败|出错|错误|\bfail(?:ed|ure)|\berror)\s*$", re.IGNORECASE)
_AFTER_QUOTE = re.compile(r"^\s*[“「]\ue000[”」]\s*(?P<rest>.+)$")
_QUOTE_FIRST = re.compile(r"^\s*[“「]\ue000[”」]")
_WORD = re.compile(r"[A-Za-z\u3400-\u9fff]{2,}")
_QUOTED_ALONE = re.compile(r"\W*?[\"“'‘](.+?)[\"”'’]\W*")
# "以下是我为你完成的操作：" / "Here's what I did:": the list after it reports done writes.
_DONE_HEADER = re.compile(
    r"(?:以下|下面|这)是?我?(?:为你|为您|帮你|帮您|已经?)*(?:完成|执行|做)了?的(?:操作|修改|改动|事情|更改)"
    r"|我(?:已经?)?(?:为你|帮你)?(?:完成|执行|做)了(?:以下|如下|这些|下面的?)(?:操作|修改|改动|更改)"
    r"|\bhere(?:'?s|\s+is)\s+what\s+i(?:'ve|\s+have)?\s+(?:did|done|changed|updated)\b"
    r"|\bi\s+(?:did|made|have\s+made|'ve\s+made)\s+the\s+following(?:\s+changes)?\b",
    re.IGNORECASE,
)
# "以下是将要执行的操作：" / "Here's what I'm about to do:": the list after it is a plan.
_PLAN_HEADER = re.compile(
    r"(?:以下|下面|这)是?我?(?:将要|将会|将|即将|准备|打算|要)(?:为你|帮你|为您)?(?:执行|进行|做|完成)的"
    r"(?:操作|修改|改动|事情|更改)"
    r"|我(?:将|会|准备|打算|要)(?:为你|帮你|为您)?(?:执行|进行|做)(?:以下|如下|这些|下面的?)"
    r"(?:操作|修改|改动|更改)"
    r"|\bhere(?:'?s|\s+is)\s+what\s+i(?:'m|\s+am|'ll|\s+will|\s+would|'d|\s+plan\s+to|\s+can)"
    r"(?:\s+(?:about|going))?(?:\s+to)?\s+(?:do|change|update|make)\b"
    r"|\bhere(?:'?s|\s+is)\s+(?:the|my)\s+plan\b"
    r"|\b(?:proposed|planned|suggested|pending)\s+(?:changes|actions|edits|updates)\b"
    r"|(?:建议|拟|待确认|计划)的?(?:修改|改动|操作|更改)"
    r"|\bi(?:'m|\s+am)\s+(?:about|going)\s+to\s+(?:do|make)\s+the\s+following\b"
    # what follows explains, lists what can be done, or advises: 按钮说明：/ 图标含义：/
    # 我能做的事情包括：/ 小贴士：/ "Legend:" / "Things I can help with:" / "Pro tip:"
    r"|按钮说明|图标含义|图例|含义[:：]|小贴士|小技巧|我能(?:做|帮你做)的|我可以帮你(?:做)?的|我能帮你"
    r"|\blegend\b|\bkey\s*:|\bicons?\s*:|\bpro\s+tip\b|\btips?\s*:|\bhint\s*:"
    r"|\bthings\s+i\s+can\b|\bi\s+can\s+help\s+with\b|\bhere(?:'?s|\s+is)\s+what\s+i\s+can\b"
    # the cards shown, one per line: 待确认的卡片： / "Here are the cards:"
    r"|(?:待确认|等待确认|待你确认)的?(?:卡片|确认卡|操作)|(?:以下|下面)是(?:新的?|待确认的?)?(?:卡片|确认卡)"
    r"|\bhere\s+(?:are|is)\s+(?:the|your)\s+(?:\w+\s+)?(?:confirmation\s+)?cards?\b",
    re.IGNORECASE,
)
# "Corrected! The card now reads …" / 已更正！卡片现在显示…: a correction with no item named, in a
# reply about a card, is the card's.
_CORRECTED_ALONE = re.compile(
    r"(?:已经?)?(?:更正|纠正|修正|改正)(?:好了|了|好)?|(?:ok|okay|got\s+it|sure)?[,\s]*"
    r"(?:corrected|fixed|amended)",
    re.IGNORECASE,
)
# "… the due date on it is now Friday" / 上面的截止日期改成了周五: "on it", in a sentence
# about a card
_ON_THE_CARD = re.compile(r"\bon\s+(?:it|there)\b|上面的|卡(?:片)?上|它上面", re.IGNORECASE)
_CARD_WORD = re.compile(r"\bcards?\b|卡片|确认卡|[这那张]卡", re.IGNORECASE)
# "| 字段 | 原值 | 新值 |" / "| Field | Before | After |": the rows below report changes.
_CHANGE_TABLE_HEADER = re.compile(
    r"^[ \t]*\|.*(?:原值|旧值|修改前|改前|原来|之前|\bbefore\b|\bold\b|\bwas\b)[^|]*\|"
    r".*(?:新值|修改后|改后|现在|\bafter\b|\bnew\b|\bnow\b)",
    re.IGNORECASE,
)
_TABLE_RULE = re.compile(r"^[ \t]*\|[\s:|-]*$")
_LIST_LINE = re.compile(r"[ \t]*(?:[-*•+|]|\d+[.)、]|[（(]?\d+[)）])")
# "「交房租」 ⬜ → ☑️": a tick shown as a change, unless the reply asks for a confirmation.
_TICK_ARROW = re.compile(
    r"[⬜☐□]\ufe0f?\s*(?:→|->|=>|⇒|➡\ufe0f?|⟶)|(?:status|state|状态)`?\s*(?:→|->|=>|⇒|⟶)"
    r"|(?:截止时间|截止日期|到期时间|到期日|优先级|标题|名称|deadline|due|priority|title)[^→\n]{0,30}?"
    r"(?:→|->|⟶|⇒)|^[^→\n]{1,24}?\s*(?:→|->|⟶|⇒)\s*\S",
    re.IGNORECASE,
)
_USERS_OWN = re.compile(
    r"你自己|您自己|都是你|由你|\bby\s+you\b|\byou\s+(?:yourself\b|(?:created|made|added|deleted|finished"
    r"|completed|removed)\s+\d)"
    # 本周回顾：你完成了 9 条待办，删除了 2 条…: what the user did, counted
    r"|(?:你|您)(?:这周|本周|今天|上周|这个月|本月|最近|一共|共|总共)*(?:完成|删除|新建|创建|添加|修改|勾掉)了\s*\d"
    # "…, not from me", 不是我刚改的: someone else made the change
    r"|\bnot\s+(?:from|by)\s+me\b|不是我[^，。]{0,4}的"
    # "you renamed it yourself from the web app"
    r"|\byou\s+\w+\s+(?:it|them|that|this)\s+yourself\b"
    # "You deleted "Old resume draft" on Monday; it's in Trash until the 14th"
    r"|^\s*you\s+(?:deleted|removed|created|added|completed|finished|renamed|moved|changed|archived)\b"
    r"[^.;]{0,60}\b(?:on\s+(?:mon|tue|wed|thu|fri|sat|sun)\w*|yesterday|last\s+(?:week|night|month)"
    r"|earlier\s+today|this\s+morning)\b",
    re.IGNORECASE,
)
# Someone or something else made the change, or the reply says where it was made: "Zapier
# created that task … — I had nothing to do with it", "per the shared-list history, Tom
# deleted …", 是钉钉自己的机器人发的，跟 LightNote 无关, 那是在日历 App 里改的，不是我.
_ELSEWHERE_SAID = re.compile(
    r"\bhad\s+nothing\s+to\s+do\s+with\s+it\b|(?:'s|’s)\s+end\b"
    r"|\b(?:from|per|according\s+to)\s+(?:the\s+|your\s+)?(?:shared[- ]list\s+|shared\s+)?"
    r"(?:activity\s+(?:feed|log)|history|log|email|notification)"
    r"|\bnothing\s+(?:here|in\s+lightnote)\s+changed\b"
    r"|\bfrom\s+your\s+(?:laptop|phone|computer|desktop|tablet|other\s+device|another\s+device)\b"
    r"|(?:跟|和|与)\s*LightNote\s*无关|不是我[^，。]{0,4}(?:的|改|删|做)|根据[^，。]{0,6}(?:记录|动态|历史)"
    r"|在[^，。]{1,10}(?:App|应用|里)改的"
    # 你的待办里已经有「交房租」了，要再建一条吗？: it was there before; a second is offered
    r"|已经有[^，。]{0,16}了[，,][^。]{0,8}再(?:建|加|添|新建|创建)"
    r"|\balready\s+(?:have|has|exists?)\b[^.]{0,60}\b(?:another|again|a\s+second)\b",
    re.IGNORECASE,
)
# "⏳ waiting for your confirmation" / 等待你确认: a line about a card that has not run.
_WAITING = re.compile(
    r"⏳|\b(?:waiting|awaiting)\s+(?:for\s+)?(?:your\s+)?confirmation\b|等待(?:你|您)?的?确认|待你确认",
    re.IGNORECASE,
)
# "To bulk-delete completed tasks: 1. …", 批量删除已完成任务的方法：…, "Tagging tip: …": a how-to.
_HOW_TO = re.compile(
    r"^\s*(?:to\s+[a-z][\w -]{2,60}:|how\s+to\b|here'?s\s+how\b|(?:[\w-]+\s+)?tips?\s*:"
    r"|[^\n，,：:]{0,30}(?:的方法|的步骤)\s*[：:]|(?:如何|怎么)[^\n，,：:]{0,30}[：:]|小贴士|提示[：:])",
    re.IGNORECASE,
)
# "这个月…完成了 13 条，完成率 65%": counts a report gives.
_RATE = re.compile(r"完成率|完成度|百分之|\d\s*%|\bcompletion\s+rate\b|\bpercent\b", re.IGNORECASE)
# 已完成 5 条，逾期 1 条，进行中 3 条: counts side by side in one sentence
_COUNTS = re.compile(r"\d+\s*[条项个件]\s*[，,、；;/]\s*[^。！!？?\n]{0,8}?\d+\s*[条项个件]")
# "When I removed it a few minutes ago, …": a past event, not a condition.
_PAST_WHEN = re.compile(
    r"^when\s+(?:i|we)\s+\w+ed\b.*\b(?:ago|earlier|yesterday|just\s+now|last\s+\w+|this\s+morning)\b",
    re.IGNORECASE,
)
# "本来想帮你删掉的，但…" / "I would have deleted it, but it's pinned": what did not happen,
# and why.
_COUNTERFACTUAL = re.compile(
    # 要是当时你点了确认，这条待办现在就已经被标成完成了——不过你没点: a past condition
    r"(?:(?:要是|如果|假如|若是?)(?:当时|那时|刚才|之前|早先)[^。！？\n]*(?:不过|但是?|可是)"
    r"[^。！？\n]*(?:没|未|不)"
    r"|\bhad\s+you\s+\w+[^.!?\n]*\b(?:but|however)\b[^.!?\n]*\b(?:didn'?t|did\s+not|haven'?t|not)\b"
    # "Had the sync finished, your edits would have been saved": an inverted condition
    r"|\bhad\s+(?:you|i|we|the|it|they|this|that)\b[^.!?\n]*\bwould\s+have\b"
    # 若服务器当时没超时，这条笔记早就存好了 / 要是你刚才点了确认，这条就已经删了
    r"|(?:要是|如果|假如|若是?)[^。！？\n]{0,16}(?:当时|那时|刚才|之前|早先)[^。！？\n]*(?:早就|就已经|本可以|本来会)"
    r")"
    r"|(?:本来想|本想|原本想|原想|原本打算|本打算|\bwould\s+have\b|\bwas\s+going\s+to\b)"
    r".*(?:但|可是|不过|\bbut\b|\bhowever\b)"
    # … and what kept it from happening ("but I've already deleted it" is a claim)
    r".*(?:无法|不能|没法|动不了|不了|没有|没能|未能|锁定|\bcan'?t\b|\bcannot\b|\bcouldn'?t\b"
    r"|\bunable\b|\bdidn'?t\b|\bdid\s+not\b|\bleft\s+it\b|\bwon'?t\b|\blocked\b|\bpinned\b"
    r"|\bnot\s+allowed\b)",
    re.IGNORECASE | re.DOTALL,
)
# "优先级：普通 → 高（已修改）" / "(changed)": a parenthesis that reports an event.
# "标题：Q3 预算（原：预算）", "Title: Q3 budget (was: Budget)": a field's new value beside its old
_WAS_NOTE = re.compile(
    r"[（(]\s*(?:原|原为|原来是|之前是|was|previously|formerly|before)\s*[:：]?\s*[^)）\n]{1,40}[)）]",
    re.IGNORECASE,
)
_EVENT_NOTE = re.compile(
    r"[（(]\s*(?:just\s+)?(?P<event>已(?:经)?(?:修改|更新|删除|恢复|添加|创建|保存|调整|移除|改期|延期"
    r"|推迟|重命名|改名|新增|移动)"
    r"|(?:刚刚|刚才)(?:修改|更新|删除|恢复|添加|创建|保存|调整|移除|改)(?:的|过|好了|了)?"
    r"|changed|updated|deleted|removed|restored|added|created|saved|adjusted|edited)"
    r"(?:\s+(?:just\s+now|now|a\s+moment\s+ago))?\s*[)）]",
    re.IGNORECASE,
)
# "Noted — I'll act once you confirm" / "我都记下来了，会按顺序准备确认卡片": "noted" takes in
# the request when the same sentence sends the user to a card.
_TO_CARD = re.compile(
    r"确认卡|卡片|确认后|确认之后|等你确认|\bcards?\b|\b(?:once|after|when|until|till)\s+you\s+confirm"
    # "Here's a preview of the changes: …", "Draft change: …", 拟修改: what a card would do
    r"|\bpreview\b|预览|\bdraft\s+(?:change|edit|update)s?\b|拟(?:修改|删除|新增|更新)",
    re.IGNORECASE,
)
# "以下是我做的修改，请确认" / "Here is what I changed, please confirm": a header over a
# proposal, not over done work.
_ASKS_CONFIRM = re.compile(
    r"请(?:你|您)?(?:先)?\s*(?:确认|confirm)|待确认|\bplease\s+confirm\b|\bto\s+confirm\b"
    r"|\bconfirm\s+(?:it|them|this|these)\b"
    r"|\breply\s+[\"“']?(?:yes|ok|y)[\"”']?\s+to\b|回复[「“\"]?(?:是|好|确认|yes)[」”\"]?",
    re.IGNORECASE,
)
# "| Report | Priority High → Medium (pending) |" / （待确认）: a change marked as not yet made
# (a parenthesis is no part of its clause's scan, so the reply's text is read).
_PENDING_MARK = re.compile(
    r"[（(]\s*(?:待确认|未确认|尚未执行|未执行|待执行|尚未生效|未生效|尚未保存|未保存|pending"
    r"|not\s+(?:yet\s+)?(?:applied|confirmed|done|saved)"
    r"|awaiting\s+(?:your\s+)?confirmation)\s*[)）]",
    re.IGNORECASE,
)
_NOTED = re.compile(r"^(?:i'?ve\s+|i\s+have\s+)?noted$|记下|记住", re.IGNORECASE)
# "I also added another todo", 又新建了一条: explicitly not the item the reply is about.
_ANOTHER = re.compile(
    r"\banother\b|\balso\b[^.;!?]*\bnew\b|又(?:新建|创建|加|添加|记)|另一|另外(?:一|又)"
    r"|还[^，。]{0,6}(?:新建|创建|添加|新增)",
    re.IGNORECASE,
)
_CANCELLED = re.compile(r"取消|cancell?ed|回滚|rolled\s+back", re.IGNORECASE)
_OPEN_LABEL = re.compile(r"(?:open|pending|to\s+do|未完成|进行中|待完成)\s*[:：]", re.IGNORECASE)
_CONDITION_HEAD = re.compile(
    r"^(?:如果|若|假如|要是|一旦|只要|等你|待你|确认后|确认之后|在你确认|你确认后|你确认之后"
    r"|if|once|when|after|as\s+soon\s+as|upon|before)\b"
    # "Before we move on, …", "before I forget —", "If I'm not mistaken, …", 如果我没记错:
    # a turn of speech, no condition
    r"(?!\s+(?:we|i)\s+(?:move\s+on|go\s+on|continue|forget|wrap\s+up)\b)"
    r"(?!\s+i'?m\s+not\s+mistaken|\s+i\s+remember\s+(?:right|correctly))"
    r"(?!我?没(?:记|看)错)",
    re.IGNORECASE,
)

# Appended when nothing in the reply states a backed outcome (the article's text).
NOT_EXECUTED_TEXT = {
    "zh-CN": "该操作尚未执行：服务端没有生成可核验的确认或成功回执。",
    "en": "This operation has not been executed: the server has no verifiable confirmation or success receipt.",  # noqa: E501
}
# Appended when the reply keeps a backed outcome (a final reply after a real action): the
# removed claim was not executed, the action the receipt proves was.
PARTLY_REMOVED_TEXT = {
    "zh-CN": "回复中有操作声明没有服务端回执支持，未予显示：那些操作并未执行。以确认卡和执行结果为准。",  # noqa: E501
    "en": "Part of this reply claimed actions the server holds no receipt for and is not shown: those actions were not executed. The card and its outcome are what happened.",  # noqa: E501
}
FIXED_TEXTS = frozenset([*NOT_EXECUTED_TEXT.values(), *PARTLY_REMOVED_TEXT.values()])


@dataclass(frozen=True)
class FoundClaim:
    """A claim, where it is, and what it names."""

    claim: Claim
    clause: Clause
    items: tuple[str, ...]


@dataclass(frozen=True)
class GuardVerdict:
    text: str  # the reply to show: the original, or without its unbacked claims + fixed text
    replaced: bool
    matched: str | None  # the first unbacked claim's phrase, for the audit event
    removed: tuple[str, ...] = field(default=())  # every unbacked phrase
    fixed_text: str | None = None  # the server text appended, when replaced


def find_claims(text: str, *, titles: tuple[str, ...] = ()) -> list[FoundClaim]:
    """Return every outcome claim in ``text``, clause by clause, in order.

    ``titles``: stored items' titles the reply may name without quotes (read this turn).
    """
    found: list[FoundClaim] = []
    all_clauses = clauses(text, titles=titles)
    hypothetical: set[int] = set()
    was_so = {clause.sentence for clause in all_clauses if _STATE_WAS_SO.search(clause.scan)}
    unchanged = {clause.sentence for clause in all_clauses if _NOTHING_CHANGED.search(clause.scan)}
    if unchanged:  # "Okay, cancelled. Nothing was changed.": the cancel anywhere in the reply
        unchanged = {clause.sentence for clause in all_clauses}
    users_own = {clause.sentence for clause in all_clauses if _USERS_OWN.search(clause.scan)}
    to_card = {clause.sentence for clause in all_clauses if _TO_CARD.search(clause.scan)}
    asks_confirm = {clause.sentence for clause in all_clauses if _ASKS_CONFIRM.search(clause.scan)}
    listing = bool(_DONE_LABEL.search(text) and _OPEN_LABEL.search(text))
    proposal = bool(asks_confirm or to_card or _PENDING_MARK.search(text))
    card_sentences = {clause.sentence for clause in all_clauses if _CARD_WORD.search(clause.scan)}
    change_rows = set() if proposal else _change_rows(text)
    if _HOW_TO.match(text):
        return []  # instructions for the user, every line of them
    sentence_text = _sentence_texts(text, all_clauses)
    elsewhere = {
        sentence for sentence, said in sentence_text.items() if _ELSEWHERE_SAID.search(said)
    }
    # the first clause announcing a plan: what follows it in its sentence, or on list lines
    plan_at = next(
        (
            i
            for i, clause in enumerate(all_clauses)
            if _PLAN_HEADER.search(clause.scan.replace("’", "'"))
        ),
        None,
    )
    sentences = _sentence_texts(text, all_clauses)
    rated = {
        clause.sentence
        for clause in all_clauses
        if _RATE.search(clause.scan) or _COUNTS.search(sentences.get(clause.sentence, ""))
    }
    read: dict[int, list[Claim]] = {}  # each clause read once by the grammars

    def claims_at(index: int) -> list[Claim]:
        if index not in read:
            read[index] = _claims_of(all_clauses[index])
        return read[index]

    quoting: set[int] = set()  # sentences whose rest quotes stored content
    for index, clause in enumerate(all_clauses):
        if clause.sentence in hypothetical:
            continue
        if _COUNTERFACTUAL.search(sentences.get(clause.sentence, "")):
            continue  # what would have been done, and why it was not
        if (
            listing
            and _BARE_STATUS.fullmatch(clause.scan)
            and text[clause.end : clause.end + 1] in ":："
        ):
            continue  # "Completed: … Open: …" labels a listing
        if (
            _COUNT_LABEL.fullmatch(clause.scan.strip())
            and _COUNT_AFTER.match(text, clause.end)
            and not _RUN_RESULT.search(text)
        ):
            continue  # "Completed: 18 ✅", "删除：3 条": a count's label in a report
        if clause.sentence in quoting:
            continue  # "… note says: Mondays — clear …; Fridays — reopen …": still the content
        if _CONTENT_LABEL.search(clause.label) and not _QUOTE_FIRST.match(clause.scan):
            # unquoted content runs on to the end of its sentence (a quote ends where it closes)
            quoting.add(clause.sentence)
        if _CONTENT_LABEL.search(clause.label) or _FAILURE_LABEL.search(clause.label):
            after = _AFTER_QUOTE.match(clause.scan)
            if after and _CONTENT_LABEL.search(clause.label) and _WORD.search(after.group("rest")):
                # 'Your note reads: "… delete the duplicate." That's taken care of ✔️': the
                # quote is content; what follows it is the reply's own sentence
                rest = dataclasses.replace(clause, scan=after.group("rest"), label="")
                found.extend(FoundClaim(claim, clause, clause.items) for claim in _claims_of(rest))
            continue  # quoted stored content, or the reason of a failure
        if plan_at is not None and index > plan_at:
            plan_sentence = all_clauses[plan_at].sentence
            if clause.sentence == plan_sentence or (
                clause.sentence > plan_sentence and _on_list_line(text, clause)
            ):
                continue  # a step of the plan announced before it
        row = text.rfind("\n", 0, clause.start) + 1
        if row in change_rows:
            change_rows.discard(row)  # one claim per row: its first cell names the field
            line = text[row : text.find("\n", row) if "\n" in text[row:] else len(text)]
            change = Claim(phrase=line.strip(), kind="update", resource_type=None)
            found.append(FoundClaim(change, clause, clause.items))
            continue
        if (
            _CONDITION_HEAD.match(clause.scan)
            and not claims_at(index)
            and not _PAST_WHEN.match(clause.scan)
        ):
            hypothetical.add(clause.sentence)  # 如果你确认，… / Once you confirm, …
            continue
        if _DONE_HEADER.search(clause.scan.replace("’", "'")):
            if clause.sentence in to_card or clause.sentence in asks_confirm:
                continue
            header = Claim(phrase=restore(clause.scan, clause), kind=None, resource_type=None)
            found.append(FoundClaim(header, clause, clause.items))
            continue
        was = _WAS_NOTE.search(text, clause.start, clause.end + 1)
        if was and not proposal and not _CONDITION_HEAD.match(clause.scan):
            changed = Claim(phrase=was.group(0), kind="update", resource_type=None)
            found.append(FoundClaim(changed, clause, clause.items))
        event = _EVENT_NOTE.search(text, clause.start, clause.end + 1)
        if event and not _CONDITION_HEAD.match(clause.scan):
            word = re.sub(r"^(?:已经?|刚刚|刚才)|(?:的|过|好了|了)$", "", event.group("event"))
            word = word.split()[0] if word.isascii() else word  # "updated just now"
            kind = (
                grammar_en.participle_kind(word) if word.isascii() else grammar_zh.verb_kind(word)
            )
            note = Claim(phrase=event.group(0), kind=kind, resource_type=None)
            found.append(FoundClaim(note, clause, clause.items))
        if proposal and _CORRECTED_ALONE.fullmatch(clause.scan.strip(" !！。.~～✅")):
            continue  # "Corrected! The card now reads …": the card was corrected
        if clause.sentence in card_sentences and _ON_THE_CARD.search(clause.scan):
            continue  # "the due date on it is now Friday", in a sentence about the card
        claims = claims_at(index)
        items = clause.items or (
            _topic_items(text, index, all_clauses, claims_at) if claims else ()
        )
        found.extend(
            FoundClaim(claim, clause, items)
            for claim in claims
            # "is already done — no need to mark it again": a state that was so before.
            if not (clause.sentence in was_so and _ALREADY_STATE.search(claim.phrase))
            # "已取消，这次什么也没改": a cancelled card, nothing written.
            and not (clause.sentence in unchanged and _CANCELLED.search(claim.phrase))
            # "上周你自己新建了 6 条、删除了 2 条" / "… — all made by you": the user's own
            and clause.sentence not in users_own
            and clause.sentence not in elsewhere
            # "- Mark "Pay rent" done — ⏳ waiting for your confirmation": a card's line
            and not _waiting_line(text, clause)
            # "> “把旧的都删了”": the user's words quoted back
            and not _quoted_line(text, clause)
            # "…, so I left everything as it is. 👍": a tick in a reply that changed nothing
            and not (unchanged and not _WORD.search(claim.phrase))
            and not (clause.sentence in to_card and _NOTED.search(claim.phrase))
            and not (proposal and _TICK_ARROW.search(claim.phrase))
            # "完成了 13 条，完成率 65%": counts a report gives
            and not (clause.sentence in rated and claim.kind == "status")
        )
    if found and _SEVERAL_DONE.search(text):
        # "批量删除结果：成功：4", "Marking done… 5/5": several writes, never one action's
        found = [
            FoundClaim(dataclasses.replace(entry.claim, sweeping=True), entry.clause, entry.items)
            if entry.claim.kind is None
            else entry
            for entry in found
        ]
    if not found and all_clauses and not proposal:
        reported = _short_report(text) or _json_result(text)
        if reported is not None:
            # The whole reply is the report: every clause of it goes with the claim, and the
            # title it shows names the item ("☑️ 交水电费" is not the confirmed 周会纪要).
            title = _report_title(text) if reported.phrase == text.strip() else ""
            found.extend(
                FoundClaim(reported, clause, clause.items or ((title,) if title else ()))
                for clause in all_clauses
            )
    return found


_SEVERAL = r"(?:[2-9]|[1-9]\d+)"
_SEVERAL_DONE = re.compile(
    rf"成功\s*[:：]?\s*{_SEVERAL}\s*(?:条|个|项|次)?(?!\d)|(?<!\d){_SEVERAL}\s*(?:条|个|项)\s*(?:全部|都)?成功"
    rf"|(?<![\d/])(?P<n>{_SEVERAL})\s*/\s*(?P=n)(?![\d/])"
    rf"|(?<!\d)\b{_SEVERAL}\s+(?:succeeded|successful)\b|\bsucceeded\s*[:：]\s*{_SEVERAL}\b"
    rf"|影响(?:条目|记录|行数|的?条目)?\s*[:：]?\s*{_SEVERAL}(?!\d)"
    # "Applying the new due date to all 4 items now... done": a change to several items
    rf"|\ball\s+{_SEVERAL}\s+(?:items|todos|to-dos|notes|tasks|of\s+them)\b|全部\s*{_SEVERAL}\s*(?:条|个|项)",
    re.IGNORECASE,
)
# The whole reply a tick and a title, or a count of ticks: "✅ Renew car insurance",
# "☑️ 交水电费", "3/3 ✓", "+ oat milk ✓ (it's on your list)", "+1 条：买猫砂 ✓".
_TICK = r"[✅✔☑✓]\ufe0f?"
_SHORT_REPORT = re.compile(
    r"(?P<added>\+\s*\d*\s*(?:todos?|notes?|items?|tasks?|条|个|项)?\s*(?:待办|笔记|任务)?\s*[:：]"
    r"\s*[^\n?？]{1,60})|"
    rf"(?P<plus>\+\s*)?(?:{_TICK}\s*[^\n?？]{{1,60}}"
    rf"|[^\n?？✅✔☑✓]{{1,60}}?\s*{_TICK}\s*(?:[（(][^)）\n]{{0,40}}[)）])?[。.!！]?)"
)
# A JSON result a model prints for its own action: {"op": "create_todo", …, "ok": true}.
# (Not "type" nor a "status" of "done": a read's items carry those — {"type": "todo",
# "status": "done"} lists a todo, it reports no write.)
_JSON_ACTION = re.compile(
    r'"(?:action|op|operation|tool|event)"\s*:\s*"(?P<verb>[^"]{0,40})"', re.IGNORECASE
)
_JSON_SUCCESS = re.compile(
    r'"(?:ok|success|succeeded)"\s*:\s*true|"status"\s*:\s*"(?:success|succeeded|ok)"'
    r'|"result"\s*:\s*"(?:success|succeeded|ok|done|completed|created|updated|deleted)"',
    re.IGNORECASE,
)
_JSON_KINDS = (
    ("create", re.compile(r"creat|add|new|insert|save", re.IGNORECASE)),
    ("delete", re.compile(r"delet|remov|trash|discard", re.IGNORECASE)),
    ("status", re.compile(r"complet|status|done|check|reopen", re.IGNORECASE)),
    ("update", re.compile(r"updat|edit|renam|mov|resched|chang|set", re.IGNORECASE)),
)


_NEGATED = re.compile(r"\b(?:no|not|nothing|none|never)\b|n't|没|未|不|无", re.IGNORECASE)


def _short_report(text: str) -> Claim | None:
    """A claim when the whole reply is a tick and a title (or a count of ticks)."""
    match = _SHORT_REPORT.fullmatch(text.strip())
    if match is None or _NEGATED.search(text):
        return None  # ("No changes needed ✓", 没有逾期的待办 ✅: nothing reported done)
    kind = "create" if match.group("plus") or match.group("added") else None
    return Claim(phrase=text.strip(), kind=kind, resource_type=None, sweeping=is_sweeping(text))


def _report_title(text: str) -> str:
    """The title a short report shows: without its ticks, counts, marks and aside."""
    title = re.sub(
        r"[（(][^)）]*[)）]|[✅✔☑✓]\ufe0f?"
        r"|^\s*\+\s*\d*\s*(?:todos?|notes?|items?|tasks?|条|个|项)?\s*(?:待办|笔记|任务)?\s*[:：]?",
        "",
        text,
    )
    title = title.strip(" \t\u3000。.!！~～")
    return title if _WORD.search(title) and not re.fullmatch(r"[\d\s/]+", title) else ""


def _json_result(text: str) -> Claim | None:
    """A claim when the reply prints a JSON result of a write that succeeded."""
    for action in _JSON_ACTION.finditer(text):
        window = text[max(0, action.start() - 300) : action.end() + 300]
        if _JSON_SUCCESS.search(window):
            verb = action.group("verb")
            kind = next((kind for kind, words in _JSON_KINDS if words.search(verb)), None)
            if kind is None and re.search(r"query|search|list|read|get|find", verb, re.I):
                continue  # a read's result
            return Claim(phrase=action.group(0), kind=kind, resource_type=None)
    return None


def _waiting_line(text: str, clause: Clause) -> bool:
    """Whether the clause sits on a list line that says its card waits for confirmation."""
    row = text.rfind("\n", 0, clause.start) + 1
    end = text.find("\n", clause.start)
    line = text[row : end if end >= 0 else len(text)]
    return bool(_LIST_LINE.match(line) and _WAITING.search(line))


def _quoted_line(text: str, clause: Clause) -> bool:
    """Whether the clause sits on a markdown quote line ("> …")."""
    row = text.rfind("\n", 0, clause.start) + 1
    line = text[row : clause.end].lstrip()
    return line.startswith(">") and line[1:].lstrip()[:1] in "“\"「『‘'"


def _sentence_texts(text: str, all_clauses: list[Clause]) -> dict[int, str]:
    """The text of each sentence, from its first clause's start to its last clause's end."""
    spans: dict[int, tuple[int, int]] = {}
    for clause in all_clauses:
        start, end = spans.get(clause.sentence, (clause.start, clause.end))
        spans[clause.sentence] = (min(start, clause.start), max(end, clause.end))
    return {sentence: text[start:end] for sentence, (start, end) in spans.items()}


def _change_rows(text: str) -> set[int]:
    """Where the rows of a before/after table start (the header and its rule excluded)."""
    rows: set[int] = set()
    in_table = False
    offset = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if _CHANGE_TABLE_HEADER.match(body):
            in_table = True
        elif in_table and body.lstrip().startswith("|"):
            if not _TABLE_RULE.match(body):
                rows.add(offset)
        else:
            in_table = False
        offset += len(line)
    return rows


def _on_list_line(text: str, clause: Clause) -> bool:
    """Whether the clause sits on a list item or table row line."""
    return bool(_LIST_LINE.match(text, text.rfind("\n", 0, clause.start) + 1))


def _topic_items(
    text: str, index: int, all_clauses: list[Clause], claims_at: Callable[[int], list[Claim]]
) -> tuple[str, ...]:
    """The items the clause before clause ``index`` names when it only names them.

    "你那条「健身计划」笔记，我已经在末尾加上了…" / "That "Old notes" one — I've deleted it" /
    ""Return book" — done": the claim is about the item its sentence put first.
    """
    here = all_clauses[index]
    if index + 1 < len(all_clauses) and text[here.end : here.end + 1] in ":：":
        # "Done and dusted: 'Submit expense report' ✔️": the item the claim's colon introduces
        following = all_clauses[index + 1]
        if following.sentence == here.sentence and following.items:
            return following.items
        named = _QUOTED_ALONE.fullmatch(text[following.start : following.end].rstrip("✅✔☑️ "))
        if following.sentence == here.sentence and named:
            return (named.group(1).strip(),)
    if index == 0:
        return ()
    topic = all_clauses[index - 1]
    if topic.sentence != all_clauses[index].sentence or claims_at(index - 1):
        return ()
    if topic.items:
        return topic.items
    # A clause that is one quoted phrase reads as speech; before a claim it names the item.
    alone = _QUOTED_ALONE.fullmatch(text[topic.start : topic.end])
    return (alone.group(1).strip(),) if alone else ()


def _claims_of(clause: Clause) -> list[Claim]:
    claims = grammar_zh.find(clause)
    # A Chinese clause with claims: the English grammar would only repeat them.
    if not claims or _LATIN_WORD.search(clause.scan):
        seen = {claim.phrase.casefold() for claim in claims}
        claims.extend(
            claim for claim in grammar_en.find(clause) if claim.phrase.casefold() not in seen
        )
    return [dataclasses.replace(claim, phrase=restore(claim.phrase, clause)) for claim in claims]


def claims_completed_write(text: str) -> str | None:
    """Return the first phrase of ``text`` that claims a write happened, or None."""
    found = find_claims(text)
    return found[0].claim.phrase if found else None


def guard_reply(
    reply: str,
    *,
    backings: list[Backing] | Callable[[], list[Backing]],
    locale: str,
    focus: Backing | None = None,
    titles: tuple[str, ...] = (),
) -> GuardVerdict:
    """Return the reply to show: without any claim the receipts do not back, and marked.

    ``backings`` are this session's succeeded receipts; ``focus`` is the action a final
    reply is about (a claim naming no item refers to it); ``titles`` are the titles of the
    stored items read on this turn, which the reply may name without quotes.
    """
    found = find_claims(reply, titles=titles)
    if not found:
        return GuardVerdict(text=reply, replaced=False, matched=None)
    if callable(backings):
        backings = backings()  # loaded only when there is a claim to check
    unbacked = [
        entry
        for entry in found
        if not is_backed(
            entry.claim,
            entry.items,
            backings,
            mentioned=_mentioned(entry, backings),
            focus=focus,
            another=bool(_ANOTHER.search(entry.clause.scan)),
        )
    ]
    if not unbacked:
        return GuardVerdict(text=reply, replaced=False, matched=None)
    # The unit removed is the sentence: every clause of a sentence holding an unbacked claim
    # goes ("已经帮你创建好了「X」，今晚 9 点截止。" leaves nothing), except a clause that states
    # a backed claim ("已为你创建「X」，并且已删除其他待办。" keeps its first clause).
    spans_unbacked = {(entry.clause.start, entry.clause.end) for entry in unbacked}
    spans_backed = {
        (entry.clause.start, entry.clause.end) for entry in found if entry not in unbacked
    } - spans_unbacked
    sentences = {entry.clause.sentence for entry in unbacked}
    spans = sorted(
        (clause.start, clause.end)
        for clause in clauses(reply, titles=titles)
        if clause.sentence in sentences and (clause.start, clause.end) not in spans_backed
    )
    kept_backed = bool(spans_backed)
    language = normalize_locale(locale) or DEFAULT_LOCALE
    fixed = (PARTLY_REMOVED_TEXT if kept_backed or focus else NOT_EXECUTED_TEXT)[language]
    rest = remove_spans(reply, list(spans))
    if not kept_backed and (_short_report(rest) is not None or not _WORD.search(rest)):
        # "✔︎「买猫粮」" or "🥛✅" left beside "not executed" would still say done; a code
        # fence or a mark left alone says nothing
        rest = ""
    text = f"{rest}\n{fixed}" if rest.strip() else fixed
    phrases = tuple(entry.claim.phrase for entry in unbacked)
    return GuardVerdict(
        text=text, replaced=True, matched=phrases[0], removed=phrases, fixed_text=fixed
    )


def _mentioned(entry: FoundClaim, backings: list[Backing]) -> list[str]:
    """Receipt titles the clause names without quotes ("已删除买牛奶这条待办")."""
    if entry.items:
        return []
    scan = normalise_name(entry.clause.scan)
    return sorted(
        {name for backing in backings for name in backing.names if len(name) >= 2 and name in scan}
    )


def guarded_notice(verdict: GuardVerdict) -> dict[str, Any]:
    """Return the API notice for a reply the guard changed."""
    return {
        "capability": None,
        "status": "guarded",
        "code": GUARDED_CODE,
        "message": verdict.fixed_text or "",
    }


def notice_for_stored(text: str) -> dict[str, Any] | None:
    """Return the guarded notice for a stored reply that ends with a fixed server text."""
    for fixed in FIXED_TEXTS:
        if text.endswith(fixed):
            return {"capability": None, "status": "guarded", "code": GUARDED_CODE, "message": fixed}
    return None
