"""The English grammar of the rules planner: one sentence -> one :class:`Intent`.

Same order as the Chinese grammar (the cardinal rule): a read verb at the head (show, list,
what are, find, search, look up…) or a question makes a read; then the explicit write forms
(create/add/remind me, delete, mark/complete/reopen, change/move/rename…); then a bare
"event + time" ("call mom tomorrow at 5pm"), which is asked about, never carded; else help.

Laid out as ``agent.planners.zh`` is: the order here, then ``slots``, ``reads``, ``writes``
and ``answers``; the builders both languages share are in ``agent.planners.lexicon``.
"""

from __future__ import annotations

import re

from agent.planners import phrases
from agent.planners.en import undo
from agent.planners.en.answers import (
    is_no,
    is_yes,
    kind_answer,
    ordinal,
    ordinal_reference,
    pick_reference,
    pick_time,
    priority_answer,
    time_answer,
)
from agent.planners.en.corrections import correction
from agent.planners.en.reads import (
    NOTE_WORD,
    QUESTION,
    READ_HEAD,
    SEARCH_HEAD,
    TODO_WORD,
    TOPIC,
    read_intent,
)
from agent.planners.en.slots import (
    clean_title,
    is_time,
    keep_clock,
    merge_time,
    strip_polite,
    take_en_time,
    take_priority,
)
from agent.planners.en.writes import (
    DELETE_ACCOUNT,
    WRITE_HEAD,
    WRITE_WORDS,
    note_fields,
    todo_fields,
    write_intent,
)
from agent.planners.lexicon import HELP, SLOT_INTENT, Intent, ask, asks_for_nothing, outside_quotes

