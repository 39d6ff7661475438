"""Replicas of a generated server behind a real HAProxy running deploy/haproxy.cfg: both
protocol eras through it, 2025-11-25 sessions kept to their replica, a replica killed
under load losing only its own calls, SIGTERM draining a replica without losing any, and
with a shared redis-server, subscribers hearing of changes made through any replica;
readiness following Redis.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from helpers import ROOT, imported
from mcp import Client
from mcp.server.subscriptions import ResourceUpdated
from services import Replica, build_replicated, haproxy, redis_server, replicas
from test_redis_bus import LegacyListener
from test_tasks_modern import WITH_TASKS, Stateless

pytestmark = pytest.mark.slow

VERSION = "2026-07-28"
BOARD = "board://notes"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_replicated(tmp_path_factory.mktemp("replicated"))


@pytest.fixture
def three(folder: Path) -> Iterator[tuple[list[Replica], str]]:
    """Three replicas, and the URL of HAProxy in front of them."""
    with replicas(folder, 3) as started, haproxy([r.address for r in started]) as url:
        yield started, url


def text_of(result: Any) -> str:
    assert not result.is_error, result
    return str(result.content[0].text)


# --- both eras ---------------------------------------------------------------------------


def test_2026_requests_go_to_every_replica(three: tuple[list[Replica], str]) -> None:
    """2026-07-28 requests stand alone: round robin sends them to each replica in turn."""
    started, url = three

    async def names() -> list[str]:
        async with Client(url, mode="auto") as client:
            return [text_of(await client.call_tool("whoami", {})) for _ in range(12)]

    answered = anyio.run(names)
    assert set(answered) == {r.name for r in started}


def test_a_2025_session_keeps_to_its_replica(three: tuple[list[Replica], str]) -> None:
    """Each session is pinned by its Mcp-Session-Id to the replica that opened it (a
    session lives there only: elsewhere it would be 404); the sessions spread."""
    started, url = three

    async def session_names() -> list[str]:
        async with Client(url, mode="legacy") as client:
            return [text_of(await client.call_tool("whoami", {})) for _ in range(6)]

    async def sessions() -> list[list[str]]:
        found: list[list[str]] = []

        async def one() -> None:
            found.append(await session_names())

        async with anyio.create_task_group() as group:
            for _ in range(6):
                group.start_soon(one)
        return found

    found = anyio.run(sessions)
    assert all(len(set(names)) == 1 for names in found), found
    assert len({names[0] for names in found}) >= 2, found


def legacy_post(http: httpx2.Client, url: str, message: dict[str, Any], session: str | None = None) -> httpx2.Response:
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
    if session is not None:
        headers["Mcp-Session-Id"] = session
    return http.post(url, json=message, headers=headers)


def answer_of(response: httpx2.Response) -> dict[str, Any]:
    """The JSON-RPC answer of a POST, sent as JSON or as the last SSE event with an id."""
    if response.headers["content-type"].startswith("application/json"):
        answer: dict[str, Any] = response.json()
        return answer
    events = [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]
    return [event for event in events if "id" in event][-1]


def test_a_session_whose_replica_died_gets_404_from_another(three: tuple[list[Replica], str]) -> None:
    """What the deployment guide (docs/how-to/deployment.md) says: HAProxy sends the
    session's next request elsewhere (a refused connection is redispatched), where the
    session is unknown: 404, and the client knows to open a new one."""
    started, url = three
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    whoami = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}}
    with httpx2.Client(timeout=30) as http:
        opened = legacy_post(http, url, initialize)
        assert opened.status_code == 200, opened.text
        session = opened.headers["mcp-session-id"]
        legacy_post(http, url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        names = {answer_of(legacy_post(http, url, whoami, session))["result"]["content"][0]["text"] for _ in range(3)}
        assert len(names) == 1, names  # stuck to one replica
        home = next(r for r in started if r.name in names)
        home.process.send_signal(signal.SIGKILL)
        home.process.wait(timeout=10)
        orphaned = legacy_post(http, url, whoami, session)
        assert orphaned.status_code == 404, orphaned.text
        reopened = legacy_post(http, url, initialize)
        assert reopened.status_code == 200 and reopened.headers["mcp-session-id"] != session


@pytest.mark.filterwarnings("ignore:resources/subscribe is removed")
@pytest.mark.parametrize(
    ("how", "made"),
    [(signal.SIGTERM, "http"), (signal.SIGKILL, "http"), (signal.SIGKILL, "Client(url)")],
    ids=["SIGTERM", "SIGKILL", "SIGKILL-own-Client"],
)
def test_a_typed_client_opens_a_new_session_when_its_replica_stops(
    three: tuple[list[Replica], str], folder: Path, how: signal.Signals, made: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The 2025-11-25 typed client, whose session's replica stopped (drained, or killed
    outright): its next call gets 404 from another replica, and is answered in a new
    session there, once for three calls made together from three tasks; the new
    session keeps to its replica, and on_new_session ran once, with its client, and
    subscribed again there (as README's "A lost session" shows). Made by `http(url)`,
    or given an `mcp.Client(url)` of the caller's own (how callbacks are passed)."""
    started, url = three

    async def scenario() -> tuple[str, list[str], str, int]:
        with imported("replicated", folder) as replicated:
            opened: list[Any] = []

            async def on_new_session(client: Any) -> None:
                await client.subscribe_resource(BOARD)
                opened.append(client)

            if made == "http":
                typed = replicated.ReplicatedClient.http(url, mode="legacy", on_new_session=on_new_session)
            else:
                own = Client(url, mode="legacy")
                typed = replicated.ReplicatedClient(own, mode="legacy", on_new_session=on_new_session)
            async with typed as client:
                await client.client.subscribe_resource(BOARD)

                async def whoami() -> str:
                    return str((await client.whoami())[0].text)

                home = await whoami()
                assert {await whoami() for _ in range(3)} == {home}  # kept to one replica
                first = client.client
                victim = next(r for r in started if r.name == home)
                victim.process.send_signal(how)
                await anyio.to_thread.run_sync(lambda: victim.process.wait(timeout=60))
                answers: list[str] = []

                async def call() -> None:
                    answers.append(await whoami())

                async with anyio.create_task_group() as group:
                    for _ in range(3):
                        group.start_soon(call)
                assert client.client is not first and opened == [client.client]
                after = await whoami()
        return home, answers, after, len(opened)

    home, answers, after, renewals = anyio.run(scenario)
    assert renewals == 1
    assert set(answers) == {after} and after != home
    # Closing the lost session's client sent no DELETE the server would have refused.
    assert not [r for r in caplog.records if "termination failed" in r.getMessage()], caplog.text


