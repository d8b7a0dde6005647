"""``python -m bench.profile``: where a confirm and a card issue spend their time.

Same isolation as ``make bench`` (its own MariaDB database, an empty Redis database), but
in-process: Django's test client drives the full middleware and DRF stack on MariaDB and
Redis while pyinstrument samples (``pip install pyinstrument``). Prints one call tree per
path; ``LIGHTNOTE_BENCH_N`` sets the number of requests profiled (default 200).
"""

from __future__ import annotations

import os
import sys

from bench.config import Refused, bench_config
from bench.resources import own_database, own_redis_db
from bench.server import server_environment


def main() -> int:
    try:
        from pyinstrument import Profiler
    except ImportError:
        print("bench.profile needs pyinstrument (pip install pyinstrument)", file=sys.stderr)
        return 2
    try:
        config = bench_config()
    except Refused as refused:
        print(f"bench refused to run: {refused}", file=sys.stderr)
        return 2
    n = int(os.environ.get("LIGHTNOTE_BENCH_N", "200"))
    try:
        with own_database(config) as database_url, own_redis_db(config) as redis_url:
            env = server_environment(database_url, redis_url)
            env["LIGHTNOTE_REQUEST_COUNTERS"] = "0"
            env["LIGHTNOTE_ALLOWED_HOSTS"] = "testserver"
            from bench.seed import setup_django, token_for

            setup_django(env)
            from django.test import Client

            token = token_for("bench")
            client = Client(HTTP_AUTHORIZATION=f"Token {token}", HTTP_ACCEPT_LANGUAGE="zh-CN")
            session_id = client.post(
                "/api/v1/agent/sessions/", {}, content_type="application/json"
            ).json()["id"]

            def issue(i: int) -> str:
                body = client.post(
                    f"/api/v1/agent/sessions/{session_id}/messages/",
                    {"text": f"帮我创建一条明天下午三点开会{i}的待办"},
                    content_type="application/json",
                ).json()
                return str(body["cards"][0]["token"])

            def confirm(token_value: str) -> None:
                response = client.post(
                    "/api/v1/agent/confirmations/confirm/",
                    {"token": token_value, "session_id": session_id},
                    content_type="application/json",
                )
                if response.status_code != 200:
                    raise RuntimeError(f"confirm failed: {response.content!r}")

            def create(i: int) -> None:
                response = client.post(
                    "/api/v1/todos/", {"title": f"直接创建{i}"}, content_type="application/json"
                )
                if response.status_code != 201:
                    raise RuntimeError(f"create failed: {response.content!r}")

            for i in range(20):  # warm-up
                confirm(issue(-i))
                create(-i)
            create_profile = Profiler(interval=0.0005)
            with create_profile:
                for i in range(n):
                    create(i)
            issue_profile = Profiler(interval=0.0005)
            with issue_profile:
                tokens = [issue(i) for i in range(n)]
            confirm_profile = Profiler(interval=0.0005)
            with confirm_profile:
                for token_value in tokens:
                    confirm(token_value)
            repeat_profile = Profiler(interval=0.0005)
            with repeat_profile:
                for token_value in tokens:
                    confirm(token_value)
            for title, profile in (
                ("direct create (POST /api/v1/todos/)", create_profile),
                ("card issue (message turn, rules planner)", issue_profile),
                ("confirm", confirm_profile),
                ("repeat confirm", repeat_profile),
            ):
                print(f"\n===== {title}: {n} requests =====")
                print(profile.output_text(unicode=True, color=False, show_all=False))
    except Refused as refused:
        print(f"bench refused to run: {refused}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
