"""English write requests: each explicit write form and the create/update fields it names.

Every form needs its verb (create/add/remind me, delete, mark/complete/reopen,
change/move/rename…); a form that lacks its target, title or value becomes a clarification,
never a guess. Bulk deletes are not offered (help).
"""

from __future__ import annotations

import re
from typing import Any

from agent.planners.en.slots import clean_title, is_time, take_en_time, take_priority
from agent.planners.lexicon import (
    FIELD_DESCRIPTION,
    FIELD_DUE,
    FIELD_PRIORITY,
    FIELD_TITLE,
    HELP,
    QUOTED,
    SLOT_CHANGE,
    SLOT_DUE,
    SLOT_INTENT,
    SLOT_TARGET,
    SLOT_TITLE,
    STRIP,
    Intent,
    ask,
    change_slot,
    create_intent,
    note_title_and_content,
    priority_of,
    split_tags,
    todo_change,
    unquote,
)

# --- writes ------------------------------------------------------------------------------

_TODO = r"(?:todo|to-do|to\s+do|task|reminder|item)s?"
_TITLE = rf"(?P<title>{QUOTED}|.+?)"
_END = r"\s*[.!]?\s*$"
_DONE_STATE = r"done|completed?|finished|closed|checked(?:\s+off)?|complete"
_OPEN_STATE = (
    r"not\s+done|undone|not\s+completed?|incomplete|unfinished|open|pending|active|to\s?do"
)
WRITE_HEAD = re.compile(
    r"^(?:create|add|make|new|set|put|record|note|write|jot|schedule|remind|delete|remove|erase|"
    r"drop|trash|get\s+rid|mark|complete|finish|check\s+off|tick|close|reopen|re-open|uncheck|"
    r"unmark|change|update|edit|rename|move|reschedule|postpone|push|delay|shift|save|take|start|"
    r"bump|lower|raise|stick|throw|pop|scrap|ditch|bin|wipe|append|replace|"
    r"i(?:'ve|\s+have)?\s+(?:finished|completed|done))\b",
    re.IGNORECASE,
)


def _en(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | re.DOTALL)


