"""Several requests in one English message, each rewritten as a sentence of the grammar.

- a list of new todos after a plural head ("add these tasks: A, B, C", "Add five todos: …",
  "a few todos pls: A; B; C", "two tasks - A and B") or numbered before "add all of them":
  "todo: <item>" each;
- one change to several items ("mark A, B and C as complete", "delete X and Y", "move A and
  B to Friday", "A and B are done"): the change once per item; two items joined by "and"
  with nothing saying "both" are tried as one title first (``Split.whole_first``);
- requests one after another, split at ". ", "; ", commas, "then", "also", "and another one
  to …" (the driver, ``agent.planners.several``, decides which clauses open a request).

"mark both of them done" asks which, like "mark it done". A count in the head chooses how
the list is cut (";", commas, then "and"); a quoted span is never cut.
"""

from __future__ import annotations

import re

from agent.planners.en.slots import strip_polite
from agent.planners.en.writes import WRITE_HEAD
from agent.planners.lexicon import STRIP
from agent.planners.several import (
    Clause,
    Split,
    cut_clauses,
    cut_outside_quotes,
)

_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "couple": 2}
_KINDS = r"(?:todos|to-?dos|tasks|items|reminders|things)"
_PLURAL = (
    r"(?:(?P<count>two|three|four|five|six|[2-6])\s+(?:new\s+)?(?:todos?|to-?dos?|tasks?|items?"
    r"|reminders?|things)"
    r"|(?:these|the\s+following|a\s+few|some|several|multiple|a\s+couple\s+(?:of\s+)?|a\s+bunch\s+of)"
    rf"\s+(?:new\s+)?{_KINDS}|(?:new\s+)?{_KINDS}|these|the\s+following)"
)
# add these tasks: A, B, C / Add five todos: … / a few todos pls: A; B / two tasks - A and B
_LIST_HEAD = re.compile(
    r"^(?:(?:add|create|make|put\s+down|set\s+up|jot\s+down|write\s+down|note\s+down|new)\s+)?"
    rf"{_PLURAL}(?:\s+(?:for\s+me|pls|please|to\s+my\s+list))?\s*(?:[:\-–—]|,)\s*(?P<items>.+)$",
    re.IGNORECASE,
)
# 1. book flights 2. renew car insurance - add all of them
_LIST_THEN_ADD = re.compile(
    r"^(?=.*\b(?:add|put)\b)(?P<items>.+?)[\s,.\-–—]*(?:(?:please|pls)\s+)?(?:add|put)\s+(?:them|these|those)?\s*"
    r"(?:all(?:\s+of\s+(?:them|these|those))?)?(?:\s+(?:to\s+my\s+(?:list|todos|tasks)|as\s+(?:todos|tasks)))?$",
    re.IGNORECASE,
)
_NUMBERED = re.compile(r"(?:^|(?<=[\s,;.]))\d{1,2}\s*[.)]\s+(?!\d)|(?:^|(?<=\s))[-•*]\s+(?=\w)")

_BOTH = r"(?:both|all(?:\s+of)?|each\s+of)"
_VERB = (
    r"(?:mark|tick\s+off|tick|check\s+off|cross\s+off|complete|finish|delete|delte|remove|erase|trash"
    r"|drop|reopen|re-open|uncheck|unmark|move|push|postpone|reschedule|make|set)"
)
_REST = (
    r"(?:\s+(?:as\s+)?(?:done|complete|completed|finished|open|not\s+done|undone|incomplete"
    r"|high|low|normal|medium|urgent)\b.*"
    r"|\s+(?:to|until|till)\s+.+|\s+off)"
)
# mark A, B and C as complete / delete X and Y / move A and B to Friday
_TARGETS = re.compile(
    rf"^(?P<verb>{_VERB})\s+(?P<all>{_BOTH}\s+)?(?P<items>.+?)(?P<both>\s+both)?(?P<rest>{_REST})?[.!]*$",
    re.IGNORECASE,
)
# Pay rent and Call mom are done
_TARGETS_FIRST = re.compile(
    r"^(?P<all>both\s+)?(?P<items>.+?)\s+(?:are|r)\s+(?:both\s+|all\s+)?"
    r"(?P<rest>done|finished|complete|completed)\b[.!]*$",
    re.IGNORECASE,
)
_PLURAL_PRONOUN = re.compile(
    r"^(?:both(?:\s+of\s+(?:them|those))?|them(?:\s+(?:both|all))?|those(?:\s+(?:two|three|ones))?"
    r"|these(?:\s+(?:two|three|ones))?|all\s+of\s+them|the\s+two(?:\s+of\s+them)?)$",
    re.IGNORECASE,
)
_NOT_AN_ITEM = re.compile(
    r"^(?:also|then|and|plus|after\s+that)\b|" + WRITE_HEAD.pattern[1:], re.IGNORECASE
)
_THE = re.compile(r"^the\s+", re.IGNORECASE)
_KIND_AFTER = re.compile(r"\s+(?P<kind>notes|todos|tasks)$", re.IGNORECASE)
_ITEM_SEPARATORS = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*", re.IGNORECASE)

