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
from agent.guard.text import Clause

_PARTICIPLES: dict[str, str] = {
    "create": (
        r"created|added|made|set up|saved|stored|recorded|logged|noted down|noted|jotted(?: down)?"
        r"|written(?: down)?|wrote(?: down)?|put|placed|inserted|scheduled|booked|entered|filed"
        r"|registered|captured|included|appended|generated|built|drafted|started|opened|queued"
        r"|penciled(?: in)?|pencilled(?: in)?|slotted(?: in)?|got (?:it|that|this|you) down"
        r"|imported|created and saved|tucked(?: away)?|stashed(?: away)?|popped(?: in)?"
        r"|slipped(?: in)?|persisted"
    ),
    "update": (
        r"updated|changed|modified|edited|renamed|retitled|moved|rescheduled|postponed"
        r"|pushed(?: back)?|shifted|adjusted|switched|bumped(?: up| down)?|replaced|overwritten"
        r"|overwrote|revised|amended|extended|tweaked|corrected|converted|brought forward|set"
        r"|reassigned|swapped|raised|lowered|reprioriti[sz]ed|repointed|fixed"
        r"|filled(?: in| out)?|fleshed out|populated|expanded|rewritten|rewrote|reworded"
        r"|rephrased|shortened|trimmed(?: down)?|condensed|simplified|polished|tightened(?: up)?"
        r"|streamlined|summari[sz]ed|clarified|refreshed|tagged|labell?ed|flipped|toggled|reverted"
        r"|rolled\s+back|rolled\s+(?:it|that|this|them|everything)\s+back|transitioned"
        r"|(?:taken|took)\s+(?:it|that|this|them|everything)\s+back|taken\s+back"
    ),
    "status": (
        r"marked|ticked(?: off)?|checked off|crossed off|crossed out|completed|finished|closed"
        r"|wrapped up|checked in"
        r"|reopened|resolved|flagged|un-?ticked|un-?checked|unmarked"
    ),
    "delete": (
        r"deleted|removed|erased|cleared(?: out)?|wiped(?: out)?|purged|trashed|binned|dropped"
        r"|cancell?ed|discarded|got rid of|gotten rid of|eliminated|taken off|took off|destroyed"
        r"|emptied|scrapped|dumped|deleted and removed|cleaned(?: up| out)?|tidied(?: up)?"
        r"|scrubbed|axed|zapped|nuked|ditched|taken out|took out|yeeted"
    ),
    OTHER: (
        r"archived|shared|sent|submitted|synced|synchroni[sz]ed|uploaded|forwarded|emailed"
        r"|published|pinned|starred|favou?rited|backed up|exported|merged|split|copied|duplicated"
        r"|locked|unlocked|assigned|applied|committed|filed away|packed|zipped|bundled"
        r"|compressed|pushed\s+to\s+your\s+(?:phone|calendar|wechat)"
        r"|transferred|migrated|undone|undid|shelved|parked|stowed(?: away)?"
    ),
    # out of the trash: an undo of a delete (backed by a restore's receipt)
    "restore": r"restored|recovered|reinstated|undeleted|brought\s+back",
    # Verbs that say something was done without saying what ("I've taken care of it"):
    # backed like "Done." by the one action a reply is about.
    "any": (
        r"processed|executed|handled|taken care of|took care of|sorted(?: out)?|done"
        r"|carried out|performed|organi[sz]ed|arranged"
    ),
}
_BASE: dict[str, str] = {
    "create": r"create|add|make|set up|save|store|record|log|note|jot|write|put|schedule|book"
    r"|insert",
    "update": r"update|change|modify|edit|rename|move|reschedule|postpone|push|shift|adjust|set"
    r"|rewrite|replace|overwrite|append",
    "status": r"mark|tick|check off|cross off|complete|finish|close|reopen|resolve",
    "delete": r"delete|remove|erase|clear|wipe|purge|trash|drop|cancel|discard|get rid of|scrap",
    OTHER: r"archive|share|send|submit|sync|upload|forward|email|pin|tag",
    "restore": r"restor|recover|reinstat|undelet",
    "any": r"handle|take care of|do|sort|process|execute|carry out|perform",
}
_PP = "|".join(f"(?:{words})" for words in _PARTICIPLES.values())
# The participles as named groups (a match's group says its kind: ``_kind_of``).
_PP_GROUPS = "|".join(f"(?P<{kind}>{words})" for kind, words in _PARTICIPLES.items())
_PP_RE = re.compile(rf"\b(?:{_PP_GROUPS})\b")
_BASE_RE = re.compile("|".join(f"(?P<{kind}>(?:{words})\\w*)" for kind, words in _BASE.items()))
_ADV = (
    r"(?:just|already|now|also|successfully|quickly|finally|simply|actually|officially"
    r"|automatically|promptly|all|both|then|right away|immediately|for you|instantly|been"
    r"|safely|securely|neatly|permanently|completely|fully|entirely|properly|correctly"
    r"|probably|likely|apparently|definitely|certainly|surely|hopefully"  # hedged, still said
    r"|gone\s+and|went\s+and|gone\s+ahead\s+and|went\s+ahead\s+and)"
)
_FIRST_PERSON = re.compile(
    rf"\b(?:i|we)(?:\s*(?:'ve|’ve|'d|’d|have|had|has)\b)?(?:\s+{_ADV}\b)*\s+(?:{_PP})\b"
)
_WENT_AHEAD = re.compile(
    r"\b(?:went|gone|go)\s+ahead\s+and\s+(?:(?:just|also)\s+)?(?P<verb>[a-z]+(?:\s+(?:up|off|out|down))?)"
)
_TOOK_CARE = re.compile(
    r"\b(?:took|have taken|'ve taken|’ve taken)\s+care\s+of\s+(?:it|that|this|them|everything)\b"
    r"|\bgot\s+(?:it|that|this|them|everything)\s+(?:done|sorted|handled|taken care of|in)\b"
    r"|\b(?:took|taken)\s+the\s+liberty\s+of\s+\w+ing\b"
    rf"|\bgot\s+(?:it|that|this|them|everything)\s+(?:{_PP})\b"
    r"|\b(?:it|that|this)\s*(?:is|'s|’s)\s+(?:all\s+)?(?:taken care of|handled|sorted)\b"
)
_PASSIVE = re.compile(
    rf"\b(?:has|have|had|'s|’s|'ve|’ve)\s+(?:{_ADV}\s+)*been\s+(?:{_ADV}\s+)*(?:{_PP})\b"
    rf"|\b(?P<be>is|are|was|were|'s|’s|'re|’re|now|got|gets)\s+(?P<adv>(?:{_ADV}\s+)*)"
    rf"(?:{_PP})\b"
)
_SUCCESSFULLY = re.compile(rf"\bsuccessfully\s+(?:{_PP})\b|\b(?:{_PP})\s+successfully\b")
# The head of a clause: a short noun phrase, then a participle ("Todo added", "Created …").
_HEAD_WORDS = (
    r"(?:ok|okay|alright|all right|sure|great|perfect|got it|right|yes|yep|and|also|then"
    r"|the|your|this|that|these|those|a|an|one|two|three|\d+|new|it|everything|all|both|list"
    r"|to-?dos?|tasks?|notes?|items?|reminders?|entry|entries|due date|deadline|title|priority"
    r"|status|changes?|edits?|update|memo|“\ue000”)"
)
_STOP = (
    r"(?:i|we|you|they|he|she|there|here|is|are|was|were|have|has|had|will|would|can|could"
    r"|should|do|does|did|be|been|if|when|once|after|before|not|no|who|which|what|how|why"
    r"|let|please|to|for|of|whether|may|might|must|shall|nothing|none|nobody|never|neither"
    r"|nor|else|any|anything|recently|previously|lately|earlier|\w+n't)"
)
# "- [x] Created todo …": a ticked task-list box before the head reports it done.
_TICKED = r"(?:[^\w“”\ue000]*\[[x✓✔]\])?"
_FREE_HEAD = re.compile(
    rf"^{_TICKED}(?:[^\w“”\ue000]*(?:ok|okay|alright|all right|sure|great|perfect|got it|right"
    r"|yes|yep|and|also|then|just|already|now|so)\b)*[^\w“”\ue000]*"
    r"(?:the|your|this|that|my|a|an|new)?\s*"
    # "it's pinned" / "they're archived": a state after "is", the passive's to judge
    rf"(?:(?!{_STOP}\b)[\w“”\ue000'-]+\s+){{0,2}}(?<!'s\s)(?<!'re\s)(?:just\s+|now\s+|all\s+)?(?:{_PP})\b"
)
_HEAD = re.compile(
    rf"^{_TICKED}(?:[^\w“”\ue000]*{_HEAD_WORDS}(?:\b|(?<=”))[^\w“”\ue000]*){{0,4}}(?:{_PP})\b"
)
_NOUN_DONE = (
    r"\s+(?:(?:was\s+|is\s+)?(?:successful|succeeded|complete[d]?|done|finished)"
    r"|(?:went|has\s+gone)\s+through)\b"
)
_STATUS_FIELD = re.compile(r"\bstatus\s*[=:]\s*(?:done|completed?|closed|open|reopened)\b")
_STATES = [
    (
        re.compile(
            r"\b(?:is|are|'s|’s|'re|’re)\s+(?:now\s+|already\s+)(?:complete[d]?|done|finished"
            r"|checked(?:\s+off)?|ticked(?:\s+off)?|closed|open(?:\s+again)?)\b"
        ),
        "status",
    ),
    (
        re.compile(
            r"\b(?:is|are|'s|’s|'re|’re)\s+(?:now\s+|already\s+)(?:gone|empty|clear|off\s+your)\b"
        ),
        "delete",
    ),
    (
        re.compile(
            r"\b(?:is|are|'s|’s|'re|’re)\s+(?:now\s+|already\s+)(?:in\s+your|on\s+your|there"
            r"|saved|live|listed)\b"
        ),
        "create",
    ),
    (
        re.compile(
            r"\b(?:is|are|'s|’s|'re|’re)\s+(?:now\s+|already\s+)(?:set\s+to|due|at|called"
            r"|titled|named|high|low|normal)\b|\bnow\s+(?:is\s+)?due\b"
        ),
        "update",
    ),
    (
        re.compile(
            r"(?:\b(?:it|that|they|this|these|those|the\s+\w+|[\w'’]+(?:s|es))|”)\s*"
            r"(?:is|are|'s|’s|'re|’re)\s+(?:all\s+|now\s+)?gone\b"
        ),
        "delete",
    ),
    (
        re.compile(r"\bno\s+longer\s+(?:in|on|exists?|appears?|shows?|there|listed|open)\b"),
        "delete",
    ),
    (re.compile(r"\b(?:is|are|'s|’s|'re|’re)\s+(?:all\s+)?gone\s+now\b"), "delete"),
    (re.compile(r"\b(?:is|are|'s|’s|'re|’re)\s+(?:now\s+)?up\s+and\s+running\b"), "create"),
    (re.compile(r"\b(?:is|are|'s|’s|'re|’re)\s+(?:in|on)\s+there\s+now\b"), "create"),
    (re.compile(r"\bback\s+from\s+(?:the\s+)?(?:trash|bin|recycle\s+bin)\b"), "restore"),
    (
        # "That's 3 todos archived and 1 deleted": a tally of writes made
        re.compile(
            r"\bthat(?:'s|’s|\s+is|\s+makes)\s+\d+\s+(?:todos?|notes?|items?|tasks?|things?)\s+"
            r"(?:archived|deleted|removed|created|added|updated|completed|done|moved|restored)\b"
        ),
        None,
    ),
    (
        # "it's on Friday now", "is urgent now", "so it's "Mom's birthday" now": a new value
        re.compile(
            r"\b(?:is|are|'s|’s|'re|’re)\s+(?:on|due|at)\b(?!\s+(?:your|the|my)\s+(?:\w+\s+)?"
            r"(?:list|todos?|to-dos?|tasks|notes))[^.;!?,]{1,24}\bnow\b"
            r"|\b(?:is|'s|’s)\s+(?:urgent|high\s+priority|low\s+priority|top\s+priority)\s+now\b"
            r"|\b(?:is|'s|’s)\s+(?:called\s+|titled\s+|named\s+)?“\ue000”\s+now\b"
        ),
        "update",
    ),
    (
        # "The due date on "Prepare slides" moved to Monday": a field's change reported
        re.compile(
            r"\b(?:due\s+date|deadline|priority|title|time)\b[^.;!?]{0,40}?\b(?:moved|changed"
            r"|shifted|switched|went)\s+(?:from\s+[^.;!?]{1,20}?\s+)?to\b"
        ),
        "update",
    ),
    # "… should now be due on the 14th", "should be on Friday now": a hedged new value
    (
        re.compile(
            r"\bshould\s+now\s+(?:be\s+)?(?:due|set\s+to|called|titled|named|show|read|say)\b"
            r"|\bshould\s+be\s+(?:on|at|due)\b[^.;!?]{1,24}\bnow\b"
        ),
        "update",
    ),
    # "Entry #42: status=done": a status field written
    (_STATUS_FIELD, "status"),
    (
        # "Calendar invite's out to the team": sent
        re.compile(
            r"\b(?:invites?|invitations?|emails?|messages?|reminders?|requests?)\s*"
            r"(?:is|are|'s|’s|'re|’re|has\s+gone|have\s+gone|went)\s+out\b"
        ),
        OTHER,
    ),
    (
        # "… has had its tags refreshed", "has been returned to an open state"
        re.compile(
            rf"\b(?:has|have)\s+had\s+(?:its|their)\s+(?:[\w#-]+\s+){{1,2}}(?:{_PP})\b"
            r"|\bbeen\s+(?:returned|reset|set\s+back|put\s+back|changed\s+back|switched\s+back)"
            r"\s+to\b"
        ),
        "update",
    ),
    (
        # "Status of “X” transitioned to Completed"
        re.compile(
            r"\b(?:status|state)\b[^.;]{0,40}?\b(?:transitioned|changed|switched|flipped|went)\s+"
            r"(?:from\s+[\w\s-]{1,15}?\s+)?to\b"
        ),
        "status",
    ),
    # "Batch summary: 7 succeeded · 0 errors": a count of writes that succeeded
    (re.compile(r"\b[1-9]\d*\s+(?:succeeded|successful)\b|\bsucceeded\s*[:：]\s*[1-9]"), None),
    (
        re.compile(
            r"\b(?:it|that|they|this)\s*(?:is|are|'s|’s|'re|’re)\s+(?:now\s+)?(?:in|on)\s+(?:your|the)\s+(?:list|to-?dos?|todo\s+list|tasks|notes)\b"
        ),
        "create",
    ),
    (
        re.compile(
            r"\bnow\s+(?:shows?|reads?|appears?|lives?|sits?|has|have|says|lists?|includes?"
            r"|contains?|exists?|shares?|carr(?:y|ies)|belongs?|points?|uses?|match(?:es)?"
            r"|reflects?)\b"
        ),
        None,
    ),
    (
        re.compile(
            r"\b(?:due\s+date|deadline|due\s+time|title|priority|status|name|description"
            r"|content|time|date|reminder|tags?)(?:\s+(?:on|of|for)\s+[^.;!?]{1,60}?)?"
            r"\s*(?:is|are|'s|’s)\s+(?:[^.;!?]*\s)?now\b"
        ),
        "update",
    ),
    (
        # "is on your todo list now": the state with "now" after it
        re.compile(
            r"\b(?:is|are|'s|’s|'re|’re)\s+(?:in|on)\s+(?:your|the)\s+(?:[\w-]+\s+){0,2}?"
            r"(?:list|to-?dos?|tasks|notes)\b[^.;!?]*?\bnow\b"
        ),
        "create",
    ),
    (
        # "isn't on your list anymore"
        re.compile(
            r"\b(?:isn't|aren't|is\s+not|are\s+not)\s+(?:on|in)\s+(?:your|the)\s+(?:[\w-]+\s+)?"
            r"(?:list|to-?dos?|tasks|notes)\s+(?:anymore|any\s+more|any\s+longer)\b"
        ),
        "delete",
    ),
    (re.compile(r"\b(?:is|are|'s|'re)\s+(?:now\s+)?(?:in\s+effect|effective)\b"), None),
    (
        # "is back to open", "is back on your list"
        re.compile(
            r"\b(?:is|are|'s|’s|'re|’re)\s+(?:now\s+)?back\s+(?:to\s+)?(?:open|undone|not\s+done"
            r"|pending|incomplete|unfinished|active)\b"
        ),
        "status",
    ),
    (
        # "is open again" / "is no longer marked complete": a status taken back
        re.compile(
            r"\b(?:is|are|'s|’s|'re|’re)\s+(?:open|undone|incomplete|not\s+done|unchecked"
            r"|unticked|active|pending)\s+again\b"
            r"|\bno\s+longer\s+(?:marked\s+(?:as\s+)?)?(?:complete[d]?|done|finished|checked"
            r"|ticked)\b"
        ),
        "status",
    ),
    (
        # "is back on your list" / "is back in your notes": out of the trash
        re.compile(
            r"\b(?:is|are|'s|’s|'re|’re)\s+(?:now\s+)?back\s+(?:on|in)\s+(?:your|the)\s+"
            r"(?:[\w-]+\s+)?(?:list|to-?dos?|tasks|notes)\b"
        ),
        "restore",
    ),
    (
        # "Priority is back to Medium", "has its old due date back": a value put back
        re.compile(
            r"\b(?:is|are|'s|’s|'re|’re)\s+(?:now\s+|all\s+)?back\s+(?:to|at)\b"
            r"|\bhas\s+its\s+(?:old|original|previous|former)\s+(?:[\w-]+\s+){1,3}?back\b"
            r"|\bnow\s+(?:exactly\s+|just\s+)?(?:as|like)\s+it\s+was\b"
        ),
        "update",
    ),
    (
        # "has moved from Tuesday to Wednesday", "has now gone": the item changed
        re.compile(
            r"\b(?:has|have|'s|’s|'ve|’ve)\s+(?:now\s+|just\s+|already\s+)?(?:moved|shifted"
            r"|changed|gone|disappeared|vanished)\b"
        ),
        None,
    ),
    (
        # "It's in the trash now" / "it's in the bin"; not "is still in the trash"
        re.compile(
            r"\b(?:is|are|'s|’s|'re|’re)\s+(?:now\s+|already\s+)?in\s+(?:the\s+|your\s+)?"
            r"(?:trash|bin|recycle\s+bin|wastebasket)\b"
        ),
        "delete",
    ),
    (re.compile(r"\b(?:is|are|'s|’s|'re|’re)\s+(?:now\s+)?live\b"), "create"),
    (
        # "LightNote has archived every task …": the app as the subject
        re.compile(
            rf"\b(?:lightnote|the\s+(?:system|app|assistant))\s+(?:has|have|'s|’s)\s+"
            rf"(?:{_ADV}\s+)*(?:{_PP})\b"
        ),
        None,
    ),
    (
        # "'Piano lesson' is off your list for good"
        re.compile(
            r"\b(?:is|are|'s|’s|'re|’re)\s+off\s+(?:your|the)\s+(?:[\w-]+\s+)?(?:list|to-?dos?|tasks)\b"
        ),
        "delete",
    ),
    (
        # "Turned that note into a task due Friday"
        re.compile(
            r"\b(?:turned|converted|made)\s+(?:that|this|it|the|your)\s+(?:[\w-]+\s+)?into\s+"
            r"(?:a|an)\s+(?:new\s+)?(?:task|todo|to-do|note|reminder)\b"
        ),
        "create",
    ),
    (
        # "Reminder's on for 8am tomorrow"
        re.compile(
            r"\b(?:reminder|alarm)s?(?:'s|’s|\s+is|\s+are)\s+(?:now\s+)?(?:on|set|active)\b"
        ),
        None,
    ),
    (
        # "there's now a reminder on your list for January 5"
        re.compile(
            r"\bthere(?:'s|’s|\s+is|\s+are)\s+(?:now\s+(?:a|an|one|\d+)\b|(?:a|an)\s+new\b)"
            r"[^.;!?]*?\b(?:on|in)\s+your\b"
        ),
        "create",
    ),
    (re.compile(r"\b(?:is|are|'s|’s|'re|’re)\s+(?:now\s+)?in[\s!.]*$"), "create"),
    (
        re.compile(
            r"\b(?:is|are|'s|’s|'re|’re)\s+(?:all\s+)?(?:complete[d]?|done|finished)\b"
            # not how a thing is done: "is done on the settings page", "done by you"
            r"(?!\s+(?:by|on|in|via|through|from|using|with)\b)"
        ),
        "status",
    ),
    (
        re.compile(
            r"\b(?:i|we)\b(?:(?!\b(?:not|never|will|would|can|could|if)\b)[^.?!])*?"
            rf"\band\s+(?:then\s+|also\s+|just\s+)?(?:{_PP})\b"
        ),
        None,
    ),
    (
        re.compile(
            r"\b(?:you(?:'ll|’ll| will)|you\s+can|you\s+should)\s+(?:now\s+)?(?:see|find)"
            r"\s+(?:it|them|that|this|the\s+\w+)\s+(?:in|on|under)\s+your\b"
        ),
        "create",
    ),
    # "Deletion successful": the noun says the kind.
    (re.compile(rf"\b(?:creation|save){_NOUN_DONE}"), "create"),
    (re.compile(rf"\b(?:deletion|removal|delete){_NOUN_DONE}"), "delete"),
    (re.compile(rf"\b(?:update|change|edit|rename){_NOUN_DONE}"), "update"),
    (re.compile(rf"\b(?:upload|sync|archiving|import|export){_NOUN_DONE}"), OTHER),
    (re.compile(rf"\b(?:processing|execution){_NOUN_DONE}"), None),
    (re.compile(rf"\b(?:undo|redo|revert|rollback|roll-?back){_NOUN_DONE}"), OTHER),
    (re.compile(rf"\b(?:restore|restoration|recovery){_NOUN_DONE}"), "restore"),
    (re.compile(rf"\bcheck-?in{_NOUN_DONE}"), "status"),
    (
        re.compile(r"\b(?:note|todo|to-do|task|reminder)\s+(?:is|'s)\s+(?:now\s+|all\s+)?ready\b"),
        "create",
    ),
    (
        # "One more item in your trash now"
        re.compile(
            r"\bmore\s+(?:items?|to-?dos?|notes?|tasks?)\s+(?:is\s+|are\s+)?in\s+(?:your|the)\s+"
            r"(?:trash|bin)\b"
        ),
        "delete",
    ),
    (
        # "all three are checked": a tick (not "I checked your list", a read)
        re.compile(
            r"\b(?:is|are|'s|'re)\s+(?:now\s+|all\s+)?checked\b(?!\s+(?:for|by|against|in|with)\b)"
        ),
        "status",
    ),
    (
        # "I checked that one off your list"
        re.compile(r"\b(?:checked|ticked|crossed|struck)\s+(?:\S+\s+){1,4}?off\b"),
        "status",
    ),
    (
        # "I've taken "X" off your todos"
        re.compile(
            r"\b(?:taken|took|pulled|struck|knocked)\s+(?:\S+\s+){1,4}?off\s+(?:your|the)\s+"
            r"(?:[\w-]+\s+)?"
            r"(?:list|to-?dos?|tasks|notes)\b"
        ),
        "delete",
    ),
    (
        re.compile(
            r"\boperation\s+(?:was\s+)?(?:successful|succeeded|complete[d]?)\b"
            r"|\b(?:that|it)\s+worked\b"
        ),
        None,
    ),
]
# "Deleting the 12 archived notes now…" / "I'm adding it to your list": a write under way.
_GERUND = (
    r"(?:creat|add|sav|record|logg|schedul|delet|remov|eras|clear|trash|purg|updat|chang|mov"
    r"|renam|reschedul|postpon|edit|mark|tick|complet|archiv|restor|rewrit|replac|tagg|append"
    r"|insert|writ|overwrit|wip|clean|undo|revert|recover|reinstat)ing"
)
_PROGRESSIVE = re.compile(
    rf"^[^\w“\ue000]*(?P<verb>{_GERUND})\b"
    # not the subject of a sentence ("Deleting notes is only available on the notes page")
    r"(?![^.;!?]*\b(?:is|isn't|are|aren't|was|can|can't|cannot|will|won't|requires?|means?"
    r"|takes?|moves?|puts?|sends?|works?|happens?|needs?|keeps?)\b)"
    r"(?=[^.;!?]*(?:\bnow\b|…|\.\.\.|\bplease\s+wait\b|\bone\s+moment\b|\ba\s+moment\b))"
    rf"|\b(?:i'm|i\s+am|we're|we\s+are)\s+(?:now\s+|just\s+)?(?P<verb2>{_GERUND})\b"
)
_ELLIPSIS = re.compile(
    r"^[\s👍👌✅✔☑️🎉🗑]*(?:(?:ok|okay|alright|all right|sure|great|perfect|right|yes|yep|and|so|well"
    r"|there|k)\b"
    r"[\s,!.]*)*"
    r"(?:all\s+)?(?:done(?:\s+and\s+done)?|set|sorted|finished|complete[d]?|success(?:ful)?"
    r"|it'?s\s+done|it\s+is\s+done|that'?s\s+done|you'?re\s+all\s+set|you\s+are\s+all\s+set"
    r"|consider\s+it\s+done|taken\s+care\s+of|mission\s+accomplished|there\s+you\s+go"
    r"|there\s+you\s+have\s+it|good\s+to\s+go|voil[aà]|nailed\s+it|handled|all\s+good"
    r"|got\s+it\s+done|it'?s\s+gone|gone|it'?s\s+in|boom|finito"
    # "Should be all sorted now", "Should be updated!": hedged, no subject, still a report
    r"|should\s+(?:now\s+)?be\s+(?:all\s+)?(?:sorted|set|good\s+to\s+go|done|fixed|updated"
    r"|saved|gone|changed|added|deleted|removed|in)(?:\s+now)?)"
    r"(?:[\s!.,—–-]+(?:all\s+)?(?:done|set|sorted|finished|complete[d]?))*"
    r"[\s!.✅✔☑️🎉👍👌🗑🤞🙂😊🙌✨]*$"
)
_DONE_LEAD = re.compile(r"^(?:all\s+)?done\s*[!.—–-]|^(?:all\s+)?done\s*$")
# The clause before a bare verb in a list of what can be done ("create, edit, reschedule, …")
_VERB_LIST = re.compile(
    r"(?:(?:i|we)\s+can\s+|or\s+|and\s+)?(?:create|add|edit|update|change|move|reschedule|delete"
    r"|remove|complete|finish|rename|tag|archive|restore|list|search|summari[sz]e|mark|set)"
)
_TO_STATUS = re.compile(
    r"^(?:\s+\S+){0,4}?\s+(?:to|as)\s+(?:done|complete[d]?|finished|not\s+done|open|incomplete)\b"
)
_CHANGES = re.compile(r"\b(?:changes?|edits?|updates?|modifications?)\b")
# What a delete verb removes from an item is an edit of it: "removed the due date".
_FIELD_OBJECT = re.compile(
    r"^\s+(?:the\s+|its\s+|their\s+|that\s+|this\s+)?(?:note's\s+|todo's\s+)?"
    r"(?:(?:first|second|third|fourth|last|old|extra)\s+)?(?:due\s+date|deadline|due\s+time"
    r"|description|tags?|priority|paragraph|point|line|sentence|section|bullet|reminder\s+time"
    r"|time)\b"
)
_TO_TRASH = re.compile(r"^\s+(?:it\s+|them\s+)?(?:to|into)\s+(?:the\s+|your\s+)?(?:trash|bin)\b")
_REMINDER = re.compile(r"\breminders?\b")
# What "processed" / "handled" is about when it is none of the items' writes.
_NOT_AN_ITEM = re.compile(
    r"\baccount\b|\bprofile\b|\b(?:export|share|sharing|e-?mail|sync|backup|subscription"
    r"|payment|refund)\b"
)
_SET = re.compile(r"\bset\b")
_STATUS_LABEL = re.compile(r"(?:\bstatus|\bstate|状态)\s*$", re.IGNORECASE)
_DID_IT = re.compile(r"\b(?:i|we)\s+(?:just\s+|already\s+)?did\s+(?:it|that|this|them|so)\b")

