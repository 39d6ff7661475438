"""Notifications across replicas through a real redis-server (issue 24): the Redis bus in
process (each event once on every replica, the codec's bounds), then two replica
processes of the conformance server (tests/redis_replica_app.py) started with `--redis`,
where a call on B reaches clients of A in both eras, before and after Redis restarts;
and the start without Redis, refused with the URL named, or served alone on request."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import anyio
import pytest
import redis as redis_py
from helpers import CONFORMANCE_APP, ROOT, free_port, listening, load_module
from mcp import Client, StdioServerParameters
from mcp.server.subscriptions import (
    PromptsListChanged,
    ResourceUpdated,
    ServerEvent,
    ToolsListChanged,
)
from services import RedisServer, redis_server

from mcpgen.runtime.redis_bus import (
    MAX_EVENT_BYTES,
    RedisSubscriptionBus,
    decode_event,
    encode_event,
)
from mcpgen.runtime.redis_link import RedisLink, RedisUnavailable, default_namespace
from mcpgen.runtime.task_store_redis import RedisTaskStore
from mcpgen.runtime.tasks import TaskOutcome

pytestmark = pytest.mark.anyio

REPLICA_APP = ROOT / "tests" / "redis_replica_app.py"
WATCHED = "test://watched-resource"
CHANNEL = (
    "mcpgen:mcpgen-conformance:events"  # the conformance server's name, namespaced
)
PATIENCE = 60.0  # seconds: a loaded 2-core machine may be slow, never this slow


@pytest.fixture
def redis() -> Iterator[RedisServer]:
    """A fresh redis-server of the test's own."""
    with redis_server() as server:
        yield server


# --- the bus in process ----------------------------------------------------------------------


def test_events_are_compact_and_bounded() -> None:
    data = encode_event(ResourceUpdated(uri="test://ü"), "a1")
    assert data == '{"k":"updated","o":"a1","u":"test://ü"}'.encode()
    assert decode_event(data) == (ResourceUpdated(uri="test://ü"), "a1")
    assert decode_event(encode_event(ToolsListChanged(), "b2")) == (
        ToolsListChanged(),
        "b2",
    )
    too_big = encode_event(ResourceUpdated(uri="x" * MAX_EVENT_BYTES), "a1")
    for foreign in (
        b"not json",
        b"[]",
        b'{"k":"tools"}',
        b'{"k":"else","o":"a"}',
        b'{"k":"updated","o":"a"}',
        too_big,
    ):
        assert decode_event(foreign) is None


async def test_each_replica_hears_every_event_once(redis: RedisServer) -> None:
    heard: dict[str, list[ServerEvent]] = {"a": [], "b": []}
    remote: dict[str, list[ServerEvent]] = {"a": [], "b": []}
    buses = {}
    for name in heard:

        async def on_remote(event: ServerEvent, name: str = name) -> None:
            remote[name].append(event)

        buses[name] = RedisSubscriptionBus(
            RedisLink(redis.url, namespace="mcpgen:test"), on_remote=on_remote
        )
        buses[name].subscribe(heard[name].append)
    async with buses["a"].running(), buses["b"].running():
        await buses["a"].publish(ToolsListChanged())
        await buses["b"].publish(ResourceUpdated(uri=WATCHED))
        await buses["a"].publish(PromptsListChanged())
        # Last, one end mark from each: Redis delivers one channel in order, so once each
        # replica hears the other's mark, a second copy of any event before would be in.
        await buses["a"].publish(ResourceUpdated(uri="end:a"))
        await buses["b"].publish(ResourceUpdated(uri="end:b"))
        with anyio.fail_after(PATIENCE):
            while (
                ResourceUpdated(uri="end:b") not in heard["a"]
                or ResourceUpdated(uri="end:a") not in heard["b"]
            ):
                await anyio.sleep(0.01)
    events = [ToolsListChanged(), ResourceUpdated(uri=WATCHED), PromptsListChanged()]
    ends = [ResourceUpdated(uri="end:a"), ResourceUpdated(uri="end:b")]
    for (
        name
    ) in heard:  # each replica hears its own at once, the others' as Redis brings them
        assert sorted(map(repr, heard[name])) == sorted(map(repr, events + ends))
    assert remote == {
        "a": [ResourceUpdated(uri=WATCHED), ResourceUpdated(uri="end:b")],
        "b": [ToolsListChanged(), PromptsListChanged(), ResourceUpdated(uri="end:a")],
    }


