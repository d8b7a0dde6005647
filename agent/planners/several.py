"""Several writes in one message: one card each, in the order said.

A message may ask for more than one write: a list of new todos ("加三个待办：A、B、C", "add
these tasks: A, B, C"), one change to several items ("把A和B都标记完成", "delete X and Y"),
or requests one after another ("mark X done, then delete Y"). Each grammar finds the pieces
(its ``several`` module: :class:`Split` for lists, :class:`Clause` for requests in a row)
and rewrites each as a sentence of its own; this module interprets them and decides:

- every piece must be a complete write (a tool, no question): else the message is read as
  one request, as before — a list the grammar cannot take apart is never guessed at;
- a clause joins the request before it unless it opens one (a write verb, a connector such
  as 然后 / "then" / 也, or a full stop before it) and both are complete; the account's
  deletion is never one of several;
- after a note's content (or a description) only a connector followed by a request said anew
  to the assistant opens one (另外帮我加个待办…, "Also, add a todo …"), and it runs to the end
  of the message, so a note whose content says "然后删除旧的需求文档" or "then add 1.5 cups
  flour" stays one note;
- two items joined by 和 / "and" with nothing saying "both" (把A和B标记完成) may be one item
  titled "A和B": that reading is proposed, and the two items instead only when no item of
  that title is found (``Intent.instead``, tried by the turn).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from agent.planners.lexicon import QUOTED, STRIP, Intent

READ_TOOLS = frozenset(("query_todos", "search_notes"))
ALONE = "delete_account"
# Writes that carry free text a later clause could belong to.
_TEXT_ARGS = ("content", "append", "description")
# Pieces interpreted at most this deep (a clause that is itself a list).
_MAX_DEPTH = 2
# A message of more clauses or list items than this is no list of requests (a turn makes at
# most a few cards): it is read whole. Within it a clause is read on its own only where a
# request may start (a connector, a full stop, a write verb), so pasted text of many commas
# is not read again at each one.
MAX_PIECES = 60


@dataclass(frozen=True)
class Split:
    """A message taken apart into one sentence per item (a list, or items acted on alike)."""

    sentences: tuple[str, ...]
    # Two items joined by 和 / "and" and nothing saying "both": the whole reading first.
    whole_first: bool = False


@dataclass(frozen=True)
class Clause:
    """One clause of a message, and how it was joined to the one before it."""

    text: str  # the clause as a sentence of its own (a leading connector removed)
    joint: str  # the separator as written, to put the clause back if it opens nothing
    strong: bool = False  # after a full stop / semicolon, or led by a connector (然后, then)
    connector: bool = False  # led by a connector


def is_complete_write(intent: Intent, read_tools: frozenset[str]) -> bool:
    """A write the card can be prepared from: a tool, not a read, no question pending."""
    return bool(intent.tool) and intent.slot is None and intent.tool not in read_tools


def several(
    text: str,
    *,
    split: Callable[[str], Split | None],
    clauses: Callable[[str], Sequence[Clause]],
    opens_request: Callable[[str], bool],
    asks_anew: Callable[[str], bool],
    interpret: Callable[[str], Intent],
    read_tools: frozenset[str] = READ_TOOLS,
    depth: int = 0,
) -> Intent | None:
    """Return the message's writes as one intent with ``more`` (or ``instead``), or None."""

    def complete(intent: Intent) -> bool:
        return is_complete_write(intent, read_tools)

    def whole(sentence: str) -> Intent:
        if depth + 1 >= _MAX_DEPTH:
            return interpret(sentence)
        return several(
            sentence,
            split=split,
            clauses=clauses,
            opens_request=opens_request,
            asks_anew=asks_anew,
            interpret=interpret,
            read_tools=read_tools,
            depth=depth + 1,
        ) or interpret(sentence)

    listed = split(text)
    if listed is not None and 1 < len(listed.sentences) <= MAX_PIECES:
        intents = [interpret(sentence) for sentence in listed.sentences]
        if all(complete(intent) and intent.tool != ALONE for intent in intents):
            if listed.whole_first:
                one = interpret(text)
                if complete(one) and one.tool == intents[0].tool:
                    return replace(one, instead=tuple(intents))
            return _joined(intents)
    parts = clauses(text)
    if not 1 < len(parts) <= MAX_PIECES:
        return None
    pieces = [parts[0].text]
    for index, clause in enumerate(parts[1:], start=1):
        if not (clause.connector or clause.strong or opens_request(clause.text)):
            pieces[-1] = f"{pieces[-1]}{clause.joint}{clause.text}"
            continue  # a comma and more of the same: read only where a request may start
        current = interpret(pieces[-1])
        if clause.connector and asks_anew(clause.text) and complete(current):
            # 另外，再记一条笔记，标题叫…，内容：… / "Then also make a note called X with: a, b":
            # a request said anew runs to the end of the message, commas and all
            rest = clause.text + "".join(f"{c.joint}{c.text}" for c in parts[index + 1 :])
            if not complete(whole(clause.text)) and complete(whole(rest)):
                pieces.append(rest)
                break
        carries_text = any(current.args.get(key) for key in _TEXT_ARGS)
        # After a note's content or a description, only a request said anew to the assistant
        # opens another (另外帮我加个待办…, "Also, add a todo…"): "…，然后删除旧的需求文档" and
        # "…, then add 1.5 cups flour" are the content's own words.
        opens = (
            clause.connector and asks_anew(clause.text)
            if carries_text
            else clause.connector or clause.strong or opens_request(clause.text)
        )
        if opens and complete(current) and complete(whole(clause.text)):
            pieces.append(clause.text)
        else:
            pieces[-1] = f"{pieces[-1]}{clause.joint}{clause.text}"
    if len(pieces) < 2:
        return None
    intents = [whole(piece) for piece in pieces]
    if not all(complete(intent) and intent.tool != ALONE for intent in intents):
        return None  # the account's deletion is never one card among others
    return _joined([one for intent in intents for one in _flat(intent)])