# Clauses: a full stop, a semicolon, a comma, or a connector, each outside quotes.
_JOINTS = re.compile(
    r"(?P<stop>(?<!\b[A-Za-z])[.;!?]\s+(?=[A-Za-z\"'“]))"  # (not "e.g.": "at 5. After" is)
    r"(?P<then>(?:(?:oh|and|also|then|plus|separately|additionally|after\s+that)\b,?\s*)+)?"
    r"|(?P<comma>,\s*)(?P<after>(?:and\s+then|then|and\s+also|also|plus|and)\s+)?"
    r"|(?P<word>\s+(?:and\s+then|then|and\s+also|also|plus|after\s+that)\s+)"
    r"|(?P<and>\s+and\s+(?=(?:another|one\s+more)\b|" + WRITE_HEAD.pattern[1:] + r"))",
    re.IGNORECASE,
)
# "… and another one to cancel Netflix" / "Also add a new one: …" / "and a todo to …": a
# further todo
_ANOTHER = re.compile(
    r"^(?:(?:add|create|make)\s+)?(?:another|one\s+more|a\s+new\s+one|(?:a|one)(?:\s+new)?"
    r"(?=\s+(?:todo|task|reminder)\b))(?:\s+(?:one|todo|task|reminder))?\s*(?:to\b|:|-)\s*"
    r"(?P<item>.+)$",
    re.IGNORECASE,
)
# "… And another note titled Kids schedule: …": one more note
_ANOTHER_NOTE = re.compile(r"^(?:and\s+)?(?:another|one\s+more)\s+note\b", re.IGNORECASE)


# Nothing of a list or of several items in it: no need to look further (every message
# passes here).
_MAYBE_SEVERAL = re.compile(
    r"[,;&]|\d\s*[.)]|(?:^|\s)[-•*]\s|\b(?:and|both|all|each|these|following|few|some"
    r"|several|multiple|couple|bunch|two|three|four|five|six|todos|tasks|items|reminders"
    r"|things)\b",
    re.IGNORECASE,
)


_TWO_THINGS = re.compile(
    r"^(?:two|three|a\s+couple\s+of)\s+things\s*[:,\-–—]\s*first(?:ly)?,?\s*(?P<a>.+?)[.;]\s*"
    r"second(?:ly)?,?\s*(?P<b>.+)$",
    re.IGNORECASE,
)
_AT_TIME = r"\b(?:at|by)\s+\d{1,2}(?::\d{2})?\s*(?:am|pm)\b"
_TWO_TIMED = re.compile(
    r"^(?P<head>(?:please\s+|pls\s+)?(?:remind\s+me\s+to|add|i\s+(?:need|have)\s+to)\s+)"
    rf"(?P<a>[^,;.]+?{_AT_TIME})\s*,?\s+and\s+(?!then\b)(?P<b>[^,;.]+?{_AT_TIME})[.!]?$",
    re.IGNORECASE,
)
_NOTE_QUOTED = re.compile(r"^note\s+(?P<title>\"[^\"]+\"|“[^”]+”)\s*:\s*", re.IGNORECASE)
_A_NOTE = re.compile(r"^(?:a|one)\s+(?:new\s+)?note\s+(?=titled|called|named)", re.IGNORECASE)


def reword(text: str) -> str:
    """The message in the form the grammar reads: 'note "X": …' → 'create a note titled "X":
    …'; "Two things: first, A. Second, B" → "A. Also, B"; "a note titled X — …" → "create
    a note titled X — …"."""
    body = text.strip()
    two = _TWO_THINGS.match(body)
    if two:
        body = f"{two.group('a')}. Also, {two.group('b')}"
    timed = _TWO_TIMED.match(body)
    if timed:
        # "remind me to water plants at 8pm and take out trash at 9pm": two todos, each
        # with its own time
        head = timed.group("head")
        body = f"{head}{timed.group('a')}. Also, {head.lstrip()}{timed.group('b')}"
    quoted = _NOTE_QUOTED.match(body)
    if quoted:
        body = f"create a note titled {quoted.group('title')}: {body[quoted.end() :]}"
    return _A_NOTE.sub("create a note ", body)


def split(text: str) -> Split | None:
    """The message as one sentence per item, when it lists several (else None)."""
    if not _MAYBE_SEVERAL.search(text):
        return None
    body = strip_polite(text)
    return _new_items(body) or _targets(body)


# A description's or a note's text: a numbered list in it is its content, not several items.
_CONTENT_LABEL = re.compile(
    r"\b(?:description|notes?|content|details|text)\s*:|\bwith\s+the\s+description\b",
    re.IGNORECASE,
)


