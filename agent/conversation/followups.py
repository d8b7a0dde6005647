"""Follow-ups: complete a pending request with the user's next message.

The conversation keeps at most one pending request per session (``agent.conversation.pending``): a
request understood in part, waiting for one slot. Whichever planner produced it — the rules
grammar's clarification, or a model proposal whose preparation failed for a slot (a vague
time, no title, an unknown or ambiguous item) — the next message is read here, with the
rules grammar of that message's language:

- a cancel ("算了", "never mind") drops it;
- an answer to the slot ("10点", "高优先级", "the second one", "明天下午", "好") completes it
  into an ordinary proposal, which then goes through the policy, ``prepare`` and a card;
- anything that reads as a new request of its own (a read, or a complete write) replaces it.

Nothing here writes: the result is at most a proposal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from agent.conversation.pending import KIND_CHOICE, PendingRequest
from agent.planners import en, zh
from agent.planners.base import Clarification, Proposal
from agent.planners.lexicon import (
    SLOT_CHANGE,
    SLOT_DUE,
    SLOT_INTENT,
    SLOT_KEYWORD,
    SLOT_PRIORITY,
    SLOT_TARGET,
    SLOT_TITLE,
    Grammar,
    normalise,
    unquote,
)
from agent.planners.rules import grammar_for, interpret
from agent.timeparse import TimeParseError, read_time
from lightnote.errors import LightNoteError
from lightnote.texts.hanzi import as_written, simplified

# A proposal refused for one of these codes is asked about instead (slot), not just refused.
SLOT_ERRORS = {
    "TODO_DUE_AT_INVALID": SLOT_DUE,
    "TODO_TITLE_REQUIRED": SLOT_TITLE,
    "NOTE_TITLE_REQUIRED": SLOT_TITLE,
    "TODO_NOT_FOUND": SLOT_TARGET,
    "NOTE_NOT_FOUND": SLOT_TARGET,
    "TODO_TITLE_AMBIGUOUS": SLOT_TARGET,
    "NOTE_TITLE_AMBIGUOUS": SLOT_TARGET,
}
MAX_CANDIDATES = 5
_ID_KEYS = {"todo": ("todo_id", "todo_title"), "note": ("note_id", "note_title")}


@dataclass(frozen=True)
class Resumption:
    """What the next message did to the pending request."""

    proposal: Proposal | None = None  # completed: propose (or, for a read tool, run) it
    cancelled: bool = False
    again: Clarification | None = None  # understood, but the slot is still missing
    # For a choice card: the candidate the answer picked (the proposal names it by id).
    pick: str | None = None


def slot_for_error(error: LightNoteError, args: dict[str, Any]) -> str | None:
    """Return the slot a preparation error asks about, or None to refuse as before."""
    slot = SLOT_ERRORS.get(error.code)
    if slot == SLOT_TARGET and not ({"todo_title", "note_title"} & set(args)):
        return None  # an id that does not exist: nothing to ask about
    return slot


def search_words(named: str) -> list[str]:
    """Return the keywords to look for items a title that matched nothing may mean.

    The whole title first, then its pieces: two-character windows of a Chinese title,
    the longer words of an English one (so "周报那个" finds "提交周报").
    """
    named = named.strip()
    if not named:
        return []
    words = [named]
    core = re.sub(r"那个|这个|那条|这条|待办|任务|笔记|的|一下", "", named)
    if re.search(r"[\u3400-\u9fff]", core):
        words += [core[i : i + 2] for i in range(0, max(len(core) - 1, 0))][:6]
    else:
        words += [
            w
            for w in re.findall(r"[A-Za-z0-9']{4,}", core)
            if w.lower() not in {"that", "this", "with", "todo", "task", "note"}
        ][:4]
    return list(dict.fromkeys(word for word in words if word.strip()))


def _grammar(text: str, locale: str) -> Grammar:
    if re.search(r"[\u3400-\u9fff]", text):
        return zh
    if re.search(r"[A-Za-z]", text):
        return en
    return zh if locale.startswith("zh") else en


_PRONOUNS = frozenset(
    ["it", "this", "that", "this one", "that one", "它", "这个", "那个", "这条", "那条"]
)


def _is_new_request(text: str, pending: PendingRequest) -> bool:
    intent = interpret(text)
    if intent.tool is None:
        return False
    named = str(intent.args.get("todo_title") or intent.args.get("note_title") or "")
    if named.strip().lower() in _PRONOUNS and pending.tool == intent.tool:
        return False  # "make it high priority": about the item the question is about
    if pending.slot == SLOT_CHANGE and _change_answer(text, pending) is not None:
        return False  # "to Friday 5pm": the change asked for, not a new todo "To"
    if intent.slot is None:
        return True
    # A partial request of the same kind is an answer ("明天下午开会" to "what todo?").
    return intent.tool != pending.tool


def _change_answer(text: str, pending: PendingRequest) -> str | None:
    """The time an answer to "what should change?" gives ("to Friday 5pm", "改到周五"), if any."""
    grammar = _grammar(text, pending.locale)
    said = re.sub(
        r"^(?:(?:move|push|change|set|make)\s+(?:it\s+)?)?(?:to|until|till|for|by)\s+"
        r"|^(?:改到|改成|改为|推迟到|推到|挪到|延到|提前到|到)\s*",
        "",
        grammar.strip_polite(text).strip(),
        flags=re.IGNORECASE,
    )
    return grammar.time_answer(said)


def _kind(tool: str) -> str:
    return "note" if "note" in tool else "todo"


def item_keys(tool: str) -> tuple[str, str]:
    """Return the args that name ``tool``'s item: by id and by title (todo_id, todo_title)."""
    return _ID_KEYS[_kind(tool)]