_BLOCK = re.compile(
    r"\b(?:not|never|no|nothing|none|neither|nor|unable|failed|fail|cannot|without|yet"
    r"|will|would|shall|should|could|can|may|might|must|going\s+to|gonna|about\s+to|want(?:s)?\s+to"
    r"|wanna|ready\s+to|need(?:s)?\s+to|plan(?:ning)?\s+to|propose[sd]?|suggest(?:ed|s)?|let\s+me"
    r"|let's|if(?!\s+i'?m\s+not\s+mistaken|\s+i\s+remember\s+(?:right|correctly))|once|when"
    r"|after|until|unless|before|pending|awaiting|waiting|whether|to\s+be"
    r"|like\s+me\s+to|try(?:ing)?\s+to|instead\s+of|upon|as\s+soon\s+as"
    r"|ask(?:ed|ing)?\s+(?:me\s+)?to)\b"
    r"|n't\b|n’t\b|'ll\b|’ll\b"
)
_YOU_SUBJECT = re.compile(
    r"(?<!for )(?<!to )(?<!thank )(?<!with )\byou(?:'ve|’ve|'d|’d|\s+have|\s+had)?"
    r"(?:\s+(?:already|just|also|previously|recently|yourself|once|first|originally|last))*\s*$"
)
_DESCRIBED_TIME = re.compile(
    r"^\s*(?:(?:on(?!\s+(?:“|\ue000|your\b|the\s+(?:to-?do|note|item|task|entry)\b))|in(?!\s+(?:your|the\s+(?:archives?|trash|bin|recycle\s+bin|inbox|folder|backlog)|(?:an?|the)\s+\w+\s+folder)\b)|at|during|since|by\s+you|back\s+(?:in|on|at|when|during|then)|earlier\s+this|last"
    r"|this\s+(?:week|month|morning|year)|yesterday|ago|before|previously|recently|a\s+while"
    r"|over\s+the)\b"
    # (not "the last action": a time only)
    r"|(?:\w+\s+){0,3}(?:ago|yesterday|last\s+(?:week|month|year|night|time|weekend|quarter"
    r"|spring|summer|fall|autumn|winter|\w+day)|in\s+\d{4}|on\s+\w+day|by\s+you)\b"
    r"|between\b"
    # "— created Feb 10", "edited 3/4", "updated Monday": an item's dates in a listing
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b"
    r"|\d{1,2}/\d{1,2}\b|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b)"
)
_PROPOSED = re.compile(r"\b(?:drafted|prepared|staged|queued|proposed)\s*$")
_PROPOSED_OBJECT = re.compile(
    r"^\s+(?:the|a|this|these|your)?\s*(?:changes?|edits?|updates?|plan)\b"
)
_CARD = re.compile(
    r"^\s*(?:up\s+|together\s+)?(?:(?:a|an|the|your|one|this|these|those|both|two|three|four|five|\d+|all"
    r"|old|new|previous|earlier|first|second|replacement)\s+)*(?:confirmation\s+)?"
    r"(?:cards?|proposals?|drafts?|suggestions?|previews?|requests?)\b"
)
# What a card says, not the user's data: "The card now reads …", "I removed bread from the
# card", "the due date on it is now Friday" (in a sentence about the card), "— awaiting
# confirmation".
_CARD_SUBJECT = re.compile(
    r"\b(?:the|this|that|each|both|your|new|old|previous|replacement)\s+(?:(?:new|old|previous"
    r"|earlier|edited|corrected|confirmation|replacement)\s+)*cards?\b[^.;!?]{0,30}$"
)
_ON_THE_CARD = re.compile(
    r"^[^.;!?]{0,40}?\b(?:from|on|in|off|onto|into)\s+(?:the|this|that|each|both|your)\s+"
    r"(?:(?:old|new|previous|edited)\s+)?cards?\b"
)
_ON_IT = re.compile(r"\bon\s+(?:it|there)\s*(?:\w+\s*){0,2}$")
_PENDING_AFTER = re.compile(
    r"^[^.;!?]*?(?:\b(?:awaiting|pending|waiting\s+(?:for|on))\s+(?:your\s+)?confirmation"
    r"|\buntil\s+you\s+confirm\b|\bnot\s+(?:yet\s+)?(?:applied|saved|executed)\b)",
    re.IGNORECASE,
)


