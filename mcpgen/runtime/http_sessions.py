"""What a client may hold open over Streamable HTTP: idle sessions are closed, GET
streams included, and one client cannot take every session or connection.

The SDK counts an open GET (SSE) stream as a request in flight, so a 2025-11-25
session whose client opened its stream and never used it was never idle, and held a
session and a connection for good: about a thousand such clients (the defaults of
`max_sessions` and `max_connections`) made every new client, of either era, get 503,
indefinitely. Here a session is idle when no request other than its GET stream is in
flight and its stream carried nothing but keep-alive comments, for
`session_idle_timeout` seconds; then it is ended as its client would end it (a DELETE,
sent within the server), and its stream with it.

A client, as far as it can be told apart, is its remote address (an IPv6 /64, which one
host usually has whole); behind a proxy every client has the proxy's, unless uvicorn is
told to trust its `X-Forwarded-For` (`--proxy-headers --forwarded-allow-ips`).

Pure ASGI; anyio and the SDK's protocol versions only.
"""

from __future__ import annotations

import ipaddress
import json
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from .http_guard import (
    ASGIApp,
    Message,
    Receive,
    Scope,
    Send,
    send_response,
    serve_cuttable,
)
from .log import logger

SESSION_HEADER = b"mcp-session-id"
TOO_MANY = -32000
"""The JSON-RPC code of a refusal for too many sessions or requests of one client (the
implementation-defined server error range: no request was read)."""


@dataclass
class _Session:
    client: str | None
    # Of the request that opened it: the DELETE that ends it is made from it.
    scope: Scope
    last_active: float
    busy: int = 0  # requests in flight other than its GET stream
    streams: set[anyio.CancelScope] = field(default_factory=set)


