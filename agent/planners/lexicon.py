"""What both grammars of the rules planner share: the intent they return and text helpers.

A grammar (the ``zh`` and ``en`` packages) reads one sentence and returns an :class:`Intent`:

- a **read** (``query_todos`` / ``search_notes``, plus ``also`` reads): run at once;
- a **write** (a tool name and raw args): only when the sentence clearly asks for it; a
  message asking for several (``more``) gives one card each;
- a **clarification** (``slot`` set): the request was understood in part and one thing is
  missing or vague; the caller asks for it and keeps the request pending;
- **help** (no tool): nothing was understood.

Grammars try read forms before any write form, so a read request can never become a card.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent.planners import phrases
from agent.vocabulary import priority_name

# A title in quotes: 「」『』“”‘’《》 or ASCII quotes.
# A quoted phrase, closed by its own kind of quote ("Read 'Atomic Habits' ch. 3" is one);
# a curly quote may be closed by its straight twin (“买菜").
QUOTED = (
    r"(?:\"[^\"]+\"|“[^”\"]+[”\"]|「[^」]+」|『[^』]+』|《[^》]+》|‘[^’']+[’']"
    # a straight single quote is one only outside a word (not the one in "I've … it's")
    r"|(?<![A-Za-z])'[^']+'(?![A-Za-z])"
    r"|[「『“\"‘《][^」』”\"’'》]+[」』”\"’'》])"
)
QUOTES = "「」『』“”‘’《》\"'"
STRIP = " \t，,。.!！?？、；;：:～~"
ISO = r"\d{4}-\d{1,2}-\d{1,2}(?:[ T]\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?"

# Slots a clarification may ask for (the notice's ``slot``).
SLOT_TITLE = "title"  # the new item's title
SLOT_DUE = "due_at"  # a time that is missing or too vague
SLOT_TARGET = "target"  # which existing item
SLOT_PRIORITY = "priority"
SLOT_KEYWORD = "keyword"  # what to search for
SLOT_INTENT = "intent"  # "did you mean: create this todo?"
SLOT_CHANGE = "change"  # what to change on an item


@dataclass(frozen=True)
class Intent:
    """What a sentence asks for: a tool call, a clarification, or help (no tool)."""

    tool: str | None
    args: dict[str, Any] = field(default_factory=dict)
    message: str = "PLANNER_HELP"
    slot: str | None = None  # set: ask for this slot before proposing ``tool``
    also: tuple[tuple[str, dict[str, Any]], ...] = ()  # further reads of the same request
    # Other readings of the write, in order (a rename that did not say todo or note: the
    # note's; 给妈妈打电话…: the title with its 给): each tried only when the item the readings
    # before it name is not found.
    otherwise: tuple[tuple[str, dict[str, Any]], ...] = ()
    # Further writes of the same message ("加三个待办：A、B、C", "mark X done and delete Y"):
    # each its own card, in the order said.
    more: tuple[Intent, ...] = ()
    # The message read as several items (把A和B标记完成 with no todo titled "A和B"): tried,
    # each its own card, only when the item this intent names is not found.
    instead: tuple[Intent, ...] = ()

    @property
    def is_clarification(self) -> bool:
        return self.slot is not None


HELP = Intent(None)


class Grammar(Protocol):
    """One language's grammar (the ``zh`` and ``en`` packages) as its callers use it.

    The rules planner calls :meth:`interpret`; ``agent.conversation.followups`` reads answers to a
    pending question with the rest. Times stay the user's words; nothing here touches data.
    """

    def interpret(self, text: str) -> Intent: ...

    def correction(self, text: str) -> dict[str, str] | None: ...

    def undo_request(self, text: str) -> str | None: ...

    def ordinal_reference(self, text: str) -> tuple[int, int, int] | None: ...

    def strip_polite(self, text: str) -> str: ...

    def todo_fields(self, body: str, *, priority: str | None = None) -> Intent: ...

    def note_fields(self, body: str) -> Intent: ...

    def is_time(self, value: str) -> bool: ...

    def merge_time(self, prior: str, answer: str) -> str: ...

    def keep_clock(self, prior: str, answer: str) -> str: ...

    def is_yes(self, text: str) -> bool: ...

    def is_no(self, text: str) -> bool: ...

    def kind_answer(self, text: str) -> str | None: ...

    def ordinal(self, text: str) -> int | None: ...

    def time_answer(self, text: str) -> str | None: ...

    def priority_answer(self, text: str) -> str | None: ...

    def pick_reference(self, text: str) -> str: ...

    def pick_time(self, reference: str) -> str: ...


def named_kind(answer: re.Pattern[str], body: str) -> str | None:
    """Return "todo" or "note" when ``body`` is only the kind of item ``answer`` names (its
    ``todo`` / ``note`` groups), else None: the answer to "create the todo …?"."""
    match = answer.fullmatch(body)
    if match is None:
        return None
    return "todo" if match.group("todo") else "note"


def ask(tool: str, slot: str, **args: Any) -> Intent:
    """Return a clarification: ``tool`` is understood, ``slot`` is missing."""
    return Intent(tool, {key: value for key, value in args.items() if value}, slot=slot)


# A title that only counts the items it was to list ("三个", "Three todos").
_COUNT_ONLY = re.compile(
    r"(?:[两二三四五六七八九十几\d]+|一些|几)\s*(?:个|条|件|项|样)?\s*(?:新的?)?"
    r"(?:待办事项|待办|任务|提醒|事情|事项|事)?"
    r"|(?:two|three|four|five|six|seven|eight|nine|ten|a\s+few|some|several|a\s+couple(?:\s+of)?"
    r"|\d+)\s+(?:new\s+)?(?:todos|to-dos|tasks|items|reminders|things)(?:\s+for\s+me)?",
    re.IGNORECASE,
)


def create_intent(tool: str, title: str, **fields: Any) -> Intent:
    """Return ``tool`` creating ``title`` with the non-empty ``fields``, in their order.

    Without a title it is a clarification for :data:`SLOT_TITLE` that keeps the fields.
    """
    args = {key: value for key, value in fields.items() if value}
    if not title or _COUNT_ONLY.fullmatch(title):
        return ask(tool, SLOT_TITLE, **args)  # 帮我加三个待办 / "Add three todos": which?
    return Intent(tool, {"title": title, **args})


# What makes a piece of a note's text a fact to keep rather than a title: a link, an
# address, a number to look up (a code, a phone), a sentence's "is".
_FACT = re.compile(
    r"https?://|www\.|[\w.+-]+@[\w-]+\.\w|\d{3,}[\s-]\d{3,}|\d{5,}|是|等于|="
    r"|\b(?:is|are|was|were|uses?|said|says|changed|means)\b",
    re.IGNORECASE,
)


def note_title_and_content(title: str, content: str | None, whole: str) -> tuple[str, str]:
    """Return a note's title and content from a text that named no title.

    ``title`` and ``content`` are the text split at its first break ("菜谱：番茄炒蛋",
    "Trip - pack bags"; ``content`` None when there was none). When that first piece reads
    as a title it stays one; when it reads as a fact to keep (a link, a code, a sentence
    with "是" / "is", or too long for a title: over 8 words or 20 characters, or, when it is
    all the text said, over 4 words or 10 characters) the whole text is the content and its
    first piece, shortened, the title: nothing the user said is lost from the note's body.
    """
    title, whole = title.strip(), whole.strip()
    words = title.split()
    cjk = re.search(r"[\u3400-\u9fff]", title)
    if content is None:  # one piece: a title only when it is short ("Travel plan", 电影清单)
        too_long = len(title) > 10 if cjk else len(words) > 4
    else:
        too_long = len(title) > 20 if cjk else len(words) > 8
    if not (_FACT.search(title) or too_long):
        return title, (content or "").strip()
    if cjk:
        short = title if len(title) <= 24 else title[:20].rstrip() + "…"
    else:
        short = title if len(words) <= 8 else " ".join(words[:6]) + "…"
    return short, whole


# The todo fields an update may name: each grammar maps its own words to these, and
# :func:`todo_change` / :func:`change_slot` decide the same way in both languages.
FIELD_TITLE = "title"
FIELD_PRIORITY = "priority"
FIELD_DESCRIPTION = "description"
FIELD_DUE = "due_at"


def todo_change(
    field: str, value: str, *, priority: str | None, timed: bool, due: str | None = None
) -> Intent:
    """Return the ``update_todo`` change a sentence gives: ``field`` (a ``FIELD_*``, or "" when
    none was named) set to ``value``.

    A named field takes the value (a priority that names none is asked for); with no field
    the value decides: a ``priority`` word sets the priority, a ``timed`` change (the value is
    a time, or the verb moves the item) sets the due time (``due``, default ``value``), and
    anything else is a new title ("change Pay rent to Pay the rent"). No target is set here.
    """
    if field == FIELD_TITLE:
        return Intent("update_todo", {"title": unquote(value)})
    if field == FIELD_PRIORITY or (not field and priority):
        if priority is None:
            return ask("update_todo", SLOT_PRIORITY)
        return Intent("update_todo", {"priority": priority})
    if field == FIELD_DESCRIPTION:
        return Intent("update_todo", {"description": unquote(value)})
    if field == FIELD_DUE or timed:
        return Intent("update_todo", {"due_at": due or value})
    if _SPEAKS_OF_PRIORITY.search(value):
        # "改成高优先级 急", "make it top priority asap": a priority said with more words
        # than the lexicon knows is asked for, never made the todo's title
        return ask("update_todo", SLOT_PRIORITY)
    return Intent("update_todo", {"title": unquote(value)})


_SPEAKS_OF_PRIORITY = re.compile(r"优先级|优先度|\bpriority\b|\bprio\b", re.IGNORECASE)


def change_slot(field: str) -> str:
    """Return what to ask for when an update names ``field`` (a ``FIELD_*`` or "") but no value."""
    return {FIELD_PRIORITY: SLOT_PRIORITY, FIELD_DUE: SLOT_DUE}.get(field, SLOT_CHANGE)


def read_filters(
    text: str,
    todo_args: dict[str, Any],
    *,
    priorities: tuple[tuple[int, str], ...],
    overdue: str,
) -> bool:
    """Add to ``todo_args`` the priority and the "overdue" a read asks for (each grammar's
    words: ``priorities`` as (level, pattern), ``overdue`` a pattern); True when it asked."""
    level = next(
        (found for found, words in priorities if re.search(words, text, re.IGNORECASE)), None
    )
    if level is not None:
        todo_args["priority"] = level
    if re.search(overdue, text, re.IGNORECASE):
        todo_args["overdue"] = True
    return level is not None or "overdue" in todo_args


def read_of(
    *, notes: bool, todos: bool, keyword: str, todo_args: dict[str, Any], text: str = ""
) -> Intent:
    """Return the read a request names: its kinds, its keyword, the todo filters it gave.

    Notes alone search the notes, or list them all (我的笔记, "show all notes": no keyword,
    or one that only says "all": ``every_note`` in ``agent/planners/data``) — unless
    ``text`` asks to search (搜一下笔记, "search my notes": ``search_verb``), which asks for
    the keyword; todos, or a read with nothing to search for, query the todos with
    ``todo_args``; a keyword that names neither kind searches both.
    """
    if notes and not todos:
        if keyword and not phrases.whole("every_note", keyword):
            return Intent("search_notes", {"keyword": keyword})
        if keyword or not phrases.search("search_verb", text):
            return Intent("search_notes", {})
        return ask("search_notes", SLOT_KEYWORD)
    if todos or not keyword:
        return Intent("query_todos", todo_args)
    return Intent(
        "search_notes", {"keyword": keyword}, also=(("query_todos", {"keyword": keyword}),)
    )


# Emoji (pictographs, symbols, their joiners, variation selectors and skin tones).
_EMOJI = "\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\ufe0f\u200d"
# Emoji at the ends of a message ("mark buy milk done 🥛", 谢谢🙏, "at 11am tmrw 🔧") carry no
# request; inside it (a note's content, a quoted title) they are the user's words, kept.
_EDGE_EMOJI = re.compile(rf"^[\s{_EMOJI}]+|(?<=\S)[\s{_EMOJI}]*[{_EMOJI}][\s{_EMOJI}!！。.~～]*$")


def normalise(text: str) -> str:
    """Fold full-width letters, digits and spaces; drop emoji at the message's ends; keep
    punctuation and words as typed."""
    folded = "".join(
        unicodedata.normalize("NFKC", char) if char.isalnum() and ord(char) >= 0xFF00 else char
        for char in text.replace("\u3000", " ")
    )
    return re.sub(r"\s+", " ", _EDGE_EMOJI.sub("", folded)).strip()


def outside_quotes(text: str) -> str:
    """The text with every quoted span blanked: a title in quotes is not a request."""
    return re.sub(QUOTED, " ", text)


def unquote(text: str) -> str:
    """Trim punctuation and one pair of surrounding quotes."""
    text = text.strip().strip(STRIP)
    if len(text) >= 2 and text[0] in QUOTES and text[-1] in QUOTES:
        text = text[1:-1]
    return text.strip()


def split_tags(text: str) -> list[str]:
    return [tag for tag in re.split(r"[、,，;；\s#]+", unquote(text)) if tag.strip(STRIP)]


def priority_of(value: str) -> str | None:
    """Return the priority a bare value names ("高", "high priority"), or None."""
    return priority_name(value.strip().strip(STRIP))


def take_time(
    text: str,
    pattern: re.Pattern[str],
    *,
    prefer_last: bool,
    before: re.Pattern[str],
    after: re.Pattern[str] | None = None,
    glue: str = "",
    tail: str = "",
) -> tuple[str, str | None]:
    """Cut the longest time expression out of ``text``; return the rest and the time as typed.

    ``before`` / ``after`` remove the connectors around it (在, 截止, 前; at, by, on); on a
    tie the expression nearer the end (``prefer_last``) or the start wins.
    """
    matches = [m for m in pattern.finditer(text) if m.group().strip()]
    if not matches:
        return text, None
    match = max(matches, key=lambda m: (len(m.group()), m.start() if prefer_last else -m.start()))
    left, right = text[: match.start()], text[match.end() :]
    left = before.sub("", left if not glue else " " + left)
    if after is not None:
        right = after.sub("", right)
    left = left.rstrip(STRIP + tail) if not glue else left.strip()
    right = right.lstrip(STRIP) if not glue else right.strip()
    rest = (left + (glue if left and right else "") + right).strip()
    return rest, match.group().strip()


def asks_for_nothing(intent: Intent) -> bool:
    """The intent asks for nothing (help, or a guess it would only ask about): a clause
    beside an undo that may stand (``undo_of_clauses``)."""
    return intent.tool is None or intent.slot == SLOT_INTENT


def undo_of_clauses(
    clauses: Iterable[str],
    *,
    said: Callable[[str], str | None],
    went_wrong: Callable[[str], bool],
    asks_nothing: Callable[[str], bool],
) -> str | None:
    """What a message's clauses ask to take back (each grammar's ``undo_request``): ``""``
    any change, ``"open"`` / ``"done"`` a status said back to that state, None no undo.

    One clause asks it (``said``); every other one says what went wrong (``went_wrong``: 我点错了,
    "my bad") or asks nothing (``asks_nothing``: the grammar reads no request in it — 谢谢,
    "Friday doesn't work"). Beside a state said back, only what went wrong: beside anything
    else it may be about another item (整理书架其实还没弄完，改回未完成).
    """
    wanted: str | None = None
    others: list[str] = []
    for clause in clauses:
        found = said(clause) if wanted is None else None
        if found is not None:
            wanted = found
        elif not went_wrong(clause):
            others.append(clause)
    if wanted is None or (wanted and others):
        return None
    return wanted if all(asks_nothing(clause) for clause in others) else None
