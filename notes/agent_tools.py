"""The agent's note tools: thin adapters over ``notes.services`` and ``notes.selectors``.

Discovered by ``AgentConfig.ready``. ``create_note`` derives the new note's id from a stable
payload, so a user who asks again after an unknown outcome gets the first note back instead
of a twin (todos deliberately do not dedupe: two identical todos can be intended).
"""

from __future__ import annotations

import re
import uuid
from typing import Any, ClassVar
from urllib.parse import urlencode

from django.db import transaction
from django.urls import reverse

from agent.tools.adapters import (
    ItemCardTool,
    card,
    changed_values,
    listing,
    page_data,
    resolve_by_id_or_title,
    run_versioned,
    undo_update,
    versioned_target,
)
from agent.tools.base import (
    DROP,
    Compensation,
    ExecutionResult,
    ReadResult,
    Tool,
    ToolContext,
    WriteTool,
)
from agent.tools.formatting import detail, excerpt, joined, text, update_preview
from agent.tools.schema import (
    KEYWORD_ALIASES,
    LIMIT_ALIASES,
    UUID_SCHEMA,
    VERSION_SCHEMA,
    args_invalid,
    closed_object,
    digits_to_int,
    exactly_one_of,
    snapshot_schema,
    strip_text,
)
from agent.tools.tool_registry import registry
from lightnote.controlstore.binding import canonical_json, keyed_hash
from lightnote.errors import LightNoteError
from lightnote.texts.i18n import define_messages
from notes import selectors as note_selectors
from notes import services as note_services
from notes.models import Note

define_messages(
    {
        "REPLY_NOTE_CREATED": ("已为你创建笔记「{title}」。", 'Created the note "{title}".'),
        "REPLY_NOTE_UPDATED": ("已更新笔记「{title}」。", 'Updated the note "{title}".'),
        "NOTE_TITLE_AMBIGUOUS": (
            "有 {count} 条笔记的标题都是“{title}”，请说明是哪一条。",
            "{count} notes are titled “{title}”; say which one.",
        ),
        "NOTE_UPDATE_NOOP": (
            "没有需要修改的内容：未给出新值，或新值与当前值相同。",
            "Nothing to change: no new value was given, or it equals the current one.",
        ),
        "NOTE_LABEL_TITLE": ("标题", "Title"),
        "NOTE_LABEL_CONTENT": ("内容", "Content"),
        "NOTE_LABEL_TAGS": ("标签", "Tags"),
        "NOTE_PREVIEW_CREATE_TITLE": ("创建笔记", "Create note"),
        "NOTE_PREVIEW_CREATE_IMPACT": (
            "确认后将创建笔记「{title}」。",
            "After you confirm, the note “{title}” will be created.",
        ),
        "NOTE_PREVIEW_UPDATE_TITLE": ("修改笔记", "Update note"),
        "NOTE_PREVIEW_UPDATE_IMPACT": (
            "确认后将修改笔记「{title}」的 {count} 项内容：{fields}。",
            "After you confirm, {count} {count:field|fields} of the note “{title}” "
            "will change: {fields}.",
        ),
        "NOTE_RESULT_CREATED": ("已创建笔记「{title}」。", "Created the note “{title}”."),
        "NOTE_RESULT_ALREADY_EXISTED": (
            "笔记「{title}」之前已经创建，这次没有重复创建。",
            "The note “{title}” had already been created; no second copy was made.",
        ),
        "NOTE_RESULT_UPDATED": ("已更新笔记「{title}」。", "Updated the note “{title}”."),
        "NOTE_RESULT_SEARCH": ("找到 {count} 条笔记：", "Found {count} {count:note|notes}:"),
        "NOTE_RESULT_SEARCH_EMPTY": ("没有找到相关笔记。", "No note matches."),
        "NOTE_RESULT_SEARCH_LINE": ("- {title}（标签：{tags}）", "- {title} (tags: {tags})"),
        "NOTE_PREVIEW_DISCARD_TITLE": ("撤销创建笔记", "Undo creating a note"),
        "NOTE_PREVIEW_DISCARD_IMPACT": (
            "确认后将把笔记「{title}」移入回收站（可从回收站恢复）。",
            "After you confirm, the note “{title}” moves to the trash (restorable there).",
        ),
        "NOTE_RESULT_DISCARDED": (
            "已将笔记「{title}」移入回收站。",
            "Moved the note “{title}” to the trash.",
        ),
        "REPLY_NOTE_DISCARDED": (
            "已将笔记「{title}」移入回收站。",
            'Moved the note "{title}" to the trash.',
        ),
    }
)

