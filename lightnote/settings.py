"""LightNote settings, read from the environment through small typed helpers.

Every variable is documented in ``docs/configuration.md``. A bad value stops start-up
with ``ImproperlyConfigured`` naming the variable, never a silent default.
"""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from lightnote.ops.logs import logging_config

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    """Return the variable as a string, or ``default`` when unset."""
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    """Return the variable as a boolean (1/0, true/false, yes/no, on/off)."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {raw!r}")


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    """Return the variable as an integer no smaller than ``minimum``."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {value}")
    return value


_RATE = re.compile(r"^\d+/(\d*)(s|m|h|d|sec|min|hour|day)$")


def env_rate(name: str, default: str) -> str:
    """Return a rate such as ``60/min`` (``lightnote.controlstore.limits.parse_rate``'s form)."""
    value = os.environ.get(name, default).strip()
    if not _RATE.match(value):
        raise ImproperlyConfigured(f"{name} must look like '60/min' or '10/s', got {value!r}")
    return value


def env_time_zone(name: str, default: str) -> str:
    """Return a zone name a user could pick (``lightnote.times.allowed_time_zones``)."""
    from lightnote.times import is_allowed_time_zone  # plain Python: safe before apps load

    value = os.environ.get(name, default).strip()
    if not is_allowed_time_zone(value):
        raise ImproperlyConfigured(f"{name} must be an IANA time zone, got {value!r}") from None
    return value


def email_from_url(url: str) -> dict[str, object]:
    """Django's email settings from ``LIGHTNOTE_EMAIL_URL``: ``smtp://user:pass@host:port``
    (``smtps://`` for TLS on connect, ``?starttls=1`` for STARTTLS), ``console:`` or
    ``file:///dir`` (``locmem:`` for tests)."""
    parts = urlsplit(url)
    if parts.scheme == "console":
        return {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}
    if parts.scheme == "locmem":  # tests: Django's outbox
        return {"EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend"}
    if parts.scheme == "file":
        if not parts.path:
            raise ImproperlyConfigured("LIGHTNOTE_EMAIL_URL file:/// must name a directory")
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "EMAIL_FILE_PATH": unquote(parts.path),
        }
    if parts.scheme in ("smtp", "smtps"):
        if not parts.hostname:
            raise ImproperlyConfigured("LIGHTNOTE_EMAIL_URL smtp:// must name a host")
        query = parse_qs(parts.query)
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": parts.hostname,
            "EMAIL_PORT": parts.port or (465 if parts.scheme == "smtps" else 25),
            "EMAIL_HOST_USER": unquote(parts.username or ""),
            "EMAIL_HOST_PASSWORD": unquote(parts.password or ""),
            "EMAIL_USE_SSL": parts.scheme == "smtps",
            "EMAIL_USE_TLS": query.get("starttls", ["0"])[0] in _TRUE,
        }
    raise ImproperlyConfigured(
        "LIGHTNOTE_EMAIL_URL must start with smtp://, smtps://, console: or file:///, "
        f"got {parts.scheme!r}"
    )