async def test_a_required_redis_that_is_down_fails_the_start() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    bus = RedisSubscriptionBus(RedisLink(url, namespace="mcpgen:test"))
    with pytest.raises(RedisUnavailable, match=f"cannot reach Redis at {url}"):
        async with bus.running():
            pass
    heard: list[ServerEvent] = []
    alone = RedisSubscriptionBus(
        RedisLink(url, namespace="mcpgen:test"), required=False
    )
    alone.subscribe(heard.append)
    async with alone.running():
        await alone.publish(
            PromptsListChanged()
        )  # Redis away: this replica still hears it
    assert heard == [PromptsListChanged()]


# --- replica processes -----------------------------------------------------------------------


@contextmanager
def replica(redis_url: str, *options: str) -> Iterator[str]:
    """A replica of the conformance server on a free port, sharing `redis_url`; its URL."""
    command = [
        sys.executable,
        str(REPLICA_APP),
        "--redis",
        redis_url,
        *options,
        "--log-level",
        "info",
    ]
    with listening(
        lambda port: [*command, "--http", f"127.0.0.1:{port}"], timeout=PATIENCE
    ) as url:
        yield url


def wait_for_subscribers(redis: RedisServer, count: int) -> None:
    """Until exactly `count` replicas listen on the channel (after a restart, they
    subscribe again; after a stop, the stopped one is gone)."""
    client = redis_py.Redis(port=redis.port, socket_connect_timeout=5)
    try:
        end = time.monotonic() + PATIENCE
        while time.monotonic() < end:
            try:
                if (
                    dict(client.pubsub_numsub(CHANNEL)).get(CHANNEL.encode(), 0)
                    == count
                ):
                    return
            except redis_py.ConnectionError:
                pass
            time.sleep(0.05)
        raise TimeoutError(
            f"{count} replicas did not subscribe to {CHANNEL} within {PATIENCE} s"
        )
    finally:
        client.close()


async def until_heard(trigger: Callable[[], Any], heard: Callable[[], bool]) -> None:
    """Trigger on one replica until the other's client has heard it: at-most-once delivery
    (a GET stream may open just after an event) asks for a retry, not for a sleep."""
    with anyio.fail_after(PATIENCE):
        while not heard():
            await trigger()
            with anyio.move_on_after(1):
                while not heard():
                    await anyio.sleep(0.02)


class LegacyListener:
    """A 2025-11-25 client of one replica, its GET stream's notifications collected."""

    def __init__(self) -> None:
        self.methods: list[str] = []

    async def __call__(self, message: Any) -> None:
        method = getattr(getattr(message, "root", message), "method", None)
        if isinstance(method, str):
            self.methods.append(method)


async def _hear_across_replicas(a: str, b: str) -> None:
    async with AsyncExitStack() as stack:
        caller = await stack.enter_async_context(Client(b, mode="auto"))
        modern = await stack.enter_async_context(Client(a, mode="auto"))
        events = await stack.enter_async_context(
            modern.listen(tools_list_changed=True, resource_subscriptions=[WATCHED])
        )
        legacy_messages = LegacyListener()
        legacy = await stack.enter_async_context(
            Client(a, mode="legacy", message_handler=legacy_messages)
        )
        await legacy.subscribe_resource(WATCHED)

        received: list[ServerEvent] = []

        async def collect() -> None:
            async for event in events:
                received.append(event)

        group = await stack.enter_async_context(anyio.create_task_group())
        group.start_soon(collect)

        async def call(tool: str) -> None:
            result = await caller.call_tool(tool, {})
            assert not result.is_error, result

        await until_heard(
            lambda: call("test_trigger_tool_change"),
            lambda: ToolsListChanged() in received,
        )
        await until_heard(
            lambda: call("test_trigger_prompt_change"),
            lambda: ResourceUpdated(uri=WATCHED) in received,
        )
        await until_heard(
            lambda: call("test_trigger_tool_change"),
            lambda: "notifications/tools/list_changed" in legacy_messages.methods,
        )
        await until_heard(
            lambda: call("test_trigger_prompt_change"),
            lambda: "notifications/resources/updated" in legacy_messages.methods,
        )
        # Asked for neither: prompt list changes reached neither client.
        assert PromptsListChanged() not in received
        group.cancel_scope.cancel()


async def _heard_on_the_same_replica(url: str) -> None:
    """With Redis away, a call that announces a change still succeeds, and the replica's
    own listeners hear it."""
    async with Client(url, mode="auto") as client:
        async with client.listen(tools_list_changed=True) as events:
            result = await client.call_tool("test_trigger_tool_change", {})
            assert not result.is_error, result
            with anyio.fail_after(PATIENCE):
                assert await anext(aiter(events)) == ToolsListChanged()


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:resources/subscribe is removed")
async def test_a_call_on_one_replica_reaches_clients_of_another_in_both_eras(
    redis: RedisServer,
) -> None:
    with replica(redis.url) as a, replica(redis.url) as b:
        wait_for_subscribers(redis, 2)
        await _hear_across_replicas(a, b)
        redis.stop()
        await _heard_on_the_same_replica(b)
        redis.start()  # a cold start: no subscriptions survive on the Redis side
        wait_for_subscribers(redis, 2)
        await _hear_across_replicas(a, b)