def _about_card(scan: str, start: int, end: int) -> bool:
    """The words at ``start:end`` say what a card says, not what happened to the data."""
    before, after = scan[:start], scan[end:]
    return bool(
        _CARD_SUBJECT.search(before)
        or _ON_THE_CARD.match(after)
        or _PENDING_AFTER.match(after)
        or (_ON_IT.search(before) and re.search(r"\bcards?\b", scan))
    )


_THEN = re.compile(r"^\W*(?:and\s+)?(?:then|finally|next|after\s+that|and)\b")
_RELATIVE = re.compile(r"\b(?:that|which|who|whose|what)\s*$")
# "That's what I just changed": the relative clause asserts the change.
_THATS_WHAT = re.compile(
    r"\b(?:that's|that\s+is|this\s+is|here's|here\s+is|these\s+are)\s+what\s*$"
)
# "priority high, tagged #legal": a participle in a list of an item's fields, a description.
_FIELD_FRAGMENT = re.compile(
    r"^\s*(?:priority|due(?:\s+date)?|deadline|status|tags?)\b[^.;!?]{0,40}$|\bis\s+due\b"
)
# "Your completed todos this week:": the participle describes the items that follow it.
_YOUR_PARTICIPLE = re.compile(r"\byour\s+(?:recently\s+)?$")
_ITEM_NOUN_AFTER = re.compile(
    r"^\s+(?:[a-z-]+\s+)?(?:to-?dos?|tasks?|items?|notes?|reminders?|entries)\b"
)
_QUESTION_HEAD = re.compile(
    r"^(?:do|does|did|shall|should|would|could|can|will|want|have|has|is|are)\s+(?:you|i|we|me|it|this|that)\b"
)
_STATE_PARTICIPLE = re.compile(
    r"\b(?:scheduled|due|tagged|pinned|labell?ed|flagged|booked|listed|filed|included|shared"
    r"|assigned|done|closed|opened|locked|archived|starred|set)\b"
)
_NOTED_THAT = re.compile(r"^\s*(?:that|how|what|which)\b")
# "was edited 3 times": the item's history, not this turn's write.
_TIMES = re.compile(
    r"^\s+(?:(?:\d+|two|three|four|five|six|seven|eight|nine|ten|several|many|multiple|a\s+few)"
    r"\s+times|once|twice)\b"
)
_GENERIC_NOUN = r"(?:items|to-?dos|notes|tasks|entries|reminders|ones|cards|changes|edits)"
_NOT_GENERIC = (
    r"(?:the|your|my|our|these|those|this|that|both|all|each|every|two|three|four|five|six"
    r"|several|some|\d+)\b"
)
# "Deleted todos go to the trash", "Completed tasks are hidden": a participle describing a
# kind of item, followed by what such items do — a general statement, not a report.
_ATTRIBUTIVE = re.compile(
    rf"^\s+(?:(?!{_NOT_GENERIC})[a-z-]+\s+)?{_GENERIC_NOUN}\s+"
    r"(?:are|aren't|is|isn't|can|can't|cannot|will|won't|stay|go|move|appear|count|don't|do"
    r"|remain|show|get|may|might|should|must|have|keep|become|disappear|sit|live|need|take"
    r"|work|behave|differ|follow|use|require|expire|last|stay"
    r"|still|also|always|usually|never|only|just|automatically)\b"
)
# "New todos are added to the top": the present passive of a bare plural, a habit.
_GENERIC_SUBJECT = re.compile(
    rf"^[^\w\ue000]*(?:(?:note|tip|fyi|ps|by\s+default)\s*[:,-]?\s*)?"
    rf"(?:(?!{_NOT_GENERIC})[a-z-]+\s+){{0,2}}{_GENERIC_NOUN}"
    r"(?:\s+(?:that\s+)?you\s+[a-z']+|\s+in\s+(?:the\s+|your\s+)?(?:trash|bin|list))?\s*$"
)
# "Great — "X" is on your list": an acknowledgement, then the state the request asked for.
_ACKNOWLEDGED = re.compile(
    r"^[^\w\ue000]*(?:ok|okay|alright|all right|sure|great|perfect|done|got it|all set|yep|yes"
    r"|there you go|nice|cool|awesome|excellent|congrats|congratulations|woohoo|yay|hooray"
    r"|well done|nice work)\b"
)
# "… it's been taken care of: "Pay rent" is marked complete": the result after a report.
_REPORTED_BEFORE = re.compile(r"\b(?:taken care of|all set|done|handled|sorted)[\s:：—–-]*$")
_ON_LIST = re.compile(
    r"\b(?:is|are|'s|'re)\s+(?:on|in)\s+(?:your|the)\s+(?:[\w-]+\s+)?(?:list|to-?dos?|tasks|notes)\b"
)
_ELSEWHERE = re.compile(
    r"^\s+(?:elsewhere|meanwhile|in\s+the\s+meantime|in\s+another\s+(?:tab|window|device)"
    r"|on\s+another\s+device|by\s+(?:someone|somebody|another|a\s+different)"
    # "was edited after that change, so it can't be undone": a change since, not this one
    r"|(?:after|since)\s+(?:that|this|the|your|my)\s+(?:change|edit|undo|action|card|update))\b"
)
# "3 completed and 4 open": counts a read reports.
_COUNTED = re.compile(
    r"^\s*\d+\s+(?:tagged|pinned|archived|starred|flagged|shared|labell?ed)\b"
    r"|^\s*\d+\s+(?:are|were)\s+(?:done|open|completed|finished|overdue)\b"
    r"|\b\d+\s+(?:completed|done|finished)\b[^.;]*\b\d+\s+(?:open|pending|left|remaining"
    r"|not\s+done|incomplete|unfinished)\b"
    r"|\b\d+\s+(?:open|pending|left|remaining|not\s+done|incomplete|unfinished)\b[^.;]*"
    r"\b\d+\s+(?:completed|done|finished)\b"
)
# "crossed off your list": a status passive that says the list changed.
_OFF_LIST = re.compile(r"^\s+(?:from\s+)?(?:your|the)\s+(?:[\w-]+\s+)?list\b")


