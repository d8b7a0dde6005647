"""The offline rules planner: the Chinese and English grammars behind the planner contract.

It is the default without an API key and the engine of ``LIGHTNOTE_PLANNER=rules``. Like
the model, it only *proposes*: times stay the user's words (``due_at: "今晚 9 点"``) for the
tool's ``prepare`` to parse, titles are named, never resolved, and read tools run through
the caller's runner. A request understood in part becomes a :class:`Clarification` (the
caller asks and keeps it pending); its final reply is a template filled from the receipt.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from agent.planners import en, requests, zh
from agent.planners import recurrence as repetition
from agent.planners.base import (
    Clarification,
    PlanRequest,
    PlanResult,
    Proposal,
    reply_locale,
    run_read,
)
from agent.planners.en import several as en_several
from agent.planners.en.reads import QUESTION as EN_QUESTION
from agent.planners.lexicon import (
    QUOTED,
    SLOT_DUE,
    SLOT_INTENT,
    Grammar,
    Intent,
    normalise,
    outside_quotes,
    unquote,
)
from agent.planners.questions import question
from agent.planners.replies import describe_facts, template_reply
from agent.planners.several import READ_TOOLS, several
from agent.planners.zh import several as zh_several
from agent.planners.zh.reads import QUESTION as ZH_QUESTION
from lightnote.texts.hanzi import as_written, simplified
from lightnote.texts.i18n import translate


def grammar_for(text: str) -> Grammar:
    """Return the grammar module of the sentence's language (Chinese if it has any CJK)."""
    return zh if reply_locale(text, "en") == "zh-CN" else en


def interpret(text: str) -> Intent:
    """Return what one message asks for (see ``zh.interpret`` / ``en.interpret``).

    A message asking for several writes gives the first with the others in ``more`` (or,
    for two items that may be one title, ``instead``: :mod:`agent.planners.several`).
    Traditional characters are read as Simplified (the grammars' own), and what the
    message names (titles, times, content) is given back as the user wrote it.
    """
    written = normalise(text)
    if not written:
        return Intent(None)
    pieces = zh_several if grammar_for(simplified(written)) is zh else en_several
    written = pieces.reword(written)  # (before reading: as_written maps the same spans)
    # "move X to the trash" / 把X移到回收站: a delete, never X's new content or time
    written = requests.reword(written, _language(simplified(written)))
    read = simplified(written)
    language = _language(read)
    if requests.asks_capability(read, language):
        # "can you set a daily reminder?": what the assistant can do, no card
        return Intent(None, message="PLANNER_CAPABILITIES")
    stopped = repetition.stop_item(outside_quotes(read), language)
    if stopped is not None:
        # "stop repeating Pay rent" / 交房租不要再重复了: the rule cleared, the todo kept
        stop = Intent("update_todo", {"todo_title": unquote(stopped), "recurrence": None})
        return _unlabelled(stop if read == written else _written_back(stop, read, written))
    changed = repetition.change_item(outside_quotes(read), language)
    if changed is not None:
        # "make Pay rent repeat every month" / 把交房租改成每月1号重复: that todo's rule, never
        # a new todo titled "Make pay rent repeat" or a rename to 每月重复
        item, rule = changed
        args = {"todo_title": unquote(item), "recurrence": rule.rrule}
        if rule.rest:
            args["due_at"] = rule.rest  # 每年3月3号, "every day at 9am": the due time said
        change = Intent("update_todo", args)
        return _unlabelled(change if read == written else _written_back(change, read, written))
    if repetition.refused(outside_quotes(read), language):
        # 每逢农历十五 / "every third full moon": a rule todos cannot follow, never a title
        return Intent(None, message="PLANNER_RECURRING_UNSUPPORTED")
    pointed = pieces.plural_pronoun(read)
    intent = (
        _one(pointed)
        if pointed is not None
        else several(
            read,
            split=pieces.split,
            clauses=pieces.clauses,
            opens_request=pieces.opens_request,
            asks_anew=pieces.asks_anew,
            interpret=_one,
            read_tools=READ_TOOLS,
        )
        or _one(read)
    )
    if (intent.tool is None or intent.slot == SLOT_INTENT) and grammar_for(read).correction(read):
        # 不对，是周五 with no card shown (a shown card is corrected before any planner
        # runs: agent.conversation.corrections): nothing to act on, and no todo titled 不对，是
        return Intent(None, message="PLANNER_NOTHING_TO_CORRECT")
    repeated = _repeating(read, intent, language) if not intent.more else None
    if repeated is not None:
        intent = repeated
    elif (
        intent.tool in _TIMED_WRITES
        and not intent.more  # one request: a repetition word is not another write's text
        and repeats(read, due=str(intent.args.get("due_at") or ""))
    ):
        # 每周一早上开周会 / "water the plants every day": a todo has one due time, and
        # cutting the time out would leave 「每开周会」 or "every" in the title
        return Intent(None, message="PLANNER_RECURRING_UNSUPPORTED")
    if grammar_for(read).undo_request(read) == "":
        # 撤销 / "undo that" with nothing run in the conversation (a change that ran is taken
        # back before any planner runs: agent.cards.undo): nothing to take back, and no todo
        # titled "last change" to reopen
        return Intent(None, message="PLANNER_NOTHING_TO_UNDO")
    intent = _with_reminder(_complete(_tidy_note(intent, language), language), read, language)
    return intent if read == written else _written_back(intent, read, written)


