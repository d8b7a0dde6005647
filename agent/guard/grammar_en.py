"""The English claim grammar: perfect, passive and past forms of write verbs, result states.

claim   := (I | we) [have|'ve|had|'d] ADV* PAST          (I've added, we just deleted)
         | went ahead and VERB | took care of it | got it done
         | [has|have] been ADV* PP | is/are/was/were ADV* PP  (has been deleted, is now marked)
         | [NOUN-PHRASE] PP …  at the head of a clause      ("Todo added ✅", "Created the todo")
         | PP successfully | successfully PP
         | RESULT-STATE                                   (is now complete, it's gone, is in
                                                           your list, no longer shows)
         | ELLIPSIS                                       (Done. / All set! / Operation
                                                           successful / ✅)
blocked := not/n't/never/no/nothing/unable/failed/without, will/'ll/would/can/could/should/
           may/might/going to/about to/want to/ready to, if/once/when/after/until/before,
           "to be PP" | a question | "you" as the subject (you created this last week)
         | a card as object (I've prepared a card) | a past time that describes an old
           item (was created last week, added on Monday) | the item's history (was edited
           3 times) or someone else's change (was changed elsewhere) | a general statement
           about a kind of item (Deleted todos go to the trash, New todos are added at the
           top) | counts a read reports
An acknowledgement ("Great —", "Got it —") makes a state that would read as a report ("X is
on your list", "X is marked complete") a claim.
"""

from __future__ import annotations

import re

from agent.guard.claims import OTHER, Claim, is_sweeping, resource_type_of
from agent.guard.forms import load
from agent.guard.text import Clause

FORMS = load("en")
_PARTICIPLES: dict[str, str] = FORMS.table("participle")
_BASE: dict[str, str] = FORMS.table("base")
_PP = FORMS.piece("PP")
_PP_GROUPS = FORMS.piece("PP_GROUPS")
_PP_RE = re.compile(rf"\b(?:{_PP_GROUPS})\b")
_BASE_RE = re.compile("|".join(f"(?P<{kind}>(?:{words})\\w*)" for kind, words in _BASE.items()))
_ADV = FORMS.piece("ADV")
_FIRST_PERSON = FORMS.frame("FIRST_PERSON")
_WENT_AHEAD = FORMS.frame("WENT_AHEAD")
_TOOK_CARE = FORMS.frame("TOOK_CARE")
_PASSIVE = FORMS.frame("PASSIVE")
_NOW_DONE = FORMS.frame("NOW_DONE")
_SUCCESSFULLY = FORMS.frame("SUCCESSFULLY")
_HEAD_WORDS = FORMS.piece("HEAD_WORDS")
_STOP = FORMS.piece("STOP")
_TICKED = FORMS.piece("TICKED")
_FREE_HEAD = FORMS.frame("FREE_HEAD")
_HEAD = FORMS.frame("HEAD")
_NOUN_DONE = FORMS.piece("NOUN_DONE")
_STATUS_FIELD = FORMS.frame("STATUS_FIELD")
_STATES = FORMS.states("state")
_GERUND = FORMS.piece("GERUND")
_PROGRESSIVE = FORMS.frame("PROGRESSIVE")
_ELLIPSIS = FORMS.frame("ELLIPSIS")
_DONE_LEAD = FORMS.frame("DONE_LEAD")
_VERB_LIST = FORMS.frame("VERB_LIST")
_TO_STATUS = FORMS.frame("TO_STATUS")
_CHANGES = FORMS.frame("CHANGES")
_FIELD_OBJECT = FORMS.frame("FIELD_OBJECT")
_TO_TRASH = FORMS.frame("TO_TRASH")
_REMINDER = FORMS.frame("REMINDER")
_NOT_AN_ITEM = FORMS.frame("NOT_AN_ITEM")
_SET = FORMS.frame("SET")
_STATUS_LABEL = FORMS.frame("STATUS_LABEL")
_DID_IT = FORMS.frame("DID_IT")