# --- a replica lost under load -------------------------------------------------------------


@dataclass
class Call:
    id: str
    started: float
    answer: str | None = None  # the replica that answered
    error: str | None = None


async def call_slow(http: httpx2.AsyncClient, url: str, call: Call, seconds: float) -> None:
    meta = {"io.modelcontextprotocol/protocolVersion": VERSION, "io.modelcontextprotocol/clientCapabilities": {}}
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "slow", "arguments": {"seconds": seconds, "call": call.id}, "_meta": meta},
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "slow",
    }
    try:
        response = await http.post(url, json=body, headers=headers)
    except httpx2.HTTPError as exc:
        call.error = repr(exc)
        return
    if response.status_code != 200:
        call.error = f"HTTP {response.status_code}: {response.text[:200]}"
        return
    result = response.json().get("result", {})
    if result.get("isError") or not result.get("content"):
        call.error = str(response.json())[:300]
        return
    call.answer = result["content"][0]["text"]


async def under_load(url: str, workers: int, seconds: float, action_at: float, action: Any) -> tuple[list[Call], float]:
    """`workers` clients calling `slow` (0.3 s) in a loop for `seconds`; `action()` runs
    `action_at` seconds in. Every call made, and when the action was over (monotonic)."""
    calls: list[Call] = []
    end = time.monotonic() + seconds
    acted = 0.0

    async def worker(number: int) -> None:
        # A connection per call: HAProxy then picks a replica per call, as for many clients.
        async with httpx2.AsyncClient(timeout=60, limits=httpx2.Limits(max_keepalive_connections=0)) as http:
            sequence = 0
            while time.monotonic() < end:
                sequence += 1
                call = Call(f"w{number}-{sequence}", time.monotonic())
                calls.append(call)
                await call_slow(http, url, call, 0.3)

    async def act() -> None:
        nonlocal acted
        await anyio.sleep(action_at)
        await anyio.to_thread.run_sync(action)
        acted = time.monotonic()

    async with anyio.create_task_group() as group:
        for number in range(workers):
            group.start_soon(worker, number)
        group.start_soon(act)
    return calls, acted


