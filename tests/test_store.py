"""The control-store primitives, fail-closed behaviour and the Redis system check.

Runs on both passes (fakeredis with Lua, then the real Redis); nothing here needs a clock:
every transition gets ``now_ms`` from the test.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import redis
from django.conf import settings
from django.core.checks import run_checks
from django.test import override_settings

from agent import control
from agent.cards import records as cards
from agent.cards import transitions as card_transitions
from agent.checks import check_control_store, server_warnings
from agent.continuations import store as continuation_store
from lightnote.controlstore import counters as store_counters
from lightnote.controlstore import scripts as store_scripts
from lightnote.controlstore import store
from lightnote.controlstore.redis import get_redis
from lightnote.controlstore.redis_scripts import script_text
from lightnote.errors import LightNoteError
from lightnote.texts.i18n import translate
from tests.agent_helpers import drop_pooled_redis_connections

NOW = 1_800_000_000_000  # ms; any fixed instant works, scripts never read a clock
HOUR_MS = 3_600_000


def new_key() -> str:
    return control.card_key(uuid.uuid4().hex)


def make_record(key: str, *, state: str = "ready", ttl_ms: int = HOUR_MS) -> None:
    assert store.record_create(key, state=state, record_json='{"a":1}', ttl_ms=ttl_ms).created


def raw_fields(key: str) -> dict[str, str]:
    return store.record_get(key) or {}


def claim(key: str, attempt: str, *, now_ms: int = NOW, **extra: Any) -> store.TransitionResult:
    return store.record_transition(
        key,
        from_states=("ready",),
        to_state="running",
        attempt=attempt,
        lease_ms=30_000,
        now_ms=now_ms,
        **extra,
    )


# --- record_create / record_get ----------------------------------------------------------


def test_record_create_stores_the_record_bytes_and_sets_the_ttl() -> None:
    key = new_key()
    record_json = '{"z":1,"a":1.10,"big":12345678901234567890,"t":"周报"}'
    result = store.record_create(
        key, state="ready", record_json=record_json, ttl_ms=300_000, extra_fields={"kind": "x"}
    )
    assert result.created is True
    assert raw_fields(key) == {
        "state": "ready",
        "record": record_json,  # byte for byte: key order and number forms survive
        "attempt": "",
        "lease_until": "0",
        "kind": "x",
    }
    assert 299_000 < get_redis().pttl(key) <= 300_000


def test_record_create_on_an_existing_key_returns_it_untouched() -> None:
    key = new_key()
    make_record(key, ttl_ms=HOUR_MS)
    claim(key, "attempt-1")
    again = store.record_create(key, state="ready", record_json='{"b":2}', ttl_ms=1_000)
    assert again.created is False
    assert again.fields["state"] == "running"
    assert again.fields["record"] == '{"a":1}'
    assert get_redis().pttl(key) > 1_000


def test_record_create_refuses_to_let_extra_fields_overwrite_protocol_fields() -> None:
    key = new_key()
    with pytest.raises(ValueError, match="state"):
        store.record_create(
            key, state="ready", record_json="{}", ttl_ms=1_000, extra_fields={"state": "settled"}
        )
    assert get_redis().exists(key) == 0


def test_record_get_of_an_unknown_key_is_none() -> None:
    assert store.record_get(new_key()) is None


# --- record_transition -------------------------------------------------------------------


def test_transition_moves_the_state_sets_attempt_lease_and_ttl() -> None:
    key = new_key()
    make_record(key, ttl_ms=300_000)
    result = claim(key, "attempt-1", ttl_ms=86_400_000)
    assert result.status is store.TransitionStatus.TRANSITIONED
    assert result.fields is not None
    assert result.fields["state"] == "running"
    assert result.fields["attempt"] == "attempt-1"
    assert result.fields["lease_until"] == str(NOW + 30_000)
    assert 86_399_000 < get_redis().pttl(key) <= 86_400_000


def test_transition_without_ttl_keeps_the_key_ttl() -> None:
    key = new_key()
    make_record(key, ttl_ms=300_000)
    claim(key, "attempt-1")
    assert 299_000 < get_redis().pttl(key) <= 300_000


def test_a_claim_re_sent_by_the_same_attempt_is_already_done_not_a_second_claim() -> None:
    key = new_key()
    make_record(key)
    first = claim(key, "attempt-1")
    resent = claim(key, "attempt-1", now_ms=NOW + 5_000)
    assert first.status is store.TransitionStatus.TRANSITIONED
    assert resent.status is store.TransitionStatus.ALREADY
    assert resent.applied is True
    assert raw_fields(key)["lease_until"] == str(NOW + 30_000)  # nothing was rewritten


def test_a_claim_by_another_attempt_is_refused_with_the_current_fields() -> None:
    key = new_key()
    make_record(key)
    claim(key, "attempt-1")
    before = raw_fields(key)
    other = claim(key, "attempt-2")
    assert other.status is store.TransitionStatus.REFUSED
    assert other.applied is False
    assert other.fields == before
    assert raw_fields(key) == before


def test_transition_of_a_missing_record_reports_missing_and_creates_nothing() -> None:
    key = new_key()
    result = claim(key, "attempt-1")
    assert result.status is store.TransitionStatus.MISSING
    assert result.fields is None
    assert get_redis().exists(key) == 0


def test_require_attempt_is_a_compare_and_set_on_the_attempt() -> None:
    key = new_key()
    make_record(key)
    claim(key, "attempt-1")
    settle = dict(
        from_states=("running",),
        to_state="settled",
        require_attempt=True,
        outcome='{"ok":true}',
        outcome_kind="succeeded",
        now_ms=NOW + 1_000,
    )
    wrong = store.record_transition(key, attempt="attempt-2", **settle)
    assert wrong.status is store.TransitionStatus.REFUSED
    assert raw_fields(key)["state"] == "running"
    right = store.record_transition(key, attempt="attempt-1", **settle)
    assert right.status is store.TransitionStatus.TRANSITIONED
    assert right.fields is not None
    assert right.fields["outcome"] == '{"ok":true}'
    assert right.fields["outcome_kind"] == "succeeded"
    assert right.fields["settled_at"] == str(NOW + 1_000)
    repeat = store.record_transition(key, attempt="attempt-1", **settle)
    assert repeat.status is store.TransitionStatus.ALREADY
    changed = store.record_transition(key, attempt="attempt-1", **{**settle, "outcome": "{}"})
    assert changed.status is store.TransitionStatus.REFUSED
    assert raw_fields(key)["outcome"] == '{"ok":true}'


def test_expect_outcome_kind_must_match_the_stored_kind() -> None:
    key = new_key()
    make_record(key)
    claim(key, "attempt-1")
    store.record_transition(
        key,
        from_states=("running",),
        to_state="settled",
        outcome='{"ok":null}',
        outcome_kind="unknown",
        now_ms=NOW,
    )
    resolve = dict(from_states=("settled",), to_state="settled", outcome='{"ok":true}', now_ms=NOW)
    mismatch = store.record_transition(
        key, expect_outcome_kind="failed", outcome_kind="succeeded", **resolve
    )
    assert mismatch.status is store.TransitionStatus.REFUSED
    match = store.record_transition(
        key, expect_outcome_kind="unknown", outcome_kind="succeeded", **resolve
    )
    assert match.status is store.TransitionStatus.TRANSITIONED
    assert raw_fields(key)["outcome_kind"] == "succeeded"


def test_takeover_is_refused_while_the_lease_is_live_and_allowed_once_it_passed() -> None:
    key = new_key()
    make_record(key)
    claim(key, "attempt-1")  # lease until NOW + 30 s
    takeover = dict(
        from_states=("ready", "running"),
        to_state="running",
        attempt="attempt-2",
        lease_ms=30_000,
        takeover_expired_lease=True,
    )
    live = store.record_transition(key, now_ms=NOW + 29_999, **takeover)
    assert live.status is store.TransitionStatus.REFUSED
    assert raw_fields(key)["attempt"] == "attempt-1"
    passed = store.record_transition(key, now_ms=NOW + 30_000, **takeover)
    assert passed.status is store.TransitionStatus.TRANSITIONED
    assert raw_fields(key)["attempt"] == "attempt-2"
    assert raw_fields(key)["lease_until"] == str(NOW + 60_000)


def test_lease_none_keeps_the_lease_and_zero_clears_it() -> None:
    key = new_key()
    make_record(key)
    claim(key, "attempt-1")
    kept = store.record_transition(
        key,
        from_states=("running",),
        to_state="settled",
        outcome="{}",
        outcome_kind="failed",
        now_ms=NOW,
    )
    assert kept.fields is not None
    assert kept.fields["lease_until"] == str(NOW + 30_000)
    cleared = store.record_transition(
        key, from_states=("settled",), to_state="ready", lease_ms=0, now_ms=NOW
    )
    assert cleared.fields is not None
    assert cleared.fields["lease_until"] == "0"


def make_owned_record(key: str) -> None:
    record_json = '{"owner":"h1","session":"s1","n":7,"args":{"owner":"h2"}}'
    assert store.record_create(key, state="ready", record_json=record_json, ttl_ms=HOUR_MS).created


def test_expected_record_values_that_match_let_the_transition_apply() -> None:
    key = new_key()
    make_owned_record(key)
    before = raw_fields(key)["record"]
    result = claim(key, "attempt-1", expect_record={"owner": "h1", "session": "s1"})
    assert result.status is store.TransitionStatus.TRANSITIONED
    assert result.fields is not None
    assert result.fields["state"] == "running"
    assert result.fields["record"] == before  # decoded to read it, its bytes untouched
    again = claim(key, "attempt-1", expect_record={"owner": "h1", "session": "s1"})
    assert again.status is store.TransitionStatus.ALREADY  # a re-sent claim


@pytest.mark.parametrize(
    "expected",
    [
        pytest.param({"owner": "h2", "session": "s1"}, id="another-owner"),
        pytest.param({"owner": "h1", "session": "s2"}, id="another-session"),
        pytest.param({"owner": "h1", "missing": "s1"}, id="absent-name"),
        pytest.param({"n": "7"}, id="a-number-is-not-its-text"),
        pytest.param({"owner": "h1", "args": "{}"}, id="an-object-is-not-a-string"),
    ],
)
def test_expected_record_values_that_do_not_match_refuse_and_write_nothing(
    expected: dict[str, str],
) -> None:
    key = new_key()
    make_owned_record(key)
    before = raw_fields(key)
    ttl_before = get_redis().pttl(key)
    result = claim(key, "attempt-1", expect_record=expected, ttl_ms=24 * HOUR_MS)
    assert result.status is store.TransitionStatus.REFUSED
    assert result.fields == before  # the record as it is, for the caller's own checks
    assert raw_fields(key) == before
    assert get_redis().pttl(key) <= ttl_before


def test_a_record_that_cannot_be_decoded_matches_no_expected_value() -> None:
    key = new_key()
    assert store.record_create(key, state="ready", record_json="{not json", ttl_ms=HOUR_MS).created
    result = claim(key, "attempt-1", expect_record={"owner": "h1"})
    assert result.status is store.TransitionStatus.REFUSED
    assert raw_fields(key)["state"] == "ready"


def test_expected_record_values_are_checked_after_the_state() -> None:
    key = new_key()
    make_owned_record(key)
    assert claim(key, "holder").applied
    lost = claim(key, "late", expect_record={"owner": "h1", "session": "s1"})
    assert lost.status is store.TransitionStatus.REFUSED
    assert lost.fields is not None
    assert (lost.state, lost.fields["attempt"]) == ("running", "holder")
    missing = claim(new_key(), "attempt-1", expect_record={"owner": "h1"})
    assert missing.status is store.TransitionStatus.MISSING


@pytest.mark.parametrize("expected", [{"": "x"}, {"owner": 1}])
def test_expected_record_values_must_be_named_strings(expected: Any) -> None:
    key = new_key()
    make_owned_record(key)
    with pytest.raises(ValueError, match="expect_record"):
        claim(key, "attempt-1", expect_record=expected)
    assert raw_fields(key)["state"] == "ready"


# The transition script's arguments for a claim, without an index change (ARGV[13..15]),
# without a limit (ARGV[16..17]), with the record's fields in the reply (ARGV[18]).
BASE_ARGS = ["ready", "running", "attempt-1", "0", "", "30000", "0", "0", "", "", "0", str(NOW)]
BASE_ARGS += ["", "", ""]
BASE_ARGS += ["", ""]
BASE_ARGS += ["1"]
BASE_ARGS += [""]  # ARGV[19]: no deadline


def test_the_transition_script_refuses_a_reply_flag_other_than_0_or_1() -> None:
    key = new_key()
    make_owned_record(key)
    args = [*BASE_ARGS[:-2], "yes", ""]
    with pytest.raises(redis.exceptions.ResponseError, match="ARGV"):
        get_redis().eval(script_text("record_transition"), 1, key, *args)
    assert raw_fields(key)["state"] == "ready"


def test_a_transition_without_fields_answers_its_status_alone() -> None:
    """``with_fields=False``: the same compare-and-set, a reply of the code only."""
    key = new_key()
    make_owned_record(key)
    won = claim(key, "attempt-1", with_fields=False)
    assert (won.status, won.fields, won.applied) == (
        store.TransitionStatus.TRANSITIONED,
        None,
        True,
    )
    again = claim(key, "attempt-1", with_fields=False)
    assert (again.status, again.fields) == (store.TransitionStatus.ALREADY, None)
    lost = claim(key, "attempt-2", with_fields=False)
    assert (lost.status, lost.fields, lost.applied) == (store.TransitionStatus.REFUSED, None, False)
    assert raw_fields(key)["attempt"] == "attempt-1"
    missing = claim(new_key(), "attempt-1", with_fields=False)
    assert (missing.status, missing.fields) == (store.TransitionStatus.MISSING, None)


def test_a_script_the_server_lost_is_loaded_again_and_runs_once() -> None:
    """After a Redis restart or ``SCRIPT FLUSH`` the server answers NOSCRIPT: the script is
    loaded again and the call runs once (the claim is made, not made twice)."""
    key = new_key()
    make_owned_record(key)
    get_redis().script_flush()
    won = claim(key, "attempt-1")
    assert won.status is store.TransitionStatus.TRANSITIONED
    assert raw_fields(key)["attempt"] == "attempt-1"
    again = claim(key, "attempt-2")
    assert again.status is store.TransitionStatus.REFUSED


@pytest.mark.services
def test_a_script_call_on_real_redis_survives_dropped_connections() -> None:
    """Connections the server dropped are replaced by redis-py's retry, and the reply is the
    script's; a re-sent claim by the same attempt is recognised."""
    key = warmed_and_new_record()  # and a pooled connection to drop
    dropped = drop_pooled_redis_connections()
    assert dropped
    assert all(count == 1 for count in dropped)  # each named connection was closed
    won = claim(key, "attempt-1")
    assert won.status is store.TransitionStatus.TRANSITIONED
    assert claim(key, "attempt-1").status is store.TransitionStatus.ALREADY


