"""Traditional characters and Cantonese particles, read as the Simplified the grammar knows.

A reply written in Traditional characters (已幫你新增一則備忘) or in Cantonese (已經幫你剷走咗)
makes the same claims as its Simplified, Mandarin form; the grammar's lexicon is Simplified.
Each clause's scan is translated character for character (``lightnote.texts.hanzi``: one character
for one, so every position in the scan stays where it was); the reply shown to the user is
never changed.
"""

from __future__ import annotations

from lightnote.texts.hanzi import simplified

__all__ = ["simplified"]
