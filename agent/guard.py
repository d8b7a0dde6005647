"""The truthfulness guard: no "done" in a reply unless the server holds a success receipt.

The last line of defence (article section 13). It does not decide what the user wants or
which tool runs; it checks three things just before a reply is shown:

    the turn is action-related + the reply claims a completed write + no succeeded receipt

and, when all three hold, replaces the reply with a fixed text. When in doubt it leans to
replacing: without a receipt the fixed text is true whatever the model meant. The guard does
no I/O; the caller records the audit event from the verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lightnote.i18n import DEFAULT_LOCALE, normalize_locale

NOT_EXECUTED_TEXT = {
    "zh-CN": "该操作尚未执行：服务端没有生成可核验的确认或成功回执。",
    "en": "This operation has not been executed: the server has no verifiable confirmation or success receipt.",  # noqa: E501
}


@dataclass(frozen=True)
class GuardVerdict:
    text: str  # the reply to show (original, or the fixed replacement)
    replaced: bool
    matched: str | None  # the phrase that triggered, for the audit event


def guard_reply(
    reply: str,
    *,
    user_text: str,
    proposed_write: bool,
    has_succeeded_receipt: bool,
    locale: str,
) -> GuardVerdict:
    """Return the reply to show: the original, or the fixed text for an unbacked success claim."""
    if has_succeeded_receipt or not is_action_related(user_text, proposed_write=proposed_write):
        return GuardVerdict(text=reply, replaced=False, matched=None)
    matched = claims_completed_write(reply)
    if matched is None:
        return GuardVerdict(text=reply, replaced=False, matched=None)
    text = NOT_EXECUTED_TEXT[normalize_locale(locale) or DEFAULT_LOCALE]
    return GuardVerdict(text=text, replaced=True, matched=matched)


# --- is the turn action-related? --------------------------------------------------------

# States, not requests: "没完成的待办" asks to read the open todos.
_STATE_PHRASES = re.compile(r"[没未]有?完成|已经?完成的|完成了?的")
_CHANGE_REQUEST = re.compile(
    r"""创建|新建|新增|添加|增加|加[一个上到条]|记[一下录住]|帮我记|提醒我|备忘
      | 标记|标为|标成|勾[掉选上]|设[为成置定]|改[成为掉一]|修改|更改|更新|编辑|重命名
      | 删|移除|去掉|清空|取消|归档|安排|完成|做完|搞定
      | \b(?:create|add|make|new|mark|complete|finish|check\s+off|tick|update|change|edit
          |rename|set|delete|remove|cancel|clear|archive|move|schedule|remind|save|record
          |write|jot|note\s+down|put)\b
    """,
    re.IGNORECASE | re.VERBOSE,
)


_LOOKUP = re.compile(
    r"""哪些|哪个|哪条|什么|多少|几条|几个|有没有|怎么|如何|为什么|吗|呢|[?？]
      | 查|看|列出|列一下|显示|搜|找|最近|所有|全部|[没未]有?完成|已经?完成|总结|统计
      | \b(?:what|which|how|when|where|who|why|show|list|find|search|look|view|see|tell|any
          |open|pending|completed|recent|summari[sz]e)\b
    """,
    re.IGNORECASE | re.VERBOSE,
)


def is_action_related(user_text: str, *, proposed_write: bool) -> bool:
    """Say whether a turn may involve a write: one was proposed, or the user asks a change."""
    if proposed_write:
        return True
    if _CHANGE_REQUEST.search(_STATE_PHRASES.sub(" ", user_text)):
        # Any form of a change verb counts ("what did I add?" too): when unsure, the turn is
        # action-related, and replacing an unbacked claim is never untrue.
        return True
    # Read-only only when it reads as a lookup; "明天下午3点开会" may well mean "add this".
    return _LOOKUP.search(user_text) is None


# --- does the reply claim a completed write? --------------------------------------------

_ZH_WRITE = (
    r"(?:创建|新建|建好|添加|加上|加好|新增|增加|记录|记下|记好|保存|存好|删除|删掉|删好|移除"
    r"|更新|修改|改好|更改|标记|标为|设置|设好|安排|归档|重命名|提交)"
)
_EN_PARTICIPLE = (
    r"(?:created|added|deleted|removed|updated|marked|saved|scheduled|renamed|changed"
    r"|completed|edited|archived|recorded|moved)"
)
_EN_WRITE = rf"(?:{_EN_PARTICIPLE}|set(?:\s+up)?|put)"
_BREAKS = r"，,。.！!？?；;：:\n"
_CLAIMS = re.compile(
    rf"""
    # 已经帮你创建 / 已为您删除 / 已成功保存 / 已把…标记为完成 (not 已经创建的…)
      (?<![你您])已经?(?:成功)?(?:[帮为给替][你您]们?)?(?:成功)?(?:[把将][^{_BREAKS}]{{1,30}}?)?{_ZH_WRITE}(?!的)
    # 创建成功 / 保存完毕 / 设置好了 / 标记为完成了 (not 创建成功后…)
    | {_ZH_WRITE}(?:成功|完毕|完成|好了)(?![后之的与])  | 标[记为]为?已?完成了
    | 操作已经?(?:成功)?完成 | 已经?(?:搞定|办好|弄好) | 搞定了 | 办好了
    # I've created / I have just added / I deleted
    | \bI(?:['’]ve|\s+have)?\s+(?:(?:just|already|now|also|successfully)\s+)*{_EN_WRITE}\b
    | \b(?:went|gone)\s+ahead\s+and\s+\w+
    # has been deleted / have now been added / is now marked / was successfully saved
    | \b(?:has|have)\s+(?:(?:now|already|just|also)\s+)*been\s+(?:successfully\s+)?{_EN_WRITE}\b
    | \b(?:is|are|was|were)\s+(?:(?:now|successfully|all)\s+)+{_EN_WRITE}\b
    # successfully updated / created successfully / Done!
    | \bsuccessfully\s+{_EN_WRITE}\b | \b{_EN_WRITE}\s+successfully\b
    # Created the todo "…". / ✅ Deleted. (clause-initial; not "the note you created")
    | (?<![\w\s'’])\s*{_EN_PARTICIPLE}\b
    | ^\W*(?:all\s+)?done\s*[!.:✅]
    """,
    re.IGNORECASE | re.VERBOSE | re.MULTILINE,
)
# A claim whose clause is negated, hypothetical, or about what the user did is not a claim.
_CLAUSE_BREAK = re.compile(f"[{_BREAKS}]")
_NOT_A_CLAIM_BEFORE = re.compile(
    r"""没|未|不能|不会|无法|并非|失败|将|会[帮为把给在]|我会|可以|能够|如果|若|确认后|是否|要不要
      | \b(?:not|never|unable|failed|cannot|nothing|no|will|would|can|could|shall|should
          |may|might|if|once|after|before|until|want|wants|like)\b | n['’]t\b
      | ^\s*[你您](?!的)
    """,
    re.IGNORECASE | re.VERBOSE,
)


def claims_completed_write(reply: str) -> str | None:
    """Return the first phrase of ``reply`` that claims a completed write, or None."""
    for match in _CLAIMS.finditer(reply):
        clause_start = max(
            (found.end() for found in _CLAUSE_BREAK.finditer(reply, 0, match.start())), default=0
        )
        if not _NOT_A_CLAIM_BEFORE.search(reply[clause_start : match.start()]):
            return match.group(0).strip()
    return None
