"""Markdown in the assistant's replies, rendered safely for the chat page.

A small subset through markdown-it-py (a maintained CommonMark parser) with raw HTML off:
paragraphs and line breaks, bullet and numbered lists, bold and italic, inline code and code
blocks, links. Everything else is shown as the text it is, escaped. A link survives only with
an ``http``, ``https`` or ``mailto`` scheme or as a path on this site (no ``javascript:``,
``data:``, ``vbscript:``, ``file:`` …, however written), and it gets
``rel="noopener noreferrer nofollow"``. The user's own messages are never rendered as markdown.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "noopener noreferrer nofollow"
_SCHEME = re.compile(r"^([a-z][a-z0-9+.\-]*):")
# Browsers drop ASCII whitespace and control characters inside a scheme ("java\tscript:").
_IGNORED = re.compile(r"[\x00-\x20\x7f]+")

RULES = ("list", "fence", "code", "emphasis", "backticks", "link", "autolink", "newline", "escape")


def link_allowed(url: str) -> bool:
    """Return True for a link the page may show: http(s), mailto, or a path on this site."""
    flat = _IGNORED.sub("", url).lower()
    if flat.startswith("//") or flat.startswith("\\"):
        return flat.startswith("//")  # another host over the page's own scheme: http(s)
    scheme = _SCHEME.match(flat)
    if scheme is None:
        return ":" not in flat.split("/", 1)[0] or flat.startswith(("/", "?", "#", "."))
    return scheme.group(1) in SAFE_SCHEMES


def _link_open(
    renderer: Any, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[index]
    token.attrSet("rel", LINK_REL)
    return str(renderer.renderToken(tokens, index, options, env))


def _parser() -> MarkdownIt:
    parser = MarkdownIt("zero", {"html": False, "breaks": True, "linkify": False})
    parser.enable(list(RULES))
    parser.validateLink = link_allowed  # type: ignore[method-assign]
    parser.add_render_rule("link_open", _link_open)
    return parser


_PARSER = _parser()


def render_reply(text: str) -> str:
    """Return the HTML of an assistant's reply (escaped; the safe subset only)."""
    return _PARSER.render(text or "").strip()
