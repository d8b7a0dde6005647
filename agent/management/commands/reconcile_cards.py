"""Resolve confirmation cards stuck in ``running`` or ``unknown``, from the receipt table, and
move the tallies of repeated confirms into the audit log."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from agent.cards.confirm import flush_repeat_tallies
from agent.cards.history import reconcile_unknown_rows
from agent.cards.reconcile import reconcile_expired
from agent.ratelimit import flush_miss_tallies


class Command(BaseCommand):
    help = (
        "Settle running cards whose lease passed, from the receipt table (a receipt -> "
        "succeeded; none -> voided and ACTION_NOT_EXECUTED), then the card history rows "
        "whose outcome is still unknown, the same way without Redis. Never executes an "
        "action. Also writes the tallies of repeated confirms to the audit log "
        "(confirm.duplicate, details.count), and the tallies of token misses refused by "
        "LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES (rate.limited, details.count). Safe to run from "
        "cron on any number of hosts at once."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--locale", default="zh-CN", choices=["zh-CN", "en"])

    def handle(self, *args: Any, **options: Any) -> None:
        resolved = reconcile_expired(locale=options["locale"])
        rows = reconcile_unknown_rows()
        self.stdout.write(f"reconciled {resolved} card(s)")
        if rows:
            self.stdout.write(f"settled {rows} history row(s) with an unknown outcome")
        tallies = flush_repeat_tallies()
        if tallies:
            self.stdout.write(f"audited {tallies} tally(ies) of repeated confirms")
        misses = flush_miss_tallies()
        if misses:
            self.stdout.write(f"audited {misses} tally(ies) of throttled token misses")
