"""Write tests/data/duckling-time.tsv from the text of duckling's time corpora.

Usage (from the repository root, with a clone of https://github.com/facebook/duckling)::

    python tests/data/tools/duckling_corpus.py /path/to/duckling > tests/data/duckling-time.tsv

The script reads the example lists of ``Duckling/Time/ZH/Corpus.hs`` and
``Duckling/Time/EN/Corpus.hs`` as text (no duckling code is used or copied), turns each
expected value into what LightNote's due-time rules make of it (see ``expected_under_our_rules``)
and applies the hand-written overrides of ``duckling-overrides.tsv`` (each with its reason).
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
OVERRIDES = HERE / "duckling-overrides.tsv"
CORPORA = {"zh": "Duckling/Time/ZH/Corpus.hs", "en": "Duckling/Time/EN/Corpus.hs"}
# duckling's test context: Tuesday 2013-02-12 04:30:00 at UTC-2 ("diffCorpus": 2013-02-15).
ZONE_NAME = "Etc/GMT+2"  # the IANA name of the fixed zone UTC-02:00
ZONE = timezone(timedelta(hours=-2))
DEFAULT_NOW = datetime(2013, 2, 12, 4, 30, tzinfo=ZONE)
DIFF_NOW = datetime(2013, 2, 15, 4, 30, tzinfo=ZONE)
SINGLE_INSTANT_GRAINS = {"Second", "Minute", "Hour"}

_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_DATETIME = r"\((-?\d+), (\d+), (\d+), (\d+), (\d+), (\d+)\)"
_HEADER = re.compile(r"examples \((datetime\w*)\s+(.*)$")
_SECTION = re.compile(r"^(\w+) ::")


@dataclass(frozen=True)
class Example:
    lang: str
    section: str
    text: str
    now: datetime
    duckling: str  # duckling's value, compactly: "2013-02-18 Day", "interval", "negative"
    expected: str  # ISO instant or "refuse"


def read_corpus(lang: str, source: str) -> list[Example]:
    """Return every example of one corpus file, with duckling's value and ours."""
    examples: list[Example] = []
    section = ""
    header: str | None = None
    in_list = False
    negative = False
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith("--"):
            continue
        if match := _SECTION.match(line):
            section = match[1]
            negative = section == "negativeCorpus"
            in_list = negative
            continue
        if match := _HEADER.search(line):
            header = match[1] + " " + match[2]
            in_list = False
        elif header is not None and not in_list and "[" not in line:
            header += " " + stripped  # a header wrapped over two lines
        if header is not None and "[" in line:
            in_list = True
        if in_list:
            for text in _STRING.findall(line.split("--")[0] if '"' not in line else line):
                text = text.replace('\\"', '"')
                if negative:
                    examples.append(_example(lang, section, text, "negative"))
                elif header is not None:
                    examples.append(_example(lang, section, text, header))
            if "]" in line:
                in_list = False
                header = None if not negative else header
                if negative:
                    negative = False
    return examples


def _example(lang: str, section: str, text: str, header: str) -> Example:
    now = DIFF_NOW if section == "diffCorpus" else DEFAULT_NOW
    duckling, expected = expected_under_our_rules(header, now)
    return Example(lang, section, text, now, duckling, expected)


def expected_under_our_rules(header: str, now: datetime) -> tuple[str, str]:
    """Return duckling's value and the due time LightNote's rules make of it.

    One instant (grain second, minute or hour) -> that instant, in whole minutes; "now" itself
    is no due time -> refuse. One day -> 23:59 that day. A week, month, quarter or year, any
    interval or open interval and the negative corpus -> refuse. A value
    over a year before or over ten years after the reference -> refuse (our plausible window).
    """
    if header == "negative":
        return "negative", "refuse"
    kind = header.split()[0]
    if kind in {"datetimeInterval", "datetimeIntervalHoliday", "datetimeOpenInterval"}:
        return "interval", "refuse"
    match = re.search(_DATETIME + r"\s+(\w+)", header)
    if match is None:
        raise ValueError(f"unreadable header: {header}")
    year, month, day, hour, minute, second = (int(part) for part in match.groups()[:6])
    grain = match[7]
    if not 1 <= year <= 9999:
        return f"year {year} {grain}", "refuse"
    value = datetime(year, month, day, hour, minute, second, tzinfo=ZONE)
    duckling = f"{value:%Y-%m-%dT%H:%M:%S} {grain}"
    if grain in SINGLE_INSTANT_GRAINS:
        if value == now:
            return duckling, "refuse"
        due = value.replace(second=0)
    elif grain == "Day":
        due = value.replace(hour=23, minute=59)
    else:
        return duckling, "refuse"
    earliest = now.replace(year=now.year - 1)
    latest = now.replace(year=now.year + 10)
    if not earliest <= due <= latest:
        return duckling, "refuse"
    return duckling, due.isoformat()


def read_overrides() -> dict[tuple[str, str], tuple[str, str]]:
    rows = [
        line.split("\t")
        for line in OVERRIDES.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    return {(lang, text): (expected, reason) for lang, text, expected, reason in rows}


def main(duckling_repo: str) -> None:
    overrides = read_overrides()
    commit = subprocess.run(
        ["git", "-C", duckling_repo, "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    out = sys.stdout
    out.write(
        "# Due-time development corpus: the single-instant phrasings of facebook/duckling\n"
        f"# (https://github.com/facebook/duckling, commit {commit}), files\n"
        "# Duckling/Time/ZH/Corpus.hs and Duckling/Time/EN/Corpus.hs. Duckling is\n"
        "# BSD-licensed, Copyright (c) 2016-present, Facebook, Inc.; the example texts and\n"
        "# their reference times are data taken from it, no code.\n"
        "# Columns: lang, text, now (duckling's reference time), zone, expected (an instant, or\n"
        "# refuse), duckling (its own value: instant + grain, interval, or negative), override\n"
        "# (why our rule differs from duckling's value; empty when it does not).\n"
        '# Conversion: one instant -> that instant in whole minutes ("now" -> refuse); one day\n'
        "# -> 23:59; a week/month/quarter/year, an interval or a negative example ->\n"
        "# refuse; over a year back or ten years ahead of the reference -> refuse.\n"
        "# Regenerate: tests/data/tools/duckling_corpus.py (overrides in duckling-overrides.tsv).\n"
    )
    out.write("lang\ttext\tnow\tzone\texpected\tduckling\toverride\n")
    seen: set[tuple[str, str, str]] = set()
    for lang, path in CORPORA.items():
        source = subprocess.run(
            ["git", "-C", duckling_repo, "show", f"HEAD:{path}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for example in read_corpus(lang, source):
            key = (lang, example.text, example.now.isoformat())
            if key in seen or "\t" in example.text:
                continue
            seen.add(key)
            expected, reason = overrides.get((lang, example.text), (example.expected, ""))
            row = [
                lang,
                example.text,
                example.now.isoformat(),
                ZONE_NAME,
                expected,
                example.duckling,
                reason,
            ]
            out.write("\t".join(row) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
