"""Markdown in the assistant's replies (agent/web/markdown.py): a safe subset, a hostile corpus.

Every rendering of the corpus is parsed back: only the subset's tags, only their attributes,
links only to http(s), mailto or this site, each with rel="noopener noreferrer nofollow".
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client

from agent.models import Message
from agent.web.conversations import CONVERSATION_SESSION_KEY
from agent.web.markdown import LINK_REL, link_allowed, render_reply

ALLOWED = {
    "p": set(),
    "br": set(),
    "ul": set(),
    "ol": {"start"},
    "li": set(),
    "strong": set(),
    "em": set(),
    "code": {"class"},
    "pre": set(),
    "a": {"href", "title", "rel"},
}

HOSTILE = [
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">x</a>',
    "<iframe src=https://evil.example></iframe>",
    "<svg onload=alert(1)>",
    "<style>body{display:none}</style>",
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](java\tscript:alert(1))",
    "[x](java\nscript:alert(1))",
    "[x](  javascript:alert(1))",
    "[x](<javascript:alert(1)>)",
    "[x](&#106;avascript:alert(1))",
    "[x](javascript&colon;alert(1))",
    "[x](%6Aavascript:alert(1))",
    "[x](\x01javascript:alert(1))",
    "[x](vbscript:msgbox(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[x](data:image/png;base64,iVBORw0KGgo=)",
    "[x](file:///etc/passwd)",
    "<javascript:alert(1)>",
    "<data:text/html,<script>alert(1)</script>>",
    "[a][1]\n\n[1]: javascript:alert(1)",
    "![i](javascript:alert(1))",
    "![i](https://evil.example/track.png)",
    '[x](https://a.example "t" onmouseover="alert(1)")',
    '[x](https://a.example/"><script>alert(1)</script>)',
    "**<b onclick=alert(1)>bold</b>**",
    "`<script>alert(1)</script>`",
    "```html onload=alert(1)\n<script>alert(1)</script>\n```",
    "<!-- comment --><p onclick=alert(1)>x</p>",
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    "[click](https://ok.example/path?q=1&r=2)",
    "- one\n- [two](javascript:alert(2))\n- **three**",
]


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {name: value or "" for name, value in attrs}))


def tags_of(html: str) -> list[tuple[str, dict[str, str]]]:
    reader = _Tags()
    reader.feed(html)
    return reader.tags


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_input_renders_only_the_safe_subset(text: str) -> None:
    html = render_reply(text)

    for tag, attrs in tags_of(html):
        assert tag in ALLOWED, (tag, html)
        assert set(attrs) <= ALLOWED[tag], (tag, attrs, html)
        if tag == "a":
            assert attrs["rel"] == LINK_REL
            assert attrs["href"].lower().startswith(("https://", "http://", "mailto:", "/"))
    lowered = html.lower()
    assert "<script" not in lowered
    assert 'href="javascript' not in lowered
    assert 'href="data:' not in lowered
    assert 'href="vbscript' not in lowered
    assert 'href="file:' not in lowered


def test_the_subset_renders_paragraphs_lists_emphasis_code_and_links() -> None:
    html = render_reply(
        "Done: **2 todos** and _one_ note.\nSee `/todos/`.\n\n- first\n- second\n\n"
        "1. a\n2. b\n\n[your todos](/todos/) or [docs](https://example.com/a?b=1)"
    )

    assert "<strong>2 todos</strong>" in html
    assert "<em>one</em>" in html
    assert "<br>" in html
    assert "<code>/todos/</code>" in html
    assert "<ul>\n<li>first</li>\n<li>second</li>\n</ul>" in html
    assert "<ol>\n<li>a</li>\n<li>b</li>\n</ol>" in html
    assert f'<a href="/todos/" rel="{LINK_REL}">your todos</a>' in html
    assert f'<a href="https://example.com/a?b=1" rel="{LINK_REL}">docs</a>' in html


def test_a_refused_link_stays_visible_as_escaped_text() -> None:
    assert render_reply("[x](javascript:alert(1))") == "<p>[x](javascript:alert(1))</p>"
    assert render_reply("<b>hi</b>") == "<p>&lt;b&gt;hi&lt;/b&gt;</p>"


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("https://a.example", True),
        ("HTTP://A.EXAMPLE", True),
        ("mailto:a@b.example", True),
        ("/todos/1/", True),
        ("#top", True),
        ("javascript:alert(1)", False),
        (" JAVA\tSCRIPT:alert(1)", False),
        ("data:text/html,x", False),
        ("tel:123", False),
        ("%6Aavascript:alert(1)", False),
    ],
)
def test_link_allowed(url: str, allowed: bool) -> None:
    assert link_allowed(url) is allowed


@pytest.mark.django_db
def test_history_renders_the_assistants_markdown_and_never_the_users(user: Any) -> None:
    client = Client()
    client.force_login(user)
    client.get("/")
    session_id = client.session[CONVERSATION_SESSION_KEY]
    Message.objects.create(session_id=session_id, role=Message.Role.USER, text="**mine** <b>x</b>")
    Message.objects.create(
        session_id=session_id,
        role=Message.Role.ASSISTANT,
        text="**Done** [open](javascript:alert(1)) <script>alert(1)</script>",
        payload={},
    )

    html = client.get(f"/chat/{session_id}/").content.decode()

    assert "**mine** &lt;b&gt;x&lt;/b&gt;" in html
    assert "<strong>Done</strong> [open](javascript:alert(1)) &lt;script&gt;" in html
    assert "<script>alert(1)" not in html
