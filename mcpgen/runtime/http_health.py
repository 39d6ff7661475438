"""What a load balancer asks a replica, and how a replica that is shutting down lets go.

- `GET /healthz` (liveness): 200 `ok` while the process serves. Cheap, no token, not a
  session, never looks at anything else: a failing liveness check means "restart me".
- `GET /readyz` (readiness): 200 `ready`, or 503 naming why not: the server is draining
  (shutting down), or a check added with `Readiness.add_check` fails (e.g. a Redis the
  replicas share is unreachable). A load balancer sends new work only where this is 200.

Both pass `RequestGuard` first (a health check names a host the server answers to, as any
request must), then are answered before authorization and session accounting.

Draining: `Readiness.drain()` (called by `run --http` on SIGTERM, once the listening
sockets are closed) turns readiness to 503 and ends the streams that would otherwise
hold the shutdown until its bound: 2025-11-25 GET streams and 2026-07-28
`subscriptions/listen` streams. Their clients see the stream end, as when a session
ends, and reconnect, through the load balancer, to a replica that stays. Calls in flight
are not touched: uvicorn waits for them, up to `--shutdown-timeout`.

Pure ASGI and anyio only.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, cast

import anyio

from .http_guard import (
    ASGIApp,
    Message,
    Receive,
    Scope,
    Send,
    replaying,
    send_response,
    serve_cuttable,
)
from .log import logger

if TYPE_CHECKING:  # a server without Redis imports nothing of it
    from .redis_link import RedisLink

HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"
LISTEN_METHOD = "subscriptions/listen"

ReadinessCheck = Callable[[], Awaitable[str | None]]
"""A readiness condition: None when it holds, else why not (shown in the 503 body)."""


class Readiness:
    """Whether this replica should be given new work, and the long streams it cuts off
    when it drains."""

    def __init__(self) -> None:
        self.draining = False
        self._checks: dict[str, ReadinessCheck] = {}
        self._streams: set[anyio.CancelScope] = set()

    @property
    def open_streams(self) -> int:
        """The long streams a drain would end now."""
        return len(self._streams)

    def add_check(self, name: str, check: ReadinessCheck) -> None:
        """Make `check` a condition of readiness, under `name` (replacing one of that name)."""
        self._checks[name] = check

    async def reasons(self) -> list[str]:
        """Why this replica is not ready; empty when it is."""
        found = ["draining"] if self.draining else []
        for name, check in self._checks.items():
            try:
                reason = await check()
            except Exception as exc:  # noqa: BLE001
                # A check that breaks answers "not ready" rather than a 500.
                reason = f"check failed: {exc!r}"
            if reason is not None:
                found.append(f"{name}: {reason}")
        return found

    def drain(self) -> None:
        """Stop being ready, and end every long stream open now."""
        if not self.draining:
            logger.info("draining: %d long streams to end", self.open_streams)
        self.draining = True
        for stream in list(self._streams):
            stream.cancel()

    async def run_stream(
        self, app: ASGIApp, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """Serve a long stream, ending it properly should the server drain (503 when
        it drains before the stream began)."""
        if self.draining or await serve_cuttable(
            app, scope, receive, send, self._streams
        ):
            await send_response(send, 503, b"Server shutting down", b"text/plain")


class HealthEndpoints:
    """ASGI middleware: answers `/healthz` and `/readyz` (GET or HEAD), and runs the
    long streams of `mcp_path` so that `readiness.drain()` can end them."""

    def __init__(
        self, app: ASGIApp, *, readiness: Readiness, mcp_path: str = "/mcp"
    ) -> None:
        self.app = app
        self.readiness = readiness
        self.mcp_path = mcp_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path, method = scope["path"], scope["method"]
        if path in (HEALTH_PATH, READY_PATH) and method in ("GET", "HEAD"):
            await self._answer(path, method, send)
            return
        if path == self.mcp_path and method == "GET":
            await self.readiness.run_stream(self.app, scope, receive, send)
            return
        if path == self.mcp_path and method == "POST":
            message = await receive()
            receive = replaying(message, receive)
            if _is_listen(message):
                await self.readiness.run_stream(self.app, scope, receive, send)
                return
        await self.app(scope, receive, send)

    async def _answer(self, path: str, method: str, send: Send) -> None:
        status, text = 200, "ok"
        if path == READY_PATH:
            reasons = await self.readiness.reasons()
            status, text = (503, "\n".join(reasons)) if reasons else (200, "ready")
        body = f"{text}\n".encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send(
            {"type": "http.response.body", "body": b"" if method == "HEAD" else body}
        )


def _is_listen(message: Message) -> bool:
    """Whether a request body (read whole by RequestGuard) is a `subscriptions/listen`;
    the bytes are searched first, so other requests are not parsed twice."""
    body = message.get("body", b"") if message.get("type") == "http.request" else b""
    if LISTEN_METHOD.encode() not in body:
        return False
    try:
        parsed = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(parsed, dict) and parsed.get("method") == LISTEN_METHOD


def redis_reachable(link: RedisLink, timeout: float = 2.0) -> ReadinessCheck:
    """A readiness check: the Redis the replicas share answers a PING within
    `timeout` seconds (over the shared client, so a probe opens no connection)."""

    async def check() -> str | None:
        try:
            with anyio.fail_after(timeout):
                await cast(Awaitable[bool], link.client().ping())
        except Exception as exc:  # noqa: BLE001 (any failure: not ready)
            return f"unreachable at {link.shown_url}: {link.describe(exc)}"
        return None

    return check