def _flat(intent: Intent) -> list[Intent]:
    return [replace(intent, more=()), *intent.more]


def _joined(intents: list[Intent]) -> Intent:
    first, *rest = intents
    return replace(first, more=tuple(rest))


def cut_outside_quotes(pattern: re.Pattern[str], text: str) -> list[str]:
    """``text`` cut at each match of ``pattern`` that is not inside quotes."""
    pieces: list[str] = []
    start = 0
    for match in pattern.finditer(text):
        if match.start() == match.end() or quoted_at(text, match.start()):
            continue
        pieces.append(text[start : match.start()])
        start = match.end()
    pieces.append(text[start:])
    return pieces


def quoted_at(text: str, index: int) -> bool:
    """Whether ``index`` falls inside a quoted span of ``text``."""
    return any(span.start() < index < span.end() for span in re.finditer(QUOTED, text))


def cut_clauses(
    text: str, joints: re.Pattern[str], clause: Callable[[str, str, bool, bool], Clause]
) -> list[Clause]:
    """``text`` cut at each match of ``joints`` outside quotes (its groups: ``stop`` a full
    stop or semicolon, ``word`` / ``after`` / ``then`` a connector), each clause made by
    ``clause(text, joint, strong, connector)``; joints around nothing count as one."""
    body = text.strip()
    found: list[Clause] = []
    start = 0
    joint = ""
    strong = connector = False
    for match in joints.finditer(body):
        if match.start() == 0 or quoted_at(body, match.start()):
            continue
        linked = any(match.group(name) for name in ("word", "after", "then"))
        piece = body[start : match.start()].strip()
        if not piece.strip(STRIP):  # "；另外，…": the joints around nothing are one joint
            joint += match.group(0)
            connector = connector or linked
            strong = strong or bool(match.group("stop")) or connector
        else:
            found.append(clause(piece, joint, strong, connector))
            joint = match.group(0)
            connector = linked
            strong = bool(match.group("stop")) or connector
        start = match.end()
    piece = body[start:].strip()
    if piece.strip(STRIP):
        found.append(clause(piece, joint, strong, connector))
    return found
