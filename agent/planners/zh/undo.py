"""Taking back the change just made, asked in Chinese: 撤销 / 撤销刚才的操作 / 刚才删错了，恢复一下.

:func:`undo_request` says whether a message asks to undo the conversation's last change. It
names no item of its own (恢复买菜 restores the todo 买菜; 撤销那个订单 is a title): what it
takes back is only pointed at — 刚才的操作, 上一步, 刚删的那条, 那个, 截止时间 — or left
unsaid. A request not to (不用撤销), a question about undoing (怎么撤销), and a request that
merely contains the word (提醒我明天撤销订单) are not. Which card it takes back is the
caller's (``agent.cards.undo``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.planners.lexicon import STRIP, undo_of_clauses
from agent.planners.zh.slots import strip_polite

# 撤销 撤回 还原 恢复 回滚 改回来 找回来 …
_VERB = (
    r"(?:撤销|撤消|撤回|撤掉|撤了|还原|复原|回滚|回退|恢复"
    r"|(?:找|加|放|拿|改|弄|变|换|调|设|标|退)回(?:来|去)?|取消掉?|undo|ctrl\s*\+?\s*z)"
)
_AFTER_VERB = r"(?:一下|下|掉|了|回来|过来|吧|好吗|可以吗|行吗|吗|呗|哈|啊|呀|嘛|哦|么)*"
# What the change was, as the user says it: 刚才删除的 / 刚刚标记完成的 / 刚加的
_DONE_VERB = (
    r"(?:删除|删掉|删了|删|标记(?:为|成)?完成|标完成|标错|勾掉|勾选|勾|完成|改|修改|改动|更改|添加|加|新建|新增"
    r"|创建|建|记|写|移动|推迟|提前|调整|标记|设置|设|操作|做|弄|点|确认)"
)
_JUST = r"(?:刚才|刚刚|刚|方才|上一步|上一次|上次|最后一次|最近一次|之前那次|前面)"
_FIELD = r"(?:截止时间|截止日期|到期时间|时间|日期|状态|标题|名字|名称|优先级|内容)"
_THING = (
    rf"(?:操作|修改|改动|更改|变更|删除|动作|一步|一下|那步|步骤|事|待办|任务|笔记|记录|条目|项目"
    rf"|东西|结果|确认|勾选|打勾|完成状态|{_FIELD})"
)
_THAT = (
    r"(?:那个|这个|那条|这条|那一条|这一条|那一步|这一步|那次|这次|那一下|那张|这张|那则|这则|那篇|这篇"
    r"|那项|这项|那件|这件|它)"
)
# 刚才的操作 / 刚删的那条 / 刚才标记完成的待办 / 上一步 / 那个 / 刚才的删除操作 / 截止时间
_POINTED = (
    rf"(?:{_JUST}(?:我|你)?(?:{_DONE_VERB}(?:掉|了)?的?)?(?:的)?{_THAT}?(?:{_THING}的?){{0,3}}"
    rf"|{_THAT}(?:{_THING}的?){{0,3}}|(?:这个|那个)?(?:操作|修改|改动|删除)|{_FIELD})"
)
# 恢复成原来的 / 改回之前的时间 / 回退到修改之前: the state before the change
_BEFORE = (
    r"(?:成|为|到)?(?:原来|原本|之前|以前|原先|先前|修改前|修改之前|改之前|改动前|刚才|原样|原状)(?:那样|的样子|的|那个)?"
    rf"(?:{_FIELD}|样子|状态|设置)?"
)
# 还能 / 能不能 between what and the verb (刚删的那条还能找回来吗)
_CAN = r"(?:还能|能不能|能|可以|可不可以)?"
_ADDED = r"(?:新建|新增|添加|加|创建|建|记|写)"
_OOPS = (
    r"(?:哎呀|哎哟|哎|诶|欸|唉|啊|呃|额|嗯|糟了|糟糕|完了|坏了|天哪|算了|oops|sorry|抱歉|不好意思"
    r"|等等|等一下|不对|错了|不要了)"
)
_UNDO = re.compile(
    rf"^(?:{_OOPS}[，,\s]*)*(?:还是|赶紧|快|马上|立刻|麻烦|请|帮我|给我|帮忙|你|能|能不能|可以|可不可以)*"
    r"(?:"
    # 撤销 / 撤销刚才的操作 / 恢复刚删的那条 / 撤回撤回 / 恢复成原来的
    rf"(?:{_VERB}{_AFTER_VERB})+(?:{_POINTED})?(?:{_BEFORE})?"
    # 把刚才的操作撤销 / 把刚删的那个恢复一下 / 刚才那个撤回吧 / 把截止时间恢复成之前的
    rf"|(?:把|将)?{_POINTED}{_CAN}(?:给|帮我|再|都)?{_VERB}(?:{_BEFORE})?"
    # 把刚才新建的那条去掉: what was just added, taken away again
    rf"|(?:把|将)?{_JUST}(?:我|你)?{_ADDED}(?:掉|了)?的?{_THAT}?(?:{_THING}的?){{0,2}}{_CAN}"
    r"(?:给|帮我|再)?(?:删掉|去掉|删除|删了|删|去了|拿掉|撤掉)"
    r")"
    rf"{_AFTER_VERB}(?:谢谢|多谢|谢啦|thx|thanks)?$",
    re.IGNORECASE,
)
# 改回未完成 / 把它恢复成未完成状态 / 改回已完成: a status change taken back, by its state
_BACK_TO_STATE = re.compile(
    rf"^(?:{_OOPS}[，,\s]*)*(?:还是|麻烦|请|帮我|给我|你)*(?:把|将)?(?:{_POINTED})?{_CAN}"
    r"(?:改回|恢复|恢复成|恢复为|还原成|还原为|变回|设回|标回|调回|重新标记?为?|重新改成)(?:成|为|到)?"
    r"(?P<state>未完成|没完成|未做|待办|进行中|已完成|完成)(?:的)?(?:状态)?"
    rf"{_AFTER_VERB}$"
)
# 不用撤销 / 别撤回 / 先不要恢复: a request not to
_NOT = re.compile(
    r"(?:不用|不要|别|不必|无需|不需要|没必要|先不|不想|甭)(?:再|给我)?(?:帮我)?"
    r"(?:撤|还原|恢复|回滚|取消|改回|找回)"
)
# 刚刚误删了 / 我点错了 / 手滑: what went wrong, said beside the request (no request itself)
_MISTAKE = re.compile(r"误删|误操作|误点|误触|手滑|手抖|[删改加建标点按写记弄搞选]错|错了")
# A word every form above has: most messages are no undo, and this says so in microseconds.
_MAY_ASK = re.compile(
    r"撤|还原|复原|回滚|回退|恢复|回|取消|重新|刚|方才|上一|上次|最后一次|最近一次|前面|undo|ctrl",
    re.IGNORECASE,
)
_ONLY_OOPS = re.compile(rf"(?:{_OOPS}[，,\s]*)+")
# Clauses: commas, stops and spaces between them (撤回吧 我点错了)
_CLAUSE = re.compile(r"[，,。！!？?；;…~～\s]+")


def undo_request(text: str, *, asks_nothing: Callable[[str], bool]) -> str | None:
    """What taking back the last change ``text`` asks for, or None (it asks no undo):
    ``lexicon.undo_of_clauses`` over its clauses (``""`` any change, ``"open"`` / ``"done"``
    a status said back: 改回未完成)."""
    body = text.strip()
    if not body or not _MAY_ASK.search(body) or _NOT.search(body):
        return None
    clauses = filter(None, (part.strip(STRIP) for part in _CLAUSE.split(body)))
    return undo_of_clauses(clauses, said=_said, went_wrong=_went_wrong, asks_nothing=asks_nothing)


def _went_wrong(clause: str) -> bool:
    return bool(_MISTAKE.search(clause) or _ONLY_OOPS.fullmatch(clause))


def _said(clause: str) -> str | None:
    for form in (clause, strip_polite(clause)):
        if _UNDO.match(form):
            return ""
        state = _BACK_TO_STATE.match(form)
        if state:
            return "done" if state.group("state") in ("已完成", "完成") else "open"
    return None