def warmed_and_new_record() -> str:
    """Claim a throwaway record first (the script is loaded, a pooled connection exists),
    then return the key of a fresh owned record."""
    warm = new_key()
    make_owned_record(warm)
    claim(warm, "warm-up")
    key = new_key()
    make_owned_record(key)
    return key


def test_the_transition_script_refuses_an_odd_number_of_expected_values() -> None:
    key = new_key()
    make_owned_record(key)
    args = [*BASE_ARGS]
    with pytest.raises(redis.exceptions.ResponseError, match="pairs"):
        get_redis().eval(script_text("record_transition"), 1, key, *args, "owner")
    assert raw_fields(key)["state"] == "ready"


def test_only_a_transition_that_applies_changes_the_index() -> None:
    index = f"ln:test-index:{uuid.uuid4().hex}"
    key = new_key()
    make_owned_record(key)

    def entry(now_ms: int) -> store_scripts.IndexUpdate:
        return store_scripts.IndexUpdate(index, "member", score_ms=now_ms + 30_000)

    refused = claim(key, "stranger", index=entry(NOW), expect_record={"owner": "not-h1"})
    assert not refused.applied
    assert get_redis().zscore(index, "member") is None  # a refused claim adds nothing
    assert claim(key, "holder", index=entry(NOW)).applied
    assert get_redis().zscore(index, "member") == NOW + 30_000
    assert not claim(key, "late", now_ms=NOW + 5_000, index=entry(NOW + 5_000)).applied
    assert get_redis().zscore(index, "member") == NOW + 30_000  # the holder's lease stands
    again = claim(key, "holder", now_ms=NOW + 1, index=entry(NOW + 1))  # a re-sent claim
    assert again.status is store.TransitionStatus.ALREADY
    removal = store_scripts.IndexUpdate(index, "member")
    refused_removal = store.record_transition(
        key,
        from_states=("running",),
        to_state="settled",
        attempt="late",
        require_attempt=True,
        now_ms=NOW + 2,
        index=removal,
    )
    assert not refused_removal.applied
    assert get_redis().zscore(index, "member") is not None  # not the holder's: kept
    settled = store.record_transition(
        key,
        from_states=("running",),
        to_state="settled",
        attempt="holder",
        require_attempt=True,
        now_ms=NOW + 3,
        index=removal,
    )
    assert settled.applied
    assert get_redis().zscore(index, "member") is None


