"""Structured logs: one JSON object per line, one request id per request, no secret in them."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from rest_framework.authtoken.models import Token

from lightnote.ops.logs import (
    REDACTED,
    JsonFormatter,
    RedactFilter,
    RequestContextFilter,
    TextFormatter,
    bind_log_context,
    log_context,
)
from tests.agent_helpers import flow_with_card

pytestmark = pytest.mark.django_db


class Captured:
    """What the configured pipeline (filters, then the formatter) wrote, line by line."""

    def __init__(self, stream: io.StringIO) -> None:
        self.stream = stream
        self.mark = 0

    def start(self) -> None:
        self.mark = len(self.stream.getvalue())

    @property
    def text(self) -> str:
        return self.stream.getvalue()[self.mark :]

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.text.splitlines() if line.strip()]


@pytest.fixture
def captured() -> Iterator[Captured]:
    """Every record at INFO and above, through the same filters and JSON formatter as
    ``settings.LOGGING`` configures (``lightnote.ops.logs.logging_config``)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RequestContextFilter())
    handler.addFilter(RedactFilter())
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield Captured(stream)
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def test_one_confirm_logs_one_request_id_and_no_token(user: Any, captured: Captured) -> None:
    flow = flow_with_card(user)
    api_token = Token.objects.get(user=user).key
    captured.start()

    response = flow.confirm()

    assert response.status_code == 200, response.content
    lines = captured.lines()
    assert lines, "the confirm logged nothing"
    assert {line["request_id"] for line in lines} == {response["X-Request-ID"]}
    [request_line] = [line for line in lines if line["logger"] == "lightnote.request"]
    assert request_line["route"] == "/api/v1/agent/confirmations/confirm/"
    assert request_line["status"] == 200
    assert request_line["user_id"] == user.pk
    assert request_line["method"] == "POST"
    assert request_line["duration_ms"] >= 0
    for secret in (flow.token, flow.card["continuation_token"], api_token, "pw-alice"):
        assert secret not in captured.text
    assert flow.card["args"]["title"] not in captured.text


def test_a_card_turn_logs_the_card_it_issued_under_the_turns_request_id(
    user: Any, captured: Captured
) -> None:
    captured.start()

    flow = flow_with_card(user)

    [line] = [line for line in captured.lines() if line.get("event") == "card.issued"]
    assert line["action_id"] == flow.card["card_id"]
    assert line["capability"] == "todo.create"
    requests = [item for item in captured.lines() if item["logger"] == "lightnote.request"]
    assert line["request_id"] == requests[-1]["request_id"]
    assert flow.card["args"]["title"] not in captured.text
    assert flow.token not in captured.text


def test_secret_bearing_fields_and_credentials_in_messages_are_redacted(
    captured: Captured,
) -> None:
    card_token = "Q" * 43
    captured.start()
    logger = logging.getLogger("lightnote.test")

    logger.warning(
        "confirm with %s failed (Authorization: Token %s)",
        card_token,
        "f" * 40,
        extra={"password": "hunter2", "title": "买牛奶", "prompt": "you are", "card_id": "c-1"},
    )

    [line] = captured.lines()
    assert card_token not in captured.text
    assert "f" * 40 not in captured.text
    assert (line["password"], line["title"], line["prompt"]) == (REDACTED, REDACTED, REDACTED)
    assert line["card_id"] == "c-1"
    assert "hunter2" not in captured.text
    assert "买牛奶" not in captured.text


def test_bound_ids_ride_on_every_line_of_the_context_and_end_with_it(captured: Captured) -> None:
    logger = logging.getLogger("lightnote.test")
    captured.start()

    with log_context(request_id="r-1"):
        bind_log_context(action_id="a-1", card_id=None)
        logger.warning("inside")
    logger.warning("outside")
    bind_log_context(action_id="ignored outside a request")

    inside, outside = captured.lines()
    assert (inside["request_id"], inside["action_id"]) == ("r-1", "a-1")
    assert "card_id" not in inside
    assert "request_id" not in outside
    assert "action_id" not in outside


def test_each_line_is_one_json_object_even_with_a_traceback(captured: Captured) -> None:
    captured.start()
    try:
        raise ValueError("line one\nline two")
    except ValueError:
        logging.getLogger("lightnote.test").exception("it failed")

    lines = captured.text.splitlines()
    assert len(lines) == 1
    entry = json.loads(lines[0])
    assert entry["level"] == "ERROR"
    assert "line two" in entry["exception"]


def test_the_text_format_keeps_the_context_fields() -> None:
    record = logging.LogRecord("lightnote.test", logging.INFO, __file__, 1, "hello", None, None)
    record.request_id = "r-9"

    assert TextFormatter().format(record).endswith("hello [request_id=r-9]")


_LOG_PROBE = """
import json, lightnote.settings as s
print(json.dumps({"format": s.LIGHTNOTE_LOG_FORMAT, "require_worker": s.LIGHTNOTE_REQUIRE_WORKER,
                  "formatter": s.LOGGING["formatters"]["line"]["()"]}))
"""


def _settings_under(env: dict[str, str]) -> tuple[int, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LIGHTNOTE_", "OPENAI_"))}
    base.pop("DJANGO_SETTINGS_MODULE", None)
    root = Path(django_settings.BASE_DIR)
    result = subprocess.run(
        [sys.executable, "-c", _LOG_PROBE],
        env={**base, "PYTHONPATH": str(root), "LIGHTNOTE_SECRET_KEY": "s" * 50, **env},
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return result.returncode, result.stdout or result.stderr


def test_log_format_and_required_worker_defaults_follow_debug_and_the_embedded_store() -> None:
    code, production = _settings_under({"LIGHTNOTE_REDIS_URL": "redis://127.0.0.1:6379/0"})
    assert code == 0, production
    assert json.loads(production) == {
        "format": "json",
        "require_worker": True,
        "formatter": "lightnote.ops.logs.JsonFormatter",
    }
    code, development = _settings_under({"LIGHTNOTE_DEBUG": "1"})
    assert code == 0, development
    assert json.loads(development) == {
        "format": "text",
        "require_worker": False,
        "formatter": "lightnote.ops.logs.TextFormatter",
    }


def test_an_unknown_log_format_stops_start_up() -> None:
    code, output = _settings_under({"LIGHTNOTE_LOG_FORMAT": "xml"})

    assert code != 0
    assert "LIGHTNOTE_LOG_FORMAT" in output
