"""The security model page as written (docs/explanation/security.md): its authentication example
guards the server."""

from __future__ import annotations

import os
import secrets
import socket
import sys
import time
from pathlib import Path

import httpx2
import pytest
from helpers import EXAMPLE, doc_block, listening, load_example_app

pytestmark = pytest.mark.anyio
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


def _auth_example() -> str:
    example = doc_block("explanation/security.md", "python", "## What you add")
    assert example.startswith("# asgi.py"), "no asgi.py example in the security model's What you add"
    return example


@pytest.mark.slow
def test_the_bearer_token_example_guards_the_server(tmp_path: Path) -> None:
    (tmp_path / "asgi.py").write_text(_auth_example())
    token = secrets.token_hex(16)
    environment = dict(os.environ, MCP_BEARER_TOKEN=token, PYTHONPATH=str(EXAMPLE))

    def command(port: int) -> list[str]:
        return [
            sys.executable, "-m", "uvicorn", "asgi:app", "--app-dir", str(tmp_path),
            "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
        ]  # fmt: skip

    with listening(command, env=environment) as url:

        def post(headers: dict[str, str]) -> int:
            headers = {
                "Host": "MCP.example.com",
                "Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
                **headers,
            }
            return httpx2.post(url, json=INITIALIZE, headers=headers, timeout=10).status_code

        assert post({}) == 401
        assert post({"Authorization": "Bearer wrong"}) == 401
        assert post({"Authorization": f"Bearer {token}"}) == 200
        assert post({"Authorization": f"Bearer {token}", "Host": "127.0.0.1"}) == 421


@pytest.mark.slow
def test_uvicorn_of_your_own_gets_the_header_timeout_by_its_http_option() -> None:
    def command(port: int) -> list[str]:
        return [
            sys.executable, "-m", "uvicorn", "asgi:app", "--app-dir", str(EXAMPLE), "--port", str(port),
            "--http", "gift_server._runtime.uvicorn_server:HeaderTimeoutProtocol", "--log-level", "warning",
        ]  # fmt: skip

    with listening(command, env=dict(os.environ, PYTHONPATH=str(EXAMPLE))) as url:
        port = int(url.split(":")[2].split("/")[0])
        with socket.create_connection(("127.0.0.1", port)) as slow:
            slow.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            slow.settimeout(1)
            started = time.monotonic()
            closed = False
            while not closed and time.monotonic() - started < 20:
                try:
                    slow.sendall(b"a")  # a byte a second: uvicorn alone waits for ever
                    closed = slow.recv(1024) == b""
                except TimeoutError:
                    pass
                except OSError:
                    closed = True
            assert closed and 9 < time.monotonic() - started < 13


async def test_the_generated_package_takes_limits_and_allowed_hosts() -> None:
    from gift_server import Limits, create_app, create_server
    from gift_server._runtime.guard import call_handler

    shop = load_example_app().GiftShop()
    assert create_server(shop, limits=Limits(handler_timeout=5)).limits.handler_timeout == 5
    assert create_server(shop).limits == Limits()
    assert call_handler  # the runtime's guard ships in the package
    app = create_app(shop, host="0.0.0.0", allowed_hosts=["MCP.example.com"])
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app)) as client:
        refused = await client.post("http://evil.example/mcp", json=INITIALIZE)
    assert refused.status_code == 421
