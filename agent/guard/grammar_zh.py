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
from agent.guard.text import Clause

_VERBS: dict[str, str] = {
    "delete": ("(?:扔|放|移|丢|挪)(?:进|到|入|至)了?(?:回收站|垃圾桶|废纸篓)"),
    "create": (
        # 天加 / 创见 / 修该: the homophone slips an IME makes for 添加 / 创建 / 修改
        "天加|创见|入库|落库|做成|建成|整理成|转成|转为|转换成|转换为|存成|存为|保存成|保存为|定好|定了|记入|计入|收进|纳入|列入|录进|创建|新建|新增|建立|建好|建了|生成|添加|添上|加入|加进|加到|加上(?![^，。]{0,24}(?:标签|#))|加好|加了|录入|记录|记下"
        "|记上|记好|记进|(?<![笔日])记(?:到|在)|存到|添到|添进|录到|排进|排入|排上|记了|记住|写入|写进|写上|写好|保存|存好|存下|存入|存进|存了|储存|收录|放进|放入"
        "|放到|插入|导入|安排上|安排好|安排了|开(?=了一?[条个张份]?新?的?(?:待办|笔记|任务|提醒))|新开(?=了?一?[页条个张篇份])|补(?=了一?[条个项])|补上|补进|预约|预订|订好|订了|预留|约好|登记|创立|建(?![议筑设立])|加(?=[。！!，,~～\\s]|$)"
        r"|(?<![A-Za-z])(?:add|create|save|record|log)(?:ed|d)?(?![A-Za-z])"
    ),
    "update": (
        "(?:打|贴|加)上(?=了?[^，。]{0,24}(?:标签|#))"
        "|修改|修该|更改|改成|改为|改到|改好|改了|改掉|改动|改变|更新|编辑|调整|重命名|改名|移动|移到|移至"
        "|挪到|挪了|挪好|推迟|延后|延期|提前到|改期|顺延|替换|覆盖|补充|追加|设置|设为|设成|设定|命名"
        "|更正|纠正|修正|订正|调高|调低|提高|降低|上调|下调|改高|改低|提升|提为|升为|升到|升成|降为|降到|降成"
        "|提到(?=最|更?高|更?低|紧急|第|[0-9０-９])|统一成|统一为|往后推|向后推|往前推|往后挪|往前挪"
        "|推到|推后|回退|回滚|变更"
        "|设好|设了|设上|调到|调成|换成|置为|置成|补全|补齐|重写|改写|精简|润色|缩短|扩写|删减|设回|改回|调回|调早|调晚|提早|更名|改(?![善进正天日])"
        r"|(?<![A-Za-z])(?:update|change|edit|rename|move|reschedule|push|revert|bump|postpone|shift)"
        r"(?:ed|d)?(?![A-Za-z])|(?<![A-Za-z])(?:roll\s*back|rolled\s*back|rollback)(?![A-Za-z])"
    ),
    "status": (
        "标记|标为|标成|标注|勾选|勾上|勾掉|勾完|勾好|打完勾|结项|完结|打卡|打勾|打上勾|打了勾|划掉|做完|办完|关闭|关掉|关了|重新打开"
        "|重开|完成|(?<=已)勾(?![选上掉完好])"
        r"|(?<![A-Za-z])(?:mark|complete|finish|tick|check)(?:ed|d)?(?![A-Za-z])"
    ),
    "delete_": (
        "删除|删掉|删了|删去|删好|删光|删完|移除|去掉|去除|剔除|处理掉|拿掉|拿走|移走|撤下|清空|清除|清理|清掉|抹掉|抹去|丢弃|丢掉"
        "|扔掉|作废|撤销|撤掉|撤(?=了|走|去)|挪走|挪开|取消|销毁|干掉|铲走|铲掉|铲了|删"
        # 清咗喇 (清了啦): cleared, said on its own
        r"|(?<![\u4e00-\u9fff])清(?=了[啦喇]?[\s。！!~～]*$)"
        r"|(?<![A-Za-z])(?:delete|remove|clear|erase|trash)(?:ed|d)?(?![A-Za-z])"
    ),
    OTHER: (
        "归档|存档|分享|共享|发送|发给|发到|发(?=了|出去|过去)|转发|推送|提交|同步(?!更新|修改)|上传|备份|置顶|收藏|合并|拆分|复制|导出|发布|移交"
        "|转交|迁移|加密|锁定|撤回|重做"
        r"|(?<![A-Za-z])(?:undo|undid|undone|redo|redone)(?![A-Za-z])"
        r"|(?<![A-Za-z])(?:archive|share|send|sent|submit|sync|upload|pin)(?:ed|d)?(?![A-Za-z])"
    ),
    # out of the trash: an undo of a delete (backed by a restore's receipt)
    "restore": (
        "恢复|还原|复原|捞回|找回"
        r"|(?<![A-Za-z])(?:restore|recover)(?:ed|d)?(?![A-Za-z])"
    ),
    # Verbs that say something was done without saying what: backed like 搞定.
    "any": (
        "处理|执行|落实|操作|开启|启用|做好|安排妥当|安排妥|搞(?![清懂明错笑])|弄(?![清懂明错])|(?<!待)办(?![法公])"
    ),
}
_VERB = re.compile(
    "|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _VERBS.items()), re.IGNORECASE
)