DELETE_ACCOUNT = _en(
    r"\b(?:delete|close|remove|cancel|deactivate|terminate|erase)\s+(?:my\s+|the\s+|this\s+)?"
    r"(?:user\s+|lightnote\s+|whole\s+|entire\s+)?(?:account|profile)\b"
)
_DELETE = _en(
    r"^(?:delete|remove|erase|drop|trash|get\s+rid\s+of|clear\s+out|wipe\s+out|clear|scrap|ditch"
    r"|bin|axe|nuke|wipe)\s+(?:the\s+|my\s+|this\s+|that\s+)?"
    # "delete a todo": an article before the kind names no item (which one is asked)
    r"(?:(?:a|an|one)\s+(?=(?:notes?|todos?|to-dos?|tasks?|reminders?)\b))?"
    rf"(?:(?P<kind>notes?|todos?|to-dos?|tasks?|reminders?)\b\s*)?(?:titled|called|named)?\s*:?\s*"
    rf"(?P<title>{QUOTED}|.*?)(?:\s+(?P<kind2>notes?|todos?|tasks?))?"
    rf"(?:\s+from\s+my\s+(?:list|todos|tasks|notes))?{_END}"
)
_STATUS = [
    _en(
        r"^(?:mark|set|flag)\s+(?:the\s+|my\s+|this\s+)?(?:(?:todo|to-do|task)\s+)?"
        rf"{_TITLE}\s+(?:back\s+)?(?:as\s+|to\s+)?(?P<state>{_OPEN_STATE}|{_DONE_STATE}){_END}"
    ),
    _en(
        r"^(?P<state>complete|finish|check\s+off|tick\s+off|close|cross\s+off)\s+(?:the\s+|my\s+)?"
        rf"(?:(?:todo|to-do|task)\s*:?\s*)?{_TITLE}(?:\s+(?:todo|task))?{_END}"
    ),
    _en(
        r"^(?P<state>reopen|re-open|uncheck|unmark|undo)\s+(?:the\s+|my\s+)?"
        rf"(?:(?:todo|to-do|task)\s*:?\s*)?{_TITLE}(?:\s+(?:todo|task))?{_END}"
    ),
    _en(
        r"^i(?:'ve|\s+have)?\s+(?:just\s+)?(?P<state>finished|completed|done)\s+(?:with\s+)?"
        rf"(?:the\s+|my\s+)?(?:(?:todo|to-do|task)\s+)?{_TITLE}{_END}"
    ),
    _en(
        rf"^(?:the\s+)?(?:(?:todo|task)\s+)?(?P<title>{QUOTED})\s+is\s+(?:now\s+)?"
        rf"(?P<state>done|finished|completed|complete|not\s+done|open){_END}"
    ),
    # finished "Pay rent" / completed Buy milk
    # (a title of a few plain words, not "Completed todos are hidden by default")
    _en(
        r"^(?P<state>finished|completed|done\s+with)\s+(?:the\s+)?(?:(?:todo|task)\s+)?"
        rf"(?P<title>{QUOTED}|(?!(?:todos|tasks|items|notes|ones|to-dos)\b)[\w'’-]+(?:\s+[\w'’-]+){{0,4}})"
        + _END
    ),
    # Renew passport — done / "Pay rent": done (a title of a few words, then the state)
    _en(
        r"^(?:the\s+)?(?:(?:todo|task)\s+)?(?!(?:it|that|this|everything|all|which|what|who"
        r"|something|nothing|ok|okay|sure|yes|great|alright|all\s+right|status|state)\b)"
        rf"(?P<title>{QUOTED}|[\w'’-]+(?:\s+[\w'’-]+){{0,5}}?)\s*(?:—|–|-{{1,2}}|:)\s*"
        r"(?P<state>done|finished|completed|complete)\s*[.!✅✔☑️]*\s*$"
    ),
    # Call mom is done: an unquoted title of a few words (not "it", "everything", …)
    _en(
        r"^(?:the\s+)?(?:(?:todo|task)\s+)?(?!(?:it|that|this|everything|all|which|what|who"
        r"|something|nothing|dinner|lunch|breakfast|the\s+(?:todo|task)|your|my|our)\b)"
        r"(?P<title>[\w'’-]+(?:\s+[\w'’-]+){0,5}?)\s+is\s+(?:now\s+)?(?:all\s+)?"
        rf"(?P<state>done|finished|completed|complete){_END}"
    ),
]
_UPDATE_NOTE = [
    _en(
        r"^(?:change|set|update|replace)\s+(?:the\s+)?(?P<field>content|text|body|title|name|tags)"
        rf"\s+(?:of|for|in|on)\s+(?:the\s+|my\s+)?note\s+{_TITLE}\s+(?:to|with)\s+"
        rf"(?P<value>.+?){_END}"
    ),
    # Replace the content of my Standup note with "…"
    _en(
        r"^(?:change|set|update|replace)\s+(?:the\s+)?(?P<field>content|text|body|title|name|tags)"
        rf"\s+(?:of|for|in|on)\s+(?:the\s+|my\s+)?{_TITLE}\s+note\s+(?:to|with)\s*:?\s+"
        rf"(?P<value>.+?){_END}"
    ),
    # change the Recipes note so it just says: crepes / Overwrite Trip ideas with Tokyo, Osaka
    _en(
        rf"^(?:change|edit|update|rewrite)\s+(?:the\s+|my\s+)?{_TITLE}\s+note\s+so\s+(?:that\s+)?"
        rf"it\s+(?:just\s+|only\s+)?(?:says|reads)\s*:?\s*(?P<value>.+?){_END}"
    ),
    _en(rf"^overwrite\s+(?:the\s+|my\s+)?{_TITLE}(?:\s+note)?\s+with\s*:?\s*(?P<value>.+?){_END}"),
    # Add to Trip ideas: Kyoto in autumn … / Put this in my Standup note: … (lines added)
    _en(
        r"^(?:add|append|put)\s+(?:this\s+|these\s+|the\s+following\s+)?(?:to|in|into|onto)\s+"
        rf"(?:the\s+|my\s+)?{_TITLE}(?:\s+note)?\s*:\s*(?P<append>.+?){_END}"
    ),
    # edit the note "Soup recipes": add "bake at 180C" (a line added after the colon)
    _en(
        rf"^(?:edit|update|change)\s+(?:the\s+|my\s+)?note\s+{_TITLE}\s*:\s*(?:please\s+)?"
        rf"(?:add|append)\s*:?\s+(?P<append>.+?){_END}"
    ),
    # update the Recipes note to: pancakes, waffles (a colon: its text, not a new name)
    _en(
        rf"^(?:change|update|set|edit|rewrite)\s+(?:the\s+|my\s+)?{_TITLE}\s+note\s+to"
        rf"(?:\s+(?:say|read))?\s*:\s*(?P<value>.+?){_END}"
    ),
    # Recipes note should be called Breakfast recipes from now on
    _en(
        rf"^(?:the\s+|my\s+)?{_TITLE}\s+note\s+(?:should|will|shall|must)\s+be\s+"
        r"(?P<field>called|named|titled|renamed(?:\s+to)?)\s+(?P<value>.+?)"
        rf"(?:\s+from\s+now\s+on|\s+instead)?{_END}"
    ),
    # append to Recipes: banana bread / Standup note — add: waiting on design review
    _en(rf"^append\s+to\s+(?:the\s+|my\s+)?{_TITLE}(?:\s+note)?\s*:\s*(?P<append>.+?){_END}"),
    _en(
        rf"^(?!in\s)(?:the\s+|my\s+)?{_TITLE}\s+note\s*(?:—|–|-{{1,2}}|:|,)\s*(?:please\s+)?(?:add|append)"
        rf"\s*:?\s+(?P<append>.+?){_END}"
    ),
    _en(rf"^rename\s+(?:the\s+|my\s+)?note\s+{_TITLE}\s+(?:to|as)\s+(?P<value>.+?){_END}"),
    _en(rf"^rename\s+(?:the\s+|my\s+)?{_TITLE}\s+note\s+(?:to|as)\s+(?P<value>.+?){_END}"),
    # add a line to my Standup note: move to Tuesday
    _en(
        r"^(?:add|append)\s+(?:a\s+|one\s+|this\s+)?(?:line|sentence|bullet|point|item|row)\s+"
        rf"(?:to|in|into)\s+(?:the\s+|my\s+)?{_TITLE}\s+note\s*(?:[:：]|saying)\s*(?P<append>.+?){_END}"
    ),
    # in my Recipes note, add waffles with blueberry syrup / …, add a line: Seoul in spring
    _en(
        rf"^in\s+(?:the\s+|my\s+)?{_TITLE}\s+note\s*,?\s*(?:please\s+)?(?:add|append|put|write|jot)"
        r"(?:\s+down)?(?:\s+(?:a|one)\s+(?:line|sentence|bullet|point|item|row))?\s*:?\s+"
        rf"(?P<append>.+?){_END}"
    ),
    # "append waffles to Recipes": append only ever adds to a note
    _en(rf"^append\s+(?P<append>.+?)\s+to\s+(?:the\s+|my\s+)?{_TITLE}(?:\s+note)?{_END}"),
    # replace what's in the Standup note with: no blockers today
    _en(
        r"^replace\s+(?:what'?s|what\s+is|everything|the\s+(?:content|text))\s+in\s+(?:the\s+|my\s+)?"
        rf"{_TITLE}\s+note\s+with\s*:?\s*(?P<value>.+?){_END}"
    ),
    # add Porto to my Trip ideas note: a line added at the end of the note's content
    *(
        _en(
            r"^(?:add|append|put|jot)\s+(?P<append>.+?)\s+(?:to|into|in|onto|at\s+the\s+end\s+of)"
            rf"\s+(?:the\s+|my\s+)?{form}(?:\s+(?:too|as\s+well|also))?{_END}"
        )
        for form in (rf"{_TITLE}\s+note", rf"note\s+{_TITLE}")
    ),
    _en(
        rf"^(?:update|change|edit)\s+(?:the\s+|my\s+)?note\s+{_TITLE}\s+"
        rf"(?:to\s+say|to\s+read|to|with)\s*:?\s+(?P<value>.+?){_END}"
    ),
]
# tag my Recipes note with cooking and breakfast / Add tags #travel #2027 to Trip ideas /
# add the tag work to the Standup note: tags added to the note's own
_ADD_TAGS = [
    _en(
        rf"^(?:tag|label)\s+(?:the\s+|my\s+)?(?:note\s+)?{_TITLE}(?:\s+note)?\s+(?:with|as)\s+"
        r"(?:the\s+)?(?:tags?\s+|labels?\s+)?(?P<tags>.+?)" + _END
    ),
    _en(
        r"^(?:add|put|attach|stick)\s+(?:the\s+|a\s+)?(?:tags?|labels?)\s*:?\s+(?P<tags>.+?)\s+(?:to|on|onto)"
        rf"\s+(?:the\s+|my\s+)?(?:note\s+)?{_TITLE}(?:\s+note)?{_END}"
    ),
]
_FIELD = r"due\s+(?:date|time)|deadline|due|priority|title|name|description|notes?"
_FIELDS = {
    "title": FIELD_TITLE,
    "name": FIELD_TITLE,
    "priority": FIELD_PRIORITY,
    "description": FIELD_DESCRIPTION,
    "note": FIELD_DESCRIPTION,
    "notes": FIELD_DESCRIPTION,
    "comment": FIELD_DESCRIPTION,
    "details": FIELD_DESCRIPTION,
    "rename": FIELD_TITLE,
    "retitle": FIELD_TITLE,
    "due date": FIELD_DUE,
    "due time": FIELD_DUE,
    "deadline": FIELD_DUE,
    "due": FIELD_DUE,
}


