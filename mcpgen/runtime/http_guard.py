"""What every HTTP request passes before the MCP transport sees it: DNS-rebinding
protection (the `Host` and `Origin` headers) and a bounded request body.

DNS rebinding: a web page on evil.example makes the browser resolve its own name to
127.0.0.1 (or a private address) and then talks to a server there, in the page's
name. The server sees `Host: evil.example`, so refusing Host names it does not
answer to stops it. The SDK checks this only for exactly 127.0.0.1, localhost and
::1, and case-sensitively; this does it for any loopback, private (RFC 1918,
fc00::/7) or link-local bind address, without regard to case, and decides from the
address bound, however it was written (`127.1`, `2130706433`, a host name).

Also the ASGI helpers the HTTP middlewares share (a whole response, a replayed
message, a long stream that can be cut off).

Pure ASGI, anyio and standard library only.
"""

from __future__ import annotations

import ipaddress
import math
import socket
from collections.abc import (
    Awaitable,
    Callable,
    Iterable,
    MutableMapping,
    Sequence,
)
from typing import Any
from urllib.parse import urlsplit

import anyio

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
"""The names a loopback server also answers to, whatever loopback address it binds."""

_PRIVATE = [
    ipaddress.ip_network(network)
    for network in (
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "169.254.0.0/16",
        "fc00::/7",
        "fe80::/10",
    )
]


def allowed_hosts_for(
    bind_host: str,
    allowed_hosts: Iterable[str] | None = None,
    *,
    addresses: Sequence[str] | None = None,
) -> frozenset[str] | None:
    """The host names requests may carry in `Host` and `Origin` (any port), or None
    when any is accepted.

    `allowed_hosts`, when given, decides (`"*"` among them: any host). Otherwise the
    addresses the server is bound to decide, not how `bind_host` is written:
    `addresses` (as the sockets report them), else what `bind_host` resolves to for
    binding, so `127.1`, `2130706433`, `localhost` and a host name of 127.0.1.1 are
    all loopback. Bound to loopback only, the server answers to `bind_host`, those
    addresses, `localhost`, `127.0.0.1` and `[::1]`; to private or link-local (and
    loopback) addresses only, to `bind_host` and those addresses; to any public or
    wildcard address (0.0.0.0, ::), or to a name that does not resolve, to any host,
    as it sits behind a proxy or load balancer that decides.
    """
    if allowed_hosts is not None:
        given = [_normal(host) for host in allowed_hosts]
        return None if "*" in given else frozenset(given)
    if addresses is None:
        addresses = resolve_for_binding(bind_host)
    bound = [_ip(address) for address in addresses]
    if not bound:
        return None
    names = {_normal(bind_host), *(_address_name(address) for address in bound)}
    if all(address.is_loopback for address in bound):
        return frozenset({*names, *LOOPBACK_NAMES})
    if all(
        address.is_loopback or any(address in network for network in _PRIVATE)
        for address in bound
    ):
        return frozenset(names)
    return None


def resolve_for_binding(host: str) -> list[str]:
    """The addresses a server told to listen on `host` binds (`getaddrinfo` with
    AI_PASSIVE, as asyncio's `create_server` asks); none when `host` does not resolve.
    """
    try:
        found = socket.getaddrinfo(
            host.strip("[]") or None,
            None,
            type=socket.SOCK_STREAM,
            flags=socket.AI_PASSIVE,
        )
    except (OSError, UnicodeError):
        return []
    return list(dict.fromkeys(str(info[4][0]) for info in found))


