"""Taking back the change just made, asked in English: "undo" / "undo that" / "oops, put it back".

:func:`undo_request` says whether a message asks to undo the conversation's last change. It
names no item of its own ("undo Pay rent" reopens the todo Pay rent; "restore the note
Recipes" restores that note): what it takes back is only pointed at — "that", "the last
change", "the todo I just deleted", "the due date" — or left unsaid. A request not to
("don't undo it"), a question about undoing ("how do I undo things?"), and a request that
merely contains the word ("add a todo: revert the config change") are not. Which card it
takes back is the caller's (``agent.cards.undo``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.planners.lexicon import STRIP, undo_of_clauses

_OOPS = (
    r"(?:oops+|whoops+|oh|ah|ugh|argh|dang|damn|shoot|crap|hm+|uh+|um+|hey|hi|wait|no+"
    r"|nope|sorry|my\s+bad|my\s+mistake|mistake|nvm|never\s*mind|scratch\s+that|scrap\s+(?:it|that)"
    r"|actually)"
)
_ASK = (
    r"(?:please|pls|plz|kindly|just|quickly|quick|can\s+(?:you|u|we)|could\s+(?:you|u|we)"
    r"|would\s+(?:you|u)|will\s+(?:you|u)|can\s+i|could\s+i|let'?s|lets|go\s+ahead\s+and"
    r"|i\s+(?:want|wanna|need|would\s+like|'d\s+like)\s+to|i'?d\s+like\s+to|help\s+me|try\s+to)"
)
_DID = (
    r"(?:deleted|removed|trashed|added|created|made|changed|marked(?:\s+as)?(?:\s+(?:done|complete"
    r"|completed|finished))?|completed|finished|checked\s+off|ticked\s+off|moved|edited|updated"
    r"|renamed|rescheduled|did|confirmed|saved|wrote)"
)
_LAST = r"(?:last|previous|latest|most\s+recent|prior)"
_ITEM = r"(?:todo|to-do|task|note|item|entry|one|thing|card|reminder)"
_CHANGE = r"(?:change|action|step|edit|thing|operation|update|delete|deletion|completion|creation)"
_FIELD = r"(?:due\s+date|due\s+time|deadline|date|time|title|name|priority|status)"
# that / the last change / my last action / what you just did / the todo I just deleted /
# the note creation / the due date (of the item just changed)
_OBJECT = (
    rf"(?:(?:that|this|it)(?:\s+{_LAST})?(?:\s+(?:{_CHANGE}|one))?"
    rf"|(?:the|my|your|that)\s+{_LAST}(?:\s+(?:{_CHANGE}|{_ITEM}))?"
    rf"|{_LAST}\s+(?:{_CHANGE}|one)"
    rf"|(?:the|that|this)\s+(?:{_ITEM}\s+|{_FIELD}\s+)?{_CHANGE}"
    # "marking it complete", "deleting that"
    r"|(?:marking|deleting|removing|adding|creating|changing|moving|completing|finishing|checking"
    r"|ticking)\s+(?:it|that|this)(?:\s+(?:off|as))?(?:\s+(?:done|complete|completed|finished))?"
    rf"|(?:the|that|this)\s+{_ITEM}"
    rf"|(?:the|that|this)\s+{_ITEM}(?:\s+(?:that\s+)?(?:i|you|we))?(?:\s+just)?\s+{_DID}"
    rf"|(?:the|that|this)\s+(?:just|recently)\s+{_DID}\s+{_ITEM}"
    rf"|(?:the|its|my)\s+(?:(?:previous|old|original|earlier|former)\s+)?{_FIELD}"
    r"|everything|all\s+(?:of\s+)?(?:that|it))"
    # "the last thing you did" / "what you just did"
    r"(?:\s+(?:(?:that\s+)?(?:you|i|we)\s+(?:just\s+)?(?:did|made|changed|done)))?"
    r"|what\s+(?:you|i|we)\s+(?:just\s+)?(?:did|done|changed|made|deleted|confirmed)"
)
_VERB = (
    r"(?:un-?do+|und0|revert|revrt|revet|reverse|roll\s*back|rollback|cancel|unmake|undelete"
    r"|ctrl\s*\+?\s*z|restore|recover|reinstate)"
)
_BACK_VERB = r"(?:take|put|bring|get|give|change|switch|set|turn|make|move|roll|go)"
# "remove the todo you just added": the new item taken away again, as said
_REMOVE_NEW = (
    r"(?:delete|remove|trash|get\s+rid\s+of|drop|discard|take)\s+(?:(?:the|that|this)\s+"
    rf"{_ITEM}\s+(?:(?:that\s+)?(?:i|you|we)\s+)?(?:just\s+)?(?:added|created|made|wrote)"
    # "remove that note again", "take the note back out"
    rf"|(?:it|that|(?:the|that|this)\s+{_ITEM})\s+(?:again|back\s+out))"
)
_BEFORE = (
    r"(?:\s+(?:to\s+)?(?:how|the\s+way|what)\s+it\s+(?:was|were|used\s+to\s+be)(?:\s+before)?"
    r"|\s+to\s+(?:the\s+)?(?:original|previous|old|earlier)(?:\s+(?:one|time|date|state|value|version"
    r"|due\s+date|deadline|title|name|priority))?|\s+to\s+before)"
)
_TAIL = (
    r"(?:\s+(?:again|now|too|as\s+well|for\s+me|real\s+quick|quickly|right\s+away|asap|then"
    r"|pl(?:ease|s|z)|thanks?|thx|ty|lol|haha+))*"
)
_UNDO = re.compile(
    rf"^(?:{_OOPS}\b[\s\-–—]*)*(?:(?:{_ASK})\b\s*)*"
    rf"(?:(?:{_VERB}\b\s*)+(?:\s*{_OBJECT})?(?:\s+back)?(?:{_BEFORE})?"
    rf"|{_BACK_VERB}\s+(?:{_OBJECT})\s+back(?:{_BEFORE})?|{_BACK_VERB}\s+back(?:\s+{_OBJECT})?(?:{_BEFORE})?"
    rf"|{_REMOVE_NEW}"
    rf"|(?:{_OBJECT})\s*[:\-–—]?\s*(?:{_VERB}|{_BACK_VERB}\s+(?:it\s+)?back)\b(?:\s+it)?)"
    rf"{_TAIL}$",
    re.IGNORECASE,
)
# "mark it as not done again" / "set it back to not done" / "un-mark it": a status change
# taken back, by its state
_OPEN = r"(?:not\s+done|undone|incomplete|open|unfinished|not\s+completed?|to\s*do|pending)"
_STATE = rf"(?:{_OPEN}|done|complete|completed|finished)"
_BACK_TO_STATE = re.compile(
    rf"^(?:{_OOPS}\b[\s\-–—]*)*(?:(?:{_ASK})\b\s*)*"
    rf"(?:(?:mark|set|change|switch|turn|make|put|move)\s+(?:it|that|this)\s+"
    rf"(?:back\s+(?:to\s+)?(?P<back>{_STATE})|(?:to\s+|as\s+)?(?P<again>{_STATE})\s+again)"
    r"|un-?(?:mark|check|tick)\s+(?:it|that|this))"
    rf"{_TAIL}$",
    re.IGNORECASE,
)
_NOT = re.compile(
    r"\b(?:don'?t|do\s+not|dont|no\s+need\s+to|not|never|won'?t|shouldn'?t|stop)\s+"
    r"(?:\w+\s+){0,2}?(?:undo|revert|restore|roll|take|put|cancel|reverse|bring)",
    re.IGNORECASE,
)
# "I clicked confirm by accident" / "my bad": what went wrong, said beside the request
_MISTAKE = re.compile(
    rf"^(?:{_OOPS}\b[\s,]*)*$|\b(?:by\s+(?:accident|mistake)|accident(?:al(?:ly)?)?|mistake"
    r"|wrong|didn'?t\s+mean|mis-?click(?:ed)?|misclick|fat[\s-]?finger(?:ed)?|oops|my\s+bad"
    r"|changed\s+my\s+mind)\b",
    re.IGNORECASE,
)
# A word every form above has: most messages are no undo, and this says so in microseconds.
_MAY_ASK = re.compile(
    r"un-?do|und0|revert|revrt|revet|reverse|roll|cancel|unmake|undelete|ctrl|restore|recover"
    r"|reinstate|back|again|un-?(?:mark|check|tick)|added|created|made|wrote",
    re.IGNORECASE,
)
# Clauses: commas, stops, and a dash between them ("oops - undo")
_CLAUSE = re.compile(r"\s*(?:[,.!?;:~…]+|\s[\-–—]+\s)\s*")


def undo_request(text: str, *, asks_nothing: Callable[[str], bool]) -> str | None:
    """What taking back the last change ``text`` asks for, or None (it asks no undo):
    ``lexicon.undo_of_clauses`` over its clauses (``""`` any change, ``"open"`` / ``"done"``
    a status said back: "mark it as not done again")."""
    if not _MAY_ASK.search(text):
        return None
    body = re.sub(r"\s+", " ", text.strip())
    if not body or _NOT.search(body):
        return None
    clauses = filter(None, (part.strip(STRIP) for part in _CLAUSE.split(body)))
    return undo_of_clauses(
        clauses,
        said=_said,
        went_wrong=lambda clause: bool(_MISTAKE.search(clause)),
        asks_nothing=asks_nothing,
    )


def _said(clause: str) -> str | None:
    if _UNDO.match(clause):
        return ""
    state = _BACK_TO_STATE.match(clause)
    if state is None:
        return None
    said = (state.group("back") or state.group("again") or "").lower()
    return "done" if said in ("done", "complete", "completed", "finished") else "open"
