"""The card and continuation protocol on a real 3-master Redis Cluster (ports 7101-7103).

The cluster is started by ``tests/redis_cluster.py`` for this module and stopped after it.
The race scenarios are the ones ``tests/test_cards.py`` runs against a single Redis,
unchanged; only the settings point at the cluster (``REDIS_CLUSTER=True``).
"""

from __future__ import annotations

import os
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from django.conf import settings
from django.test import override_settings

from agent import control
from agent.cards import records as cards
from agent.cards import transitions as card_transitions
from agent.checks import check_control_store
from agent.continuations import store as continuation_store
from lightnote.controlstore.redis import get_redis
from lightnote.errors import LightNoteError
from lightnote.ops.request_counters import count_requests
from tests.redis_cluster import ClusterUnavailable, LocalCluster, local_cluster
from tests.test_cards import SESSION, issue, race_claims_in_processes, race_claims_in_threads

pytestmark = [pytest.mark.services, pytest.mark.cluster]


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    try:
        with local_cluster() as running:
            yield running
    except ClusterUnavailable as exc:
        if os.environ.get("REQUIRE_SERVICES") == "1":
            pytest.fail(f"the local Redis Cluster could not start: {exc}")
        pytest.skip(f"the local Redis Cluster could not start: {exc}")


def cluster_caches(url: str) -> dict[str, Any]:
    return {"default": {**settings.CACHES["default"], "LOCATION": url}}


@pytest.fixture
def on_cluster(cluster: LocalCluster) -> Iterator[LocalCluster]:
    """Point the app's Redis at the cluster, emptied, for one test."""
    with override_settings(REDIS_CLUSTER=True, CACHES=cluster_caches(cluster.url)):
        client = get_redis()
        assert type(client).__name__ == "RedisCluster"
        client.flushdb(target_nodes="primaries")
        yield cluster


def test_cards_spread_over_several_masters_each_in_one_slot(on_cluster: LocalCluster) -> None:
    client = get_redis()
    nodes = set()
    for _ in range(24):
        issued = issue()
        key = control.card_key(issued.card.digest)
        nodes.add(client.get_node_from_key(key).port)
        assert cards.card_get(issued.token) == issued.card
    assert nodes == set(on_cluster.ports)


def test_a_card_runs_its_whole_life_on_the_cluster(on_cluster: LocalCluster) -> None:
    issued = issue()
    claim = card_transitions.card_claim(issued.token, attempt_id="attempt-1")
    assert claim.status is card_transitions.ClaimStatus.CLAIMED
    assert (
        card_transitions.card_claim(issued.token, attempt_id="attempt-2").status
        is card_transitions.ClaimStatus.RUNNING
    )
    assert card_transitions.card_settle(
        issued.token, attempt_id="attempt-1", outcome_kind="unknown", outcome={"ok": None}
    )
    assert card_transitions.card_resolve(
        issued.token, outcome_kind="succeeded", outcome={"ok": True}
    )
    card = cards.card_get(issued.token)
    assert card is not None
    assert (card.state, card.outcome_kind, card.outcome) == ("settled", "succeeded", {"ok": True})
    assert cards.card_binding_valid(card) is True
    rejected = issue()
    assert (
        card_transitions.card_reject(rejected.token).status
        is card_transitions.RejectStatus.REJECTED
    )


def test_fifty_concurrent_claims_on_the_cluster_have_exactly_one_winner(
    on_cluster: LocalCluster,
) -> None:
    issued = issue()
    assert race_claims_in_threads(issued.token, threads=50) == Counter(
        {"claimed": 1, "running": 49}
    )


def test_fifty_owner_checked_claims_on_the_cluster_have_exactly_one_winner(
    on_cluster: LocalCluster,
) -> None:
    """A confirm's read-and-claim script is one key too: it runs on the card's own master."""
    issued = issue()
    assert race_claims_in_threads(issued.token, threads=50, owner_of=lambda index: 7) == Counter(
        {"claimed": 1, "running": 49}
    )


