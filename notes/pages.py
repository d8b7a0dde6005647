"""The note pages: ``/notes/`` (search, tag filter, paging, a create form) and
``/notes/<id>/`` (edit, delete). Every write goes through ``notes.services`` with the version
the page was rendered at, exactly as the API's PATCH does.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from lightnote.audit import CHANNEL_PAGE
from lightnote.errors import LightNoteError
from lightnote.pages.items import ItemPages, PageViewer, form_text, form_version
from lightnote.texts.i18n import define_messages
from lightnote.texts.page_texts import define_page_texts
from notes import selectors, services
from notes.models import Note

PAGE_TEXTS = define_page_texts(
    {
        "PAGE_NOTES_HEADING": ("我的笔记", "My notes"),
        "PAGE_NOTES_EMPTY": (
            "还没有笔记。在上面写一条，或在对话里让助手帮你记下来。",
            "No notes yet. Write one above, or ask the assistant in the chat.",
        ),
        "PAGE_NOTES_EMPTY_FILTERED": ("没有符合条件的笔记。", "No note matches these filters."),
        "PAGE_NOTE_NEW": ("新建笔记", "New note"),
        "PAGE_NOTE_TITLE": ("标题", "Title"),
        "PAGE_NOTE_CONTENT": ("内容", "Content"),
        "PAGE_NOTE_TAGS": ("标签（用逗号分隔）", "Tags (comma-separated)"),
        "PAGE_NOTE_TAG": ("标签", "Tag"),
        "PAGE_NOTE_ADD": ("保存笔记", "Save note"),
        "PAGE_NOTE_SAVE": ("保存修改", "Save changes"),
        "PAGE_NOTE_DELETE": ("删除", "Delete"),
        "PAGE_NOTE_DELETE_CONFIRM": (
            "确定删除这条笔记吗？此操作会立即生效。",
            "Delete this note? This takes effect at once.",
        ),
        "PAGE_NOTE_DELETE_YES": ("确定删除", "Yes, delete"),
        "PAGE_NOTE_CANCEL": ("取消", "Cancel"),
        "PAGE_NOTE_BACK": ("返回笔记列表", "Back to my notes"),
        "PAGE_NOTE_UPDATED_AT": ("更新于", "Updated"),
        "PAGE_NOTE_VERSION": ("版本", "Version"),
        "PAGE_NOTE_ANY_TAG": ("所有标签", "Any tag"),
    }
)
define_messages(
    {
        "PAGE_NOTE_CREATED": ("已保存笔记「{title}」。", "Note “{title}” saved."),
        "PAGE_NOTE_SAVED": ("已保存笔记「{title}」。", "Note “{title}” saved."),
        "PAGE_NOTE_DELETED": ("已删除笔记「{title}」。", "Note “{title}” deleted."),
    }
)


def _tags(value: str) -> list[str]:
    """Split a comma field (ASCII or full-width commas) into tags; the service checks them."""
    parts = value.replace("，", ",").split(",")
    return [part.strip() for part in parts if part.strip()]


class NotePages(ItemPages):
    kind = "note"
    list_template = "notes/list.html"
    detail_template = "notes/detail.html"
    text_codes = PAGE_TEXTS

    def rows(self, viewer: PageViewer, query: dict[str, str]) -> QuerySet[Any]:
        return selectors.note_list(
            owner=viewer.owner, keyword=query["q"] or None, tag=query["tag"] or None
        )

    def trash_rows(self, viewer: PageViewer) -> QuerySet[Any]:
        return selectors.note_trash_list(owner=viewer.owner)

    def restore(self, viewer: PageViewer, item_id: str, version: int) -> Note:
        return services.note_restore(
            owner=viewer.owner, note_id=item_id, expected_version=version, channel=CHANNEL_PAGE
        )

    def get(self, viewer: PageViewer, item_id: str) -> Note:
        return selectors.note_get(owner=viewer.owner, note_id=item_id)

    def create(self, viewer: PageViewer, form: dict[str, str]) -> Note:
        return services.note_create(
            owner=viewer.owner,
            title=form.get("title", ""),
            content=form_text(form.get("content", "")),
            tags=_tags(form.get("tags", "")),
            channel=CHANNEL_PAGE,
        )

    def act(self, viewer: PageViewer, item: Note, action: str, form: dict[str, str]) -> str:
        version = form_version(form)
        if action == "save":
            services.note_update(
                owner=viewer.owner,
                note_id=item.id,
                expected_version=version,
                title=form.get("title", ""),
                content=form_text(form.get("content", "")),
                tags=_tags(form.get("tags", "")),
                channel=CHANNEL_PAGE,
            )
            return "PAGE_NOTE_SAVED"
        if action == "delete":
            services.note_delete(
                owner=viewer.owner, note_id=item.id, expected_version=version, channel=CHANNEL_PAGE
            )
            return "PAGE_NOTE_DELETED"
        raise LightNoteError("PAGE_ACTION_UNKNOWN")


pages = NotePages()