# Marks before the verb that make it an accomplished fact.
_DONE_BEFORE = re.compile(
    # (not the 已 of an attribute: 把所有已完成的任务归档)
    r"(?<!而)(?<!不得)已(?!知|读|婚|故|逾期)"
    r"(?!(?:完成|删除|创建|添加|修改|更新|标记|归档|取消|过期|读|保存)的)|被|✅|✔|☑"
    r"|\[[xX✓✔]\]|成功(?:地)?$"
    # 正在为你删除…，请稍候: a write under way (not 正在准备 / 正在等待确认)
    r"|正在(?!准备|等待|等你|确认)"
)
# Right after the verb: completion or a result complement.
_DONE_AFTER = re.compile(
    r"^(?:了|啦|喽|咯|好了|好啦|好咯|好(?=$|[\s，。！!,.~～]|的?[。！!]?$)|完了|完啦|完毕|掉了|掉啦|过了"
    r"|成功|完成(?!的)|妥|进去了|上了|进了|到了|下来了|出来了|起来了|啦|\s*[✅✔☑])"
)
# Change-of-state 了 at the end of the clause: "把它加到待办列表里了".
_CLAUSE_FINAL_LE = re.compile(
    r"(?:(?:了|啦|喽|咯|喇)+[哈呀哦嘛呢]*[\s。！!~～…✅🎉👍]*|[✅✔☑]\ufe0f?[\s。！!]*)$"
)