_NEGATED = re.compile(r"^(?:don'?t|do\s+not|never|no\s+need\s+to|not\s+now)\b", re.IGNORECASE)
# "if it snows tomorrow, remind me…": a write on a condition the planner cannot check is no
# write (not the polite "if possible, …").
_CONDITIONAL = re.compile(
    r"^(?:if|in\s+case|whenever|should\s+it)\s+(?!(?:possible|you\s+(?:can|could|don'?t\s+mind)"
    r"|that'?s\s+(?:ok|okay|fine)|needed|necessary)\b)"
    r"(?:[^,]+,|.+?\s(?=(?:remind|add|create|delete|remove|mark|move|push|put)\b))",
    re.IGNORECASE,
)
_REASON_TAIL = re.compile(
    r"(?:\s*[,;]\s*(?:i|i'm|i've|we|we've|she|he|they|it's|its|because|since|as|lol|haha|finally"
    r"|just|still|meeting|not\s+needed|no\s+longer)\b|\s+(?:because|'cause|cuz)\s)[^,;]*$",
    re.IGNORECASE,
)
# "Should I mark X as done already?" / "What's the best way to …?": advice asked for
_ADVICE = re.compile(
    r"^(?:should|shall)\s+i\b|^do\s+you\s+think\s+i\b|^is\s+it\s+(?:a\s+good\s+idea|worth)\b"
    r"|^(?:what'?s|what\s+is)\s+the\s+best\s+way\b|^how\s+(?:do|can|should)\s+i\b|^how\s+to\b"
    r"|^any\s+tips\b",
    re.IGNORECASE,
)
# "Would you mind deleting X?": the request in the gerund
_GERUNDS = {
    "deleting": "delete",
    "removing": "remove",
    "renaming": "rename",
    "moving": "move",
    "marking": "mark",
    "adding": "add",
    "creating": "create",
    "changing": "change",
    "pushing": "push",
    "updating": "update",
    "bumping": "bump",
    "setting": "set",
    "putting": "put",
    "reopening": "reopen",
    "completing": "complete",
    "scheduling": "schedule",
    "writing": "write",
    "saving": "save",
    "ticking": "tick",
    "checking": "check",
    "making": "make",
    "jotting": "jot",
    "reminding": "remind",
}
_MIND_GERUND = re.compile(
    rf"^(?P<head>.*?\b(?:would|do)\s+(?:you|u)\s+mind\s+)(?P<gerund>{'|'.join(_GERUNDS)})\b",
    re.IGNORECASE,
)
# "Have Call mom marked as done" / "X should be marked as finished" / "X should go back to open"
_STATE_WISHED = re.compile(
    r"^(?:have\s+(?P<had>.+?)\s+marked\s+(?:as\s+)?(?P<had_state>done|complete[d]?|finished)"
    r"|(?P<item>.+?)\s+should\s+(?:be\s+(?:marked\s+)?(?:as\s+)?|go\s+back\s+to\s+|be\s+set\s+(?:back\s+)?to\s+)"
    # (not "Call mom should be done by Friday": a deadline)
    r"(?P<state>done|complete[d]?|finished|open|not\s+done))\b(?=\s*(?:[,.!;]|please\b|now\b|$))",
    re.IGNORECASE,
)
# "Submit the weekly report: change its title to …" / "Trip ideas note, retitle it …"
_ITEM_THEN_CHANGE = re.compile(
    r"^(?P<item>.+?)(?P<note>\s+note)?\s*(?:[,:]|\s[-–—])\s*(?:please\s+)?"
    r"(?:change\s+its\s+(?P<field>title|name|due\s+date|deadline|priority)\s+to"
    r"|(?:retitle|rename)\s+it(?:\s+to)?)\s+(?P<value>.+)$",
    re.IGNORECASE,
)
# "email my notes to my boss": an action no tool here performs, whatever it names.
_ELSEWHERE = re.compile(
    r"^(?:e-?mail|send(?!\s+me\b)|share|forward|export|print|publish|post|upload|text|message"
    r"|tweet)\b",
    re.IGNORECASE,
)
# "since the meeting moved, can you push…": the reason before a request is not part of it.
_REASON = re.compile(r"^(?:since|because|cause|'cause)\s+[^,]{3,80},\s*", re.IGNORECASE)
# Slips of typing in the words requests lean on (the card shows the mended word).
_TYPOS = [
    (re.compile(r"\b(?:tomorow|tommorow|tommorrow|tomorrw|tmrw|tmr|2morrow)\b", re.I), "tomorrow"),
    (re.compile(r"\b(?:remnd|remid|remaind|rmind|remidn|remindd)\b", re.I), "remind"),
    (re.compile(r"\btonite\b", re.I), "tonight"),
    (re.compile(r"\b(?:delte|delet|deleet|dlete|remvoe|reomve)\b", re.I), "delete"),
    (re.compile(r"\b(?:hihg|hgih|hight|hig)\b(?=\s*[\s-]\s*pri)", re.I), "high"),
    (
        re.compile(r"\b(?:prioirty|priorty|priortiy|proirity|prioritiy|priroity)\b", re.I),
        "priority",
    ),
    (re.compile(r"\b2day\b", re.I), "today"),
    (re.compile(r"\bb4\b", re.I), "before"),
    (re.compile(r"\bur\b", re.I), "your"),
    # "remind me 2 call", "have 2 do": 2 for "to" between words; "4 today": 4 for "for"
    (
        re.compile(
            r"\b(me|have|has|had|need|needs|want|wants|going|got|how|what|able|used|time"
            r"|remember|forget|try|trying|plan|planning|like|love|hate|ready|due)\s+2\s+"
            r"(?=[a-z])(?!(?:hours?|hrs?|days?|weeks?|mins?|minutes?|months?|pm|am)\b)",
            re.I,
        ),
        r"\1 to ",
    ),
    (
        re.compile(r"(?<=[a-z])\s+4\s+(?=(?:today|tomorrow|tonight|me|you|the|this|next)\b)", re.I),
        " for ",
    ),
    (re.compile(r"\bwhats\b", re.I), "what's"),
    (re.compile(r"\bdont\b", re.I), "don't"),
    (re.compile(r"\bim\b", re.I), "i'm"),
    (re.compile(r"\bive\b", re.I), "i've"),
]
# "tomorrow 7pm no wait 8pm": a time taken back, the second one stands
_TAKEN_BACK = re.compile(
    r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm)?\s*,?\s*(?:no\s+wait|no,?|sorry,?|i\s+mean|actually|make\s+that)"
    r"\s*,?\s*(?=\d{1,2}(?::\d{2})?\s*(?:am|pm)\b)",
    re.IGNORECASE,
)
# "URGENT add todo: …" / "high priority, remind me to …": the priority said first goes last
_PRIORITY_FIRST = re.compile(
    r"^(?P<priority>urgent|important|not\s+urgent|(?:high|low|normal|top)[\s-]+priority|asap\s+priority)"
    r"(?:\s+one)?\s*[,:!–—-]*\s+(?:but\s+|so\s+)?(?P<rest>.{6,})$",
    re.IGNORECASE,
)
# "in 2 hours remind me to take out the laundry": the time first.
_TIME_FIRST_REMINDER = re.compile(
    r"^(?P<time>.+?)\s*,?\s+(?P<ask>remind\s+me\s+(?:to|about|that)\s+.+)$", re.IGNORECASE
)


