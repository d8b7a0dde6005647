from __future__ import annotations

from lightnote.texts.i18n import define_messages

define_messages(
    {
        "NOTE_NOT_FOUND": ("笔记不存在。", "The note does not exist."),
        "NOTE_VERSION_CONFLICT": (
            "笔记已被修改（当前版本 {current_version}），请刷新后重试。",
            "The note was changed meanwhile (now version {current_version}); reload and retry.",
        ),
        "NOTE_TITLE_REQUIRED": ("笔记标题不能为空。", "A note needs a title."),
        "NOTE_TITLE_TOO_LONG": (
            "笔记标题最多 {max} 个字符。",
            "A note title has at most {max} characters.",
        ),
        "NOTE_CONTENT_TOO_LONG": (
            "笔记内容最多 {max} 个字符。",
            "A note's content has at most {max} characters.",
        ),
        "NOTE_TAGS_INVALID": (
            "标签最多 {max_tags} 个，每个 1 到 {max} 个字符。",
            "At most {max_tags} tags, each of 1 to {max} characters.",
        ),
        "NOTE_ALREADY_EXISTS": ("这条笔记已经存在。", "This note already exists."),
    }
)
