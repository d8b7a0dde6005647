"""The server-rendered chat page (htmx), driven with Django's test client.

The page calls the same functions as the API, so these tests check what the page adds:
login, CSRF, tokens only in form bodies, cards and outcomes rendered from the server's
answers, errors as localized notices (never a 500), the language, history and admin views.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.utils import timezone

from agent.cards import transitions as card_transitions
from agent.models import MESSAGE_MAX, ActionReceipt, AgentSession, Message
from agent.web.conversations import CONVERSATION_SESSION_KEY
from agent.web.htmx import FRAGMENT_HEADER
from lightnote.impersonation.context import ADMIN_CONTEXT_SESSION_KEY
from lightnote.impersonation.contexts import admin_context_start
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

SEED = "帮我创建一条今晚 9 点提交周报的高优先级待办"
HTMX = {"HTTP_HX_REQUEST": "true"}


# --- A small HTML reader: forms, their fields and buttons ---------------------------------


@dataclass
class Form:
    attrs: dict[str, str]
    fields: dict[str, str] = field(default_factory=dict)
    buttons: list[dict[str, str]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)

    def button(self, text: str) -> dict[str, str]:
        for attrs, label in zip(self.buttons, self.texts, strict=True):
            if label.strip() == text:
                return attrs
        raise AssertionError(f"no button {text!r} in {self.texts}")


class _FormReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[Form] = []
        self.urls: list[str] = []
        self._form: Form | None = None
        self._button: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        for name in ("href", "action", "formaction", "hx-post", "hx-get", "src"):
            if name in values:
                self.urls.append(values[name])
        if tag == "form":
            self._form = Form(values)
            self.forms.append(self._form)
        elif tag == "input" and self._form is not None and values.get("type") == "hidden":
            self._form.fields[values.get("name", "")] = values.get("value", "")
        elif tag == "button" and self._form is not None:
            self._form.buttons.append(values)
            self._button = []

    def handle_data(self, data: str) -> None:
        if self._button is not None:
            self._button.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "button" and self._form is not None and self._button is not None:
            self._form.texts.append("".join(self._button))
            self._button = None
        elif tag == "form":
            self._form = None


def read_html(html: str) -> _FormReader:
    reader = _FormReader()
    reader.feed(html)
    return reader


def forms_posting_to(html: str, url: str) -> list[Form]:
    return [
        form
        for form in read_html(html).forms
        if url in (form.attrs.get("action"), form.attrs.get("hx-post"))
    ]


def card_form(html: str) -> Form:
    (form,) = [
        form for form in read_html(html).forms if "card-actions" in form.attrs.get("class", "")
    ]
    return form


# --- Fixtures ------------------------------------------------------------------------------


@pytest.fixture
def page(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def conversation_id(client: Client) -> str:
    return client.session[CONVERSATION_SESSION_KEY]


def send(client: Client, text: str = SEED, **headers: str) -> Any:
    client.get("/")  # opens the conversation, as a browser does before it can post
    return client.post(
        "/chat/message/",
        {"text": text, "session_id": conversation_id(client)},
        **HTMX,
        **headers,
    )


def post_card(client: Client, url: str, form: Form, **headers: str) -> Any:
    return client.post(url, form.fields, **HTMX, **headers)


def without_csrf(html: str) -> str:
    """Return ``html`` without the CSRF token values (masked anew on every render)."""
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)


def tonight_label() -> str:
    """The concrete time the seed sentence must show: 21:00 today, in the user's zone."""
    today = timezone.localdate(timezone=ZoneInfo("Asia/Shanghai"))
    return f"{today:%Y-%m-%d} 21:00 (Asia/Shanghai)"


# --- Login, page, CSRF ---------------------------------------------------------------------