_BLOCK = FORMS.frame("BLOCK")
_YOU_SUBJECT = FORMS.frame("YOU_SUBJECT")
_DESCRIBED_TIME = FORMS.frame("DESCRIBED_TIME")
_PROPOSED = FORMS.frame("PROPOSED")
_PROPOSED_OBJECT = FORMS.frame("PROPOSED_OBJECT")
_CARD = FORMS.frame("CARD")
_CARD_SUBJECT = FORMS.frame("CARD_SUBJECT")
_ON_THE_CARD = FORMS.frame("ON_THE_CARD")
_ON_IT = FORMS.frame("ON_IT")
_PENDING_AFTER = FORMS.frame("PENDING_AFTER")


def _about_card(scan: str, start: int, end: int) -> bool:
    """The words at ``start:end`` say what a card says, not what happened to the data."""
    before, after = scan[:start], scan[end:]
    return bool(
        _CARD_SUBJECT.search(before)
        or _ON_THE_CARD.match(after)
        or _PENDING_AFTER.match(after)
        or (_ON_IT.search(before) and re.search(r"\bcards?\b", scan))
    )


_THEN = FORMS.frame("THEN")
_RELATIVE = FORMS.frame("RELATIVE")
_THATS_WHAT = FORMS.frame("THATS_WHAT")
_FIELD_FRAGMENT = FORMS.frame("FIELD_FRAGMENT")
_YOUR_PARTICIPLE = FORMS.frame("YOUR_PARTICIPLE")
_ITEM_NOUN_AFTER = FORMS.frame("ITEM_NOUN_AFTER")
_QUESTION_HEAD = FORMS.frame("QUESTION_HEAD")
_STATE_PARTICIPLE = FORMS.frame("STATE_PARTICIPLE")
_NOTED_THAT = FORMS.frame("NOTED_THAT")
_TIMES = FORMS.frame("TIMES")
_GENERIC_NOUN = FORMS.piece("GENERIC_NOUN")
_NOT_GENERIC = FORMS.piece("NOT_GENERIC")
_ATTRIBUTIVE = FORMS.frame("ATTRIBUTIVE")
_GENERIC_SUBJECT = FORMS.frame("GENERIC_SUBJECT")
_ACKNOWLEDGED = FORMS.frame("ACKNOWLEDGED")
_REPORTED_BEFORE = FORMS.frame("REPORTED_BEFORE")
_ON_LIST = FORMS.frame("ON_LIST")
_ELSEWHERE = FORMS.frame("ELSEWHERE")
_COUNTED = FORMS.frame("COUNTED")
_OFF_LIST = FORMS.frame("OFF_LIST")


_DATE = FORMS.frame("DATE")
_AGENT = FORMS.frame("AGENT")
_OBJECT_AFTER = FORMS.frame("OBJECT_AFTER")
_REPORTED_SPEECH = FORMS.frame("REPORTED_SPEECH")
_RECORDED_BY = FORMS.frame("RECORDED_BY")