def test_a_replica_killed_under_load_loses_only_its_own_calls(three: tuple[list[Replica], str]) -> None:
    started, url = three
    victim = started[1]

    def kill() -> None:
        victim.process.send_signal(signal.SIGKILL)
        victim.process.wait(timeout=10)  # gone, its sockets closed with it

    calls, killed = anyio.run(under_load, url, 24, 8.0, 3.0, kill)

    failed = [call for call in calls if call.error is not None]
    answered = [call for call in calls if call.answer is not None]
    survivors = set().union(*(r.calls() for r in started if r is not victim))
    assert len(answered) + len(failed) == len(calls)
    assert len(answered) > 100, f"only {len(answered)} calls answered"
    # What failed was in flight at the kill, and no surviving replica had it: the victim's.
    assert failed, "the kill caught no call in flight"
    assert all(call.started < killed for call in failed), [c for c in failed if c.started >= killed]
    assert not {call.id for call in failed} & survivors
    assert {call.id for call in failed} & victim.calls()
    # After the kill the others answered everything, the victim nothing more.
    later = [call for call in answered if call.started > killed]
    assert later and victim.name not in {call.answer for call in later}
    assert {call.answer for call in later} == {r.name for r in started if r is not victim}


def test_sigterm_drains_a_replica_without_losing_a_call(three: tuple[list[Replica], str]) -> None:
    """A rolling restart: the replica told to stop finishes what it took, takes nothing
    new (HAProxy sends that elsewhere), and exits."""
    started, url = three
    victim = started[1]
    # 10 s: on a loaded machine (tests in parallel) calls that met the draining replica may take seconds,
    # and the survivors must still be seen answering the calls made after it.
    calls, stopped = anyio.run(under_load, url, 24, 10.0, 2.0, lambda: victim.process.send_signal(signal.SIGTERM))

    assert [call for call in calls if call.error is not None] == []
    assert victim.process.wait(timeout=30) is not None
    assert {call.answer for call in calls if call.started > stopped + 1} == {r.name for r in started if r is not victim}
    assert victim.name in {call.answer for call in calls if call.started < stopped}


# --- graceful shutdown of one process --------------------------------------------------------


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


def exit_within(process: subprocess.Popen[bytes], seconds: float) -> float:
    """Seconds until `process` exits (failing the test after `seconds`)."""
    begun = time.monotonic()
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running {seconds} s after SIGTERM", pytrace=False)
    return time.monotonic() - begun


def test_sigterm_lets_a_call_in_flight_finish_and_ends_the_streams(folder: Path) -> None:
    """The slow call completes, a new connection is refused, the subscriptions/listen stream
    ends, and the process exits as soon as the call is done: neither that stream nor the
    2025-11-25 session's GET stream open beside it holds the exit until the bound."""
    with replicas(folder, 1, "--shutdown-timeout", "20") as (replica,):
        outcome: dict[str, Any] = {}

        async def scenario() -> None:
            async with AsyncExitStack() as stack:
                caller = await stack.enter_async_context(Client(replica.url, mode="auto"))
                legacy = await stack.enter_async_context(Client(replica.url, mode="legacy"))
                modern = await stack.enter_async_context(Client(replica.url, mode="auto"))
                await caller.list_tools()  # the client checks results against the listed tools
                await legacy.list_tools()
                events = await stack.enter_async_context(modern.listen(resource_subscriptions=[BOARD]))
                async with anyio.create_task_group() as group:

                    async def slow_call() -> None:
                        outcome["answer"] = text_of(await caller.call_tool("slow", {"seconds": 3, "call": "in-flight"}))

                    async def listen() -> None:
                        try:
                            async for _ in events:
                                pass
                        except Exception as exc:  # noqa: BLE001 (how it ended is not the point)
                            outcome["listen error"] = repr(exc)
                        outcome["listen ended"] = time.monotonic()

                    group.start_soon(slow_call)
                    group.start_soon(listen)
                    while "in-flight" not in replica.calls():
                        await anyio.sleep(0.05)
                    replica.process.send_signal(signal.SIGTERM)
                    outcome["signalled"] = time.monotonic()
                    await anyio.sleep(0.5)
                    outcome["refused"] = await anyio.to_thread.run_sync(refused, replica.port)
                    with anyio.fail_after(15):
                        while "answer" not in outcome:
                            await anyio.sleep(0.05)
                    outcome["answered"] = time.monotonic()
                    with anyio.move_on_after(10):
                        while "listen ended" not in outcome:
                            await anyio.sleep(0.05)
                    group.cancel_scope.cancel()

        anyio.run(scenario)
        assert outcome["answer"] == replica.name
        assert outcome["refused"], "a new connection was accepted while draining"
        assert outcome.get("listen ended", float("inf")) - outcome["signalled"] < 5, outcome
        waited = exit_within(replica.process, 15)
        # Exited right after the call (under 3 s after the signal), not at the 20 s bound.
        assert outcome["answered"] + waited - outcome["signalled"] < 10, replica.log()


