"""``make scale-check``: the confirmation guarantees measured on a multi-server deployment.

Starts (bench/scale/deployment.py) a Redis Cluster of three masters with one replica each, a
fresh MariaDB database, three gunicorn app servers (the stock gthread worker) and nginx in
front, all on loopback; runs four scenarios through the real API; prints the figures, writes
``bench/results/scale.json`` and exits 1 when any guarantee failed. Everything it started is
stopped on the way out, also on failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import queue
import selectors
import signal
import socket
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from bench.client import Client
from bench.scale import deployment
from bench.scale.deployment import HOST, ROOT, AppServer, Cluster, Nginx
from bench.server import server_environment

RESULTS = ROOT / "bench" / "results" / "scale.json"
DATABASE = "lightnote_scale"
CONFIRM = "/api/v1/agent/confirmations/confirm/"
STATUS = "/api/v1/agent/confirmations/status/"
LEASE_S = 3  # the execution lease: short, so stuck cards are reconciled within the run


@dataclass(frozen=True)
class Card:
    token: str
    session_id: str
    card_id: str
    title: str

    @property
    def body(self) -> dict[str, str]:
        return {"token": self.token, "session_id": self.session_id}


@dataclass(frozen=True)
class Answer:
    status: int | None  # None: no HTTP answer (connection failed or cut)
    body: Any
    error: str = ""


def _app_env(database_url: str, redis_url: str) -> dict[str, str]:
    return {
        **server_environment(database_url, redis_url),
        "LIGHTNOTE_REDIS_CLUSTER": "1",
        "LIGHTNOTE_WORKER_CLASS": os.environ.get("LIGHTNOTE_WORKER_CLASS", "gthread"),
        "LIGHTNOTE_WORKERS": os.environ.get("LIGHTNOTE_SCALE_WORKERS", "2"),
        "LIGHTNOTE_THREADS": os.environ.get("LIGHTNOTE_SCALE_THREADS", "8"),
        "LIGHTNOTE_EXECUTION_LEASE": str(LEASE_S),
        "LIGHTNOTE_REQUEST_COUNTERS": "0",
    }


# --- the client side -------------------------------------------------------------------------


def send_all(
    port: int,
    token: str,
    requests: list[tuple[str, Any]],
    timeout: float = 60,
    after: tuple[int, Callable[[], None]] | None = None,
) -> list[Answer]:
    """Open one connection per request, then send every request at once; return the answers
    in order (one thread, one poller, ``Connection: close``). ``after=(n, hook)``: ``hook()``
    runs once n answers have arrived (a fault injected mid-burst)."""
    socks: list[socket.socket | None] = []
    raws: list[bytes] = []
    answers: list[Answer | None] = [None] * len(requests)
    for index, (path, body) in enumerate(requests):
        payload = json.dumps(body).encode()
        raw = (
            f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\nAuthorization: Token {token}\r\n"
            f"Content-Type: application/json\r\nAccept-Language: zh-CN\r\n"
            f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
        ).encode() + payload
        raws.append(raw)
        try:
            socks.append(socket.create_connection((HOST, port), timeout=timeout))
        except OSError as exc:
            socks.append(None)
            answers[index] = Answer(None, None, repr(exc))
    received: dict[int, list[bytes]] = {}
    with selectors.DefaultSelector() as poller:
        for index, sock in enumerate(socks):
            if sock is None:
                continue
            try:
                sock.sendall(raws[index])
            except OSError as exc:
                answers[index] = Answer(None, None, repr(exc))
                sock.close()
                continue
            sock.setblocking(False)
            poller.register(sock, selectors.EVENT_READ, data=index)
            received[index] = []
        deadline = time.monotonic() + timeout
        while received and time.monotonic() < deadline:
            for key, _ in poller.select(timeout=max(0.01, deadline - time.monotonic())):
                index, conn = key.data, cast(socket.socket, key.fileobj)
                try:
                    chunk = conn.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if chunk:
                    received[index].append(chunk)
                    continue
                poller.unregister(conn)
                conn.close()
                answers[index] = _parse(b"".join(received.pop(index)))
                if after is not None and sum(a is not None for a in answers) >= after[0]:
                    after[1]()
                    after = None
        for index in list(received):
            answers[index] = Answer(None, None, f"no answer within {timeout} s")
            socks[index].close()  # type: ignore[union-attr]
    return [answer or Answer(None, None, "lost") for answer in answers]


def _parse(raw: bytes) -> Answer:
    head, _, payload = raw.partition(b"\r\n\r\n")
    parts = head.split(b"\r\n", 1)[0].split(b" ", 2)
    if len(parts) < 2 or not parts[1].isdigit():
        return Answer(None, None, "connection closed without an HTTP answer")
    if b"transfer-encoding: chunked" in head.lower():
        payload = _unchunk(payload)
    try:
        body = json.loads(payload) if payload else None
    except ValueError:
        body = payload.decode("utf-8", "replace")[:200]
    return Answer(int(parts[1]), body)


def _unchunk(data: bytes) -> bytes:
    out = b""
    while data:
        size_line, _, rest = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out, data = out + rest[:size], rest[size + 2 :]
    return out


def call(port: int, token: str, method: str, path: str, body: Any = None, tries: int = 20) -> Any:
    """One request through a fresh client, retried while the deployment answers 5xx (a
    failover in progress, an app server gone); returns the last reply."""
    reply = None
    for _ in range(tries):
        client = Client(HOST, port, token)
        try:
            reply = client.call(method, path, body)
        except (OSError, ValueError):  # no answer, or nginx's HTML 502 page
            reply = None
        finally:
            client.close()
        if reply is not None and reply.status < 500:
            return reply
        time.sleep(0.5)
    return reply


def make_cards(port: int, token: str, count: int, label: str) -> list[Card]:
    """Issue ``count`` cards through the chat API: a session and "创建待办 <title>" each."""

    def one(index: int) -> Card:
        title = f"scale {label} {index}"
        session = call(port, token, "POST", "/api/v1/agent/sessions/", {})
        reply = call(port, token, "POST", f"/api/v1/agent/sessions/{session.body['id']}/messages/",
                     {"text": f"创建待办 {title}"})  # fmt: skip
        cards = reply.body.get("cards") or []
        if reply.status != 200 or len(cards) != 1:
            raise RuntimeError(f"no card for {title!r}: {reply.status} {reply.body}")
        card = cards[0]
        return Card(card["token"], session.body["id"], card["card_id"], card["args"]["title"])

    with ThreadPoolExecutor(max_workers=12) as pool:
        return list(pool.map(one, range(count)))


def confirm_status(port: int, token: str, card: Card) -> Any:
    return call(port, token, "POST", STATUS, card.body).body


# --- what the database says ----------------------------------------------------------------


def executions(cards: list[Card]) -> dict[str, Any]:
    """Todos per card title and receipts per action id, from MariaDB."""
    from agent.models import ActionReceipt
    from todos.models import Todo

    titles = [card.title for card in cards]
    per_title: dict[str, int] = dict.fromkeys(titles, 0)
    # The trash included: an execution is a row, deleted since or not.
    for title in Todo.all_objects.filter(title__in=titles).values_list("title", flat=True):
        per_title[title] += 1
    rows = ActionReceipt.objects.filter(action_id__in=[c.card_id for c in cards])
    receipts = {str(key): str(value) for key, value in rows.values_list("action_id", "status")}
    return {"todos": per_title, "receipts": receipts}


def reconcile(env: dict[str, str]) -> str:
    """``manage.py reconcile_cards`` once, as cron runs it on any host."""
    done = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "manage.py", "reconcile_cards"],
        cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    return (done.stdout + done.stderr).strip()[-500:]


def outcome_of(body: Any) -> str:
    """``succeeded`` / ``failed`` / ``unknown`` for a settled body, else its state or code."""
    if isinstance(body, dict) and body.get("state") == "settled":
        ok = (body.get("outcome") or {}).get("ok")
        return {True: "succeeded", False: "failed", None: "unknown"}[ok]
    if isinstance(body, dict) and "state" in body:
        return str(body["state"])
    if isinstance(body, dict) and "error" in body:
        return str(body["error"].get("code"))
    return "none"


def settle_all(port: int, token: str, cards: list[Card], env: dict[str, str]) -> dict[str, str]:
    """Read every card's state; while any is running or unknown, let its lease pass and
    run the reconciler (bounded: 5 rounds)."""
    states: dict[str, str] = {}
    for _ in range(5):
        states = {c.card_id: outcome_of(confirm_status(port, token, c)) for c in cards}
        if not any(s in ("running", "unknown") for s in states.values()):
            break
        time.sleep(LEASE_S + 1)
        reconcile(env)
    return states


def _tally(values: Iterator[str] | list[str]) -> dict[str, int]:
    tally: dict[str, int] = {}
    for value in values:
        tally[value] = tally.get(value, 0) + 1
    return dict(sorted(tally.items()))


def guarantees(cards: list[Card], states: dict[str, str], answers: list[Answer]) -> dict[str, Any]:
    """No duplicate, no lost receipt, every card settled or confirmable, answers consistent."""
    db = executions(cards)
    duplicates = sum(1 for n in db["todos"].values() if n > 1)
    succeeded = {k for k, v in db["receipts"].items() if v == "succeeded"}
    by_id = {c.card_id: c for c in cards}
    lost = [  # a todo without its receipt, or a success answered without one
        card_id
        for card_id, state in states.items()
        if (db["todos"][by_id[card_id].title] and card_id not in succeeded)
        or (state == "succeeded" and card_id not in succeeded)
    ]
    unsettled = [k for k, v in states.items() if v not in ("succeeded", "failed", "ready")]
    answered_ok = [a for a in answers if a.status == 200 and outcome_of(a.body) == "succeeded"]
    inconsistent = [
        a
        for a in answered_ok
        if (a.body["outcome"].get("receipt") or {}).get("action_id") not in succeeded
    ]
    return {
        "executions": sum(db["todos"].values()),
        "succeeded_receipts": len(succeeded),
        "duplicate_executions": duplicates,
        "lost_receipts": len(lost),
        "not_settled_or_confirmable": len(unsettled),
        "inconsistent_answers": len(inconsistent),
        "final_states": _tally(list(states.values())),
    }


# --- the scenarios -----------------------------------------------------------------------------


def scenario_one_card(
    port: int, token: str, env: dict[str, str], servers: list[AppServer]
) -> dict[str, Any]:
    """(a) 1000 concurrent confirms of one card through nginx (round robin over 3 servers)."""
    (card,) = make_cards(port, token, 1, "a")
    started = time.perf_counter()
    answers = send_all(port, token, [(CONFIRM, card.body)] * 1000)
    seconds = time.perf_counter() - started
    settled = [a for a in answers if a.status == 200]
    bodies = {json.dumps(a.body, sort_keys=True) for a in settled}
    final = confirm_status(port, token, card)
    states = settle_all(port, token, [card], env)
    checks = guarantees([card], states, answers)
    consistent = (
        len(bodies) <= 1
        and all(a.status in (200, 202) for a in answers)
        and (not bodies or json.loads(next(iter(bodies))) == final)
    )
    return {
        "confirms": len(answers),
        "servers": len(servers),
        "seconds": round(seconds, 2),
        "statuses": _tally([str(a.status) for a in answers]),
        "distinct_settled_bodies": len(bodies),
        "every_answer_consistent": consistent,
        **checks,
        "passed": checks["executions"] == 1
        and checks["duplicate_executions"] == 0
        and checks["lost_receipts"] == 0
        and consistent,
    }


def _slot(card: Card) -> int:
    from redis.crc import key_slot

    digest = deployment_digest(card.token)
    return int(key_slot(f"ln:card:{{{digest}}}".encode()))


def deployment_digest(token: str) -> str:
    import hashlib

    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def scenario_failover(
    port: int, token: str, env: dict[str, str], cluster: Cluster
) -> dict[str, Any]:
    """(b) 200 cards in one master's slots confirmed at once while that master is SIGKILLed."""
    on_master: dict[int, list[Card]] = {}
    made = 0
    while max((len(v) for v in on_master.values()), default=0) < 200 and made < 1200:
        for card in make_cards(port, token, 150, f"b{made}"):
            on_master.setdefault(cluster.master_of_slot(_slot(card)), []).append(card)
        made += 150
    master, cards = max(on_master.items(), key=lambda item: len(item[1]))
    cards = cards[:200]
    time.sleep(1.0)  # the cards' records reach the replicas (asynchronous replication)
    killed_at: list[float] = []

    def kill() -> None:
        cluster.node(master).kill()
        killed_at.append(time.perf_counter())

    started = time.perf_counter()
    # The master dies once a quarter of the confirms have been answered.
    answers = send_all(port, token, [(CONFIRM, c.body) for c in cards], after=(50, kill))
    if not killed_at:
        kill()
    burst_s = time.perf_counter() - started
    slot = _slot(cards[0])
    deployment._wait(
        lambda: cluster.master_of_slot(slot) not in (master, 0) and cluster.healthy(),
        "a replica promoted in the killed master's place",
        timeout=60,
    )
    failover_s = time.perf_counter() - killed_at[0]
    promoted = cluster.master_of_slot(slot)
    states = settle_all(port, token, cards, env)
    checks = guarantees(cards, states, answers)
    # A 503 after a claim that reached the dying master cannot give the claim back: the
    # card is settled "not executed" from the receipt table, never run (counted here).
    refused_then_settled = sum(
        1
        for c, a in zip(cards, answers, strict=True)
        if a.status == 503 and states[c.card_id] != "ready"
    )
    # A card left ready is confirmable: confirm it now, once.
    ready = [c for c in cards if states[c.card_id] == "ready"]
    later = [call(port, token, "POST", CONFIRM, c.body) for c in ready]
    after = guarantees(cards, settle_all(port, token, cards, env), answers)
    cluster.node(master).restart()  # the old master rejoins, as its successor's replica
    deployment._wait(cluster.healthy, "the cluster with the old master back", timeout=60)
    return {
        "cards": len(cards),
        "cards_issued_to_find_them": made,
        "killed_master_port": master,
        "promoted_master_port": promoted,
        "burst_seconds": round(burst_s, 2),
        "failover_seconds": round(failover_s, 2),
        "statuses": _tally([str(a.status) for a in answers]),
        **checks,
        "answered_503_then_settled_not_executed": refused_then_settled,
        "ready_cards_confirmed_after": len(later),
        "after_confirming_the_ready_ones": after,
        "passed": checks["duplicate_executions"] == 0
        and checks["lost_receipts"] == 0
        and checks["not_settled_or_confirmable"] == 0
        and checks["inconsistent_answers"] == 0
        and after["duplicate_executions"] == 0
        and after["lost_receipts"] == 0
        and promoted != master,
    }


