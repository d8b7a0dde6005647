"""Production settings pass Django's deployment checklist without a single warning."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent


def _production_env() -> dict[str, str]:
    # Start from the caller's environment minus every LightNote/Django setting, so the
    # test pass's own overrides (test database, fakeredis, plain HTTP) cannot leak in.
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("LIGHTNOTE_", "DJANGO_", "OPENAI_"))
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "lightnote.settings",
            "LIGHTNOTE_DEBUG": "0",
            "LIGHTNOTE_SECRET_KEY": secrets.token_urlsafe(50),
            "LIGHTNOTE_ALLOWED_HOSTS": "lightnote.example",
            "LIGHTNOTE_HTTPS": "1",
        }
    )
    return env


def test_check_deploy_passes_with_production_settings() -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=PROJECT,
        env=_production_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "System check identified no issues (0 silenced)." in output
    assert "WARNING" not in output


def test_check_deploy_flags_plain_http_so_the_check_above_can_fail() -> None:
    env = _production_env() | {"LIGHTNOTE_HTTPS": "0"}
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "security.W008" in result.stderr  # SECURE_SSL_REDIRECT off