@pytest.mark.parametrize(
    ("index_args", "message"),
    [
        (["move", "member", "1"], "add, remove or empty"),
        (["add", "", "1"], "KEYS"),
        (["add", "member", "soon"], "score"),
    ],
)
def test_the_transition_script_rejects_a_bad_index_change_before_any_write(
    index_args: list[str], message: str
) -> None:
    key = new_key()
    make_record(key)
    before = raw_fields(key)
    args = [*BASE_ARGS[:12], *index_args, *BASE_ARGS[15:]]
    with pytest.raises(redis.exceptions.ResponseError, match=message):
        get_redis().eval(script_text("record_transition"), 2, key, "ln:test-index:x", *args)
    assert raw_fields(key) == before
    no_index_key = [*BASE_ARGS[:12], "add", "m", "1", *BASE_ARGS[15:]]
    with pytest.raises(redis.exceptions.ResponseError, match="KEYS"):
        get_redis().eval(script_text("record_transition"), 1, key, *no_index_key)


@pytest.mark.parametrize(
    ("position", "bad_value", "message"),
    [
        (11, "not-a-number", "now_ms"),
        (6, "-5", "ttl_ms"),
        (5, "1.5", "lease"),
        (1, "", "to_state"),
    ],
)
def test_the_transition_script_rejects_bad_arguments_before_any_write(
    position: int, bad_value: str, message: str
) -> None:
    key = new_key()
    make_record(key)
    before = raw_fields(key)
    args = [*BASE_ARGS]
    args[position] = bad_value
    with pytest.raises(redis.exceptions.ResponseError, match=message):
        get_redis().eval(script_text("record_transition"), 1, key, *args)
    assert raw_fields(key) == before


