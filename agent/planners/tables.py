"""The rules planner's data files: ``agent/planners/data/<language>/<name>.tsv``.

Each file is tab-separated rows whose first column names the row's kind (its header says
which kinds it has and what their columns mean); ``#`` starts a comment line. A ``piece``
row (``piece	NAME	<pattern>``) names a part several patterns share: ``{NAME}`` in the
first column of any other row of that file stands for it. The modules that read them
(``recurrence``, ``requests``) hold mechanisms only, the words live here.
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


@cache
def patterns(language: str, name: str, kind: str) -> tuple[re.Pattern[str], ...]:
    """The first column of each ``kind`` row, compiled (case-insensitive)."""
    return tuple(re.compile(row[0], re.IGNORECASE) for row in rows(language, name).get(kind, ()))
