"""The one JSON request parser: DRF's, with a nesting limit and no recursion failures.

A hostile client can nest JSON deep enough to exhaust Python's recursion (a 500 with a
traceback). Every API body is shallow (the deepest documented one is a card edit: an object
of objects), so anything deeper than :data:`MAX_JSON_DEPTH` levels is a 400
``MALFORMED_REQUEST`` before any view sees it, as is a body the decoder cannot recurse into
and a string that is not text (a lone surrogate).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

# Objects and arrays inside one another, the body itself being level 1.
MAX_JSON_DEPTH = 32


def json_problem(value: Any, limit: int = MAX_JSON_DEPTH) -> str | None:
    """Return why a parsed body is refused, or None.

    Refused: objects/arrays nested more than ``limit`` levels, and strings (keys included)
    holding a lone UTF-16 surrogate (``"\\ud800"`` is valid JSON but no text: I-JSON,
    RFC 7493, forbids it, and it could be neither stored nor echoed in an error). Iterative
    (no recursion of its own); stops at the first problem.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            if not _is_text(node):
                return "a string holds a lone surrogate"
            continue
        if isinstance(node, Mapping):
            children: list[Any] = [*node.keys(), *node.values()]
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return "JSON nested too deeply"
        stack.extend((child, depth + 1) for child in children)
    return None


def _is_text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class LimitedJSONParser(JSONParser):
    """``application/json`` with at most :data:`MAX_JSON_DEPTH` levels and only real text in
    its strings; else ParseError (400 ``MALFORMED_REQUEST``)."""

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON nested too deeply") from None
        problem = json_problem(data)
        if problem is not None:
            raise ParseError(problem)
        return data
