"""Words people use for a todo's priority and status, in Chinese and English.

One list feeds both readers of user words: the tools' normalisers (a model or a user sends
``"priority": "高"``) and the offline planner's grammar (``"高优先级"`` as a follow-up
answer). Values are the canonical names; the todo tools map a name to its stored level.
Keys are lower-case and trimmed; compare ``" ".join(word.lower().split())``.
"""

from __future__ import annotations

PRIORITY_HIGH = "high"
PRIORITY_NORMAL = "normal"
PRIORITY_LOW = "low"
PRIORITY_NAMES = (PRIORITY_LOW, PRIORITY_NORMAL, PRIORITY_HIGH)  # in level order 0, 1, 2

PRIORITY_WORDS: dict[str, str] = {
    **dict.fromkeys(
        ("high", "urgent", "important", "highest", "critical", "top", "p0", "p1"), PRIORITY_HIGH
    ),
    **dict.fromkeys(
        ("高", "紧急", "重要", "急", "很急", "高优先级", "优先级高", "最高", "高优", "最高优先级"),
        PRIORITY_HIGH,
    ),
    **dict.fromkeys(
        ("normal", "medium", "default", "mid", "moderate", "regular", "p2"), PRIORITY_NORMAL
    ),
    **dict.fromkeys(
        ("普通", "中", "一般", "中等", "正常", "中优先级", "优先级中", "普通优先级", "中等优先级"),
        PRIORITY_NORMAL,
    ),
    **dict.fromkeys(
        ("low", "minor", "lowest", "trivial", "p3", "p4", "not urgent", "unimportant"), PRIORITY_LOW
    ),
    **dict.fromkeys(
        ("低", "不急", "不重要", "低优先级", "优先级低", "最低", "不紧急", "低优"), PRIORITY_LOW
    ),
}

# "提高优先级" / "raise the priority": one step from the present priority (an edit only).
PRIORITY_RAISE = "raise"
PRIORITY_LOWER = "lower"
PRIORITY_STEP_WORDS: dict[str, str] = {
    **dict.fromkeys(
        ("raise", "higher", "up", "increase", "bump up", "提高", "调高", "提升", "升高", "往上调"),
        PRIORITY_RAISE,
    ),
    **dict.fromkeys(
        ("lower", "down", "decrease", "reduce", "降低", "调低", "降", "往下调"), PRIORITY_LOWER
    ),
}

STATUS_DONE = "done"
STATUS_OPEN = "open"

STATUS_WORDS: dict[str, str] = {
    **dict.fromkeys(
        ("done", "finished", "finish", "complete", "completed", "closed", "resolved", "true"),
        STATUS_DONE,
    ),
    **dict.fromkeys(
        ("完成", "已完成", "做完", "做完了", "完成了", "已做完", "搞定", "结束"), STATUS_DONE
    ),
    **dict.fromkeys(
        ("open", "reopen", "reopened", "todo", "pending", "undone", "not done", "false"),
        STATUS_OPEN,
    ),
    **dict.fromkeys(
        ("incomplete", "未完成", "没完成", "待办", "进行中", "重新打开", "打开", "未做"),
        STATUS_OPEN,
    ),
}


def priority_name(word: str) -> str | None:
    """Return the canonical priority a word names ("高", "High priority"), or None."""
    key = " ".join(word.strip().lower().split())
    if key in PRIORITY_WORDS:
        return PRIORITY_WORDS[key]
    for suffix in (" priority", "-priority", "priority", "优先级"):
        if key.endswith(suffix) and key[: -len(suffix)].strip() in PRIORITY_WORDS:
            return PRIORITY_WORDS[key[: -len(suffix)].strip()]
    return None


def status_name(word: str) -> str | None:
    """Return the canonical status a word names ("已完成", "not done"), or None."""
    return STATUS_WORDS.get(" ".join(word.strip().lower().split()))