def test_anonymous_visitor_is_sent_to_login() -> None:
    client = Client()

    page_response = client.get("/")
    confirm_response = client.post(
        "/chat/confirm/", {"token": "x", "session_id": str(uuid.uuid4())}
    )

    assert page_response.status_code == 302
    assert page_response["Location"] == "/accounts/login/?next=/"
    assert confirm_response.status_code == 302
    assert confirm_response["Location"].startswith("/accounts/login/")
    login = client.get("/accounts/login/")
    assert login.status_code == 200
    assert 'name="username"' in login.content.decode()


def test_page_renders_the_message_form_and_keeps_one_conversation(page: Client, user: Any) -> None:
    first = page.get("/")
    second = page.get("/")

    html = first.content.decode()
    assert first.status_code == 200
    (composer,) = forms_posting_to(html, "/chat/message/")
    assert composer.attrs["method"] == "post"
    assert composer.attrs["hx-target"] == "#messages"
    assert composer.fields["session_id"] == conversation_id(page)
    assert composer.button("发送") == {"type": "submit"}
    assert '<label for="chat-text">你的消息</label>' in html
    assert 'aria-live="polite"' in html
    assert "lightnote/htmx.min.js" in html
    assert AgentSession.objects.filter(owner=user).count() == 1
    assert second.status_code == 200
    assert conversation_id(page) == composer.fields["session_id"]


def test_vendored_htmx_is_served_with_its_license_line() -> None:
    from django.contrib.staticfiles import finders

    path = finders.find("lightnote/htmx.min.js")

    assert path is not None
    with open(path, encoding="utf-8") as script:
        first_line = script.readline()
    assert "htmx.org 2." in first_line
    assert "Zero-Clause BSD" in first_line


def test_csrf_is_enforced_on_page_posts(user: Any) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    html = client.get("/").content.decode()
    (composer,) = forms_posting_to(html, "/chat/message/")

    refused = client.post(
        "/chat/message/", {"text": SEED, "session_id": composer.fields["session_id"]}, **HTMX
    )
    accepted = client.post(
        "/chat/message/",
        {"text": SEED, "session_id": composer.fields["session_id"]},
        HTTP_X_CSRFTOKEN=composer.fields["csrfmiddlewaretoken"],
        **HTMX,
    )

    assert refused.status_code == 403
    assert accepted.status_code == 200
    assert Message.objects.filter(role=Message.Role.USER).count() == 1


# --- The card and its outcomes -------------------------------------------------------------


def test_seed_sentence_shows_a_card_with_the_concrete_time_and_the_token_in_the_body(
    page: Client,
) -> None:
    response = send(page)

    html = response.content.decode()
    assert response.status_code == 200
    assert response[FRAGMENT_HEADER] == "1"
    assert "创建待办" in html
    assert "提交周报" in html
    assert tonight_label() in html
    assert "风险：低" in html
    form = card_form(html)
    assert form.attrs["method"] == "post"
    assert form.attrs["action"] == "/chat/confirm/"
    assert form.button("确认执行")["hx-post"] == "/chat/confirm/"
    assert form.button("确认执行")["hx-disabled-elt"] == "closest fieldset"
    assert form.button("拒绝")["hx-post"] == "/chat/reject/"
    assert len(form.fields["token"]) >= 22  # at least 128 bits, URL-safe base64
    assert form.fields["continuation_token"] not in ("", form.fields["token"])
    assert form.fields["session_id"] == conversation_id(page)
    urls = read_html(html).urls
    assert all(form.fields["token"] not in url for url in urls)
    assert all("token" not in url for url in urls)
    # No success is claimed before a receipt exists.
    assert "已执行" not in html
    assert "已创建" not in html
    assert Todo.objects.count() == 0