@pytest.mark.slow
async def test_a_stdio_replica_subscribes_while_it_serves(redis: RedisServer) -> None:
    stdio = StdioServerParameters(
        command=sys.executable, args=[str(REPLICA_APP), "--redis", redis.url]
    )
    with replica(redis.url) as b:
        heard = LegacyListener()
        async with (
            Client(stdio, mode="legacy", message_handler=heard) as a,
            Client(b, mode="auto") as caller,
        ):
            assert (await a.list_tools()).tools
            await anyio.to_thread.run_sync(wait_for_subscribers, redis, 2)
            await until_heard(
                lambda: caller.call_tool("test_trigger_tool_change", {}),
                lambda: "notifications/tools/list_changed" in heard.methods,
            )
        # The stdio client closed the server's stdin: its lifespan ended, unsubscribed.
        await anyio.to_thread.run_sync(wait_for_subscribers, redis, 1)


@pytest.mark.slow
def test_redis_down_at_start_is_a_clear_error(tmp_path: Path) -> None:
    later = RedisServer(port=free_port(), folder=tmp_path)
    command = [sys.executable, str(REPLICA_APP), "--http", f"127.0.0.1:{free_port()}", "--redis", later.url]
    refused = subprocess.run(command, capture_output=True, text=True, timeout=PATIENCE)
    assert refused.returncode == 1, refused.stderr
    assert refused.stderr.startswith(f"mcpgen-conformance: cannot reach Redis at {later.url}: ")
    assert refused.stderr.count("\n") == 1, refused.stderr  # one line, no traceback
    # --redis-optional: served alone, then joins once Redis answers.
    with replica(later.url, "--redis-optional") as alone, anyio.from_thread.start_blocking_portal() as portal:
        assert portal.call(_tool_count, alone) > 0
        later.start()
        try:
            wait_for_subscribers(later, 1)
        finally:
            later.stop()


async def _tool_count(url: str) -> int:
    async with Client(url, mode="auto") as client:
        return len((await client.list_tools()).tools)


def test_redis_url_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCP_REDIS_URL", raising=False)
    assert RedisLink.for_server("s") is None
    monkeypatch.setenv("MCP_REDIS_URL", "redis://:secret@db:6379/2")
    link = RedisLink.for_server("s")
    assert link is not None and (link.namespace, link.key("events")) == (
        "mcpgen:s",
        "mcpgen:s:events",
    )
    assert link.shown_url == "redis://db:6379/2"
    assert RedisLink.for_server("s", "redis://other/0", namespace="shop").url == "redis://other/0"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://:pw-1@db:6379/2", "redis://db:6379/2"),
        ("redis://alice:pw-1@db/0", "redis://db/0"),
        ("redis://db:6379/0?password=pw-1", "redis://db:6379/0"),
        ("redis://db:6379?db=3&password=pw-1&username=alice", "redis://db:6379/3"),
        ("rediss://alice:pw%2F1@[::1]:6380/1?ssl_cert_reqs=none", "rediss://[::1]:6380/1"),
        ("unix:///run/redis.sock?db=1&password=pw-1", "unix:///run/redis.sock?db=1"),
        ("unix://:pw-1@/run/redis.sock", "unix:///run/redis.sock"),
        ("redis://db:port/0?password=pw-1", "(a Redis URL that cannot be read)"),
    ],
)
def test_a_redis_url_is_shown_without_credentials(url: str, shown: str) -> None:
    """Scheme, host, port and database only; an error's text that quotes the URL or its
    credentials has them replaced too."""
    link = RedisLink(url, namespace="mcpgen:s")
    assert link.shown_url == shown
    told = link.describe(ConnectionError(f"cannot use {url} ({unquote(url)})"))
    assert "pw-1" not in told and "pw/1" not in told and "pw%2F1" not in told, told
    assert told.startswith("ConnectionError: cannot use "), told


NAMES = ["a", "a:tasks", "a:tasks:x", "a%3Atasks", "a%tasks", "mcpgen", "a:", ":a", "", "events"]