def _counter() -> str:
    return f"ln:rate:test:{uuid.uuid4().hex}"


def _count(counter: str) -> int:
    return int(get_redis().get(counter) or 0)


def test_a_transition_takes_its_limit_unit_only_when_it_transitions() -> None:
    index = f"ln:test-index:{uuid.uuid4().hex}"
    counter = _counter()
    take = store_counters.CounterUnit(counter, limit=2, ttl_ms=60_000)
    entry = store_scripts.IndexUpdate(index, "member", score_ms=NOW + 30_000)
    key = new_key()
    make_owned_record(key)

    stranger = claim(key, "stranger", index=entry, take=take, expect_record={"owner": "x"})
    assert stranger.status is store.TransitionStatus.REFUSED
    assert _count(counter) == 0  # a refused owner is not counted
    won = claim(key, "holder", index=entry, take=take)
    assert won.status is store.TransitionStatus.TRANSITIONED
    assert _count(counter) == 1
    assert 0 < get_redis().pttl(counter) <= 60_000  # the window's TTL, set with its first unit
    assert claim(key, "holder", index=entry, take=take).status is store.TransitionStatus.ALREADY
    assert not claim(key, "loser", index=entry, take=take).applied
    assert _count(counter) == 1  # a re-sent claim and a loser are not counted