def _new_items(body: str) -> Split | None:
    if _CONTENT_LABEL.search(body):
        return None
    head = _LIST_HEAD.match(body)
    if head:
        count = (head.group("count") or "").lower()
        number = int(count) if count.isdigit() else _COUNTS.get(count)
        items = _cut(head.group("items"), number, loose=True)
        if items:
            return Split(tuple(f"todo: {item}" for item in items))
    listed = _LIST_THEN_ADD.match(body)
    if listed and _NUMBERED.search(listed.group("items")):
        items = _cut(listed.group("items"), None, loose=False)
        if items:
            return Split(tuple(f"todo: {item}" for item in items))
    return None


def _targets(body: str) -> Split | None:
    for pattern in (_TARGETS, _TARGETS_FIRST):
        match = pattern.match(body)
        if not match:
            continue
        marked = bool(match.group("all") or (pattern is _TARGETS and match.group("both")))
        items = match.group("items").strip(STRIP)
        if not marked and not re.search(r"\band\b|&", items):
            continue  # "delete X, meeting got cancelled": a comma alone makes no list
        kind = _KIND_AFTER.search(items)  # "the Recipes and Standup notes"
        if kind:
            items = items[: kind.start()]
        pieces = [piece.strip(STRIP) for piece in cut_outside_quotes(_ITEM_SEPARATORS, items)]
        if kind:
            singular = kind.group("kind").lower().rstrip("s")
            pieces = [f"the {_THE.sub('', piece)} {singular}" for piece in pieces]
        if len(pieces) < 2 or not all(_item_like(piece) for piece in pieces):
            continue
        if pattern is _TARGETS:
            rest = match.group("rest") or ""
            sentences = [f"{match.group('verb')} {piece}{rest}" for piece in pieces]
        else:
            sentences = [f"{piece} is {match.group('rest')}" for piece in pieces]
        whole_first = not marked and len(pieces) == 2 and "," not in items
        return Split(tuple(sentences), whole_first=whole_first)
    return None


def _item_like(piece: str) -> bool:
    """A piece naming an item, not a request of its own ("also set X …")."""
    return len(piece) > 1 and not _NOT_AN_ITEM.match(piece)


def plural_pronoun(text: str) -> str | None:
    """Several items pointed at, none named: "mark both of them done" → "mark it done"."""
    if not re.search(r"\b(?:both|them|those|these|two|three)\b", text, re.IGNORECASE):
        return None
    match = _TARGETS.match(strip_polite(text))
    if not match:
        return None
    items = f"{match.group('all') or ''}{match.group('items')}".strip(STRIP)
    if not _PLURAL_PRONOUN.match(items):
        return None
    return f"{match.group('verb')} it{match.group('rest') or ''}"


def clauses(text: str) -> list[Clause]:
    """The message's clauses, each with the joint that came before it."""
    return cut_clauses(text, _JOINTS, _clause)


def _clause(text: str, joint: str, strong: bool, connector: bool) -> Clause:
    text = _ANOTHER_NOTE.sub("create a note", text)
    another = _ANOTHER.match(text)
    if another:
        return Clause(f"add a todo: {another.group('item')}", joint, True, True)
    return Clause(text, joint, strong, connector)


# "Also, add a todo …" / "please create a todo titled …" / "And another note titled …" /
# "Oh and add a todo …": a request said anew to the assistant
_ASKS_ANEW = re.compile(
    r"^(?:oh,?\s+)?(?:and\s+)?(?:also,?\s+)?(?:separately,?\s+)?(?:please\s+|can\s+you\s+"
    r"|could\s+you\s+)?(?:(?:add|create|make|set\s+up|jot\s+down|save|take)\s+)?"
    r"(?:a|an|another|one\s+more|the)\s+(?:new\s+)?(?:todo|to-do|task|reminder|note)\b",
    re.IGNORECASE,
)


def asks_anew(text: str) -> bool:
    """Whether a clause after a note's content asks the assistant for something else."""
    return bool(_ASKS_ANEW.match(text.strip()))


def opens_request(text: str) -> bool:
    """Whether a clause starts a request of its own (a write verb at its head)."""
    return bool(WRITE_HEAD.match(strip_polite(text)))


def _cut(items: str, count: int | None, *, loose: bool) -> list[str]:
    """The items of a list: numbered, else cut at ";", then (``loose``) commas or "and"."""
    items = re.sub(r"\(([^()]+)\)", r" \1", items)
    numbered = [piece.strip(STRIP) for piece in cut_outside_quotes(_NUMBERED, items)]
    numbered = [piece for piece in numbered if piece]
    if len(numbered) > 1 and _NUMBERED.search(items):
        return numbered
    separators = [r"\s*;\s*"]
    if loose:
        separators += [r"\s*,\s*(?:and\s+)?", r"\s+and\s+"]
    best: list[str] = []
    for separator in separators:
        pieces = [
            piece.strip(STRIP) for piece in cut_outside_quotes(re.compile(separator, re.I), items)
        ]
        pieces = [piece for piece in pieces if piece]
        if len(pieces) < 2:
            continue
        if count is None or len(pieces) == count:
            return pieces
        best = best or pieces
    return best  # a count that does not match the list: the list as written