_CAPTURE_HEAD = re.compile(
    r"^(?:(?:jot|note|write|put)\s+(?:it\s+|this\s+|that\s+)?down|remember(?:\s+that)?)\s*[:,-]?\s*",
    re.IGNORECASE,
)
# "jot this down: …" / "remember that …" (not "remember to confirm"): something to keep
_JOT_DOWN = re.compile(
    r"^(?:(?:jot|note|write|put)\s+(?:it\s+|this\s+|that\s+)?down|remember\s+that)\b", re.IGNORECASE
)
# "I need to renew my gym membership by next friday, add it": the request after its subject.
# (each starts by looking ahead for its verb + "it": a line without one fails at once instead
# of trying every cut of the line — "—" repeated took seconds)
_ADD_IT = re.compile(
    r"^(?=.*\b(?:add|put|note|jot|write|save)\s+(?:it|that|this)\b)(?P<body>.+?)(?:\s*[,;.—–-]+\s*|\s+(?=(?:so\s+|please\s+|pls\s+|can\s+you\s+|could\s+you\s+)))"
    r"(?:so\s+)?(?:please\s+|pls\s+|can\s+you\s+|could\s+you\s+)?"
    r"(?P<verb>add|put|note|jot|write|save)\s+(?:it|that|this)"
    r"(?P<where>\s+(?:down|on\s+my\s+list|to\s+my\s+(?:list|to-?dos?|tasks?|to-?do\s+list)"
    r"|as\s+a\s+(?:todo|task|note)))?(?:\s+(?:please|pls|thanks|thx))?$",
    re.IGNORECASE,
)
# "Clean the garage isn't actually done, reopen it" / 'I don't need "X" anymore, delete it':
# the item in the first clause, the verb and "it" in the second.
_VERB_IT = re.compile(
    r"^(?=.*\b(?:reopen|re-open|unmark|uncheck|delete|remove|drop|trash|mark|complete|finish|check"
    r"|tick|close|cross)\s+(?:off\s+)?(?:it|that|this)\b)(?P<head>.+?)\s*[,;.—–-]+\s*(?:so\s+)?(?:please\s+|pls\s+|can\s+you\s+)?"
    r"(?P<verb>reopen|re-open|unmark|uncheck|delete|remove|drop|trash|mark|complete|finish"
    r"|check\s+off|tick\s+off|close|tick|check|cross)\s+(?:it|that|this|that\s+one|this\s+one)"
    r"(?P<off>\s+off)?(?P<rest>\s+(?!off\b)[^,;]+)?(?:\s*[,;].*)?$",
    re.IGNORECASE,
)
# "Call mom - tick it off": a few words that only name the item
_BARE_ITEM = re.compile(
    r"(?!(?:ok|okay|yes|yeah|yep|sure|fine|great|alright|that|this|it|please|so|well|hmm|um"
    r"|no|nah|cool|thanks)\b)[\w'’\"“”-]+(?:\s+[\w'’\"“”-]+){0,5}",
    re.IGNORECASE,
)
# "Pay rent is due on the 5th at noon, please update it": the new due time, then "update it".
_DUE_THEN_UPDATE = re.compile(
    r"^(?P<item>.+?)\s+(?:is|should\s+be)\s+(?:now\s+)?due\s+(?P<time>.+?)\s*[,;.—–-]+\s*"
    r"(?:so\s+)?(?:please\s+|pls\s+|can\s+you\s+)?(?:update|change|fix|set|move)\s+(?:it|that|this)\b"
    r"(?:\s+(?:please|pls|thanks))?\s*[.!]?$",
    re.IGNORECASE,
)
_ITEM_IN_HEAD = re.compile(
    r"^(?:actually|so|well|oh|hmm|wait)?[\s,]*"
    r"(?:i\s+(?:don'?t|do\s+not)\s+need\s+(?P<needless>.+?)\s+any\s*(?:more|longer)"
    r"|i(?:'ve|\s+have)?\s+(?:just\s+|already\s+)?(?:finished|completed|done|did)\s+(?P<finished>.+?)"
    r"|(?P<subject>.+?)\s+(?:isn'?t|is\s+not|wasn'?t|was\s+not|is|was)\s+"
    r"(?:actually\s+|really\s+|already\s+|not\s+)?(?:done|finished|complete[d]?|needed|necessary"
    r"|over|cancelled|canceled|off)(?:\s+yet)?)\s*$",
    re.IGNORECASE,
)


