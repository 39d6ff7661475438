"""What a load balancer asks a replica (runtime/http_health.py), in process: /healthz and
/readyz pass the host check, need no token, open no session; readiness turns 503 while
draining or when a check fails; a drain ends a long stream properly. The real processes
behind HAProxy are in test_load_balancer.py."""

from __future__ import annotations

from typing import Any

import anyio
import httpx2
import pytest
from helpers import load_example_app
from mcp.server.auth.provider import AccessToken

from mcpgen.runtime.auth_http import Authorization
from mcpgen.runtime.http_health import (
    HEALTH_PATH,
    READY_PATH,
    HealthEndpoints,
    Readiness,
)
from mcpgen.runtime.serving import http_app

pytestmark = pytest.mark.anyio
TOKEN = "the-one-token"


class OneToken:
    """A verifier that knows one token, so that /mcp demands it."""

    async def verify_token(self, token: str) -> AccessToken | None:
        if token != TOKEN:
            return None
        return AccessToken(token=token, client_id="lb-test", scopes=[], expires_at=None)


def gift_app(**options: Any) -> Any:
    from gift_server import create_server

    return http_app(create_server(load_example_app().GiftShop()), **options)


async def get(app: Any, path: str, host: str = "127.0.0.1", method: str = "GET") -> httpx2.Response:
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app)) as client:
        return await client.request(method, f"http://{host}{path}")


async def test_liveness_and_readiness_answer_plainly() -> None:
    app = gift_app()
    live, ready = await get(app, HEALTH_PATH), await get(app, READY_PATH)
    assert (live.status_code, live.text) == (200, "ok\n")
    assert (ready.status_code, ready.text) == (200, "ready\n")
    assert live.headers["cache-control"] == "no-store"
    head = await get(app, READY_PATH, method="HEAD")
    assert head.status_code == 200 and head.content == b""
    assert (await get(app, HEALTH_PATH, method="POST")).status_code != 200  # only GET and HEAD


async def test_a_health_check_names_an_allowed_host_like_any_request() -> None:
    app = gift_app()
    assert (await get(app, HEALTH_PATH, host="localhost:8000")).status_code == 200
    assert (await get(app, HEALTH_PATH, host="evil.example")).status_code == 421


async def test_health_needs_no_token_where_mcp_does() -> None:
    authorization = Authorization(
        metadata={"resource": "http://127.0.0.1/mcp", "authorization_servers": ["https://auth.example.com"]}
    )
    app = gift_app(authorization=authorization, verifier=OneToken())
    assert (await get(app, HEALTH_PATH)).status_code == 200
    assert (await get(app, READY_PATH)).status_code == 200
    assert (await get(app, "/mcp", method="POST")).status_code == 401


async def test_readiness_is_503_while_draining_and_while_a_check_fails() -> None:
    readiness = Readiness()
    app = gift_app(readiness=readiness)
    assert app.state.readiness is readiness
    redis_up = True

    async def redis() -> str | None:
        return None if redis_up else "unreachable at redis://10.0.0.9:6379/0"

    readiness.add_check("redis", redis)
    assert (await get(app, READY_PATH)).status_code == 200
    redis_up = False
    answer = await get(app, READY_PATH)
    assert (answer.status_code, answer.text) == (503, "redis: unreachable at redis://10.0.0.9:6379/0\n")
    redis_up = True
    readiness.drain()
    answer = await get(app, READY_PATH)
    assert (answer.status_code, answer.text) == (503, "draining\n")
    # Liveness is not readiness: a draining replica is alive, and must not be restarted.
    assert (await get(app, HEALTH_PATH)).status_code == 200


async def test_a_check_that_raises_means_not_ready() -> None:
    readiness = Readiness()

    async def broken() -> str | None:
        raise ConnectionError("boom")

    readiness.add_check("broken", broken)
    assert await readiness.reasons() == ["broken: check failed: ConnectionError('boom')"]


async def test_a_drain_ends_a_long_stream_as_a_finished_response() -> None:
    """A stream (here an endless SSE body) ends with a last empty chunk, not a broken
    connection, once the server drains; other requests are left to finish."""
    streaming = anyio.Event()

    async def endless(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
        await send({"type": "http.response.body", "body": b"data: 1\n\n", "more_body": True})
        streaming.set()
        await anyio.sleep_forever()

    readiness = Readiness()
    app = HealthEndpoints(endless, readiness=readiness)
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/mcp", "headers": []}
    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(app, scope, receive, send)
            await streaming.wait()
            readiness.drain()
    assert sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body", "http.response.body"]


async def test_a_listen_request_is_a_long_stream_and_a_call_is_not() -> None:
    seen: list[bool] = []
    readiness = Readiness()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(readiness.open_streams == 1)  # registered to be ended by a drain?
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    guarded = HealthEndpoints(app, readiness=readiness)
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=guarded)) as client:
        await client.post("http://127.0.0.1/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen"})
        await client.post("http://127.0.0.1/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                                       "params": {"name": "subscriptions/listen"}})  # fmt: skip
    assert seen == [True, False]


async def test_a_stream_asked_for_while_draining_is_503_and_never_starts() -> None:
    """A GET stream arriving after the drain began is refused before the app runs, so
    the client goes to a replica that stays rather than to one that will cut it off."""
    ran: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        ran.append(scope["path"])

    readiness = Readiness()
    readiness.drain()
    response = await get(HealthEndpoints(app, readiness=readiness), "/mcp")
    assert (response.status_code, response.text) == (503, "Server shutting down")
    assert ran == [] and readiness.open_streams == 0
