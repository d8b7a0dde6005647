"""A history card's texts in any language, rendered again from what was stored.

A card's preview is a pure function of its prepared args, the language, the zone and the
time it was prepared at; a receipt's summary is one of its stored result and the language.
History (the chat page and ``GET .../messages/``) shows both in the reader's language
instead of the language they were first made in. Where a tool cannot render what was stored
(it changed since), the stored text stands.
"""

from __future__ import annotations

import logging
from typing import Any
from zoneinfo import ZoneInfo

from agent.models import ActionCard
from agent.tools import ToolContext, registry

logger = logging.getLogger(__name__)


def preview_in(row: ActionCard, *, locale: str, zone: ZoneInfo, subject: Any) -> dict[str, Any]:
    """Return the card's preview in ``locale``, rendered from its stored prepared values.

    A preview is a pure function of the prepared args, the language, the zone and the time
    it was prepared at (``row.created_at``: an "overdue" note stays as it was issued). The
    stored preview stands when the tool is gone or cannot render the stored args.
    """
    tool = registry.get(row.tool)
    if tool is None or not row.args or subject is None:
        return dict(row.preview or {})
    context = ToolContext(
        actor=subject,
        subject=subject,
        session_id=str(row.session_id),
        locale=locale,
        now=row.created_at,
        zone=zone,
    )
    try:
        return tool.preview(row.args, context)
    except Exception:  # an old card's args this tool no longer reads: keep what was shown
        logger.warning("history preview of card %s kept as stored", row.id, exc_info=True)
        return dict(row.preview or {})


def summary_in(row: ActionCard, *, locale: str) -> str:
    """Return the receipt's summary in ``locale`` from its stored result, else ""."""
    tool = registry.get(row.tool)
    result = row.receipt.result if row.receipt is not None else None
    if tool is None or not result:
        return ""
    try:
        return tool.summarize(result, locale)
    except Exception:  # an old result this tool no longer reads: the stored summary stands
        logger.warning("history summary of card %s kept as stored", row.id, exc_info=True)
        return ""