def database_from_url(url: str) -> dict[str, object]:
    """Turn ``sqlite:///path`` or ``mysql://user:pass@host:port/name`` into a DATABASES entry."""
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        # sqlite:////abs/path.db is absolute, sqlite:///rel.db is relative to the project.
        path = unquote(parts.path)
        if path.lstrip("/") == ":memory:":
            name = ":memory:"
        elif path.startswith("//"):
            name = path[1:]
        else:
            name = str(BASE_DIR / (path.lstrip("/") or "db.sqlite3"))
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": name, "OPTIONS": {"timeout": 20}}
    if parts.scheme in {"mysql", "mariadb"}:
        if not parts.path.strip("/"):
            raise ImproperlyConfigured(
                "LIGHTNOTE_DATABASE_URL must name a database: mysql://.../name"
            )
        query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        return {
            "ENGINE": "django.db.backends.mysql",
            "NAME": unquote(parts.path.strip("/")),
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "127.0.0.1",
            "PORT": str(parts.port or 3306),
            # Persistent connections (one per worker thread), no ping per request: the
            # connection is younger than the server's wait_timeout, and one that broke
            # anyway (a server restart) fails one request and is then replaced (Django
            # drops a connection that raised). docs/performance.md measures the ping.
            "CONN_MAX_AGE": int(query.get("conn_max_age", "60")),
            "CONN_HEALTH_CHECKS": env_bool("LIGHTNOTE_DB_HEALTH_CHECKS", False),
            "OPTIONS": {
                "charset": "utf8mb4",
                "isolation_level": "read committed",
                "init_command": "SET sql_mode='STRICT_TRANS_TABLES'",
            },
            "TEST": {"CHARSET": "utf8mb4", "COLLATION": "utf8mb4_unicode_ci"},
        }
    raise ImproperlyConfigured(
        f"LIGHTNOTE_DATABASE_URL must start with sqlite:// or mysql://, got {parts.scheme!r}"
    )


# --- Core -------------------------------------------------------------------------------

DEBUG = env_bool("LIGHTNOTE_DEBUG", False)
SECRET_KEY = env_str("LIGHTNOTE_SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "LIGHTNOTE_SECRET_KEY must be set when LIGHTNOTE_DEBUG is off "
            "(generate one with: python -c 'import secrets; print(secrets.token_urlsafe(50))')"
        )
    SECRET_KEY = "lightnote-dev-only-insecure-key-not-for-production-use-0123456789"

ALLOWED_HOSTS = [h.strip() for h in env_str("LIGHTNOTE_ALLOWED_HOSTS").split(",") if h.strip()]
if DEBUG and not ALLOWED_HOSTS:
    ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

HTTPS = env_bool("LIGHTNOTE_HTTPS", not DEBUG)
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = 31_536_000 if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if HTTPS else None
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True

INSTALLED_APPS = [
    "lightnote.apps.LightNoteConfig",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "todos.apps.TodosConfig",
    "notes.apps.NotesConfig",
    "agent.apps.AgentConfig",
    "mcpserver.apps.McpServerConfig",
    # Failed-login lockouts (lightnote.accounts.login_throttle): django-axes, named for the admin.
    "lightnote.accounts.axes_app.AxesConfig",
    "lightnote.accounts.apps.AccountsConfig",  # sign-up, verification, caps (lightnote/accounts)
    "lightnote.ops.apps.OpsConfig",  # health, metrics, logs, traces (docs/operations.md)
    # --- reminders, notifications, calendar feed; the task queue (docs/reminders.md) ---
    "django_tasks",
    "django_tasks_db",
    "reminders.apps.RemindersConfig",
]

MIDDLEWARE = [
    # Outermost: the request id on every response, the request's log line and metrics
    # (lightnote/ops/middleware.py; no SQL, no Redis).
    "lightnote.ops.middleware.RequestObservabilityMiddleware",
    # Then: an oversized body is refused unread; a lost database answers 503 (security.md).
    "lightnote.rest.http_guards.HostileInputMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    # Inside the security headers: an over-long request line or header is 414/431.
    "lightnote.rest.http_guards.RequestLimitsMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # The API's own language rule for Django's and DRF's texts (lightnote/texts/middleware.py).
    "lightnote.texts.middleware.ApiLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Signed-in HTML is never cached: Back re-reads a card's state (lightnote/pages/).
    "lightnote.pages.cache_control.SignedInNoStoreMiddleware",
    # Admin read-only impersonation, enforced in one place (lightnote/impersonation/readonly.py).
    "lightnote.impersonation.readonly.AdminReadOnlyMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a lockout into the 429 answer
]

# A measuring instrument for `make bench`: per-response SQL and Redis counts in headers.
if env_bool("LIGHTNOTE_REQUEST_COUNTERS", False):
    MIDDLEWARE.insert(0, "lightnote.ops.request_counters.RequestCountersMiddleware")