def test_a_transition_the_limit_refuses_writes_nothing() -> None:
    index = f"ln:test-index:{uuid.uuid4().hex}"
    counter = _counter()
    take = store_counters.CounterUnit(counter, limit=1, ttl_ms=60_000)
    first, second = new_key(), new_key()
    make_record(first)
    make_record(second)
    assert claim(first, "a", take=take).applied
    before = raw_fields(second)

    refused = claim(
        second, "b", take=take, index=store_scripts.IndexUpdate(index, "member", score_ms=NOW)
    )

    assert refused.status is store.TransitionStatus.LIMITED
    assert not refused.applied
    assert refused.fields == before  # the record as it is, still ready, no attempt
    assert 0 < refused.retry_after_ms <= 60_000
    assert raw_fields(second) == before
    assert get_redis().zscore(index, "member") is None  # no index entry
    assert _count(counter) == 1  # nothing counted
    quiet = claim(second, "b", take=take, with_fields=False)
    assert (quiet.status, quiet.fields) == (store.TransitionStatus.LIMITED, None)
    assert 0 < quiet.retry_after_ms <= 60_000


def test_a_limit_of_zero_refuses_every_transition() -> None:
    counter = _counter()
    key = new_key()
    make_record(key)
    refused = claim(key, "a", take=store_counters.CounterUnit(counter, limit=0, ttl_ms=5_000))
    assert refused.status is store.TransitionStatus.LIMITED
    assert refused.retry_after_ms == 5_000  # no counter yet: the whole window
    assert get_redis().exists(counter) == 0
    assert raw_fields(key)["state"] == "ready"