SEARCH_LIMIT_DEFAULT = 10
SEARCH_LIMIT_MAX = 50
CHANGE_FIELDS = ("title", "content", "tags")
_EXCERPT = 200
# A fixed namespace: the derived ids are uuid5(namespace, HMAC of the payload).
NOTE_ID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "lightnote:agent:create_note")
# The HMAC key's label (see lightnote.controlstore.binding).
_NOTE_ID_LABEL = b"lightnote.agent.note-id"

_TAGS_SCHEMA = {"type": "array", "items": {"type": "string"}, "maxItems": 100}
_CURRENT_NOTE = closed_object(
    {"title": {"type": "string"}, "content_excerpt": {"type": "string"}, "tags": _TAGS_SCHEMA},
    required=("title", "content_excerpt", "tags"),
)
_TAG_ALIASES = {"tag": "tags", "labels": "tags", "label": "tags"}


def normalize_tags(value: Any) -> Any:
    """Accept ``"a, b"`` / ``"a、b"`` as a list; trimming and de-duplication is the service's."""
    if isinstance(value, str):
        return [tag for tag in (part.strip() for part in re.split(r"[,，、;；]", value)) if tag]
    return value


def stable_note_id(*, subject_id: Any, session_id: str | None, title: str, content: str) -> str:
    """Return the id a create of this note gets: the same payload in one session, the same id.

    Keyed with the server secret (HMAC) so nobody can pre-compute and squat another user's
    next note id.
    """
    payload = canonical_json([str(subject_id), session_id or "", title, content.strip()])
    return str(uuid.uuid5(NOTE_ID_NAMESPACE, keyed_hash(_NOTE_ID_LABEL, payload)))


def resolve_note(args: dict[str, Any], context: ToolContext) -> Note:
    """Return the subject's one note named by ``note_id`` or exact ``note_title``.

    None -> 404 ``NOTE_NOT_FOUND`` (also for another user's id); several -> 409
    ``NOTE_TITLE_AMBIGUOUS`` with the candidates.
    """
    return resolve_by_id_or_title(
        args,
        kind="note",
        get=lambda note_id: note_selectors.note_get(owner=context.subject, note_id=note_id),
        find=lambda title: _find_note(context.subject, title),
        candidate=lambda note: {
            **_note_fields(note),
            "updated_at": note.updated_at.astimezone(context.zone).isoformat(),
        },
    )


# A note named with its kind word, or without it: "周会笔记" for the note 周会, "读书" for the
# note 读书笔记, "the Standup note" for Standup.
_KIND_WORD = re.compile(r"(?<=.)(?:\s*笔记|\s*筆記|\s+notes?)$", re.IGNORECASE)


def _find_note(owner: Any, title: str) -> list[Note]:
    """The owner's notes titled ``title`` (``note_find_by_title``); when none is, those
    titled the same with the kind word the request added (周会笔记 → 周会) or left out
    (读书 → 读书笔记)."""
    found = note_selectors.note_find_by_title(owner=owner, title=title)
    if found:
        return found
    other = _KIND_WORD.sub("", title)
    if other == title:
        other = f"{title}笔记" if re.search(r"[\u4e00-\u9fff]$", title) else ""
    return note_selectors.note_find_by_title(owner=owner, title=other) if other else []


