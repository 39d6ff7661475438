"""Fan-out benchmark: how long a notification takes to reach a client of another replica.

    python benchmarks/fanout.py [--events 200]

Starts a redis-server on a free port and two replicas of the conformance server
(tests/redis_replica_app.py, `--http` and `--redis`), then, one event at a time (the next
only once the last was heard, so no client merges two):
  bus: the Redis hop alone, in this process: two RedisSubscriptionBus on the same Redis,
     from `publish` on one to the listener of the other;
  same replica: a 2026-07-28 `subscriptions/listen` client of A, `test_trigger_tool_change`
     called on A: from sending the call to hearing `tools/list_changed`;
  across replicas: the same listener on A, the call sent to B (through B's publish, Redis,
     A's subscriber task, A's listen stream);
each as p50/p99/max in milliseconds. The difference between the last two is what Redis adds.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager

from common import ROOT, print_table
from mcp import Client
from mcp.server.subscriptions import ServerEvent, ToolsListChanged

from mcpgen.runtime.redis_bus import RedisSubscriptionBus
from mcpgen.runtime.redis_link import RedisLink

REPLICA_APP = ROOT / "tests" / "redis_replica_app.py"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for_port(
    port: int, process: subprocess.Popen[bytes], timeout: float = 60.0
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{process.args!r} exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


@contextmanager
def _process(command: list[str], port: int) -> Iterator[None]:
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for_port(port, process)
        yield
    finally:
        process.terminate()
        process.wait(timeout=10)


@contextmanager
def _redis() -> Iterator[str]:
    program = shutil.which("redis-server") or shutil.which(
        "redis-server", path="/usr/sbin:/usr/local/sbin"
    )
    if program is None:
        raise SystemExit("redis-server is not installed; run .ci/install-services")
    port = _free_port()
    with tempfile.TemporaryDirectory() as folder:
        command = [
            program,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            folder,
            "--save",
            "",
            "--appendonly",
            "no",
        ]
        with _process(command, port):
            yield f"redis://127.0.0.1:{port}/0"


@contextmanager
def _replica(redis_url: str) -> Iterator[str]:
    port = _free_port()
    command = [
        sys.executable,
        str(REPLICA_APP),
        "--http",
        f"127.0.0.1:{port}",
        "--redis",
        redis_url,
    ]
    with _process(command, port):
        yield f"http://127.0.0.1:{port}/mcp"


async def _timed(
    events: int, trigger: Callable[[], Awaitable[object]], heard: asyncio.Queue[float]
) -> list[float]:
    """Milliseconds from each trigger to its event being heard, one event at a time."""
    latencies = []
    for _ in range(events):
        started = time.perf_counter()
        await trigger()
        latencies.append((await asyncio.wait_for(heard.get(), 30) - started) * 1000)
    return latencies


async def bus_hop(redis_url: str, events: int) -> list[float]:
    heard: asyncio.Queue[float] = asyncio.Queue()
    sender = RedisSubscriptionBus(RedisLink(redis_url, namespace="mcpgen:fanout-bench"))
    receiver = RedisSubscriptionBus(
        RedisLink(redis_url, namespace="mcpgen:fanout-bench")
    )

    def on_event(event: ServerEvent) -> None:
        heard.put_nowait(time.perf_counter())

    receiver.subscribe(on_event)
    async with sender.running(), receiver.running():
        return await _timed(events, lambda: sender.publish(ToolsListChanged()), heard)


async def through_replicas(
    listener_url: str, caller_url: str, events: int
) -> list[float]:
    heard: asyncio.Queue[float] = asyncio.Queue()
    async with (
        Client(listener_url, mode="auto") as listener,
        Client(caller_url, mode="auto") as caller,
    ):
        async with listener.listen(tools_list_changed=True) as subscription:

            async def collect() -> None:
                async for _ in subscription:
                    heard.put_nowait(time.perf_counter())

            collector = asyncio.ensure_future(collect())
            await caller.call_tool("test_trigger_tool_change", {})  # warm both up
            await asyncio.wait_for(heard.get(), 30)
            try:
                return await _timed(
                    events,
                    lambda: caller.call_tool("test_trigger_tool_change", {}),
                    heard,
                )
            finally:
                collector.cancel()


def _row(name: str, latencies: list[float]) -> list[str]:
    ordered = sorted(latencies)

    def at(fraction: float) -> str:
        return f"{ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]:.2f}"

    return [name, str(len(ordered)), at(0.5), at(0.99), f"{ordered[-1]:.2f}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--events", type=int, default=200, help="events per measurement (default 200)"
    )
    events = parser.parse_args().events
    with _redis() as redis_url, _replica(redis_url) as a, _replica(redis_url) as b:
        rows = [
            _row(
                "bus: publish -> listener of another bus",
                asyncio.run(bus_hop(redis_url, events)),
            ),
            _row(
                "same replica: call on A -> listener on A",
                asyncio.run(through_replicas(a, a, events)),
            ),
            _row(
                "across replicas: call on B -> listener on A",
                asyncio.run(through_replicas(a, b, events)),
            ),
        ]
    print_table(
        f"Notification fan-out, {events} events one at a time (ms)",
        ["path", "events", "p50", "p99", "max"],
        rows,
    )


if __name__ == "__main__":
    main()