def _language(read: str) -> str:
    return "zh" if grammar_for(read) is zh else "en"


_QUESTIONS = {"zh": ZH_QUESTION, "en": EN_QUESTION}
# The writes whose item has a due time, which a repetition would be about.
_TIMED_WRITES = frozenset({"create_todo", "update_todo"})
_WEEKDAY_ZH = "[一二三四五六日天]"
_REPEAT_ZH = (
    rf"每(?:个|一)?(?:天|日|晚|早上?|夜|周(?:{_WEEKDAY_ZH}|末)?|星期{_WEEKDAY_ZH}?|礼拜{_WEEKDAY_ZH}?"
    r"|月|年|小时|工作日)"
    r"|每隔[^，,。；;\s]{1,4}?(?:天|日|周|星期|礼拜|个?月|年|小时)"
    r"|每(?:[两二三四五六七八九十几]|\d+)个?(?:天|日|周|星期|礼拜|月|年|小时)"
    r"|天天|(?:每个)?工作日"
)
_UNIT_EN = (
    r"day|night|morning|afternoon|evening|week|weekday|weekend|month|year|hour"
    r"|mon|monday|tue|tues|tuesday|wed|wednesday|thu|thur|thurs|thursday|fri|friday"
    r"|sat|saturday|sun|sunday"
)
_REPEAT_EN = (
    rf"\b(?:every|each)\s+(?:other\s+|single\s+|\d+\s+)?(?:{_UNIT_EN})s?\b"
    r"|\bon\s+weekdays\b|\b(?:daily|nightly)\b"
)
_REPEAT = re.compile(rf"{_REPEAT_ZH}|{_REPEAT_EN}", re.IGNORECASE)
# What may stand between a repetition and the time it repeats (每天 晚上10点, every night at 10pm).
_TIME_GLUE = re.compile(r"[\s的在于,，]*(?:(?:at|on|in|by)\b[\s]*)?", re.IGNORECASE)
# What may come before a repetition that opens the request (提醒我每天…, "remind me every…").
_OPENING = re.compile(
    r"[\s,，]*(?:以后|今后|从今天起|从明天起|from now on)?[\s,，]*"
    r"(?:请|麻烦|帮我|记得|提醒我|叫我|please|pls|remind me(?: to)?)?[\s,，]*$",
    re.IGNORECASE,
)


def repeats(read: str, *, due: str) -> bool:
    """Whether a todo request asks for a repetition (每天, 每周一早上, "every friday"), not one
    due time: a repetition word right before the time said (``due``), opening the request,
    or ending it. One inside a title (整理每周例会纪要, 写每天的日报, a quoted title) is not."""
    text = outside_quotes(read)
    return any(_governs(text, match.start(), match.end(), due) for match in _REPEAT.finditer(text))


def _governs(text: str, start: int, end: int, due: str) -> bool:
    """Whether the repetition said at ``text[start:end]`` is the request's (see ``repeats``)."""
    due_at = text.find(due) if due else -1
    if due_at >= 0 and start < due_at + len(due) and due_at < end:
        return True  # the time said is (part of) the repetition: 每周五, every friday
    if due_at >= end and _TIME_GLUE.fullmatch(text[end:due_at]):
        return True
    if _OPENING.fullmatch(text[:start]):
        return True
    return not text[end:].strip(" \t,.!?;:，。！？；：~～")


