"""One input policy for every text a person or a client sends, applied by the services.

Every channel (the REST API, the item pages, the agent's proposals and card edits, the MCP
server, the MCP token form) reaches the same service checks, so the rules are here once, as
data: for each field kind, which code points are refused (400 ``VALIDATION_ERROR``, the
field named in ``fields``) and which are stripped. Then CRLF and CR become LF (browsers send
CRLF from every textarea) and the text is stored in Unicode NFC.

- ``LINE`` (titles, tags, names): one line; TAB, LF and CR are whitespace the caller
  collapses. Controls and bidi embedding/override/isolate controls are refused: in a
  title they would reverse how a card's preview reads.
- ``TEXT`` (descriptions, note contents): TAB, LF and CR kept; controls refused; bidi
  embedding/override/isolate controls stripped (pasted right-to-left text keeps its
  letters, and the stored text can no longer reorder what follows it).

The bidi *marks* (U+200E LRM, U+200F RLM, U+061C ALM) are allowed in both: they are how
mixed-direction text is written correctly, and a mark cannot reverse a run of text.
"""

from __future__ import annotations

import enum
import unicodedata
from dataclasses import dataclass
from typing import Literal

from lightnote.errors import LightNoteError


class Kind(enum.StrEnum):
    LINE = "line"
    TEXT = "text"


@dataclass(frozen=True)
class Rule:
    """What to do with a set of code points: refuse the text (``reason``) or strip them."""

    action: Literal["refuse", "strip"]
    points: frozenset[int]
    reason: str


def _points(*ranges: tuple[int, int]) -> frozenset[int]:
    return frozenset(point for first, last in ranges for point in range(first, last + 1))


LINE_BREAKS_AND_TAB = frozenset({0x09, 0x0A, 0x0D})
# C0 except TAB, LF and CR; DEL; C1 (U+0080..U+009F: NEL, CSI... invisible, never typed).
CONTROLS = _points((0x00, 0x1F), (0x7F, 0x9F)) - LINE_BREAKS_AND_TAB
# LRE, RLE, PDF, LRO, RLO (U+202A..U+202E) and LRI, RLI, FSI, PDI (U+2066..U+2069).
BIDI_CONTROLS = _points((0x202A, 0x202E), (0x2066, 0x2069))

RULES: dict[Kind, tuple[Rule, ...]] = {
    Kind.LINE: (
        Rule("refuse", CONTROLS, "control_character"),
        Rule("refuse", BIDI_CONTROLS, "bidi_control"),
    ),
    Kind.TEXT: (
        Rule("refuse", CONTROLS, "control_character"),
        Rule("strip", BIDI_CONTROLS, "bidi_control"),
    ),
}

_STRIPPED = {
    kind: {point: None for rule in rules if rule.action == "strip" for point in rule.points}
    for kind, rules in RULES.items()
}


def clean_text(value: str, *, kind: Kind, field: str) -> str:
    """Return ``value`` with LF line breaks, stripped code points removed, in NFC; raise
    400 ``VALIDATION_ERROR`` (``fields: {field: [reason]}``) for a refused code point."""
    for rule in RULES[kind]:
        if rule.action == "refuse" and any(ord(char) in rule.points for char in value):
            raise LightNoteError("VALIDATION_ERROR", extra={"fields": {field: [rule.reason]}})
    value = value.replace("\r\n", "\n").replace("\r", "\n").translate(_STRIPPED[kind])
    return unicodedata.normalize("NFC", value)


_UNSHOWN = {point: None for point in CONTROLS | BIDI_CONTROLS}


def echoable(value: str) -> str:
    """Return ``value`` without the code points the policy refuses: safe to show back in a
    form that refused it (a raw NUL in a page breaks clients that read it back)."""
    return value.translate(_UNSHOWN)