ROOT_URLCONF = "lightnote.urls"
WSGI_APPLICATION = "lightnote.wsgi.application"
ASGI_APPLICATION = "lightnote.asgi.application"
AUTH_USER_MODEL = "lightnote.User"
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "lightnote.pages.context_processors.admin_context",
            ],
        },
    },
]

# --- Data -------------------------------------------------------------------------------

DATABASES = {
    "default": database_from_url(
        env_str("LIGHTNOTE_DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
    )
}
if env_str("LIGHTNOTE_TEST_DATABASE_NAME"):
    DATABASES["default"].setdefault("TEST", {})  # type: ignore[call-overload]
    DATABASES["default"]["TEST"]["NAME"] = env_str("LIGHTNOTE_TEST_DATABASE_NAME")  # type: ignore[index]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Redis holds short-lived control state only (cards, continuations, idempotency claims,
# rate-limit counters). "fakeredis://" is an in-process server for the embedded default.
REDIS_URL = env_str("LIGHTNOTE_REDIS_URL", "fakeredis://embedded")
REDIS_CLUSTER = env_bool("LIGHTNOTE_REDIS_CLUSTER", False)
REDIS_SOCKET_TIMEOUT = float(env_int("LIGHTNOTE_REDIS_TIMEOUT_MS", 2000, minimum=50)) / 1000
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "ln",
        "OPTIONS": {
            "SOCKET_CONNECT_TIMEOUT": REDIS_SOCKET_TIMEOUT,
            "SOCKET_TIMEOUT": REDIS_SOCKET_TIMEOUT,
        },
    }
}
DJANGO_REDIS_CONNECTION_FACTORY = "lightnote.controlstore.redis.ConnectionFactory"
SESSION_ENGINE = "django.contrib.sessions.backends.db"

# --- Internationalisation ---------------------------------------------------------------

LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
USE_TZ = True
TIME_ZONE = env_time_zone("LIGHTNOTE_TIME_ZONE", "Asia/Shanghai")
LIGHTNOTE_TIME_ZONE = TIME_ZONE

# --- Request limits (docs/security.md) ---------------------------------------------------

# The largest request body accepted (bytes); larger is a 413 REQUEST_TOO_LARGE, unread.
LIGHTNOTE_MAX_BODY_BYTES = env_int("LIGHTNOTE_MAX_BODY_BYTES", 1_048_576, minimum=1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = LIGHTNOTE_MAX_BODY_BYTES
# The request line and header limits Django answers itself (414 URI_TOO_LONG, 431
# HEADERS_TOO_LARGE as the error body); gunicorn's own are set above them
# (gunicorn.conf.py), so it hands such a request on instead of answering it in HTML.
LIGHTNOTE_MAX_REQUEST_LINE = env_int("LIGHTNOTE_MAX_REQUEST_LINE", 4094, minimum=256)
LIGHTNOTE_MAX_HEADER_FIELD = env_int("LIGHTNOTE_MAX_HEADER_FIELD", 8190, minimum=256)
LIGHTNOTE_MAX_HEADER_FIELDS = env_int("LIGHTNOTE_MAX_HEADER_FIELDS", 100, minimum=10)
FILE_UPLOAD_MAX_MEMORY_SIZE = LIGHTNOTE_MAX_BODY_BYTES
CSRF_FAILURE_VIEW = "lightnote.rest.http_guards.csrf_failure"

# Content-Security-Policy on every response: scripts and styles from this origin only (no
# CDN, no inline code); the few inline <style> blocks (admin banner, API docs pages) carry
# the per-response nonce. Swagger runs as drf-spectacular's split view (its init script is
# a separate same-origin file). Tested in a browser: tests/test_browser_csp.py.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],
        "img-src": [SELF, "data:"],
        "font-src": [SELF, "data:"],
        "connect-src": [SELF],
        "worker-src": [SELF, "blob:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# --- Static files -----------------------------------------------------------------------

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "lightnote" / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# --- API --------------------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # First: an MCP token is recognised (and refused for writes) before DRF's token
        # class would call it merely invalid.
        "mcpserver.authentication.McpTokenAuthentication",
        "lightnote.accounts.authentication.TokenAuthentication",
        "lightnote.accounts.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "lightnote.impersonation.permissions.IsAuthenticatedNoAdminWrites"
    ],
    "DEFAULT_PAGINATION_CLASS": "lightnote.rest.pagination.Pagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "lightnote.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["lightnote.rest.parsers.LimitedJSONParser"],
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "LightNote API",
    "DESCRIPTION": "Todos, notes and an agent whose writes need a confirmed card.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No badge from the online validator (an outside image the CSP would refuse).
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        # 413 / 503 / MALFORMED_REQUEST (security.md)
        "lightnote.rest.openapi.document_edge_errors",
        "lightnote.rest.openapi.declare_retry_after",
        # Lengths, patterns, ranges the server enforces (schemathesis checks them).
        "lightnote.rest.openapi_constraints.declare_enforced_constraints",
    ],
    "ENUM_NAME_OVERRIDES": {
        "TodoStatusEnum": "todos.models.Todo.Status",
        "ChoiceHistoryStateEnum": "agent.choices.store.HISTORY_STATES",
        "CardStateEnum": ["ready"],
    },
    # The agent's operations in the order a client uses them.
    "TAGS": [
        {"name": "v1", "description": "The account, todos and notes."},
        {"name": "agent 1. conversations", "description": "Open a conversation."},
        {
            "name": "agent 2. messages and cards",
            "description": "Send a message; a proposed write comes back as a card.",
        },
        {
            "name": "agent 3. confirming a card",
            "description": "Confirm (exactly once), reject, or follow a card's state.",
        },
        {
            "name": "agent 4. the final reply",
            "description": "After a success: the reply, fetched with the continuation_token.",
        },
        {
            "name": "agent 5. history",
            "description": "Conversations and their messages, with every card's current state.",
        },
    ],
}