@pytest.mark.django_db  # count_requests also counts SQL (there is none here)
def test_on_the_cluster_a_claim_that_applies_adds_its_index_entry_and_one_that_does_not_none(
    on_cluster: LocalCluster,
) -> None:
    client = get_redis()
    warm = issue()  # the script is loaded on the master of this card's slot
    card_transitions.card_claim(warm.token, attempt_id="warm", owner_id=7, session_id=SESSION)
    issued = issue()
    card_transitions.card_claim(issued.token, attempt_id="warm", owner_id=8, session_id=SESSION)
    with count_requests() as refused_counts:
        refused = card_transitions.card_claim(
            issued.token, attempt_id="thief", owner_id=8, session_id=SESSION
        )
    assert refused.status is card_transitions.ClaimStatus.READY
    assert (
        client.zscore(card_transitions.RUNNING_INDEX_KEY, issued.card.digest) is None
    )  # not applied
    with count_requests() as claim_counts:
        claim = card_transitions.card_claim(
            issued.token, attempt_id="owner", owner_id=7, session_id=SESSION
        )
    assert claim.status is card_transitions.ClaimStatus.CLAIMED
    # The read (a claim's deadline counts from it), the script, then (only for a claim
    # that applied) the index update on its own slot.
    assert (refused_counts.redis, claim_counts.redis) == (2, 3)
    assert claim.card is not None
    assert claim.card.lease_until is not None
    score = claim.card.lease_until.timestamp() * 1000
    assert client.zscore(card_transitions.RUNNING_INDEX_KEY, issued.card.digest) == score
    late = card_transitions.card_claim(
        issued.token, attempt_id="late", owner_id=7, session_id=SESSION
    )
    assert late.status is card_transitions.ClaimStatus.RUNNING
    assert client.zscore(card_transitions.RUNNING_INDEX_KEY, issued.card.digest) == score


def test_concurrent_claims_from_processes_on_the_cluster_have_exactly_one_winner(
    on_cluster: LocalCluster,
) -> None:
    issued = issue()
    assert race_claims_in_processes(issued.token, processes=8) == Counter(
        {"claimed": 1, "running": 7}
    )


def test_a_continuation_runs_its_whole_life_on_the_cluster(on_cluster: LocalCluster) -> None:
    action = uuid.uuid4()
    token, _ = continuation_store.continuation_issue(
        action_id=action, owner_id=7, session_id=uuid.uuid4(), snapshot={"q": "?"}
    )
    activated = continuation_store.continuation_activate(
        token, receipt_action_id=action, receipt_status="succeeded"
    )
    assert activated == "ready"
    claim = continuation_store.continuation_claim(token, attempt_id="attempt-1")
    assert claim.status is continuation_store.ContinuationClaimStatus.CLAIMED
    assert continuation_store.continuation_settle(token, attempt_id="attempt-1", reply="done")
    continuation = continuation_store.continuation_get(token)
    assert continuation is not None
    assert continuation.reply == "done"


def test_the_check_names_a_cluster_master_whose_policy_may_evict(
    on_cluster: LocalCluster,
) -> None:
    assert check_control_store() == []
    node = redis.Redis(host="127.0.0.1", port=on_cluster.ports[1])
    node.config_set("maxmemory-policy", "allkeys-lru")
    try:
        messages = check_control_store()
    finally:
        node.config_set("maxmemory-policy", "noeviction")
        node.close()
    assert [message.id for message in messages] == ["agent.W002"]
    assert f"127.0.0.1:{on_cluster.ports[1]}" in messages[0].msg


def test_an_unreachable_cluster_fails_closed() -> None:
    with override_settings(REDIS_CLUSTER=True, CACHES=cluster_caches("redis://127.0.0.1:1/0")):
        with pytest.raises(LightNoteError) as caught:
            issue()
        assert (caught.value.code, caught.value.status) == ("CONFIRMATION_STORE_UNAVAILABLE", 503)
        with pytest.raises(LightNoteError):
            card_transitions.card_claim("some-token", attempt_id="attempt-1")


@pytest.mark.django_db
def test_a_card_turn_on_the_cluster_counts_then_stores_each_record_on_its_own(
    on_cluster: LocalCluster, alice_api: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """redis-py takes no script in a cluster pipeline: the limit is counted first, alone
    (a refusal stores nothing), then the continuation and the card, one round trip each."""
    from agent.models import Message
    from lightnote.controlstore import scripts as store_scripts
    from tests.test_conversation_api import new_session, say, send

    batches: list[list[str]] = []
    original = store_scripts.scripts_run

    def spy(calls: Any, **kwargs: Any) -> list[Any]:
        batch = list(calls)
        batches.append([call.name for call in batch])
        return original(batch, **kwargs)

    monkeypatch.setattr(store_scripts, "scripts_run", spy)
    monkeypatch.setattr(settings, "LIGHTNOTE_RATE_LIMIT_CARDS", "1/d")
    assert store_scripts.pipelines_scripts() is False
    session_id = new_session(alice_api)

    [card] = say(alice_api, session_id, "帮我创建一条明天下午三点开会的待办")["cards"]

    assert batches == [["counter_take"], ["record_create", "record_create"]]
    stored = cards.card_get(card["token"])
    assert stored is not None
    assert stored.state == "ready"
    continuation = continuation_store.continuation_get(card["continuation_token"])
    assert continuation is not None
    assert continuation.state == "pending"
    client = get_redis()
    [counter] = client.keys("ln:rate:agent.cards:*", target_nodes="primaries")
    assert client.get(counter) == b"1"

    limited = send(alice_api, session_id, "帮我创建一条明天下午五点交报告的待办")
    assert limited.status_code == 429
    assert batches[2:] == [["counter_take"]]  # refused before any record
    assert not Message.objects.filter(text__contains="交报告").exists()
