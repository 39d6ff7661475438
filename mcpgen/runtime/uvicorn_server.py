"""uvicorn, as `run --http` runs it: a deadline for request headers, and a line that
says where it serves.

Imported only to serve HTTP, so a server on stdio never loads uvicorn. Behind
`create_app`, give your own uvicorn the same protection with
`--http <package>._runtime.uvicorn_server:HeaderTimeoutProtocol` (10 s).
"""

from __future__ import annotations

import asyncio
import errno
import socket
import sys
from collections.abc import Callable
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol


class HeaderTimeoutProtocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection that takes more than
    `header_timeout` seconds to send a request's headers, counted from the moment the
    server waits for them: the connection was made, or the previous response sent.

    uvicorn alone waits for headers forever once a byte has arrived (its keep-alive
    timeout only covers a connection that sends nothing), so one client sending a byte
    a second could hold a connection, and many such clients every connection.
    """

    header_timeout: float = 10.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._header_timer: asyncio.TimerHandle | None = None
        super().connection_made(transport)  # type: ignore[arg-type]
        self._watch_headers()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch_headers()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_header_timer()
        super().connection_lost(exc)

    def _waiting_for_headers(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _watch_headers(self) -> None:
        if not self._waiting_for_headers() or self.transport.is_closing():
            self._stop_header_timer()
        elif self._header_timer is None:
            self._header_timer = self.loop.call_later(
                self.header_timeout, self._headers_too_slow
            )

    def _stop_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self._waiting_for_headers() and not self.transport.is_closing():
            self.logger.info("closing a connection whose request headers are late")
            self.transport.close()


def header_timeout_protocol(timeout: float) -> type[HeaderTimeoutProtocol]:
    """`HeaderTimeoutProtocol` with another `header_timeout`."""
    return type(
        "HeaderTimeoutProtocol", (HeaderTimeoutProtocol,), {"header_timeout": timeout}
    )


class AnnouncingServer(uvicorn.Server):
    """A uvicorn server that writes one line to stderr once it listens:
    `Serving MCP over Streamable HTTP at http://HOST:PORT/mcp`; and that calls
    `on_shutdown` as it shuts down (SIGTERM, SIGINT), once it stopped listening."""

    def __init__(
        self, config: uvicorn.Config, on_shutdown: Callable[[], None] | None = None
    ) -> None:
        super().__init__(config)
        self.on_shutdown = on_shutdown

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self.on_shutdown is not None:
            # Soon, not now: uvicorn first closes the listening sockets (before it
            # first awaits), so a client cut off here reconnects to another replica.
            asyncio.get_running_loop().call_soon(self.on_shutdown)
        await super().shutdown(sockets)

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if not self.started:
            return
        listening = [s for server in self.servers for s in server.sockets]
        port = listening[0].getsockname()[1] if listening else self.config.port
        host = self.config.host
        if ":" in host:
            host = f"[{host}]"
        print(
            f"Serving MCP over Streamable HTTP at http://{host}:{port}/mcp",
            file=sys.stderr,
            flush=True,
        )


def bind_sockets(host: str, port: int) -> list[socket.socket]:
    """Sockets bound to every address `host` resolves to for binding, at `port`, as
    uvicorn (asyncio's `create_server`) would bind them: `localhost` may give
    127.0.0.1 and ::1, `127.1` gives 127.0.0.1.

    Bound here, before the app is made, so that the addresses really bound decide its
    DNS-rebinding defaults (see `http_guard.allowed_hosts_for`). Raises OSError when
    `host` does not resolve or an address cannot be bound.
    """
    infos = socket.getaddrinfo(
        host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            mapped = family == socket.AF_INET6 and str(address[0]).startswith("::ffff:")
            if family == socket.AF_INET6 and not mapped:
                # As asyncio: an IPv6 socket takes IPv6 only (an IPv4-mapped address
                # cannot be bound otherwise).
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                if exc.errno == errno.EADDRNOTAVAIL and len(infos) > 1:
                    # As asyncio: that family is not enabled here (no IPv6, say).
                    sockets.pop().close()
                    continue
                raise
        if not sockets:
            raise OSError(errno.EADDRNOTAVAIL, f"no address of {host!r} can be bound")
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def run_uvicorn(
    app: Any,
    config: dict[str, Any],
    sockets: list[socket.socket] | None = None,
    *,
    on_shutdown: Callable[[], None] | None = None,
) -> None:
    """Serve `app` with uvicorn, with `config` (uvicorn.Config's keyword arguments), on
    `sockets` when given (see `bind_sockets`), else on config's host and port;
    `on_shutdown` is called once it stops listening (see `AnnouncingServer`)."""
    server = AnnouncingServer(uvicorn.Config(app, **config), on_shutdown)
    server.run(sockets=sockets)
