"""A multi-server LightNote on loopback: a 6-node Redis Cluster (3 masters, 1 replica each),
a fresh MariaDB database, N gunicorn app servers and nginx in front, all started here and
stopped (and their directories deleted) on exit, also when start-up fails half-way."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

HOST = "127.0.0.1"
ROOT = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def _bindable(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind((HOST, port))
        except OSError:
            return False
    return True


def _cluster_ports(count: int, first: int = 17100) -> list[int]:
    """Free ports for cluster nodes: each at most 55535, its bus port (+10000) free too."""
    ports = [p for p in range(first, first + 900) if _bindable(p) and _bindable(p + 10000)]
    if len(ports) < count:
        raise RuntimeError("no free ports for the Redis Cluster")
    return ports[:count]


def _wait(check: object, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():  # type: ignore[operator]
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{what} not ready within {timeout:.0f} s")


def _stop(process: subprocess.Popen[bytes], *, group: bool = False) -> None:
    """Stop a process started here (its own process group with ``group``)."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        if group:
            os.killpg(process.pid, signal.SIGTERM)
        else:
            process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            if group:
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.kill()
        process.wait()


def cli(port: int, *args: str, timeout: float = 20) -> str:
    done = subprocess.run(
        ["redis-cli", "-h", HOST, "-p", str(port), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return done.stdout + done.stderr


@dataclass
class RedisNode:
    port: int
    process: subprocess.Popen[bytes]
    args: list[str] = field(default_factory=list)

    def restart(self) -> None:
        """Start the node again from its own directory: it rejoins (as a replica now)."""
        self.process = subprocess.Popen(self.args, stdout=subprocess.DEVNULL)
        _wait(lambda: "PONG" in cli(self.port, "ping"), f"redis {self.port}")

    def kill(self) -> None:
        """SIGKILL the node (a crash: no shutdown, no final replication)."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()


@dataclass
class Cluster:
    nodes: list[RedisNode]

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.nodes[0].port}/0"

    def node(self, port: int) -> RedisNode:
        return next(node for node in self.nodes if node.port == port)

    def master_of_slot(self, slot: int, *, via: int | None = None) -> int:
        """The port of the master serving ``slot`` now (asked of a live node); 0 for none."""
        ports = [via] if via else [n.port for n in self.nodes if n.process.poll() is None]
        for port in ports:
            for line in cli(port, "cluster", "nodes").splitlines():
                parts = line.split()
                if len(parts) < 9 or "master" not in parts[2] or "fail" in parts[2]:
                    continue
                for span in parts[8:]:
                    if span.startswith("["):
                        continue
                    low, _, high = span.partition("-")
                    if int(low) <= slot <= int(high or low):
                        return int(parts[1].split(":")[1].split("@")[0])
        return 0  # none right now (a failover in progress)

    def live_url(self) -> str:
        port = next(n.port for n in self.nodes if n.process.poll() is None)
        return f"redis://{HOST}:{port}/0"

    def healthy(self) -> bool:
        live = [n.port for n in self.nodes if n.process.poll() is None]
        return all("cluster_state:ok" in cli(port, "cluster", "info") for port in live)


@contextlib.contextmanager
def redis_cluster(workdir: Path, *, node_timeout_ms: int = 2000) -> Iterator[Cluster]:
    """Six ``redis-server --cluster-enabled yes`` nodes, then ``redis-cli --cluster create
    --cluster-replicas 1``: three masters, each with one replica."""
    ports = _cluster_ports(6)
    nodes: list[RedisNode] = []
    try:
        for port in ports:
            home = workdir / f"redis-{port}"
            home.mkdir()
            args = [
                "redis-server", "--port", str(port), "--bind", HOST, "--cluster-enabled", "yes",
                "--cluster-config-file", str(home / "nodes.conf"),
                "--cluster-node-timeout", str(node_timeout_ms), "--dir", str(home),
                "--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction",
                "--logfile", str(home / "redis.log"),
            ]  # fmt: skip
            nodes.append(RedisNode(port, subprocess.Popen(args, stdout=subprocess.DEVNULL), args))
        for port in ports:
            _wait(lambda port=port: "PONG" in cli(port, "ping"), f"redis {port}")
        created = subprocess.run(
            ["redis-cli", "--cluster", "create", *[f"{HOST}:{p}" for p in ports],
             "--cluster-replicas", "1", "--cluster-yes"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        if created.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed: {created.stdout[-2000:]}")
        cluster = Cluster(nodes)
        _wait(cluster.healthy, "the Redis Cluster")
        yield cluster
    finally:
        for node in nodes:
            _stop(node.process)


@contextlib.contextmanager
def mariadb_database(name: str) -> Iterator[str]:
    """A fresh database on the running MariaDB (dropped first if left over, and after)."""
    import MySQLdb

    def run(statement: str) -> None:
        connection = MySQLdb.connect(host=HOST, port=3306, user="root", password="")
        try:
            connection.cursor().execute(statement)
        finally:
            connection.close()

    run(f"DROP DATABASE IF EXISTS `{name}`")
    run(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
    try:
        yield f"mysql://root@{HOST}:3306/{name}"
    finally:
        run(f"DROP DATABASE IF EXISTS `{name}`")


@dataclass
class AppServer:
    port: int
    process: subprocess.Popen[bytes]

    def kill(self) -> None:
        """SIGKILL the gunicorn master and its workers at once (a machine lost mid-request)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    @property
    def alive(self) -> bool:
        return self.process.poll() is None


def start_app_server(env: dict[str, str], logdir: Path) -> AppServer:
    """One gunicorn (``gunicorn.conf.py``, the stock gthread worker) on a free port."""
    port = free_port()
    log = (logdir / f"gunicorn-{port}.log").open("wb")
    process = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "gunicorn"), "lightnote.wsgi:application"],
        cwd=ROOT,
        env={**os.environ, **env, "LIGHTNOTE_BIND": f"{HOST}:{port}"},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: stopped (or killed) whole
    )
    server = AppServer(port, process)

    def answers() -> bool:
        if not server.alive:
            raise RuntimeError(f"gunicorn on {port} exited; see {log.name}")
        with socket.create_connection((HOST, port), timeout=1) as sock:
            sock.sendall(b"GET /api/v1/me/ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            return sock.recv(16).startswith(b"HTTP/")

    try:
        _wait(answers, f"gunicorn on {port}")
    except Exception:
        _stop(process, group=True)
        raise
    return server


NGINX_CONF = """\
worker_processes 1;
pid {home}/nginx.pid;
error_log {home}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {home}/body;
    proxy_temp_path {home}/proxy;
    fastcgi_temp_path {home}/fastcgi;
    uwsgi_temp_path {home}/uwsgi;
    scgi_temp_path {home}/scgi;
    upstream lightnote {{
{servers}
        keepalive 64;
    }}
    server {{
        listen {host}:{port} backlog=4096;
        client_max_body_size 1m;
        location / {{
            proxy_pass http://lightnote;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_connect_timeout 2s;
            proxy_read_timeout 60s;
            proxy_send_timeout 60s;
            # A confirm is never retried on another server: it may have claimed the card.
            proxy_next_upstream error timeout;
            proxy_next_upstream_tries 2;
        }}
    }}
}}
"""


@dataclass
class Nginx:
    home: Path
    port: int
    process: subprocess.Popen[bytes] | None = None
    upstreams: list[int] = field(default_factory=list)

    def configure(self, upstreams: list[int]) -> None:
        """Write the config for ``upstreams``; start nginx, or reload it when running."""
        self.upstreams = list(upstreams)
        servers = "\n".join(f"        server {HOST}:{p} max_fails=0;" for p in upstreams)
        conf = self.home / "nginx.conf"
        conf.write_text(
            NGINX_CONF.format(home=self.home, servers=servers, host=HOST, port=self.port),
            encoding="utf-8",
        )
        (self.home / "logs").mkdir(exist_ok=True)  # nginx opens its default log first
        base = [NGINX, "-p", str(self.home), "-c", str(conf)]
        if self.process is None:
            self.process = subprocess.Popen(
                [*base, "-g", "daemon off;"], stdout=subprocess.DEVNULL, start_new_session=True
            )
            _wait(self._answers, "nginx")
        else:
            subprocess.run([*base, "-s", "reload"], check=True, capture_output=True)
            time.sleep(1.0)  # the old workers finish, the new ones take the socket

    def _answers(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            raise RuntimeError(f"nginx exited; see {self.home / 'error.log'}")
        with socket.create_connection((HOST, self.port), timeout=1):
            return True

    def stop(self) -> None:
        if self.process is not None:
            _stop(self.process, group=True)


@contextlib.contextmanager
def workdir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="lightnote-scale-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