_NEGATION = re.compile(
    r"没有?|未|尚未|还没|并未|从未|不(?![过少错用仅但久停断同一])|不用(?:再|重复|又)|用不着|(?<![分特区告离派类识辨级差性])别(?!人)|无法|无须"
    r"|无需|未能|没能"
)
_MODAL = re.compile(
    # (not the 会 of 开会 / 周会 / 聚会…, a title's word)
    r"(?<![开例周晨聚约晚年班社机体误宴协工大舞乐展])会(?!议)|将(?=会(?!议)|要|在|于|为你|为您|帮|自动|立即|马上|把|[\u4e00-\u9fff]{0,2}(?:创建|删除|添加|修改|更新|标记|设置|完成))"
    r"|(?<![重主只需纪摘概提纲])要(?![点求是的闻素])|准备|打算|可以|可否|能否|(?<![功智可性])能(?!力)|想(?!法)"
    r"|需要|应该|应当|建议|推荐|(?<!按)计划|马上|立刻|立即为你|即将|稍后|待会|等会|随后|届时"
    r"|请|麻烦|帮我|(?<![你您])让我|我来|试着|尝试|正在准备|正准备|待确认|等待确认|点击确认"
    # 看起来这条待办可能已经不存在了: a guess, not a report
    r"|可能|也许|似乎|大概|看起来|好像"
    # 我再帮你标记完成: then, after the confirmation
    r"|再(?=帮|给|为|把|来|去)"
)
_CONDITION = re.compile(
    r"确认后|确认之后|确认以后|一旦|如果|若|假如|要是|只要|等你|待你|是否|要不要|需不需要|能不能"
    r"|可不可以|万一|以免|以防|否则"
    # 所以不能说已经改好了: the reply declines to claim it
    r"|(?:不能|不敢|没法|无法|不好)说|(?:不能|无法|没法)确(?:认|定)|不确定"
)
# 应该是改成「高」了 / 估计改好了: a hedged report of a write is still a report of it
_HEDGE = re.compile(
    r"(?:应该|估计|大概|好像|似乎|貌似|看样子|看起来|差不多)(?:是)?(?=[^会要能可想]|$)"
)
_AFTER_BLOCK = re.compile(
    r"^[^，。]*?被取消|^[^，。]*?(?:失败|不了|不掉|未成功|没成功|的话|之后|以后|之前|(?<!成功了)(?<!好了)吧|(?<!小)时(?!间))"
    # 这个操作被系统拦下了: refused, nothing done
    r"|^[^，。]*?(?:拦下|拦截|拒绝|驳回|阻止|否决)"
    # 一次删 40 条笔记太多了: how much it would be, not what was done
    r"|^[^，。]*?太(?:多|大|长|久|难|麻烦)"
    # 标记完成这种事我能做: the kind of thing, what can be done
    r"|^[^，。]*?(?:这种事|这类事|这样的事|这种操作|这类操作)"
    # 将「买邮票」标为完成（待确认）: a card's line, waiting
    r"|^[^，。\n]*?(?:待确认|等待确认|待你确认|未确认|尚未执行|未执行|未生效|待生效)"
    # 设置得太早了: how it was done, a description
    r"|^得(?!到)"
    # 红色标记是因为…: the word as a noun, what it is
    r"|^(?:就)?是(?!我|已)"
    # 被修改过 3 次: the item's history, not this turn's write
    r"|^过\s*[\d一二两三四五六七八九十几多]+\s*次"
    r"|^(?:了|好|完|成功|完成|完毕|好了)?(?:后|前)(?!面|台|天)"
    # 删除了超过 30 天的东西会自动清走: the verb describes what the sentence says will happen
    r"|^[^，。]*?的[^，。]{0,6}?(?:会|将|都会|就会)"
)
# The verb names a request, or the request is what the verb acted on.
_A_REQUEST_AFTER = re.compile(r"^(?:的)?(?:请求|申请|建议|方案|预览|草稿)")
_A_REQUEST_BEFORE = re.compile(r"(?:请求|申请)(?:已经?)?被?$")
# 这次批量删除被取消了: the deletion is what was cancelled
_AN_ACTION_BEFORE = re.compile(r"(?:删除|修改|更新|操作)(?:已经?)?被$")
# The user did it: 你/您 as the subject of the verb, with no 的 in between.
_USER_SUBJECT = re.compile(
    r"(?<![为给替帮让和跟与把将向被])(?:你|您)(?!的|们的)(?:们)?[^，。的我]{0,16}$"
)
_TO_STATUS = re.compile(
    r"^[^，。]{0,4}?(?:已完成|未完成|完成状态|完成|待办状态|进行中|done|undone)"
)
_BY_USER = re.compile(
    r"被(?:你|您)(?:自己)?[^，。我]{0,4}$|(?:你|您)[^，。我]{0,8}自己[^，。我]{0,6}$"
)
# 已被别人修改 / 在别处被修改: someone else's change, reported (a conflict), not this turn's.
_BY_OTHER = re.compile(
    r"被(?:别人|他人|其他人|其他设备|其他地方|另一|其它)"
    r"|在(?:别处|其他地方|其他设备|另一(?:个|台)?(?:设备|窗口|标签页|页面))"
)
# What stored content says: "里面记录了…", "笔记中写着…".
_CONTENT_REPORT = re.compile(r"(?:里面|上面|其中|笔记里|笔记中|内容里|内容中|原文)(?:还|也|都)?$")
_CARD_SUBJECT = re.compile(
    r"(?:确认卡|卡片|(?:这|那|上|前|旧|原|新|第[一二三\d])一?张(?:确认)?卡|原来的卡|旧卡|新卡)"
    r"[^，。]{0,6}$"
)
_CARD_OBJECT = re.compile(
    r"^(?:了|好了?)?(?:一张|一个|个|张|份|一份|一条|条)?(?:新的?)?(?:待办|笔记|任务|提醒)?的?"
    r"(?:确认卡|卡片|卡|确认|草稿|提案|提议|建议|方案|预览)"
)
# Read reports: "其中 2 条已完成", "3 个已完成", "状态：已完成".
_COUNTED = re.compile(
    r"(?:其中|共|有)?(?<![这那])[\d一二两三四五六七八九十几]+\s*(?:条|个|项|件)[^，。]{0,2}$"
)
_STATUS_LABEL = re.compile(r"(?:状态|进度|status|state)\s*$", re.IGNORECASE)
# What a delete verb removes from an item (删去了第二段, 去掉截止时间) is an edit of it.
_FIELD_OBJECT_BEFORE = re.compile(
    r"[把将][^，。]{0,8}?(?:第[一二三四五六七八九十\d]+(?:段|条|句|行|点)|截止时间|截止日期|描述|备注"
    r"|标签|优先级)[^，。]{0,2}$"
)
_FIELD_OBJECT = re.compile(
    r"^(?:了|掉了?)?(?:它的|笔记的|待办的)?(?:第[一二三四五六七八九十\d]+(?:段|条|句|行|点)|截止时间|截止日期"
    r"|到期时间|描述|备注|标签|优先级|这句|那句|一句|一段|一行)"
)
# What 处理 / 搞定 is about when it is none of the items' writes.
_NOT_AN_ITEM = re.compile(r"账号|账户|帐号|帐户|注销|导出|分享|共享|邮件|同步|备份|订阅|付款|退款")
# 目前的状态是已完成: the state as a read reports it.
_STATUS_IS = re.compile(r"(?:(?:状态|进度)(?:是|为|：|:)|当前(?:为|是))\s*已?$")