def test_sigterm_cancels_calls_past_the_bound(folder: Path) -> None:
    with replicas(folder, 1, "--shutdown-timeout", "1") as (replica,):

        async def scenario() -> float:
            async with httpx2.AsyncClient(timeout=60) as http, anyio.create_task_group() as group:
                call = Call("endless", time.monotonic())
                group.start_soon(call_slow, http, replica.url, call, 60.0)
                while "endless" not in replica.calls():
                    await anyio.sleep(0.05)
                replica.process.send_signal(signal.SIGTERM)
                waited = await anyio.to_thread.run_sync(exit_within, replica.process, 15.0)
            assert call.answer is None
            return waited

        # The 1 s bound, and the little uvicorn and the app take to stop after it.
        assert anyio.run(scenario) < 8


# --- with Redis: what one replica announces, clients of the others hear ------------------------


@pytest.mark.filterwarnings("ignore:resources/subscribe is removed")
def test_subscribers_hear_changes_made_through_every_replica_in_both_eras(folder: Path) -> None:
    """A subscriptions/listen stream (2026-07-28) and a session's GET stream (2025-11-25),
    each on some replica behind HAProxy, hear of board://notes changing whichever replica
    the change was made on: `touch` through HAProxy goes to each replica in turn."""
    with redis_server() as redis, replicas(folder, 3, "--redis", redis.url) as started:
        with haproxy([r.address for r in started]) as url:
            everyone = {r.name for r in started}

            async def scenario() -> tuple[set[str], set[str]]:
                heard_modern: set[str] = set()
                heard_legacy: set[str] = set()
                async with AsyncExitStack() as stack:
                    caller = await stack.enter_async_context(Client(url, mode="auto"))
                    await caller.list_tools()
                    modern = await stack.enter_async_context(Client(url, mode="auto"))
                    events = await stack.enter_async_context(modern.listen(resource_subscriptions=[BOARD]))
                    legacy_heard = LegacyListener()
                    legacy = await stack.enter_async_context(
                        Client(url, mode="legacy", message_handler=legacy_heard)
                    )

                    def legacy_updates() -> int:
                        return legacy_heard.methods.count("notifications/resources/updated")

                    await legacy.subscribe_resource(BOARD)
                    received: list[Any] = []

                    async def collect() -> None:
                        async for event in events:
                            received.append(event)

                    group = await stack.enter_async_context(anyio.create_task_group())
                    group.start_soon(collect)
                    # Each change is awaited before the next, so what is heard is known to
                    # come from the replica that answered; one not heard (at-most-once while
                    # a stream opens) is made again.
                    with anyio.fail_after(90):
                        while heard_modern != everyone or heard_legacy != everyone:
                            modern_before, legacy_before = len(received), legacy_updates()
                            replica = text_of(await caller.call_tool("touch", {}))
                            with anyio.move_on_after(3):
                                while len(received) == modern_before or legacy_updates() == legacy_before:
                                    await anyio.sleep(0.02)
                            if received[modern_before:]:
                                assert received[modern_before:] == [ResourceUpdated(uri=BOARD)]
                                heard_modern.add(replica)
                            if legacy_updates() > legacy_before:
                                heard_legacy.add(replica)
                    group.cancel_scope.cancel()
                return heard_modern, heard_legacy

            assert anyio.run(scenario) == (everyone, everyone)


