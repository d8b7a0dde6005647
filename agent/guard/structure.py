"""Claims read from the shape of a reply, not from a write verb: one engine over data forms.

The grammars (:mod:`agent.guard.grammar_zh`, :mod:`agent.guard.grammar_en`) find a write verb
with a completion mark. What they miss is a result said as a *state* or a *view*: "Refresh
and you'll see it there", 你刷新一下，「X」已经看不到了, "your list has it now", "… is
scheduled for deletion", a ticked list item or a table row that names an action. Those forms
are data (the ``result``, ``sentence`` and ``line`` tables of ``agent/guard/forms/*.tsv``),
and so are the honest frames that cancel them (``honest_before``: a negation, modal or
condition before the form in its clause; ``honest_sentence``: an offer, the waiting card,
the user's own action, anywhere in the sentence). This module only applies them:

- a clause matching a ``result`` form is a claim of that form's capability;
- the first clause of a sentence matching a ``sentence`` form is a claim (the view is
  stated across the sentence's clauses: "你刷新一下，「X」就在最上面");
- a line matching a ``line`` form (a ticked item, a table row: action, item, tick) is a claim;

unless a question, or an honest frame of either language, cancels it. A row's name is its
capability; ``-`` takes the capability from the named group that matched (``{{groups:base}}``).
"""

from __future__ import annotations

import re
from functools import cache

from agent.guard.claims import Claim, is_sweeping, resource_type_of
from agent.guard.forms import Forms, load
from agent.guard.text import Clause

LANGUAGES = ("zh", "en")
_QUOTED = re.compile(r"[“「『\"‘][^”」』\"’]*[”」』\"’]")  # a title: no word of the sentence
_Table = list[tuple[re.Pattern[str], str | None]]


@cache
def _tables(language: str) -> dict[str, _Table]:
    forms: Forms = load(language)
    return {
        form: forms.states(form)
        for form in ("result", "sentence", "line", "honest_before", "honest_sentence")
    }


def _honest(language: str, before: str, sentence: str) -> bool:
    tables = _tables(language)
    return any(pattern.search(before) for pattern, _ in tables["honest_before"]) or any(
        pattern.search(sentence) for pattern, _ in tables["honest_sentence"]
    )


def _claim(match: re.Match[str], kind: str | None, scan: str) -> Claim:
    if kind is None and match.lastgroup:
        kind = match.lastgroup.rstrip("_")
    return Claim(
        phrase=match.group(0).strip(),
        kind=None if kind == "any" else kind,
        resource_type=resource_type_of(scan),
        sweeping=is_sweeping(scan),
    )


def clause_claims(clause: Clause, sentence: str, *, first: bool) -> list[Claim]:
    """The state or view claims of one clause (``sentence``: its sentence's text)."""
    if clause.question or not clause.scan:
        return []
    found: list[Claim] = []
    for language in LANGUAGES:
        tables = _tables(language)
        for pattern, kind in tables["result"]:  # every state the clause says ("grew … shrank")
            match = pattern.search(clause.scan)
            if match and not _honest(language, clause.scan[: match.start()], sentence):
                found.append(_claim(match, kind, clause.scan))
        if found:
            return found
        if not first or sentence.rstrip().endswith(("?", "？")):
            continue
        for pattern, kind in tables["sentence"]:
            match = pattern.search(sentence)
            if match and not _honest(language, sentence[: match.start()], sentence):
                return [_claim(match, kind, clause.scan)]
    return []


def line_claim(line: str) -> Claim | None:
    """The claim of a whole line (a ticked action item, an action table row), or None."""
    for language in LANGUAGES:
        for pattern, kind in _tables(language)["line"]:
            match = pattern.search(line)
            # (a line's text before the form holds titles, not the form's own clause)
            if match and not _honest(language, "", line):
                return _claim(match, kind, _QUOTED.sub("", line))
    return None