_ELLIPSIS = re.compile(
    r"^[👍👌✅✔☑️🎉\s]*(?:好的?|嗯|OK|ok|Ok|行|没问题)?[，,\s]*(?:应该|估计|大概)?(?:都|全部|已经?|全都)?"
    r"(?:(?:搞定|搞掂|弄好|办好|办妥|完事儿?|妥了|齐活|好了|好啦|完成|成了|完工|大功告成|收工)"
    r"(?:了|啦|咯|喽|哈|啰)?"
    # A bare "OK" is an acknowledgement ("OK, nothing will be changed."); "OK了" / "OK ✅"
    # report a result.
    r"|(?:OK|ok|Ok)\s*(?:[了啦咯喽]|[✅🎉👍👌]))"
    r"(?:哦|噢|呀|哟|嘛|哈|呢)?[\s！!。~～…✅🎉👍👌]*$"
)
_RESULT = [
    (re.compile(r"搞定(?!后|之后|以后|的话)"), None),
    (re.compile(r"(?:刚刚?|已经?|都)执行(?:完毕|完成|完了|完)"), None),
    # 「提交签证材料」现在是紧急: its new priority
    (re.compile(r"现在是(?:紧急|最高优先级|高优先级|低优先级|普通优先级|普通)"), "update"),
    # 新增待办一条：「…」: the report's head, a count of what was made
    (
        re.compile(
            r"^(?:新增|新建|添加|创建)(?:了)?(?:待办|笔记|任务|事项)\s*[一1]\s*(?:条|个|项)"
        ),
        "create",
    ),
    # 共处理 5 条，成功 5 条: a count of writes that succeeded
    (
        re.compile(
            r"成功\s*[1-9]\d*\s*(?:条|个|项|次)|[1-9]\d*\s*(?:条|个|项)(?:全部|都)?(?:已)?成功"
        ),
        None,
    ),
    # 「买菜」回来了 / 已回到笔记列表: out of the trash
    (
        re.compile(
            r"[」”』]\s*(?:又|已经|已|都)?(?:重新)?回来了"
            r"|(?:已经?|又|重新)回到了?(?:你的)?(?:待办|笔记|任务)?(?:列表|清单)"
        ),
        "restore",
    ),
    (
        re.compile(r"(?:撤销|撤回|重做|回滚|回退)(?:已经?)?(?:成功|完成|完毕)(?!后|的|之后|与否)"),
        OTHER,
    ),
    (re.compile(r"(?:恢复|还原)(?:已经?)?(?:成功|完成|完毕)(?!后|的|之后|与否)"), "restore"),
    (
        re.compile(
            r"(?:操作|执行|处理|提交|修改|保存|创建|删除|添加|更新)(?:已经?)?(?:成功|完成|完毕)(?!后|的|之后|与否)"
        ),
        None,
    ),
    (re.compile(r"^(?:已经?)?成功了?[！!。~～]*$|已经?生效|生效了|已办妥|已处理|已执行"), None),
    (
        re.compile(
            r"(?:已经?|现在|目前)(?:在|进了?|躺在|出现在|列在)(?:你的)?(?:待办|笔记|清单|列表|任务)"
            r"(?:列表|清单|事项)?(?:里|中|上)了?"
            r"|(?<![还仍])(?:在|进了?|躺在|出现在|列在)(?:你的)?(?:待办|笔记|清单|列表|任务)"
            r"(?:列表|清单|事项)?(?:里|中|上)了"
        ),
        "create",
    ),
    (
        re.compile(
            r"(?:待办|笔记|清单|列表|任务)(?:列表|清单)?(?:里|中|上)?(?:现在|已经)?多了"
            r"|(?:入|进)了?(?:你的)?(?:清单|列表|待办|笔记)(?:列表|清单)?(?:里|中)?了"
        ),
        "create",
    ),
    (
        re.compile(
            r"(?:清单|列表|待办|笔记|任务)(?:列表|清单)?(?:上|里|中)(?:现在|已经)?有了?"
            r"[^，。]*了[\s。！!~～]*$|现在[^，。]*(?:清单|列表|待办|笔记)(?:列表|清单)?(?:上|里|中)有"
        ),
        "create",
    ),
    (
        # 经过我刚才的整理，你的列表现在只剩 2 条: the state after what I did
        re.compile(r"经过我(?:刚才|刚刚)?的?(?:整理|处理|清理|调整|修改|更新|操作|清点)"),
        None,
    ),
    (
        re.compile(
            r"(?:待办|笔记|清单|列表|任务)(?:列表|清单)?(?:里|中|上)?(?:现在|已经)?少了"
            r"|回收站(?:里|中)?(?:又|已经|现在)?多了"
        ),
        "delete",
    ),
    (
        re.compile(
            r"(?:它|这条|那条|该|待办|笔记|任务|事项)[^，。]{0,6}"
            r"(?:没了|不见了|消失了|已经?不在了|已经?不存在了"
            r"|不在(?:你的)?(?:待办)?(?:列表|清单)?(?:里|中|上)了)"
        ),
        "delete",
    ),
    (
        re.compile(
            r"(?:现在|目前)(?:是|为|显示为?|处于|变成了?|已是)?(?:已完成|完成状态|未完成)(?!的)"
            r"|状态(?:已经?)?(?:被)?(?:改|变|更新|设置|切换)(?:为|成)|变成了?(?:已完成|未完成)"
            # 已经是完成状态: a claim unless the reply says there was nothing to do
            r"|已经是(?:已完成|完成状态|未完成)"
        ),
        "status",
    ),
    (
        # `status` → `done`: a status shown changed (not in a reply that asks for a confirmation)
        re.compile(
            r"(?:status|state|状态)`?\s*(?:→|->|=>|⇒|⟶)\s*`?(?:done|completed?|closed|open|已完成|完成"
            r"|未完成)",
            re.IGNORECASE,
        ),
        "status",
    ),
    (
        # 截止时间 12/20 → 12/22 / "deadline: Jan 9 → Jan 16": a field shown changed (not in a
        # reply that asks for a confirmation)
        re.compile(
            r"(?:截止时间|截止日期|到期时间|到期日|优先级|标题|名称|deadline|due(?:\s+date)?|priority"
            r"|title)\s*[:：]?\s*[^→\n，。;；]{1,24}?\s*(?:→|->|⟶|⇒)\s*\S",
            re.IGNORECASE,
        ),
        "update",
    ),
    (
        # 「交房租」 ⬜ → ☑️ / "Water plants" ☐ → ☑: an empty box turned into a ticked one
        re.compile(r"[⬜☐□]\ufe0f?\s*(?:→|->|=>|⇒|➡\ufe0f?|⟶)\s*(?:[☑✅✔]|\[[xX✓✔]\])"),
        "status",
    ),
    (
        # 优先级现在是「高」了: a field's new value
        re.compile(
            r"(?:优先级|截止时间|截止日期|到期日|到期时间|标题|名称|描述|内容|标签)"
            r"(?:现在|已经?)(?:是|为|变成|变为)"
        ),
        "update",
    ),
]
_FIELD_LABEL = re.compile(
    r"(?:截止时间|截止日期|到期时间|到期日|(?<![\u4e00-\u9fff])时间|优先级|标题|名称|deadline|due(?:\s+date)?"
    r"|priority|title)\s*$",
    re.IGNORECASE,
)
_FIELD_ARROW = re.compile(
    r"^(?:截止时间|截止日期|到期时间|到期日|时间|日期|优先级|标题|名称|状态)\s*[:：]?\s*(?:→|->|⟶|⇒)\s*\S"
)
_ARROW_VALUE = re.compile(r"^[^→\n]{1,24}?\s*(?:→|->|⟶|⇒)\s*\S")
_CHECK_ONLY = re.compile(r"^[\s✅✔☑️🎉👍👌]+$")


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