def find(clause: Clause) -> list[Claim]:
    """Return the claims of one clause read as English."""
    scan = clause.scan.lower().replace("’", "'")
    if _DATE.fullmatch(clause.label.lower().strip(" -*•")):
        return []  # "- Oct 1: created", "Mon: title changed": an item's history, dated
    if (_RECORDED_BY.match(clause.label.lower()) or _RECORDED_BY.match(scan)) and not re.search(
        r"\b(?:i|we)\b", scan
    ):
        return []
    if clause.question:
        # "Want a recap, now that I've cleared the trip items?": a write said inside a question
        return [
            _claim(scan, clause.scan[match.start() : match.end()].strip(), _kind_of(match))
            for match in _IN_QUESTION.finditer(scan)
        ]
    if not re.search(r"[a-z✅✔☑]", scan) or _QUESTION_HEAD.match(scan):
        return []
    if _COUNTED.search(scan) or re.match(r"(?:sorted|ordered|grouped|filtered)\s+by\b", scan):
        return []  # (a count a read gives; "Sorted by due date, …": how a list is shown)
    if _STATUS_LABEL.search(clause.label) and re.fullmatch(
        r"(?:done|open|completed?|finished|pending|closed|not\s+done)[\s.!]*", scan
    ):
        return []  # "Status: done" reads a state
    if _STATUS_LABEL.search(clause.label) and (
        event := re.fullmatch(
            r"(?P<pp>restored|deleted|removed|created|added|updated|saved)\s*[✅✔☑️]+", scan
        )
    ):
        # "Status: restored ✅": an event with its tick, not a state a read shows
        return [_claim(scan, scan, participle_kind(event.group("pp")))]
    if _ELLIPSIS.match(scan) or _DONE_LEAD.match(scan.lstrip(" -*•")):
        if _VERB_LIST.fullmatch(clause.label.lower().strip()) and not re.search(r"\bdone\b", scan):
            return []  # "I can create, edit, reschedule, complete, or delete": a list of verbs
        if re.match(r"^(?:sorted|ordered|grouped|filtered)\s+by\b", scan):
            return []  # "Sorted by due date, …": how a list is shown
        kind = "delete" if re.search(r"\bgone\b", scan) else None
        hedged = re.search(r"\bshould\s+(?:now\s+)?be\s+(?:all\s+)?(\w+)", scan)
        if hedged and kind is None:
            kind = participle_kind(hedged.group(1))  # "Should be updated!": an update
        if kind is None and _OTHER_LABEL.search(clause.label.lower()):
            kind = OTHER  # "Export: done": a write no tool makes
        return [_claim(scan, scan.strip(" .!"), kind)]
    found: list[Claim] = []
    spans: list[tuple[int, int]] = []
    # An acknowledgement before it, or a tick after it ("X is wrapped up ✔️"), makes a state a
    # result.
    acknowledged = bool(
        _ACKNOWLEDGED.match(scan)
        or _ACKNOWLEDGED.match(clause.label.lower())
        or (
            _REPORTED_BEFORE.search(clause.label.lower())
            and not _FAILED.search(clause.label.lower())  # "Couldn't mark it done: …"
        )
        or re.search(r"[✅✔☑]", scan)
    )

    def add(match: re.Match[str], kind: str | None, start: int | None = None) -> None:
        if re.search(r"\bstill\b", match.group(0)):
            return  # "It's still set to April 2": a state that stayed
        begin = match.start() if start is None else start
        if any(begin < end and start_ < match.end() for start_, end in spans):
            return
        if _about_card(scan, begin, match.end()):
            return  # "The card has been edited", "I removed bread from the card"
        spans.append((begin, match.end()))
        after = scan[match.end() :]
        if kind in ("update", "create", "restore", None, OTHER) and _TO_STATUS.match(after):
            kind = "status"  # set it to done / changed the status to complete
        elif kind == "delete" and _FIELD_OBJECT.match(after):
            kind = "update"  # removed the due date / dropped the second paragraph
        elif kind in ("update", None) and _TO_TRASH.match(after):
            kind = "delete"  # has been moved to the trash
        elif kind == "update" and _REMINDER.search(scan) and _SET.search(match.group(0)):
            kind = "create"  # reminder set / your reminder is all set
        elif kind in ("create", None, OTHER) and _CHANGES.search(scan):
            kind = "update"  # made the change / changes saved
        elif kind is None and _STATUS_FIELD.search(match.group(0)):
            kind = "status"  # "status=done": the status field written
        elif kind is None and re.search(r"\bundo\b|\bundid\b", scan):
            kind = OTHER  # "Undo done": an undo, not the confirmed item's write
        elif kind is None and _NOT_AN_ITEM.search(scan):
            kind = OTHER  # "your account closure request has been processed": no tool's write
        found.append(_claim(scan, clause.scan[begin : match.end()].strip(), kind))

    for match in _WENT_AHEAD.finditer(scan):
        if not _blocked(scan[: match.start()]):
            add(match, _kind_of_base(match.group("verb")))
    for match in [*_TOOK_CARE.finditer(scan), *_DID_IT.finditer(scan)]:
        if not _blocked(scan[: match.start()]):
            gerund = re.search(r"liberty\s+of\s+(\w+?)ing\b", match.group(0))
            stem = gerund.group(1) if gerund else ""
            kinds = [_kind_of_base(base) for base in (stem, stem + "e") if stem]
            add(match, next((kind for kind in kinds if kind != OTHER), OTHER) if stem else None)
    for pattern in (_FIRST_PERSON, _SUCCESSFULLY):
        for match in pattern.finditer(scan):
            if _keeps(scan, match):
                add(match, _kind_of(match))
    for match in _PASSIVE.finditer(scan):
        if not _keeps(scan, match):
            continue
        kind = _kind_of(match)
        if kind is None and _NOW_DONE.search(match.group(0)):
            kind = "status"  # "are now done": a state of the items, not "done" with the card
        be = match.group("be")
        if (
            be
            and not acknowledged
            and not _passive_is_claim(be, match.group("adv") or "", kind, scan, match)
        ):
            continue
        add(match, kind)
    head = _HEAD.match(scan) or _FREE_HEAD.match(scan)
    if head and _THEN.match(scan) and _blocked(clause.label.lower()):
        head = None  # "first I'll create …, then set each one …": the plan goes on
    if head and _HABIT.search(scan) and re.match(r"(?:anything|everything|whatever|any\s)", scan):
        return []  # "anything deleted more than 30 days ago is purged automatically"
    if head and _ATTRIBUTIVE.match(scan[head.end() :]):
        # "Deleted items go to Trash and are permanently removed after 30 days": the clause
        # is a general statement about a kind of item, all of it.
        return []
    pp = list(_PP_RE.finditer(head.group(0))) if head else []
    if (
        head
        and pp
        and _YOUR_PARTICIPLE.search(scan[: pp[-1].start()])
        and _ITEM_NOUN_AFTER.match(scan[head.end() :])
    ):
        head = None  # "Your completed todos this week:" names items, reports nothing
    if head and _FIELD_FRAGMENT.search(clause.label.lower()) and not found:
        head = None  # "… is due June 10, priority high, tagged #legal": a description
    if (
        head
        and (pp_end := _last_participle_end(head.group(0)))
        and _AGENT.search(clause.scan[: head.start() + pp_end[0]])
        and _OBJECT_AFTER.match(clause.scan[head.start() + pp_end[1] :])
    ):
        head = None  # "Tom deleted "Pick up cake"": someone else's change, with its object
    if (
        head
        and _keeps(scan, head)
        and not _blocked(head.group(0))
        and not _YOU_SUBJECT.search(scan[: head.start()])
    ):
        add(head, _kind_of(head))
    for pattern, kind in _STATES:
        if _FAILED.search(clause.label.lower()):
            break  # "I couldn't delete it: it no longer exists": the failure's reason
        for match in pattern.finditer(scan):
            if (
                not _blocked(scan[: match.start()])
                and not _GUESS.search(scan[: match.start()])
                and not re.search(r"\byou\s*$|\bthere\s*$", scan[: match.start()])
            ):
                add(match, kind if kind is not None else _kind_of(match))
    if not _FAILED.search(clause.label.lower()):
        for match in _LANDED.finditer(scan):
            if not _blocked(re.sub(r"\bif\s+i'?m\s+not\s+mistaken\b", "", scan[: match.start()])):
                add(match, None)
        hedged = _HEDGED_RESULT.search(scan)
        if (
            hedged
            and (scan.startswith(("should", "ought")) or re.search(r"\bnow\b", scan))
            and not _HEDGE_BLOCKED.search(scan[: hedged.start()])
        ):
            add(hedged, participle_kind(hedged.group("pp")))
    if not _BLOCK.search(scan):
        for match in _PROGRESSIVE.finditer(scan):
            stem = (match.group("verb") or match.group("verb2"))[:-3]
            kinds = [_kind_of_base(base) for base in (stem, stem + "e")]
            add(match, next((kind for kind in kinds if kind != OTHER), OTHER))
    if acknowledged:
        for match in _ON_LIST.finditer(scan):
            if not _blocked(scan[: match.start()]):
                add(match, "create")
    # "I created the todo and deleted the rest": more past verbs after a claim share its subject.
    if found:
        for match in re.finditer(rf"\b(?:and|then|also|plus)\s+(?:also\s+)?(?:{_PP})\b", scan):
            if _keeps(scan, match):
                add(match, _kind_of(match))
    return found