def _note_fields(note: Note) -> dict[str, Any]:
    return {
        "id": str(note.id),
        "title": note.title,
        "tags": list(note.tags or []),
        "content_excerpt": excerpt(note.content, _EXCERPT),
    }


def _note_values(note: Note) -> dict[str, Any]:
    """Return the note's full values an update may change (``CHANGE_FIELDS``)."""
    return {"title": note.title, "content": note.content, "tags": list(note.tags or [])}


def note_data(note: Note) -> dict[str, Any]:
    """Return a JSON-safe description of a note (content cut to an excerpt)."""
    return {**_note_fields(note), "version": note.version}


def note_snapshot(note: Note) -> dict[str, Any]:
    """Return the note's present values, for the card's "current" column."""
    return {
        "title": note.title,
        "content_excerpt": excerpt(note.content, _EXCERPT),
        "tags": list(note.tags or []),
    }


def _label(field: str, locale: str) -> str:
    return text(f"NOTE_LABEL_{field.upper()}", locale)


def _tags_value(tags: list[str], locale: str) -> str:
    return joined(tags, locale) if tags else text("TOOL_VALUE_NONE", locale)


def _content_value(content: str, locale: str) -> str:
    return excerpt(content, 120) if content.strip() else text("TOOL_VALUE_NONE", locale)


def _note_details(title: str, tags: list[str], content: str, locale: str) -> list[dict[str, Any]]:
    """Return the card rows of a whole note: title, tags and (an excerpt of) its content."""
    return [
        detail("title", _label("title", locale), title),
        detail("tags", _label("tags", locale), _tags_value(tags, locale)),
        detail("content", _label("content", locale), _content_value(content, locale)),
    ]


class NoteWriteTool(WriteTool):
    resource_type = "note"

    def normalize_value(self, name: str, value: Any) -> Any:
        if name in ("tags", "add_tags"):
            return normalize_tags(value)
        if name in ("note_id", "note_title"):
            return strip_text(value)
        return value


# A search "keyword" that asks for every note: all notes, 所有笔记, everything.
_EVERY_NOTE = re.compile(
    r"(?:(?:show\s+|list\s+)?(?:all|every(?:thing)?|any)(?:\s+(?:of\s+)?(?:my|the))?"
    r"(?:\s+notes?)?|(?:所有|全部|一切|全体)(?:的)?(?:笔记)?|笔记|notes?|\*)",
    re.IGNORECASE,
)


@registry.register
class SearchNotesTool(Tool):
    name = "search_notes"
    capability_id = "note.search"
    description: ClassVar[dict[str, str]] = {
        "zh-CN": "按关键词搜索用户的笔记（标题和内容）；"
        "不给关键词则列出全部笔记，最近修改的在前。只读。",
        "en": "Search the user's notes by keyword (title and content); without a keyword, list "
        "them all, most recently changed first. Read-only.",
    }
    schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "keyword": {"type": "string", "minLength": 1, "maxLength": 200},
            "limit": {"type": "integer", "minimum": 1, "maximum": SEARCH_LIMIT_MAX},
            "cursor": {
                "type": "string",
                "maxLength": 500,
                "description": "The `next` of the previous page of the same search.",
            },
        },
    )
    declared_aliases: ClassVar[dict[str, str]] = {
        **KEYWORD_ALIASES,
        "text": "keyword",
        "term": "keyword",
        **LIMIT_ALIASES,
    }

    def normalize_value(self, name: str, value: Any) -> Any:
        if name == "keyword":
            keyword = strip_text(value)
            if isinstance(keyword, str) and _EVERY_NOTE.fullmatch(keyword):
                return DROP  # "all notes" / 所有笔记 is no keyword: every note
            return keyword
        if name == "cursor":
            return strip_text(value) or DROP
        if name == "limit":
            return digits_to_int(value)
        return value

    def run(self, args: dict[str, Any], context: ToolContext) -> ReadResult:
        keyword = args.get("keyword")
        notes = note_selectors.note_list(owner=context.subject, keyword=keyword)
        limit = args.get("limit", SEARCH_LIMIT_DEFAULT)
        data = page_data(notes, limit, key="notes", describe=note_data, cursor=args.get("cursor"))
        query = f"?{urlencode({'q': keyword})}" if keyword else ""
        data["link"] = f"{reverse('note-page')}{query}"
        return self.read_result(data, context)

    def summarize(self, data: dict[str, Any], locale: str) -> str:
        return listing(
            data,
            key="notes",
            empty_code="NOTE_RESULT_SEARCH_EMPTY",
            head_code="NOTE_RESULT_SEARCH",
            line=lambda item: text(
                "NOTE_RESULT_SEARCH_LINE",
                locale,
                title=item["title"],
                tags=_tags_value(item["tags"], locale),
            ),
            locale=locale,
        )