_DATE = re.compile(
    r"(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?"
    r"|\d{1,2}/\d{1,2}(?:/\d{2,4})?|\d{4}-\d{2}-\d{2}|(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?"
    r"|sun)(?:day)?)(?:\s*,?\s*\d{1,2}:\d{2})?"
)
# Someone else as the subject, doing something to an object ("Tom deleted "Pick up cake"",
# "Zapier created that task", "Your teammate Aisha edited the description"): not this turn's
_AGENT = re.compile(
    r"(?:^|\s)(?:(?!(?:I|The|This|That|Your|It|Also|Just|Okay|OK|Sure|Great|And|Then|Done|All"
    r"|LightNote|Assistant)\b)[A-Z][a-z]+|[A-Z]{2,})(?:\s+(?:AI|[A-Z][a-z]+))?\s*$"
    r"|\b(?:your|my|a|the)\s+(?:teammate|colleague|coworker|co-worker|husband|wife|partner|boss"
    r"|manager|friend|roommate|mom|dad|sister|brother|assistant|integration|automation)\b[^.;]*$"
)
_OBJECT_AFTER = re.compile(
    r"^\s+(?:the|that|this|those|these|a|an|your|his|her|their|its|it|them|“|\"|\ue000)",
    re.IGNORECASE,
)
# "I said earlier it was saved, but …": what the reply said before, taken back
_REPORTED_SPEECH = re.compile(r"\b(?:i|we)\s+(?:said|told\s+you|mentioned|claimed)\b[^.;]*$")
# "According to the activity log, Priya deleted …": a record of someone's change, reported
_RECORDED_BY = re.compile(
    r"^\s*according\s+to\s+(?:the\s+|your\s+)?(?:activity|history|log|audit|records?|edit)"
)


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


