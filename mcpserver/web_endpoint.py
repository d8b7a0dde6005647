"""MCP's streamable HTTP served by the web process itself, at ``/mcp/``.

The web process is WSGI (runserver, gunicorn's gthread worker), the SDK's transport is
ASGI: each request runs the SDK's app in **stateless, JSON-response** mode (no session to
keep between requests, no stream to hold open), bridged with ``asgiref``'s
``async_to_sync``. Its database calls (``sync_to_async(thread_sensitive=True)`` in
``mcpserver.server``) then run back on the request's own thread and connection, as every
Django view's do, and its cards live in this process's own control store — the store the
confirmation page reads, also when that store is the in-process one of ``make run``.

The SDK's bearer authentication answers 401 without an active MCP token. Host is Django's
``ALLOWED_HOSTS``; a present ``Origin`` must be this site's (``LIGHTNOTE_PUBLIC_URL``) or
one of ``LIGHTNOTE_MCP_ALLOWED_ORIGINS`` (403 otherwise), which is what the SDK's
DNS-rebinding protection checks on its own server.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import anyio
from asgiref.sync import async_to_sync
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from mcp.server.transport_security import TransportSecuritySettings

from lightnote.rest import http_guards
from lightnote.texts.i18n import define_messages

define_messages(
    {
        "MCP_ORIGIN_FORBIDDEN": (
            "不接受来自这个来源（Origin）的 MCP 请求。",
            "MCP requests from this origin are not accepted.",
        ),
    }
)

SDK_PATH = "/mcp"
# Hop-by-hop and length headers are the WSGI server's to write.
_NOT_PASSED = {"connection", "keep-alive", "transfer-encoding", "content-length"}
Message = dict[str, Any]


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def origin_allowed(origin: str | None) -> bool:
    """No Origin (a non-browser client), this site's, or a configured one."""
    if not origin:
        return True
    allowed = {_origin(settings.LIGHTNOTE_PUBLIC_URL), *settings.LIGHTNOTE_MCP_ALLOWED_ORIGINS}
    return origin.rstrip("/") in {value.rstrip("/") for value in allowed}


def _scope(request: HttpRequest) -> dict[str, Any]:
    meta = request.META
    headers = [
        (name[5:].replace("_", "-").lower().encode("latin-1"), str(value).encode("latin-1"))
        for name, value in meta.items()
        if name.startswith("HTTP_")
    ]
    for name in ("CONTENT_TYPE", "CONTENT_LENGTH"):
        if meta.get(name):
            headers.append((name.replace("_", "-").lower().encode(), str(meta[name]).encode()))
    server_port = int(meta.get("SERVER_PORT") or 80)
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method or "GET",
        "scheme": request.scheme or "http",
        "path": SDK_PATH,
        "raw_path": SDK_PATH.encode(),
        "root_path": "",
        "query_string": meta.get("QUERY_STRING", "").encode("latin-1"),
        "headers": headers,
        "server": (meta.get("SERVER_NAME", "127.0.0.1"), server_port),
        "client": (meta.get("REMOTE_ADDR", ""), 0),
    }


def _app() -> Any:
    from mcpserver.http import build_http_app

    return build_http_app(
        # Host and Origin are checked by Django and by :func:`origin_allowed`.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        stateless_http=True,
        json_response=True,
    )


def _run(request: HttpRequest, body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
    """Run one request through a fresh SDK app (its session manager runs once)."""
    answer: dict[str, Any] = {"status": 500, "headers": [], "body": []}
    scope = _scope(request)

    async def main() -> None:
        done = anyio.Event()
        sent_body = False

        async def receive() -> Message:
            nonlocal sent_body
            if not sent_body:
                sent_body = True
                return {"type": "http.request", "body": body, "more_body": False}
            await done.wait()  # asked again only to notice a disconnect: after the answer
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
                answer["headers"] = [
                    (name.decode("latin-1"), value.decode("latin-1"))
                    for name, value in message.get("headers", [])
                ]
            elif message["type"] == "http.response.body":
                answer["body"].append(message.get("body", b""))
                if not message.get("more_body"):
                    done.set()

        app = _app()
        async with app.router.lifespan_context(app):
            await app(scope, receive, send)
        done.set()

    runner: Callable[[], Awaitable[None]] = main
    async_to_sync(runner)()
    return answer["status"], answer["headers"], b"".join(answer["body"])


@csrf_exempt
def mcp_endpoint(request: HttpRequest) -> HttpResponse:
    """Answer one MCP request (streamable HTTP, stateless, JSON responses)."""
    if not origin_allowed(request.META.get("HTTP_ORIGIN")):
        return http_guards.error_answer(request, "MCP_ORIGIN_FORBIDDEN", 403)
    status, headers, content = _run(request, request.body)
    response = HttpResponse(content, status=status)
    for name, value in headers:
        if name.lower() not in _NOT_PASSED:
            response[name] = value
    return response