# A time gone by, or a sentence reporting what happened or was done to something: no todo.
_PAST_TIME = re.compile(r"\b(?:yesterday|last|ago|earlier|previous)\b", re.IGNORECASE)
_REPORTED = re.compile(
    r"\b(?:was|were|had|has\s+been|have\s+been|had\s+been|'s\s+been|got\s+\w+ed|since)\b",
    re.IGNORECASE,
)


# A bare collection with its filters: "low priority stuff", "my overdue tasks", "urgent todos
# due today".
_BARE_READ = re.compile(
    r"(?:(?:my|all|the|(?:high|low|normal|top)[\s-]priority|urgent|important|overdue|open|pending"
    r"|unfinished|done|completed|finished|today'?s|tomorrow'?s)\s+)+"
    r"(?:stuff|tasks?|todos?|to-dos?|items?|things?)"
    r"(?:\s+(?:due\s+)?(?:today|tomorrow|this\s+week))?[.?!]?",
    re.IGNORECASE,
)


def _two_parts(text: str) -> str:
    """Put a request told in two parts (what it is about, then "add it" / "reopen it") into
    one sentence of the grammar."""
    added = _ADD_IT.match(text)
    if added:
        body, verb = added.group("body"), added.group("verb").lower()
        where = (added.group("where") or "").lower()
        if "note" in where:
            return f"new note: {body}"
        if verb in ("note", "jot", "write", "save") and "todo" not in where:
            return f"jot down: {body}"  # a todo or a note: asked
        return f"add a todo: {body}"
    verb_it = _VERB_IT.match(text)
    if verb_it:
        head = _ITEM_IN_HEAD.match(verb_it.group("head"))
        item = head and (head.group("needless") or head.group("finished") or head.group("subject"))
        if not item and _BARE_ITEM.fullmatch(verb_it.group("head")):
            item = verb_it.group("head")  # "Call mom - tick it off, just spoke to her"
        verb = verb_it.group("verb").lower()
        if item and verb in ("tick", "check", "cross") and not verb_it.group("off"):
            item = None  # "check it" is no status change
        if item:
            verb = f"{verb} off" if verb_it.group("off") else verb
            return f"{verb} {item}{verb_it.group('rest') or ''}"
    due = _DUE_THEN_UPDATE.match(text)
    if due:
        return f"move {due.group('item')} to {due.group('time')}"
    return text