@pytest.mark.parametrize(
    ("limit_args", "keys", "message"),
    [
        (["-1", "1000"], 3, "a limit must be"),
        (["1.5", "1000"], 3, "a limit must be"),
        (["1", "0"], 3, "ttl_ms must be a positive"),
        (["1", "soon"], 3, "ttl_ms must be a positive"),
        (["1", "1000"], 2, "KEYS"),
        (["", "1000"], 3, "needs a limit"),
    ],
)
def test_the_transition_script_rejects_a_bad_limit_before_any_write(
    limit_args: list[str], keys: int, message: str
) -> None:
    key = new_key()
    make_record(key)
    before = raw_fields(key)
    counter = _counter()
    names = [key, "ln:test-index:x", counter][:keys]
    args = [*BASE_ARGS[:15], *limit_args, *BASE_ARGS[17:]]
    with pytest.raises(redis.exceptions.ResponseError, match=message):
        get_redis().eval(script_text("record_transition"), keys, *names, *args)
    assert raw_fields(key) == before
    assert get_redis().exists(counter, "ln:test-index:x") == 0


def test_a_counter_that_is_not_a_number_is_an_error_before_any_write() -> None:
    key = new_key()
    make_record(key)
    before = raw_fields(key)
    counter = _counter()
    get_redis().set(counter, "many")
    with pytest.raises(redis.exceptions.ResponseError, match="not a number"):
        claim(key, "a", take=store_counters.CounterUnit(counter, limit=3, ttl_ms=1_000))
    assert raw_fields(key) == before


