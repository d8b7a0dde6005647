"""What a request means beyond its grammar, read from each language's table.

``agent/planners/data/<language>/requests.tsv`` holds the words (its header says the row
kinds); this module is the mechanism over them: a request said another way (moving an item
to the trash is deleting it), a question about what the assistant can do, whether a bare
"time + event" is sure enough for a card, and the asking words before a note's content.
"""

from __future__ import annotations

import re

from agent.planners.tables import patterns, rows

_GROUP = re.compile(r"\{(?P<name>[a-z]+)\}")
_TABLE = "requests"


def reword(text: str, language: str) -> str:
    """``text`` said the way the grammar reads it (the first ``reword`` row that matches)."""
    for pattern, (_, template) in zip(
        patterns(language, _TABLE, "reword"), rows(language, _TABLE).get("reword", ()), strict=True
    ):
        match = pattern.match(text.strip())
        if match:
            return _filled(template, match.groupdict())
    return text


def _filled(template: str, said: dict[str, str | None]) -> str:
    return _GROUP.sub(lambda group: said.get(group["name"]) or "", template)


def asks_capability(text: str, language: str) -> bool:
    """Whether ``text`` asks what the assistant can do ("can you set a daily reminder?")."""
    return any(pattern.match(text.strip()) for pattern in patterns(language, _TABLE, "capability"))


def sure_title(title: str, language: str) -> bool:
    """Whether a bare "time + event" title reads as the todo itself, with no ``unsure`` word."""
    return bool(title.strip()) and not any(
        pattern.search(title) for pattern in patterns(language, _TABLE, "unsure")
    )


def content_without_head(content: str, language: str) -> str:
    """A note's content without the asking words that open it (写上番茄炒蛋 -> 番茄炒蛋)."""
    for pattern in patterns(language, _TABLE, "content_head"):
        content = pattern.sub("", content, count=1)
    return content