def test_confirm_shows_the_receipt_and_then_the_continuation_reply(page: Client, user: Any) -> None:
    form = card_form(send(page).content.decode())

    confirmed = post_card(page, "/chat/confirm/", form)

    html = confirmed.content.decode()
    assert confirmed.status_code == 200
    assert "outcome-succeeded" in html
    assert "已执行" in html
    assert "已创建待办「提交周报」。" in html
    todo = Todo.objects.get(owner=user)
    receipt = ActionReceipt.objects.get()
    assert str(receipt.action_id) in html
    assert f"{todo.due_at.astimezone(ZoneInfo('Asia/Shanghai')):%Y-%m-%d %H:%M}" in tonight_label()
    (loader,) = forms_posting_to(html, "/chat/reply/")
    assert loader.attrs["hx-trigger"] == "load"
    assert loader.fields["continuation_token"] == form.fields["continuation_token"]
    assert "token" not in loader.fields  # the card token is not needed for the reply

    replied = post_card(page, "/chat/reply/", loader)

    reply_html = replied.content.decode()
    assert replied.status_code == 200
    assert "msg-final" in reply_html
    assert f"已为你创建待办「提交周报」，截止 {tonight_label()[:16]}" in reply_html
    assert Message.objects.filter(payload__has_key="receipt").count() == 1


def test_second_confirm_shows_the_same_settled_outcome_and_one_todo(page: Client) -> None:
    form = card_form(send(page).content.decode())

    first = post_card(page, "/chat/confirm/", form)
    second = post_card(page, "/chat/confirm/", form)

    assert first.status_code == second.status_code == 200
    assert without_csrf(first.content.decode()) == without_csrf(second.content.decode())
    assert "已创建待办「提交周报」。" in second.content.decode()
    assert Todo.objects.count() == 1
    assert ActionReceipt.objects.count() == 1


def test_reject_shows_rejected_and_a_later_confirm_is_refused(page: Client) -> None:
    form = card_form(send(page).content.decode())

    rejected = post_card(page, "/chat/reject/", form)
    confirmed = post_card(page, "/chat/confirm/", form)

    assert rejected.status_code == 200
    assert "outcome-rejected" in rejected.content.decode()
    assert "没有执行任何操作。" in rejected.content.decode()
    assert confirmed.status_code == 409
    assert confirmed[FRAGMENT_HEADER] == "1"
    assert confirmed["HX-Retarget"] == "next .card-problem"
    assert "此确认卡已被拒绝。" in confirmed.content.decode()
    assert "CONFIRMATION_REJECTED" in confirmed.content.decode()
    assert Todo.objects.count() == 0


def test_business_failure_shows_code_and_message_and_no_reply(page: Client, user: Any) -> None:
    todo = todo_services.todo_create(owner=user, title="写周报")
    form = card_form(send(page, "把待办「写周报」标记为完成").content.decode())
    todo_services.todo_delete(owner=user, todo_id=todo.id)

    confirmed = post_card(page, "/chat/confirm/", form)

    html = confirmed.content.decode()
    assert confirmed.status_code == 200
    assert "outcome-failed" in html
    assert "TODO_NOT_FOUND" in html
    assert "已执行" not in html
    assert forms_posting_to(html, "/chat/reply/") == []
    assert ActionReceipt.objects.count() == 0


def test_running_card_polls_status_every_second_without_claiming_success(page: Client) -> None:
    form = card_form(send(page).content.decode())
    claim = card_transitions.card_claim(form.fields["token"], attempt_id="another-request")
    assert claim.status == "claimed"

    running = post_card(page, "/chat/confirm/", form)

    html = running.content.decode()
    assert running.status_code == 202
    assert "outcome-running" in html
    (poll,) = forms_posting_to(html, "/chat/status/")
    assert poll.attrs["hx-trigger"] == "every 1s"
    assert poll.fields["token"] == form.fields["token"]
    assert "已执行" not in html
    assert forms_posting_to(html, "/chat/reply/") == []

    card_transitions.card_settle(
        form.fields["token"],
        attempt_id="another-request",
        outcome_kind="unknown",
        outcome={"ok": None, "error": {"code": "ACTION_OUTCOME_UNKNOWN", "message": "?"}},
    )
    unknown = post_card(page, "/chat/status/", poll)

    unknown_html = unknown.content.decode()
    assert unknown.status_code == 200
    assert "outcome-unknown" in unknown_html
    assert "结果暂时无法核验" in unknown_html
    (still_polling,) = forms_posting_to(unknown_html, "/chat/status/")
    assert still_polling.attrs["hx-trigger"] == "every 1s"
    assert "已执行" not in unknown_html
    assert Todo.objects.count() == 0