def _pick(pending: PendingRequest, text: str, grammar: Grammar) -> dict[str, Any] | None:
    """Return the candidate an answer names (by number, "yes" to a single one, or title)."""
    candidates = pending.candidates
    if not candidates:
        return None
    number = grammar.ordinal(text)
    if number is not None:
        index = number - 1 if number > 0 else len(candidates) - 1
        return candidates[index] if 0 <= index < len(candidates) else None
    if len(candidates) == 1 and grammar.is_yes(text):
        return candidates[0]
    wanted = unquote(grammar.strip_polite(text)).lower()
    exact = [item for item in candidates if str(item.get("title", "")).lower() == wanted]
    if len(exact) == 1:
        return exact[0]
    partial = [
        item for item in candidates if wanted and wanted in str(item.get("title", "")).lower()
    ]
    return partial[0] if len(partial) == 1 else None


def _fill(pending: PendingRequest, text: str) -> dict[str, Any] | Clarification | None:
    """Return the completed args, a repeated clarification, or None (not an answer)."""
    grammar = _grammar(text, pending.locale)
    args = dict(pending.args)
    slot = pending.slot
    if slot in (SLOT_DUE, SLOT_INTENT):
        answer = grammar.time_answer(text)
        if answer is not None:
            prior = str(args.get("due_at") or "")
            args["due_at"] = grammar.merge_time(prior, answer) if prior else answer
            if "remind_at" in args and args["remind_at"] in (None, prior):
                args["remind_at"] = args["due_at"]  # "remind me …": reminded at the time said
            return args
        if slot == SLOT_INTENT and grammar.is_yes(text):
            return args
        if slot == SLOT_DUE and grammar.is_yes(text):
            # "好" to "what time?": still no time, so the question stands
            return Clarification(tool=pending.tool, args=args, slot=slot)
        priority = grammar.priority_answer(text)
        if slot == SLOT_INTENT and priority:
            return {**args, "priority": priority}
        return None
    if slot == SLOT_PRIORITY:
        priority = grammar.priority_answer(text)
        return {**args, "priority": priority} if priority else None
    if slot == SLOT_KEYWORD:
        keyword = unquote(grammar.strip_polite(text))
        return {**args, "keyword": keyword} if keyword else None
    if slot == SLOT_TITLE:
        body = grammar.strip_polite(text)
        intent = (
            grammar.note_fields(body)
            if pending.tool == "create_note"
            else grammar.todo_fields(body)
        )
        merged = {**args, **intent.args}
        if intent.slot is not None:
            return Clarification(tool=pending.tool, args=merged, slot=intent.slot)
        return merged
    if slot == SLOT_TARGET:
        id_key, title_key = item_keys(pending.tool)
        chosen = _pick(pending, text, grammar)
        args.pop(id_key, None)
        args.pop(title_key, None)
        if chosen is not None:
            return {**args, id_key: str(chosen["id"])}
        if grammar.ordinal(text) is not None or grammar.is_yes(text):
            return None  # a number with nothing to point at: not an answer
        title = unquote(grammar.strip_polite(text))
        return {**args, title_key: title} if title else None
    if slot == SLOT_CHANGE:
        answer = _change_answer(text, pending)
        if answer is not None:
            return {**args, "due_at": answer}
        priority = grammar.priority_answer(text)
        if priority:
            return {**args, "priority": priority}
        named = str(args.get("todo_title") or args.get("note_title") or "")
        said = grammar.strip_polite(text)
        kind = "note " if pending.tool == "update_note" else ""
        if grammar is zh:
            # 把它改到周五 / 改到周五: the item the question was about, in the answer's place
            pronoun = re.match(r"^(?:把|将)?\s*(?:它|这个|那个|这条|那条)\s*", said)
            sentence = f"把「{named}」{said[pronoun.end() :] if pronoun else said}"
        else:
            # "move it to next Monday", "rename it to …": the item in the pronoun's place
            pronoun = re.search(r"\b(?:it|that|this(?:\s+one)?)\b", said, re.I)
            sentence = (
                f"{said[: pronoun.start()]}{kind}'{named}'{said[pronoun.end() :]}"
                if pronoun
                else f"change {kind}'{named}' {said}"
            )
        intent = interpret(sentence)
        if intent.tool == pending.tool and intent.slot is None:
            return intent.args
        return None
    return None


# --- picking from a choice card: "第一条", "删除今晚 9 点的那条", "the one due tonight" -------