# A state said as a guess, or after a failure as its reason, reports no write.
# "I believe that went through", "looks like the priority change stuck": the write landed
# (a guess about a write is still a report of it, unlike a guess about a state)
_LANDED = re.compile(
    r"\b(?:change|update|edit|deletion|request|save|rename|card|action|it|that|this)\b[^.;!?]{0,40}?"
    r"\b(?:went|has\s+gone|'s\s+gone|’s\s+gone)\s+through\b"
    r"|\b(?:change|update|edit|rename)\s+(?:stuck|took|landed)\b"
    r"|\b(?:has|have|'s|’s|seems?\s+to\s+have|looks?\s+to\s+have|appears?\s+to\s+have)"
    r"\s+(?:stuck|taken\s+effect|gone\s+through|landed)\b"
)
# "Should be checked off now", "The reminder ought to be set now": hedged, still a report
_HEDGED_RESULT = re.compile(
    rf"\b(?:should|ought\s+to)\s+(?:now\s+)?be\s+(?:all\s+)?(?:now\s+)?(?P<pp>{_PP})\b"
)
_IN_QUESTION = re.compile(
    rf"\b(?:now\s+that|since|as)\s+(?:i|we)(?:'ve|\s+have|\s+just|\s+already)*\s+(?:{_PP_GROUPS})\b"
)
_A_RUN = re.compile(
    r"\b(?:request|operation|action|job|sync|upload|import|export|run|batch|delete|deletion"
    r"|update|change|edit|rename)s?\s*"
    r"(?:was\s+|were\s+|has\s+been\s+|is\s+|got\s+)?(?:cancell?ed|aborted|rolled\s+back)$"
)
_OTHER_LABEL = re.compile(
    r"\b(?:export|share|sync|email|backup|upload|send|archive|publish)\w*\s*$"
)
_HEDGE_BLOCKED = re.compile(r"\b(?:if|once|when|after|until|unless|you|not|n't)\b")
_GUESS = re.compile(
    r"\b(?:looks?\s+like|seems?|appears?|apparently|probably|perhaps|maybe|possibly|i\s+think"
    r"|i\s+guess|likely)\b"
)
_FAILED = re.compile(
    r"\b(?:couldn'?t|could\s+not|can'?t|cannot|unable|failed|wasn'?t\s+able|didn'?t\s+work)\b"
)


def _blocked(before: str) -> bool:
    # "I can confirm the todo has been created" asserts; it does not offer.
    return bool(_BLOCK.search(_ASSERTING.sub(" ", before)))


_ASSERTING = re.compile(r"\b(?:i|we)\s+can\s+(?:confirm|tell\s+you|report|say)\b(?:\s+that)?")


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


_HABIT = re.compile(
    r"\b(?:automatically|by\s+default|always|every\s+time|each\s+time|whenever|forever|by\s+then)\b"
)


def _claim(scan: str, phrase: str, kind: str | None) -> Claim:
    return Claim(
        phrase=phrase or scan,
        kind=kind,
        resource_type=resource_type_of(scan),
        sweeping=is_sweeping(scan),
    )