def test_no_two_server_names_share_a_key_or_a_channel() -> None:
    """The default namespaces keep every server's keys and channels apart, whatever
    the names hold: the bus's channel of one is never another's key (`a:tasks`'s
    events were `a`'s task channel)."""
    names_of: dict[str, str] = {}
    for name in NAMES:
        link = RedisLink("redis://db/0", namespace=default_namespace(name))
        for key in (link.key("events"), link.key("tasks") + ":events", link.key("tasks") + ":task:x"):
            assert names_of.setdefault(key, name) == name, (key, name, names_of[key])
    assert default_namespace("gift-server") == "mcpgen:gift-server"  # plain names as before


async def test_servers_whose_names_nest_share_no_channel(redis: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    """On one real redis-server, server `a:tasks`'s notifications and server `a`'s task
    events go on two channels: neither hears the other's (the bus used to log the task
    events it could not read, and a's task store heard a:tasks's list changes)."""
    heard: list[ServerEvent] = []
    nested_link = RedisLink.for_server("a:tasks", redis.url)
    outer_link = RedisLink.for_server("a", redis.url)
    assert nested_link is not None and outer_link is not None
    bus = RedisSubscriptionBus(nested_link)
    other = RedisSubscriptionBus(RedisLink.for_server("a:tasks", redis.url))  # type: ignore[arg-type]
    other.subscribe(heard.append)
    store = RedisTaskStore(outer_link)
    watcher = redis_py.Redis(port=redis.port, socket_connect_timeout=5)
    try:
        async with bus.running(), other.running():
            task = await store.create("someone", 60_000)  # the store listens from here on
            with anyio.fail_after(PATIENCE):
                while len(watcher.pubsub_channels()) < 2:
                    await anyio.sleep(0.01)
            # Two channels: a:tasks's, with its two replicas, and a's task store's.
            listeners = dict(watcher.pubsub_numsub(*watcher.pubsub_channels()))
            assert listeners.pop(bus.channel.encode()) == 2, listeners
            assert list(listeners.values()) == [1], listeners
            await store.finish(task.task_id, "completed", TaskOutcome(result={"content": []}))
            await bus.publish(ToolsListChanged())
            with anyio.fail_after(PATIENCE):
                while not heard:
                    await anyio.sleep(0.01)
            await anyio.sleep(0.2)  # anything else on the channel would be in by now
    finally:
        watcher.close()
        await store.aclose()
        await outer_link.close()
    assert heard == [ToolsListChanged()]
    assert not [r for r in caplog.records if "cannot read" in r.getMessage()], caplog.text


@pytest.mark.slow
def test_the_fanout_benchmark_prints_its_table() -> None:
    script = ROOT / "benchmarks" / "fanout.py"
    result = subprocess.run(
        [sys.executable, str(script), "--events", "5"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Notification fan-out, 5 events one at a time (ms)" in result.stdout
    assert re.search(r"^across replicas: call on B -> listener on A +5 ", result.stdout, re.MULTILINE)


# --- the generated functions -----------------------------------------------------------------


def _conformance() -> tuple[Any, Any]:
    """The generated conformance package, and its fixtures' handlers."""
    # Loading the app puts its folder, and so the generated package, on sys.path.
    fixtures = load_module("conformance_app", CONFORMANCE_APP).ConformanceFixtures()
    return importlib.import_module("conformance_server"), fixtures


def test_the_generated_functions_take_the_redis_url(monkeypatch: pytest.MonkeyPatch) -> None:
    package, fixtures = _conformance()
    monkeypatch.delenv("MCP_REDIS_URL", raising=False)
    assert package.create_server(fixtures).redis is None
    server = package.create_server(fixtures, redis_url="redis://replicas.example:6379/1")
    assert server.redis.url == "redis://replicas.example:6379/1"
    assert type(server.bus).__name__ == "RedisSubscriptionBus" and server.bus.channel == CHANNEL
    monkeypatch.setenv("MCP_REDIS_URL", "redis://from-the-environment:6379/0")
    assert package.create_server(fixtures).redis.url == "redis://from-the-environment:6379/0"


async def test_an_app_whose_redis_is_down_fails_its_startup() -> None:
    """Under uvicorn, the app's startup fails with the error naming the URL."""
    package, fixtures = _conformance()
    url = f"redis://127.0.0.1:{free_port()}/0"
    app = package.create_app(fixtures, redis_url=url)
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "lifespan.startup"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    # The package's own copy of the runtime raises its own RedisUnavailable.
    unavailable = importlib.import_module("conformance_server._runtime.redis_link").RedisUnavailable
    with pytest.raises(unavailable, match=f"cannot reach Redis at {url}"):
        await app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, receive, send)
    assert sent[-1]["type"] == "lifespan.startup.failed"
