"""Conversations in the chat page: /chat/<session_id>/, the list, switch, rename, delete.

The page uses the same services as the API's sessions endpoints (agent/sessions.py); these
tests check what the page adds: the list (newest first, titled from the first message), the
no-JS forms and their redirects, the htmx fragments, and 404 for anything not the user's.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from agent.conversation import sessions
from agent.models import ActionCard, AgentSession
from agent.web.conversations import CONVERSATION_SESSION_KEY
from agent.web.htmx import FRAGMENT_HEADER
from tests.test_chat_page import HTMX, SEED, card_form, read_html

pytestmark = pytest.mark.django_db


@pytest.fixture
def page(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def say(client: Client, session_id: Any, text: str) -> Any:
    return client.post("/chat/message/", {"text": text, "session_id": str(session_id)}, **HTMX)


def list_titles(html: str) -> list[str]:
    return re.findall(r'class="conversation-link" href="[^"]+"[^>]*>([^<]*)</a>', html)


def test_chat_index_opens_a_new_conversation_then_the_newest(page: Client, user: Any) -> None:
    first = page.get("/chat/")
    (opened,) = AgentSession.objects.filter(owner=user)
    older = sessions.session_create(owner=user)
    say(page, opened.id, "列出我的待办")  # the latest activity: newest in the list

    again = page.get("/chat/")

    assert first.status_code == 302
    assert first["Location"] == f"/chat/{opened.id}/"
    assert again["Location"] == f"/chat/{opened.id}/"
    assert older.id != opened.id


def test_list_is_newest_first_titled_from_the_first_message_and_marks_the_current(
    page: Client, user: Any
) -> None:
    one = sessions.session_create(owner=user)
    two = sessions.session_create(owner=user)
    say(page, one.id, "列出我的待办")
    say(page, two.id, "show my notes")
    say(page, two.id, "show my todos")

    html = page.get(f"/chat/{one.id}/").content.decode()

    assert list_titles(html) == ["show my notes", "列出我的待办"]
    assert f'href="/chat/{one.id}/" aria-current="page"' in html
    assert page.session[CONVERSATION_SESSION_KEY] == str(one.id)
    (composer,) = [f for f in read_html(html).forms if f.attrs.get("id") == "composer"]
    assert composer.fields["session_id"] == str(one.id)
    assert "列出我的待办" in html


def test_switching_keeps_the_old_conversation_reachable_after_new(page: Client, user: Any) -> None:
    page.get("/chat/")
    old = page.session[CONVERSATION_SESSION_KEY]
    say(page, old, "列出我的待办")

    new = page.post("/chat/new/")
    html = page.get(new["Location"]).content.decode()

    assert new.status_code == 302
    assert new["Location"] != f"/chat/{old}/"
    assert new["Location"].startswith("/chat/")
    assert f'href="/chat/{old}/"' in html
    back = page.get(f"/chat/{old}/").content.decode()
    assert "列出我的待办" in back
    assert page.session[CONVERSATION_SESSION_KEY] == old


def test_another_users_or_a_deleted_or_unknown_conversation_is_404(
    page: Client, other_user: Any, user: Any
) -> None:
    theirs = sessions.session_create(owner=other_user)
    mine = sessions.session_create(owner=user)
    page.post(f"/chat/{mine.id}/delete/")

    assert page.get(f"/chat/{theirs.id}/").status_code == 404
    assert page.get(f"/chat/{mine.id}/").status_code == 404
    assert page.get("/chat/00000000-0000-0000-0000-000000000000/").status_code == 404
    assert page.post(f"/chat/{theirs.id}/rename/", {"title": "x"}).status_code == 404
    assert page.post(f"/chat/{theirs.id}/delete/").status_code == 404
    theirs.refresh_from_db()
    assert theirs.title == ""
    assert theirs.deleted_at is None


def test_rename_without_js_redirects_and_with_htmx_answers_the_list(
    page: Client, user: Any
) -> None:
    shown = sessions.session_create(owner=user)
    page.get(f"/chat/{shown.id}/")

    plain = page.post(f"/chat/{shown.id}/rename/", {"title": "  周报  计划 "})
    fragment = page.post(f"/chat/{shown.id}/rename/", {"title": "Weekly plan"}, **HTMX)

    assert plain.status_code == 302
    assert plain["Location"] == f"/chat/{shown.id}/"
    assert fragment.status_code == 200
    assert fragment[FRAGMENT_HEADER] == "1"
    body = fragment.content.decode()
    assert "<html" not in body
    assert list_titles(body) == ["Weekly plan"]
    assert "对话已重命名。" in body
    shown.refresh_from_db()
    assert shown.title == "Weekly plan"


def test_blank_rename_is_a_friendly_400_with_the_code_as_data(page: Client, user: Any) -> None:
    shown = sessions.session_create(owner=user)
    page.get(f"/chat/{shown.id}/")

    plain = page.post(f"/chat/{shown.id}/rename/", {"title": "   "})
    fragment = page.post(f"/chat/{shown.id}/rename/", {"title": ""}, **HTMX)

    assert plain.status_code == 400
    assert "<html" in plain.content.decode()
    assert "请填写对话标题。" in plain.content.decode()
    assert fragment.status_code == 400
    assert 'data-code="SESSION_TITLE_REQUIRED"' in fragment.content.decode()
    assert ">SESSION_TITLE_REQUIRED<" not in fragment.content.decode()


def test_delete_shown_goes_to_the_newest_left_and_voids_its_ready_card(
    page: Client, user: Any
) -> None:
    kept = sessions.session_create(owner=user)
    say(page, kept.id, "列出我的待办")
    page.get("/chat/")
    shown = sessions.session_create(owner=user)
    page.get(f"/chat/{shown.id}/")
    card_html = say(page, shown.id, SEED).content.decode()
    assert card_form(card_html)

    deleted = page.post(f"/chat/{shown.id}/delete/", {"shown": str(shown.id)})

    assert deleted.status_code == 302
    assert deleted["Location"] == "/chat/"
    assert page.get("/chat/")["Location"] == f"/chat/{kept.id}/"
    shown.refresh_from_db()
    assert shown.deleted_at is not None
    assert list(ActionCard.objects.filter(session=shown).values_list("state", flat=True)) == [
        ActionCard.State.VOIDED
    ]
    assert f'href="/chat/{shown.id}/"' not in page.get(f"/chat/{kept.id}/").content.decode()


def test_htmx_delete_of_another_conversation_answers_the_list_and_of_the_shown_redirects(
    page: Client, user: Any
) -> None:
    other = sessions.session_create(owner=user)
    shown = sessions.session_create(owner=user)
    page.get(f"/chat/{shown.id}/")

    listed = page.post(f"/chat/{other.id}/delete/", {"shown": str(shown.id)}, **HTMX)
    gone = page.post(f"/chat/{shown.id}/delete/", {"shown": str(shown.id)}, **HTMX)

    assert listed.status_code == 200
    assert f'href="/chat/{other.id}/"' not in listed.content.decode()
    assert f'href="/chat/{shown.id}/"' in listed.content.decode()
    assert gone.status_code == 204
    assert gone["HX-Redirect"] == "/chat/"
    assert AgentSession.objects.live().filter(owner=user).count() == 0
    assert page.get("/chat/").status_code == 302
    assert AgentSession.objects.live().filter(owner=user).count() == 1


def test_conversation_forms_opened_by_get_go_back_to_the_chat(page: Client, user: Any) -> None:
    shown = sessions.session_create(owner=user)

    for action in ("rename", "delete"):
        response = page.get(f"/chat/{shown.id}/{action}/")
        assert response.status_code == 302
        assert response["Location"] == "/chat/"
    shown.refresh_from_db()
    assert shown.deleted_at is None


def test_english_page_lists_in_english(page: Client, user: Any) -> None:
    shown = sessions.session_create(owner=user)

    html = page.get(f"/chat/{shown.id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert ">Conversations</h2>" in html
    assert "Untitled conversation" in html
    assert "Delete this conversation" in html


def test_admin_read_only_context_lists_the_subjects_conversations_and_refuses_changes(
    make_user: Any, user: Any
) -> None:
    from lightnote.impersonation.context import ADMIN_CONTEXT_SESSION_KEY
    from lightnote.impersonation.contexts import admin_context_start

    theirs = sessions.session_create(owner=user)
    sessions.session_rename(session=theirs, title="Alice's plans")
    staff = make_user("staffer", is_staff=True, is_superuser=True)
    context = admin_context_start(staff=staff, subject_id=user.pk)
    client = Client()
    client.force_login(staff)
    session = client.session
    session[ADMIN_CONTEXT_SESSION_KEY] = str(context.id)
    session.save()

    html = client.get(f"/chat/{theirs.id}/").content.decode()
    renamed = client.post(f"/chat/{theirs.id}/rename/", {"title": "x"}, **HTMX)
    deleted = client.post(f"/chat/{theirs.id}/delete/", {"shown": str(theirs.id)}, **HTMX)

    assert "Alice&#x27;s plans" in html
    assert renamed.status_code == 403
    assert 'data-code="ADMIN_READONLY"' in renamed.content.decode()
    assert deleted.status_code == 403
    theirs.refresh_from_db()
    assert theirs.title == "Alice's plans"
    assert theirs.deleted_at is None


def test_an_htmx_turn_carries_the_conversations_new_title_out_of_band(
    page: Client, user: Any
) -> None:
    shown = sessions.session_create(owner=user)
    page.get(f"/chat/{shown.id}/")

    turn = say(page, shown.id, "列出我的待办").content.decode()
    plain = page.post(
        "/chat/message/", {"text": "列出我的笔记", "session_id": str(shown.id)}
    ).content.decode()

    assert f'<li id="conversation-{shown.id}"' in turn
    assert 'hx-swap-oob="true"' in turn
    assert list_titles(turn) == ["列出我的待办"]
    assert "hx-swap-oob" not in plain  # the whole page has the list itself
    assert plain.count(f'id="conversation-{shown.id}"') == 1


def test_without_js_a_refused_message_keeps_its_text_in_the_box(page: Client, user: Any) -> None:
    from agent.models import MESSAGE_MAX

    shown = sessions.session_create(owner=user)
    too_long = "<b>x</b>" * (MESSAGE_MAX // 8 + 1)

    response = page.post("/chat/message/", {"text": too_long, "session_id": str(shown.id)})

    html = response.content.decode()
    assert response.status_code == 400
    assert "消息太长" in html
    textarea = re.search(r'<textarea id="chat-text"[^>]*>([^<]*)</textarea>', html)
    assert textarea is not None
    assert textarea.group(1) == too_long.replace("<", "&lt;").replace(">", "&gt;")


# --- a long list: 50 at a time, every conversation reachable ---------------------------------


def older_link(html: str) -> str | None:
    found = re.search(r'class="conversations-older" href="\?older=([^"]+)"', html)
    return found.group(1) if found else None


def test_a_list_longer_than_a_page_reaches_every_conversation_once_50_at_a_time(
    page: Client, user: Any
) -> None:
    AgentSession.objects.bulk_create(
        AgentSession(owner=user, title=f"对话 {number:03d}") for number in range(120)
    )
    expected = list(sessions.session_list(owner=user).values_list("title", flat=True))
    shown = sessions.session_list(owner=user).first()
    html = page.get(f"/chat/{shown.id}/").content.decode()
    seen = list_titles(html)
    assert len(seen) == 50
    assert '<span class="count">50+</span>' in html
    cursor = older_link(html)
    pages = 1
    while cursor is not None:
        more = page.get(f"/chat/conversations/older/?cursor={cursor}", **HTMX)
        assert more.status_code == 200
        assert more[FRAGMENT_HEADER] == "1"
        fragment = more.content.decode()
        seen += list_titles(fragment)
        cursor = older_link(fragment)
        pages += 1
    assert seen == expected  # newest first, each exactly once
    assert pages == 3


def test_without_js_the_older_link_shows_the_list_from_there_with_a_way_back(
    page: Client, user: Any
) -> None:
    AgentSession.objects.bulk_create(
        AgentSession(owner=user, title=f"对话 {number:03d}") for number in range(60)
    )
    expected = list(sessions.session_list(owner=user).values_list("title", flat=True))
    shown = sessions.session_list(owner=user).first()
    first = page.get(f"/chat/{shown.id}/").content.decode()  # opens it: the one on screen
    cursor = older_link(first)
    assert cursor
    # The link without htmx goes to the page of the conversation on screen, from there.
    followed = page.get(f"/chat/conversations/older/?cursor={cursor}")
    assert followed.status_code == 302
    assert followed["Location"] == f"/chat/{shown.id}/?older={cursor}"
    older_page = page.get(followed["Location"]).content.decode()
    assert list_titles(older_page) == expected[50:]
    assert older_link(older_page) is None
    assert 'class="conversations-newest" href="?"' in older_page
    # A cursor that is not one shows the newest again (the page), or a 400 (the fragment).
    assert (
        list_titles(page.get(f"/chat/{shown.id}/?older=nonsense").content.decode())
        == (expected[:50])
    )
    broken = page.get("/chat/conversations/older/?cursor=nonsense", **HTMX)
    assert broken.status_code == 400
