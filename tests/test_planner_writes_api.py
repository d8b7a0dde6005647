"""The rules planner's writes through the messages endpoint (issue 47 item 4, issue 44 items
4-6): reminders and repeating todos, no wrong write, one turn for a complete request, and
"it" after a card. Clock: Wednesday 2026-12-02 14:00 in Asia/Shanghai."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from lightnote.texts.i18n import translate
from notes import services as note_services
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

SHANGHAI = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 12, 2, 14, 0, tzinfo=SHANGHAI)
SESSIONS = "/api/v1/agent/sessions/"


@pytest.fixture
def chat(make_user: Any, client_for: Any, settings: Any) -> Any:
    """Post messages as one user (zone Asia/Shanghai) in one session, the clock frozen."""
    settings.LIGHTNOTE_PLANNER = "rules"
    owner = make_user("series", time_zone="Asia/Shanghai")

    class Chat:
        user = owner

        def __init__(self) -> None:
            self.api = client_for(owner)
            self.session = ""

        def new(self) -> Chat:
            with time_machine.travel(NOW, tick=False):
                response = self.api.post(SESSIONS, {}, format="json")
            assert response.status_code == 201, response.content
            self.session = response.json()["id"]
            return self

        def say(self, text: str, language: str = "zh-CN") -> dict[str, Any]:
            with time_machine.travel(NOW, tick=False):
                response = self.api.post(
                    f"{SESSIONS}{self.session}/messages/",
                    {"text": text},
                    format="json",
                    headers={"Accept-Language": language},
                )
            assert response.status_code == 200, response.content
            return response.json()

        def confirm(self, card: dict[str, Any], status: int = 200) -> dict[str, Any]:
            with time_machine.travel(NOW, tick=False):
                response = self.api.post(
                    "/api/v1/agent/confirmations/confirm/",
                    {"token": card["token"], "session_id": self.session},
                    format="json",
                )
            assert response.status_code == status, response.content
            return response.json()

    return Chat().new()


def language_of(text: str) -> str:
    return "en" if text.isascii() else "zh-CN"


def only_card(body: dict[str, Any]) -> dict[str, Any]:
    assert [notice["status"] for notice in body["notices"]] == [], body["notices"]
    [card] = body["cards"]
    return card


def rows(card: dict[str, Any]) -> dict[str, str]:
    return {row["key"]: row["value"] for row in card["preview"]["details"]}


# --- reminders and repeating todos (issue 47 item 4) -------------------------------------


@pytest.mark.parametrize(
    ("text", "title", "due"),
    [
        ("remind me to call mom tomorrow at 10am", "Call mom", "2026-12-03T10:00:00+08:00"),
        # an hour of a named day's working hours (7-12) with no am/pm is that hour
        ("remind me to call mom tomorrow at 10", "Call mom", "2026-12-03T10:00:00+08:00"),
        ("明天上午10点提醒我给妈妈打电话", "给妈妈打电话", "2026-12-03T10:00:00+08:00"),
    ],
)
def test_a_reminder_asked_for_is_a_create_card_reminded_at_its_time(
    chat: Any, text: str, title: str, due: str
) -> None:
    card = only_card(chat.say(text, language_of(text)))
    assert card["tool"] == "create_todo"
    assert (card["args"]["title"], card["args"]["due_at"]) == (title, due)
    assert card["args"]["remind_at"] == due
    assert "remind_at" in rows(card)
    assert Todo.objects.count() == 0


def test_a_reminder_whose_hour_may_be_am_or_pm_asks_and_the_answer_sets_both_times(
    chat: Any,
) -> None:
    # "at 3" with no am/pm is 3 a.m. or 3 p.m.: the time parser asks, never guesses
    asked = chat.say("remind me to call mom tomorrow at 3", "en")
    assert asked["cards"] == []
    assert [(n["status"], n["slot"]) for n in asked["notices"]] == [("clarify", "due_at")]
    card = only_card(chat.say("3pm", "en"))
    assert card["args"]["due_at"] == card["args"]["remind_at"] == "2026-12-03T15:00:00+08:00"


@pytest.mark.parametrize(
    ("text", "title", "rule", "due", "words"),
    [
        ("每周一早上9点开周会", "开周会", "FREQ=WEEKLY;BYDAY=MO", "2026-12-07T09:00", "每周一"),
        (
            "every Monday 9am standup",
            "Standup",
            "FREQ=WEEKLY;BYDAY=MO",
            "2026-12-07T09:00",
            "every Monday",
        ),
        (
            "water the plants every other day",
            "Water the plants",
            "FREQ=DAILY;INTERVAL=2",
            "2026-12-02T23:59",
            "every 2 days",
        ),
        ("每天早上8点吃药", "吃药", "FREQ=DAILY", "2026-12-03T08:00", "每天"),
        (
            "每月最后一天交房租",
            "交房租",
            "FREQ=MONTHLY;BYMONTHDAY=-1",
            "2026-12-31T23:59",
            "最后一天",
        ),
        (
            "pay rent on the last day of every month",
            "Pay rent",
            "FREQ=MONTHLY;BYMONTHDAY=-1",
            "2026-12-31T23:59",
            "last day",
        ),
        (
            "每个工作日早上9点打卡",
            "打卡",
            "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
            "2026-12-03T09:00",
            "工作日",
        ),
        ("每月15号还信用卡", "还信用卡", "FREQ=MONTHLY;BYMONTHDAY=15", "2026-12-15T23:59", "15"),
        (
            "每周一三五早上7点跑步",
            "跑步",
            "FREQ=WEEKLY;BYDAY=MO,WE,FR",
            "2026-12-04T07:00",
            "每周一、周三、周五",
        ),
        (
            "every Tuesday and Thursday at 6pm yoga",
            "Yoga",
            "FREQ=WEEKLY;BYDAY=TU,TH",
            "2026-12-03T18:00",
            "every Tuesday and Thursday",
        ),
    ],
)
def test_a_repetition_is_a_create_card_with_its_rule_in_words_and_next_dates(
    chat: Any, text: str, title: str, rule: str, due: str, words: str
) -> None:
    card = only_card(chat.say(text, language_of(text)))
    args = card["args"]
    assert (card["tool"], args["title"], args["recurrence"]) == ("create_todo", title, rule)
    assert args["due_at"].startswith(due)
    shown = rows(card)
    assert words in shown["recurrence"]
    assert len([one for one in shown["next_occurrences"].split(",") if one.strip()]) == 3 or (
        shown["next_occurrences"].count("2026") + shown["next_occurrences"].count("2027") == 3
    )
    assert Todo.objects.count() == 0


def test_a_repeating_reminder_is_reminded_at_each_first_occurrence(chat: Any) -> None:
    card = only_card(chat.say("remind me to take my vitamins every Monday at 8am", "en"))
    args = card["args"]
    assert args["recurrence"] == "FREQ=WEEKLY;BYDAY=MO"
    assert args["due_at"] == args["remind_at"] == "2026-12-07T08:00:00+08:00"


@pytest.mark.parametrize(
    ("text", "answer", "locale"),
    [("天天提醒我背单词", "晚上9点", "zh-CN"), ("remind me every day to stretch", "9pm", "en")],
)
def test_a_repeating_reminder_with_no_time_asks_it_and_the_answer_sets_both(
    chat: Any, text: str, answer: str, locale: str
) -> None:
    asked = chat.say(text, locale)
    assert asked["cards"] == []
    assert [(n["status"], n["slot"]) for n in asked["notices"]] == [("clarify", "due_at")]
    card = only_card(chat.say(answer, locale))
    args = card["args"]
    assert args["recurrence"] == "FREQ=DAILY"
    assert args["due_at"] == args["remind_at"] == "2026-12-02T21:00:00+08:00"


def test_a_reminder_for_a_day_alone_sets_no_reminder_time_nobody_said(chat: Any) -> None:
    card = only_card(chat.say("提醒我明天交电费"))
    assert card["args"]["due_at"] == "2026-12-03T23:59:00+08:00"
    assert "remind_at" not in card["args"]


def test_the_confirmed_repeating_card_makes_one_series_todo(chat: Any) -> None:
    card = only_card(chat.say("每周一早上9点开周会"))
    chat.confirm(card)
    [todo] = Todo.objects.filter(owner=chat.user)
    assert (todo.title, todo.recurrence) == ("开周会", "FREQ=WEEKLY;BYDAY=MO")


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("stop repeating Pay rent", "Pay rent"),
        ("交房租不要再重复了", "交房租"),
        ("取消交房租的重复", "交房租"),
    ],
)
def test_stop_repeating_is_an_update_card_clearing_the_rule(
    chat: Any, text: str, title: str
) -> None:
    todo = todo_services.todo_create(
        owner=chat.user,
        title=title,
        due_at=datetime(2026, 12, 31, 9, 0, tzinfo=SHANGHAI),
        recurrence="FREQ=MONTHLY;BYMONTHDAY=-1",
    )
    card = only_card(chat.say(text, language_of(text)))
    assert card["tool"] == "update_todo"
    assert card["args"]["todo_id"] == str(todo.id)
    assert card["args"]["recurrence"] is None
    todo.refresh_from_db()
    assert todo.recurrence  # a card, not yet a write


@pytest.mark.parametrize(
    ("text", "title", "rule", "words"),
    [
        ("make Pay rent repeat every month", "Pay rent", "FREQ=MONTHLY", "every month"),
        ("set Pay rent to repeat weekly", "Pay rent", "FREQ=WEEKLY", "every week"),
        ("把交房租改成每月1号重复", "交房租", "FREQ=MONTHLY;BYMONTHDAY=1", "每月1日"),
        ("让周会每周一三五重复", "周会", "FREQ=WEEKLY;BYDAY=MO,WE,FR", "每周一、周三、周五"),
    ],
)
def test_making_a_todo_repeat_is_an_update_card_setting_its_rule(
    chat: Any, text: str, title: str, rule: str, words: str
) -> None:
    # "make Pay rent repeat every month" used to card a new todo "Make Pay rent repeat", and
    # 把交房租改成每月重复 a rename of 交房租 to 每月重复
    todo = todo_services.todo_create(
        owner=chat.user, title=title, due_at=datetime(2026, 12, 31, 9, 0, tzinfo=SHANGHAI)
    )
    card = only_card(chat.say(text, language_of(text)))
    assert (card["tool"], card["args"]["todo_id"]) == ("update_todo", str(todo.id))
    assert card["args"]["recurrence"] == rule
    assert "title" not in card["args"]
    assert rows(card)["recurrence"].endswith(f" → {words}")  # "Not set → every month"
    assert Todo.objects.count() == 1
    todo.refresh_from_db()
    assert todo.recurrence is None  # a card, not yet a write


@pytest.mark.parametrize(
    "text",
    ["每天都下雨", "每周都要开会，烦死了", "it rains every day", "I go to the gym every day"],
)
def test_a_statement_with_a_repetition_in_it_is_no_card(chat: Any, text: str) -> None:
    body = chat.say(text, language_of(text))
    assert body["cards"] == []
    assert Todo.objects.count() == 0


@pytest.mark.parametrize(
    ("text", "tool"),
    [("列出农历新年前的待办", "query_todos"), ("每逢周五大扫除", "create_todo")],
)
def test_lunar_words_refuse_only_a_repetition(chat: Any, text: str, tool: str) -> None:
    body = chat.say(text)
    assert body["reply"] != translate("PLANNER_RECURRING_UNSUPPORTED", "zh-CN")
    if tool == "create_todo":
        card = only_card(body)
        assert (card["args"]["title"], card["args"]["recurrence"]) == (
            "大扫除",
            "FREQ=WEEKLY;BYDAY=FR",
        )
    else:
        assert [fact["tool"] for fact in body["facts"]] == [tool]


@pytest.mark.parametrize(
    ("text", "locale"),
    [("every third full moon water the cactus", "en"), ("每逢农历十五拜佛", "zh-CN")],
)
def test_a_rule_todos_cannot_follow_is_refused_in_the_users_language(
    chat: Any, text: str, locale: str
) -> None:
    body = chat.say(text, locale)
    assert body["cards"] == []
    assert body["reply"] == translate("PLANNER_RECURRING_UNSUPPORTED", locale)
    assert Todo.objects.count() == 0


# --- no wrong write (issue 44 item 4) ----------------------------------------------------


def add_todo(chat: Any, title: str, **fields: Any) -> Todo:
    return todo_services.todo_create(owner=chat.user, title=title, **fields)


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("把买菜移到回收站", "买菜"),
        ("扔掉买菜", "买菜"),
        ("move Buy milk to the trash", "Buy milk"),
    ],
)
def test_moving_a_todo_to_the_trash_is_a_delete_card(chat: Any, text: str, title: str) -> None:
    todo = add_todo(chat, title)
    card = only_card(chat.say(text, language_of(text)))
    assert (card["tool"], card["args"]["todo_id"]) == ("delete_todo", str(todo.id))


@pytest.mark.parametrize(
    ("text", "title"),
    [("把笔记周会纪要移到回收站", "周会纪要"), ("move the note Standup to the trash", "Standup")],
)
def test_moving_a_note_to_the_trash_is_the_planned_note_delete_never_an_update(
    chat: Any, text: str, title: str
) -> None:
    note = note_services.note_create(owner=chat.user, title=title, content="议程")
    body = chat.say(text, language_of(text))
    assert body["cards"] == []
    assert [(n["capability"], n["status"]) for n in body["notices"]] == [("note.delete", "planned")]
    note.refresh_from_db()
    assert note.content == "议程"


@pytest.mark.parametrize(
    ("text", "locale"),
    [
        ("can you set a daily reminder?", "en"),
        ("你能设置每天提醒吗？", "zh-CN"),
        ("does it support recurring tasks?", "en"),
        ("可以设置重复任务吗", "zh-CN"),
    ],
)
def test_a_question_about_what_the_assistant_can_do_is_answered_never_carded(
    chat: Any, text: str, locale: str
) -> None:
    body = chat.say(text, locale)
    assert body["cards"] == []
    assert body["notices"] == []
    assert body["reply"] == translate("PLANNER_CAPABILITIES", locale)


@pytest.mark.parametrize(
    ("text", "locale"), [("你能帮我创建一个待办吗", "zh-CN"), ("can you add a todo?", "en")]
)
def test_a_polite_request_is_still_a_request_not_a_capability_question(
    chat: Any, text: str, locale: str
) -> None:
    body = chat.say(text, locale)
    assert [(n["status"], n["slot"]) for n in body["notices"]] == [("clarify", "title")]


@pytest.mark.parametrize(
    ("text", "title", "content"),
    [
        ("新建一个笔记叫「菜谱」，写上番茄炒蛋的做法", "菜谱", "番茄炒蛋的做法"),
        ("add a note called 'Recipes', write down pancakes", "Recipes", "pancakes"),
    ],
)
def test_a_note_title_keeps_no_quotes_colon_or_next_verb(
    chat: Any, text: str, title: str, content: str
) -> None:
    card = only_card(chat.say(text, language_of(text)))
    assert (card["tool"], card["args"]["title"], card["args"]["content"]) == (
        "create_note",
        title,
        content,
    )


@pytest.mark.parametrize(
    ("first", "second", "other", "level"),
    [
        ("raise the priority of Pay rent", "Buy milk isn't urgent, set it to low", "Buy milk", 0),
        ("把交房租的优先级调高", "买菜不急，改成低优先级", "买菜", 0),
    ],
)
def test_a_correction_naming_another_item_is_a_new_request_about_that_item(
    chat: Any, first: str, second: str, other: str, level: int
) -> None:
    add_todo(chat, "Pay rent" if first.isascii() else "交房租")
    target = add_todo(chat, other, priority=2)
    shown = only_card(chat.say(first, language_of(first)))
    assert shown["tool"] == "update_todo"
    card = only_card(chat.say(second, language_of(second)))
    assert card["tool"] == "update_todo"
    assert card["args"]["todo_id"] == str(target.id)
    assert card["args"]["priority"] == level
    assert card.get("parent_id") is None  # a new card, the first one still waiting


def test_a_new_todo_card_said_again_as_a_note_becomes_a_note_card(chat: Any) -> None:
    only_card(chat.say("下周一下午两点部门面试"))
    card = only_card(chat.say("记成笔记吧"))
    assert (card["tool"], card["args"]["title"]) == ("create_note", "部门面试")
    assert "下周一下午两点" in card["args"]["content"]


@pytest.mark.parametrize(
    ("question", "new", "tool"),
    [
        ("下班后买菜", "删掉交房租", "delete_todo"),
        ("帮我创建一条待办", "把交房租标记为完成", "set_todo_status"),
        ("remind me to call mom after work", "delete Pay rent", "delete_todo"),
        ("add a todo", "mark Pay rent done", "set_todo_status"),
    ],
)
def test_a_new_request_after_a_question_drops_the_question(
    chat: Any, question: str, new: str, tool: str
) -> None:
    pay = add_todo(chat, "Pay rent" if new.isascii() else "交房租")
    asked = chat.say(question, language_of(question))
    assert asked["cards"] == []
    assert [n["status"] for n in asked["notices"]] == ["clarify"]
    card = only_card(chat.say(new, language_of(new)))
    assert (card["tool"], card["args"]["todo_id"]) == (tool, str(pay.id))
    # the question is gone: a time now is no answer to it
    after = chat.say("明天下午3点" if not new.isascii() else "tomorrow 3pm", language_of(new))
    assert after["cards"] == []


@pytest.mark.parametrize(
    ("question", "not_an_answer"),
    [("下班后买菜", "买牛奶"), ("remind me to call mom after work", "buy milk")],
)
def test_something_that_answers_nothing_is_no_answer(
    chat: Any, question: str, not_an_answer: str
) -> None:
    chat.say(question, language_of(question))
    body = chat.say(not_an_answer, language_of(question))
    assert body["cards"] == []
    assert Todo.objects.count() == 0


# --- one turn when the request is complete (issue 44 item 5) ----------------------------


@pytest.mark.parametrize(
    ("text", "title", "due", "priority"),
    [
        ("明天下午3点去取快递", "去取快递", "2026-12-03T15:00:00+08:00", 1),
        ("下周三下午两点半牙医预约", "牙医预约", "2026-12-09T14:30:00+08:00", 1),
        ("tomorrow 3pm dentist, high priority", "Dentist", "2026-12-03T15:00:00+08:00", 2),
        (
            "Buy a birthday gift for Anna by next Saturday",
            "Buy a birthday gift for Anna",
            "2026-12-12T23:59:00+08:00",
            1,
        ),
    ],
)
def test_a_complete_request_gets_its_card_at_once(
    chat: Any, text: str, title: str, due: str, priority: int
) -> None:
    card = only_card(chat.say(text, language_of(text)))
    args = card["args"]
    assert (card["tool"], args["title"], args["due_at"], args["priority"]) == (
        "create_todo",
        title,
        due,
        priority,
    )


@pytest.mark.parametrize(("text", "yes"), [("下班后买菜", "好"), ("call mom after work", "yes")])
def test_a_time_that_cannot_be_read_is_asked_for_without_inviting_a_yes(
    chat: Any, text: str, yes: str
) -> None:
    asked = chat.say(text, language_of(text))
    assert asked["cards"] == []
    [notice] = asked["notices"]
    assert notice["status"] == "clarify"
    assert "“好”" not in notice["message"]
    assert '"yes"' not in notice["message"]
    answered = only_card(
        chat.say("明天下午6点" if yes == "好" else "tomorrow 6pm", language_of(text))
    )
    assert answered["args"]["due_at"] == "2026-12-03T18:00:00+08:00"


# --- "it" after a card (issue 44 item 6) ---------------------------------------------------


@pytest.mark.parametrize(
    ("first", "it", "tool", "change"),
    [
        ("把交房租改成高优先级", "把它改成明天", "update_todo", "due_at"),
        ("make Pay rent high priority", "change it to tomorrow", "update_todo", "due_at"),
        ("把交房租改成高优先级", "那条删掉", "delete_todo", None),
        ("make Pay rent high priority", "delete it", "delete_todo", None),
    ],
)
def test_it_right_after_a_card_is_that_cards_item(
    chat: Any, first: str, it: str, tool: str, change: str | None
) -> None:
    title = "Pay rent" if first.isascii() else "交房租"
    todo = add_todo(chat, title)
    add_todo(chat, "Buy milk" if first.isascii() else "买菜")  # another item, not meant
    shown = only_card(chat.say(first, language_of(first)))
    assert shown["args"]["todo_id"] == str(todo.id)
    body = chat.say(it, language_of(it))
    assert body["choices"] == []
    card = only_card(body)
    assert (card["tool"], card["args"]["todo_id"]) == (tool, str(todo.id))
    if change:
        assert card["args"][change].startswith("2026-12-03")


def test_it_right_after_a_new_todo_card_corrects_that_card(chat: Any) -> None:
    only_card(chat.say("明天下午3点去取快递"))
    card = only_card(chat.say("把它改成后天"))
    assert (card["tool"], card["args"]["title"]) == ("create_todo", "去取快递")
    assert card["args"]["due_at"] == "2026-12-04T15:00:00+08:00"


def test_it_right_after_a_confirmed_new_todo_is_the_todo_it_made(chat: Any) -> None:
    card = only_card(chat.say("明天下午3点去取快递"))
    chat.confirm(card)
    [todo] = Todo.objects.filter(owner=chat.user)
    add_todo(chat, "买菜")  # another item, not meant
    changed = only_card(chat.say("把它改成后天"))
    assert (changed["tool"], changed["args"]["todo_id"]) == ("update_todo", str(todo.id))
    assert changed["args"]["due_at"].startswith("2026-12-04")


# --- the card in front of the user, in words (issue 44 items 4 and 6) ---------------------


@pytest.mark.parametrize(
    ("first", "dismiss", "language"),
    [
        ("明天下午3点提交周报", "算了", "zh-CN"),
        ("明天下午3点提交周报", "不要了", "zh-CN"),
        ("remind me to submit the report tomorrow at 3pm", "never mind", "en"),
        ("remind me to submit the report tomorrow at 3pm", "forget about it", "en"),
        ("remind me to submit the report tomorrow at 3pm", "scratch that", "en"),
    ],
)
def test_never_mind_leaves_the_waiting_card_to_its_buttons_and_says_so(
    chat: Any, first: str, dismiss: str, language: str
) -> None:
    card = only_card(chat.say(first, language))
    body = chat.say(dismiss, language)
    assert (body["cards"], body["notices"], body["choices"]) == ([], [], [])
    target = card["preview"]["target"]
    assert body["reply"] == translate("CARD_DISMISSED_WAITING", language, target=target)
    assert Todo.objects.filter(owner=chat.user).count() == 0
    outcome = chat.confirm(card)  # words neither ran nor withdrew it: the button still works
    assert (outcome["state"], outcome["outcome"]["ok"]) == ("settled", True)
    assert Todo.objects.filter(owner=chat.user).count() == 1


@pytest.mark.parametrize(("dismiss", "language"), [("算了", "zh-CN"), ("never mind", "en")])
def test_never_mind_with_no_card_says_nothing_changed(
    chat: Any, dismiss: str, language: str
) -> None:
    body = chat.say(dismiss, language)
    assert (body["cards"], body["notices"]) == ([], [])
    assert body["reply"] == translate("CARD_DISMISSED_NOTHING", language)


@pytest.mark.parametrize(
    ("first", "pointer", "language"),
    [
        ("明天下午3点提交周报", "那条删掉", "zh-CN"),
        ("明天下午3点提交周报", "它什么时候到期？", "zh-CN"),
        ("remind me to submit the report tomorrow at 3pm", "delete that one", "en"),
        ("remind me to submit the report tomorrow at 3pm", "when is it due?", "en"),
    ],
)
def test_the_item_a_waiting_create_card_would_make_does_not_exist_yet(
    chat: Any, first: str, pointer: str, language: str
) -> None:
    add_todo(chat, "买菜" if language == "zh-CN" else "Buy milk")  # another item, not meant
    card = only_card(chat.say(first, language))
    body = chat.say(pointer, language)
    assert (body["cards"], body["choices"]) == ([], [])
    target = card["preview"]["target"]
    assert body["reply"] == translate("CARD_NOT_MADE_YET", language, target=target)
    assert chat.confirm(card)["outcome"]["ok"] is True  # still the user's to confirm


@pytest.mark.parametrize(
    ("first", "time", "language", "due"),
    [
        ("明天下午3点提交周报", "上午10点", "zh-CN", "2026-12-03T10:00:00+08:00"),
        ("明天下午3点提交周报", "改成上午10点", "zh-CN", "2026-12-03T10:00:00+08:00"),
        (
            "remind me to submit the report tomorrow at 3pm",
            "10am",
            "en",
            "2026-12-03T10:00:00+08:00",
        ),
        (
            "remind me to submit the report tomorrow at 3pm",
            "make it 10am",
            "en",
            "2026-12-03T10:00:00+08:00",
        ),
    ],
)
def test_a_time_said_alone_after_a_card_corrects_its_time_and_the_reminder_follows(
    chat: Any, first: str, time: str, language: str, due: str
) -> None:
    old = only_card(chat.say(first, language))
    new = only_card(chat.say(time, language))
    assert (new["tool"], new["args"]["title"]) == ("create_todo", old["args"]["title"])
    assert new["args"]["due_at"] == due
    if "remind_at" in old["args"]:  # "remind me to … at 3pm": reminded at the due time
        assert new["args"]["remind_at"] == due
    # the corrected card replaced it: the old token confirms nothing
    replaced = chat.confirm(old, status=410)
    assert replaced["error"]["code"] == "CONFIRMATION_EXPIRED"
    chat.confirm(new)
    [todo] = Todo.objects.filter(owner=chat.user)
    assert todo.due_at == datetime.fromisoformat(due)


def test_a_time_alone_with_no_card_read_with_a_time_is_no_correction(chat: Any) -> None:
    card = only_card(chat.say("帮我创建待办：整理书架"))
    assert card["args"]["due_at"] is None
    body = chat.say("上午10点")
    assert (body["cards"], body["notices"]) == ([], [])
    assert chat.confirm(card)["outcome"]["ok"] is True  # the card, as it was, still waits
    [todo] = Todo.objects.filter(owner=chat.user)
    assert (todo.title, todo.due_at) == ("整理书架", None)
