"""Clients that hold sessions and streams open doing nothing: they are closed when idle,
and one client address cannot take every session or connection.

The attack: open a 2025-11-25 session, open its GET (SSE) stream, and never use it.
Each such session held a session and a connection for good (the SDK counts an open GET
stream as a request in flight, so the idle timeout never came), and with enough of them
every new client, of either era, got 503. Real uvicorn, real sockets (`serve()` in a
subprocess); the hostile clients are raw httpx2, the good ones `mcp.Client`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import anyio
import httpx2
import pytest
from helpers import free_port
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from toy_http import INITIALIZE, MCP_HEADERS, serving

from mcpgen.runtime.http_sessions import _carries_events

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
LEGACY = {**MCP_HEADERS, "MCP-Protocol-Version": "2025-11-25"}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _client(source: str = "127.0.0.1") -> httpx2.Client:
    """An HTTP client whose connections come from `source` (another loopback address is
    another client to the server)."""
    return httpx2.Client(transport=httpx2.HTTPTransport(local_address=source), timeout=10)


def _open_session(client: httpx2.Client, url: str) -> httpx2.Response:
    """A 2025-11-25 initialize (and `notifications/initialized` when it succeeded)."""
    response = client.post(url, json=INITIALIZE, headers=MCP_HEADERS)
    if response.status_code == 200:
        session = response.headers["mcp-session-id"]
        client.post(url, json=INITIALIZED, headers={**LEGACY, "Mcp-Session-Id": session})
    return response


@contextmanager
def _idle_stream(stack: ExitStack, client: httpx2.Client, url: str, session: str) -> Iterator[httpx2.Response]:
    """The session's GET stream, open (headers read) and never read from."""
    stream = stack.enter_context(
        client.stream("GET", url, headers={**LEGACY, "Accept": "text/event-stream", "Mcp-Session-Id": session})
    )
    assert stream.status_code == 200
    yield stream


def _refusal(response: httpx2.Response, status: int) -> dict[str, Any]:
    """The JSON-RPC error of a refused request."""
    assert response.status_code == status, response.text
    body: dict[str, Any] = json.loads(response.text)
    assert body["jsonrpc"] == "2.0" and "id" in body
    return dict(body["error"])


async def _a_new_client_is_served(url: str) -> None:
    for mode in ("legacy", "auto"):
        async with Client(url, mode=mode) as client:
            result = await client.call_tool("divide", {"a": 1, "b": 4})
        assert result.structured_content == {"quotient": 0.25}


async def test_idle_get_streams_are_closed_and_new_clients_get_in() -> None:
    # Ten idle sessions with their streams fill max_sessions, and nearly max_connections.
    idle = 3.0
    limits = f"session_idle_timeout={idle}, max_sessions=10, max_connections=13, keep_alive_timeout=1"
    with serving(f"127.0.0.1:{free_port()}", limits=limits) as (url, _), ExitStack() as stack:
        streams = []
        first = time.monotonic()
        for _ in range(10):
            client = stack.enter_context(_client())
            session = _open_session(client, url).headers["mcp-session-id"]
            streams.append(stack.enter_context(_idle_stream(stack, client, url, session)))
        opened = time.monotonic()
        with _client() as late:
            refused = late.post(url, json=INITIALIZE, headers=MCP_HEADERS).status_code
        # Full, until the first idle session is reaped (on a loaded machine, opening ten
        # sessions can take longer than that).
        assert refused == 503 or time.monotonic() - first > idle, refused
        # The idle timeout closes them; then new clients of both eras are served.
        deadline = opened + 20
        while True:
            try:
                with anyio.fail_after(5):
                    await _a_new_client_is_served(url)
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                await anyio.sleep(0.2)
        served_after = time.monotonic() - opened
        assert served_after < idle + 7, f"idle streams took {served_after:.1f} s to reap"
        for stream in streams:
            # The server ended each stream: reading it to its end does not wait (nor fail).
            with anyio.fail_after(5):
                await anyio.to_thread.run_sync(lambda stream=stream: list(stream.iter_raw()))


async def test_one_client_address_cannot_take_every_session_or_stream() -> None:
    limits = "max_client_sessions=3, max_client_requests=2"
    with serving(f"127.0.0.1:{free_port()}", limits=limits) as (url, _), ExitStack() as stack:
        greedy = stack.enter_context(_client("127.0.0.1"))
        sessions = [_open_session(greedy, url).headers["mcp-session-id"] for _ in range(3)]
        error = _refusal(_open_session(greedy, url), 429)
        assert "sessions" in error["message"] and "3" in error["message"]
        # Another client is served meanwhile.
        with _client("127.0.0.2") as other:
            assert _open_session(other, url).status_code == 200
        # Ending one of its sessions makes room again.
        ended = greedy.delete(url, headers={**LEGACY, "Mcp-Session-Id": sessions.pop()})
        assert ended.status_code == 200
        assert _open_session(greedy, url).status_code == 200

        # Two open streams are all its requests at once: a third request is refused,
        # another client's is not.
        holders = [stack.enter_context(_client("127.0.0.1")) for _ in range(2)]
        for holder, session in zip(holders, sessions, strict=True):
            stack.enter_context(_idle_stream(stack, holder, url, session))
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        refused = greedy.post(url, json=listing, headers={**LEGACY, "Mcp-Session-Id": sessions[0]})
        error = _refusal(refused, 429)
        assert "requests" in error["message"] and "2" in error["message"]
        for mode in ("auto", "legacy"):
            async with (
                httpx2.AsyncClient(transport=httpx2.AsyncHTTPTransport(local_address="127.0.0.2")) as http,
                Client(streamable_http_client(url, http_client=http), mode=mode) as good,
            ):
                assert (await good.list_tools()).tools


async def test_a_session_in_use_is_not_idle() -> None:
    # A 2025-11-25 client (with its GET stream open) calling now and then keeps its
    # session well past the idle timeout.
    with serving(f"127.0.0.1:{free_port()}", limits="session_idle_timeout=1") as (url, _):
        async with Client(url, mode="legacy") as client:
            for _ in range(6):
                await anyio.sleep(0.5)
                result = await client.call_tool("divide", {"a": 1, "b": 2})
                assert result.structured_content == {"quotient": 0.5}


def test_keep_alive_comments_are_no_activity() -> None:
    assert not _carries_events(b": ping - 2026-01-01 00:00:00\r\n\r\n")
    assert not _carries_events(b"\r\n")
    assert _carries_events(b'event: message\r\ndata: {"jsonrpc": "2.0"}\r\n\r\n')
