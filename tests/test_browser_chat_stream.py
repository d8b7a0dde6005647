"""The chat page shows a model's reply as it is written: Playwright against the live server.

The model is ``tests.fake_openai.FakeOpenAI`` streaming a reply a word at a time, held after
the second sentence has begun: the page must already show the first sentence (and nothing
of the held rest) while the model is still writing; once it goes on, the server's rendered
turn replaces the growing bubble. A card turn shows the server's text and the card. Phone
and desktop, both languages, axe-core finding nothing serious while the text grows;
``LIGHTNOTE_SCREENSHOT_DIR`` keeps the screenshots. The database is touched only before the
browser starts and after it has closed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser_helpers import login
from tests.fake_openai import FakeOpenAI, tool_call
from tests.test_browser_chat import CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS
from tests.test_browser_crawl import COOKIE
from tests.test_browser_pages import VIEWPORTS, _serious_violations, _shot
from todos.models import Todo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCRIPTS = {
    "zh-CN": {
        "ask": "我今天有哪些待办？",
        "sentences": ["你今天有三条待办。", "第一条明天截止。", "还需要我帮你做什么吗？"],
        "add": "帮我创建一条待办：交周报",
        "card_reply": "请检查下面的确认卡；只有你确认后才会执行。",
        "send": "发送",
        "label": "你的消息",
    },
    "en": {
        "ask": "What is on my list today?",
        "sentences": [
            "You have three open todos. ",
            "The first one is due tomorrow. ",
            "Anything else I can help with?",
        ],
        "add": "Add a todo: submit the weekly report",
        "card_reply": "Please review the card below; nothing happens until you confirm it.",
        "send": "Send",
        "label": "Your message",
    },
}


def pieces_of(sentences: list[str]) -> list[str]:
    """A word (with its space) at a time; Chinese two characters at a time."""
    out: list[str] = []
    for sentence in sentences:
        if sentence.isascii():
            out.extend(re.findall(r"\S+\s*", sentence))
        else:
            out.extend(sentence[i : i + 2] for i in range(0, len(sentence), 2))
    return out


@pytest.fixture
def fake_openai(settings: Any) -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        server.apply_to(settings, timeout=10)
        settings.LIGHTNOTE_PLANNER = "openai"
        yield server


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
@pytest.mark.parametrize("language", sorted(SCRIPTS))
def test_browser_chat_text_grows_as_the_model_writes_it(
    live_server: Any,
    make_user: Any,
    sync_playwright: Any,
    fake_openai: FakeOpenAI,
    viewport: str,
    language: str,
) -> None:
    user = make_user("streamer")
    script = SCRIPTS[language]
    sentences = script["sentences"]
    pieces = pieces_of(sentences)
    first_sentence_pieces = len(pieces_of(sentences[:1]))
    # Held once the second sentence has begun (chunk 1 carries only the role).
    fake_openai.stream_text(pieces, hold_after=1 + first_sentence_pieces + 1)
    fake_openai.reply_tool_calls(tool_call("create_todo", {"title": "交周报"}))

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport=VIEWPORTS[viewport])
            context.set_default_timeout(TIMEOUT_MS)
            context.add_cookies(
                [{"name": "django_language", "value": COOKIE[language], "url": live_server.url}]
            )
            page = context.new_page()
            login(page, live_server.url, "streamer")

            page.get_by_label(script["label"]).fill(script["ask"])
            page.get_by_role("button", name=script["send"]).click()
            growing = page.locator("#streaming-reply .text")
            growing.wait_for()
            assert fake_openai.progress.held.wait(10)
            shown_while_held = growing.inner_text()
            finished_while_shown = fake_openai.progress.finished.is_set()
            thinking_shown = page.locator("#pending-echo .pending").is_visible()
            violations = _serious_violations(page)
            _shot(page, f"chat-stream-growing-{language}-{viewport}")
            fake_openai.release()
            page.locator("#streaming-reply").wait_for(state="detached")
            final = page.locator("li.msg-assistant").last.locator(".text").inner_text()
            _shot(page, f"chat-stream-done-{language}-{viewport}")

            page.get_by_label(script["label"]).fill(script["add"])
            page.get_by_role("button", name=script["send"]).click()
            card = page.locator("article.card").filter(has=page.locator(".card-actions"))
            card.wait_for()
            card_turn_text = page.locator("li.msg-assistant").last.locator(".text").inner_text()
            _shot(page, f"chat-stream-card-{language}-{viewport}")
            problems = page.locator("#problems").inner_text()
        finally:
            browser.close()

    assert shown_while_held.strip() == sentences[0].strip()
    assert not finished_while_shown
    assert not thinking_shown  # the reply is being written: no longer "thinking"
    assert violations == []
    assert final.replace("\n", "") == "".join(sentences).strip()
    assert card_turn_text.strip() == script["card_reply"]
    assert problems == ""
    assert Todo.objects.filter(owner=user).count() == 0
