"""What a clause claims: the outcome of a write, of which kind, about which items.

A claim is a statement that a write *happened* (or is happening): a write verb carrying a
completion mark (已 / 了 / 好了 / 完了 / 掉了 / 成功, has been / was / I've / went ahead and), a
result state (操作成功, "is now complete", "it's gone", "is in your list"), or an ellipsis
that can only mean "done" (搞定, "Done.", ✅). The grammar for each language lives in
:mod:`agent.guard.grammar_zh` and :mod:`agent.guard.grammar_en`; both run on every clause, so
mixed replies ("todo 已 deleted") are read too.

Not claims: a write verb that is negated, hypothetical, future or offered (没有/还未/会/将/
确认后, not/never/will/once/if), asked (？, 吗), attributive (已完成的待办, "the notes created
last week"), or done by the user ("你上周创建了…", "you created this note").
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.guard.forms import load

FORMS = load("common")
KINDS = ("create", "update", "status", "delete", "restore")  # restore: out of the trash (undo)
OTHER = "other"  # archive, share, send…: no tool of this product does it, nothing backs it


@dataclass(frozen=True)
class Claim:
    """One outcome claim found in a clause."""

    phrase: str  # the words that make it a claim (for the audit event)
    kind: str | None  # one of KINDS, OTHER, or None when it does not say (搞定, "Done.")
    resource_type: str | None = None  # "todo" | "note" when the clause says which
    sweeping: bool = False  # "all", 所有, 其他…: more than any one receipt can back


_TODO_WORDS = FORMS.frame("TODO_WORDS")
_NOTE_WORDS = FORMS.frame("NOTE_WORDS")
_SWEEPING = FORMS.frame("SWEEPING")


def resource_type_of(scan: str) -> str | None:
    """Return "todo" or "note" when the clause names exactly one kind of item."""
    todo, note = bool(_TODO_WORDS.search(scan)), bool(_NOTE_WORDS.search(scan))
    if todo == note:
        return None
    return "todo" if todo else "note"


def is_sweeping(scan: str) -> bool:
    return bool(_SWEEPING.search(scan))
