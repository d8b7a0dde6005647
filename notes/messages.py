from __future__ import annotations

from lightnote.i18n import define_messages

define_messages(
    {
        "NOTE_NOT_FOUND": ("笔记不存在。", "The note does not exist."),
        "NOTE_VERSION_CONFLICT": (
            "笔记已被修改（当前版本 {current_version}），请刷新后重试。",
            "The note was changed meanwhile (now version {current_version}); reload and retry.",
        ),
        "NOTE_TITLE_REQUIRED": ("笔记标题不能为空。", "A note needs a title."),
        "NOTE_TITLE_TOO_LONG": (
            "笔记标题最多 255 个字符。",
            "A note title has at most 255 characters.",
        ),
        "NOTE_CONTENT_TOO_LONG": (
            "笔记内容最多 60000 个字符。",
            "A note's content has at most 60000 characters.",
        ),
        "NOTE_TAGS_INVALID": (
            "标签最多 20 个，每个 1 到 50 个字符。",
            "At most 20 tags, each of 1 to 50 characters.",
        ),
        "NOTE_ALREADY_EXISTS": ("这条笔记已经存在。", "This note already exists."),
    }
)