@registry.register
class CreateNoteTool(NoteWriteTool):
    name = "create_note"
    capability_id = "note.create"
    reply_text_code = "REPLY_NOTE_CREATED"
    description: ClassVar[dict[str, str]] = {
        "zh-CN": "为用户创建一条笔记。需要用户确认卡片后才会执行。",
        "en": "Create a note for the user. Runs only after the user confirms the card.",
    }
    schema: ClassVar[dict[str, Any]] = closed_object(
        {"title": {"type": "string"}, "content": {"type": "string"}, "tags": _TAGS_SCHEMA},
        required=("title",),
    )
    prepared_schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "note_id": UUID_SCHEMA,
            "title": {"type": "string", "minLength": 1},
            "content": {"type": "string"},
            "tags": _TAGS_SCHEMA,
        },
        required=("note_id", "title", "content", "tags"),
    )
    declared_aliases: ClassVar[dict[str, str]] = {
        "noteTitle": "title",
        "note_title": "title",
        "name": "title",
        "subject": "title",
        "heading": "title",
        "topic": "title",
        "body": "content",
        "text": "content",
        "noteContent": "content",
        "note_content": "content",
        "markdown": "content",
        "description": "content",
        "details": "content",
        **_TAG_ALIASES,
    }

    def prepare(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        note_services.check_room(owner=context.subject)  # at the cap: refused, no card
        title = note_services.check_title(args.get("title"))
        content = note_services.check_content(args.get("content"))
        tags = note_services.check_tags(args.get("tags"))
        note_id = stable_note_id(
            subject_id=context.subject.pk,
            session_id=context.session_id,
            title=title,
            content=content,
        )
        return {"note_id": note_id, "title": title, "content": content, "tags": tags}

    def preview(self, prepared: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        title, locale = prepared["title"], context.locale
        return card(
            title_code="NOTE_PREVIEW_CREATE_TITLE",
            impact_code="NOTE_PREVIEW_CREATE_IMPACT",
            target=title,
            details=_note_details(title, prepared["tags"], prepared["content"], locale),
            locale=locale,
        )

    def execute(self, prepared: dict[str, Any], context: ToolContext) -> ExecutionResult:
        """Create the note with its derived id; if that id exists for this owner, return it.

        The second create of the same id fails on the primary key (``NOTE_ALREADY_EXISTS``)
        inside this method's own savepoint, so the caller's transaction stays usable (inside
        the durable execution block a service opens no savepoint of its own).
        """
        note_id = uuid.UUID(prepared["note_id"])
        try:
            with transaction.atomic():
                note = note_services.note_create(
                    owner=context.subject,
                    title=prepared["title"],
                    content=prepared["content"],
                    tags=prepared["tags"],
                    note_id=note_id,
                    actor=context.actor,
                    channel=context.channel,
                )
        except LightNoteError as error:
            if error.code != "NOTE_ALREADY_EXISTS":
                raise
            try:
                existing = note_selectors.note_get(owner=context.subject, note_id=note_id)
            except LightNoteError:
                raise error from None  # the id belongs to someone else: never reveal it
            return self.write_result({**note_data(existing), "already_existed": True}, context)
        return self.write_result({**note_data(note), "already_existed": False}, context)

    def summarize(self, data: dict[str, Any], locale: str) -> str:
        code = (
            "NOTE_RESULT_ALREADY_EXISTED" if data.get("already_existed") else "NOTE_RESULT_CREATED"
        )
        return text(code, locale, title=data["title"])

    def compensation(self, prepared: dict[str, Any], result: dict[str, Any]) -> Compensation | None:
        """Undo a create: move the note it made to the trash, as it was made.

        A create that found its note already made (``already_existed``) made nothing: there
        is nothing to undo.
        """
        if result.get("already_existed"):
            return None
        return Compensation("discard_note", {"note_id": result["id"]}, result["version"])


@registry.register
class UpdateNoteTool(NoteWriteTool):
    name = "update_note"
    capability_id = "note.update"
    result_code = "NOTE_RESULT_UPDATED"
    reply_text_code = "REPLY_NOTE_UPDATED"
    description: ClassVar[dict[str, str]] = {
        "zh-CN": "修改用户一条笔记的标题、内容或标签（content 为整体替换；"
        "append 在内容末尾另起一行追加；tags 为整体替换，add_tags 在原有标签后追加）。"
        "需要用户确认。",
        "en": "Change a note's title, content (replaced as a whole; or append: a line added at "
        "its end) or tags (tags replaces them; add_tags adds to them). Runs only after "
        "confirmation.",
    }
    schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "note_id": {"type": "string", "maxLength": 64},
            "note_title": {"type": "string", "minLength": 1, "maxLength": 400},
            "title": {"type": "string", "description": "The new title."},
            "content": {"type": "string"},
            "append": {
                "type": "string",
                "minLength": 1,
                "description": "Text added on a new line at the end of the content.",
            },
            "tags": _TAGS_SCHEMA,
            "add_tags": {
                **_TAGS_SCHEMA,
                "minItems": 1,
                "description": "Tags added to the note's own (which stay).",
            },
        },
        **exactly_one_of("note_id", "note_title"),
    )
    prepared_schema: ClassVar[dict[str, Any]] = closed_object(
        {
            "note_id": UUID_SCHEMA,
            "expected_version": VERSION_SCHEMA,
            "title": {"type": "string", "minLength": 1},
            "content": {"type": "string"},
            "tags": _TAGS_SCHEMA,
            "current": _CURRENT_NOTE,
        },
        required=("note_id", "expected_version", "current"),
        anyOf=[{"required": [field]} for field in CHANGE_FIELDS],
    )
    declared_aliases: ClassVar[dict[str, str]] = {
        "id": "note_id",
        "newTitle": "title",
        "new_title": "title",
        "body": "content",
        "text": "content",
        "markdown": "content",
        "newContent": "content",
        "new_content": "content",
        "append_content": "append",
        "appendContent": "append",
        "add_line": "append",
        "addTags": "add_tags",
        "add_tag": "add_tags",
        "new_tag": "add_tags",
        **_TAG_ALIASES,
        "newTags": "tags",
        "new_tags": "tags",
    }

    def prepare(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        note = resolve_note(args, context)
        if "append" in args:
            # Added to the content read now; the card's expected version keeps a concurrent
            # edit from being overwritten. New content and an addition are one too many.
            if "content" in args:
                raise args_invalid({"append": ["invalid"], "content": ["invalid"]})
            line = str(args["append"]).strip()
            args = {key: value for key, value in args.items() if key != "append"}
            args["content"] = f"{note.content.rstrip()}\n{line}" if note.content.strip() else line
        if "add_tags" in args:
            # Added to the note's tags read now (the expected version guards them, as above);
            # a whole new list and an addition are one too many.
            if "tags" in args:
                raise args_invalid({"add_tags": ["invalid"], "tags": ["invalid"]})
            added = note_services.check_tags(args["add_tags"])
            args = {key: value for key, value in args.items() if key != "add_tags"}
            args["tags"] = [*(note.tags or []), *added]
        checks = {
            "title": note_services.check_title,
            "content": note_services.check_content,
            "tags": note_services.check_tags,
        }
        changes = changed_values(args, checks, _note_values(note), noop_code="NOTE_UPDATE_NOOP")
        return versioned_target("note_id", note, **changes, current=note_snapshot(note))

    def preview(self, prepared: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        locale = context.locale
        current = prepared["current"]
        as_shown = {
            "title": lambda value: value,
            "tags": lambda value: _tags_value(value, locale),
            "content": lambda value: _content_value(value, locale),
        }

        def shown(field: str) -> tuple[str, str]:
            old = current["content_excerpt"] if field == "content" else current[field]
            return as_shown[field](old), as_shown[field](prepared[field])

        return update_preview(
            title_code="NOTE_PREVIEW_UPDATE_TITLE",
            impact_code="NOTE_PREVIEW_UPDATE_IMPACT",
            target=current["title"],
            fields=[field for field in CHANGE_FIELDS if field in prepared],
            label=lambda field: _label(field, locale),
            shown=shown,
            locale=locale,
        )

    def execute(self, prepared: dict[str, Any], context: ToolContext) -> ExecutionResult:
        """Update the note; the result keeps the full values it replaced (for an undo).

        The card's snapshot holds only an excerpt of the content, so the previous values are
        read here, in the execution's transaction, at ``expected_version`` (the update runs
        only at that version, and a version names exactly one state of the note).
        """
        before = note_selectors.note_get(owner=context.subject, note_id=prepared["note_id"])
        changes = {field: prepared[field] for field in CHANGE_FIELDS if field in prepared}
        note = run_versioned(note_services.note_update, "note_id", prepared, context, **changes)
        data = note_data(note)
        if before.version == prepared["expected_version"]:
            data["previous"] = _note_values(before)
        return self.write_result(data, context)

    def compensation(self, prepared: dict[str, Any], result: dict[str, Any]) -> Compensation | None:
        """Undo an update: put back the values it changed, exactly (see :meth:`execute`)."""
        previous = result.get("previous")
        if not isinstance(previous, dict):
            return None
        return undo_update(
            "update_note", "note_id", prepared, previous, CHANGE_FIELDS, result["version"]
        )


@registry.register
class DiscardNoteTool(NoteWriteTool, ItemCardTool):
    """Internal (compensation-only): move a note an agent card created to the trash."""

    name = "discard_note"
    capability_id = "note.discard"
    description: ClassVar[dict[str, str]] = {
        "zh-CN": "把一条笔记移入回收站（仅用于撤销创建笔记）。需要用户确认。",
        "en": "Move a note to the trash (only as the undo of creating it). Runs only after "
        "confirmation.",
    }
    schema: ClassVar[dict[str, Any]] = closed_object(
        {"note_id": {"type": "string", "maxLength": 64}}, required=("note_id",)
    )
    prepared_schema: ClassVar[dict[str, Any]] = snapshot_schema("note_id", _CURRENT_NOTE)
    preview_title_code = "NOTE_PREVIEW_DISCARD_TITLE"
    preview_impact_code = "NOTE_PREVIEW_DISCARD_IMPACT"
    result_code = "NOTE_RESULT_DISCARDED"
    reply_text_code = "REPLY_NOTE_DISCARDED"

    def prepare(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        note = note_selectors.note_get(owner=context.subject, note_id=args["note_id"])
        return versioned_target("note_id", note, current=note_snapshot(note))

    def item_details(self, current: dict[str, Any], context: ToolContext) -> list[dict[str, Any]]:
        return _note_details(
            current["title"], current["tags"], current["content_excerpt"], context.locale
        )

    def execute(self, prepared: dict[str, Any], context: ToolContext) -> ExecutionResult:
        note_id = run_versioned(note_services.note_delete, "note_id", prepared, context)
        data = {
            "id": str(note_id),
            "title": prepared["current"]["title"],
            "tags": prepared["current"]["tags"],
            "content_excerpt": prepared["current"]["content_excerpt"],
            "deleted": True,
        }
        return self.write_result(data, context)
