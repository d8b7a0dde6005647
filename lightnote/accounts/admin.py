"""Staff can see which addresses are proven (read-only: only the emailed link proves one)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from lightnote.accounts.models import EmailVerification


@admin.register(EmailVerification)
class EmailVerificationAdmin(admin.ModelAdmin):
    list_display = ("user", "email", "verified_at")
    search_fields = ("user__username", "email")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
