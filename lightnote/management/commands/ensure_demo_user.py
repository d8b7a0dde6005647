"""Create (or reset) the demo login used by ``make run``."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create the demo user (username 'demo') if missing and set its password."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", default="demo-pass-2026")
        parser.add_argument("--staff-username", default="admin")
        parser.add_argument("--staff-password", default="admin-pass-2026")

    def handle(self, *args: Any, **options: Any) -> None:
        users = get_user_model()
        demo, _ = users.objects.get_or_create(username=options["username"])
        demo.set_password(options["password"])
        demo.save()
        staff, _ = users.objects.get_or_create(
            username=options["staff_username"], defaults={"is_staff": True, "is_superuser": True}
        )
        staff.set_password(options["staff_password"])
        staff.save()
        self.stdout.write(
            f"demo login: {demo.username} / {options['password']}   "
            f"staff (admin) login: {staff.username} / {options['staff_password']}"
        )