def _field(word: str | None) -> str:
    """Return the ``FIELD_*`` a field word names ("due  date" -> due_at), or ""."""
    return _FIELDS.get(" ".join((word or "").lower().split()), "")


_UPDATE_TODO = [
    _en(
        rf"^(?:change|set|update|move|push|make)\s+(?:the\s+)?(?P<field>{_FIELD})\s+(?:of|for|on)\s+"
        rf"(?:the\s+|my\s+)?(?:(?:todo|to-do|task)\s+)?{_TITLE}\s+to\s+(?P<value>.+?){_END}"
    ),
    _en(
        rf"^(?:change|set|update|move|push|make)\s+(?:the\s+|my\s+)?(?:(?:todo|to-do|task)\s+)?"
        rf"{_TITLE}(?:'s|’s)?\s+(?P<field>{_FIELD})\s+to\s+(?P<value>.+?){_END}"
    ),
    _en(
        rf"^(?P<verb>rename)\s+(?:the\s+|my\s+)?(?:(?:todo|to-do|task)\s+)?{_TITLE}\s+"
        rf"(?:to|as)\s+(?P<value>.+?){_END}"
    ),
    _en(
        r"^(?P<verb>move|reschedule|postpone|push(?:\s+back)?|delay|shift|change|update|bump)"
        rf"\s+(?:the\s+|my\s+)?(?:(?:todo|to-do|task)\s+)?{_TITLE}\s+(?:to|until|till)\s+"
        rf"(?P<value>.+?){_END}"
    ),
    _en(
        rf"^(?:make|set|mark)\s+(?:the\s+|my\s+)?(?:(?:todo|to-do|task)\s+)?{_TITLE}\s+(?:as\s+|to\s+)?"
        r"(?P<value>(?:high|low|normal|medium|top)(?:[\s-]+priority)?|urgent|important|not\s+urgent"
        r"|unimportant)" + _END
    ),
    _en(
        rf"^(?:add|put|set|write|attach)\s+(?:a\s+|the\s+)?(?P<field>description|note|comment)\s+"
        rf"(?:to|on|for)\s+(?:the\s+|my\s+)?(?:(?:todo|to-do|task)\s+)?{_TITLE}\s*(?::|saying)\s*"
        rf"(?P<value>.+?){_END}"
    ),
    # Replace the notes on Pay rent with "…": a todo's notes are its description
    _en(
        r"^(?:replace|change|update|set|overwrite)\s+(?:the\s+)?(?P<field>notes?|description|details)\s+"
        rf"(?:on|of|for|in)\s+(?:the\s+|my\s+)?(?:(?:todo|to-do|task)\s+)?{_TITLE}\s+(?:with|to)\s*:?\s*"
        rf"(?P<value>.+?){_END}"
    ),
    # Knock Pay rent down to low / bring X up to high
    _en(
        rf"^(?:knock|bring|drop|move|bump|push|take)\s+{_TITLE}\s+(?:down|up|back)\s+to\s+"
        r"(?P<value>(?:high|low|normal|medium|top)(?:[\s-]+priority)?)" + _END
    ),
    # Prepare slides is top priority now
    _en(
        rf"^(?!(?:it|that|this|which|what)\b){_TITLE}\s+is\s+(?:now\s+)?"
        r"(?P<value>(?:high|low|normal|medium|top|highest|lowest)[\s-]+priority)(?:\s+now)?" + _END
    ),
]
# Remove the deadline from X / Clear the due date on X / X doesn't need a due date anymore
_CLEAR_DUE = [
    _en(
        r"^(?:remove|clear|delete|drop|take\s+off|get\s+rid\s+of|unset|scrap)\s+(?:the\s+)?"
        r"(?:deadline|due\s+date|due\s+time|due)\s+(?:from|on|of|for)\s+(?:the\s+|my\s+)?"
        rf"(?:(?:todo|to-do|task)\s+)?{_TITLE}{_END}"
    ),
    _en(
        rf"^{_TITLE}\s+(?:doesn'?t|does\s+not|won'?t|no\s+longer)\s+(?:need|needs|have|has)\s+"
        r"(?:a\s+)?(?:deadline|due\s+date)(?:\s+any\s*more)?" + _END
    ),
]
# X can be lowered a notch / raised a bit: one step
_PRIORITY_STEP = _en(
    rf"^{_TITLE}\s+(?:can|could|should|may)\s+be\s+(?P<dir>lowered|raised|bumped\s+(?:up|down)"
    r"|moved\s+(?:up|down))(?:\s+a\s+(?:notch|bit|level|step|little))?(?:\s+in\s+priority)?" + _END
)
_UPDATE_NO_VALUE = [
    _en(
        rf"^(?:change|update|edit|modify|set)\s+(?:the\s+)?(?P<field>{_FIELD})\s+(?:of|for|on)\s+"
        rf"(?:the\s+|my\s+)?(?:(?P<kind>note|todo|to-do|task)\s+)?{_TITLE}{_END}"
    ),
    _en(
        rf"^(?:change|update|edit|modify)\s+(?:the\s+|my\s+)?(?P<kind>note|todo|to-do|task)\s+"
        rf"(?:called\s+|titled\s+|named\s+)?{_TITLE}{_END}"
    ),
    _en(
        r"^(?P<verb>lower|raise|bump|increase|decrease|reduce|change)(?:\s+(?:up|down))?\s+(?:the\s+)?"
        r"(?P<field>priority)"
        rf"\s+(?:of|for|on)\s+(?:the\s+|my\s+)?(?:(?P<kind>todo|to-do|task)\s+)?{_TITLE}{_END}"
    ),
]
# "I want to rename Renew passport", "Give Prepare slides a description": the new value asked
_UPDATE_NO_VALUE.append(
    _en(rf"^(?P<field>rename|retitle)\s+(?:the\s+|my\s+)?(?:(?:todo|to-do|task)\s+)?{_TITLE}{_END}")
)
_UPDATE_NO_VALUE.append(
    _en(
        rf"^(?:give|add)\s+(?:the\s+|my\s+)?{_TITLE}\s+(?:a|an|some)\s+(?P<field>description|note"
        r"|notes|details)" + _END
    )
)
# "change Pay rent", "edit Book dentist appointment": the item's name alone (a few words with
# no time, no value): what to change is asked
_UPDATE_NO_VALUE.append(
    _en(
        r"^(?:change|update|edit|modify|adjust)\s+(?:the\s+|my\s+)?"
        r"(?!(?:it|that|this|something|things|stuff|everything|all|my|the|a|an|todos?|tasks?"
        rf"|notes?|items?|list|reminders?|{_FIELD})\b)"
        rf"(?P<title>{QUOTED}|[\w'’-]+(?:\s+[\w'’-]+){{0,5}}){_END}"
    )
)
_UPDATE_WHICH = _en(
    r"^(?:change|update|edit|modify)\s+(?:a\s+|the\s+|my\s+)?(?P<kind>note|todo|task)$"
)
_CREATE_NOTE = [
    _en(
        r"^(?:create|add|make|write|new|take|start|save|jot(?:\s+down)?|put\s+down"
        r"|i\s+(?:want|need|would\s+like|'d\s+like)|give\s+me)\s+(?:me\s+)?(?:a\s+|an\s+)?"
        r"(?:new\s+|quick\s+|blank\s+|empty\s+)*note\b\s*(?:for\s+me\s+)?(?:[:\-–—]\s*)?"
        r"(?P<body>.*?)\s*[.!]?\s*$"
    ),
    # Write down in a new note that the garage door code changed to 9090
    _en(
        r"^(?:write|put|jot|save)\s+(?:this\s+|it\s+)?down\s+(?:in|as)\s+(?:a\s+)?(?:new\s+)?note"
        r"\s*(?:that\s+|:\s*)?(?P<body>.+?)\s*[.!]?\s*$"
    ),
    # note titled Lisbon food: try pastel de nata
    _en(r"^(?:a\s+)?(?:new\s+)?note\s+(?P<body>(?:titled|called|named)\b.+?)\s*$"),
    _en(r"^note\s*:\s*(?P<body>.+?)\s*$"),
    _en(
        r"^(?:save|put|write|jot|add)\s+(?:this|that|it)\s+(?:down\s+)?(?:as|in|to|into)\s+(?:a\s+)?"
        r"(?:new\s+)?(?:my\s+)?notes?\s*[:\-–—]\s*(?P<body>.+?)\s*$"
    ),
    _en(
        r"^(?:save|put|add|write|jot)\s+(?P<body>.+?)\s+(?:as|to|in|into)\s+(?:a\s+)?(?:new\s+)?"
        r"(?:my\s+)?notes?\s*[.!]?\s*$"
    ),
]
# remind me to call mom at 5pm (with no time: asked when)
_REMIND = _en(
    r"^(?:remind\s+me|don'?t\s+let\s+me\s+forget|i\s+need\s+a\s+reminder|set\s+a\s+reminder)"
    r"\s+(?:to\s+|about\s+|that\s+)?(?P<body>.+?)\s*[.!]?\s*$"
)
_CREATE_TODO = [
    _en(
        r"^(?:create|add|make|new|set\s+up|set|put|record|note\s+down|write\s+down|jot\s+down|schedule)"
        r"\s+(?:me\s+)?(?:a\s+|an\s+|one\s+)?(?:new\s+)?"
        r"(?:(?P<priority>high|low|normal|medium|top|urgent|important)(?:[\s-]+priority)?\s+)?(?:new\s+)?"
        rf"{_TODO}\b\s*(?:item\b)?\s*(?:(?:to|for|called|named|titled|that\s+says|saying|about)\b|"
        r"[:\-–—])?\s*(?P<body>.+?)\s*[.!]?\s*$"
    ),
    _en(
        r"^(?:add|put|stick|throw)\s+(?P<body>.+?)\s+(?:to|on|in|onto)\s+(?:my\s+|the\s+)?"
        r"(?:todos?|to-dos?|todo\s+list|to-do\s+list|to\s+do\s+list|tasks?|task\s+list|list|agenda)"
        r"(?P<tail>\s+(?:for|by|on|at|due)\s+.+?|\s*[,;]\s*.+?)?\s*[.!]?\s*$"
    ),
    _REMIND,
    _en(r"^(?:todo|to-do|task)\s*:\s*(?P<body>.+?)\s*$"),
    # 'schedule "Team lunch" for next Tuesday at 12:30'
    _en(r"^schedule\s+(?!(?:a|an)\s+(?:note|meeting\s+note)\b)(?P<body>.+?)\s*[.!]?\s*$"),
    # "add buy eggs", 'add "Book flights" with high priority': add with nothing else to add to
    _en(
        r"^add\s+(?!(?:a|an|the|some)\s+(?:notes?|description|tags?|lines?|comments?)\b)"
        r"(?P<body>(?:(?!\b(?:to|into|in|on|onto)\s+(?:my|the|your|this|that)\b"
        r"(?!\s+(?:morning|afternoon|evening)\b)).)+?)\s*[.!]?\s*$"
    ),
]
_ASK_TODO = _en(rf"^(?:create|add|make|new)\s+(?:a\s+|an\s+)?(?:new\s+)?{_TODO}\s*[.!?]?\s*$")
_ASK_NOTE = _en(
    r"^(?:create|add|make|write|new|take)\s+(?:a\s+|an\s+)?(?:new\s+)?note\s*[.!?]?\s*$"
)
WRITE_WORDS = _en(r"\b(?:delete|remove|create|add|update|change|mark|rename|move|edit)\b")


