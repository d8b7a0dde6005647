"""Start and stop a throwaway 3-master Redis Cluster on 127.0.0.1 for tests.

    with local_cluster() as cluster:
        url = cluster.url  # redis://127.0.0.1:7101/0

Each node runs ``redis-server --cluster-enabled yes`` in its own temporary directory (no
persistence); ``redis-cli --cluster create`` assigns the slots. Everything is stopped and
deleted on exit, also when start-up fails half-way.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PORTS = (7101, 7102, 7103)
HOST = "127.0.0.1"


class ClusterUnavailable(RuntimeError):
    """The cluster could not be started (binaries missing, ports taken, no agreement)."""


@dataclass(frozen=True)
class LocalCluster:
    ports: tuple[int, ...]

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.ports[0]}/0"


def binaries_available() -> bool:
    """Return True when redis-server and redis-cli are on PATH."""
    return bool(shutil.which("redis-server") and shutil.which("redis-cli"))


def _port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.2)
        return probe.connect_ex((HOST, port)) == 0


def _cli(port: int, *args: str, timeout: float = 10) -> str:
    completed = subprocess.run(
        ["redis-cli", "-h", HOST, "-p", str(port), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return completed.stdout + completed.stderr


def _wait(condition: Callable[[], bool], *, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise ClusterUnavailable(f"timed out waiting for {what}")


@contextmanager
def local_cluster(ports: tuple[int, ...] = DEFAULT_PORTS) -> Iterator[LocalCluster]:
    """Run a cluster of one master per port for the duration of the block."""
    if not binaries_available():
        raise ClusterUnavailable("redis-server and redis-cli are not installed")
    taken = [port for port in ports if _port_in_use(port)]
    if taken:
        raise ClusterUnavailable(f"ports already in use: {taken}")
    workdir = Path(tempfile.mkdtemp(prefix="ln-redis-cluster-"))
    processes: list[subprocess.Popen[bytes]] = []
    try:
        for port in ports:
            node_dir = workdir / str(port)
            node_dir.mkdir()
            processes.append(
                subprocess.Popen(
                    [
                        "redis-server",
                        "--port",
                        str(port),
                        "--bind",
                        HOST,
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        "nodes.conf",
                        "--cluster-node-timeout",
                        "2000",
                        "--dir",
                        str(node_dir),
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--maxmemory-policy",
                        "noeviction",
                        "--daemonize",
                        "no",
                        "--loglevel",
                        "warning",
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        for port in ports:
            _wait(lambda p=port: "PONG" in _cli(p, "ping"), timeout=10, what=f"node {port}")
        created = subprocess.run(
            [
                "redis-cli",
                "--cluster",
                "create",
                *(f"{HOST}:{port}" for port in ports),
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        if created.returncode != 0:
            raise ClusterUnavailable(f"redis-cli --cluster create failed: {created.stdout}")
        for port in ports:
            _wait(
                lambda p=port: "cluster_state:ok" in _cli(p, "cluster", "info"),
                timeout=20,
                what=f"cluster_state:ok on {port}",
            )
        yield LocalCluster(ports=tuple(ports))
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        shutil.rmtree(workdir, ignore_errors=True)