def _last_participle_end(phrase: str) -> tuple[int, int] | None:
    """Where the last participle of a head phrase starts and ends, or None."""
    found = list(_PP_RE.finditer(phrase.lower()))
    return (found[-1].start(), found[-1].end()) if found else None


def participle_kind(word: str) -> str | None:
    """The kind of write a participle of the lexicon names (None: not one, or "handled")."""
    match = _PP_RE.fullmatch(word.lower())
    kind = match.lastgroup if match else None
    return None if kind == "any" else kind


def _kind_of(match: re.Match[str]) -> str | None:
    """Return the kind of the last participle in the match (None for the "any" verbs)."""
    kinds = [found.lastgroup for found in _PP_RE.finditer(match.group(0))]
    return kinds[-1] if kinds and kinds[-1] != "any" else None


def _kind_of_base(verb: str) -> str | None:
    match = _BASE_RE.match(verb)
    if match and match.lastgroup:
        return None if match.lastgroup == "any" else match.lastgroup
    return OTHER


_LANDED = FORMS.frame("LANDED")
_HEDGED_RESULT = FORMS.frame("HEDGED_RESULT")
_IN_QUESTION = FORMS.frame("IN_QUESTION")
_A_RUN = FORMS.frame("A_RUN")
_OTHER_LABEL = FORMS.frame("OTHER_LABEL")
_HEDGE_BLOCKED = FORMS.frame("HEDGE_BLOCKED")
_GUESS = FORMS.frame("GUESS")
_FAILED = FORMS.frame("FAILED")