def scenario_server_killed(
    port: int, token: str, env: dict[str, str], servers: list[AppServer]
) -> dict[str, Any]:
    """(c) confirms in flight on one app server when it is SIGKILLed; the reconciler."""
    cards = make_cards(port, token, 60, "c")
    victim = servers[0]

    # Straight to the victim (not through nginx), killed once 3 confirms were answered.
    answers = send_all(
        victim.port, token, [(CONFIRM, c.body) for c in cards], timeout=20, after=(3, victim.kill)
    )
    if victim.alive:
        victim.kill()
    before = {c.card_id: outcome_of(confirm_status(port, token, c)) for c in cards}
    time.sleep(LEASE_S + 1)
    reconciled = reconcile(env)
    states = settle_all(port, token, cards, env)
    checks = guarantees(cards, states, answers)
    return {
        "cards": len(cards),
        "answered_before_the_kill": sum(1 for a in answers if a.status is not None),
        "cut_by_the_kill": sum(1 for a in answers if a.status is None),
        "states_right_after": _tally(list(before.values())),
        "reconcile_cards": reconciled,
        **checks,
        "passed": checks["duplicate_executions"] == 0
        and checks["lost_receipts"] == 0
        and checks["not_settled_or_confirmable"] == 0
        and checks["inconsistent_answers"] == 0,
    }


