"""Settings for the test suite: the real settings with a few test-only overrides.

``LIGHTNOTE_TEST_BACKEND=services`` (set by ``make test`` for its second pass) runs the
same suite against MariaDB and a real Redis; see ``tests/conftest.py``.
"""

import os

os.environ.setdefault("LIGHTNOTE_SECRET_KEY", "test-secret-key-for-the-test-suite-only-0123456789")
os.environ.setdefault("LIGHTNOTE_HTTPS", "0")
# No worker runs beside the test suite: readiness reports it without failing (tests that
# are about the worker set it themselves).
os.environ.setdefault("LIGHTNOTE_REQUIRE_WORKER", "0")
# Tests never reach a real model: the OpenAI planner is tested against a local fake server.
os.environ.pop("OPENAI_API_KEY", None)
os.environ["LIGHTNOTE_PLANNER"] = "rules"

TEST_BACKEND = os.environ.get("LIGHTNOTE_TEST_BACKEND", "embedded")
if TEST_BACKEND == "services":
    os.environ.setdefault("LIGHTNOTE_DATABASE_URL", "mysql://root@127.0.0.1:3306/lightnote")
    os.environ.setdefault("LIGHTNOTE_REDIS_URL", "redis://127.0.0.1:6379/15")
else:
    os.environ["LIGHTNOTE_DATABASE_URL"] = "sqlite:///:memory:"  # the test database is in memory
    os.environ["LIGHTNOTE_REDIS_URL"] = "fakeredis://tests"

from lightnote.settings import *  # noqa: E402

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES["staticfiles"]["BACKEND"] = "django.contrib.staticfiles.storage.StaticFilesStorage"
LOGGING["root"]["level"] = "WARNING"  # type: ignore[index]