# --- Agent ------------------------------------------------------------------------------

LIGHTNOTE_CONFIRMATION_TTL = env_int("LIGHTNOTE_CONFIRMATION_TTL", 300, minimum=1)
LIGHTNOTE_EXECUTION_LEASE = env_int("LIGHTNOTE_EXECUTION_LEASE", 30, minimum=1)
# How long after a confirm read its card a claim may still apply, in the store's clock
# (record_transition.lua's deadline): at most half the Redis socket timeout, so a claim that
# applies has its answer back before the request gives up; a later one is refused, nothing
# written, and the card stays confirmable after the 503.
LIGHTNOTE_CLAIM_DEADLINE_MS = env_int(
    "LIGHTNOTE_CLAIM_DEADLINE_MS", max(25, int(REDIS_SOCKET_TIMEOUT * 500)), minimum=10
)
if LIGHTNOTE_CLAIM_DEADLINE_MS >= REDIS_SOCKET_TIMEOUT * 1000:
    raise ImproperlyConfigured(
        "LIGHTNOTE_CLAIM_DEADLINE_MS must be shorter than LIGHTNOTE_REDIS_TIMEOUT_MS"
    )
LIGHTNOTE_SETTLED_TTL = env_int("LIGHTNOTE_SETTLED_TTL", 86_400, minimum=60)
LIGHTNOTE_IDEMPOTENCY_TTL = env_int("LIGHTNOTE_IDEMPOTENCY_TTL", 86_400, minimum=60)
# How long a clarifying question waits for its answer (the session's pending request).
LIGHTNOTE_PENDING_TTL = env_int("LIGHTNOTE_PENDING_TTL", 900, minimum=10)
# A running record must outlive its lease, or it could vanish mid-run (answering 410); and a
# card must not outlive its continuation, which expires one hour after it is issued.
for _name in ("LIGHTNOTE_SETTLED_TTL", "LIGHTNOTE_IDEMPOTENCY_TTL"):
    if globals()[_name] <= LIGHTNOTE_EXECUTION_LEASE:
        raise ImproperlyConfigured(f"{_name} must be longer than LIGHTNOTE_EXECUTION_LEASE")
