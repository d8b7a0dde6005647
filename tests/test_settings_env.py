from __future__ import annotations

import os

import pytest
from django.core.exceptions import ImproperlyConfigured

from lightnote import settings as app_settings


@pytest.mark.parametrize(
    ("helper", "value"),
    [
        (app_settings.env_bool, "maybe"),
        (app_settings.env_int, "ten"),
        (app_settings.env_time_zone, "Mars/Olympus"),
        (app_settings.env_rate, "sixty per minute"),
    ],
)
def test_bad_environment_values_stop_start_up_with_the_variable_named(
    monkeypatch: pytest.MonkeyPatch, helper, value
) -> None:
    monkeypatch.setenv("LIGHTNOTE_X", value)
    default = {"env_bool": False, "env_int": 1, "env_time_zone": "UTC", "env_rate": "1/m"}
    with pytest.raises(ImproperlyConfigured, match="LIGHTNOTE_X"):
        helper("LIGHTNOTE_X", default[helper.__name__])


def test_database_urls_select_the_backend() -> None:
    mysql = app_settings.database_from_url("mysql://root:pw@db.example:3307/lightnote")
    assert mysql["ENGINE"] == "django.db.backends.mysql"
    assert (mysql["NAME"], mysql["USER"], mysql["PASSWORD"], mysql["PORT"]) == (
        "lightnote",
        "root",
        "pw",
        "3307",
    )
    assert mysql["OPTIONS"]["charset"] == "utf8mb4"
    sqlite = app_settings.database_from_url("sqlite:////tmp/x.sqlite3")
    assert sqlite["NAME"] == "/tmp/x.sqlite3"
    with pytest.raises(ImproperlyConfigured, match="LIGHTNOTE_DATABASE_URL"):
        app_settings.database_from_url("postgres://x/y")


def test_env_int_accepts_a_valid_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIGHTNOTE_X", "42")
    assert app_settings.env_int("LIGHTNOTE_X", 1) == 42
    monkeypatch.delenv("LIGHTNOTE_X")
    assert app_settings.env_int("LIGHTNOTE_X", 7) == 7
    assert "LIGHTNOTE_X" not in os.environ


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"LIGHTNOTE_SETTLED_TTL": "60", "LIGHTNOTE_EXECUTION_LEASE": "90"},
            "LIGHTNOTE_SETTLED_TTL",
        ),
        (
            {"LIGHTNOTE_IDEMPOTENCY_TTL": "60", "LIGHTNOTE_EXECUTION_LEASE": "60"},
            "LIGHTNOTE_IDEMPOTENCY_TTL",
        ),
        ({"LIGHTNOTE_CONFIRMATION_TTL": "7200"}, "LIGHTNOTE_CONFIRMATION_TTL"),
    ],
)
def test_inconsistent_lifetimes_stop_start_up(env: dict[str, str], message: str) -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", "import lightnote.settings"],
        env={**os.environ, "LIGHTNOTE_DEBUG": "1", **env},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert message in result.stderr
