"""Streamable HTTP against hostile clients: DNS rebinding, slow headers and bodies, too
many sessions, huge bodies; and the line `run --http` prints.

The servers run `serve()` in a subprocess (real uvicorn, real sockets); the Host and
Origin rules are also checked directly on the middleware with httpx2's ASGITransport.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Sequence
from typing import Any

import anyio
import httpx2
import pytest
from helpers import free_port
from mcp import Client
from toy_http import INITIALIZE, post, read, serving

from mcpgen.runtime.http_guard import (
    RequestGuard,
    allowed_hosts_for,
    host_name,
    origin_host_name,
)

pytestmark = pytest.mark.anyio


# --------------------------------------------------------------------------- DNS rebinding


@pytest.mark.parametrize(
    ("bind", "allowed"),
    [
        ("127.0.0.1", {"127.0.0.1", "localhost", "[::1]"}),
        ("127.0.0.2", {"127.0.0.2", "127.0.0.1", "localhost", "[::1]"}),
        ("LocalHost", {"127.0.0.1", "localhost", "[::1]"}),
        ("::1", {"127.0.0.1", "localhost", "[::1]"}),
        ("[::1]", {"127.0.0.1", "localhost", "[::1]"}),
        ("10.1.2.3", {"10.1.2.3"}),
        ("172.16.0.1", {"172.16.0.1"}),
        ("192.168.1.20", {"192.168.1.20"}),
        ("169.254.1.1", {"169.254.1.1"}),
        ("fd12::1", {"[fd12::1]"}),
        ("FE80::1", {"[fe80::1]"}),
        ("172.32.0.1", None),
        ("8.8.8.8", None),
        ("0.0.0.0", None),
        ("::", None),
        ("mcp.example.com", None),
        # Aliases: what the address resolves to decides, not how it is written.
        ("127.1", {"127.1", "127.0.0.1", "localhost", "[::1]"}),
        ("2130706433", {"2130706433", "127.0.0.1", "localhost", "[::1]"}),
        ("::ffff:127.0.0.1", {"[::ffff:127.0.0.1]", "127.0.0.1", "localhost", "[::1]"}),
        ("[::ffff:10.0.0.5]", {"[::ffff:10.0.0.5]", "10.0.0.5"}),
        ("0", None),  # 0.0.0.0
    ],
)
def test_which_binds_are_protected(bind: str, allowed: set[str] | None) -> None:
    assert allowed_hosts_for(bind) == (None if allowed is None else frozenset(allowed))


@pytest.mark.parametrize(
    ("bind", "addresses", "allowed"),
    [
        # A host name is decided by the addresses it was bound to, and allowed itself.
        ("devbox", ["127.0.1.1"], {"devbox", "127.0.1.1", "127.0.0.1", "localhost", "[::1]"}),
        ("localhost", ["127.0.0.1", "::1"], {"127.0.0.1", "localhost", "[::1]"}),
        ("box.lan", ["192.168.1.5"], {"box.lan", "192.168.1.5"}),
        ("box.lan", ["fe80::1%eth0"], {"box.lan", "[fe80::1]"}),
        ("mcp.example.com", ["93.184.216.34"], None),
        ("both.example", ["127.0.0.1", "93.184.216.34"], None),  # one public address: a proxy decides
        ("127.0.0.1", ["::ffff:127.0.0.1"], {"127.0.0.1", "localhost", "[::1]"}),
    ],
)
def test_the_bound_addresses_decide(bind: str, addresses: list[str], allowed: set[str] | None) -> None:
    assert allowed_hosts_for(bind, addresses=addresses) == (None if allowed is None else frozenset(allowed))


LOOPBACK_ALIASES = ["127.1", "2130706433", "localhost", "this host's name", "[::1]", "[::ffff:127.0.0.1]"]


@pytest.mark.slow
@pytest.mark.parametrize("alias", LOOPBACK_ALIASES)
def test_a_loopback_alias_bound_for_real_is_protected(alias: str) -> None:
    if alias == "this host's name":
        alias = socket.gethostname()
        resolved = {info[4][0] for info in socket.getaddrinfo(alias, None, type=socket.SOCK_STREAM)}
        if not all(address.startswith("127.") for address in resolved):
            pytest.skip(f"{alias} resolves to {resolved}, not to loopback")
    port = free_port()
    with serving(f"{alias}:{port}"):
        # Connect to the address really bound; the Host header is the attacker's.
        connect = "[::1]" if alias == "[::1]" else "127.0.0.1"
        url = f"http://{connect}:{port}/mcp"
        assert post(url, {"Host": "evil.example"}) == 421
        assert post(url, {"Host": f"evil.example:{port}", "Origin": "http://evil.example"}) == 421
        assert post(url, {"Host": f"127.0.0.1:{port}"}) == 200
        assert post(url, {"Host": f"localhost:{port}", "Origin": "http://evil.example"}) == 403
        assert post(url, {"Host": f"{alias}:{port}"}) == 200  # the name the operator typed


def test_allowed_hosts_decide_when_given() -> None:
    assert allowed_hosts_for("0.0.0.0", ["MCP.example.com", "[::1]:8000"]) == {"mcp.example.com", "[::1]"}
    assert allowed_hosts_for("127.0.0.1", ["*"]) is None
    assert allowed_hosts_for("127.0.0.1", ["mcp.example.com"]) == {"mcp.example.com"}


def test_host_and_origin_parsing() -> None:
    assert host_name("LocalHost:8000") == "localhost"
    assert host_name("[::1]:8000") == "[::1]"
    assert host_name("Example.COM.") == "example.com"
    assert [host_name(bad) for bad in ["", ":80", "a:b", "[::1", "[::1]x", "a:٣"]] == [None] * 6
    assert origin_host_name("http://LOCALHOST:3000") == "localhost"
    assert origin_host_name("https://[::1]") == "[::1]"
    assert [origin_host_name(bad) for bad in ["null", "file://x", "http://x:99999", "http://x/p", "x"]] == [None] * 5


async def _hello(scope: Any, receive: Any, send: Any) -> None:
    message = await receive()
    body = b"hello " + message["body"]
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": body})


def _guarded(bind: str, allowed_hosts: Sequence[str] | None = None) -> httpx2.AsyncClient:
    guard = RequestGuard(_hello, allowed=allowed_hosts_for(bind, allowed_hosts), max_body=100, body_timeout=5)
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=guard))


@pytest.mark.parametrize(
    ("bind", "host", "origin", "status"),
    [
        ("10.0.0.5", "10.0.0.5:8000", None, 200),
        ("10.0.0.5", "10.0.0.5", "https://10.0.0.5:8443", 200),
        ("10.0.0.5", "evil.com", None, 421),
        ("10.0.0.5", "localhost:8000", None, 421),  # a private address is not loopback
        ("10.0.0.5", "10.0.0.5", "http://evil.com", 403),
        ("10.0.0.5", "10.0.0.5", "null", 403),
        ("127.0.0.1", "LOCALHOST:8000", "HTTP://LocalHost:3000", 200),
        ("127.0.0.1", "evil.com:8000", None, 421),
        ("127.0.0.1", "127.0.0.1.evil.com", None, 421),
        ("127.0.0.1", "localhost:8000", "http://localhost.evil.com", 403),
        ("0.0.0.0", "evil.com", "http://evil.com", 200),  # no protection: a proxy decides
    ],
)
async def test_the_guard_checks_host_and_origin(bind: str, host: str, origin: str | None, status: int) -> None:
    headers = {"Host": host, **({"Origin": origin} if origin else {})}
    async with _guarded(bind) as client:
        response = await client.post(f"http://{host}/mcp", content=b"x", headers=headers)
    assert response.status_code == status
    if status == 200:
        assert response.text == "hello x"


async def test_the_guard_refuses_a_body_too_large() -> None:
    async with _guarded("127.0.0.1") as client:
        response = await client.post("http://127.0.0.1/mcp", content=b"x" * 101)
    assert (response.status_code, response.text) == (413, "Request body too large")


@pytest.mark.slow
async def test_a_loopback_bind_other_than_127_0_0_1_is_protected() -> None:
    # The SDK protects exactly 127.0.0.1, localhost and ::1, case-sensitively.
    with serving(f"127.0.0.2:{free_port()}") as (url, _):
        own = url.split("/")[2]
        assert post(url, {"Host": "evil.com"}) == 421
        assert post(url, {"Host": own.upper(), "Origin": "http://EVIL.com"}) == 403
        assert post(url, {"Host": "LocalHost:1234", "Origin": "http://LOCALHOST:3000"}) == 200
        assert post(url, {"Host": own, "Origin": f"http://{own}"}) == 200
        for mode in ("auto", "legacy"):
            async with Client(url, mode=mode) as client:
                result = await client.call_tool("divide", {"a": 1, "b": 4})
            assert result.structured_content == {"quotient": 0.25}


@pytest.mark.slow
def test_allowed_host_flags_replace_the_defaults() -> None:
    with serving(f"127.0.0.1:{free_port()}", "--allowed-host", "MCP.example.com", "--allowed-host", "other") as (
        url,
        _,
    ):
        assert post(url, {"Host": "mcp.EXAMPLE.com:443"}) == 200
        assert post(url, {"Host": "other", "Origin": "https://other"}) == 200
        assert post(url, {"Host": url.split("/")[2]}) == 421


# --------------------------------------------------------------------------- the URL line


@pytest.mark.slow
def test_http_announces_its_url_on_stderr_and_nothing_on_stdout() -> None:
    port = free_port()
    with serving(f"127.0.0.1:{port}") as (url, stdout):
        assert url == f"http://127.0.0.1:{port}/mcp"
        assert post(url, {}) == 200
        assert read(stdout) == ""


# --------------------------------------------------------------------------- slow clients

SLOW = "header_timeout=1, body_timeout=1"


def _closed_within(connection: socket.socket, seconds: float, trickle: bytes = b"") -> bool:
    """Whether the server closes `connection` within `seconds`, while we send `trickle`
    a byte every 0.1 s."""
    connection.settimeout(0.1)
    deadline = time.monotonic() + seconds
    sent = 0
    while time.monotonic() < deadline:
        try:
            if connection.recv(1024) == b"":
                return True
        except TimeoutError:
            pass
        except OSError:
            return True
        if sent < len(trickle):
            try:
                connection.sendall(trickle[sent : sent + 1])
            except OSError:
                return True
            sent += 1
    return False


@pytest.mark.slow
def test_slow_headers_are_cut_off() -> None:
    with serving(f"127.0.0.1:{free_port()}", limits=SLOW) as (url, _):
        host, port = url.split("/")[2].split(":")
        # A byte every 0.1 s: uvicorn alone would wait for ever.
        trickle = b"X-Slow: " + b"a" * 1000
        with socket.create_connection((host, int(port))) as slow:
            slow.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            started = time.monotonic()
            assert _closed_within(slow, 5, trickle)
            assert 0.8 < time.monotonic() - started < 3
        # Silent connections too; and a prompt client is served meanwhile.
        with socket.create_connection((host, int(port))) as silent:
            assert post(url, {}) == 200
            assert _closed_within(silent, 5)


@pytest.mark.slow
def test_a_slow_body_is_refused() -> None:
    with serving(f"127.0.0.1:{free_port()}", limits=SLOW) as (url, _):
        host, port = url.split("/")[2].split(":")
        with socket.create_connection((host, int(port))) as slow:
            slow.sendall(
                b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000\r\n\r\n{"
            )
            slow.settimeout(5)
            started = time.monotonic()
            answer = slow.recv(1024)
            assert answer.startswith(b"HTTP/1.1 408 "), answer
            assert 0.8 < time.monotonic() - started < 3


@pytest.mark.slow
def test_limits_on_sessions_and_bodies() -> None:
    with serving(f"127.0.0.1:{free_port()}", "--max-sessions", "2", limits="max_request_body=1000") as (url, _):
        assert [post(url, {}) for _ in range(3)] == [200, 200, 503]
        assert post(url, {}, {**INITIALIZE, "padding": "x" * 1000}) == 413


@pytest.mark.slow
async def test_the_handler_timeout_flag() -> None:
    with serving(f"127.0.0.1:{free_port()}", "--handler-timeout", "0.5") as (url, _):
        async with Client(url, mode="auto") as client:
            with anyio.fail_after(5):
                result = await client.call_tool("divide", {"a": 780, "b": 1})
    assert result.is_error is True
    assert "timed out after 0.5 s" in str(result.content)