def todo_fields(body: str, *, priority: str | None = None) -> Intent:
    """Build create_todo from a body such as "submit it at 9pm, description: the Q3 one"."""
    description = None
    match = re.search(
        r"[,;.]?\s*(?:with\s+)?(?:the\s+|a\s+)?(?:description|details?|notes?)\s*[:：]\s*(?P<text>.+)$"
        r"|[,;.]?\s*(?:with\s+)?(?:the\s+)?description\s+(?P<text2>.+)$"
        # "…, with a note saying he likes dinosaurs"
        r"|[,;.]?\s*with\s+(?:a\s+|the\s+)?(?:note|description|comment)\s+(?:saying|that\s+says)"
        r"\s*:?\s*(?P<text3>.+)$",
        body,
        re.IGNORECASE,
    )
    if match:
        description = (
            (match.group("text") or match.group("text2") or match.group("text3"))
            .strip()
            .strip(STRIP)
        )
        body = body[: match.start()]
    # "create a todo, title: Buy milk": the label is not part of the title
    body = re.sub(r"^[\s,;]*(?:title\s*[:：]|titled\s*[:：]?)\s*", "", body, flags=re.IGNORECASE)
    quoted = re.search(QUOTED, body)
    rest, found_priority = take_priority(body)
    priority = priority or found_priority
    rest, due = take_en_time(rest)
    title = unquote(quoted.group()) if quoted else clean_title(rest)
    if not quoted and _ADDED_TO_SOMETHING.search(title):
        # "add lisbon food tips to trip ideas: pastel de nata": lines added *to* something
        # named (a note, most likely), not a todo titled all of that: asked
        return ask("create_todo", SLOT_INTENT, title=title)
    return create_intent(
        "create_todo", title, description=description, due_at=due, priority=priority
    )


