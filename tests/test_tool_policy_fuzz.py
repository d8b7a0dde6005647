"""Whatever a model proposes, the tool policy answers with its own refusal, never a crash.

For every registered tool, Hypothesis builds raw proposals the way a model might garble
them: the tool's canonical names and its aliases, unknown names, values of every JSON type
(nested, huge numbers, odd strings, real and foreign item ids and titles, time phrases in
both languages). ``enforce_tool_policy(phase="prepare")`` must either return prepared args
whose card preview renders, or raise ``LightNoteError`` with a 4xx status; a read tool's
normalised args must run. Anything else would reach the user as "the assistant is
unavailable" (the turn's last-resort catch) instead of the clear refusal the policy owes.

Size: ``LIGHTNOTE_FUZZ_EXAMPLES`` per tool (``tests.test_api_fuzz.FUZZ``: 30 here; ``make
reliability`` runs more).
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent.policy import enforce_tool_policy
from agent.tools import registry
from lightnote.errors import LightNoteError
from notes.services import note_create
from tests.test_api_fuzz import FUZZ, json_values
from tests.test_tool_policy import context_for
from todos.services import todo_create

pytestmark = pytest.mark.django_db

PHRASES = [
    "明天下午3点",
    "今晚 9 点",
    "下周一",
    "2026-02-30 10:00",
    "yesterday",
    "tomorrow at 5pm",
    "in 3 days",
    "1900-01-01T00:00:00+08:05",
    "9999-12-31T23:59:59Z",
    "每周一",
    "",
    " ",
    "\x00",
    "x" * 5000,
    "high",
    "done",
    "open",
    "urgent",
    "-1",
    "3",
    "1e400",
]


def _values(known: list[Any]) -> st.SearchStrategy[Any]:
    return json_values(PHRASES + known, non_finite=True)


def _typed(schema: dict[str, Any], known: list[Any]) -> st.SearchStrategy[Any]:
    """Values of the property's own type (mostly plausible, sometimes out of range), or of
    any type now and then: a model gets the type right more often than not."""
    types = schema.get("type", [])
    types = [types] if isinstance(types, str) else types
    choices: list[st.SearchStrategy[Any]] = []
    if "enum" in schema:
        return st.one_of([st.sampled_from(schema["enum"])] * 9 + [_values(known)])
    if "string" in types:
        strings = [value for value in known if isinstance(value, str)]
        plausible = [phrase for phrase in PHRASES if len(phrase) < 100 and "\x00" not in phrase]
        choices.append(st.sampled_from(plausible + strings) | st.text(max_size=30))
    if "integer" in types:
        choices.append(st.integers(min_value=-1, max_value=51))
    if "array" in types:
        choices.append(st.lists(st.sampled_from(PHRASES[:8]) | st.text(max_size=20), max_size=6))
    if "null" in types:
        choices.append(st.none())
    return st.one_of([st.one_of(choices)] * 9 + [_values(known)])


def _proposals(tool: Any, known: list[Any]) -> st.SearchStrategy[Any]:
    properties = tool.schema.get("properties", {})
    aliases = getattr(tool, "aliases", {}) or {}
    # Mostly what the schema asks for: its required names, one name of each "one of".
    required = set(tool.schema.get("required", []))
    one_of = [option.get("required", []) for option in tool.schema.get("oneOf", [])]
    typed = st.sampled_from(one_of or [[]]).flatmap(
        lambda chosen: st.fixed_dictionaries(
            {name: _typed(properties[name], known) for name in {*required, *chosen}},
            optional={
                name: _typed(schema, known)
                for name, schema in properties.items()
                if name not in {*required, *(n for option in one_of for n in option)}
            },
        )
    )
    # An alias carries its canonical property's type.
    aliased = st.fixed_dictionaries(
        {},
        optional={
            alias: _typed(properties.get(target, {}), known)
            for alias, target in aliases.items()
            if isinstance(target, str)
        },
    )
    names = sorted({*properties, *aliases})
    garbled = st.dictionaries(st.sampled_from(names) | st.text(max_size=10), _values(known))
    return st.one_of(typed, typed, typed, aliased, garbled, _values(known))


@pytest.fixture
def known(user: Any, other_user: Any) -> list[Any]:
    """Ids and titles of the user's items (one title twice) and of someone else's."""
    mine = todo_create(owner=user, title="交周报")
    todo_create(owner=user, title="交周报")
    other = todo_create(owner=user, title="买牛奶")
    note = note_create(owner=user, title="会议记录", content="周一")
    theirs = todo_create(owner=other_user, title="别人的待办")
    return [
        str(mine.id),
        str(other.id),
        str(note.id),
        str(theirs.id),
        "交周报",
        "买牛奶",
        "会议记录",
        "别人的待办",
        mine.id.int,
    ]


def _answer(call: Any) -> tuple[Any, LightNoteError | None]:
    """``call()``'s result, or the policy's refusal; any other exception propagates."""
    try:
        return call(), None
    except LightNoteError as refused:
        return None, refused


TOOLS = sorted(tool.name for tool in registry.all_tools())


@pytest.mark.parametrize("tool_name", TOOLS)
def test_any_proposal_is_prepared_or_refused_with_the_policys_own_error(
    tool_name: str, user: Any, known: list[Any]
) -> None:
    tool = registry.get(tool_name)
    assert tool is not None
    internal = registry.is_internal(tool_name)  # compensation-only: an undo prepares it
    context = context_for(user)

    @FUZZ
    @given(
        args=_proposals(tool, known),
        locale=st.sampled_from(["zh-CN", "en"]),
    )
    def one_proposal(args: Any, locale: str) -> None:
        here = dataclasses.replace(context, locale=locale)
        result, refused = _answer(
            lambda: enforce_tool_policy(
                tool_name=tool_name,
                args=args,
                context=here,
                phase="prepare",
                compensation=internal,
            )
        )
        if refused is not None:
            assert 400 <= refused.status < 500, (args, refused.code, refused.status)
            return
        if tool.is_write:
            assert isinstance(result.preview, dict), args
            # Prepared args are what a card stores: they pass the execute-time check as is.
            again = enforce_tool_policy(
                tool_name=tool_name,
                args=result.args,
                context=here,
                phase="execute",
                confirmed=True,
            )
            assert again.args == result.args
        else:
            _, refused = _answer(lambda: tool.run(result.args, here))
            assert refused is None or 400 <= refused.status < 500, (args, refused.code)

    one_proposal()


# --- the same proposals through the MCP gateway ---------------------------------------------


def _mcp_caller(user: Any) -> Any:
    from mcpserver.callers import ClientInfo, authenticate_caller
    from mcpserver.models import McpSession
    from tests.mcp_helpers import mcp_key

    return authenticate_caller(
        raw_key=mcp_key(user),
        session_key="fuzz",
        transport=McpSession.Transport.MEMORY,
        client=ClientInfo(name="fuzz"),
    )


def _mcp_tool_names() -> list[str]:
    from mcpserver import gateway

    names = {tool.name for tool in registry.tools()}
    return sorted({*names, gateway.STATUS_TOOL, gateway.CAPABILITIES_TOOL, "format_disk"})


@pytest.mark.parametrize("name", _mcp_tool_names())
def test_any_mcp_call_answers_a_result_or_an_error_with_a_code(
    name: str, user: Any, known: list[Any]
) -> None:
    """``tools/call`` with generated arguments: a result, or ``is_error`` with the error's
    code and message; never an exception out of the gateway (the SDK would turn it into a
    protocol error without the refusal's words)."""
    from mcpserver import gateway

    caller = _mcp_caller(user)
    specs = {spec.name: spec for spec in gateway.tool_specs(caller)}
    spec = specs.get(name)
    schema = spec.input_schema if spec is not None else {"properties": {"x": {}}}
    tool = registry.get(name)
    proposals = _proposals(tool, known) if tool is not None else _values(known)
    named = st.dictionaries(
        st.sampled_from(sorted(schema.get("properties", {})) or ["card_id"]),
        _values([*known, str(uuid.uuid4())]),
        max_size=3,
    )

    @FUZZ
    @given(arguments=st.one_of(proposals, named))
    def one_call(arguments: Any) -> None:
        answer = gateway.call_tool(caller, name, arguments)
        assert isinstance(answer.data, dict), arguments
        if answer.is_error:
            error = answer.data["error"]
            assert isinstance(error["code"], str), (arguments, error)
            assert error["code"], (arguments, error)
            assert isinstance(error["message"], str), (arguments, error)
            assert error["message"], (arguments, error)

    one_call()