def test_a_task_started_through_haproxy_is_read_and_finished_on_every_replica(folder: Path) -> None:
    """With --redis, tasks live in Redis: round robin sends consecutive requests to the
    three replicas in turn, and each reads the task the first started, working, then done."""
    with redis_server() as redis, replicas(folder, 3, "--redis", redis.url) as started:
        with haproxy([r.address for r in started]) as url:
            client = Stateless(url, WITH_TASKS)
            everyone = {r.name for r in started}
            assert {client.call("whoami")["content"][0]["text"] for _ in range(3)} == everyone
            created = client.call("chore", {"seconds": 3})
            assert created["resultType"] == "task", created
            task_id = created["taskId"]
            assert [client.get(task_id)["status"] for _ in range(3)] == ["working"] * 3
            done = client.until(task_id, "completed", timeout=30)
            assert done["result"]["content"][0]["text"] in everyone
            assert [client.get(task_id)["status"] for _ in range(3)] == ["completed"] * 3


def ready(replica: Replica) -> tuple[int, str]:
    response = httpx2.get(f"http://{replica.address}/readyz", timeout=10)
    return response.status_code, response.text


def until(replica: Replica, status: int) -> str:
    """The body of /readyz once it answers `status` (failing after 30 s)."""
    deadline = time.monotonic() + 30
    while (found := ready(replica))[0] != status:
        assert time.monotonic() < deadline, f"/readyz still {found}"
        time.sleep(0.1)
    return found[1]


def test_readiness_follows_the_shared_redis(folder: Path) -> None:
    """A replica given --redis (required) is not ready while Redis does not answer, so a
    load balancer sends it nothing it could not share; ready again once Redis is back."""
    with redis_server() as redis, replicas(folder, 1, "--redis", redis.url) as (replica,):
        assert until(replica, 200) == "ready\n"
        redis.stop()
        assert until(replica, 503).startswith(f"redis: unreachable at {redis.url}")
        assert httpx2.get(f"http://{replica.address}/healthz", timeout=10).status_code == 200
        redis.start()
        until(replica, 200)


SECRET = "hunter2-" + os.urandom(8).hex()


@pytest.mark.parametrize("form", ["query", "user-info", "unix socket"])
def test_readyz_and_the_log_never_show_the_redis_password(folder: Path, form: str) -> None:
    """/readyz is public (no token): while Redis is down its body names the Redis, and
    the log says it is away, with the scheme, host, port and database only, never the
    password, whichever way the URL gives it (redis-py reads all three)."""
    with redis_server(password=SECRET, socket=True) as redis:
        assert redis.socket is not None
        url, shown = {
            "query": (f"redis://127.0.0.1:{redis.port}/0?password={SECRET}", redis.url),
            "user-info": (f"redis://default:{SECRET}@127.0.0.1:{redis.port}/0", redis.url),
            "unix socket": (f"unix://{redis.socket}?db=0&password={SECRET}", f"unix://{redis.socket}?db=0"),
        }[form]
        with replicas(folder, 1, "--redis", url, "--log-level", "info") as (replica,):
            assert until(replica, 200) == "ready\n"  # the password is right, and used
            redis.stop()
            body = until(replica, 503)
            deadline = time.monotonic() + 30
            while "is away" not in replica.log():
                assert time.monotonic() < deadline, replica.log()
                time.sleep(0.1)
            assert body.startswith(f"redis: unreachable at {shown}: "), body
            assert SECRET not in body
            assert f"Redis at {shown} is away" in replica.log()
            assert SECRET not in replica.log()


def test_the_replicas_benchmark_prints_its_table() -> None:
    command = [sys.executable, str(ROOT / "benchmarks" / "replicas.py"), "--clients", "5", "--seconds", "0.5", "--rounds", "1"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [line.split() for line in result.stdout.splitlines() if line[:1] in "123" and "x" in line]
    assert [row[0] for row in rows] == ["1", "2", "3"] and rows[0][2] == "1.00x", result.stdout
    assert "cores" in result.stdout and "cannot" in result.stdout
