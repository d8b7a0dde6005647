"""The rules planner's data files: ``agent/planners/data/<language>/<name>.tsv``.

Each file is tab-separated rows whose first column names the row's kind (its header says
which kinds it has and what their columns mean); ``#`` starts a comment line. A ``piece``
row (``piece	NAME	<pattern>``) names a part several patterns share: ``{NAME}`` in the
first column of any other row of that file stands for it. The modules that read them
(``recurrence``, ``requests``, the grammars' write forms) hold mechanisms only, the words
live here.

Two kinds are read by name rather than in order:

- ``pattern	NAME	<pattern>``: one pattern a module compiles with its own flags; ``{NAME}``
  in it stands for a ``piece`` of the file (a piece may use the pieces above it) or for
  the shared ``{QUOTED}`` (a quoted title) and ``{ISO}`` (an ISO date-time);
- ``words	NAME	word|word|…``: a set of words or phrases (compared as written).
"""

from __future__ import annotations

import csv
import re
from functools import cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


_PIECE = re.compile(r"\{(?P<name>[A-Z][A-Z_]*)\}")


@cache
def rows(language: str, name: str) -> dict[str, tuple[tuple[str, ...], ...]]:
    """The rows of ``data/<language>/<name>.tsv`` by kind, each without its kind column, the
    ``{NAME}`` of its ``piece`` rows filled in (an unknown name is an error, not a literal)."""
    found: dict[str, list[tuple[str, ...]]] = {}
    with (DATA / language / f"{name}.tsv").open(encoding="utf-8") as handle:
        for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            if row and not row[0].startswith("#"):
                found.setdefault(row[0], []).append(tuple(row[1:]))
    pieces = {piece: pattern for piece, pattern in found.pop("piece", ())}

    def filled(pattern: str) -> str:
        return _PIECE.sub(lambda match: pieces[match["name"]], pattern)

    return {
        kind: tuple((filled(row[0]), *row[1:]) if row else row for row in items)
        for kind, items in found.items()
    }


def _shared_pieces() -> dict[str, str]:
    from agent.planners.lexicon import ISO, QUOTED

    return {"QUOTED": QUOTED, "ISO": ISO}


@cache
def _named_rows(language: str, name: str) -> dict[str, dict[str, str]]:
    """``pattern`` and ``words`` rows by name, each pattern's pieces filled in."""
    pieces = _shared_pieces()
    found: dict[str, dict[str, str]] = {"pattern": {}, "words": {}}
    with (DATA / language / f"{name}.tsv").open(encoding="utf-8") as handle:
        for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            if not row or row[0].startswith("#") or row[0] not in ("piece", "pattern", "words"):
                continue
            kind, key, text = row[0], row[1], row[2]
            if key in pieces or key in found["pattern"] or key in found["words"]:
                raise ValueError(f"data/{language}/{name}.tsv: {key} is named twice")
            if kind == "words":
                found["words"][key] = text
                continue
            text = _PIECE.sub(lambda match: pieces[match["name"]], text)
            (pieces if kind == "piece" else found["pattern"])[key] = text
    return found


def pattern(language: str, name: str, key: str) -> str:
    """The ``pattern`` row ``key`` of ``data/<language>/<name>.tsv``, its pieces filled in
    (uncompiled: the module compiles it with the flags its grammar uses)."""
    return _named_rows(language, name)["pattern"][key]


def compiled(language: str, name: str, key: str) -> re.Pattern[str]:
    """The ``pattern`` row ``key`` compiled case-insensitive, for a module whose grammar
    needs no other flags."""
    return re.compile(pattern(language, name, key), re.IGNORECASE)


def words(language: str, name: str, key: str) -> frozenset[str]:
    """The ``words`` row ``key`` of ``data/<language>/<name>.tsv`` as a set."""
    return frozenset(_named_rows(language, name)["words"][key].split("|"))


@cache
def patterns(language: str, name: str, kind: str) -> tuple[re.Pattern[str], ...]:
    """The first column of each ``kind`` row, compiled (case-insensitive)."""
    return tuple(re.compile(row[0], re.IGNORECASE) for row in rows(language, name).get(kind, ()))
