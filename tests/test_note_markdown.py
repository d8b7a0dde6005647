"""Notes render as markdown on their page and as plain text in the list; the editor keeps the
text as typed; raw HTML and unsafe links never render."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from notes import services as note_services
from notes.markdown import note_excerpt, render_note

pytestmark = pytest.mark.django_db

CONTENT = "# Plan\n\n- item **bold**\n- [site](https://example.com)\n\n`code`"


def test_headings_lists_bold_links_and_code_render() -> None:
    html = render_note(CONTENT)

    assert "<h1>Plan</h1>" in html
    assert "<li>item <strong>bold</strong></li>" in html
    assert '<a href="https://example.com" rel="noopener noreferrer nofollow">site</a>' in html
    assert "<code>code</code>" in html


@pytest.mark.parametrize(
    "hostile",
    [
        "<script>alert(1)</script>",
        '<img src=x onerror="alert(1)">',
        "[x](javascript:alert(1))",
        "[x](java\tscript:alert(1))",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        "[x](/relative/path)",
    ],
)
def test_raw_html_unsafe_links_and_images_never_render(hostile: str) -> None:
    html = render_note(hostile)

    assert "<script" not in html
    assert "<img" not in html
    assert "href=" not in html


def test_an_image_is_never_loaded_its_address_stays_a_plain_link() -> None:
    html = render_note("![tracker](https://evil.example/pixel.png)")

    assert "<img" not in html
    assert 'rel="noopener noreferrer nofollow"' in html


def test_mailto_links_are_kept() -> None:
    assert 'href="mailto:me@example.com"' in render_note("[mail](mailto:me@example.com)")


def test_the_excerpt_is_the_text_without_its_marks() -> None:
    assert note_excerpt(CONTENT) == "Plan item bold site code"


def test_the_note_page_renders_markdown_and_the_editor_keeps_the_text(user: Any) -> None:
    note = note_services.note_create(owner=user, title="Plan", content=CONTENT)
    client = Client()
    client.force_login(user)

    page = client.get(f"/notes/{note.id}/").content.decode()
    listing = client.get("/notes/").content.decode()

    assert "<strong>bold</strong>" in page
    assert "# Plan\n\n- item **bold**" in page  # the textarea, as typed
    assert "Plan item bold site code" in listing
    assert "**bold**" not in listing
