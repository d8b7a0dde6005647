"""它什么时候到期？ / "when is it due?": a read naming the item in front of the user by a pronoun.

The item is the one of the conversation's last card, or of its last read that found a single
item, whichever came last. The pronoun (``pronoun`` rows, ``agent/planners/data``) is
replaced by that item's quoted title and the message read again; only a read is taken this
way (a write naming "it" stays the readers' that follow: corrections, undo, the planner).
An item a waiting create card would make does not exist yet (:func:`unmade_in_front`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from agent.conversation.card_questions import is_waiting, last_card
from agent.conversation.paging import PAGING_KEY
from agent.models import ActionCard, AgentSession, Message
from agent.planners import phrases
from agent.planners.lexicon import normalise
from lightnote.texts.hanzi import simplified

# How a title is quoted when it stands for the pronoun, per language.
_QUOTED = {"zh": "「{title}」", "en": '"{title}"'}


def _last_single_read(session: AgentSession) -> tuple[Any, str] | None:
    """(when, title) of the session's last list turn when it found exactly one item."""
    row = (
        Message.objects.filter(
            session=session, role=Message.Role.ASSISTANT, payload__has_key=PAGING_KEY
        )
        .order_by("-created_at", "-id")
        .values_list("created_at", "payload")
        .first()
    )
    if row is None or not isinstance(row[1], dict):
        return None
    items = [state.get("item") for state in row[1].get(PAGING_KEY) or [] if isinstance(state, dict)]
    titles = [title for title in items if isinstance(title, str) and title]
    return (row[0], titles[0]) if len(titles) == 1 else None


def _in_front(session: AgentSession, owner: Any) -> tuple[ActionCard | None, str | None]:
    """The card whose item a pronoun names (None: a read's) and that item's title."""
    card = last_card(session=session, owner=owner)
    read = _last_single_read(session)
    if card is None or not (card.preview or {}).get("target"):
        return None, read[1] if read is not None else None
    if read is not None and read[0] > card.created_at:
        return None, read[1]
    return card, str(card.preview["target"])


def item_in_front(*, session: AgentSession, owner: Any) -> str | None:
    """The title of the item a pronoun names: the last card's or the last single read's."""
    return _in_front(session, owner)[1]


def unmade_in_front(
    text: str, *, session: AgentSession, owner: Any, now: datetime
) -> ActionCard | None:
    """The waiting create card whose item ``text``'s pronoun names ("when is it due?" right
    after "add a todo …"), or None: that item does not exist until the card is confirmed."""
    read = simplified(normalise(text))
    if phrases.search("pronoun", read, phrases.language_of(read)) is None:
        return None
    card = _in_front(session, owner)[0]
    if card is None or not card.tool.startswith("create_"):
        return None
    return card if is_waiting(card, now=now) else None


def with_item(text: str, *, session: AgentSession, owner: Any) -> str | None:
    """``text`` with its pronoun replaced by the item's quoted title, or None (no pronoun, or
    no item in front of the user)."""
    read = simplified(normalise(text))
    language = phrases.language_of(read)
    found = phrases.search("pronoun", read, language)
    if found is None:
        return None
    title = item_in_front(session=session, owner=owner)
    if not title:
        return None
    quoted = _QUOTED[language].format(title=title)
    for pattern, _ in phrases.compiled(language, "pronoun"):
        replaced, count = pattern.subn(quoted, read, count=1)
        if count:
            return replaced
    return None