# 你老公今天早上已经在共享清单里把…勾掉了 / 行政小刘已经把会议室改到了3楼 / 钉钉那边已经把通知发到…:
# someone or something else did it
# (Never after 把 / 给 / 帮…: 帮你把同事聚餐加到待办 names an item, 给妈妈打电话 a title.)
_SOMEONE = re.compile(
    r"(?<![把将给为替帮])(?:(?:你|您)的?(?:老公|老婆|同事|室友|家人|领导|老板|朋友)"
    r"|(?:同事|行政|助理|领导|老板|室友)[\u4e00-\u9fff]{0,2}(?=[^，。我]{0,16}$)"
    r"|(?:钉钉|企业微信|飞书|微信|日历|Slack|Notion|Zapier|Trello)(?:那边|里面?|自己|的机器人|App)"
    r"(?=[^，。我]{0,16}$))"
)
_DATED = re.compile(r"\s*\d{1,2}月\d{1,2}日")
# 超过 30 天的内容已经被彻底清除: what happens to old items, not this turn's write
_OLDER_THAN = re.compile(
    r"(?:超过|多于)\s*[\d一二三四五六七八九十]+\s*(?:天|日|个月|周)(?:以上)?的"
)
# 已于周二 / 已在上周: a write on a day gone by is the item's history, not this turn's
_ON_A_PAST_DAY = re.compile(
    r"已(?:经)?于\s*(?:上周|上个?星期|上个?礼拜|昨天|前天|周[一二三四五六日天]|星期[一二三四五六日天]"
    r"|礼拜[一二三四五六日天]|\d+\s*月\s*\d+\s*[日号]|\d+\s*[日号])"
    r"|已(?:经)?在\s*(?:上周|上个?星期|上个?礼拜|昨天|前天)"
)
# 我把它们…改名为 / 我已把…设为: the assistant as the subject of a result it names
_I_PUT = re.compile(r"我(?:已经?|刚刚?|刚才|这就|就)?(?:帮你|给你|为你)?(?:把|将)")
_RESULT_VERB = re.compile(
    r"改名为|重命名为|命名为|改成|改为|改到|设为|设成|标记为|标为|移到|挪到|推迟到|更新为|调整为|调到"
    r"|改回|设回|调回|恢复为|恢复成"
)
# A state said as a guess, or after a failure as its reason, reports no write.
_IN_QUESTION = re.compile(
    r"(?:刚刚?|刚才|已经)(?:帮你|给你|为你)?(?P<verb>建|新建|创建|添加|加|删|删除|删掉|改|修改|移|挪|勾|标记)"
    r"(?:好|完|掉|上)?(?:了)?的"
)
_GUESS = re.compile(r"好像|看起来|看样子|似乎|可能|也许|大概|估计")
_FAILED = re.compile(r"没能|未能|失败|无法|不能|没法|没成功|未成功|被?拒绝|被?驳回|被?拦截|回滚")
_OWN_DONE_MARK = re.compile(
    r"已(?!(?:完成|删除|创建|添加|修改|更新|标记|归档|取消|过期|读|保存)的)"
)


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