# --- Errors are localized notices, never a 500 ---------------------------------------------


def test_other_users_token_gets_the_localized_forbidden_error(
    page: Client, other_user: Any
) -> None:
    form = card_form(send(page).content.decode())
    intruder = Client()
    intruder.force_login(other_user)
    intruder.get("/")
    stolen = {**form.fields, "session_id": conversation_id(intruder)}

    with_own_session = intruder.post("/chat/confirm/", stolen, **HTMX)
    with_victims_session = intruder.post("/chat/confirm/", form.fields, **HTMX)
    in_english = intruder.post("/chat/confirm/", stolen, HTTP_ACCEPT_LANGUAGE="en", **HTMX)

    for response in (with_own_session, with_victims_session):
        assert response.status_code == 403
        assert response[FRAGMENT_HEADER] == "1"
        assert "无权操作此确认卡。" in response.content.decode()
        assert "CONFIRMATION_FORBIDDEN" in response.content.decode()
        assert "提交周报" not in response.content.decode()
    assert in_english.status_code == 403
    assert "You may not use this confirmation." in in_english.content.decode()
    assert Todo.objects.count() == 0


def test_malformed_card_body_is_a_localized_400(page: Client) -> None:
    response = page.post("/chat/confirm/", {"token": "abc", "session_id": "not-a-uuid"}, **HTMX)

    assert response.status_code == 400
    assert "请求参数不合法。" in response.content.decode()
    assert "VALIDATION_ERROR" in response.content.decode()


def test_expired_token_is_a_localized_410(page: Client) -> None:
    page.get("/")
    response = page.post(
        "/chat/confirm/", {"token": "no-such-token", "session_id": conversation_id(page)}, **HTMX
    )

    assert response.status_code == 410
    assert "确认卡不存在或已过期" in response.content.decode()


def test_empty_message_is_refused_next_to_the_form(page: Client) -> None:
    response = send(page, "   ")

    assert response.status_code == 400
    assert response["HX-Retarget"] == "#composer-problem"
    assert "请输入消息。" in response.content.decode()
    assert Message.objects.count() == 0


def test_the_form_and_the_page_refuse_text_over_the_one_message_limit(page: Client) -> None:
    html = page.get("/").content.decode()
    assert f'maxlength="{MESSAGE_MAX}"' in html  # the browser's limit is the server's

    response = send(page, "x" * (MESSAGE_MAX + 1))
    assert response.status_code == 400
    assert f"最多 {MESSAGE_MAX} 个字符" in response.content.decode()
    assert Message.objects.count() == 0
    assert send(page, "x" * MESSAGE_MAX).status_code == 200


def test_someone_elses_conversation_is_refused(page: Client, other_user: Any) -> None:
    theirs = AgentSession.objects.create(owner=other_user)
    page.get("/")

    response = page.post("/chat/message/", {"text": SEED, "session_id": str(theirs.id)}, **HTMX)

    assert response.status_code == 404
    assert "这个对话不存在或不属于你" in response.content.decode()
    assert Message.objects.count() == 0


# --- Language, history, conversations, no-JS fallback ----------------------------------------


def test_english_ui_with_accept_language_en(page: Client) -> None:
    html = page.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    card = send(
        page,
        "Create a high priority todo to submit the weekly report tonight at 9pm",
        HTTP_ACCEPT_LANGUAGE="en",
    ).content.decode()

    assert '<html lang="en">' in html
    assert ">Send</button>" in html
    assert "Your message" in html
    assert "New conversation" in html
    assert "Create todo" in card
    assert tonight_label() in card
    assert card_form(card).button("Confirm")["hx-post"] == "/chat/confirm/"
    assert "Risk: low" in card


