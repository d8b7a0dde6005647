"""Traditional characters and Cantonese particles, read as the Simplified the grammar knows.

A reply written in Traditional characters (已幫你新增一則備忘) or in Cantonese (已經幫你剷走咗)
makes the same claims as its Simplified, Mandarin form; the grammar's lexicon is Simplified.
Each clause's scan is translated character for character (one character for one, so every
position in the scan stays where it was); the reply shown to the user is never changed.

The table covers the characters of the guard's own lexicon and of the words around claims
(markers, particles, items, fields), from the standard Traditional/Simplified correspondence,
plus the Cantonese particles and verbs that have a one-character Mandarin counterpart
(咗 → 了 for a completed action, 嘅 → 的, 嗰 → 那, 冇 → 没, 係 → 是, 喺 → 在, 晒 → 完 "all of
it", 啲 → 些, 睇 → 看, 揀 → 选, 剷 → 铲 as in 铲走 "get rid of", 佢哋 → 他们).
"""

from __future__ import annotations

_PAIRS = (
    # verbs, markers, particles, items and fields (Traditional -> Simplified)
    "幫帮則则備备標标籤签經经換换刪删條条筆笔記记項项變变設设錄录儲储將将單单辦办處处執执據据庫库傳传檔档類类發发給给組组號号鐘钟鬧闹訂订預预約约選选劃划遷迁蓋盖齊齐補补頁页歸归寫写讀读開开"
    "關关閉闭畢毕紀纪線线緊紧優优級级狀状態态務务動动確确認认過过還还沒没無无請请這这個个們们為为後后間间時时會会點点週周報报際际與与來来並并裡里嗎吗應应該该兩两麼么樣样鍵键題题內内歷历現现"
    "實实機机體体問问價价費费購购買买賣卖專专檢检電电話话郵邮雲云隊队團团議议覽览屬属隱隐釘钉頂顶鎖锁轉转讓让從从舊旧淨净廢废棄弃銷销毀毁復复匯汇導导創创採采納纳屆届隨随憶忆憑凭戶户帳账碼码"
    "囉啰嘍喽罷罢對对於于裏里邊边爲为衝冲擊击歲岁壞坏盡尽斷断總总數数證证結结續续順顺頓顿顯显習习書书畫画聯联絡络絕绝統统網网緣缘練练織织終终義义聽听聲声臺台灣湾險险陽阳陰阴雙双雜杂離离雖虽"
    "難难靈灵韓韩須须領领頭头額额風风飛飞飯饭館馆驗验髮发鬆松魚鱼鳥鸟鹽盐麥麦黃黄齒齿龍龙龜龟"
    # Cantonese
    "咗了嘅的嗰那冇没係是喺在晒完啲些睇看揀选剷铲哋们佢他"
)
_SIMPLIFIED = str.maketrans(dict(zip(_PAIRS[0::2], _PAIRS[1::2], strict=True)))


def simplified(text: str) -> str:
    """``text`` with Traditional characters and Cantonese particles read as Simplified."""
    return text.translate(_SIMPLIFIED)