# "… to trip ideas: pastel de nata", "… into my recipes — banana bread": a target, then lines
_ADDED_TO_SOMETHING = re.compile(r"\b(?:to|into)\s+(?:my\s+|the\s+)?[\w'’ -]{2,40}\s*[:：–—]\s*\S")


def note_fields(body: str) -> Intent:
    """Build create_note from "titled X: Y" / "X - Y" / "X: Y" / "X"."""
    # 'jot down a note, title "Book list", content "Dune"': labels after a comma, or before a quote
    body = re.sub(r"^[\s,;:]+", "", body)
    # "a note with this: - run a 10k", "new note - remember that …": what leads into the text
    body = re.sub(
        r"^(?:with\s+(?:this|the\s+following)|that\s+says|saying|remember\s+that|that)\s*:?\s+",
        "",
        body,
        flags=re.I,
    )
    body = re.sub(r"\s+w/\s+", ": ", body, count=1)  # "packing list w/ charger, socks"
    body = re.sub(r"\s+with\s+(?=[\"“‘])", ": ", body, count=1)  # 'Gift list with "scarf"'
    body = re.sub(r"^(title|content)\s+(?=[\"“‘'「])", r"\1: ", body, flags=re.I)
    body = re.sub(r"([,;]\s*content)\s+(?=[\"“‘'「])", r"\1: ", body, flags=re.I)
    tags = None
    # (a label: after a comma or "with"/"and", or "tagged" — "add tags to notes, then filter
    # by tag" is content)
    match = re.search(
        r"(?:(?:^|[,;.])\s*(?:and\s+)?(?:with\s+)?(?:the\s+)?tags?|\s(?:with|and)\s+(?:the\s+)?tags?"
        r"|\btagged(?:\s+with)?)\s*[:：]?\s+(?P<tags>.+)$",
        body,
        re.I,
    )
    if match:
        tags = split_tags(re.sub(r"\s+(?:and|&)\s+", ",", match.group("tags")))
        body = body[: match.start()].strip().rstrip(",;")
    elif trailing := re.search(r"(?:(?:^|\s)#[^\s#]+)+\s*$", body):
        # "… 3. adapter #travel": tags written at the end
        tags = split_tags(trailing.group(0))
        body = body[: trailing.start()].strip()
    whole = body
    content: str | None
    # "new note content: meeting points": the content, and no title yet
    bare_content = re.match(
        r"^[,;\s]*(?:with\s+)?(?:the\s+)?(?:content|body|text)\s*[:：]\s*(?P<content>.+)$",
        body,
        re.IGNORECASE | re.DOTALL,
    )
    if bare_content:
        return ask("create_note", SLOT_TITLE, content=bare_content.group("content").strip())
    labelled = re.match(
        rf"^(?:titled|called|named|with\s+(?:the\s+)?title|title\s*[:：])\s*(?P<title>{QUOTED}|.+?)"
        r"(?:\s*:\s*|\s*[,;]\s*(?:(?:with\s+)?(?:the\s+)?(?:content|body|text)(?:\s+is)?|saying"
        r"|that\s+says)\s*:?\s*|\s+(?:(?:with\s+)?(?:the\s+)?(?:content|body|text)|saying"
        r"|that\s+says)\s*:?\s*|\s+[-–—]\s+|\s+with\s*:\s*|(?<=[\"”’'])\s+with\s+)(?P<content>.+)$",
        body,
        re.IGNORECASE | re.DOTALL,
    ) or re.match(
        rf"^(?:titled|called|named|with\s+(?:the\s+)?title|title\s*[:：])\s*(?P<title>{QUOTED}|.+)$",
        body,
        re.IGNORECASE | re.DOTALL,
    )
    if labelled:
        title, content = labelled.group("title"), labelled.groupdict().get("content")
    elif re.match(r"^(?:about|on)\s+", body, re.I):
        # "a note about the meeting: we agreed on Q3": the topic, then what it says
        about = re.sub(r"^(?:about|on)\s+", "", body, flags=re.I)
        topic, colon, said = about.partition(": ")
        if not (colon and said.strip()):
            topic, _, said = about.partition(", ")  # "about the dentist, he said floss more"
        title, content = note_title_and_content(topic, said.strip() or None, about)
    else:
        quoted = re.match(rf"^(?P<title>{QUOTED})\s*[,:;\-–—]?\s*(?P<content>.*)$", body, re.DOTALL)
        # (not the colon of a link or a clock: "https://…", "11:40")
        parts = quoted or re.match(
            r"^(?P<title>.+?)(?:\s*(?<!\d):(?!//|\d)\s*|\s*;\s*|\s*,\s*|\s+[-–—]+\s+|\s*—\s*)"
            r"(?P<content>.+)$",
            body,
            re.DOTALL,
        )
        if re.match(r"^\s*(?:[-*•]|\d+[.)])\s+", body):
            # "- run a 10k - learn Rust": a list, its first item the title
            first = re.split(r"\s+(?:[-*•]|\d+[.)])\s+", body.lstrip("-*• "), maxsplit=1)[0]
            title, content = re.sub(r"^\d+[.)]\s*", "", first), body
        elif quoted:
            title, content = quoted.group("title"), quoted.group("content")
            # 'Create note "Finished books" with content "…"': the label is no part of it
            # ('new note "Packing list" with passport, charger': "with" only joins them)
            content = re.sub(
                r"^(?:with\s+)?(?:the\s+)?(?:content|body|text)(?:\s+is)?\s*:?\s*|^with\s+|\s+and$",
                "",
                content.strip(),
                flags=re.I,
            )
        elif parts:
            title, content = note_title_and_content(
                parts.group("title"), parts.group("content"), whole
            )
        else:
            title, content = note_title_and_content(body, None, whole)
    title = unquote(title)
    content = (content or "").strip()
    if re.fullmatch(QUOTED, content):
        content = unquote(content)  # content "Dune, Project Hail Mary"
    return create_intent("create_note", title, content=content, tags=tags)