def _ip(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """An address as a socket reports it (`fe80::1%eth0`, `::ffff:127.0.0.1`), the
    IPv4 address in place of an IPv4-mapped one."""
    ip = ipaddress.ip_address(address.partition("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        return ip.ipv4_mapped
    return ip


def _address_name(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    return f"[{address}]" if address.version == 6 else str(address)


def _normal(host: str) -> str:
    """A host name as compared: lower case, IPv6 addresses in brackets, no port, no
    final dot."""
    host = host.strip().lower()
    if host.startswith("["):
        host = host.partition("]")[0] + "]"
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    elif host.count(":") > 1:
        host = f"[{host}]"
    return host.removesuffix(".")


def host_name(header: str) -> str | None:
    """The host name of a `Host` header (`Example.com:8000` -> `example.com`), or None
    when it is malformed."""
    header = header.strip().lower()
    if header.startswith("["):
        name, bracket, port = header.partition("]")
        if not bracket or (
            port and not (port[:1] == ":" and port[1:].isascii() and port[1:].isdigit())
        ):
            return None
        return _normal(name + "]")
    name, colon, port = header.partition(":")
    if not name or (colon and not (port.isascii() and port.isdigit())):
        return None
    return _normal(name)


def origin_host_name(origin: str) -> str | None:
    """The host name of an `Origin` header (`http://Example.com:8000`), or None when it
    is not an http(s) origin (`null` included)."""
    try:
        parts = urlsplit(origin.strip())
        parts.port  # noqa: B018 (raises ValueError for a bad port)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    name = parts.hostname
    return _normal(f"[{name}]" if ":" in name else name)


class RequestGuard:
    """ASGI middleware: refuses requests whose `Host` (421) or `Origin` (403) names a
    host not allowed (see `allowed_hosts_for`), and reads each request's body up
    front, refusing one larger than `max_body` bytes (413) or slower than
    `body_timeout` seconds (408)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed: frozenset[str] | None,
        max_body: int,
        body_timeout: float | None,
    ) -> None:
        self.app = app
        self.allowed = allowed
        self.max_body = max_body
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope.get("headers", []))
        if refusal is not None:
            await _respond(send, *refusal)
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        body = await self._body(scope, receive)
        if isinstance(body, tuple):
            await _respond(send, *body)
            return
        await self.app(scope, replaying(body, receive), send)

    def _refusal(
        self, headers: Iterable[tuple[bytes, bytes]]
    ) -> tuple[int, str] | None:
        if self.allowed is None:
            return None
        hosts = [v for k, v in headers if k.lower() == b"host"]
        origins = [v for k, v in headers if k.lower() == b"origin"]
        if len(hosts) != 1 or host_name(_text(hosts[0])) not in self.allowed:
            return 421, "Invalid Host header"
        if len(origins) > 1 or (
            origins and origin_host_name(_text(origins[0])) not in self.allowed
        ):
            return 403, "Invalid Origin header"
        return None

    async def _body(self, scope: Scope, receive: Receive) -> Message | tuple[int, str]:
        """The whole body, as one `http.request` message, or the refusal."""
        for key, value in scope.get("headers", []):
            if key.lower() == b"content-length":
                length = _text(value).strip()
                if (
                    length.isascii()
                    and length.isdigit()
                    and int(length[:20]) > self.max_body
                ):
                    return 413, "Request body too large"
        chunks: list[bytes] = []
        size = 0
        timeout = math.inf if self.body_timeout is None else self.body_timeout
        with anyio.move_on_after(timeout):
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    return message  # the client left: pass that on
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > self.max_body:
                    return 413, "Request body too large"
                chunks.append(chunk)
                if not message.get("more_body", False):
                    return {"type": "http.request", "body": b"".join(chunks)}
        return 408, "Request body timed out"


def _text(value: bytes) -> str:
    return value.decode("latin-1")


async def _respond(send: Send, status: int, text: str) -> None:
    await send_response(
        send, status, text.encode(), b"text/plain; charset=utf-8", close=True
    )


async def send_response(
    send: Send, status: int, body: bytes, content_type: bytes, *, close: bool = False
) -> None:
    """One whole response: `status`, and `body` as `content_type` (closing the
    connection after it when `close`)."""
    headers = [
        (b"content-type", content_type),
        (b"content-length", str(len(body)).encode()),
    ]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def replaying(message: Message, receive: Receive) -> Receive:
    """`receive`, giving first `message`, which a middleware has already read."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if replayed:
            return await receive()
        replayed = True
        return message

    return replay


async def serve_cuttable(
    app: ASGIApp,
    scope: Scope,
    receive: Receive,
    send: Send,
    cuts: set[anyio.CancelScope],
    *,
    on_body: Callable[[Message], None] | None = None,
) -> bool:
    """Serve a long response (a stream) that may be cut off: while it runs, its cancel
    scope is in `cuts`, for whoever ends streams to cancel. Cut mid-response, the
    response is ended properly, so the client sees the stream end, not a broken
    connection. `on_body` sees each body message sent. True when it was cut before
    its response started (nothing was sent: the caller may answer)."""
    started = completed = False

    async def watch(message: Message) -> None:
        nonlocal started, completed
        if message["type"] == "http.response.start":
            started = True
        elif message["type"] == "http.response.body":
            completed = not message.get("more_body", False)
            if on_body is not None:
                on_body(message)
        await send(message)

    with anyio.CancelScope() as cut:
        cuts.add(cut)
        try:
            await app(scope, receive, watch)
        finally:
            cuts.discard(cut)
    if cut.cancelled_caught and started and not completed:
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    return cut.cancelled_caught and not started
