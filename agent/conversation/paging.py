"""下一页 / "show more" / 第二页: another page of the conversation's last list, kept server-side.

Every list a turn reads (a read tool whose data pages by keyset: ``agent.tools.adapters.
page_data``) is stored with the turn's assistant message as ``payload["paging"]``: the tool,
the arguments it ran with (never the cursor), the cursor of the rows after the page
(``next``), which page it was and how many rows were shown up to it. The next page runs the
same read again through the tool policy with that cursor, so it sees the data as it is now
(rows added or removed meanwhile are not skipped twice: the cursor is the last row's sort
key); page *N* follows the cursors from wherever the stored page is. The cursor never
reaches the client: only this module reads it back, from this session's own messages.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol

from agent.models import AgentSession, Message
from agent.planners.base import FACT_SUCCEEDED, Fact, PlanResult
from agent.planners.replies import describe_facts
from lightnote.texts.i18n import define_messages, translate


class Turn(Protocol):
    """What of a turn (``agent.conversation.decisions.Turn``) a page needs."""

    facts: list[Fact]
    lists: list[dict[str, Any]]
    reply_locale: str

    def run_read_tool(self, name: str, args: dict[str, Any]) -> Fact: ...


PAGING_KEY = "paging"
# How many pages one message may step through ("第十页" from the first: nine more reads).
_MAX_STEPS = 10

define_messages(
    {
        "PLANNER_PAGE_NOTHING": (
            "这个对话里还没有可以继续的列表。先让我列出待办或笔记（例如“列出我的待办”），"
            "再说“下一页”。",
            "There is no list in this conversation to continue. Ask for one first (for "
            "example “list my todos”), then say “more”.",
        ),
        "PLANNER_PAGE_ALL_SHOWN": (
            "上一个列表已经全部显示了（共 {count} 条）。",
            "The last list was shown in full ({count} in all).",
        ),
        "PLANNER_PAGE_PAST_END": (
            "上一个列表只有 {pages} 页。",
            "The last list has only {pages} {pages:page|pages}.",
        ),
    }
)


def list_state(tool: str, args: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """What the next page of a list read needs: its tool and arguments (no cursor), its
    ``next`` cursor, the page it is (1) and how many rows it showed; a read that found one
    item also keeps its title (``item``)."""
    items = next((value for value in data.values() if isinstance(value, list)), [])
    state = {
        "tool": tool,
        "args": {key: value for key, value in args.items() if key != "cursor"},
        "next": data.get("next"),
        "page": 1,
        "shown": len(items),
        "count": data.get("count"),
    }
    if len(items) == 1 and data.get("count") == 1 and isinstance(items[0], dict):
        state["item"] = items[0].get("title")  # what "it" names next (agent.conversation.pronouns)
    return state


def last_lists(session: AgentSession) -> list[dict[str, Any]] | None:
    """The lists of the session's last turn that read any (None: no list in the session)."""
    payload = (
        Message.objects.filter(
            session=session, role=Message.Role.ASSISTANT, payload__has_key=PAGING_KEY
        )
        .order_by("-created_at", "-id")
        .values_list("payload", flat=True)
        .first()
    )
    if not isinstance(payload, dict):
        return None
    states = [state for state in payload.get(PAGING_KEY) or [] if isinstance(state, dict)]
    return states or None


def _run(turn: Turn, state: dict[str, Any], cursor: str | None) -> tuple[Fact, dict | None]:
    """One page of ``state``'s read after ``cursor``; return its fact and its list state."""
    args = {**state["args"], **({"cursor": cursor} if cursor else {})}
    before = len(turn.lists)
    fact = turn.run_read_tool(state["tool"], args)
    reached = turn.lists[-1] if len(turn.lists) > before else None
    return fact, reached


def _forget(turn: Turn, fact: Fact, reached: dict[str, Any] | None) -> None:
    """Drop a page stepped over: it is neither shown nor stored."""
    turn.facts.remove(fact)
    if reached is not None:
        turn.lists.remove(reached)


def _page(turn: Turn, state: dict[str, Any], page: int | None) -> tuple[Fact | None, int]:
    """Run the page ``page`` of ``state``'s list (None: the one after it). Return its fact
    (None when the list ends before it) and the last page reached."""
    at, cursor, shown = int(state.get("page") or 1), state.get("next"), int(state.get("shown") or 0)
    wanted = at + 1 if page is None else page
    if wanted <= at:
        at, cursor, shown = 0, None, 0  # an earlier page: from the first again
    fact: Fact | None = None
    reached: dict[str, Any] | None = None
    for _ in range(min(wanted - at, _MAX_STEPS)):
        if at > 0 and not cursor:
            break  # the list ended on page ``at``
        if fact is not None:
            _forget(turn, fact, reached)
        fact, reached = _run(turn, state, cursor)
        if fact.status != FACT_SUCCEEDED or reached is None:
            return fact, at
        at, cursor = at + 1, reached["next"]
        reached["page"], reached["shown"] = at, shown + reached["shown"]
        shown = reached["shown"]
    if at != wanted and fact is not None:
        _forget(turn, fact, reached)
        return None, at
    return fact, at


def another_page(turn: Turn, states: list[dict[str, Any]], page: int | None) -> tuple[str, list]:
    """The page asked of each list in ``states`` (None: the next one), run on ``turn``.

    Return the sentence to say when no page is shown (everything shown, or the list is
    shorter than the page asked) and the facts of the pages shown.
    """
    locale = turn.reply_locale
    pending = [state for state in states if page is not None or state.get("next")]
    if not pending:
        count = sum(int(state.get("count") or state.get("shown") or 0) for state in states)
        return translate("PLANNER_PAGE_ALL_SHOWN", locale, count=count), []
    facts, last = [], 0
    for state in pending:
        fact, reached = _page(turn, state, page)
        last = max(last, reached)
        if fact is not None:
            facts.append(fact)
    if not facts:
        return translate("PLANNER_PAGE_PAST_END", locale, pages=last), []
    return "", facts


def stored(turn: Turn) -> dict[str, Any]:
    """The payload part keeping this turn's lists for the next page (nothing: none read)."""
    return {PAGING_KEY: turn.lists} if turn.lists else {}


def read_at_page(turn: Turn, plan: PlanResult, page: int | None) -> PlanResult:
    """``plan`` (a read said with a page: 列出我的待办，第二页) moved to that page."""
    first = list(turn.lists)  # the lists this read made: the turn read nothing else
    if not page or page == 1 or not first or plan.proposals or plan.clarify:
        return plan
    text, facts = another_page(turn, first, page)
    if not facts:
        return replace(plan, text="\n".join(part for part in (text, plan.text) if part))
    for fact in plan.facts:
        if fact in turn.facts:
            turn.facts.remove(fact)
    for state in first:
        turn.lists.remove(state)
    return PlanResult(text=describe_facts(facts, turn.reply_locale), facts=facts)
