"""Create the demo logins used by ``make run`` when they are missing."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = (
        "Create the demo user ('demo') and the staff login ('admin') when missing. An existing "
        "one keeps its password, so a restart logs no browser out."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", default="demo-pass-2026")
        parser.add_argument("--staff-username", default="admin")
        parser.add_argument("--staff-password", default="admin-pass-2026")

    def handle(self, *args: Any, **options: Any) -> None:
        users = get_user_model()
        logins: tuple[tuple[str, str, dict[str, bool]], ...] = (
            (options["username"], options["password"], {}),
            (
                options["staff_username"],
                options["staff_password"],
                {"is_staff": True, "is_superuser": True},
            ),
        )
        for username, password, flags in logins:
            user, created = users.objects.get_or_create(username=username, defaults=flags)
            if created:
                user.set_password(password)
                user.save(update_fields=["password"])
                self.stdout.write(f"created login: {username} / {password}")
            else:
                self.stdout.write(f"login {username} exists (its password is unchanged)")