def _repeating(read: str, intent: Intent, language: str) -> Intent | None:
    """The request with the repetition it says as its rule (每周一早上9点开周会 -> a todo due
    Monday 09:00 with ``FREQ=WEEKLY;BYDAY=MO``), or None: no repetition, one inside a title
    (写每天的日报), or what is left no todo (a read, a question)."""
    text = outside_quotes(read)
    found = repetition.find(text, language)
    if found is None or intent.tool not in (None, *_TIMED_WRITES):
        return None
    if intent.tool is None and intent.message != "PLANNER_HELP":
        return None
    rest = _one(found.rest)
    due = str(rest.args.get("due_at") or "")
    said = due.replace(found.keep, "", 1).strip() if found.keep else due
    if not _governs(text, found.start, found.end, said or found.keep):
        return None  # 整理每周例会纪要: the repetition is part of the title
    args = {**rest.args, "recurrence": found.rrule}
    sure = requests.sure_title(str(rest.args.get("title") or ""), language)
    if rest.tool == "create_todo" and (rest.slot is None or (rest.slot == SLOT_INTENT and sure)):
        return Intent("create_todo", args)  # the repetition makes it a request: no question
    if rest.tool in _TIMED_WRITES and rest.slot is not None:
        return replace(rest, args=args)  # asked (a vague time, no title), the rule kept
    if rest.tool == "update_todo":
        return replace(rest, args=args)  # 把交房租改成每月1号
    if rest.tool is None and not _QUESTIONS[language].search(found.rest):
        # "water the plants every other day": the rest is the todo, as said
        fields = grammar_for(read).todo_fields(found.rest)
        title = str(fields.args.get("title") or "")
        if (
            fields.tool == "create_todo"
            and fields.slot is None
            and requests.sure_title(title, language)
        ):
            return replace(fields, args={**fields.args, "recurrence": found.rrule})
    return None


def _complete(intent: Intent, language: str) -> Intent:
    """A bare "time + event" (明天下午3点去取快递, "tomorrow 3pm dentist, high priority") whose
    title reads as the todo itself is the request: its card at once, no "shall I?" round
    trip. A title with a clause, a statement or another request's verb stays a question;
    a time the tool cannot read is asked for by its ``prepare``."""
    args = intent.args
    if (
        intent.tool != "create_todo"
        or intent.slot != SLOT_INTENT
        or not args.get("due_at")
        or not requests.sure_title(str(args.get("title") or ""), language)
    ):
        return intent
    return replace(intent, slot=None)


_QUOTED_FIRST = re.compile(rf"^\s*(?P<title>{QUOTED})\s*[，,：:；;]?\s*(?P<rest>.+)$", re.DOTALL)


def _tidy_note(intent: Intent, language: str) -> Intent:
    """A new note's title without the quotes, colon and request after it (「菜谱」，写上番茄炒蛋
    -> title 菜谱, content 番茄炒蛋), and its content without the asking words that open it."""
    if intent.tool != "create_note":
        return intent
    args = dict(intent.args)
    quoted = _QUOTED_FIRST.match(str(args.get("title") or ""))
    if quoted and unquote(quoted.group("title")):
        args["title"] = unquote(quoted.group("title"))
        content = str(args.get("content") or "")
        args["content"] = (
            quoted.group("rest").strip() + ("\n" + content if content else "")
        ).strip()
    if args.get("content"):
        args["content"] = requests.content_without_head(str(args["content"]), language)
    return intent if args == intent.args else replace(intent, args=args)


def _with_reminder(intent: Intent, read: str, language: str) -> Intent:
    """A new todo asked as a reminder ("remind me to call mom tomorrow at 10am") is reminded at
    its due time, when that time has a clock."""
    args = intent.args
    if (
        intent.tool != "create_todo"
        or "remind_at" in args
        or not repetition.asks_reminder(outside_quotes(read), language)
    ):
        return intent
    if intent.slot == SLOT_DUE and not args.get("due_at"):
        # 天天提醒我背单词: asked what time; the answer is the reminder's time too
        return replace(intent, args={**args, "remind_at": None})
    due = str(args.get("due_at") or "")
    if intent.slot is not None or not repetition.has_clock(due, language):
        return intent  # 提醒我明天交电费: a day, no time to remind at (the todo is due that day)
    return replace(intent, args={**args, "remind_at": due})


def _one(read: str) -> Intent:
    """What one sentence asks for, in its grammar."""
    intent = grammar_for(read).interpret(read)
    if intent.tool is None and grammar_for(read) is zh and re.search(r"[A-Za-z]{3,}", read):
        # Mixed Chinese and English ("remind me to 交房租 tomorrow 9am"): the English form.
        intent = en.interpret(read)
    return _unlabelled(intent)


# The argument naming an existing item, and the labels said before its name: "the todo
# called X", 名为X的待办, 标题是X的那条, 叫X的待办 (叫 only with its 的: 叫外卖 is a name).
_ITEM_KEYS = ("todo_title", "note_title")
_KIND_AFTER_NAME = re.compile(r"(?<=..)的\s*(?:待办|任务|事项|笔记|那条|这条|那个|这个|那篇|这篇)$")
_NAME_LABEL = re.compile(
    r"^(?:(?:called|named|titled|entitled)\s+(?=\S)"
    r"|(?:名为|名叫|(?:标题|题目|名字|名称)\s*(?:是|为|叫做?))\s*(?=\S)"
    r"|叫做?(?=\S.*的$)|叫作(?=\S.*的$))",
    re.IGNORECASE,
)


