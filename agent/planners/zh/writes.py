"""Chinese write requests: each explicit write form and the create/update fields it names.

Every form needs its verb (创建/添加/记…, 删除, 完成/标记为, 改为/推迟到…, 提醒我); a form that
lacks its target, title or value becomes a clarification, never a guess. Bulk deletes are
not offered (help).
"""

from __future__ import annotations

import re
from typing import Any

from agent.planners.lexicon import (
    FIELD_DESCRIPTION,
    FIELD_DUE,
    FIELD_PRIORITY,
    FIELD_TITLE,
    HELP,
    QUOTED,
    SLOT_DUE,
    SLOT_INTENT,
    SLOT_TARGET,
    SLOT_TITLE,
    STRIP,
    Intent,
    ask,
    change_slot,
    create_intent,
    note_title_and_content,
    priority_of,
    split_tags,
    todo_change,
    unquote,
)
from agent.planners.zh.reads import OPEN
from agent.planners.zh.slots import (
    DEADLINE_SUFFIX,
    clean_title,
    is_time,
    take_priority,
    take_zh_time,
)

# --- writes ------------------------------------------------------------------------------

_CREATE = (
    r"(?:创建|新建|新增|添加|增加|加上|加个|加一个|加一条|加|记下|记录|记一下|记个|记一个|记一条|记|建"
    r"|设置|设个|设|安排|弄|开|整|搞)"
)
_MEASURE = r"(?:一下)?\s*(?:一|1|几)?\s*(?:条|个|项|件|篇|则)?"
_TODO = r"(?:待办事项|待办|代办|任务|todo|to-do|提醒|事项)"
_NOTE = r"(?:笔记|备忘录|备忘|note)"
_END = r"\s*$"
_TITLE = rf"(?P<title>{QUOTED}|.+?)"
_DONE_STATE = r"完成|已完成|做完|搞定|结束|完结|done"
_OPEN_STATE = r"未完成|没完成|待完成|未做完|没做完|进行中|重新打开|打开|未开始|待办|open"
WRITE_HEAD = re.compile(
    rf"^(?:{_CREATE}|写|删除|删掉|删了|删|移除|去掉|清除|把|将|给|完成|做完|勾掉|勾选|重新打开|重开|"
    r"修改|更改|调整|更新|改|重命名|推迟|延后|提前|标记|提醒)(?!的|过的|了的)"
)
# The head of a create request: 添加任务…, 新建一条待办…, 记个笔记…
_CREATE_REQUEST = re.compile(
    rf"^(?:{_CREATE}|写)\s*{_MEASURE}[^，,。：:]{{0,12}}?(?:{_TODO}|{_NOTE})", re.IGNORECASE
)
_KINDS = {"笔记": "note", "备忘": "note", "备忘录": "note", "note": "note"}


def _kind(word: str | None) -> str:
    return _KINDS.get((word or "").lower(), "todo")


def _ref_key(kind: str) -> str:
    return "note_title" if kind == "note" else "todo_title"


def _zh(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | re.DOTALL)


DELETE_ACCOUNT = _zh(
    r"(?:注销|删除|删掉|销毁|关闭|停用|注销掉)\s*(?:我的|这个)?\s*(?:账号|账户|帐号|帐户|用户)"
    # 把我的账号注销掉: the account named first
    r"|(?:我的|这个|把|将)\s*(?:我的|这个)?\s*(?:账号|账户|帐号|帐户)\s*(?:给我)?(?:注销|删除|删掉|销毁|停用)"
)
_DELETE_VERB = (
    r"(?:删除|删掉|删了|删(?![除掉了])|移除|去掉|清除|清掉|清空(?!了)|干掉|丢掉|扔掉|丢了|扔了)"
)
_THIS = r"(?:这条|这个|那条|那个|这篇|那篇)"
_DELETE = [
    _zh(
        rf"^(?:从\s*(?:我的)?\s*(?:清单|列表|待办)(?:列表|清单)?\s*(?:里|中|上)?\s*)?"
        rf"{_DELETE_VERB}\s*(?:一下)?\s*(?:{_THIS}|我的)?\s*(?P<kind>{_NOTE}|{_TODO})?"
        rf"\s*[：:]?\s*{_TITLE}\s*{_THIS}?\s*(?P<kind2>{_NOTE}|{_TODO})?{_END}"
    ),
    _zh(
        rf"^(?:把|将)\s*{_THIS}?\s*(?P<kind>{_NOTE}|{_TODO})?\s*{_TITLE}\s*{_THIS}?"
        rf"(?P<kind2>{_NOTE}|{_TODO})?\s*(?:都|全|全部)?(?:给我)?{_DELETE_VERB}(?:掉)?(?:吧|了)?{_END}"
    ),
    # 体检预约这条不要了，删掉吧 / 「旧笔记」删了吧: only when what comes first reads as an
    # item's name (`item_name`), not a sentence ("我会在你确认后执行删除", "好，删了")
    _zh(
        rf"^{_TITLE}\s*(?:这条|这个|那条|那个)?\s*(?P<kind>{_NOTE}|{_TODO})?\s*"
        r"(?:(?:不要了|不需要了|用不着了|没用了)\s*[，,]?\s*)?(?:帮我|给我|就|可以)?\s*"
        rf"{_DELETE_VERB}(?:掉)?(?:吧|了)?(?P<kind2>){_END}"
    ),
]
_DELETE_ITEM_FIRST = _DELETE[-1]
# "体检预约不要删": the words before the verb refuse it.
_REFUSED = re.compile(r"(?:不要|不用|不必|别|先别|不|没|不能)$")


