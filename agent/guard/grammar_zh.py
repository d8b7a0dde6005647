"""The Chinese claim grammar: a write verb + a completion mark, result states, ellipses.

    claim   := [已 | 已经 | 被 | 成功 | ✅] … VERB        (已帮你把「X」移到周五, 已被删除)
             | VERB [了 | 啦 | 好了 | 完了 | 掉了 | 成功 | 完毕 | 好]   (删掉了, 创建好啦)
             | … VERB … 了                               (把它加到待办列表里了)
             | RESULT-STATE | ELLIPSIS                   (操作成功, 已生效, 搞定, 好了！)
    blocked := NEGATION | MODAL/FUTURE | CONDITION before the verb (没有/还未/会/将/确认后/如果)
             | 失败 / 后 / 的话 / 吧 after it | 的 right after it (已完成的待办)
             | the user as subject (你上周创建了…) | a card as object (已为你生成确认卡)
             | the item's history (被修改过 3 次) or someone else's change (已被别人修改)
             | a state as a read reports it
               (目前的状态是已完成)
    After 好了 / 搞定 in the same sentence a bare verb reports what was done (好了，截止改成后天).

Verbs are a lexicon by kind (create / update / status / delete / other); Latin verbs are
accepted between Chinese marks too ("已经 delete 了").
"""

from __future__ import annotations

import re

from agent.guard.claims import OTHER, Claim, is_sweeping, resource_type_of
from agent.guard.forms import load
from agent.guard.text import Clause

FORMS = load("zh")
_VERBS: dict[str, str] = FORMS.table("verb")
_VERB = re.compile(
    "|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _VERBS.items()), re.IGNORECASE
)

_DONE_BEFORE = FORMS.frame("DONE_BEFORE")
_DONE_AFTER = FORMS.frame("DONE_AFTER")
_CLAUSE_FINAL_LE = FORMS.frame("CLAUSE_FINAL_LE")

_NEGATION = FORMS.frame("NEGATION")
_MODAL = FORMS.frame("MODAL")
_CONDITION = FORMS.frame("CONDITION")
_HEDGE = FORMS.frame("HEDGE")
_AFTER_BLOCK = FORMS.frame("AFTER_BLOCK")
_A_REQUEST_AFTER = FORMS.frame("A_REQUEST_AFTER")
_A_REQUEST_BEFORE = FORMS.frame("A_REQUEST_BEFORE")
_AN_ACTION_BEFORE = FORMS.frame("AN_ACTION_BEFORE")
_USER_SUBJECT = FORMS.frame("USER_SUBJECT")
_TO_STATUS = FORMS.frame("TO_STATUS")
_BY_USER = FORMS.frame("BY_USER")
_BY_OTHER = FORMS.frame("BY_OTHER")
_CONTENT_REPORT = FORMS.frame("CONTENT_REPORT")
_CARD_SUBJECT = FORMS.frame("CARD_SUBJECT")
_CARD_OBJECT = FORMS.frame("CARD_OBJECT")
_COUNTED = FORMS.frame("COUNTED")
_STATUS_LABEL = FORMS.frame("STATUS_LABEL")
_FIELD_OBJECT_BEFORE = FORMS.frame("FIELD_OBJECT_BEFORE")
_FIELD_OBJECT = FORMS.frame("FIELD_OBJECT")
_NOT_AN_ITEM = FORMS.frame("NOT_AN_ITEM")
_STATUS_IS = FORMS.frame("STATUS_IS")

_ELLIPSIS = FORMS.frame("ELLIPSIS")
_RESULT = FORMS.states("state")
_FIELD_LABEL = FORMS.frame("FIELD_LABEL")
_FIELD_ARROW = FORMS.frame("FIELD_ARROW")
_ARROW_VALUE = FORMS.frame("ARROW_VALUE")
_CHECK_ONLY = FORMS.frame("CHECK_ONLY")


