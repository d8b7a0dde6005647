"""Page texts: plural forms (never "1 field(s)") and friendly messages instead of bare codes
(the codes stay in the API and in the page's data-code)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from agent.models import ActionCard, Message
from agent.web.conversations import CONVERSATION_SESSION_KEY
from agent.web.htmx import problem
from agent.web.presenters import notice_view, page_message
from lightnote.errors import LightNoteError
from lightnote.texts.i18n import define_messages, known_codes, message_template, translate
from tests.test_chat_page import HTMX, SEED

define_messages({"TEST_PLURAL": ("{count} 条待办", "{count} {count:todo|todos} left")})


@pytest.mark.parametrize(
    ("count", "english", "chinese"),
    [
        (0, "0 todos left", "0 条待办"),
        (1, "1 todo left", "1 条待办"),
        (2, "2 todos left", "2 条待办"),
    ],
)
def test_plural_forms(count: int, english: str, chinese: str) -> None:
    assert translate("TEST_PLURAL", "en", count=count) == english
    assert translate("TEST_PLURAL", "zh-CN", count=count) == chinese


def test_no_registered_text_says_s_in_parentheses() -> None:
    offending = [
        code
        for code in known_codes()
        for locale in ("en", "zh-CN")
        if re.search(r"\w\(s\)", message_template(code, locale) or "")
    ]

    assert offending == []


def test_update_previews_say_field_and_fields() -> None:
    assert "1 field of" in translate(
        "TODO_PREVIEW_UPDATE_IMPACT", "en", count=1, title="a", fields="Title"
    )
    assert "2 fields of" in translate(
        "NOTE_PREVIEW_UPDATE_IMPACT", "en", count=2, title="a", fields="x"
    )
    assert translate("TODO_RESULT_QUERY", "en", count=1) == "Found 1 todo:"
    assert translate("NOTE_RESULT_SEARCH", "en", count=3) == "Found 3 notes:"


@pytest.mark.parametrize("message", [None, "", "SOME_UNKNOWN_CODE", "  "])
def test_a_bare_or_missing_message_becomes_a_sentence(message: str | None) -> None:
    text = page_message("SOME_UNKNOWN_CODE", message, "en")

    assert text == translate("CHAT_PROBLEM_UNEXPLAINED", "en")
    assert "SOME_UNKNOWN_CODE" not in text


def test_a_real_message_is_kept() -> None:
    assert page_message("TODO_NOT_FOUND", "No such todo.", "en") == "No such todo."
    assert page_message("TODO_DUE_AT_INVALID", None, "en") == translate("TODO_DUE_AT_INVALID", "en")
    assert "TODO_DUE_AT_INVALID" not in translate("TODO_DUE_AT_INVALID", "en")


def test_notice_with_an_unknown_code_and_status_shows_words_and_keeps_the_code() -> None:
    view = notice_view({"status": "mystery", "code": "WEIRD_CODE", "message": "WEIRD_CODE"}, "en")

    assert view["code"] == "WEIRD_CODE"
    assert view["label"] == "No card"
    assert view["message"] == translate("CHAT_PROBLEM_UNEXPLAINED", "en")


def test_problem_fragment_keeps_the_code_as_data_only() -> None:
    fragment = problem(LightNoteError("UNREGISTERED_THING", status=500), locale="zh-CN")

    assert fragment.context["code"] == "UNREGISTERED_THING"
    assert "UNREGISTERED_THING" not in fragment.context["message"]


@pytest.mark.django_db
def test_history_failed_card_with_an_unregistered_code_reads_as_words(user: Any) -> None:
    client = Client()
    client.force_login(user)
    client.get("/")
    session_id = client.session[CONVERSATION_SESSION_KEY]
    client.post("/chat/message/", {"text": SEED, "session_id": session_id}, **HTMX)
    ActionCard.objects.update(
        state=ActionCard.State.SETTLED,
        outcome_kind=ActionCard.OutcomeKind.FAILED,
        error={"code": "SOMETHING_NEW"},
    )
    assert Message.objects.count() == 2

    html = client.get(f"/chat/{session_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert "Not done" in html
    assert translate("CHAT_PROBLEM_UNEXPLAINED", "en") in html
    assert ">SOMETHING_NEW<" not in html


# --- One home for page texts: the page-text tables, never a template's own if/else --------

_INLINE_CHOICE = re.compile(r"\{% if en == 'en' %\}(.*?)\{% else %\}(.*?)\{% endif %\}", re.S)
# What a template may still choose by language: attribute values, not words people read.
_NOT_TEXT = {("en", "zh-CN"), ("true", "false"), ("false", "true")}


def test_no_template_writes_its_own_bilingual_text() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    templates = [
        path
        for path in root.rglob("*.html")
        if "templates" in path.parts and ".venv" not in path.parts
    ]
    inline = [
        f"{path.relative_to(root)}: {english!r} / {chinese!r}"
        for path in templates
        for english, chinese in _INLINE_CHOICE.findall(path.read_text(encoding="utf-8"))
        if (english, chinese) not in _NOT_TEXT
    ]

    assert templates
    assert inline == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("cookie", "texts"),
    [
        ("en", ("Skip to the content", 'aria-label="Main"', ">Log out<", "MCP tokens:")),
        ("zh-hans", ("跳到正文", 'aria-label="主导航"', ">退出登录<", "MCP 令牌：")),
    ],
)
def test_the_base_page_texts_follow_the_page_language(
    user: Any, cookie: str, texts: tuple[str, ...]
) -> None:
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = cookie

    html = client.get("/settings/").content.decode()

    for text in texts:
        assert text in html
