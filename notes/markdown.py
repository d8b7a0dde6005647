"""A note's content as markdown (markdown-it-py, CommonMark), rendered safely for its page.

Raw HTML is off (it shows as the text it is); a link survives only with an ``http``,
``https`` or ``mailto`` scheme and gets ``rel="noopener noreferrer nofollow"``; images are
not loaded (their text shows instead), so a note cannot make the page fetch another site.
The editor keeps the plain text; the list's excerpt is the rendered text without its marks.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

SAFE_SCHEMES = ("http:", "https:", "mailto:")
LINK_REL = "noopener noreferrer nofollow"
# Browsers drop ASCII whitespace and control characters inside a scheme ("java\tscript:").
_IGNORED = re.compile(r"[\x00-\x20\x7f]+")
_TAGS = re.compile(r"<[^>]+>")


def link_allowed(url: str) -> bool:
    """True for an ``http``, ``https`` or ``mailto`` link (however its scheme is written)."""
    return _IGNORED.sub("", url).lower().startswith(SAFE_SCHEMES)


def _link_open(
    renderer: Any, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType
) -> str:
    tokens[index].attrSet("rel", LINK_REL)
    return str(renderer.renderToken(tokens, index, options, env))


def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False, "breaks": True, "linkify": False})
    parser.disable(["image", "html_block", "html_inline"])
    parser.validateLink = link_allowed  # type: ignore[method-assign]
    parser.add_render_rule("link_open", _link_open)
    return parser


_PARSER = _parser()


def render_note(text: str) -> str:
    """The HTML of a note's content (escaped; raw HTML and unsafe links shown as text)."""
    return _PARSER.render(text or "").strip()


def note_excerpt(text: str, limit: int = 140) -> str:
    """The note's text as read, without its markdown marks, cut to ``limit`` characters."""
    plain = " ".join(html.unescape(_TAGS.sub(" ", render_note(text))).split())
    return plain if len(plain) <= limit else plain[: limit - 1] + "…"
