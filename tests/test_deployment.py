"""Streamable HTTP as deployed: several uvicorn workers, stateless, behind one port; and the
DNS-rebinding protection a localhost bind gets by default."""

from __future__ import annotations

import os
import secrets
import sys
import urllib.error
import urllib.request

import anyio
import pytest
from helpers import EXAMPLE, listening

pytestmark = pytest.mark.slow


def _workers(port: int) -> list[str]:
    return [
        sys.executable, "-m", "uvicorn", "asgi:app", "--app-dir", str(EXAMPLE),
        "--host", "127.0.0.1", "--port", str(port), "--workers", "2", "--log-level", "warning",
    ]  # fmt: skip


@pytest.fixture(scope="module")
def workers_url() -> object:
    # Workers must share the requestState key (at least 32 bytes).
    environment = dict(os.environ, MCP_REQUEST_STATE_KEY=secrets.token_hex(32))
    with listening(_workers, timeout=60, env=environment) as url:
        yield url


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_several_workers_answer_both_eras(workers_url: str, mode: str) -> None:
    from gift_server import GiftServerClient, ToolCallError

    async def calls() -> None:
        for _ in range(8):  # new connections, spread over the workers
            async with GiftServerClient.http(workers_url, mode=mode) as client:
                gifts = await client.suggest_gifts(occasion="birthday", budget=40)
                assert gifts.total == len(gifts.gifts) > 0
                assert await client.complete_resource_gift("id", "sc") == ["scarf"]
                with pytest.raises(ToolCallError):
                    await client.suggest_gifts(occasion="wedding", budget=1)

    anyio.run(calls)


def _post(url: str, host: str) -> int:
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}'
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={
            "Host": host,
            "Origin": f"http://{host}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_dns_rebinding_is_refused_on_localhost(workers_url: str) -> None:
    own = workers_url.split("/")[2]
    assert _post(workers_url, "evil.example.com") in range(400, 500)
    assert _post(workers_url, own) == 200