# "never mind that, remind me to …": what was being done is dropped, the new request stays
_DROPPED_BEFORE = re.compile(
    r"^(?:never\s*mind|forget\s+(?:it|that)|scratch\s+that|cancel\s+that|no\s+wait)(?:\s+that)?"
    r"\s*[,.;!—–-]+\s*(?=\w)",
    re.IGNORECASE,
)


# "don't delete Renew passport, just push it to Monday": what not to do, then what to do
# with it instead.
_NOT_THIS_BUT = re.compile(
    r"^(?:don'?t|do\s+not|no\s+need\s+to)\s+(?:delete|remove|erase|trash)\s+(?P<item>.+?)\s*[,;.]\s*"
    r"(?:but\s+)?(?:just\s+|instead\s*,?\s*|rather\s*,?\s*)?(?P<rest>.*\bit\b.*?)(?:\s+instead)?$",
    re.IGNORECASE,
)


# "add a new one: draft the plan": one more todo
_ANOTHER_ONE = re.compile(
    r"^(?:add|create|make)\s+(?:a\s+new\s+one|another(?:\s+one)?|one\s+more)\s*(?::|-|to\b)\s*",
    re.IGNORECASE,
)
# "Submit the weekly report is done, mark it": the report says which, the verb adds nothing
# (after done / finished / complete / completed)
_MARK_IT_AFTER = re.compile(
    r"(?<=done|shed|lete|eted)\s*[,;.]?\s*(?:so\s+|please\s+)?"
    r"(?:mark|tick|check|cross)\s+(?:it|that|this)(?:\s+off|\s+(?:as\s+)?(?:done|complete))?$",
    re.IGNORECASE,
)


def _reframe(text: str) -> str:
    """Mend typing slips; drop a reason before the request; put a leading time last."""
    text = _DROPPED_BEFORE.sub("", text)
    for pattern, word in _TYPOS:
        text = pattern.sub(word, text)
    text = _TAKEN_BACK.sub("", text)
    text = _ANOTHER_ONE.sub("add a todo: ", text)
    text = _MARK_IT_AFTER.sub("", text)
    instead = _NOT_THIS_BUT.match(text)
    if instead and WRITE_HEAD.match(instead.group("rest")):
        text = re.sub(r"\bit\b", instead.group("item"), instead.group("rest"), count=1)
    wished = _STATE_WISHED.match(text)
    if wished:
        item = wished.group("had") or wished.group("item")
        state = (wished.group("had_state") or wished.group("state")).lower()
        verb = "reopen" if state in ("open", "not done") else "mark"
        return f"{verb} {item}" if verb == "reopen" else f"mark {item} as done"
    changed = _ITEM_THEN_CHANGE.match(text)
    if changed:
        field = (changed.group("field") or "title").lower()
        if changed.group("note"):
            return f"rename the {changed.group('item')} note to {changed.group('value')}"
        return f"change the {field} of {changed.group('item')} to {changed.group('value')}"
    reason = _REASON.match(text)
    if reason and text[reason.end() :].strip():
        text = strip_polite(text[reason.end() :])
    first = _PRIORITY_FIRST.match(text)
    if first:
        text = f"{strip_polite(first.group('rest'))}, {first.group('priority')}"
    timed = _TIME_FIRST_REMINDER.match(text)
    if timed and is_time(timed.group("time")):
        text = f"{timed.group('ask')} {timed.group('time')}"
    return _two_parts(text)


_GREETING = re.compile(
    r"(?:good\s+(?:morning|afternoon|evening|night|day)|morning|evening|hi|hello|hey|yo|thanks|"
    r"thank\s+you|ok|okay|cool|great|nice)(?:\s+there)?[!.]*",
    re.IGNORECASE,
)


