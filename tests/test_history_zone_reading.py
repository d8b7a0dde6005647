"""A history card read in one zone and shown after the user moved to another still says the
words with the zone they were read in, and the time there (not a misparse in the new zone)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.test_chat_page import send

pytestmark = pytest.mark.django_db


def reading_row(html: str) -> str:
    start = html.index("detail-due_at_reading")
    return html[start : html.index("</dd>", start)]


def test_the_reading_names_the_zone_it_was_read_in_and_keeps_its_time(user: Any) -> None:
    user.time_zone = "Asia/Shanghai"
    user.save()
    client = Client()
    client.force_login(user)
    send(client)
    before = reading_row(client.get("/").content.decode())

    user.time_zone = "America/New_York"
    user.save()
    after = reading_row(client.get("/").content.decode())

    assert "今晚 9 点 (Asia/Shanghai) → " in before
    assert before.endswith("21:00")
    # The words were read in Shanghai's +08:00: shown with that offset and Shanghai's 21:00.
    assert "今晚 9 点 (UTC+08:00) → " in after
    assert after.endswith("21:00")
