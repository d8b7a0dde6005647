"""Issue 15 on the chat page: choice buttons, "Edit" on a ready card, "Undo" on a success.

Each is a plain form (no JavaScript needed) that htmx also posts; the answer is the ordinary
card, confirmed through the page's own confirm endpoint.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from agent.models import Choice
from lightnote.models import AuditEvent
from tests.test_chat_page import (
    HTMX,
    SEED,
    card_form,
    conversation_id,
    forms_posting_to,
    post_card,
    send,
)
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db


@pytest.fixture
def page(user: Any) -> Client:
    user.time_zone = "Asia/Shanghai"
    user.save()
    client = Client()
    client.force_login(user)
    return client


def confirm_html(client: Client, html: str) -> str:
    response = post_card(client, "/chat/confirm/", card_form(html))
    assert response.status_code == 200, response.content
    return response.content.decode()


def test_a_choice_renders_one_button_form_per_candidate_and_a_pick_issues_the_card(
    page: Client, user: Any
) -> None:
    keep = todo_services.todo_create(owner=user, title="提交周报", description="给老板")
    drop = todo_services.todo_create(owner=user, title="提交周报", description="团队内部")
    html = send(page, "删除待办「提交周报」").content.decode()
    picks = forms_posting_to(html, "/chat/choose/")
    assert len(picks) == 2
    assert {form.fields["candidate_id"] for form in picks} == {str(keep.id), str(drop.id)}
    for form in picks:
        assert form.attrs["method"] == "post"  # works without JavaScript
        assert form.attrs["action"] == "/chat/choose/"
        assert set(form.fields) >= {"token", "session_id", "candidate_id"}
    assert "团队内部" in html
    assert "给老板" in html
    [chosen] = [form for form in picks if form.fields["candidate_id"] == str(drop.id)]
    # Click 1: the pick answers the ordinary card (nothing deleted yet).
    card_html = post_card(page, "/chat/choose/", chosen).content.decode()
    assert Todo.objects.count() == 2
    # Click 2: confirm it.
    outcome = confirm_html(page, card_html)
    assert "outcome-succeeded" in outcome
    assert list(Todo.objects.values_list("id", flat=True)) == [keep.id]
    # A second pick of the used choice is refused, visibly.
    again = post_card(page, "/chat/choose/", picks[0])
    assert again.status_code == 410
    # History (a reload) shows the choice as picked, without buttons.
    reloaded = page.get("/").content.decode()
    assert forms_posting_to(reloaded, "/chat/choose/") == []
    assert "已选择" in reloaded
    assert Choice.objects.get().state == "chosen"


def test_a_ready_choice_after_a_reload_keeps_its_buttons_and_a_pick_issues_the_card(
    page: Client, user: Any
) -> None:
    keep = todo_services.todo_create(owner=user, title="提交周报", description="给老板")
    drop = todo_services.todo_create(owner=user, title="提交周报", description="团队内部")
    live = send(page, "删除待办「提交周报」").content.decode()
    # The page reloads: history holds no token, so each pick names the choice by its id.
    reloaded = page.get("/").content.decode()
    picks = forms_posting_to(reloaded, "/chat/choose/")
    assert {form.fields["candidate_id"] for form in picks} == {str(keep.id), str(drop.id)}
    choice = Choice.objects.get()
    for form in picks:
        assert form.attrs["method"] == "post"
        assert form.fields["card_id"] == str(choice.id)
        assert "token" not in form.fields
    [chosen] = [form for form in picks if form.fields["candidate_id"] == str(drop.id)]
    card_html = post_card(page, "/chat/choose/", chosen).content.decode()
    assert Todo.objects.count() == 2  # a pick never executes
    assert "outcome-succeeded" in confirm_html(page, card_html)
    assert list(Todo.objects.values_list("id", flat=True)) == [keep.id]
    # The choice is used: the other reloaded button and the first page's live one answer 410.
    assert post_card(page, "/chat/choose/", picks[0]).status_code == 410
    assert (
        post_card(page, "/chat/choose/", forms_posting_to(live, "/chat/choose/")[0]).status_code
        == 410
    )
    again = page.get("/").content.decode()
    assert forms_posting_to(again, "/chat/choose/") == []
    assert AuditEvent.objects.get(event_type="choice.chosen").details["via"] == "history"


def test_a_pick_naming_both_or_neither_of_token_and_card_id_is_refused(
    page: Client, user: Any
) -> None:
    for _ in range(2):
        todo_services.todo_create(owner=user, title="提交周报")
    html = send(page, "删除待办「提交周报」").content.decode()
    form = forms_posting_to(html, "/chat/choose/")[0]
    both = {**form.fields, "card_id": str(Choice.objects.get().id)}
    neither = {k: v for k, v in form.fields.items() if k != "token"}
    for fields in (both, neither):
        response = page.post("/chat/choose/", fields, **HTMX)
        assert response.status_code == 400
    assert Choice.objects.get().state == "ready"


def test_a_pick_without_javascript_answers_the_whole_page_with_the_card(
    page: Client, user: Any
) -> None:
    for _ in range(2):
        todo_services.todo_create(owner=user, title="提交周报")
    html = send(page, "删除待办「提交周报」").content.decode()
    first = forms_posting_to(html, "/chat/choose/")[0]
    response = page.post("/chat/choose/", first.fields)  # no HX-Request header
    assert response.status_code == 200
    body = response.content.decode()
    assert "<html" in body
    confirms = [
        form for form in forms_posting_to(body, "/chat/confirm/") if form.fields.get("token")
    ]
    assert len(confirms) == 1


def test_edit_on_a_ready_card_issues_the_edited_card_and_voids_the_original(
    page: Client, user: Any
) -> None:
    html = send(page, SEED).content.decode()
    original = card_form(html)
    [edit] = forms_posting_to(html, "/chat/edit/")
    assert edit.attrs["method"] == "post"
    assert edit.fields["token"] == original.fields["token"]
    for name in ("title", "priority", "due_at", "description"):
        assert f'name="{name}"' in html
    fields = {**edit.fields, "title": "提交月报", "priority": "0", "due_at": "明天下午3点"}
    response = page.post("/chat/edit/", fields, **HTMX)
    assert response.status_code == 200, response.content
    edited = response.content.decode()
    assert "提交月报" in edited
    assert card_form(edited).fields["token"] != original.fields["token"]
    stale = post_card(page, "/chat/confirm/", original)
    assert stale.status_code == 410
    assert "outcome-succeeded" in confirm_html(page, edited)
    [todo] = Todo.objects.all()
    assert (todo.title, todo.priority) == ("提交月报", 0)
    # The audit names what was changed, not every field the form showed.
    edited_event = AuditEvent.objects.get(event_type="card.edited")
    assert edited_event.details["fields"] == ["due_at", "priority", "title"]
    assert todo.due_at is not None
    assert todo.due_at.hour in (7, 15)


def test_a_bad_edit_keeps_the_card_and_says_why(page: Client) -> None:
    html = send(page, SEED).content.decode()
    [edit] = forms_posting_to(html, "/chat/edit/")
    response = page.post("/chat/edit/", {**edit.fields, "due_at": "找个时间"}, **HTMX)
    assert response.status_code == 400
    assert response["HX-Retarget"] == "next .card-problem"
    assert "TODO_DUE_AT_INVALID" in response.content.decode()


def test_undo_on_a_succeeded_outcome_issues_the_compensating_card(page: Client) -> None:
    html = send(page, SEED).content.decode()
    outcome = confirm_html(page, html)
    [undo] = forms_posting_to(outcome, "/chat/undo/")
    assert undo.attrs["method"] == "post"
    assert undo.fields["session_id"] == conversation_id(page)
    todo = Todo.objects.get()
    response = page.post("/chat/undo/", undo.fields, **HTMX)
    assert response.status_code == 200, response.content
    undo_card = response.content.decode()
    assert Todo.objects.count() == 1  # an undo card never runs by itself
    assert "outcome-succeeded" in confirm_html(page, undo_card)
    assert not Todo.objects.exists()
    assert Todo.all_objects.get(id=todo.id).deleted_at is not None
    # History: the created card was undone, so it offers no undo (nor does the undo card);
    # the outcome's form, sent again, is told so.
    reloaded = page.get("/").content.decode()
    assert forms_posting_to(reloaded, "/chat/undo/") == []
    refused = page.post("/chat/undo/", undo.fields, **HTMX)
    assert refused.status_code == 409
    assert "UNDO_ALREADY_DONE" in refused.content.decode()


def test_an_undo_that_ran_names_the_card_it_took_back_and_links_to_the_trash(
    page: Client,
) -> None:
    html = send(page, SEED).content.decode()
    outcome = confirm_html(page, html)
    [undo] = forms_posting_to(outcome, "/chat/undo/")
    created_card = undo.fields["card_id"]
    assert f'data-undo-of="{created_card}"' in outcome
    todo = Todo.objects.get()
    assert f'href="/todos/{todo.id}/"' in outcome
    undo_card = page.post("/chat/undo/", undo.fields, **HTMX).content.decode()
    undone = confirm_html(page, undo_card)
    assert "outcome-succeeded" in undone
    # The page stops offering the first card's undo (app.js reads data-undid), and the undo
    # card offers none of its own: what the history shows after a reload.
    assert f'data-undid="{created_card}"' in undone
    assert forms_posting_to(undone, "/chat/undo/") == []
    # The deleted todo's own page answers 404 now: the link goes to the trash, which lists it.
    assert f'href="/todos/{todo.id}/"' not in undone
    assert 'href="/todos/trash/">在回收站中查看</a>' in undone
    assert page.get(f"/todos/{todo.id}/").status_code == 404
    assert todo.title in page.get("/todos/trash/").content.decode()
    reloaded = page.get("/").content.decode()
    # The created card's link follows the todo too: its undo put it in the trash, so the
    # history links both cards there, none to the page that answers 404.
    assert reloaded.count('href="/todos/trash/">在回收站中查看</a>') == 2
    assert f'href="/todos/{todo.id}/"' not in reloaded


def test_a_deletion_taken_back_links_to_the_item_again_in_the_history(
    page: Client, user: Any
) -> None:
    todo = todo_services.todo_create(owner=user, title="整理发票")
    deleted = confirm_html(page, send(page, "删除待办「整理发票」").content.decode())
    assert 'href="/todos/trash/">在回收站中查看</a>' in deleted
    [undo] = forms_posting_to(deleted, "/chat/undo/")
    restored = confirm_html(page, page.post("/chat/undo/", undo.fields, **HTMX).content.decode())
    assert f'href="/todos/{todo.id}/">打开</a>' in restored
    reloaded = page.get("/").content.decode()
    # Both cards now point at the todo, which is back; none at the trash.
    assert reloaded.count(f'href="/todos/{todo.id}/">打开</a>') == 2
    assert "/todos/trash/" not in reloaded


def test_undo_is_not_offered_after_the_window(page: Client, settings: Any) -> None:
    settings.LIGHTNOTE_UNDO_WINDOW = 0
    html = send(page, SEED).content.decode()
    outcome = confirm_html(page, html)
    assert forms_posting_to(outcome, "/chat/undo/") == []


def test_an_edit_of_one_field_changes_only_that_field(page: Client) -> None:
    html = send(page, SEED).content.decode()
    [edit] = forms_posting_to(html, "/chat/edit/")
    assert edit.fields["was_title"] == "提交周报"
    # The browser posts every input as shown; only the title was changed.
    shown = {name[4:]: value for name, value in edit.fields.items() if name.startswith("was_")}
    response = page.post("/chat/edit/", {**edit.fields, **shown, "title": "提交月报"}, **HTMX)
    assert response.status_code == 200, response.content
    assert AuditEvent.objects.get(event_type="card.edited").details["fields"] == ["title"]


def test_a_correction_said_in_the_chat_replaces_the_card_on_the_page(page: Client) -> None:
    html = send(page, "帮我加个待办：明天上午10点开会").content.decode()
    original = card_form(html)
    corrected = send(page, "不对，改成下午5点").content.decode()
    new = card_form(corrected)
    assert new.fields["token"] != original.fields["token"]
    # The old card is swapped out of band, in its real state: voided, no buttons.
    old_id = str(AuditEvent.objects.get(event_type="card.edited").details["parent_id"])
    assert f"hx-swap-oob=\"outerHTML:[data-card-id='{old_id}']\"" in corrected
    oob = corrected[corrected.index("hx-swap-oob") :]
    assert "card-voided" in corrected
    assert "/chat/confirm/" not in oob[: oob.index("</article>")]
    assert post_card(page, "/chat/confirm/", original).status_code == 410
    assert "outcome-succeeded" in confirm_html(page, corrected)
    [todo] = Todo.objects.all()
    assert (todo.title, todo.due_at.hour if todo.due_at else None) in (("开会", 9), ("开会", 17))