class SessionWatch:
    """ASGI middleware in front of the SDK's Streamable HTTP app.

    - Ends a 2025-11-25 session idle for `idle_timeout` seconds (None: never), its GET
      stream included: no other request in flight, nothing but keep-alive comments on
      the stream. Runs while the app's lifespan does.
    - Refuses (429, with a JSON-RPC error) a request that would give one client more
      than `max_client_requests` requests in flight, or more than
      `max_client_sessions` sessions (None: no limit).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        idle_timeout: float | None,
        max_client_sessions: int | None,
        max_client_requests: int | None,
    ) -> None:
        self.app = app
        self.idle_timeout = idle_timeout
        self.max_client_sessions = max_client_sessions
        self.max_client_requests = max_client_requests
        self.sessions: dict[bytes, _Session] = {}
        self._requests: Counter[str] = Counter()
        self._opening: Counter[str] = Counter()  # requests that may open a session

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = client_of(scope)
        if client is None:
            await self._serve(scope, receive, send, client)
            return
        limit = self.max_client_requests
        if limit is not None and self._requests[client] >= limit:
            logger.warning("refused a request: %s has %d in flight", client, limit)
            message = (
                f"Too many requests at once from this client (the limit is {limit})"
            )
            await refuse(send, 429, message)
            return
        self._requests[client] += 1
        try:
            await self._serve(scope, receive, send, client)
        finally:
            self._requests[client] -= 1
            if not self._requests[client]:
                del self._requests[client]

    def sessions_of(self, client: str) -> int:
        return sum(session.client == client for session in self.sessions.values())

    async def _serve(
        self, scope: Scope, receive: Receive, send: Send, client: str | None
    ) -> None:
        headers = scope.get("headers", [])
        session_id = _header(headers, SESSION_HEADER)
        if session_id is None:
            if scope["method"] == "POST" and _legacy(headers):
                await self._open(scope, receive, send, client)
            else:
                await self.app(scope, receive, send)
            return
        session = self.sessions.get(session_id)
        if session is None:  # unknown, or being ended: the SDK answers
            await self.app(scope, receive, send)
        elif scope["method"] == "GET":
            await self._stream(session, scope, receive, send)
        else:
            session.busy += 1
            try:
                status = await _status_of(self.app, scope, receive, send)
            finally:
                session.busy -= 1
                session.last_active = anyio.current_time()
            if status == 404 or (scope["method"] == "DELETE" and status == 200):
                self.sessions.pop(session_id, None)  # ended

    async def _open(
        self, scope: Scope, receive: Receive, send: Send, client: str | None
    ) -> None:
        """A request that opens a session if it is an initialize the SDK accepts."""
        limit = self.max_client_sessions
        if (
            client is not None
            and limit is not None
            and self.sessions_of(client) + self._opening[client] >= limit
        ):
            logger.warning("refused a session: %s has %d open", client, limit)
            message = f"Too many open sessions from this client (the limit is {limit})"
            await refuse(send, 429, message)
            return
        opened: bytes | None = None

        async def watch(message: Message) -> None:
            nonlocal opened
            if message["type"] == "http.response.start" and message["status"] < 400:
                opened = _header(message.get("headers", []), SESSION_HEADER)
            await send(message)

        key = client or ""
        self._opening[key] += 1
        try:
            await self.app(scope, receive, watch)
        finally:
            self._opening[key] -= 1
            if not self._opening[key]:
                del self._opening[key]
        if opened is not None and opened not in self.sessions:
            self.sessions[opened] = _Session(client, scope, anyio.current_time())

    async def _stream(
        self, session: _Session, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """A session's GET stream: what it carries, other than comments, is activity;
        it can be cut off when the session is ended."""

        def heard(message: Message) -> None:
            if _carries_events(message.get("body", b"")):
                session.last_active = anyio.current_time()

        await serve_cuttable(
            self.app, scope, receive, send, session.streams, on_body=heard
        )

    async def _lifespan(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.idle_timeout is None:
            await self.app(scope, receive, send)
            return
        async with anyio.create_task_group() as group:
            group.start_soon(self._end_idle_sessions, self.idle_timeout)
            try:
                await self.app(scope, receive, send)
            finally:
                group.cancel_scope.cancel()

    async def _end_idle_sessions(self, timeout: float) -> None:
        # A session ends between `timeout` and `timeout + tick` seconds after its last
        # activity; a scan of even thousands of sessions costs well under a millisecond.
        tick = min(max(timeout / 10, 0.05), 5.0)
        while True:
            await anyio.sleep(tick)
            now = anyio.current_time()
            idle = [
                (session_id, session)
                for session_id, session in self.sessions.items()
                if not session.busy and now - session.last_active >= timeout
            ]
            for session_id, session in idle:
                self.sessions.pop(session_id, None)
                logger.info("ending a session idle for %g s", timeout)
                await self._end(session_id, session)

    async def _end(self, session_id: bytes, session: _Session) -> None:
        """End a session as its client would, with a DELETE (the SDK then forgets it
        and closes its streams), and cut off its GET stream should it still run."""
        headers = [(SESSION_HEADER, session_id)]
        headers += [(k, v) for k, v in session.scope.get("headers", []) if k == b"host"]
        delete = {
            **session.scope,
            "method": "DELETE",
            "query_string": b"",
            "headers": headers,
        }
        sent = False

        async def receive() -> Message:
            nonlocal sent
            if sent:
                await anyio.sleep_forever()
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(message: Message) -> None:
            pass

        with anyio.move_on_after(5):
            try:
                await self.app(delete, receive, discard)
            except Exception:  # noqa: BLE001
                # Whatever ended it, the streams are cut below.
                logger.exception("ending an idle session failed")
        for cut in list(session.streams):
            cut.cancel()


def client_of(scope: Scope) -> str | None:
    """Who sent a request, as far as can be told: its remote IPv4 address, or the /64
    of its IPv6 address; None when unknown (a Unix socket, a test transport)."""
    peer = scope.get("client")
    if not peer:
        return None
    try:
        address = ipaddress.ip_address(str(peer[0]).partition("%")[0])
    except ValueError:
        return str(peer[0]) or None
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


async def refuse(send: Send, status: int, message: str) -> None:
    """Answer with a JSON-RPC error (no id: no request was read) and `status`."""
    error = {"code": TOO_MANY, "message": message}
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
    await send_response(send, status, body, b"application/json")


def _header(headers: Any, name: bytes) -> bytes | None:
    for key, value in headers:
        if key.lower() == name:
            return bytes(value)
    return None


def _legacy(headers: Any) -> bool:
    """Whether the SDK serves the request on the 2025-11-25 path (sessions): it has no
    protocol version header, or a handshake one (as the SDK routes it)."""
    version = _header(headers, b"mcp-protocol-version")
    return version is None or version.decode("latin-1") in HANDSHAKE_PROTOCOL_VERSIONS


def _carries_events(body: bytes) -> bool:
    """Whether a piece of an SSE stream has more than comments (`: ping`) and blank
    lines: keep-alive comments are no activity."""
    return any(line.strip() and not line.startswith(b":") for line in body.splitlines())


async def _status_of(
    app: Callable[[Scope, Receive, Send], Awaitable[None]],
    scope: Scope,
    receive: Receive,
    send: Send,
) -> int | None:
    """Run `app` for one request; the status it answered with (None: it did not)."""
    status: int | None = None

    async def watch(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        await send(message)

    await app(scope, receive, watch)
    return status
