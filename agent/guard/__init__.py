"""The truthfulness guard: no outcome claim reaches the user unless a receipt backs it.

The last line of defence (article section 13). Every model text passes here, on every turn
(write turns, read turns, final replies) and before it is stored. The guard:

1. cuts the reply into clauses (:mod:`agent.guard.text`),
2. finds the outcome claims in each with a grammar per language
   (:mod:`agent.guard.grammar_zh`, :mod:`agent.guard.grammar_en`),
3. checks each claim against this session's succeeded receipts (:mod:`agent.guard.backing`),
4. removes every clause holding an unbacked claim and appends a fixed server text.

It decides nothing about what the user wants and does no I/O of its own: the caller loads
the receipts (:func:`agent.guard.receipts.session_backings`) and records the audit event.
Only the optional model check (:mod:`agent.guard.model_check`, off by default) calls out,
and it may only add removals.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.guard import grammar_en, grammar_zh, model_check, structure
from agent.guard.backing import Backing, backing_for, is_backed, normalise_name
from agent.guard.claims import Claim, is_sweeping
from agent.guard.forms import load
from agent.guard.text import Clause, clauses, remove_spans, restore
from lightnote.texts.i18n import DEFAULT_LOCALE, normalize_locale

FORMS = load("common")
__all__ = [
    "GUARDED_CODE",
    "NOT_EXECUTED_TEXT",
    "PARTLY_REMOVED_TEXT",
    "Backing",
    "Claim",
    "GuardVerdict",
    "backing_for",
    "claims_completed_write",
    "find_claims",
    "guard_reply",
    "guarded_notice",
]

GUARDED_CODE = "REPLY_UNBACKED_CLAIM"

_LATIN_WORD = FORMS.frame("LATIN_WORD")
_STATE_WAS_SO = FORMS.frame("STATE_WAS_SO")
_ALREADY_STATE = FORMS.frame("ALREADY_STATE")
_BARE_STATUS = FORMS.frame("BARE_STATUS")
_COUNT_LABEL = FORMS.frame("COUNT_LABEL")
_RUN_RESULT = FORMS.frame("RUN_RESULT")
_COUNT_AFTER = FORMS.frame("COUNT_AFTER")
_DONE_LABEL = FORMS.frame("DONE_LABEL")
_CONTENT_LABEL = FORMS.frame("CONTENT_LABEL")
_NOTHING_CHANGED = FORMS.frame("NOTHING_CHANGED")
_FAILURE_LABEL = FORMS.frame("FAILURE_LABEL")
_AFTER_QUOTE = FORMS.frame("AFTER_QUOTE")
_QUOTE_FIRST = FORMS.frame("QUOTE_FIRST")
_WORD = FORMS.frame("WORD")
_QUOTED_ALONE = FORMS.frame("QUOTED_ALONE")
_DONE_HEADER = FORMS.frame("DONE_HEADER")
_PLAN_HEADER = FORMS.frame("PLAN_HEADER")
_CORRECTED_ALONE = FORMS.frame("CORRECTED_ALONE")
_ON_THE_CARD = FORMS.frame("ON_THE_CARD")
_CARD_WORD = FORMS.frame("CARD_WORD")
_CHANGE_TABLE_HEADER = FORMS.frame("CHANGE_TABLE_HEADER")
_TABLE_RULE = FORMS.frame("TABLE_RULE")
_LIST_LINE = FORMS.frame("LIST_LINE")
_TICK_ARROW = FORMS.frame("TICK_ARROW")
_USERS_OWN = FORMS.frame("USERS_OWN")
_ELSEWHERE_SAID = FORMS.frame("ELSEWHERE_SAID")
_WAITING = FORMS.frame("WAITING")
_HOW_TO = FORMS.frame("HOW_TO")
_RATE = FORMS.frame("RATE")
_COUNTS = FORMS.frame("COUNTS")
_PAST_WHEN = FORMS.frame("PAST_WHEN")
_COUNTERFACTUAL = FORMS.frame("COUNTERFACTUAL")
_WAS_NOTE = FORMS.frame("WAS_NOTE")
_EVENT_NOTE = FORMS.frame("EVENT_NOTE")
_TO_CARD = FORMS.frame("TO_CARD")
_ASKS_CONFIRM = FORMS.frame("ASKS_CONFIRM")
_PENDING_MARK = FORMS.frame("PENDING_MARK")
_NOTED = FORMS.frame("NOTED")
_ANOTHER = FORMS.frame("ANOTHER")
_CANCELLED = FORMS.frame("CANCELLED")
_OPEN_LABEL = FORMS.frame("OPEN_LABEL")
_OPEN_STATE = FORMS.frame("OPEN_STATE")
_LISTED_STATUS = FORMS.frame("LISTED_STATUS")
_READ_STATE = FORMS.frame("READ_STATE")
_READ_HEADER = FORMS.frame("READ_HEADER")
_STATUS_HEADING = FORMS.frame("STATUS_HEADING")
_AFTER_CONFIRM = FORMS.frame("AFTER_CONFIRM")
_CONDITION_HEAD = FORMS.frame("CONDITION_HEAD")

# Appended when nothing in the reply states a backed outcome (the article's text).
NOT_EXECUTED_TEXT = {
    "zh-CN": "该操作尚未执行：服务端没有生成可核验的确认或成功回执。",
    "en": "This operation has not been executed: the server has no verifiable confirmation or success receipt.",  # noqa: E501
}
# Appended when the reply keeps a backed outcome (a final reply after a real action): the
# removed claim was not executed, the action the receipt proves was.
PARTLY_REMOVED_TEXT = {
    "zh-CN": "回复中有操作声明没有服务端回执支持，未予显示：那些操作并未执行。以确认卡和执行结果为准。",  # noqa: E501
    "en": "Part of this reply claimed actions the server holds no receipt for and is not shown: those actions were not executed. The card and its outcome are what happened.",  # noqa: E501
}
FIXED_TEXTS = frozenset([*NOT_EXECUTED_TEXT.values(), *PARTLY_REMOVED_TEXT.values()])


@dataclass(frozen=True)
class FoundClaim:
    """A claim, where it is, and what it names."""

    claim: Claim
    clause: Clause
    items: tuple[str, ...]


@dataclass(frozen=True)
class GuardVerdict:
    text: str  # the reply to show: the original, or without its unbacked claims + fixed text
    replaced: bool
    matched: str | None  # the first unbacked claim's phrase, for the audit event
    removed: tuple[str, ...] = field(default=())  # every unbacked phrase
    fixed_text: str | None = None  # the server text appended, when replaced


def find_claims(text: str, *, titles: tuple[str, ...] = ()) -> list[FoundClaim]:
    """Return every outcome claim in ``text``, clause by clause, in order.

    ``titles``: stored items' titles the reply may name without quotes (read this turn).
    """
    found: list[FoundClaim] = []
    all_clauses = clauses(text, titles=titles)
    hypothetical: set[int] = set()
    was_so = {clause.sentence for clause in all_clauses if _STATE_WAS_SO.search(clause.scan)}
    unchanged = {clause.sentence for clause in all_clauses if _NOTHING_CHANGED.search(clause.scan)}
    if unchanged:  # "Okay, cancelled. Nothing was changed.": the cancel anywhere in the reply
        unchanged = {clause.sentence for clause in all_clauses}
    users_own = {clause.sentence for clause in all_clauses if _USERS_OWN.search(clause.scan)}
    to_card = {clause.sentence for clause in all_clauses if _TO_CARD.search(clause.scan)}
    asks_confirm = {clause.sentence for clause in all_clauses if _ASKS_CONFIRM.search(clause.scan)}
    listing = bool(_DONE_LABEL.search(text) and _OPEN_LABEL.search(text))
    proposal = bool(asks_confirm or to_card or _PENDING_MARK.search(text))
    card_sentences = {clause.sentence for clause in all_clauses if _CARD_WORD.search(clause.scan)}
    change_rows = set() if proposal else _change_rows(text)
    if _HOW_TO.match(text):
        return []  # instructions for the user, every line of them
    sentence_text = _sentence_texts(text, all_clauses)
    elsewhere = {
        sentence for sentence, said in sentence_text.items() if _ELSEWHERE_SAID.search(said)
    }
    # the first clause announcing a plan: what follows it in its sentence, or on list lines
    plan_at = next(
        (
            i
            for i, clause in enumerate(all_clauses)
            if _PLAN_HEADER.search(clause.scan.replace("’", "'"))
        ),
        None,
    )
    sentences = _sentence_texts(text, all_clauses)
    rated = {
        clause.sentence
        for clause in all_clauses
        if _RATE.search(clause.scan) or _COUNTS.search(sentences.get(clause.sentence, ""))
    }
    read: dict[int, list[Claim]] = {}  # each clause read once by the grammars

    def claims_at(index: int) -> list[Claim]:
        if index not in read:
            clause = all_clauses[index]
            first = index == 0 or all_clauses[index - 1].sentence != clause.sentence
            read[index] = _claims_of(clause) or [
                dataclasses.replace(claim, phrase=restore(claim.phrase, clause))
                for claim in structure.clause_claims(
                    clause, sentences.get(clause.sentence, ""), first=first
                )
            ]
        return read[index]

    lines_read: set[int] = set()  # the lines whose whole text the line forms have read
    open_listing = bool(_OPEN_STATE.search(text))
    read_listing = listing or open_listing or bool(_READ_HEADER.search(text))
    quoting: set[int] = set()  # sentences whose rest quotes stored content
    for index, clause in enumerate(all_clauses):
        if clause.sentence in hypothetical:
            continue
        if _COUNTERFACTUAL.search(sentences.get(clause.sentence, "")):
            continue  # what would have been done, and why it was not
        if (
            read_listing
            and _BARE_STATUS.fullmatch(clause.scan)
            and (text[clause.end : clause.end + 1] in ":：" or _heading_line(text, clause))
        ):
            continue  # "Completed: … Open: …", "**Done**" over its items: labels a listing
        if (
            _COUNT_LABEL.fullmatch(clause.scan.strip())
            and _COUNT_AFTER.match(text, clause.end)
            and not _RUN_RESULT.search(text)
        ):
            continue  # "Completed: 18 ✅", "删除：3 条": a count's label in a report
        if clause.sentence in quoting:
            continue  # "… note says: Mondays — clear …; Fridays — reopen …": still the content
        if _CONTENT_LABEL.search(clause.label) and not _QUOTE_FIRST.match(clause.scan):
            # unquoted content runs on to the end of its sentence (a quote ends where it closes)
            quoting.add(clause.sentence)
        if _CONTENT_LABEL.search(clause.label) or _FAILURE_LABEL.search(clause.label):
            after = _AFTER_QUOTE.match(clause.scan)
            if after and _CONTENT_LABEL.search(clause.label) and _WORD.search(after.group("rest")):
                # 'Your note reads: "… delete the duplicate." That's taken care of ✔️': the
                # quote is content; what follows it is the reply's own sentence
                rest = dataclasses.replace(clause, scan=after.group("rest"), label="")
                found.extend(FoundClaim(claim, clause, clause.items) for claim in _claims_of(rest))
            continue  # quoted stored content, or the reason of a failure
        if plan_at is not None and index > plan_at:
            plan_sentence = all_clauses[plan_at].sentence
            if clause.sentence == plan_sentence or (
                clause.sentence > plan_sentence and _on_list_line(text, clause)
            ):
                continue  # a step of the plan announced before it
        row = text.rfind("\n", 0, clause.start) + 1
        if row in change_rows:
            change_rows.discard(row)  # one claim per row: its first cell names the field
            line = text[row : text.find("\n", row) if "\n" in text[row:] else len(text)]
            change = Claim(phrase=line.strip(), kind="update", resource_type=None)
            found.append(FoundClaim(change, clause, clause.items))
            continue
        line_claim = None if proposal or row in lines_read else _line_claim(text, row)
        lines_read.add(row)
        if line_claim is not None:
            found.append(FoundClaim(line_claim, clause, clause.items))
            continue  # "- [x] Delete “X”", "| Delete | X | ✔ |": the line reports the action
        if (
            _CONDITION_HEAD.match(clause.scan)
            and not claims_at(index)
            and not _PAST_WHEN.match(clause.scan)
        ):
            hypothetical.add(clause.sentence)  # 如果你确认，… / Once you confirm, …
            continue
        if _DONE_HEADER.search(clause.scan.replace("’", "'")):
            if clause.sentence in to_card or clause.sentence in asks_confirm:
                continue
            header = Claim(phrase=restore(clause.scan, clause), kind=None, resource_type=None)
            found.append(FoundClaim(header, clause, clause.items))
            continue
        was = _WAS_NOTE.search(text, clause.start, clause.end + 1)
        if was and not proposal and not _CONDITION_HEAD.match(clause.scan):
            changed = Claim(phrase=was.group(0), kind="update", resource_type=None)
            found.append(FoundClaim(changed, clause, clause.items))
        event = _EVENT_NOTE.search(text, clause.start, clause.end + 1)
        if event and not _CONDITION_HEAD.match(clause.scan):
            word = re.sub(
                r"^(?:已经?|刚刚|刚才|刚|just\s+)|(?:的|过|好了|了)$", "", event.group("event")
            )
            word = (word.split() or [""])[0] if word.isascii() else word  # "updated just now"
            kind = (
                grammar_en.participle_kind(word) if word.isascii() else grammar_zh.verb_kind(word)
            )
            if kind is None and _BARE_STATUS.search(text, clause.start, event.start()):
                kind = "status"  # "Pay rent — done (just now)": the state the note dates
            note = Claim(phrase=event.group(0), kind=kind, resource_type=None)
            found.append(FoundClaim(note, clause, clause.items))
        if proposal and _CORRECTED_ALONE.fullmatch(clause.scan.strip(" !！。.~～✅")):
            continue  # "Corrected! The card now reads …": the card was corrected
        if clause.sentence in card_sentences and _ON_THE_CARD.search(clause.scan):
            continue  # "the due date on it is now Friday", in a sentence about the card
        claims = claims_at(index)
        items = clause.items or (
            _topic_items(text, index, all_clauses, claims_at) if claims else ()
        )
        found.extend(
            FoundClaim(claim, clause, items)
            for claim in claims
            # "is already done — no need to mark it again": a state that was so before.
            if not (clause.sentence in was_so and _ALREADY_STATE.search(claim.phrase))
            # "已取消，这次什么也没改": a cancelled card, nothing written.
            and not (clause.sentence in unchanged and _CANCELLED.search(claim.phrase))
            # "上周你自己新建了 6 条、删除了 2 条" / "… — all made by you": the user's own
            and clause.sentence not in users_own
            and clause.sentence not in elsewhere
            # "Consider it done as soon as you confirm": the clause says what a confirm does
            and not _AFTER_CONFIRM.search(clause.scan)
            # "- Mark "Pay rent" done — ⏳ waiting for your confirmation": a card's line
            and not _waiting_line(text, clause)
            # "> “把旧的都删了”": the user's words quoted back
            and not _quoted_line(text, clause)
            # "…, so I left everything as it is. 👍": a tick in a reply that changed nothing
            and not (unchanged and not _WORD.search(claim.phrase))
            and not (clause.sentence in to_card and _NOTED.search(claim.phrase))
            and not (proposal and _TICK_ARROW.search(claim.phrase))
            # "完成了 13 条，完成率 65%": counts a report gives
            and not (clause.sentence in rated and claim.kind == "status")
            # "3. Clean the garage — done" beside "1. Pay rent — open": a read's listing
            and not (
                open_listing
                and (
                    items
                    or clause.label
                    or _OPEN_STATE.search(sentences.get(clause.sentence, clause.scan))
                )
                and _LISTED_STATUS.fullmatch(claim.phrase)
                and not _TICK_ARROW.search(clause.scan)  # "未完成 → 已完成": a change shown
            )
            and not _READ_STATE.match(claim.phrase)  # 目前是未完成: the state as read
        )
    if found and _SEVERAL_DONE.search(text):
        # "批量删除结果：成功：4", "Marking done… 5/5": several writes, never one action's
        found = [
            FoundClaim(dataclasses.replace(entry.claim, sweeping=True), entry.clause, entry.items)
            if entry.claim.kind is None
            else entry
            for entry in found
        ]
    if not found and all_clauses and not proposal:
        reported = _short_report(text) or _json_result(text)
        if reported is not None:
            # The whole reply is the report: every clause of it goes with the claim, and the
            # title it shows names the item ("☑️ 交水电费" is not the confirmed 周会纪要).
            title = _report_title(text) if reported.phrase == text.strip() else ""
            found.extend(
                FoundClaim(reported, clause, clause.items or ((title,) if title else ()))
                for clause in all_clauses
            )
    return found


_SEVERAL = FORMS.piece("SEVERAL")
_SEVERAL_DONE = FORMS.frame("SEVERAL_DONE")
_TICK = FORMS.piece("TICK")
_SHORT_REPORT = FORMS.frame("SHORT_REPORT")
_JSON_ACTION = FORMS.frame("JSON_ACTION")
_JSON_SUCCESS = FORMS.frame("JSON_SUCCESS")
_JSON_KINDS = tuple((kind, pattern) for pattern, kind in FORMS.states("json_kind"))


_NEGATED = FORMS.frame("NEGATED")


def _short_report(text: str) -> Claim | None:
    """A claim when the whole reply is a tick and a title (or a count of ticks)."""
    match = _SHORT_REPORT.fullmatch(text.strip())
    if match is None or _NEGATED.search(text):
        return None  # ("No changes needed ✓", 没有逾期的待办 ✅: nothing reported done)
    kind = "create" if match.group("plus") or match.group("added") else None
    return Claim(phrase=text.strip(), kind=kind, resource_type=None, sweeping=is_sweeping(text))


def _report_title(text: str) -> str:
    """The title a short report shows: without its ticks, counts, marks and aside."""
    title = re.sub(
        r"[（(][^)）]*[)）]|[✅✔☑✓]\ufe0f?"
        r"|^\s*\+\s*\d*\s*(?:todos?|notes?|items?|tasks?|条|个|项)?\s*(?:待办|笔记|任务)?\s*[:：]?",
        "",
        text,
    )
    title = title.strip(" \t\u3000。.!！~～")
    return title if _WORD.search(title) and not re.fullmatch(r"[\d\s/]+", title) else ""


def _json_result(text: str) -> Claim | None:
    """A claim when the reply prints a JSON result of a write that succeeded."""
    for action in _JSON_ACTION.finditer(text):
        window = text[max(0, action.start() - 300) : action.end() + 300]
        if _JSON_SUCCESS.search(window):
            verb = action.group("verb")
            kind = next((kind for kind, words in _JSON_KINDS if words.search(verb)), None)
            if kind is None and re.search(r"query|search|list|read|get|find", verb, re.I):
                continue  # a read's result
            return Claim(phrase=action.group(0), kind=kind, resource_type=None)
    return None


def _line_claim(text: str, row: int) -> Claim | None:
    """The claim the whole line starting at ``row`` makes (a ticked action, a table row)."""
    end = text.find("\n", row)
    return structure.line_claim(text[row : end if end >= 0 else len(text)])


def _heading_line(text: str, clause: Clause) -> bool:
    """Whether the clause is the whole of its line, a heading ("**Done**", "## 已完成")."""
    row = text.rfind("\n", 0, clause.start) + 1
    end = text.find("\n", clause.start)
    return bool(_STATUS_HEADING.fullmatch(text[row : end if end >= 0 else len(text)]))


def _waiting_line(text: str, clause: Clause) -> bool:
    """Whether the clause sits on a list line that says its card waits for confirmation."""
    row = text.rfind("\n", 0, clause.start) + 1
    end = text.find("\n", clause.start)
    line = text[row : end if end >= 0 else len(text)]
    return bool(_LIST_LINE.match(line) and _WAITING.search(line))


def _quoted_line(text: str, clause: Clause) -> bool:
    """Whether the clause sits on a markdown quote line ("> …")."""
    row = text.rfind("\n", 0, clause.start) + 1
    line = text[row : clause.end].lstrip()
    return line.startswith(">") and line[1:].lstrip()[:1] in "“\"「『‘'"


def _sentence_texts(text: str, all_clauses: list[Clause]) -> dict[int, str]:
    """The text of each sentence, from its first clause's start to its last clause's end."""
    spans: dict[int, tuple[int, int]] = {}
    for clause in all_clauses:
        start, end = spans.get(clause.sentence, (clause.start, clause.end))
        spans[clause.sentence] = (min(start, clause.start), max(end, clause.end))
    return {sentence: text[start:end] for sentence, (start, end) in spans.items()}


def _change_rows(text: str) -> set[int]:
    """Where the rows of a before/after table start (the header and its rule excluded)."""
    rows: set[int] = set()
    in_table = False
    offset = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if _CHANGE_TABLE_HEADER.match(body):
            in_table = True
        elif in_table and body.lstrip().startswith("|"):
            if not _TABLE_RULE.match(body):
                rows.add(offset)
        else:
            in_table = False
        offset += len(line)
    return rows


def _on_list_line(text: str, clause: Clause) -> bool:
    """Whether the clause sits on a list item or table row line."""
    return bool(_LIST_LINE.match(text, text.rfind("\n", 0, clause.start) + 1))


def _topic_items(
    text: str, index: int, all_clauses: list[Clause], claims_at: Callable[[int], list[Claim]]
) -> tuple[str, ...]:
    """The items the clause before clause ``index`` names when it only names them.

    "你那条「健身计划」笔记，我已经在末尾加上了…" / "That "Old notes" one — I've deleted it" /
    ""Return book" — done": the claim is about the item its sentence put first.
    """
    here = all_clauses[index]
    if index + 1 < len(all_clauses) and text[here.end : here.end + 1] in ":：":
        # "Done and dusted: 'Submit expense report' ✔️": the item the claim's colon introduces
        following = all_clauses[index + 1]
        if following.sentence == here.sentence and following.items:
            return following.items
        named = _QUOTED_ALONE.fullmatch(text[following.start : following.end].rstrip("✅✔☑️ "))
        if following.sentence == here.sentence and named:
            return (named.group(1).strip(),)
    if index == 0:
        return ()
    topic = all_clauses[index - 1]
    if topic.sentence != all_clauses[index].sentence or claims_at(index - 1):
        return ()
    if topic.items:
        return topic.items
    # A clause that is one quoted phrase reads as speech; before a claim it names the item.
    alone = _QUOTED_ALONE.fullmatch(text[topic.start : topic.end])
    return (alone.group(1).strip(),) if alone else ()


def _claims_of(clause: Clause) -> list[Claim]:
    claims = grammar_zh.find(clause)
    # A Chinese clause with claims: the English grammar would only repeat them.
    if not claims or _LATIN_WORD.search(clause.scan):
        seen = {claim.phrase.casefold() for claim in claims}
        claims.extend(
            claim for claim in grammar_en.find(clause) if claim.phrase.casefold() not in seen
        )
    return [dataclasses.replace(claim, phrase=restore(claim.phrase, clause)) for claim in claims]


def claims_completed_write(text: str) -> str | None:
    """Return the first phrase of ``text`` that claims a write happened, or None."""
    found = find_claims(text)
    return found[0].claim.phrase if found else None


def guard_reply(
    reply: str,
    *,
    backings: list[Backing] | Callable[[], list[Backing]],
    locale: str,
    focus: Backing | None = None,
    titles: tuple[str, ...] = (),
) -> GuardVerdict:
    """Return the reply to show: without any claim the receipts do not back, and marked.

    ``backings`` are this session's succeeded receipts; ``focus`` is the action a final
    reply is about (a claim naming no item refers to it); ``titles`` are the titles of the
    stored items read on this turn, which the reply may name without quotes.
    """
    found = find_claims(reply, titles=titles)
    # The optional model check (off by default) may only add claims, never drop one.
    asked = _model_claims(reply, titles) if model_check.enabled() else []
    if not found and not asked:
        return GuardVerdict(text=reply, replaced=False, matched=None)
    if callable(backings):
        backings = backings()  # loaded only when there is a claim to check
    unbacked = [
        entry
        for entry in [*found, *asked]
        if not is_backed(
            entry.claim,
            entry.items,
            backings,
            mentioned=_mentioned(entry, backings),
            focus=focus,
            another=bool(_ANOTHER.search(entry.clause.scan)),
        )
    ]
    if not unbacked:
        return GuardVerdict(text=reply, replaced=False, matched=None)
    # The unit removed is the sentence: every clause of a sentence holding an unbacked claim
    # goes ("已经帮你创建好了「X」，今晚 9 点截止。" leaves nothing), except a clause that states
    # a backed claim ("已为你创建「X」，并且已删除其他待办。" keeps its first clause).
    spans_unbacked = {(entry.clause.start, entry.clause.end) for entry in unbacked}
    spans_backed = {
        (entry.clause.start, entry.clause.end) for entry in found if entry not in unbacked
    } - spans_unbacked
    sentences = {entry.clause.sentence for entry in unbacked}
    spans = sorted(
        (clause.start, clause.end)
        for clause in clauses(reply, titles=titles)
        if clause.sentence in sentences and (clause.start, clause.end) not in spans_backed
    )
    kept_backed = bool(spans_backed)
    language = normalize_locale(locale) or DEFAULT_LOCALE
    fixed = (PARTLY_REMOVED_TEXT if kept_backed or focus else NOT_EXECUTED_TEXT)[language]
    rest = remove_spans(reply, list(spans))
    if not kept_backed and (_short_report(rest) is not None or not _WORD.search(rest)):
        # "✔︎「买猫粮」" or "🥛✅" left beside "not executed" would still say done; a code
        # fence or a mark left alone says nothing
        rest = ""
    text = f"{rest}\n{fixed}" if rest.strip() else fixed
    phrases = tuple(entry.claim.phrase for entry in unbacked)
    return GuardVerdict(
        text=text, replaced=True, matched=phrases[0], removed=phrases, fixed_text=fixed
    )


def _model_claims(reply: str, titles: tuple[str, ...]) -> list[FoundClaim]:
    """The model's claims that can be found in the reply, each in the clause that holds it."""
    all_clauses = clauses(reply, titles=titles)
    folded = reply.casefold()
    found = []
    for claim, item in model_check.claimed(reply):
        at = folded.find(claim.phrase.casefold())
        clause = next((c for c in all_clauses if c.start <= at < max(c.end, c.start + 1)), None)
        if at < 0 or clause is None:
            continue  # a phrase the reply does not hold removes nothing
        found.append(FoundClaim(claim, clause, (item,) if item else clause.items))
    return found


def _mentioned(entry: FoundClaim, backings: list[Backing]) -> list[str]:
    """Receipt titles the clause names without quotes ("已删除买牛奶这条待办")."""
    if entry.items:
        return []
    scan = normalise_name(entry.clause.scan)
    return sorted(
        {name for backing in backings for name in backing.names if len(name) >= 2 and name in scan}
    )


def guarded_notice(verdict: GuardVerdict) -> dict[str, Any]:
    """Return the API notice for a reply the guard changed."""
    return {
        "capability": None,
        "status": "guarded",
        "code": GUARDED_CODE,
        "message": verdict.fixed_text or "",
    }


def notice_for_stored(text: str) -> dict[str, Any] | None:
    """Return the guarded notice for a stored reply that ends with a fixed server text."""
    for fixed in FIXED_TEXTS:
        if text.endswith(fixed):
            return {"capability": None, "status": "guarded", "code": GUARDED_CODE, "message": fixed}
    return None