def test_language_switch_cookie_overrides_accept_language(page: Client) -> None:
    switched = page.post("/chat/language/", {"language": "en", "next": "/"})
    html = page.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    back = page.post("/chat/language/", {"language": "zh-CN", "next": "https://evil.example/"})

    assert switched.status_code == 302
    assert switched["Location"] == "/"
    assert ">Send</button>" in html
    assert back["Location"] == "/"  # an off-site next is not followed
    assert ">发送</button>" in page.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()


def test_history_shows_a_ready_card_with_ask_again_and_no_token(page: Client) -> None:
    send(page)

    html = page.get("/").content.decode()

    assert re.search(rf'<li class="msg msg-user"[^>]*>.*?{SEED}.*?</li>', html, re.DOTALL)
    assert "请检查下面的确认卡" in html
    assert "提交周报" in html
    assert "只读" not in html
    assert "等待确认" in html
    assert 'name="token"' not in html
    assert forms_posting_to(html, "/chat/confirm/") == []
    (ask,) = forms_posting_to(html, "/chat/reissue/")
    assert ask.button("重新发起确认")["type"] == "submit"
    assert ask.fields["session_id"] == conversation_id(page)
    assert re.search(r'data-expires="[^"]+"', html)
    assert re.search(r'<time class="msg-time" datetime="[^"]+">', html)


def test_ask_again_issues_a_live_card_that_confirms_and_history_shows_the_receipt(
    page: Client, user: Any
) -> None:
    send(page)
    (ask,) = forms_posting_to(page.get("/").content.decode(), "/chat/reissue/")

    reissued = page.post("/chat/reissue/", ask.fields, **HTMX)
    live = card_form(reissued.content.decode())
    confirmed = post_card(page, "/chat/confirm/", live)
    again = page.post("/chat/reissue/", ask.fields, **HTMX)
    html = page.get("/").content.decode()

    assert reissued.status_code == 200
    assert live.fields["token"]
    assert confirmed.status_code == 200
    todo = Todo.objects.get(owner=user)
    assert Todo.objects.filter(owner=user).count() == 1
    # The old card was voided: no second live token; the answer shows it as replaced.
    assert again.status_code == 200
    assert "card-actions" not in again.content.decode()
    assert "已被一张新的确认卡取代" in again.content.decode()
    assert f'href="/todos/{todo.id}/"' in confirmed.content.decode()
    assert forms_posting_to(html, "/chat/reissue/") == []
    assert "已确认并执行" in html
    assert f'href="/todos/{todo.id}/"' in html
    assert "已被一张新的确认卡取代" in html
    assert 'name="token"' not in html


def test_history_tells_rejected_and_expired_cards_apart_in_english(page: Client) -> None:
    send(page)
    send(page, "帮我创建一条明天提交月报的待办")
    page.cookies["django_language"] = "en"
    forms = forms_posting_to(page.get("/").content.decode(), "/chat/reissue/")
    assert len(forms) == 2
    live = card_form(page.post("/chat/reissue/", forms[0].fields, **HTMX).content.decode())
    post_card(page, "/chat/reject/", live)
    from agent.models import ActionCard

    ActionCard.objects.filter(id=forms[1].fields["card_id"]).update(expires_at=timezone.now())

    html = page.get("/").content.decode()

    assert "Rejected, not done" in html
    assert "Expired, not done" in html
    assert forms_posting_to(html, "/chat/reissue/") == []
    assert forms_posting_to(html, "/chat/confirm/") == []


@pytest.mark.parametrize(
    "url",
    [
        "/chat/confirm/",
        "/chat/reject/",
        "/chat/status/",
        "/chat/reply/",
        "/chat/message/",
        "/chat/new/",
        "/chat/reissue/",
        "/chat/language/",
    ],
)
def test_a_form_url_opened_with_get_goes_back_to_the_chat(page: Client, url: str) -> None:
    response = page.get(url)

    assert response.status_code == 302
    assert response["Location"] == "/"