def _unlabelled(intent: Intent) -> Intent:
    """``intent`` with the items it names without their label ("called Buy milk" -> "Buy
    milk", 叫写周报的 -> 写周报) or the kind said after them (交房租的待办 -> 交房租); the name as
    read stays the next reading (``otherwise``), for an item whose title does hold such words."""
    more = tuple(_unlabelled(one) for one in intent.more)
    args = dict(intent.args)
    for key in _ITEM_KEYS:
        value = args.get(key)
        if not isinstance(value, str):
            continue
        label = _NAME_LABEL.match(value)
        name = value[label.end() :].strip() if label else value
        # 给交房租的待办提高优先级: the kind said after the name, with its 的
        name = _KIND_AFTER_NAME.sub("", name)
        if label and re.search(r"[\u4e00-\u9fff]", label.group()):
            name = re.sub(r"(?<=.)的$", "", name)  # 名为交房租的(待办)
        if unquote(name) and name != value:
            args[key] = unquote(name)
    if args == intent.args or intent.tool is None:
        return replace(intent, more=more) if more != intent.more else intent
    return replace(
        intent, args=args, otherwise=((intent.tool, intent.args), *intent.otherwise), more=more
    )


def _as_written(args: dict[str, Any], read: str, written: str) -> dict[str, Any]:
    def back(value: Any) -> Any:
        if isinstance(value, str):
            return as_written(value, read=read, written=written)
        if isinstance(value, list):
            return [back(item) for item in value]
        return value

    return {key: back(value) for key, value in args.items()}


def _written_back(intent: Intent, read: str, written: str) -> Intent:
    def back(
        pairs: tuple[tuple[str, dict[str, Any]], ...],
    ) -> tuple[tuple[str, dict[str, Any]], ...]:
        return tuple((tool, _as_written(args, read, written)) for tool, args in pairs)

    return replace(
        intent,
        args=_as_written(intent.args, read, written),
        also=back(intent.also),
        otherwise=back(intent.otherwise),
        more=tuple(_written_back(one, read, written) for one in intent.more),
        instead=tuple(_written_back(one, read, written) for one in intent.instead),
    )


class RulesPlanner:
    """Deterministic planner: a proposal per write the message asks for, one question or
    one read."""

    def plan(self, request: PlanRequest) -> PlanResult:
        """Interpret the sentence; run reads through the caller, propose or ask for the rest."""
        locale = reply_locale(request.text, request.locale)
        intent = interpret(request.text)
        if intent.tool is None:
            return PlanResult(text=translate(intent.message, locale))
        if intent.slot is not None:
            clarification = Clarification(tool=intent.tool, args=intent.args, slot=intent.slot)
            return PlanResult(text=question(clarification, locale), clarify=clarification)
        reads = [(intent.tool, intent.args), *intent.also]
        if all(tool in request.read_tools for tool, _ in reads):
            facts = [run_read(request, tool, args) for tool, args in reads]
            return PlanResult(text=describe_facts(facts, locale), facts=facts)
        # The reply is left to the caller: a card gets its fixed "please confirm" sentence,
        # a planned or forbidden capability its registry guidance.
        writes = (intent, *intent.more)
        return PlanResult(
            text="",
            proposals=[_proposal(one, f"rules-{n}") for n, one in enumerate(writes, start=1)],
        )

    def final_reply(self, *, snapshot: dict[str, Any], receipt: dict[str, Any], locale: str) -> str:
        """Fill the template the receipt's tool names; no model, so it cannot fail."""
        return template_reply(snapshot=snapshot, receipt=receipt, locale=locale)


def _proposal(intent: Intent, call_id: str) -> Proposal:
    """The write of ``intent`` with its other readings: another kind of item (``otherwise``,
    each reading carrying the ones after it) and several items (``instead``)."""
    otherwise = None
    for tool, args in reversed(intent.otherwise):
        otherwise = Proposal(tool=tool, args=args, call_id=call_id, otherwise=otherwise)
    instead = tuple(
        _proposal(one, f"{call_id}.{n}") for n, one in enumerate(intent.instead, start=1)
    )
    return Proposal(
        tool=intent.tool or "",
        args=intent.args,
        call_id=call_id,
        otherwise=otherwise,
        instead=instead,
    )