def _confirm_all(
    port: int, token: str, cards: list[Card], clients: int
) -> tuple[float, list[float], list[int]]:
    """Confirm every card once from ``clients`` keep-alive clients; (seconds, ms, statuses)."""
    work: queue.SimpleQueue[Card] = queue.SimpleQueue()
    for card in cards:
        work.put(card)
    latencies: list[float] = []
    statuses: list[int] = []
    lock = threading.Lock()

    def worker() -> None:
        client = Client(HOST, port, token)
        try:
            while True:
                try:
                    card = work.get_nowait()
                except queue.Empty:
                    return
                reply = client.call("POST", CONFIRM, card.body)
                with lock:
                    latencies.append(reply.ms)
                    statuses.append(reply.status)
        finally:
            client.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started, latencies, statuses


def scenario_throughput(
    nginx: Nginx,
    token: str,
    env: dict[str, str],
    servers: list[AppServer],
    per_level: int,
    clients: int,
) -> dict[str, Any]:
    """(d) confirms/s through nginx with 1, 2 and 3 app servers, at the same client load."""
    levels: list[dict[str, Any]] = []
    all_cards: list[Card] = []
    for count in (1, 2, 3):
        nginx.configure([s.port for s in servers])
        cards = make_cards(nginx.port, token, per_level, f"d{count}")
        all_cards += cards
        nginx.configure([s.port for s in servers[:count]])
        seconds, latencies, statuses = _confirm_all(nginx.port, token, cards, clients)
        latencies.sort()
        levels.append({
            "app_servers": count,
            "confirms": len(cards),
            "seconds": round(seconds, 2),
            "confirms_per_s": round(len(cards) / seconds, 1),
            "p50_ms": round(statistics.median(latencies), 1),
            "p95_ms": round(latencies[int(len(latencies) * 0.95) - 1], 1),
            "statuses": _tally([str(s) for s in statuses]),
        })  # fmt: skip
    nginx.configure([s.port for s in servers])
    states = settle_all(nginx.port, token, all_cards, env)
    checks = guarantees(all_cards, states, [])
    return {
        "client_threads": clients,
        "levels": levels,
        **checks,
        "passed": checks["duplicate_executions"] == 0
        and checks["lost_receipts"] == 0
        and all(level["statuses"] == {"200": level["confirms"]} for level in levels),
    }