def find(clause: Clause) -> list[Claim]:
    """Return the claims of one clause read as Chinese (Latin verbs between zh marks too)."""
    scan = clause.scan
    if clause.question and scan:
        # 要不要给刚建好的「搬家清单」加个截止日期？: a write said inside a question
        return [
            _claim(scan, match.group(0), verb_kind(match.group("verb")))
            for match in _IN_QUESTION.finditer(scan)
        ]
    if not scan:
        return []
    if _DATED.match(scan) or _DATED.fullmatch(clause.label.strip()):
        return []  # 4月14日又重新打开了: an item's history, dated
    found: list[Claim] = []
    if (_CHECK_ONLY.match(scan) or _ELLIPSIS.match(scan)) and not _STATUS_LABEL.search(
        clause.label
    ):
        # 已完成 / 完成了 on their own say a status changed; 搞定 / 好了 say nothing of what.
        said = "status" if re.search(r"已经?完成|完成了", scan) else None
        return [_claim(scan, scan.strip(), said)]
    if _FIELD_ARROW.match(scan):
        # 「读书会」：时间 → 周六 14:00 ✔: the field named, then its new value
        found.append(_claim(scan, scan.strip(), "update"))
    elif _FIELD_LABEL.search(clause.label) and _ARROW_VALUE.match(scan):
        # "deadline: Jan 9 → Jan 16" / 截止时间：12/20 → 12/22: the field's value shown changed
        found.append(_claim(scan, scan.strip(), "update"))
    for pattern, state_kind in _RESULT:
        match = pattern.search(scan)
        if match and not _blocked_before(scan[: match.start()]):
            if _GUESS.search(scan[: match.end()]) or _FAILED.search(clause.label):
                continue  # 没能改成功：这条待办好像已经不存在了: a failure's reason, a guess
            # 删除操作执行完毕 / 批量删除结果：成功 4: the operation or the label names the write
            operation = re.search(r"([\u4e00-\u9fff]{2})操作[^，。]{0,4}$", scan[: match.start()])
            named = _VERB.fullmatch(operation.group(1)) if operation else _VERB.search(clause.label)
            if state_kind is None and named:
                # 批量删除结果：成功 4: the label says which write succeeded
                state_kind = verb_kind(named.group(0))
            found.append(_claim(scan, match.group(0), state_kind))
    covered = -1  # a verb inside the phrase of the last claim belongs to it (标为完成)
    # "好了，截止改成后天中午": after 好了 / 搞定 the bare verb reports what was done.
    after_done = bool(_ELLIPSIS.match(clause.label)) and not _STATUS_LABEL.search(clause.label)
    for match in _VERB.finditer(scan):
        if match.start() < covered:
            continue
        group = (match.lastgroup or OTHER).rstrip("_")
        kind = None if group == "any" else group
        verb = match.group(0)
        before, after = scan[: match.start()], scan[match.end() :]
        if _Latin(verb) and not re.search(r"[\u4e00-\u9fff]", before + after):
            continue  # an English sentence: the English grammar reads it
        if _Latin(verb):
            after = after.lstrip()  # "push 到了 Friday": the marks after the word's space
        if not (after_done or _completed(verb, before, after, scan)):
            continue
        if _blocked_before(before) or _AFTER_BLOCK.search(after) or _CARD_OBJECT.match(after):
            continue
        if (
            _A_REQUEST_AFTER.match(after)
            or (kind == "delete" and _A_REQUEST_BEFORE.search(before))
            or (verb == "取消" and _AN_ACTION_BEFORE.search(before))
        ):
            continue  # 删除请求已准备好 / 改期请求已被取消: a request, not the item's write
        if _attributive(before, after) or _USER_SUBJECT.search(before):
            continue
        if _ON_A_PAST_DAY.search(before) or _OLDER_THAN.search(before) or _SOMEONE.search(before):
            continue  # 「寄合约」已于周二标记为完成: when it happened, its history
        reported = _CONTENT_REPORT.search(before) and verb[0] in "记写"
        if _CARD_SUBJECT.search(before):
            continue  # 刚才那张确认卡已经作废: the card, not the user's data
        if (
            _BY_USER.search(before)
            or _BY_OTHER.search(before)
            or reported
            or _HEDGE.sub("", before).endswith("是")
        ):
            continue  # 被你删除了 / 里面记录了… / 已经是完成状态
        if re.search(r"被[^，。]{0,6}$", before) and after.startswith("过"):
            continue  # 又被修改过: the item's history
        if kind == "status" and verb == "完成" and re.search(r"(?:未|没有?|尚未|还没有?)$", before):
            continue  # 目前是未完成状态: a state read, not a change
        if _FAILED.search(clause.label):
            continue  # 暂时不能撤销：这条待办已经被永久删除了: a failure's reason
        if kind == "status" and (
            # 其中 2 条已完成 reports states; 三条都勾完了 reports ticks
            (_COUNTED.search(before) and verb in ("完成", "做完", "办完"))
            # (进度：5/5 已标记完成: a count of marks made)
            or (_STATUS_LABEL.search(clause.label) and not re.search(r"\d+\s*/\s*\d+", scan))
            or _STATUS_IS.search(before)
        ):
            continue
        end = match.end() + (len(m.group(0)) if (m := _DONE_AFTER.match(after)) else 0)
        covered = end
        if (
            kind in ("update", "restore", None, OTHER)
            and _TO_STATUS.match(after)
            and not after.startswith(("完成", "完毕"))  # 重命名完成: the rename is done
        ):
            kind = "status"  # 设为已完成 / 改成未完成 / 恢复为未完成
        elif kind == "delete" and _FIELD_OBJECT.search(scan[match.end() : match.end() + 12]):
            kind = "update"  # 删去了第二段 / 去掉了截止时间: an edit of the item
        elif (
            kind == "update"
            and "提醒" in before
            and verb.startswith("设")
            and not re.search(r"时间|日期", before)
            and not re.match(r"^(?:为|成(?!功)|到)", after)
        ):
            kind = "create"  # 提醒已设好 / 提醒设置成功 (not 提醒时间设为…)
        elif kind == "delete" and _FIELD_OBJECT_BEFORE.search(before):
            kind = "update"  # 把笔记第二条删掉
        elif kind is None and _NOT_AN_ITEM.search(scan):
            kind = OTHER  # 账号注销申请已处理: no tool's write
        elif kind == "create" and re.search(r"归档|存档|回收站|垃圾桶", scan[match.end() :]):
            kind = (
                OTHER if re.search(r"归档|存档", scan[match.end() :]) else "delete"
            )  # 收进了归档区
        elif kind == "create" and re.search(r"标签|\btags?\b", scan, re.IGNORECASE):
            kind = "update"  # tag 加上了: tags put on an item
        found.append(_claim(scan, scan[_phrase_start(before) : end].strip(), kind))
    return found