def test_a_unit_given_back_never_goes_below_zero_nor_outlives_its_window() -> None:
    counter = _counter()
    store_counters.counter_give_back(counter)
    assert get_redis().exists(counter) == 0  # no window: nothing created
    assert store_counters.counter_take(counter, limit=5, ttl_ms=60_000).taken
    store_counters.counter_give_back(counter)
    assert _count(counter) == 0
    store_counters.counter_give_back(counter)
    assert _count(counter) == 0
    assert get_redis().pttl(counter) > 0  # the window keeps its TTL


def test_the_create_script_rejects_a_bad_ttl_before_any_write() -> None:
    key = new_key()
    with pytest.raises(redis.exceptions.ResponseError, match="ttl_ms"):
        get_redis().eval(script_text("record_create"), 1, key, "ready", "{}", "0")
    assert get_redis().exists(key) == 0


def test_record_delete_reports_whether_the_record_existed() -> None:
    key = new_key()
    make_record(key)
    assert store.record_delete(key) is True
    assert store.record_delete(key) is False
    assert store.record_get(key) is None


def test_index_due_returns_members_whose_time_has_come() -> None:
    index = f"ln:test-index:{uuid.uuid4().hex}"
    store.index_add(index, "early", score_ms=NOW - 1)
    store.index_add(index, "now", score_ms=NOW)
    store.index_add(index, "later", score_ms=NOW + 1)
    assert store.index_due(index, now_ms=NOW) == ["early", "now"]
    store.index_remove(index, "early")
    assert store.index_due(index, now_ms=NOW) == ["now"]


def test_keys_carry_the_token_digest_as_a_cluster_hash_tag() -> None:
    digest = store.token_digest("some-token")
    assert len(digest) == 64
    assert control.card_key(digest) == "ln:card:{" + digest + "}"
    assert control.continuation_key(digest) == "ln:cont:{" + digest + "}"


# --- fail closed -------------------------------------------------------------------------


def closed_port_caches() -> dict[str, Any]:
    return {"default": {**settings.CACHES["default"], "LOCATION": "redis://127.0.0.1:1/0"}}


