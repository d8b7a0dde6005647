"""Repetition and reminders said in a request, read from each language's table.

``agent/planners/data/<language>/recurrence.tsv`` holds the words (its header says the row
kinds); this module is the one mechanism over them. :func:`find` returns the repetition a
sentence says as an RFC 5545 RRULE of the todos' closed subset (``FREQ=WEEKLY;BYDAY=MO``),
with the sentence as it reads without it (the words a rule keeps for the due time in its
place: 每周一早上9点开周会 -> 周一早上9点开周会). The rule is only *proposed*: the tool's
``prepare`` checks it with the service's own rules (``todos.recurrence``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from agent.planners.tables import patterns, rows
from agent.timeparse.normalise import normalise as time_words

_PLACEHOLDER = re.compile(r"\{(?P<name>[a-z]+)(?P<said>_said)?(?P<each>\*)?(?:\+(?P<plus>\d+))?\}")


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern[str]
    rrule: str  # a template: {group} / {group+1} the group's value, {group_said} as typed
    keep: str  # the words left in the sentence in its place (same template)


@dataclass(frozen=True)
class Repetition:
    """A repetition found in a sentence: its rule, where it was said, the sentence without it."""

    rrule: str
    start: int
    end: int
    keep: str
    rest: str


@dataclass(frozen=True)
class Table:
    """One language's rows (see the data file's header)."""

    values: dict[tuple[str, str], str] = field(default_factory=dict)
    rules: tuple[Rule, ...] = ()
    refuse: tuple[re.Pattern[str], ...] = ()
    stop: tuple[re.Pattern[str], ...] = ()
    change: tuple[re.Pattern[str], ...] = ()
    remind: tuple[re.Pattern[str], ...] = ()
    clock: tuple[re.Pattern[str], ...] = ()


@cache
def table(language: str) -> Table:
    """The rows of ``data/<language>/recurrence.tsv``, compiled once."""
    found = rows(language, "recurrence")
    return Table(
        values={(group, word.lower()): value for group, word, value in found.get("value", ())},
        rules=tuple(
            Rule(re.compile(row[0], re.IGNORECASE), row[1], row[2] if len(row) > 2 else "")
            for row in found.get("rule", ())
        ),
        refuse=patterns(language, "recurrence", "refuse"),
        stop=patterns(language, "recurrence", "stop"),
        change=patterns(language, "recurrence", "change"),
        remind=patterns(language, "recurrence", "remind"),
        clock=patterns(language, "recurrence", "clock"),
    )


def _value(language: str, group: str, said: str) -> str:
    """What a group's word stands for: its value row, or the number it writes."""
    word = said.lower()
    found = table(language).values.get((group, word))
    if found is not None:
        return found
    digits = time_words(word)
    if digits.isdigit():
        return str(int(digits))
    raise ValueError(f"no value for {group}={said!r}")


@cache
def _group_words(language: str, group: str) -> re.Pattern[str]:
    """Any word of ``group``'s value rows, the longest first (English: a whole word, or its
    plural: "mondays")."""
    words = sorted(
        (word for kind, word in table(language).values if kind == group), key=len, reverse=True
    )
    one_of = "(" + "|".join(map(re.escape, words)) + ")"
    return re.compile(rf"\b{one_of}s?\b" if language == "en" else one_of)


def _each_value(language: str, group: str, said: str) -> str:
    """The values of every word of ``group`` in ``said``, in the order said, joined by commas
    (周一三五 -> MO,WE,FR; "Monday, Wednesday and Friday" -> MO,WE,FR)."""
    found = _group_words(language, group).findall(said.lower())
    return ",".join(dict.fromkeys(_value(language, group, word) for word in found))


def _fill(template: str, match: re.Match[str], language: str) -> str:
    def one(placeholder: re.Match[str]) -> str:
        said = match.group(placeholder["name"])
        if placeholder["said"]:
            return said
        if placeholder["each"]:
            return _each_value(language, placeholder["name"], said)
        value = _value(language, placeholder["name"], said)
        return str(int(value) + int(placeholder["plus"])) if placeholder["plus"] else value

    return _PLACEHOLDER.sub(one, template)


def find(text: str, language: str) -> Repetition | None:
    """The repetition ``text`` says (the longest any rule matches), or None."""
    best: tuple[re.Match[str], Rule] | None = None
    for rule in table(language).rules:
        for match in rule.pattern.finditer(text):
            if best is None or len(match.group()) > len(best[0].group()):
                best = (match, rule)
    if best is None:
        return None
    match, rule = best
    keep = _fill(rule.keep, match, language)
    left, right = text[: match.start()], text[match.end() :]
    glue = " " if keep and language == "en" else ""
    rest = (left.rstrip() + " " if glue and left.strip() else left) + keep
    rest = rest + (" " if glue and right.strip() else "") + (right.lstrip() if glue else right)
    return Repetition(
        rrule=_fill(rule.rrule, match, language),
        start=match.start(),
        end=match.end(),
        keep=keep,
        rest=re.sub(r"\s+", " ", rest).strip(),
    )


def refused(text: str, language: str) -> bool:
    """Whether ``text`` says a repetition todos cannot follow (每逢农历十五, "every full moon")."""
    return any(pattern.search(text) for pattern in table(language).refuse)


def stop_item(text: str, language: str) -> str | None:
    """The todo whose repetition ``text`` asks to stop ("stop repeating X"), or None."""
    for pattern in table(language).stop:
        match = pattern.match(text.strip())
        if match and match.group("item").strip():
            return match.group("item").strip()
    return None


def change_item(text: str, language: str) -> tuple[str, Repetition] | None:
    """The todo whose repetition ``text`` sets ("make Pay rent repeat every month",
    把交房租改成每月1号) and the repetition, or None. The words of the ``rule`` group must be a
    repetition and at most a time of day ("every day at 9am": the repetition's ``rest`` is then
    the due time); "make pay rent repeat every month as usual" is not one."""
    for pattern in table(language).change:
        match = pattern.match(text.strip())
        if not match or not match.group("item").strip():
            continue
        found = find(match.group("rule").strip(), language)
        if found is not None and (found.rest == found.keep or has_clock(found.rest, language)):
            return match.group("item").strip(), found
    return None


def asks_reminder(text: str, language: str) -> bool:
    """Whether ``text`` asks to be reminded (提醒我, "remind me")."""
    return any(pattern.search(text) for pattern in table(language).remind)


def has_clock(due: str, language: str) -> bool:
    """Whether a due time as said names a time of day (明天上午10点, "in 2 hours"), not a day."""
    return any(pattern.search(due) for pattern in table(language).clock)
