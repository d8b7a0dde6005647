"""The plain-body fast paths never disagree with their serializers (``TokenRequestSerializer``
for the token endpoints, ``MessageRequestSerializer`` for a message): whatever one accepts,
the serializer accepts with the same values; whatever else comes in is left to the
serializer (and its exact 400)."""

from __future__ import annotations

import os
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.api.base import TokenRequestSerializer, plain_token_body
from agent.api.sessions import MessageRequestSerializer, plain_message_body
from agent.models import MESSAGE_MAX

EXAMPLES = int(os.environ.get("LIGHTNOTE_HYPOTHESIS_EXAMPLES", "300"))

GOOD_UUID = "0b9f4a4e-3f7e-4c35-9b52-2a7c1c7f0d11"

EDGE_BODIES = [
    {"token": "abc", "session_id": GOOD_UUID},
    {"token": "A" * 512, "session_id": GOOD_UUID.upper()},
    {"token": "A" * 513, "session_id": GOOD_UUID},  # too long
    {"token": "", "session_id": GOOD_UUID},  # blank
    {"token": " abc", "session_id": GOOD_UUID},  # trimmed by the field
    {"token": "abc\n", "session_id": GOOD_UUID},
    {"token": "a\x00b", "session_id": GOOD_UUID},  # null character
    {"token": "令牌", "session_id": GOOD_UUID},
    {"token": 12345, "session_id": GOOD_UUID},  # a number: the field turns it into text
    {"token": True, "session_id": GOOD_UUID},
    {"token": None, "session_id": GOOD_UUID},
    {"token": ["abc"], "session_id": GOOD_UUID},
    {"token": "abc", "session_id": GOOD_UUID.replace("-", "")},  # hex form
    {"token": "abc", "session_id": "{" + GOOD_UUID + "}"},
    {"token": "abc", "session_id": "urn:uuid:" + GOOD_UUID},
    {"token": "abc", "session_id": GOOD_UUID + "\n"},
    {"token": "abc", "session_id": GOOD_UUID[:-1] + "g"},
    {"token": "abc", "session_id": 123},
    {"token": "abc"},
    {"session_id": GOOD_UUID},
    {"token": "abc", "session_id": GOOD_UUID, "extra": 1},  # unknown field
    {},
    [],
    "token",
    None,
]


def _serializer_answer(body):
    serializer = TokenRequestSerializer(data=body)
    return dict(serializer.validated_data) if serializer.is_valid() else None


def _agrees(body) -> None:
    fast = plain_token_body(body)
    if fast is not None:
        assert fast == _serializer_answer(body), body
        assert isinstance(fast["session_id"], uuid.UUID)


@pytest.mark.parametrize("body", EDGE_BODIES, ids=range(len(EDGE_BODIES)))
def test_edge_bodies(body):
    _agrees(body)


def test_the_plain_body_a_client_sends_takes_the_fast_path():
    body = {"token": "q2Xr_8-Zk" * 4, "session_id": str(uuid.uuid4())}
    assert plain_token_body(body) == _serializer_answer(body)
    assert plain_token_body(body) is not None


TOKENISH = st.text(
    alphabet=st.sampled_from("AZaz09_-+/=. \t\n\x00令") | st.characters(), max_size=520
) | st.sampled_from(["", "a" * 512, "a" * 513])
UUIDISH = (
    st.uuids().map(str)
    | st.uuids().map(lambda value: value.hex)
    | st.uuids().map(lambda value: str(value).upper())
    | st.text(alphabet="0123456789abcdefABCDEF-{}:nru \n", max_size=46)
    | st.integers()
    | st.none()
)
BODIES = st.fixed_dictionaries(
    {"token": TOKENISH | st.integers() | st.booleans() | st.none(), "session_id": UUIDISH},
    optional={"extra": st.integers()},
)


@settings(max_examples=EXAMPLES, deadline=None)
@given(BODIES)
def test_the_fast_path_never_disagrees_with_the_serializer(body):
    _agrees(body)


# --- the message body: {"text"} ------------------------------------------------------------

MESSAGE_EDGES = [
    {"text": "帮我创建一条明天下午3点提交周报的待办"},
    {"text": "x" * MESSAGE_MAX},
    {"text": "x" * (MESSAGE_MAX + 1)},  # too long
    {"text": ""},  # blank
    {"text": "   "},  # blank once trimmed
    {"text": " 周报"},  # trimmed by the field
    {"text": "周报\n"},
    {"text": "周报\u3000"},  # an ideographic space: str.strip() trims it too
    {"text": "a\x00b"},  # null character
    {"text": "a\ud800b"},  # a lone surrogate
    {"text": "line one\nline two"},
    {"text": 12},
    {"text": None},
    {"text": ["周报"]},
    {"text": "周报", "extra": 1},  # unknown field
    {},
    [],
    None,
]


def _message_serializer_answer(body):
    serializer = MessageRequestSerializer(data=body)
    return dict(serializer.validated_data) if serializer.is_valid() else None


def _message_agrees(body) -> None:
    fast = plain_message_body(body)
    if fast is not None:
        assert fast == _message_serializer_answer(body), body


@pytest.mark.parametrize("body", MESSAGE_EDGES, ids=range(len(MESSAGE_EDGES)))
def test_message_edge_bodies(body):
    _message_agrees(body)


def test_the_message_a_client_sends_takes_the_fast_path():
    body = {"text": "帮我创建一条明天下午3点提交周报的待办"}
    assert plain_message_body(body) == _message_serializer_answer(body) == body


TEXTISH = (
    st.text(alphabet=st.sampled_from(" \t\n\x00\u3000\u00a0a周") | st.characters(), max_size=60)
    | st.sampled_from(["", "x" * MESSAGE_MAX, "x" * (MESSAGE_MAX + 1), " " + "x" * MESSAGE_MAX])
    | st.integers()
    | st.none()
)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.fixed_dictionaries({"text": TEXTISH}, optional={"extra": st.integers()}))
def test_the_message_fast_path_never_disagrees_with_the_serializer(body):
    _message_agrees(body)


@pytest.mark.django_db
def test_a_serializer_that_adds_fields_does_not_inherit_the_fast_path(alice_api) -> None:
    """The choose body is a token body plus ``candidate_id``: a token body alone is a 400,
    never taken as valid by the token body's check."""
    from agent.api.card_actions import ChooseBodySerializer, EditRequestSerializer

    for serializer in (ChooseBodySerializer, EditRequestSerializer):
        assert "plain_body" not in vars(serializer)
    body = {"token": "q2Xr_8-Zk", "session_id": GOOD_UUID}
    for url in ("/api/v1/agent/choices/choose/", "/api/v1/agent/confirmations/edit/"):
        response = alice_api.post(url, body, format="json")
        assert (response.status_code, response.json()["error"]["code"]) == (
            400,
            "VALIDATION_ERROR",
        ), url
