from __future__ import annotations

from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_replace
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from lightnote.accounts import preferences, views
from lightnote.accounts import urls as account_urls
from lightnote.impersonation import contexts as impersonation
from lightnote.ops import views as ops_views

api_v1: list[URLPattern | URLResolver] = [
    path("auth/token/", views.TokenView.as_view(), name="auth-token"),
    *account_urls.api_v1,  # register, password reset (lightnote/accounts)
    path("me/", views.MeView.as_view(), name="me"),
    path("todos/", include("todos.urls")),
    path("notes/", include("notes.urls")),
    path(
        "admin/impersonation/",
        impersonation.AdminImpersonationView.as_view(),
        name="admin-impersonation",
    ),
    path("", include("reminders.urls")),  # notifications, calendar feed (docs/reminders.md)
    path("", include("agent.urls")),
]

urlpatterns = [
    # Probes and the scrape (docs/operations.md); no session, no user.
    path("healthz", ops_views.healthz, name="healthz"),
    path("readyz", ops_views.readyz, name="readyz"),
    path("metrics", ops_views.metrics_view, name="metrics"),
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/", include(account_urls.pages)),  # sign-up, verification, reset, export
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view: Swagger's init script is a same-origin file, so the CSP needs no
    # inline script (docs/security.md).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    # Redoc injects its styles as <style> elements at run time (no nonce): that page alone
    # allows inline styles; its scripts stay same-origin only (docs/security.md).
    path(
        "api/redoc/",
        csp_replace({"style-src": [SELF, UNSAFE_INLINE]})(
            SpectacularRedocView.as_view(url_name="schema")
        ),
        name="api-redoc",
    ),
    path("todos/", include("todos.page_urls")),
    path("notes/", include("notes.page_urls")),
    path("settings/", preferences.settings_page, name="settings-page"),
    path("", include("reminders.page_urls")),  # notifications pages, the .ics feed address
    path("", include("mcpserver.urls")),
    path("", include("agent.web.urls")),
]

handler400 = "lightnote.rest.http_guards.bad_request"
handler403 = "lightnote.rest.http_guards.permission_denied"
handler404 = "lightnote.accounts.views.not_found"
handler500 = "lightnote.accounts.views.server_error"