def _update_todo(match: re.Match[str]) -> Intent:
    groups = match.groupdict()
    verb = (groups.get("verb") or "").lower()
    field_name = FIELD_TITLE if verb == "rename" else _field(groups.get("field"))
    value = match.group("value").strip()
    title = unquote(match.group("title"))
    if verb.startswith(("bump", "push", "move")):
        title = re.sub(r"\s+(?:up|down|back|forward)$", "", title, flags=re.I)  # bump X up to high
    timed = verb not in {"change", "update"} or is_time(value)
    change = todo_change(field_name, value, priority=priority_of(value), timed=timed)
    if change.slot:
        return ask("update_todo", change.slot, todo_title=title)
    if title.lower() in {"it", "this", "that", "this one", "that one"}:
        return ask("update_todo", SLOT_TARGET, **change.args)  # "make it high priority": which?
    otherwise: tuple[tuple[str, dict[str, Any]], ...] = ()
    if set(change.args) == {"title"} and not re.search(
        r"\b(?:todo|to-do|task)\b", match.group(0), re.I
    ):
        # a rename that says neither todo nor note: a note's, when no todo has that title
        otherwise = (("update_note", {"note_title": title, **change.args}),)
    return Intent("update_todo", {"todo_title": title, **change.args}, otherwise=otherwise)


