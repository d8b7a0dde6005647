"""The claim forms: the words and sentence shapes the guard reads, as data, per language.

Each ``*.tsv`` file here holds rows ``form  name  flags  pattern`` (tab-separated; ``#``
lines are comments and say what the row below them means):

- ``piece``: a part of other patterns, referenced as ``{{NAME}}``;
- ``frame``: a named pattern the engine asks for (``Forms.frame("BLOCK")``);
- a table form (``verb``, ``participle``, ``base``, ``state``, ``json_kind``…): ordered rows
  whose name is a capability (``create``, ``update``, ``status``, ``delete``, ``restore``,
  ``other``, ``any``; ``-`` when the form does not say which).

In a pattern, ``{{NAME}}`` is the piece NAME, ``{{table:FORM}}`` every row of a table form
as one alternation and ``{{groups:FORM}}`` the same with each row a named group (its name).
``flags``: ``i`` ignore case, ``s`` dot matches a line break, ``-`` none.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

DIRECTORY = Path(__file__).parent
_REFERENCE = re.compile(r"\{\{(?:(?P<how>table|groups):)?(?P<name>[A-Za-z_][\w]*)\}\}")
_FLAGS = {"i": re.IGNORECASE, "s": re.DOTALL, "-": re.NOFLAG}


@dataclass
class Forms:
    """The forms of one file, patterns expanded and compiled on first use."""

    name: str
    pieces: dict[str, str] = field(default_factory=dict)
    frames: dict[str, tuple[str, str]] = field(default_factory=dict)
    tables: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)

    def expand(self, pattern: str, seen: tuple[str, ...] = ()) -> str:
        def replace(match: re.Match[str]) -> str:
            how, name = match.group("how"), match.group("name")
            if how is None:
                if name in seen:
                    raise ValueError(f"{self.name}: piece {name} refers to itself")
                return self.expand(self.pieces[name], (*seen, name))
            rows = self.tables[name]
            if how == "table":
                return "|".join(f"(?:{self.expand(p, seen)})" for _, _, p in rows)
            return "|".join(f"(?P<{n}>{self.expand(p, seen)})" for n, _, p in rows)

        return _REFERENCE.sub(replace, pattern)

    def piece(self, name: str) -> str:
        return self.expand(self.pieces[name])

    def frame(self, name: str) -> re.Pattern[str]:
        flags, pattern = self.frames[name]
        return _compile(self.expand(pattern), flags)

    def table(self, form: str) -> dict[str, str]:
        """A table form as ``{name: pattern}`` (its rows' order kept)."""
        return {name: self.expand(pattern) for name, _, pattern in self.tables[form]}

    def states(self, form: str = "state") -> list[tuple[re.Pattern[str], str | None]]:
        """A table form as compiled patterns with their capability (None for ``-``)."""
        return [
            (_compile(self.expand(pattern), flags), None if name == "-" else name)
            for name, flags, pattern in self.tables[form]
        ]


def _compile(pattern: str, flags: str) -> re.Pattern[str]:
    value = re.NOFLAG
    for letter in flags:
        value |= _FLAGS[letter]
    return re.compile(pattern, value)


@cache
def load(name: str) -> Forms:
    """Return the forms of ``<name>.tsv`` (``en``, ``zh`` or ``common``)."""
    forms = Forms(name)
    path = DIRECTORY / f"{name}.tsv"
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        for number, row in enumerate(reader, start=1):
            if not row or row[0].startswith("#"):
                continue
            if len(row) != 4:
                raise ValueError(f"{path.name}:{number}: expected 4 tab-separated fields")
            form, key, flags, pattern = row
            if key in (forms.pieces if form == "piece" else forms.frames) and form in (
                "piece",
                "frame",
            ):
                raise ValueError(f"{path.name}:{number}: {form} {key} is defined twice")
            if form == "piece":
                forms.pieces[key] = pattern
            elif form == "frame":
                forms.frames[key] = (flags, pattern)
            else:
                forms.tables.setdefault(form, []).append((key, flags, pattern))
    return forms