def every_store_operation() -> list[tuple[str, Any]]:
    token = "t" * 43
    issue = dict(
        owner_id=1,
        session_id=uuid.uuid4(),
        subject_id=1,
        actor_id=1,
        tool="create_todo",
        capability="todo.create",
        risk="low",
        args={"title": "x"},
        preview={"title": "p"},
        admin_context_id=None,
        admin_mode=None,
        request_id="r",
    )
    key = new_key()
    return [
        ("record_create", lambda: store.record_create(key, state="a", record_json="{}", ttl_ms=1)),
        ("record_get", lambda: store.record_get(key)),
        ("record_transition", lambda: claim(key, "attempt-1")),
        ("record_delete", lambda: store.record_delete(key)),
        ("index_due", lambda: store.index_due(card_transitions.RUNNING_INDEX_KEY, now_ms=NOW)),
        ("card_issue", lambda: cards.card_issue(**issue)),
        ("card_get", lambda: cards.card_get(token)),
        ("card_claim", lambda: card_transitions.card_claim(token, attempt_id="a")),
        (
            "card_settle",
            lambda: card_transitions.card_settle(
                token, attempt_id="a", outcome_kind="failed", outcome={}
            ),
        ),
        (
            "card_resolve",
            lambda: card_transitions.card_resolve(token, outcome_kind="failed", outcome={}),
        ),
        ("card_reject", lambda: card_transitions.card_reject(token)),
        ("card_destroy", lambda: card_transitions.card_destroy(token)),
        ("cards_running_with_expired_lease", card_transitions.cards_running_with_expired_lease),
        (
            "continuation_issue",
            lambda: continuation_store.continuation_issue(
                action_id=uuid.uuid4(), owner_id=1, session_id=uuid.uuid4(), snapshot={}
            ),
        ),
        ("continuation_get", lambda: continuation_store.continuation_get(token)),
        (
            "continuation_activate",
            lambda: continuation_store.continuation_activate(
                token, receipt_action_id="x", receipt_status="succeeded"
            ),
        ),
        (
            "continuation_claim",
            lambda: continuation_store.continuation_claim(token, attempt_id="a"),
        ),
        (
            "continuation_release",
            lambda: continuation_store.continuation_release(token, attempt_id="a"),
        ),
        (
            "continuation_settle",
            lambda: continuation_store.continuation_settle(token, attempt_id="a", reply="r"),
        ),
    ]


def test_every_operation_fails_closed_with_503_when_redis_is_unreachable() -> None:
    get_redis().flushdb()
    failures: dict[str, tuple[str, int]] = {}
    neutral: set[str] = set()
    with override_settings(CACHES=closed_port_caches()):
        for name, operation in every_store_operation():
            with pytest.raises((LightNoteError, store.StoreUnavailable)) as caught:
                operation()
            if isinstance(caught.value, store.StoreUnavailable):
                neutral.add(name)
            else:
                failures[name] = (caught.value.code, caught.value.status)
    # The base layer raises its neutral error; every agent operation maps it to its 503.
    raw = {"record_create", "record_get", "record_transition", "record_delete", "index_due"}
    assert neutral == raw
    assert set(failures.values()) == {("CONFIRMATION_STORE_UNAVAILABLE", 503)}
    assert len(failures) == 14
    assert get_redis().dbsize() == 0  # nothing was created anywhere


def test_store_texts_exist_in_both_languages() -> None:
    for code in (
        "CONFIRMATION_STORE_UNAVAILABLE",
        "CARD_ARGS_TOO_LARGE",
        "CARD_PREVIEW_TOO_LARGE",
        "CONTINUATION_SNAPSHOT_TOO_LARGE",
    ):
        zh = translate(code, "zh-CN", limit_kb=64)
        en = translate(code, "en", limit_kb=64)
        assert zh != code
        assert en != code
        assert zh != en


# --- the system check --------------------------------------------------------------------


def test_the_check_is_registered_and_silent_for_a_suitable_store() -> None:
    # Embedded pass: fakeredis needs no configuration. Services pass: Redis 7 + noeviction.
    assert check_control_store() == []
    assert run_checks(tags=["redis"]) == []


def test_the_check_warns_instead_of_crashing_when_redis_is_down() -> None:
    with override_settings(CACHES=closed_port_caches()):
        messages = check_control_store()
    assert [message.id for message in messages] == ["agent.W003"]
    assert "127.0.0.1:1/0" in messages[0].msg


def test_the_check_warns_about_an_old_server_and_an_evicting_policy() -> None:
    info = {"redis_version": "6.2.14", "maxmemory_policy": "allkeys-lru"}
    messages = server_warnings(info, server="cache:6379")
    assert [message.id for message in messages] == ["agent.W001", "agent.W002"]
    assert "6.2.14" in messages[0].msg
    assert "allkeys-lru" in messages[1].msg
    suitable = {"redis_version": "7.2.4", "maxmemory_policy": "noeviction"}
    assert server_warnings(suitable, server="cache:6379") == []


RUNNING_INDEX = "ln:test:running"
