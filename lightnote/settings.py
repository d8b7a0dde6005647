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
    """Return a rate such as ``60/min`` in the form django-ratelimit accepts."""
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
            # Django's MySQL backend, minus a COMMIT with nothing open (lightnote.db_backends).
            "ENGINE": "lightnote.db_backends.mysql",
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
    "axes",  # failed-login lockouts (lightnote.login_throttle)
]

MIDDLEWARE = [
    # Outermost: store replies a request left for its end are read before its response
    # leaves (a confirm's settle; lightnote/store_replies.py).
    "lightnote.store_replies.StoreRepliesMiddleware",
    # Then: an oversized body is refused unread; a lost database answers 503 (security.md).
    "lightnote.http_guards.HostileInputMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    # Inside the security headers: an over-long request line or header is 414/431.
    "lightnote.http_guards.RequestLimitsMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Admin read-only impersonation, enforced in one place (lightnote/readonly.py).
    "lightnote.readonly.AdminReadOnlyMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a lockout into the 429 answer
]

# A measuring instrument for `make bench`: per-response SQL and Redis counts in headers.
if env_bool("LIGHTNOTE_REQUEST_COUNTERS", False):
    MIDDLEWARE.insert(0, "lightnote.request_counters.RequestCountersMiddleware")

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
                "lightnote.context_processors.admin_context",
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
            # Lends a confirm one connection for all its commands (lightnote/redis.py).
            "CONNECTION_POOL_CLASS": "lightnote.redis.ConnectionPool",
        },
    }
}
DJANGO_REDIS_CONNECTION_FACTORY = "lightnote.redis.ConnectionFactory"
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
CSRF_FAILURE_VIEW = "lightnote.http_guards.csrf_failure"

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
        "lightnote.authentication.TokenAuthentication",
        "lightnote.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["lightnote.permissions.IsAuthenticatedNoAdminWrites"],
    "DEFAULT_PAGINATION_CLASS": "lightnote.pagination.Pagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "lightnote.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["lightnote.parsers.LimitedJSONParser"],
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
        "lightnote.openapi.document_edge_errors",  # 413 / 503 / MALFORMED_REQUEST (security.md)
        "lightnote.openapi.declare_retry_after",
        # Lengths, patterns, ranges the server enforces (schemathesis checks them).
        "lightnote.openapi_constraints.declare_enforced_constraints",
    ],
    "ENUM_NAME_OVERRIDES": {
        "TodoStatusEnum": "todos.models.Todo.Status",
        "ChoiceHistoryStateEnum": "agent.choice_store.HISTORY_STATES",
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

# --- Failed logins (lightnote/login_throttle.py; docs/security.md, "Throttles") ----------

# LIGHTNOTE_LOGIN_FAILURE_LIMIT failed logins by one username from one client address lock
# that pair out for LIGHTNOTE_LOGIN_COOLOFF seconds, on the token endpoint and the login page.
LIGHTNOTE_LOGIN_FAILURE_LIMIT = env_int("LIGHTNOTE_LOGIN_FAILURE_LIMIT", 5, minimum=1)
LIGHTNOTE_LOGIN_COOLOFF = env_int("LIGHTNOTE_LOGIN_COOLOFF", 900, minimum=1)
AUTHENTICATION_BACKENDS = [
    "lightnote.login_throttle.LoginThrottleBackend",  # first: refuses a locked-out pair
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_FAILURE_LIMIT = LIGHTNOTE_LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = timedelta(seconds=LIGHTNOTE_LOGIN_COOLOFF)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_USERNAME_CALLABLE = "lightnote.login_throttle.lockout_username"
AXES_LOCKOUT_CALLABLE = "lightnote.login_throttle.lockout_response"
AXES_RESET_ON_SUCCESS = True
AXES_DISABLE_ACCESS_LOG = True  # successful logins are not logged by axes (no unbounded table)
AXES_VERBOSE = False
# The client address is REMOTE_ADDR (axes' default): a forwarded header is never trusted.

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

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LIGHTNOTE_LOG_LEVEL", "INFO")},
}