def interpret(text: str) -> Intent:
    """Return what one English sentence asks for; reads first, writes only when explicit."""
    if DELETE_ACCOUNT.search(outside_quotes(text)):  # not a todo titled "删除账号"
        return Intent("delete_account", {})
    mind = _MIND_GERUND.match(text)
    if mind:  # "Would you mind deleting X?": the request, in the gerund
        text = mind.group("head") + _GERUNDS[mind.group("gerund").lower()] + text[mind.end() :]
    body = _reframe(strip_polite(text))
    if (
        not body
        or _GREETING.fullmatch(body)
        or _NEGATED.match(body)
        or _CONDITIONAL.match(body)
        or _ELSEWHERE.match(body)
        or _ADVICE.match(body)
    ):
        return HELP  # "don't delete Pay rent": a request NOT to write is no write
    if (
        (SEARCH_HEAD.match(body) and not WRITE_HEAD.match(body))
        or _BARE_READ.fullmatch(body)
        or phrases.whole("bare_read", body, "en")
    ):
        return read_intent(body)
    if (READ_HEAD.match(body) or QUESTION.search(text)) and not WRITE_HEAD.match(body):
        return read_intent(body) if TOPIC.search(body) else HELP
    write = write_intent(body)
    reason = _REASON_TAIL.search(body)
    if reason and body[: reason.start()].rstrip().endswith(('"', "”", "'", "’")):
        # 'reopen "Pay rent", I'm not actually finished with it': the quote ends the title
        write = write_intent(body[: reason.start()]) or write
    if write is None and _REASON_TAIL.search(body):
        # "call mom is done, i called her this morning lol": the request without its reason
        write = write_intent(_REASON_TAIL.sub("", body))
    if write is not None:
        return write
    mentions = re.search(TODO_WORD, body, re.I) or re.search(NOTE_WORD, body, re.I)
    if mentions and not WRITE_WORDS.search(body):
        return read_intent(body)
    # "jot down: call mom sunday": the capture words are not part of the title
    captured = _CAPTURE_HEAD.sub("", body)
    rest, due = take_en_time(captured)
    rest, priority = take_priority(rest)  # "Urgent: pay the electricity bill by 6pm today"
    title = clean_title(rest)
    if (
        captured != body
        and _JOT_DOWN.match(body)
        and title
        and not due
        and not WRITE_WORDS.search(title)
    ):
        # "jot this down: the spare key is under the mat": a todo or a note? asked
        return ask("create_todo", SLOT_INTENT, title=title)
    if due and re.match(r"within\b", due, re.I) and re.search(r"[,;.!?]", title):
        return HELP  # "you can get it back within 30 days": a statement about a span
    if due and (_PAST_TIME.search(due) or _REPORTED.search(title)):
        return HELP  # "I had a three-hour meeting yesterday afternoon": what happened
    if due and title and not WRITE_WORDS.search(title) and len(title.split()) <= 12:
        if priority:
            return ask("create_todo", SLOT_INTENT, title=title, due_at=due, priority=priority)
        return ask("create_todo", SLOT_INTENT, title=title, due_at=due)
    need = re.match(
        r"^i\s+(?:need|have|must|gotta|got|should)\s+(?:to\s+)?(?P<title>.+)$", body, re.I
    )
    if need and not WRITE_WORDS.search(need.group("title")):
        # "I need to buy milk": probably a todo, but nothing asked for one: ask.
        return ask("create_todo", SLOT_INTENT, title=clean_title(need.group("title")))
    return HELP


def undo_request(text: str) -> str | None:
    """Whether ``text`` asks to take back the last change (``undo.undo_request``): its
    other clauses may only say what went wrong, none may ask for something else."""
    return undo.undo_request(text, asks_nothing=lambda clause: asks_for_nothing(interpret(clause)))


__all__ = [
    "correction",
    "interpret",
    "is_no",
    "is_time",
    "is_yes",
    "keep_clock",
    "kind_answer",
    "merge_time",
    "note_fields",
    "ordinal",
    "ordinal_reference",
    "pick_reference",
    "pick_time",
    "priority_answer",
    "strip_polite",
    "time_answer",
    "todo_fields",
    "undo_request",
]