# "reopen Clean the garage, I missed a corner": what follows the item is the reason.
_REASON_AFTER = re.compile(
    r"\s*[,;]\s*(?:i|i'm|i've|i'd|it|it's|its|we|we're|because|since|as|cause|turns\s+out"
    r"|actually|not\s+needed|no\s+longer|still|meeting|lol|haha)\b.*$"
    r"|\s*,?\s+(?:pls|plz|please|thx|thanks)\b.*$",
    re.IGNORECASE,
)


def _target(raw: str) -> str:
    """An existing item's title as the request names it (unquoted, its reason dropped)."""
    quoted = re.match(rf"^\s*{QUOTED}", raw)
    return unquote(raw if quoted else _REASON_AFTER.sub("", raw))


# When a reported state came about, after the item: "I finished the report yesterday".
_WHEN_DONE = re.compile(
    r"\s+(?:just\s+now|earlier(?:\s+today)?|yesterday|today|last\s+night|this\s+(?:morning|afternoon)"
    r"|an\s+hour\s+ago|on\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))"
    r"\s*$",
    re.IGNORECASE,
)


def _finish_by(match: re.Match[str]) -> Intent | None:
    """ "finish the slides by Friday 5pm": a todo to finish by then (asked, titled with its
    verb), not a status change; None when the form names no time to do it by."""
    state = match.group("state").lower()
    if state not in ("complete", "finish") or re.match(rf"\s*{QUOTED}", match.group("title")):
        return None
    due = take_en_time(match.group("title"))[1]
    rest = take_en_time(match.string)[0]
    if due is None:
        return None
    if not clean_title(_target(match.group("title")).replace(due, "")):
        return HELP  # "finish by Friday": which item is not said
    return ask("create_todo", SLOT_INTENT, title=clean_title(rest), due_at=due)


