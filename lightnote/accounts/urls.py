"""The account URLs: pages under /accounts/, the API under /api/v1/auth/."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import URLPattern, path

from lightnote.accounts import api
from lightnote.accounts import pages as account_pages
from lightnote.accounts.password_reset import LocalizedPasswordResetForm, PasswordResetView

pages: list[URLPattern] = [
    path("signup/", account_pages.signup_page, name="signup"),
    path("verify/send/", account_pages.verify_send, name="account-verify-send"),
    path("verify/<str:token>/", account_pages.verify_page, name="account-verify"),
    path("export/", account_pages.export_download, name="account-export"),
    path("delete/", account_pages.delete_account, name="account-delete"),
    path(
        "password_reset/",
        PasswordResetView.as_view(form_class=LocalizedPasswordResetForm),
        name="password_reset",
    ),
    path(
        "password_reset/done/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
]

api_v1: list[URLPattern] = [
    path("auth/register/", api.RegisterView.as_view(), name="auth-register"),
    path("auth/password-reset/", api.PasswordResetView.as_view(), name="auth-password-reset"),
]