def test_problems_box_carries_the_login_text(page: Client) -> None:
    html = page.get("/").content.decode()

    assert 'data-login="登录已过期，请重新登录；你输入的内容仍保留在输入框中。"' in html


def test_new_conversation_starts_empty(page: Client, user: Any) -> None:
    send(page)
    before = conversation_id(page)

    response = page.post("/chat/new/")
    html = page.get("/").content.decode()

    assert response.status_code == 302
    assert conversation_id(page) != before
    assert AgentSession.objects.filter(owner=user).count() == 2
    assert "msg-user" not in html
    assert "还没有消息。" in html


def test_plain_form_post_without_javascript_renders_the_whole_page(page: Client) -> None:
    page.get("/")

    response = page.post("/chat/message/", {"text": SEED, "session_id": conversation_id(page)})

    html = response.content.decode()
    assert response.status_code == 200
    assert FRAGMENT_HEADER not in response
    assert "<html" in html
    assert len(forms_posting_to(html, "/chat/message/")) == 1
    form = card_form(html)
    confirmed = page.post("/chat/confirm/", form.fields)
    assert confirmed.status_code == 200
    assert "已创建待办「提交周报」。" in confirmed.content.decode()
    assert Todo.objects.count() == 1


# --- Admin read-only context -----------------------------------------------------------------


@pytest.fixture
def impersonating(make_user: Any, user: Any) -> Client:
    staff = make_user("staffer", is_staff=True, is_superuser=True)
    context = admin_context_start(staff=staff, subject_id=user.pk)
    client = Client()
    client.force_login(staff)
    session = client.session
    session[ADMIN_CONTEXT_SESSION_KEY] = str(context.id)
    session.save()
    return client


def test_admin_readonly_page_shows_banner_and_notice_instead_of_card(
    impersonating: Client, user: Any
) -> None:
    html = impersonating.get("/").content.decode()
    turn = send(impersonating).content.decode()

    assert f"管理员只读模式：staffer 正在查看 {user.username} 的数据" in html
    assert "ADMIN_READONLY" in turn
    assert 'name="token"' not in turn
    # The staff member's own read-only conversation, bound to the context (issue 10, row 1):
    # never one of the subject's.
    conversation = AgentSession.objects.get(id=conversation_id(impersonating))
    assert conversation.owner.username == "staffer"
    assert conversation.admin_context is not None
    assert conversation.admin_context.subject == user
    assert not AgentSession.objects.filter(owner=user).exists()
    assert Todo.objects.count() == 0


def test_admin_site_names_the_impersonated_user(impersonating: Client, user: Any) -> None:
    with_context = impersonating.get("/admin/").content.decode()
    session = impersonating.session
    del session[ADMIN_CONTEXT_SESSION_KEY]
    session.save()
    without_context = impersonating.get("/admin/").content.decode()

    assert 'class="lightnote-admin-banner"' in with_context
    assert re.search(rf"<strong>{user.username}</strong>", with_context)
    assert "(Asia/Shanghai)" in with_context
    assert 'class="lightnote-admin-banner"' not in without_context


def test_a_clarifying_question_shows_once_with_its_choices_and_the_answer_makes_the_card(
    page: Client, user: Any
) -> None:
    from todos import services as todo_services

    todo_services.todo_create(owner=user, title="提交周报")
    todo_services.todo_create(owner=user, title="周报模板整理")
    html = send(page, "完成 周报").content.decode()
    assert "需要补充" in html  # the clarify notice's label
    assert html.count("1. 「") == 1  # the numbered choices, shown once
    assert html.count("2. 「") == 1
    assert "card-actions" not in html  # a question, never a card
    answered = send(page, "第一个").content.decode()
    assert "card-actions" in answered