def write_intent(text: str) -> Intent | None:
    for pattern in _CLEAR_DUE:
        match = pattern.match(text)
        if match and _target(match.group("title")):
            return Intent(
                "update_todo", {"todo_title": _target(match.group("title")), "due_at": None}
            )
    match = _PRIORITY_STEP.match(text)
    if match and _target(match.group("title")):
        step = (
            "raise" if re.match(r"raised|bumped\s+up|moved\s+up", match.group("dir")) else "lower"
        )
        return Intent(
            "update_todo", {"todo_title": _target(match.group("title")), "priority": step}
        )
    match = _DELETE.match(text)
    if match:
        kind = (match.group("kind") or match.group("kind2") or "todo").lower().rstrip("s")
        title = _target(match.group("title"))
        if re.match(r"^(?:all|every|completed|done|finished)\b", title, re.I):
            if kind == "note" or re.search(r"\bnotes?\b", title, re.I):
                return Intent("delete_note", {})  # planned: the registry's guidance answers
            return HELP  # bulk deletes are not offered
        if kind == "note":
            return Intent("delete_note", {"note_title": title} if title else {})
        title = re.sub(r"(?<=\w)\s+one$", "", title)  # "the mom one": the item named after mom
        if not title or title.lower() in {"it", "this", "that", "this one", "that one", "one"}:
            return ask("delete_todo", SLOT_TARGET)
        return Intent("delete_todo", {"todo_title": title})
    for pattern in _ADD_TAGS:
        match = pattern.match(text)
        if match and _target(match.group("title")):
            tags = split_tags(re.sub(r"\s+(?:and|&)\s+", ",", match.group("tags")))
            if tags:
                return Intent(
                    "update_note", {"note_title": _target(match.group("title")), "add_tags": tags}
                )
    for pattern in _UPDATE_NOTE:
        match = pattern.match(text)
        if match:
            field_name = (match.groupdict().get("field") or "content").lower()
            if re.match(r"called|named|titled|renamed", field_name):
                field_name = "title"  # "… note should be called …"
            args: dict[str, Any] = {"note_title": unquote(match.group("title"))}
            if match.groupdict().get("append"):
                return Intent("update_note", {**args, "append": unquote(match.group("append"))})
            value = match.group("value").strip()
            if field_name in {"title", "name"} or text.lower().lstrip().startswith("rename"):
                args["title"] = unquote(value)
            elif field_name == "tags":
                args["tags"] = split_tags(value)
            else:
                args["content"] = unquote(value)
            return Intent("update_note", args)
    for pattern in _STATUS:
        match = pattern.match(text)
        finish_by = _finish_by(match) if match else None
        if finish_by is not None:
            return finish_by
        if match and _target(match.group("title")):
            title = _target(re.sub(r"\s+(?:todo|task|item)$", "", match.group("title"), flags=re.I))
            title = _WHEN_DONE.sub("", title) or title  # "I finished the report yesterday"
            if re.match(r"^(?:all|every|everything)\b", title, re.I):
                return HELP
            state = match.group("state").lower()
            opened = re.fullmatch(rf"{_OPEN_STATE}|reopen|re-open|uncheck|unmark|undo", state)
            if title.lower() in {"it", "this", "that", "this one", "that one", "as", "it as"}:
                return ask("set_todo_status", SLOT_TARGET, status="open" if opened else "done")
            return Intent(
                "set_todo_status", {"todo_title": title, "status": "open" if opened else "done"}
            )
    for pattern in _UPDATE_TODO:
        match = pattern.match(text)
        if match:
            return _update_todo(match)
    match = _UPDATE_WHICH.match(text)
    if match:
        return ask(
            "update_note" if match.group("kind").lower() == "note" else "update_todo", SLOT_TARGET
        )
    match = next((m for m in (p.match(text) for p in _UPDATE_NO_VALUE) if m), None)
    if match:
        kind = (match.groupdict().get("kind") or "todo").lower()
        title = _target(match.group("title"))
        if kind == "note":
            return ask("update_note", SLOT_CHANGE, note_title=title)
        verb = (match.groupdict().get("verb") or "").lower()
        step = "raise" if verb in ("raise", "bump", "increase") else "lower"
        if verb in ("lower", "raise", "bump", "increase", "decrease", "reduce") and title:
            # "bump up the priority of X": one step from its present level
            return Intent("update_todo", {"todo_title": title, "priority": step})
        slot = change_slot(_field(match.groupdict().get("field")))
        return ask("update_todo", slot, todo_title=title)
    if _ASK_NOTE.match(text):
        return ask("create_note", SLOT_TITLE)
    for pattern in _CREATE_NOTE:
        match = pattern.match(text)
        if match:
            return note_fields(match.group("body"))
    if _ASK_TODO.match(text):
        return ask("create_todo", SLOT_TITLE)
    for pattern in _CREATE_TODO:
        match = pattern.match(text)
        if match:
            given = match.groupdict().get("priority")
            body = match.group("body") + (match.groupdict().get("tail") or "")
            intent = todo_fields(body, priority=priority_of(given) if given else None)
            if pattern is _REMIND and intent.slot is None and "due_at" not in intent.args:
                return ask("create_todo", SLOT_DUE, **intent.args)  # remind me to X: when?
            return intent
    return None