if LIGHTNOTE_CONFIRMATION_TTL > 3600:
    raise ImproperlyConfigured("LIGHTNOTE_CONFIRMATION_TTL must be at most 3600 (one hour)")
# Deleted todos and notes stay in the trash, restorable, for this many days; then
# ``manage.py purge_trash`` (run it daily) removes them for good.
LIGHTNOTE_TRASH_RETENTION = env_int("LIGHTNOTE_TRASH_RETENTION", 30, minimum=1)
# How long after a card settles its outcome offers "Undo" (a card for the compensating action).
LIGHTNOTE_UNDO_WINDOW = env_int("LIGHTNOTE_UNDO_WINDOW", 600, minimum=10)
LIGHTNOTE_RATE_LIMIT_CARDS = env_rate("LIGHTNOTE_RATE_LIMIT_CARDS", "60/m")
LIGHTNOTE_RATE_LIMIT_CONFIRMS = env_rate("LIGHTNOTE_RATE_LIMIT_CONFIRMS", "60/m")
# Unknown or expired card/continuation tokens per user; further misses answer 429.
LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES = env_rate("LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES", "20/m")
# Cards one message may make; further write proposals get the notice TOO_MANY_PROPOSALS.
LIGHTNOTE_MAX_CARDS_PER_TURN = env_int("LIGHTNOTE_MAX_CARDS_PER_TURN", 5, minimum=1)
OPENAI_API_KEY = env_str("OPENAI_API_KEY")
OPENAI_BASE_URL = env_str("OPENAI_BASE_URL") or None
LIGHTNOTE_LLM_MODEL = env_str("LIGHTNOTE_LLM_MODEL", "gpt-4o-mini")
LIGHTNOTE_LLM_TIMEOUT = env_int("LIGHTNOTE_LLM_TIMEOUT", 30, minimum=1)
LIGHTNOTE_PLANNER = env_str("LIGHTNOTE_PLANNER", "openai" if OPENAI_API_KEY else "rules")
if LIGHTNOTE_PLANNER not in {"rules", "openai"}:
    raise ImproperlyConfigured(
        f"LIGHTNOTE_PLANNER must be 'rules' or 'openai', got {LIGHTNOTE_PLANNER!r}"
    )
if LIGHTNOTE_PLANNER == "openai" and not OPENAI_API_KEY:
    raise ImproperlyConfigured("LIGHTNOTE_PLANNER=openai needs OPENAI_API_KEY")
# The guard's optional second check (agent/guard/model_check.py): with a model configured,
# ask it which actions a reply claims; it may only add removals; off by default.
LIGHTNOTE_GUARD_MODEL_CHECK = env_bool("LIGHTNOTE_GUARD_MODEL_CHECK", False)
LIGHTNOTE_GUARD_MODEL_TIMEOUT_MS = env_int("LIGHTNOTE_GUARD_MODEL_TIMEOUT_MS", 3000, minimum=100)

# --- Failed logins (lightnote/login_throttle.py; docs/security.md, "Throttles") ----------

