"""Accounts: sign-up, email verification, password reset (pages and API), the per-user caps,
export and deletion, and the demo logins of ``make run``."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest
from django.core import mail
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from agent.conversation.sessions import session_create
from lightnote.accounts.email_verification import is_verified, may_mail
from lightnote.errors import LightNoteError
from lightnote.models import AuditEvent, User
from lightnote.settings import email_from_url
from mcpserver.tokens import mcp_token_create
from notes import services as note_services
from notes.models import Note
from tests.agent_helpers import ratelimit_store_down
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

STRONG = "tulip-harbor-9431"


def link_in(message: Any) -> str:
    (link,) = re.findall(r"https?://\S+", message.body)
    return link.split("testserver", 1)[1] if "testserver" in link else link


def signup(client: Client, **fields: str) -> Any:
    body = {"username": "carol", "email": "carol@example.com", "password": STRONG, **fields}
    return client.post("/accounts/signup/", body)


# --- Sign-up and verification (pages) ------------------------------------------------------


def test_signup_creates_the_account_and_mails_a_link_that_verifies_the_address(
    client: Client,
) -> None:
    response = signup(client)

    user = User.objects.get(username="carol")
    assert response.status_code == 200
    assert "carol@example.com" in response.content.decode()
    assert user.check_password(STRONG)
    assert not is_verified(user)
    (message,) = mail.outbox
    assert message.to == ["carol@example.com"]
    verified = client.get(link_in(message))
    assert verified.status_code == 200
    assert is_verified(user)
    assert may_mail(user)


def test_a_verification_link_for_an_address_changed_since_proves_nothing(client: Client) -> None:
    signup(client)
    user = User.objects.get(username="carol")
    User.objects.filter(pk=user.pk).update(email="other@example.com")

    response = client.get(link_in(mail.outbox[0]))

    assert response.status_code == 400
    assert not is_verified(User.objects.get(pk=user.pk))


def test_a_tampered_verification_link_is_refused(client: Client) -> None:
    response = client.get("/accounts/verify/not-a-signed-token/")

    assert response.status_code == 400
    assert "验证链接无效" in response.content.decode()


def test_signup_refuses_a_taken_name_and_a_weak_password_per_field_in_english(
    client: Client, make_user: Any
) -> None:
    make_user("Carol")
    response = client.post(
        "/accounts/signup/",
        {"username": "carol", "email": "not-an-address", "password": "12345678"},
        HTTP_ACCEPT_LANGUAGE="en",
    )

    html = response.content.decode()
    assert response.status_code == 400
    assert "This username is taken." in html
    assert "Enter a valid email address." in html
    assert "This password is too common." in html
    assert User.objects.filter(username__iexact="carol").count() == 1
    assert mail.outbox == []


def test_signup_page_speaks_chinese_to_a_chinese_browser(client: Client) -> None:
    response = client.post(
        "/accounts/signup/",
        {"username": "dan", "email": "dan@example.com", "password": "12345678"},
        HTTP_ACCEPT_LANGUAGE="zh-CN",
    )

    html = response.content.decode()
    assert "注册 LightNote" in html
    assert "这个密码太常见了" in html


def test_a_closed_signup_shows_so_and_creates_nothing(client: Client, settings: Any) -> None:
    settings.LIGHTNOTE_SIGNUP = "closed"

    response = signup(client)

    assert response.status_code == 403
    assert "暂不开放注册" in response.content.decode()
    assert not User.objects.filter(username="carol").exists()


def test_signups_from_one_address_are_rate_limited(client: Client, settings: Any) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_SIGNUPS = "2/h"
    first = signup(client, username="one")
    second = signup(client, username="two")
    third = signup(client, username="three")

    assert (first.status_code, second.status_code, third.status_code) == (200, 200, 429)
    assert not User.objects.filter(username="three").exists()
    [refusal] = AuditEvent.objects.filter(event_type="rate.limited")
    assert refusal.details["group"] == "accounts.signup"
    assert refusal.actor is None  # nobody is signed in yet
    # Another address has its own window.
    other = Client(REMOTE_ADDR="203.0.113.9")
    assert signup(other, username="four").status_code == 200


def test_a_signup_with_the_limiters_store_down_is_503_and_creates_nothing() -> None:
    with ratelimit_store_down():
        response = APIClient().post(
            "/api/v1/auth/register/",
            {"username": "hank", "email": "hank@example.com", "password": STRONG},
            format="json",
        )

    assert response.status_code == 503
    assert response.json()["error"]["code"] == "ACCOUNT_LIMITER_UNAVAILABLE"
    assert not User.objects.filter(username="hank").exists()


def test_the_login_page_links_to_signup_and_password_reset(client: Client) -> None:
    html = client.get("/accounts/login/").content.decode()

    assert 'href="/accounts/signup/"' in html
    assert 'href="/accounts/password_reset/"' in html


# --- Password reset (page) -----------------------------------------------------------------


def test_password_reset_mails_a_link_that_sets_a_new_password(
    client: Client, make_user: Any
) -> None:
    user = make_user("erin", email="erin@example.com")

    asked = client.post("/accounts/password_reset/", {"email": "erin@example.com"})
    (message,) = mail.outbox
    form_page = client.get(link_in(message), follow=True)
    saved = client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": STRONG, "new_password2": STRONG},
    )

    assert asked.status_code == 302
    assert asked["Location"] == "/accounts/password_reset/done/"
    assert "erin" in message.body
    assert "LightNote" in message.subject
    assert "设置新密码" in form_page.content.decode()
    assert saved.status_code == 302
    assert saved["Location"] == "/accounts/reset/done/"
    user.refresh_from_db()
    assert user.check_password(STRONG)


def test_password_reset_for_an_unknown_address_answers_the_same_and_sends_nothing(
    client: Client,
) -> None:
    response = client.post("/accounts/password_reset/", {"email": "nobody@example.com"})

    assert response.status_code == 302
    assert response["Location"] == "/accounts/password_reset/done/"
    assert mail.outbox == []


def test_the_reset_mail_is_in_english_for_an_english_request(
    client: Client, make_user: Any
) -> None:
    make_user("frank", email="frank@example.com")

    client.post(
        "/accounts/password_reset/", {"email": "frank@example.com"}, HTTP_ACCEPT_LANGUAGE="en"
    )

    (message,) = mail.outbox
    assert message.subject == "Reset your LightNote password"
    assert "Open this link to set a new password" in message.body


# --- The API -------------------------------------------------------------------------------


def test_register_api_creates_the_account_and_mails_the_verification_link() -> None:
    response = APIClient().post(
        "/api/v1/auth/register/",
        {"username": "gina", "email": "gina@example.com", "password": STRONG},
        format="json",
    )

    user = User.objects.get(username="gina")
    assert response.status_code == 201
    assert response.json() == {"id": user.pk, "username": "gina"}
    assert [message.to for message in mail.outbox] == [["gina@example.com"]]


def test_register_api_reports_a_taken_name_and_a_weak_password_in_fields(
    make_user: Any,
) -> None:
    make_user("gina")
    response = APIClient().post(
        "/api/v1/auth/register/",
        {"username": "gina", "email": "gina@example.com", "password": "password"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    )

    error = response.json()["error"]
    assert response.status_code == 400
    assert error["code"] == "VALIDATION_ERROR"
    assert error["fields"]["username"] == ["This username is taken."]
    assert "This password is too common." in error["fields"]["password"]


def test_register_api_is_refused_when_signup_is_closed(settings: Any) -> None:
    settings.LIGHTNOTE_SIGNUP = "closed"

    response = APIClient().post(
        "/api/v1/auth/register/",
        {"username": "hal", "email": "hal@example.com", "password": STRONG},
        format="json",
    )

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "SIGNUP_CLOSED"
    assert not User.objects.filter(username="hal").exists()


def test_password_reset_api_answers_202_whether_or_not_the_address_exists(
    make_user: Any,
) -> None:
    make_user("ivy", email="ivy@example.com")
    api = APIClient()

    known = api.post("/api/v1/auth/password-reset/", {"email": "ivy@example.com"}, format="json")
    unknown = api.post("/api/v1/auth/password-reset/", {"email": "no@example.com"}, format="json")
    malformed = api.post("/api/v1/auth/password-reset/", {"email": "nope"}, format="json")

    assert (known.status_code, unknown.status_code) == (202, 202)
    assert malformed.status_code == 400
    (message,) = mail.outbox
    assert message.to == ["ivy@example.com"]
    assert "/accounts/reset/" in message.body


def test_password_reset_api_is_rate_limited_per_address(settings: Any) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_PASSWORD_RESETS = "1/h"
    api = APIClient()

    first = api.post("/api/v1/auth/password-reset/", {"email": "a@example.com"}, format="json")
    second = api.post("/api/v1/auth/password-reset/", {"email": "a@example.com"}, format="json")

    assert first.status_code == 202
    assert second.status_code == 429
    assert second.json()["error"]["code"] == "RATE_LIMITED"
    assert "Retry-After" in second


# --- Caps ----------------------------------------------------------------------------------


def test_the_todo_cap_refuses_the_next_create_with_its_code(user: Any, settings: Any) -> None:
    settings.LIGHTNOTE_MAX_TODOS = 2
    todo_services.todo_create(owner=user, title="one")
    todo_services.todo_create(owner=user, title="two")

    with pytest.raises(LightNoteError) as refused:
        todo_services.todo_create(owner=user, title="three")

    assert (refused.value.code, refused.value.status) == ("TODO_LIMIT_REACHED", 403)
    assert "2 todos" in refused.value.message("en")
    assert Todo.objects.filter(owner=user).count() == 2


def test_a_deleted_todo_makes_room_under_the_cap(user: Any, settings: Any) -> None:
    settings.LIGHTNOTE_MAX_TODOS = 1
    first = todo_services.todo_create(owner=user, title="one")
    todo_services.todo_delete(owner=user, todo_id=first.id, expected_version=first.version)

    todo_services.todo_create(owner=user, title="two")

    assert Todo.objects.filter(owner=user).count() == 1


def test_the_note_conversation_and_token_caps_refuse_with_their_codes(
    user: Any, settings: Any
) -> None:
    settings.LIGHTNOTE_MAX_NOTES = 1
    settings.LIGHTNOTE_MAX_CONVERSATIONS = 1
    settings.LIGHTNOTE_MAX_MCP_TOKENS = 1
    note_services.note_create(owner=user, title="n")
    session_create(owner=user)
    mcp_token_create(owner=user, name="laptop")
    attempts = {
        "NOTE_LIMIT_REACHED": lambda: note_services.note_create(owner=user, title="m"),
        "CONVERSATION_LIMIT_REACHED": lambda: session_create(owner=user),
        "MCP_TOKEN_LIMIT_REACHED": lambda: mcp_token_create(owner=user, name="phone"),
    }

    codes = []
    for attempt in attempts.values():
        with pytest.raises(LightNoteError) as refused:
            attempt()
        codes.append(refused.value.code)

    assert codes == list(attempts)
    assert Note.objects.filter(owner=user).count() == 1


def test_the_api_answers_the_cap_with_its_code(alice_api: Any, settings: Any) -> None:
    settings.LIGHTNOTE_MAX_TODOS = 1
    alice_api.post("/api/v1/todos/", {"title": "one"}, format="json")

    response = alice_api.post("/api/v1/todos/", {"title": "two"}, format="json")

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "TODO_LIMIT_REACHED"


def test_a_new_browser_at_the_conversation_cap_opens_the_newest_conversation(
    user: Any, settings: Any
) -> None:
    settings.LIGHTNOTE_MAX_CONVERSATIONS = 1
    newest = session_create(owner=user)
    client = Client()
    client.force_login(user)

    response = client.get("/")

    assert response.status_code == 200
    assert str(newest.id) in response.content.decode()


# --- Export and deletion -------------------------------------------------------------------


def test_export_downloads_the_users_todos_notes_and_conversations(
    user: Any, other_user: Any
) -> None:
    todo_services.todo_create(owner=user, title="mine")
    todo_services.todo_create(owner=other_user, title="theirs")
    note_services.note_create(owner=user, title="a note", content="# hi")
    client = Client()
    client.force_login(user)
    client.get("/")  # opens a conversation

    response = client.get("/accounts/export/")

    data = json.loads(response.content)
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    assert [todo["title"] for todo in data["todos"]] == ["mine"]
    assert [note["content"] for note in data["notes"]] == ["# hi"]
    assert len(data["conversations"]) == 1
    assert data["user"]["username"] == user.username


def test_deleting_the_account_needs_its_password_and_removes_its_data(user: Any) -> None:
    todo_services.todo_create(owner=user, title="mine")
    client = Client()
    client.force_login(user)

    wrong = client.post("/accounts/delete/", {"password": "not-it"}, follow=True)
    assert User.objects.filter(pk=user.pk).exists()
    assert "密码不正确" in wrong.content.decode()

    right = client.post("/accounts/delete/", {"password": "pw-alice"})

    assert right.status_code == 302
    assert right["Location"] == "/accounts/login/"
    assert not User.objects.filter(pk=user.pk).exists()
    assert not Todo.all_objects.filter(owner_id=user.pk).exists()


def test_the_settings_page_shows_the_address_export_and_delete(user: Any) -> None:
    User.objects.filter(pk=user.pk).update(email="alice@example.com")
    client = Client()
    client.force_login(user)

    html = client.get("/settings/").content.decode()

    assert "alice@example.com" in html
    assert "未验证" in html
    assert 'href="/accounts/export/"' in html
    assert 'action="/accounts/delete/"' in html
    assert 'action="/accounts/verify/send/"' in html


# --- Settings and make run -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("console:", {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}),
        (
            "file:///tmp/mail",
            {
                "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
                "EMAIL_FILE_PATH": "/tmp/mail",
            },
        ),
        (
            "smtp://me%40x.org:s3cr%2Ft@mail.example.com:587?starttls=1",
            {
                "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
                "EMAIL_HOST": "mail.example.com",
                "EMAIL_PORT": 587,
                "EMAIL_HOST_USER": "me@x.org",
                "EMAIL_HOST_PASSWORD": "s3cr/t",
                "EMAIL_USE_SSL": False,
                "EMAIL_USE_TLS": True,
            },
        ),
    ],
)
def test_the_email_url_is_read_into_djangos_settings(url: str, expected: dict[str, Any]) -> None:
    assert email_from_url(url) == expected


def test_an_unknown_email_url_is_refused() -> None:
    from django.core.exceptions import ImproperlyConfigured

    with pytest.raises(ImproperlyConfigured):
        email_from_url("pigeon://coop")


def test_ensure_demo_user_creates_missing_logins_and_never_resets_a_password() -> None:
    call_command("ensure_demo_user", stdout=io.StringIO())
    demo = User.objects.get(username="demo")
    demo.set_password(STRONG)
    demo.save()

    call_command("ensure_demo_user", stdout=io.StringIO())

    demo.refresh_from_db()
    assert demo.check_password(STRONG)
    assert User.objects.get(username="admin").is_staff


def test_deleting_an_account_with_a_confirmed_card_removes_the_card_and_its_receipt(
    user: Any,
) -> None:
    from agent.models import ActionCard, ActionReceipt
    from tests.test_chat_page import card_form, post_card, send

    client = Client()
    client.force_login(user)
    post_card(client, "/chat/confirm/", card_form(send(client).content.decode()))
    assert ActionReceipt.objects.filter(owner=user).exists()

    response = client.post("/accounts/delete/", {"password": "pw-alice"})

    assert response.status_code == 302
    assert not ActionCard.objects.filter(owner_id=user.pk).exists()
    assert not ActionReceipt.objects.filter(owner_id=user.pk).exists()


@pytest.mark.parametrize(
    ("setting", "fill", "text", "capability", "code"),
    [
        (
            "LIGHTNOTE_MAX_TODOS",
            lambda user: todo_services.todo_create(owner=user, title="rent"),
            "帮我创建待办交房租",
            "todo.create",
            "TODO_LIMIT_REACHED",
        ),
        (
            "LIGHTNOTE_MAX_NOTES",
            lambda user: note_services.note_create(owner=user, title="plans"),
            "记一条笔记：周会要点 — 讨论了预算和招聘",
            "note.create",
            "NOTE_LIMIT_REACHED",
        ),
    ],
)
def test_asking_the_agent_to_create_at_the_cap_is_refused_at_once_with_no_card(
    alice_api: Any,
    user: Any,
    settings: Any,
    setting: str,
    fill: Any,
    text: str,
    capability: str,
    code: str,
) -> None:
    from lightnote.texts.i18n import translate
    from tests.agent_helpers import card_keys
    from tests.test_conversation_api import new_session, say

    setattr(settings, setting, 1)
    fill(user)
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, text)

    assert body["cards"] == []
    [notice] = body["notices"]
    assert (notice["capability"], notice["status"], notice["code"]) == (
        capability,
        "rejected",
        code,
    )
    assert notice["message"] == translate(code, "zh-CN", limit=1)
    assert notice["message"] in body["reply"]
    assert card_keys() == []
    assert AuditEvent.objects.get(event_type="card.refused").code == code


def test_a_confirmed_card_past_the_cap_fails_with_its_code_and_writes_nothing(
    alice_api: Any, user: Any, settings: Any
) -> None:
    from agent.models import ActionReceipt
    from tests.test_conversation_api import confirm, new_session, only_card, say

    settings.LIGHTNOTE_MAX_TODOS = 1
    session_id = new_session(alice_api)
    card = only_card(say(alice_api, session_id, "帮我创建待办交房租"))
    todo_services.todo_create(owner=user, title="filled on the page meanwhile")

    response = confirm(alice_api, session_id, card)

    assert response.status_code == 200, response.content
    outcome = response.json()["outcome"]
    assert (response.json()["state"], outcome["ok"]) == ("settled", False)
    assert outcome["error"]["code"] == "TODO_LIMIT_REACHED"
    assert list(Todo.objects.filter(owner=user).values_list("title", flat=True)) == [
        "filled on the page meanwhile"
    ]
    assert not ActionReceipt.objects.exists()  # no receipt: nothing may claim it ran