def verb_kind(verb: str) -> str | None:
    """The kind of write a verb of the lexicon names (None: not a write verb, or 搞定-like)."""
    match = _VERB.match(verb)
    kind = (match.lastgroup or OTHER).rstrip("_") if match else "any"
    return None if kind == "any" else kind


def _Latin(verb: str) -> bool:
    return verb.isascii()


def _completed(verb: str, before: str, after: str, scan: str) -> bool:
    if "了" in verb:
        return True
    if verb in ("改为", "改成", "调整为", "变为") and re.search(r"由\s*\S[^，。]{0,20}$", before):
        return True  # 截止时间由 1月10日 改为 1月15日: a change, from and to
    if _I_PUT.search(before) and _RESULT_VERB.match(verb + after) and after.strip(" 。！!为成到"):
        return True  # 为了区分，我把它们分别改名为「跟进-甲方」…: what I did, said without 了
    if re.match(r"^的[\s。！!~～]*$", after) and re.search(r"我|助手|刚", before):
        return True  # 是我刚刚创建的
    if _DONE_BEFORE.search(before) or _DONE_AFTER.match(after):
        return True
    if re.search(r"成功(?:地)?\s*$", before):
        return True
    return bool(_CLAUSE_FINAL_LE.search(after))


def _blocked_before(before: str) -> bool:
    """Negation or a modal since the last 已 (or anywhere without one); a condition anywhere."""
    if _CONDITION.search(before):
        return True
    marks = [m.start() for m in _OWN_DONE_MARK.finditer(before)]
    tail = _HEDGE.sub("", before[marks[-1] + 1 :] if marks else before)
    return bool(_NEGATION.search(tail) or _MODAL.search(tail))


_SOMEONE = FORMS.frame("SOMEONE")
_DATED = FORMS.frame("DATED")
_OLDER_THAN = FORMS.frame("OLDER_THAN")
_ON_A_PAST_DAY = FORMS.frame("ON_A_PAST_DAY")
_I_PUT = FORMS.frame("I_PUT")
_RESULT_VERB = FORMS.frame("RESULT_VERB")
_IN_QUESTION = FORMS.frame("IN_QUESTION")
_GUESS = FORMS.frame("GUESS")
_FAILED = FORMS.frame("FAILED")
_OWN_DONE_MARK = FORMS.frame("OWN_DONE_MARK")


def _attributive(before: str, after: str) -> bool:
    """已完成的待办 / 你上周创建的笔记: a description, unless it is 是我刚刚创建的 (a claim)."""
    if re.search(r"(?:的|所有|全部|这些|那些)已经?$", before) and re.match(
        r"^(?:笔记|待办|任务|事项|条目|项目|清单)", after
    ):
        return True  # 你的已归档笔记: 已 + verb names a kind of item (not 已删除待办「X」)
    tail = re.match(r"^(?:了|好|过|掉)?的", after)
    if not tail:
        return False
    rest = after[tail.end() :].strip(" 。！!~～…")
    if rest:
        return True  # a noun follows: 创建的待办
    return not re.search(r"我|助手|刚|已经?", before)


def _phrase_start(before: str) -> int:
    for mark in ("已经", "已", "被", "成功"):
        index = before.rfind(mark)
        if index >= 0 and len(before) - index <= 24:
            return index
    return len(before)


def _claim(scan: str, phrase: str, kind: str | None) -> Claim:
    return Claim(
        phrase=phrase or scan,
        kind=kind,
        resource_type=resource_type_of(scan),
        sweeping=is_sweeping(scan),
    )