# A part of the day without a clock time names the day it is in ("今晚" -> 今天).
_DAY_OF = (
    (re.compile(r"今晚|今夜|今天晚上|今天下午|今天上午|今早|今天早上"), "今天"),
    (re.compile(r"明晚|明天晚上|明天下午|明天上午|明早|明天早上"), "明天"),
    (re.compile(r"\btonight\b|\bthis\s+(?:evening|afternoon|morning)\b", re.I), "today"),
    (re.compile(r"\b(tomorrow)\s+(?:night|evening|afternoon|morning)\b", re.I), r"\1"),
)


def _due_instant(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def _by_time(
    candidates: list[dict[str, Any]], said: str, now: datetime, zone: ZoneInfo
) -> dict[str, Any] | None:
    """Return the one candidate due at the time said (or, for a day, due that day)."""
    dues = [(item, _due_instant(item.get("due_at"))) for item in candidates]
    try:
        moment = read_time(said, now=now, zone=zone).value
    except TimeParseError:
        moment = None
    if moment is not None:
        exact = [item for item, due in dues if due is not None and due == moment]
        if len(exact) == 1:
            return exact[0]
    day_text = said
    for pattern, day in _DAY_OF:
        day_text = pattern.sub(day, day_text)
    try:
        wanted = read_time(day_text, now=now, zone=zone).value.date()
    except TimeParseError:
        return None
    same_day = [
        item for item, due in dues if due is not None and due.astimezone(zone).date() == wanted
    ]
    return same_day[0] if len(same_day) == 1 else None


def choice_pick(
    pending: PendingRequest, text: str, *, now: datetime | None, zone: ZoneInfo | None
) -> dict[str, Any] | None:
    """Return the candidate of a choice card an answer names, or None.

    By position ("第一条", "删除第二个", "the first one", "last"), or by due time ("删除今晚
    9 点的那条", "the one due tonight": the one due at that minute, else the one due that
    day), or by a title only one candidate has.
    """
    candidates = pending.candidates
    if not candidates:
        return None
    text = normalise(text)
    grammar = _grammar(text, pending.locale)
    said = grammar.pick_reference(text)
    for attempt in (said, text):
        number = grammar.ordinal(attempt) if attempt else None
        if number is not None:
            index = number - 1 if number > 0 else len(candidates) - 1
            return candidates[index] if 0 <= index < len(candidates) else None
    when = grammar.pick_time(said)
    if now is not None and zone is not None and when and grammar.is_time(when):
        return _by_time(candidates, when, now, zone)
    return None


def resume(
    pending: PendingRequest,
    text: str,
    *,
    now: datetime | None = None,
    zone: ZoneInfo | None = None,
) -> Resumption | None:
    """Read the next message against the pending request; None: it is a new request.

    ``now`` and ``zone`` read a due time that picks from a choice card ("今晚 9 点的那条").
    """
    written = normalise(text)
    text = simplified(written)  # Traditional characters read as the grammars' Simplified
    grammar = _grammar(text, pending.locale)
    if grammar.is_no(text):
        return Resumption(cancelled=True)
    if pending.kind == KIND_CHOICE:
        chosen = choice_pick(pending, text, now=now, zone=zone)
        if chosen is not None:
            id_key, title_key = item_keys(pending.tool)
            args = {k: v for k, v in pending.args.items() if k not in (id_key, title_key)}
            args[id_key] = str(chosen["id"])
            return Resumption(
                proposal=Proposal(tool=pending.tool, args=args, call_id="followup-1"),
                pick=str(chosen["id"]),
            )
    if pending.slot == SLOT_INTENT and pending.tool == "create_todo":
        # "create the todo …?" answered with the kind: 待办 / "todo" is yes; 笔记 / "make it a
        # note" makes it a note (its time kept as what the note says)
        kind = grammar.kind_answer(text)
        if kind == "todo":
            return Resumption(
                proposal=Proposal(tool="create_todo", args=dict(pending.args), call_id="followup-1")
            )
        if kind == "note":
            # an event's time is what its note says; something jotted down is kept whole
            title = str(pending.args.get("title", ""))
            due = str(pending.args.get("due_at") or "")
            note = {"title": title, "content": due or title}
            return Resumption(
                proposal=Proposal(tool="create_note", args=note, call_id="followup-1")
            )
    names_a_choice = pending.slot == SLOT_TARGET and (grammar.ordinal(text) or grammar.is_yes(text))
    if not names_a_choice and _is_new_request(text, pending):
        return None
    filled = _fill(pending, text)
    if filled is None:
        return None

    def as_said(args: dict[str, Any]) -> dict[str, Any]:
        # what this answer gave (a title, a time) back in the characters it was written in
        return {
            key: as_written(value, read=text, written=written)
            if isinstance(value, str) and value != pending.args.get(key)
            else value
            for key, value in args.items()
        }

    if isinstance(filled, Clarification):
        return Resumption(again=replace(filled, args=as_said(filled.args)))
    return Resumption(
        proposal=Proposal(tool=pending.tool, args=as_said(filled), call_id="followup-1")
    )


__all__ = ["SLOT_ERRORS", "Resumption", "grammar_for", "resume", "slot_for_error"]