# --- the run ------------------------------------------------------------------------------------


def _machine() -> dict[str, Any]:
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "system": platform.platform(),
    }


def _nginx_installed() -> None:
    if not Path(deployment.NGINX).exists():
        raise SystemExit("nginx is not installed (make scale-check installs Debian's nginx)")


def _stop_servers(servers: list[AppServer]) -> None:
    for server in servers:
        deployment._stop(server.process, group=True)


def _stop_on_sigterm() -> None:
    """SIGTERM (a stopped make, a timeout) unwinds like Ctrl-C: everything is stopped."""

    def stop(signum: int, frame: Any) -> None:
        raise SystemExit(143)

    signal.signal(signal.SIGTERM, stop)


def run() -> int:
    _nginx_installed()
    _stop_on_sigterm()
    started = datetime.now(UTC)
    results: dict[str, Any] = {
        "started_at": started.isoformat(timespec="seconds"),
        "machine": _machine(),
    }
    with contextlib.ExitStack() as stack:
        home = stack.enter_context(deployment.workdir())
        cluster = stack.enter_context(deployment.redis_cluster(home))
        database_url = stack.enter_context(deployment.mariadb_database(DATABASE))
        env = _app_env(database_url, cluster.url)
        from bench.seed import setup_django, token_for

        setup_django(env)
        token = token_for("scale")
        servers: list[AppServer] = []
        stack.callback(_stop_servers, servers)
        for _ in range(3):
            servers.append(deployment.start_app_server(env, home))
        nginx = Nginx(home / "nginx", deployment.free_port())
        nginx.home.mkdir()
        stack.callback(nginx.stop)
        nginx.configure([s.port for s in servers])
        results["deployment"] = {
            "app_servers": [s.port for s in servers],
            "worker_class": env["LIGHTNOTE_WORKER_CLASS"],
            "workers_per_server": int(env["LIGHTNOTE_WORKERS"]),
            "threads_per_worker": int(env["LIGHTNOTE_THREADS"]),
            "nginx_port": nginx.port,
            "redis_cluster": [n.port for n in cluster.nodes],
            "database": DATABASE,
            "execution_lease_s": LEASE_S,
        }
        port = nginx.port
        steps: list[tuple[str, Callable[[], dict[str, Any]]]] = [
            ("a_one_card_1000_confirms", lambda: scenario_one_card(port, token, env, servers)),
            ("b_master_killed_mid_burst", lambda: scenario_failover(port, token, env, cluster)),
            ("c_app_server_killed_mid_confirm",
             lambda: scenario_server_killed(port, token, env, servers)),
        ]  # fmt: skip
        for name, step in steps:
            print(f"== {name}", flush=True)
            results[name] = step()
            print(json.dumps(results[name], ensure_ascii=False, indent=1), flush=True)
        servers[0] = deployment.start_app_server(env, home)  # the killed one, restarted
        print("== d_throughput_by_app_servers", flush=True)
        results["d_throughput_by_app_servers"] = scenario_throughput(
            nginx,
            token,
            env,
            servers,
            per_level=int(os.environ.get("LIGHTNOTE_SCALE_CARDS", "300")),
            clients=int(os.environ.get("LIGHTNOTE_SCALE_CLIENTS", "24")),
        )
        print(json.dumps(results["d_throughput_by_app_servers"], indent=1), flush=True)
    results["seconds"] = round((datetime.now(UTC) - started).total_seconds(), 1)
    names = [k for k in results if k[:2] in ("a_", "b_", "c_", "d_")]
    results["passed"] = all(results[name]["passed"] for name in names)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"== scale-check {'passed' if results['passed'] else 'FAILED'}: {RESULTS}")
    return 0 if results["passed"] else 1


if __name__ == "__main__":
    raise SystemExit(run())