def _blocked(before: str) -> bool:
    # "I can confirm the todo has been created" asserts; it does not offer.
    return bool(_BLOCK.search(_ASSERTING.sub(" ", before)))


_ASSERTING = FORMS.frame("ASSERTING")


def _keeps(scan: str, match: re.Match[str]) -> bool:
    """The match is a claim unless blocked, the user's own, about a card or a past description."""
    before, after = scan[: match.start()], scan[match.end() :]
    if _blocked(before) or (
        _RELATIVE.search(before)
        and not match.group(0).startswith("'")
        and not _THATS_WHAT.search(before)
    ):
        return False
    if _YOU_SUBJECT.search(before) or _REPORTED_SPEECH.search(before):
        return False
    if _CARD.match(after) or (_NOTED_THAT.match(after) and "noted" in match.group(0)):
        return False
    if _PROPOSED.search(match.group(0)) and _PROPOSED_OBJECT.match(after):
        return False  # "I've drafted the change below": a proposal
    if match.group(0).endswith("started") and re.match(r"\s+(?:to\s+\w|\w+ing\b)", after):
        return False  # "I started to update it but …": an attempt, not a write
    if _A_RUN.search(scan[: match.end()]):
        return False  # "request cancelled", "the sync was aborted": a run, not the user's data
    return not (_DESCRIBED_TIME.match(after) or _TIMES.match(after) or _ELSEWHERE.match(after))


def _passive_is_claim(be: str, adv: str, kind: str | None, scan: str, match: re.Match[str]) -> bool:
    """ "is/was + participle": a claim, except a state a read may report ("is scheduled for")."""
    if (
        be == "are"
        and _GENERIC_SUBJECT.match(scan[: match.start()])
        and not re.search(r"\b(?:now|just|already|successfully|all|both)\b", adv)
    ):
        # "New todos are added to the top", "Notes in the trash are permanently deleted
        # after 30 days": a habit of a kind of item
        return False
    if be in ("is", "are", "'re", "’re") and _HABIT.search(scan):
        return False  # "anything deleted … is purged automatically": what always happens
    if adv.strip() or be in ("got", "gets"):
        return True  # is now marked, was successfully saved, are all deleted, got created
    if _REMINDER.search(scan) and re.search(r"\bset\b", match.group(0)):
        return True  # "Your reminder … is set for tomorrow at 6 PM"
    if be in ("was", "were") and kind == OTHER:
        return True  # "The note was shared with Bob": an event (a state reads "is shared")
    if kind == "status" and re.search(r"\b(?:ticked|checked|crossed)\b", match.group(0)):
        return True  # "are ticked off": what a tick does, not a state a read reports
    if kind == "status" and _OFF_LIST.match(scan[match.end() :]):
        return True  # "is crossed off your list"
    if be == "now" or re.search(r"\bnow\b", scan[match.end() :]):
        return True  # "is marked as completed now"
    # "Buy milk is marked as done": a state a read reports, unless "now"/"already" says it
    # changed.
    return kind != "status" and not _STATE_PARTICIPLE.search(match.group(0))


_HABIT = FORMS.frame("HABIT")


def _claim(scan: str, phrase: str, kind: str | None) -> Claim:
    return Claim(
        phrase=phrase or scan,
        kind=kind,
        resource_type=resource_type_of(scan),
        sweeping=is_sweeping(scan),
    )