# LIGHTNOTE_LOGIN_FAILURE_LIMIT failed logins by one username from one client address lock
# that pair out for LIGHTNOTE_LOGIN_COOLOFF seconds, on the token endpoint and the login page.
LIGHTNOTE_LOGIN_FAILURE_LIMIT = env_int("LIGHTNOTE_LOGIN_FAILURE_LIMIT", 5, minimum=1)
LIGHTNOTE_LOGIN_COOLOFF = env_int("LIGHTNOTE_LOGIN_COOLOFF", 900, minimum=1)
AUTHENTICATION_BACKENDS = [
    "lightnote.accounts.login_throttle.LoginThrottleBackend",  # first: refuses a locked-out pair
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_FAILURE_LIMIT = LIGHTNOTE_LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = timedelta(seconds=LIGHTNOTE_LOGIN_COOLOFF)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_USERNAME_CALLABLE = "lightnote.accounts.login_throttle.lockout_username"
AXES_LOCKOUT_CALLABLE = "lightnote.accounts.login_throttle.lockout_response"
AXES_RESET_ON_SUCCESS = True
AXES_DISABLE_ACCESS_LOG = True  # successful logins are not logged by axes (no unbounded table)
AXES_VERBOSE = False
# The client address is REMOTE_ADDR (axes' default): a forwarded header is never trusted.

# --- Accounts (lightnote/accounts/; docs/accounts.md) -----------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LIGHTNOTE_SIGNUP = env_str("LIGHTNOTE_SIGNUP", "open").strip().lower()
if LIGHTNOTE_SIGNUP not in {"open", "closed"}:
    raise ImproperlyConfigured(f"LIGHTNOTE_SIGNUP must be open or closed, got {LIGHTNOTE_SIGNUP!r}")
# Sign-ups, password-reset requests and verification mails per client address.
LIGHTNOTE_RATE_LIMIT_SIGNUPS = env_rate("LIGHTNOTE_RATE_LIMIT_SIGNUPS", "5/h")
LIGHTNOTE_RATE_LIMIT_PASSWORD_RESETS = env_rate("LIGHTNOTE_RATE_LIMIT_PASSWORD_RESETS", "5/h")
# How long an emailed verification link works (seconds).
LIGHTNOTE_EMAIL_VERIFICATION_TTL = env_int(
    "LIGHTNOTE_EMAIL_VERIFICATION_TTL", 3 * 86_400, minimum=60
)
# Per-user caps: creating past one answers 403 <KIND>_LIMIT_REACHED (lightnote/accounts/caps.py).
LIGHTNOTE_MAX_TODOS = env_int("LIGHTNOTE_MAX_TODOS", 10_000, minimum=1)
LIGHTNOTE_MAX_NOTES = env_int("LIGHTNOTE_MAX_NOTES", 10_000, minimum=1)
LIGHTNOTE_MAX_CONVERSATIONS = env_int("LIGHTNOTE_MAX_CONVERSATIONS", 1_000, minimum=1)
LIGHTNOTE_MAX_MCP_TOKENS = env_int("LIGHTNOTE_MAX_MCP_TOKENS", 20, minimum=1)
LIGHTNOTE_MAX_NOTIFICATIONS = env_int("LIGHTNOTE_MAX_NOTIFICATIONS", 1_000, minimum=1)
# Mail: console by default, so `make run` prints the reset and verification links.
_EMAIL = email_from_url(env_str("LIGHTNOTE_EMAIL_URL", "console:"))
EMAIL_BACKEND = str(_EMAIL["EMAIL_BACKEND"])
EMAIL_FILE_PATH = str(_EMAIL.get("EMAIL_FILE_PATH", ""))
EMAIL_HOST = str(_EMAIL.get("EMAIL_HOST", "localhost"))
EMAIL_PORT = int(str(_EMAIL.get("EMAIL_PORT", 25)))
EMAIL_HOST_USER = str(_EMAIL.get("EMAIL_HOST_USER", ""))
EMAIL_HOST_PASSWORD = str(_EMAIL.get("EMAIL_HOST_PASSWORD", ""))
EMAIL_USE_SSL = bool(_EMAIL.get("EMAIL_USE_SSL", False))
EMAIL_USE_TLS = bool(_EMAIL.get("EMAIL_USE_TLS", False))
DEFAULT_FROM_EMAIL = env_str("LIGHTNOTE_EMAIL_FROM", "LightNote <noreply@localhost>")
PASSWORD_RESET_TIMEOUT = env_int("LIGHTNOTE_PASSWORD_RESET_TIMEOUT", 3600, minimum=60)

# --- MCP server (docs/mcp.md) -----------------------------------------------------------

# The address people open LightNote at: confirmation links handed to MCP clients use it.
LIGHTNOTE_PUBLIC_URL = env_str("LIGHTNOTE_PUBLIC_URL", "http://127.0.0.1:8000").rstrip("/")
if not re.match(r"^https?://[^/\s]+(/[^\s]*)?$", LIGHTNOTE_PUBLIC_URL):
    raise ImproperlyConfigured(
        f"LIGHTNOTE_PUBLIC_URL must be an http(s) URL, got {LIGHTNOTE_PUBLIC_URL!r}"
    )
LIGHTNOTE_MCP_BIND = env_str("LIGHTNOTE_MCP_BIND", "127.0.0.1:8765")
if not re.match(r"^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.\-]+):\d{1,5}$", LIGHTNOTE_MCP_BIND):
    raise ImproperlyConfigured(
        f"LIGHTNOTE_MCP_BIND must look like host:port, got {LIGHTNOTE_MCP_BIND!r}"
    )
# Extra Host and Origin values the HTTP transport accepts beside its own bind address
# (comma-separated, e.g. the public name behind a reverse proxy). DNS-rebinding protection
# stays on: a value not listed is refused.
LIGHTNOTE_MCP_ALLOWED_HOSTS = [
    h.strip() for h in env_str("LIGHTNOTE_MCP_ALLOWED_HOSTS").split(",") if h.strip()
]
LIGHTNOTE_MCP_ALLOWED_ORIGINS = [
    o.strip() for o in env_str("LIGHTNOTE_MCP_ALLOWED_ORIGINS").split(",") if o.strip()
]

# --- Serving and logging ----------------------------------------------------------------

# --- Operations: health, metrics, logs, traces (docs/operations.md) ----------------------

# /metrics answers only with "Authorization: Bearer <this>"; unset: /metrics is a 404.
LIGHTNOTE_METRICS_TOKEN = env_str("LIGHTNOTE_METRICS_TOKEN")
# /readyz: each probe's deadline, and how old the worker's last heartbeat may be.
LIGHTNOTE_READINESS_TIMEOUT_MS = env_int("LIGHTNOTE_READINESS_TIMEOUT_MS", 1000, minimum=50)
if LIGHTNOTE_READINESS_TIMEOUT_MS > 1800:
    raise ImproperlyConfigured("LIGHTNOTE_READINESS_TIMEOUT_MS must be at most 1800")
LIGHTNOTE_WORKER_HEARTBEAT_MAX_AGE = env_int("LIGHTNOTE_WORKER_HEARTBEAT_MAX_AGE", 120, minimum=5)
# A missing or stale worker fails readiness only when required (off for DEBUG and embedded).
LIGHTNOTE_REQUIRE_WORKER = env_bool(
    "LIGHTNOTE_REQUIRE_WORKER", not DEBUG and not REDIS_URL.startswith("fakeredis://")
)
LIGHTNOTE_LOG_FORMAT = env_str("LIGHTNOTE_LOG_FORMAT", "text" if DEBUG else "json")
if LIGHTNOTE_LOG_FORMAT not in {"json", "text"}:
    raise ImproperlyConfigured(
        f"LIGHTNOTE_LOG_FORMAT must be 'json' or 'text', got {LIGHTNOTE_LOG_FORMAT!r}"
    )
# The load balancer's probes may come over plain HTTP (HTTPS on redirects everything else).
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]

LOGGING = logging_config(
    log_format=LIGHTNOTE_LOG_FORMAT, level=env_str("LIGHTNOTE_LOG_LEVEL", "INFO")
)

# --- Reminders and the background worker (docs/reminders.md) -----------------------------

# The task queue is django-tasks with its database backend: `manage.py worker` runs it, in as
# many processes and machines as share the database (docs/operations.md, "Background worker").
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
# Seconds between two scans for due reminders (a reminder is delivered within about this).
LIGHTNOTE_REMINDER_SCAN_SECONDS = env_int("LIGHTNOTE_REMINDER_SCAN_SECONDS", 5, minimum=1)
# Two "kind" enums now (a notification's, an agent choice's): each gets its own name.
SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(  # type: ignore[attr-defined]
    {"NotificationKindEnum": "reminders.models.Notification.Kind", "ChoiceKindEnum": ["choice"]}
)
