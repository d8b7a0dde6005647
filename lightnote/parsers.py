"""The one JSON request parser: DRF's, with a nesting limit and no recursion failures.

A hostile client can nest JSON deep enough to exhaust Python's recursion (a 500 with a
traceback). Every API body is shallow (the deepest documented one is a card edit: an object
of objects), so anything deeper than :data:`MAX_JSON_DEPTH` levels is a 400
``MALFORMED_REQUEST`` before any view sees it, as is a body the decoder cannot recurse into.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

# Objects and arrays inside one another, the body itself being level 1.
MAX_JSON_DEPTH = 32


def json_depth_exceeds(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """Return True when ``value`` nests objects/arrays more than ``limit`` levels deep.

    Iterative (no recursion of its own), and stops at the first level past the limit.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, Mapping):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


class LimitedJSONParser(JSONParser):
    """``application/json`` with at most :data:`MAX_JSON_DEPTH` levels; else ParseError (400)."""

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON nested too deeply") from None
        if json_depth_exceeds(data):
            raise ParseError("JSON nested too deeply")
        return data