# When a reported state came about: 周报昨天做完了, 我刚刚完成了周报 (not part of the title).
_WHEN_DONE = r"昨天|今天|前天|昨晚|今早|刚刚|刚才|早就|早上|上午|中午|下午|晚上|\s"
_STATUS_VERB = (
    r"标记为|标记成|标成|标为|标记|设为|设置为|设置成|设成|改为|改成|置为|变成|改回成?|更新为|更新成"
    r"|恢复成|恢复为|设回|变回"
)
_STATUS = [
    _zh(
        rf"^(?:把|将|让)?\s*(?:这个|这条)?\s*(?:{_TODO})?\s*(?!笔记){_TITLE}\s*(?:{_STATUS_VERB})\s*"
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
    _zh(
        rf"^我(?:{_WHEN_DONE})*(?:已经|已)?(?P<state>做完|完成|搞定|弄完|办完)了\s*(?:{_TODO})?\s*{_TITLE}{_END}"
    ),
    # 整理书架重新打开吧: the item first, then the reopening (an item's name only)
    _zh(
        rf"^(?:{_TODO})?\s*{_TITLE}\s*(?:{_TODO})?\s*(?:要|请|帮我)?\s*"
        r"(?P<state>重新打开|重开|恢复成未完成|恢复为未完成|改回未完成|设回未完成)(?:一下)?(?:吧)?"
        + _END
    ),
    _zh(
        rf"^(?:把|将)\s*(?:{_TODO})?\s*{_TITLE}\s*(?P<state>勾掉|勾选|划掉|打勾|完成|做完|搞定|重新打开|重开)(?:了)?"
        + _END
    ),
]
_FIELD = (
    r"截止时间|截止日期|到期时间|到期日|截止|期限|deadline|时间|日期|标题|名称|名字|优先级|描述|备注|说明|"
    r"内容|正文|标签"
)
# Words no item's name has but a sentence does: a person, a modal, a condition, a clause
# break, a completion mark. An item-first request names the item with none of them.
_NOT_ITEM_NAME = re.compile(
    r"[，,。：:；;！!？?~～]|我(?!的)|你|您|他|她|它|把|将(?!军)"
    r"|确认|如果|要是|的话|之后|以后|然后|才能|能不能|可以|不要|不用|取消|一并|也"
    r"|^已|已经|已被|已成功|[已被][改设标更切]|被我|被你|[已被都就了]$"
    r"|^(?:好|行|嗯|对|是|没问题|OK|ok)$"
    r"|(?:就|才|将|不|都|也)会|会(?:在|把|将|帮|给|被|自动)"
    rf"|^(?:{_FIELD})$"
)


def item_name(title: str) -> bool:
    """Whether ``title``, put before the verb of an item-first request, reads as a name.

    A quoted title is the user's own naming and always does.
    """
    if re.fullmatch(QUOTED, title.strip()):
        return True
    title = unquote(title)
    return len(title) >= 2 and not _NOT_ITEM_NAME.search(title)


_APPEND_VERB = (
    r"(?:(?:加上|加|添加|添上|追加|补充|补上|补|写上|写|记上)(?:一下)?"
    r"(?:(?:一句|一行|一条|一段|一点|几句)(?:话|内容)?(?:\s*[：:，,]\s*|\s*)|(?:话|内容)?\s*[：:，,]\s*)"
    # 再加个 Reykjavik (not 加个标签)
    r"|(?:加|添)(?:一)?个\s*(?!标签|tag))"
)
# Where in the note: 里 / 后面 / 末尾
_IN_NOTE = r"(?:的)?\s*(?:里面|里|中|上|后面|末尾|最后面?|结尾)?"
_UPDATE_VERB = (
    r"改到|改成|改为|修改为|修改成|更新为|更新成|调整到|调整为|调到|调成|推迟到|推到|延后到|延期到|延迟到|"
    r"提前到|挪到|移到|改在|换到|换成|设为|设置为|设置成|设成|定为|定在|重命名为|改名为|改名叫|命名为|"
    r"重命名成|改名成|更名为|替换为|替换成|变成|改叫|改回|调回|写上|写成"
)
# 准备周会材料改到明天上午九点 / 续签合同改成普通优先级: the item first, no 把 (only when
# it reads as a name and the value is not a report: 改成了周五)
_UPDATE_ITEM_FIRST = _zh(
    rf"^(?P<kind>{_NOTE}|{_TODO})?\s*{_TITLE}\s*{_THIS}?\s*(?P<kind2>{_NOTE}|{_TODO})?\s*(?P<field>)"
    rf"(?P<verb>{_UPDATE_VERB})\s*(?P<value>(?!了)[^，,。；;]+?){_END}"
)
# 读书笔记那条改个名 叫活着读后感: a new name, said after 改个名
_RENAME_SAID = _zh(
    rf"^(?:把|将)?\s*(?P<kind>{_NOTE}|{_TODO})?\s*{_TITLE}\s*{_THIS}?\s*(?P<kind2>{_NOTE}|{_TODO})?\s*"
    r"(?:改个名(?:字)?|换个名(?:字)?|改一下名(?:字)?|重新起个名(?:字)?)\s*[，,]?\s*(?:就|吧)?\s*"
    r"(?:叫做?|叫作|为|成)\s*(?P<value>.+?)" + _END
)
# 周报的截止时间改成周五 / 待办X的优先级调成高 / 周会笔记标题改成… (a note's kind, no 的)
_UPDATE_FIELD_OF = _zh(
    rf"^(?P<kind>{_NOTE}|{_TODO})?\s*{_TITLE}\s*(?:{_THIS}\s*(?:(?P<kind2>{_NOTE}|{_TODO})\s*的?|的)?"
    rf"|(?:(?P<kind3>{_NOTE}|{_TODO})\s*的?|的))\s*"
    rf"(?P<field>{_FIELD})\s*(?:要|请|帮我)?\s*(?:全部|全都|都|整个|统统)?\s*"
    rf"(?P<verb>{_UPDATE_VERB})\s*(?P<value>.+?){_END}"
)
_UPDATE = [
    # 把「周报」的截止时间改为明天下午 5 点 / 把周报推迟到周五 / 将任务X改成高优先级
    _zh(
        rf"^(?:把|将|给)\s*(?:这个|这条|这篇)?\s*(?P<kind>{_NOTE}|{_TODO})?\s*{_TITLE}\s*{_THIS}?\s*"
        rf"(?P<kind2>{_NOTE}|{_TODO})?\s*的?\s*(?P<field>{_FIELD})?\s*(?:也|都)?\s*"
        rf"(?P<verb>{_UPDATE_VERB})\s*(?P<value>.+?){_END}"
    ),
    # 修改待办X的截止时间为明天 / 改一下周报的优先级为高
    _zh(
        rf"^(?:修改|更改|调整|更新|改|编辑)(?:一下)?\s*(?P<kind>{_NOTE}|{_TODO})?\s*{_TITLE}\s*"
        rf"(?P<kind2>{_NOTE}|{_TODO})?\s*的\s*(?P<field>{_FIELD})\s*[，,]?\s*"
        rf"(?P<verb>为|成|到|改为|改成|改到|设为|{_UPDATE_VERB})\s*(?P<value>.+?){_END}"
    ),
    _UPDATE_FIELD_OF,
    _UPDATE_ITEM_FIRST,
    # 推迟待办X到周五 / 重命名待办X为Y
    _zh(
        rf"^(?P<verb>推迟|延后|延期|提前|改期|挪|重命名|改名)\s*(?P<kind>{_NOTE}|{_TODO})?\s*{_TITLE}\s*"
        rf"(?:到|为|成|至)\s*(?P<value>.+?){_END}"
    ),
]
# Asked without a value: 把周报的优先级改一下 / 修改待办X
# 笔记「周会」里加一句：下周改到周二 / 在「预算」笔记里补充：… : a line added at the end.
_APPEND_NOTE = [
    # 预算这个笔记里再加一句：… / 周会笔记后面补一条：… / 把「Recipes」笔记加上一行：…
    _zh(
        rf"^(?![在往给把将]){_TITLE}\s*{_THIS}?\s*{_NOTE}\s*{_IN_NOTE}\s*[，,]?\s*"
        rf"(?:内容)?\s*(?:再|也)?{_APPEND_VERB}\s*(?P<append>.+?)" + _END
    ),
    _zh(
        rf"^(?:在|往|给)?\s*(?:我的)?\s*{_NOTE}\s*(?![里中上])(?!{_APPEND_VERB}){_TITLE}\s*{_IN_NOTE}\s*{_APPEND_VERB}"
        r"\s*(?P<append>.+?)" + _END
    ),
    _zh(
        rf"^(?:在|往|给|把)\s*(?:我的)?\s*{_TITLE}\s*{_THIS}?\s*{_NOTE}\s*{_IN_NOTE}\s*(?:再|也)?"
        rf"{_APPEND_VERB}\s*(?P<append>.+?)" + _END
    ),
]
# 给预算笔记加标签：财务、2027 / Recipes 笔记打上 #美食 #家常 标签 / 给读书笔记加个标签 阅读: tags
# added to the note's own
_ADD_TAGS = [
    _zh(
        rf"^(?:给|为|在|把)?\s*(?:我的)?\s*{_TITLE}\s*{_THIS}?\s*{_NOTE}\s*(?:上|里)?\s*"
        r"(?:再|也)?(?:加上|加|添加|添上|打上|贴上|打|贴|标上)(?:一下)?(?:个|一个|几个)?\s*"
        r"(?:标签|tags?)\s*[：:，,]?\s*(?P<tags>.+?)" + _END
    ),
    _zh(
        rf"^(?:给|为|把)?\s*(?:我的)?\s*{_TITLE}\s*{_THIS}?\s*{_NOTE}\s*(?:上|里)?\s*"
        # (one bounded class for the tags, split by split_tags: a repeated group of repeated
        # characters here backtracked for minutes on a long line that was not a tag request)
        r"(?:再|也)?(?:加上|加|添加|打上|贴上|打|贴|标上)\s*(?P<tags>[^。！!？?；;：:\n]{1,80}?)\s*"
        r"(?:的|这几个|这些|两个|这个)?\s*(?:标签|tags?)" + _END
    ),
]
# 帮我给准备周会材料加个描述: the description asked for
_DESCRIBE_NO_VALUE = _zh(
    rf"^(?:给|为|在)\s*(?:{_TODO})?\s*{_TITLE}\s*(?:{_TODO})?\s*(?:里|上)?\s*"
    r"(?:加|添加|写|补充|加上)(?:一下|个|一个|一条|上)?\s*(?:描述|备注|说明)(?:吧)?" + _END
)
_UPDATE_NO_VALUE = _zh(
    rf"^(?:把|将)?\s*(?P<kind>{_NOTE}|{_TODO})?\s*{_TITLE}\s*{_THIS}?\s*(?P<kind2>{_NOTE}|{_TODO})?\s*的?\s*"
    rf"(?P<field>{_FIELD})?\s*(?:帮我|给我|要|需要|得|请)?\s*"
    rf"(?:改一下|修改一下|调整一下|更新一下|改改|修改|更改|调整|更新|编辑|改){_END}"
)
# 改下续签合同的优先级: the verb, the item and its field, no value
_UPDATE_FIELD_NO_VALUE = _zh(
    rf"^(?:修改|更改|调整|更新|编辑|改)(?:一下|下)?\s*(?:{_TODO})?\s*{_TITLE}\s*的\s*(?P<field>{_FIELD})"
    rf"(?:吧)?{_END}"
)
# 修改一下体检预约: the verb, then the item's name alone
_UPDATE_ITEM_ONLY = _zh(
    rf"^(?:修改|更改|调整|更新|编辑|改)(?:一下)?\s*(?!{_NOTE}|{_TODO})(?![到成为名掉好完了在])"
    rf"(?!.*的\s*(?:{_FIELD}))"
    rf"{_TITLE}\s*(?:吧)?{_END}"
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
    rf"^(?:把|将|给)?\s*(?P<kind>{_TODO})?\s*{_TITLE}\s*(?:{_TODO})?\s*(?:设|设为|设成|设置为|标|标为|"
    r"标成|标记为|改为|改成|调为|调成|调到|提到|提高到|降到|降低到|加|加上|打上)\s*(?:个|一个)?\s*"
    r"(?P<value>(?:最?高|低|普通|中等?|一般)\s*优先级|优先级\s*(?:最?高|低|普通|中等?)|紧急|重要|不急)"
    + _END
)

# 将体检预约的优先级调高 / 提高一下续签合同的优先级: one step from the present level.
_STEP = r"调高|提高|提升|升高|调低|降低|往上提|往上调|往下调|往下降|上调|下调|降|升"
_PRIORITY_RELATIVE = [
    _zh(
        rf"^(?:把|将)?\s*(?:{_TODO})?\s*{_TITLE}\s*(?:{_TODO})?\s*(?:这件事|这事|{_THIS})?\s*的?\s*优先级\s*"
        rf"(?P<dir>{_STEP})(?:一下|一点|一些|点|一档|一级|一格)?(?:吧)?" + _END
    ),
    _zh(
        rf"^(?P<dir>调高|提高|提升|升高|调低|降低)(?:一下)?\s*(?:{_TODO})?\s*{_TITLE}\s*(?:{_TODO})?"
        r"\s*的\s*优先级" + _END
    ),
    # 给妈妈打电话这件事提高一下优先级
    _zh(
        rf"^(?:把|将|给)?\s*{_TITLE}\s*(?:这件事|这事|{_THIS})?\s*(?:的)?\s*"
        r"(?P<dir>调高|提高|提升|升高|调低|降低)(?:一下)?(?:它的)?\s*优先级(?:吧)?" + _END
    ),
    # 续签合同没那么急了，优先级降一级吧: the item, why, then the step
    _zh(
        rf"^{_TITLE}\s*(?:这件事|这事|{_THIS})?\s*(?:没那么急了?|不那么急了?|不急了|没那么重要了?|更急了|急了)?"
        rf"\s*[，,]\s*(?:把)?(?:它的)?优先级\s*(?P<dir>{_STEP})(?:一下|一点|一档|一级|一格)?(?:吧)?"
        + _END
    ),
]
# 提交周报的截止时间去掉 / 把X的截止日期清掉 / X不用定截止时间了，把截止日期清掉: no due time
_CLEAR_DUE = [
    _zh(
        rf"^(?:把|将|给)?\s*(?:{_TODO})?\s*{_TITLE}\s*(?:{_TODO}|{_THIS})?\s*的?\s*"
        r"(?:截止时间|截止日期|到期时间|期限|deadline|截止)\s*(?:给我|帮我)?"
        r"(?:去掉|删掉|清掉|清除|取消|删除|拿掉|不要了|清空)(?:吧|了)?" + _END
    ),
    _zh(
        rf"^{_TITLE}\s*(?:{_THIS})?\s*(?:不用|不需要|不必)(?:定|设|设置|设定)?(?:截止时间|截止日期|期限|deadline)了?"
        r"(?:\s*[，,]\s*(?:把)?(?:截止时间|截止日期|期限)?\s*(?:去掉|删掉|清掉|清除|取消)(?:吧)?)?"
        + _END
    ),
]

_CREATE_NOTE = [
    _zh(
        rf"^(?:{_CREATE}|写|存|保存)\s*{_MEASURE}\s*(?:新的?)?\s*(?:空白的?|空的?)?\s*{_NOTE}\s*"
        r"(?:[：:，,—–-]\s*|\s+|(?=[「『“\"‘'《])|(?=叫|名为|标题)|$"
        # 新建个笔记记一下…: what the note is to keep follows the verb
        r"|(?:记一下|记下来|记下|记录一下|写一下|写下)\s*[：:]?\s*"
        r"|(?=[^\s，,。]+?(?:然后)?(?:内容|正文)(?:是|为|[:：])))(?P<body>.*?)\s*$"
    ),
    # 新笔记《X》：… / 新的笔记：… (not 新笔记「X」已保存, a report)
    _zh(rf"^新的?\s*{_NOTE}\s*(?:[：:—–-]\s*|(?=[「『“\"‘'《][^：:]+[：:]))(?P<body>.+?)\s*$"),
    # 建一个标题为“读书笔记2”的笔记，内容：…: the title said before the kind
    _zh(
        rf"^(?:{_CREATE}|写)\s*{_MEASURE}\s*(?P<body>(?:标题|题目|名字|名称)\s*(?:为|是|叫做?)?"
        rf"\s*(?:{QUOTED}|[^，,。的]+?)\s*)的\s*(?:新的?)?\s*{_NOTE}\s*(?:[，,；;。]\s*(?P<rest>.+?))?\s*$"
    ),
    _zh(
        rf"^(?:把|将)?\s*(?P<body>.+?)\s*(?:记到|记在|记进|存到|存进|保存到|保存为|写到|写进|加到|放到|记成|记为)"
        rf"\s*(?:我的)?\s*(?:一条|一篇)?\s*{_NOTE}\s*(?:里|中|里面)?{_END}"
    ),
    _zh(rf"^{_NOTE}\s*[：:]\s*(?P<body>.+?)\s*$"),
    # 记一笔到笔记里：标题年会节目，内容合唱和小品
    _zh(
        rf"^(?:记一笔|记|写|存)(?:一下)?\s*(?:到|进|在)\s*(?:我的)?\s*{_NOTE}\s*(?:里|中|上|里面)?"
        r"\s*[：:，,]?\s*(?P<body>.+?)\s*$"
    ),
]
# 提醒我明天下午3点开会 / 明天早上8点提醒我交报告 (with no time: asked when)
_REMIND = _zh(
    r"^(?P<before>.*?)(?:提醒我|提醒一下我|叫我|通知我|别让我忘了|别忘了提醒我)"
    # not 这条提醒我已经设置好了 (the reminder, then a report)
    r"(?!已|都|也已)\s*(?P<body>.+?)\s*$"
)
_CREATE_TODO = [
    # 记一个待办：周五前交报告 / 添加待办「提交周报」，截止今晚9点 / 新建一个高优先级任务 X
    _zh(
        rf"^{_CREATE}\s*{_MEASURE}\s*(?:新的?)?\s*(?:(?P<priority>[^\s，,：:]{{1,6}}?)的?)?\s*{_TODO}\s*"
        r"(?:[：:，,—–-]\s*|\s+|(?=[「『“\"‘'《])|(?=[^\s]))(?:就是|是)?\s*(?P<body>.+?)\s*$"
    ),
    # 帮我创建一条今晚 9 点提交周报的高优先级待办
    _zh(rf"^{_CREATE}\s*{_MEASURE}\s*(?P<body>.+?)\s*的?\s*{_TODO}{_END}"),
    # 把买牛奶加到待办 / 买牛奶加入待办清单
    _zh(
        rf"^(?:把|将)?\s*(?P<body>.+?)\s*(?:加到|加进|加入|添加到|放到|放进|记到|记入|写到|列入|列到|排进)"
        rf"\s*(?:我的)?\s*{_TODO}(?:列表|清单)?\s*(?:里|中|里面)?{_END}"
    ),
    # 在待办里加上「还信用卡」，这周五截止
    _zh(
        rf"^在\s*(?:我的)?\s*{_TODO}(?:列表|清单)?\s*(?:里|中|上)\s*{_CREATE}\s*{_MEASURE}"
        r"\s*(?P<body>.+?)\s*$"
    ),
    # 下下周一交论文，记个待办
    _zh(
        rf"^(?P<body>.+?)(?:\s*[，,]\s*|\s+)(?:帮我|请|给我)?\s*{_CREATE}\s*{_MEASURE}\s*(?:新的?)?"
        rf"\s*{_TODO}(?:吧|哈)?{_END}"
    ),
    # 待办：买牛奶 / 新建：学习日语第三课，普通优先级，明天晚上8点
    _zh(rf"^(?:新的?)?{_TODO}\s*[：:]\s*(?P<body>.+?)\s*$"),
    _zh(r"^(?:新建|新增|添加)\s*[：:]\s*(?P<body>.+?)\s*$"),
    # 加个 买鸡蛋 / 加一条高优先级的「订机票」: add, with nothing else to add to (not 加油)
    _zh(
        rf"^(?:(?:加|添)(?:一)?(?:个|条|项|件)|(?:添加|新增){_MEASURE})\s*[：:]?\s*"
        r"(?P<body>(?![^「」]*(?:笔记|备忘|描述|备注|标签|说明))(?![^「」]*(?:到|进)[^「」]*(?:里|中))"
        r".+?)\s*$"
    ),
    _REMIND,
]
_ASK_TODO = _zh(rf"^{_CREATE}\s*{_MEASURE}\s*(?:新的?)?\s*{_TODO}{_END}")
_ASK_NOTE = _zh(rf"^(?:{_CREATE}|写)\s*{_MEASURE}\s*(?:新的?)?\s*{_NOTE}{_END}")
# A todo named by a noun phrase that carries its own time: 下周一上午 10 点开会的待办.
TODO_PHRASE = _zh(rf"^(?P<body>.+?)\s*的\s*{_TODO}{_END}")
WRITE_WORDS = re.compile(
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
_RENAME_VERBS = frozenset(
    ["重命名为", "改名为", "改名叫", "命名为", "重命名", "改名", "重命名成", "改名成", "更名为"]
)
# The todo fields (a note's 内容/正文/标签 are the note's own).
_FIELDS = {
    **dict.fromkeys(["标题", "名称", "名字"], FIELD_TITLE),
    "优先级": FIELD_PRIORITY,
    **dict.fromkeys(["描述", "备注", "说明"], FIELD_DESCRIPTION),
    **dict.fromkeys(
        ["截止时间", "截止日期", "到期时间", "到期日", "截止", "期限", "时间", "日期", "deadline"],
        FIELD_DUE,
    ),
}


def _field(word: str) -> str:
    """Return the ``FIELD_*`` a field word names, or ""."""
    return _FIELDS.get(word.lower(), "")


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
    due = DEADLINE_SUFFIX.sub("", value) or value  # 周五前 -> 周五
    return todo_change(
        FIELD_TITLE if renamed else _field(field_name),
        value,
        priority=priority_of(re.sub(r"优先级", "", value) or value)
        or priority_of(value)
        or _priority_said(value),
        timed=verb in _MOVE_VERBS or is_time(due),
        due=due,
    )


def _priority_said(value: str) -> str | None:
    """高优先级 急 / 低优先级吧，不急: one priority, said once or twice, and only words that
    urge it on."""
    rest, priority = take_priority(value)
    again, second = take_priority(rest)
    if second is not None and second != priority:
        return None  # 高优先级，不急: two priorities, asked
    if re.sub(r"[急吧啊呀哈嘛的点一些\s，,。！!～~]", "", again):
        return None
    return priority


_VAGUE_ITEM = re.compile(r"(?:它|这个|那个|这条|那条|这篇|那篇|这一?项|那一?项|这件事|那件事)")


def _update(match: re.Match[str]) -> Intent:
    groups = match.groupdict()
    kind = _kind(groups.get("kind") or groups.get("kind2") or groups.get("kind3"))
    title = unquote(groups.get("title") or "")
    if _VAGUE_ITEM.fullmatch(title):
        title = ""  # 把那个推迟到周五: which one is asked
    value = groups["value"].strip().lstrip("：:，,")
    timed = re.sub(r"(?:截止|到期|为止)?(?:吧|了|呢|哈)*$", "", value)
    if timed != value and is_time(timed):
        value = timed  # 改成明天晚上八点截止吧: the time
    if kind != "note" and re.search(rf"{_NOTE}$", title):
        kind = "note"  # 把“读书笔记”重命名为…: a note's title ends with its kind
    intent = _field_args(kind, groups.get("field") or "", groups.get("verb") or "", value)
    key = "note_title" if intent.tool == "update_note" else "todo_title"
    if not title:
        return ask(intent.tool or "update_todo", SLOT_TARGET, **intent.args)
    otherwise: tuple[tuple[str, dict[str, Any]], ...] = ()
    if (
        intent.tool == "update_todo"
        and not (groups.get("kind") or groups.get("kind2") or groups.get("kind3"))
        and set(intent.args) == {"title"}
    ):
        # a rename that says neither 待办 nor 笔记: a note's, when no todo has that title
        otherwise = (("update_note", {"note_title": title, **intent.args}),)
    return Intent(intent.tool, {key: title, **intent.args}, slot=intent.slot, otherwise=otherwise)


def todo_fields(body: str, *, priority: str | None = None) -> Intent:
    """Build create_todo from a body such as "今晚 9 点提交周报，备注：第三季度的"."""
    description = None
    match = re.search(
        r"[，,；;。\s]\s*(?:备注|描述|说明|详情)\s*(?:写上?|写着|是|为)?\s*[:：]?\s*(?P<text>.+)$",
        body,
    )
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
    due_at = (DEADLINE_SUFFIX.sub("", due) or due) if due else None
    return create_intent(
        "create_todo", title, description=description, due_at=due_at, priority=priority
    )


_CALLED = r"(?:是|为|叫做?|叫作|名为|名叫)?"
# 标题叫X / 叫「菜谱」/ 名字叫'家庭开支' / title是 X: what labels a note's title
_TITLE_LABEL = (
    rf"(?:(?:标题|题目|名字|名称|title|name)\s*{_CALLED}|就叫做?|叫做?|叫作|名为|名叫|取名为?)"
)
# #美食 #家常: tags written inline
_HASHTAGS = re.compile(r"(?:(?<=\s)|(?<=^)|(?<=[，,；;。]))#(?P<tag>[^\s#，,；;。、]+)")
_NOTE_SPLIT = re.compile(r"\s*(?:——|—|–|--|：|:|，|,|；|;|\n)\s*|\s+-\s+")


def note_fields(body: str) -> Intent:
    """Build create_note from "标题 X，内容 Y" / "X — Y" / "X：Y" / "X"."""
    body = body.strip()
    tags = None
    # 标签 #travel #japan，内容：…: the tags run to the next label, else to the end
    # (a label: at the start of a clause — "笔记可以添加标签，然后…" is content, not tags)
    match = re.search(
        r"(?:^|[，,；;。\s])\s*(?:标签|tags?)\s*[:：是为]?\s*(?P<tags>.+?)"
        r"(?=[，,；;。]\s*(?:内容|正文)|$)",
        body,
    )
    if match and match.start() > 0:
        tags = split_tags(match.group("tags"))
        body = (body[: match.start()] + body[match.end() :]).strip()
    elif _HASHTAGS.search(body):
        tags = [found.group("tag") for found in _HASHTAGS.finditer(body)]
        body = _HASHTAGS.sub("", body).strip()
    whole = body
    labelled = re.match(
        rf"^{_TITLE_LABEL}\s*[:：]?\s*(?P<title>{QUOTED}|.+?)\s*(?:[，,；;。]|\s|然后|(?=内容(?:是|为|[:：])))\s*"
        r"(?:内容|正文|里面写(?:着|上)?|里面记(?:着|上)?|写着)\s*(?:是|为)?\s*[:：]?\s*(?P<content>.+)$",
        body,
        re.DOTALL,
    ) or re.match(rf"^{_TITLE_LABEL}\s*[:：]?\s*(?P<title>{QUOTED}|.+)$", body, re.DOTALL)
    content: str | None
    if labelled:
        title, content = labelled.group("title"), labelled.groupdict().get("content")
        # (not inside a quoted title, not a clock time: 标题「会议：Q3」, 标题 10:30 站会)
        parts = re.split(r"：|(?<!\d):(?!\d)", title, maxsplit=1)
        quoted = re.fullmatch(QUOTED, title.strip())
        if content is None and not quoted and len(parts) == 2 and parts[1].strip():
            title, content = parts  # 叫礼物清单：围巾、书、杯子: the title, then what it says
    elif re.match(r"^(?:内容|正文)\s*(?:是|为)?\s*[:：]?", body):
        content = re.sub(r"^(?:内容|正文)\s*(?:是|为)?\s*[:：]?\s*", "", body)
        return ask("create_note", SLOT_TITLE, content=content.strip())
    else:
        quoted = re.match(rf"^(?P<title>{QUOTED})\s*(?P<content>.*)$", body, re.DOTALL)
        if quoted:
            title, content = quoted.group("title"), quoted.group("content").lstrip(STRIP + "—–-")
        else:
            said = re.match(
                r"^(?P<title>.+?)\s*(?:然后)?(?:内容|正文)(?:是|为|[:：])\s*(?P<content>.+)$", body
            )
            parts = _NOTE_SPLIT.split(body, maxsplit=1)
            if said:
                title, content = said.group("title"), said.group("content")
            else:
                title, content = (parts[0], parts[1]) if len(parts) == 2 else (body, None)
                # 记一条笔记，wifi 密码是 abc12345: no title named, the text is what to keep
                title, content = note_title_and_content(title, content, whole)
        if content:
            content = re.sub(r"^(?:内容|正文)\s*(?:是|为)?\s*[:：]?\s*", "", content)
    title = unquote(title)
    return create_intent("create_note", title, content=(content or "").strip(), tags=tags)


# 完成报告 周五前 / 报告周五前完成: the verb of a task to finish by then, not a status report.
_FINISH_BY = re.compile(r"完成|做完|写完|弄完|搞定|结束|完结")


def _finish_by(match: re.Match[str]) -> Intent | None:
    """A status form whose item carries a time is a todo to finish by that time: asked,
    titled with its verb ("完成报告"); None when it is a status change after all."""
    state = match.group("state")
    if (
        not _FINISH_BY.fullmatch(state)
        or re.search(r"已|了|啦|没|未|不|[，,；;。！!]", match.group(0))
        or (
            match.string[: match.start("state")].strip(STRIP)
            and match.string[match.end("state") :].strip(STRIP)
        )
    ):
        return None  # 报告周五前就已经完成了, 今天到期，还没完成哦: a report
    rest, due = take_zh_time(match.group("title"))
    item = clean_title(re.sub(r"^\s*(?:把|将)", "", rest))
    if due is None or not item or not item_name(item):
        return None
    return ask("create_todo", SLOT_INTENT, title=f"{state}{item}", due_at=due)


def _status(match: re.Match[str]) -> Intent | None:
    title = re.sub(
        rf"\s*(?:这个|这条|那个|那条)?\s*(?:{_TODO})?$", "", unquote(match.group("title"))
    )
    title = unquote(title)
    if not title or re.fullmatch(
        r"(?:这个|这条|它|那个|待办|任务|了|标记|标一下|勾选|状态)", title
    ):
        state = match.group("state")  # 标记完成: the verb's own word, no item named
        opened = re.fullmatch(rf"{_OPEN_STATE}|重开|恢复|取消完成|撤销完成|取消勾选", state, re.I)
        return ask("set_todo_status", SLOT_TARGET, status="open" if opened else "done")
    if re.search(rf"^(?:所有|全部|已完成的|{OPEN})", title):
        return None
    if _CREATE_REQUEST.match(title):
        return None  # 添加任务「写总结」，12月28日前完成: a new todo to finish by then
    finish_by = _finish_by(match)
    if finish_by is not None:
        return finish_by
    if not item_name(match.group("title")):
        return None  # 已把它重新设回待办状态: a report, not a request
    title = re.sub(rf"(?<=.)(?:{_WHEN_DONE})+$", "", title)
    state = match.group("state")
    opened = re.fullmatch(rf"{_OPEN_STATE}|重开|恢复|取消完成|撤销完成|取消勾选|打开", state, re.I)
    return Intent("set_todo_status", {"todo_title": title, "status": "open" if opened else "done"})


def write_intent(text: str) -> Intent | None:
    """Return the write (or its clarification) the sentence clearly asks for, else None."""
    match = next(
        (m for m in (p.match(text) for p in _CLEAR_DUE) if m and item_name(m.group("title"))), None
    )
    if match:
        return Intent("update_todo", {"todo_title": unquote(match.group("title")), "due_at": None})
    for pattern in _DELETE:
        match = pattern.match(text)
        if match:
            title = unquote(match.group("title"))
            if pattern is _DELETE_ITEM_FIRST:
                title = re.sub(r"(?<=..)的$", "", title)  # 买菜的删了吧: "the 买菜 one"
            kind = _kind(match.group("kind") or match.group("kind2"))
            if _REFUSED.search(title):
                continue
            if pattern is _DELETE_ITEM_FIRST and not item_name(match.group("title")):
                continue
            if re.search(r"^(?:所有|全部|已完成的?|未完成的?|这些|那些)", title):
                if kind == "note" or re.search(_NOTE, title):
                    return Intent("delete_note", {})  # planned: the registry's guidance answers
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
    match = next((m for m in (p.match(text) for p in _ADD_TAGS) if m), None)
    if match and unquote(match.group("title")) and split_tags(match.group("tags")):
        return Intent(
            "update_note",
            {
                "note_title": unquote(match.group("title")),
                "add_tags": split_tags(match.group("tags")),
            },
        )
    match = next((m for m in (p.match(text) for p in _APPEND_NOTE) if m), None)
    if match and unquote(match.group("title")):
        return Intent(
            "update_note",
            {"note_title": unquote(match.group("title")), "append": match.group("append").strip()},
        )
    match = _DESCRIBE_NO_VALUE.match(text)
    if match and item_name(match.group("title")):
        return ask(
            "update_todo", change_slot(FIELD_DESCRIPTION), todo_title=unquote(match.group("title"))
        )
    match = _DESCRIBE.match(text)
    if match:
        return Intent(
            "update_todo",
            {"todo_title": unquote(match.group("title")), "description": match.group("value")},
        )
    match = next(
        (
            m
            for m in (p.match(text) for p in _PRIORITY_RELATIVE)
            if m and item_name(m.group("title"))
        ),
        None,
    )
    if match:
        up = match.group("dir") in (
            "调高",
            "提高",
            "提升",
            "升高",
            "升",
            "往上提",
            "往上调",
            "上调",
        )
        return Intent(
            "update_todo",
            {"todo_title": unquote(match.group("title")), "priority": "raise" if up else "lower"},
        )
    match = _PRIORITY_SET.match(text)
    if match and _VAGUE_ITEM.fullmatch(unquote(match.group("title"))):
        return ask("update_todo", SLOT_TARGET)  # 把那个改成高优先级: which one?
    if match and unquote(match.group("title")):
        return Intent(
            "update_todo",
            {
                "todo_title": unquote(match.group("title")),
                "priority": priority_of(re.sub(r"\s", "", match.group("value"))) or "high",
            },
        )
    match = _RENAME_SAID.match(text)
    if match and item_name(match.group("title")):
        title = unquote(match.group("title"))
        kind = _kind(match.group("kind") or match.group("kind2"))
        if kind != "note" and re.search(rf"{_NOTE}$", title):
            kind = "note"  # 读书笔记那条改个名: a note's title ends with its kind
        tool = "update_note" if kind == "note" else "update_todo"
        return Intent(tool, {_ref_key(kind): title, "title": match.group("value").strip()})
    for pattern in _UPDATE:
        match = pattern.match(text)
        said_kind = "kind3" if match and match.groupdict().get("kind3") else "kind2"
        if (
            match
            and pattern is _UPDATE_FIELD_OF
            and match.group(said_kind)
            and not re.fullmatch(_NOTE, match.group(said_kind))
            and "的" not in text[match.end(said_kind) : match.start("field")]
        ):
            continue  # 好的，提醒时间设为…: a todo's kind word needs its 的 (提醒的时间)
        if match and pattern is _UPDATE_FIELD_OF and not item_name(match.group("title") or ""):
            continue  # the item before its field must read as a name (not 好的，提醒…)
        if (
            match
            and not re.fullmatch(
                rf"\s*(?:{_DONE_STATE}|{_OPEN_STATE})(?:状态)?\s*了?", match.group("value")
            )
            and not is_time(unquote(match.group("title") or ""))  # 明天改到后天: no item named
            # 记一条关于会议的笔记：下周改到周二 asks for a note, whatever it says
            and not _CREATE_REQUEST.match(unquote(match.group("title") or ""))
            and (
                pattern is not _UPDATE_ITEM_FIRST
                or (
                    item_name(match.group("title") or "")
                    and not match.group("value").rstrip("。！!").endswith("了")  # 改成了周五
                )
            )
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
    match = _UPDATE_FIELD_NO_VALUE.match(text)
    if match and item_name(match.group("title")):
        field_name = match.group("field")
        if field_name in {"内容", "正文", "标签"}:
            return ask("update_note", change_slot(""), note_title=unquote(match.group("title")))
        return ask(
            "update_todo", change_slot(_field(field_name)), todo_title=unquote(match.group("title"))
        )
    match = _UPDATE_ITEM_ONLY.match(text)
    if match and item_name(match.group("title")) and not is_time(unquote(match.group("title"))):
        return ask("update_todo", change_slot(""), todo_title=unquote(match.group("title")))
    match = _UPDATE_NO_VALUE.match(text) or _UPDATE_HEAD_ONLY.match(text)
    if match and (match.groupdict().get("title") or "").strip():
        kind = _kind(match.groupdict().get("kind") or match.groupdict().get("kind2"))
        field_name = match.groupdict().get("field") or ""
        tool = (
            "update_note"
            if kind == "note" or field_name in {"内容", "正文", "标签"}
            else "update_todo"
        )
        named = unquote(match.group("title"))
        if len(named) < 2 or _VAGUE_ITEM.fullmatch(named):
            return ask(tool, SLOT_TARGET)  # 修改一下 / 把它改一下: which item?
        return ask(
            tool,
            change_slot(_field(field_name)),
            **{_ref_key(kind if tool == "update_note" else "todo"): named},
        )
    if _ASK_NOTE.match(text):
        return ask("create_note", SLOT_TITLE)
    for pattern in _CREATE_NOTE:
        match = pattern.match(text)
        if match:
            if re.fullmatch(r"\s*[添加记写存放收]\s*", match.group("body")):
                return ask("create_note", SLOT_TITLE)  # 添加到笔记里: the verb, not a title
            rest = match.groupdict().get("rest")
            return note_fields(match.group("body") + (f"，{rest}" if rest else ""))
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
            intent = todo_fields(body, priority=priority)
            if pattern is _REMIND and intent.slot is None and "due_at" not in intent.args:
                return ask("create_todo", SLOT_DUE, **intent.args)  # 提醒我交电费: when?
            return intent
    return None
