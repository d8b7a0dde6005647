"""Every page, in both languages and both colour schemes, in a real browser: axe-core finds
no violation (any impact), and no page shows text of the other language or a raw code.

The language check reads the rendered text (``innerText``) without the parts that name
things rather than say them: elements with their own ``lang`` (the language switch), the
user's own data (titles, notes, messages), user and zone names. On an English page a CJK
character fails; on a Chinese page an English word outside a short list of names fails; on
both, a raw code (``card.issued``, ``[A-Z_]{6,}``) fails. ``LIGHTNOTE_SCREENSHOT_DIR`` keeps
a screenshot of each page per language and scheme.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from agent.web.conversations import CONVERSATION_SESSION_KEY
from notes import services as note_services
from tests.test_browser_chat import CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS
from tests.test_browser_pages import AXE, VIEWPORTS, _shot
from tests.test_chat_page import card_form, post_card, send
from todos import services as todo_services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

COOKIE = {"zh-CN": "zh-hans", "en": "en"}
# Names, not words: they read the same in both languages.
NAMES = {
    "LightNote",
    "MCP",
    "JSON",
    "Enter",
    "Shift",
    "API",
    "IDE",
    "Asia",
    "Shanghai",
    "UTC",
    "Token",
    "Bearer",
    "Claude",
    "Desktop",
    "Cursor",
    "stdio",
    "HTTP",
    "http",
    "https",
}
CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")
WORD = re.compile(r"[A-Za-z]{3,}")
RAW_CODE = re.compile(r"\b[A-Z][A-Z_]{5,}\b|\b[a-z]{2,}\.[a-z_]{2,}\b")
# The user's own data (and the todo the seed sentence made): shown as typed, in any language.
DATA = ["交房租 rent", "周会 Weekly", "Release on Monday", "提交周报", "今晚 9 点", "crawler"]

# The text a page renders, minus elements that carry their own language and the user's data.
TEXT_JS = """() => {
  const copy = document.body.cloneNode(true);
  copy.querySelectorAll('[lang], .item-title, .excerpt, .item-body, .msg .text, .who,'
    + ' .zone, code, time, textarea, input, select, option, h1.item-detail-title,'
    + ' .conversation-item a, .conversation-title,'
    + ' script, style, noscript, .msg-user').forEach((el) => el.remove());
  return copy.innerText;
}"""


def pages(todo_id: str, note_id: str, session_id: str) -> list[tuple[str, str]]:
    """``(path, screenshot name)`` of every signed-in page."""
    return [
        ("/", "chat-new"),
        (f"/chat/{session_id}/", "chat-card"),
        ("/todos/", "todos"),
        ("/todos/?view=overdue", "todos-overdue"),
        (f"/todos/{todo_id}/", "todo-detail"),
        ("/todos/trash/", "todos-trash"),
        ("/notes/", "notes"),
        (f"/notes/{note_id}/", "note-detail"),
        ("/notes/trash/", "notes-trash"),
        ("/settings/", "settings"),
        ("/settings/mcp/", "settings-mcp"),
    ]


ANONYMOUS = ["/accounts/login/", "/accounts/signup/", "/accounts/password_reset/"]


def problems_in(text: str, locale: str, allowed: set[str]) -> list[str]:
    for data in DATA:
        text = text.replace(data, " ")
    found = [f"raw code {code!r}" for code in RAW_CODE.findall(text)]
    if locale == "en":
        found += [f"CJK {char!r}" for char in set(CJK.findall(text))]
    else:
        found += [f"English {word!r}" for word in set(WORD.findall(text)) if word not in allowed]
    return found


def axe_violations(page: Any) -> list[str]:
    page.evaluate(AXE.read_text())
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{violation['id']} ({violation['impact']}): "
        + "; ".join(node["target"][0] for node in violation["nodes"][:3])
        for violation in result["violations"]
    ]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("locale", ["zh-CN", "en"])
def test_browser_every_page_speaks_one_language_and_passes_axe(
    live_server: Any, make_user: Any, sync_playwright: Any, locale: str, scheme: str
) -> None:
    user = make_user("crawler")
    todo = todo_services.todo_create(owner=user, title="交房租 rent")
    note = note_services.note_create(
        owner=user, title="周会 Weekly", content="# Release on Monday\n\n- **retro**"
    )
    client = Client()
    client.force_login(user)
    post_card(client, "/chat/confirm/", card_form(send(client).content.decode()))
    session_id = client.session[CONVERSATION_SESSION_KEY]
    allowed = NAMES | {word for text in DATA for word in WORD.findall(text)}
    found: dict[str, list[str]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(
                locale=locale, color_scheme=scheme, viewport=VIEWPORTS["desktop"]
            )
            context.set_default_timeout(TIMEOUT_MS)
            context.add_cookies(
                [{"name": "django_language", "value": COOKIE[locale], "url": live_server.url}]
            )
            page = context.new_page()
            for path in ANONYMOUS:
                page.goto(f"{live_server.url}{path}")
                found[path] = problems_in(page.evaluate(TEXT_JS), locale, allowed)
                found[path] += axe_violations(page)
                _shot(page, f"crawl-{locale}-{scheme}-{path.strip('/').replace('/', '-')}")
            page.goto(f"{live_server.url}/accounts/login/")
            page.locator("#id_username").fill("crawler")
            page.locator("#id_password").fill("pw-crawler")
            page.locator("#id_password").press("Enter")
            page.wait_for_url(re.compile(r"/chat/|/$"))
            for path, name in pages(str(todo.id), str(note.id), session_id):
                page.goto(f"{live_server.url}{path}")
                page.wait_for_load_state("networkidle")
                found[path] = problems_in(page.evaluate(TEXT_JS), locale, allowed)
                found[path] += axe_violations(page)
                _shot(page, f"crawl-{locale}-{scheme}-{name}")
        finally:
            browser.close()

    assert {path: problems for path, problems in found.items() if problems} == {}
