"""Tasks benchmark: N concurrent short tool calls made as 2025-11-25 tasks, beside the same
calls made plainly, against one generated server over Streamable HTTP.

    python benchmarks/tasks.py [--tasks N] [--sessions S] [--redis URL]

The server (a one-tool spec, `execution: {taskSupport: optional}`, the handler returns at
once) runs `run --http` in a subprocess, with the per-client HTTP bounds lifted so one
benchmarking host may hold N requests in flight (over 100 keep-alive connections, the rest
waiting in the client's pool). S 2025-11-25 sessions share the N calls
(a session may run 100 tasks at once: `TaskLimits.max_working_per_owner`).
  plain: N `tools/call` at once; calls/s (first sent to last answered), p50/p99;
  tasks: N task-augmented `tools/call` at once, then every task polled with `tasks/get`
     until it is completed, then its `tasks/result`; tasks/s (first created to last
     result read), p50/p99 of `tasks/get`;
  the server's resident memory after each phase (VmRSS) and its peak (VmHWM).
With `--redis URL` the server keeps its tasks in that Redis (`run --redis`): the same
calls, each task's changes a Lua script there, `tasks/result` awaiting by pub/sub.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

import httpx2  # noqa: E402
from common import PYTHON, free_port, print_table  # noqa: E402

SPEC = """\
mcpgen: 1
server: {name: quick_tasks, version: "1"}
tools:
  echo:
    description: Answers at once.
    inputSchema: {type: object, properties: {n: {type: integer}}, required: [n]}
    execution: {taskSupport: optional}
"""

APP = """\
import sys
from quick_tasks import Handlers, Limits, run

class Quick(Handlers):
    async def echo(self, args, ctx):
        return str(args.n)

limits = Limits(
    max_client_requests=None, max_client_sessions=None, max_sessions=None, max_connections=None, keep_alive_timeout=120
)
run(Quick(), sys.argv[1:], limits=limits)
"""

CONNECTIONS = 100
HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
}
INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"},
}


def answer_of(response: httpx2.Response) -> dict[str, Any]:
    if response.headers["content-type"].startswith("application/json"):
        return dict(response.json())
    for line in response.text.splitlines():
        if line.startswith("data:") and line[5:].strip():
            message = json.loads(line[5:])
            if "id" in message and "method" not in message:
                return dict(message)
    raise SystemExit(f"no answer in {response.text!r}")


class Session:
    def __init__(self, client: httpx2.AsyncClient, url: str) -> None:
        self.client, self.url, self.headers = client, url, dict(HEADERS)
        self.next_id = (
            0  # requests in flight at once in one session need ids of their own
        )

    async def open(self) -> None:
        body = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INITIALIZE}
        response = await self.client.post(self.url, json=body, headers=self.headers)
        self.headers["Mcp-Session-Id"] = response.headers["mcp-session-id"]
        self.headers["MCP-Protocol-Version"] = "2025-11-25"
        await self.client.post(
            self.url,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=self.headers,
        )

    async def request(
        self, method: str, params: dict[str, Any]
    ) -> tuple[dict[str, Any], float]:
        self.next_id += 1
        started = time.perf_counter()
        body = {
            "jsonrpc": "2.0",
            "id": self.next_id,
            "method": method,
            "params": params,
        }
        response = await self.client.post(self.url, json=body, headers=self.headers)
        message = answer_of(response)
        if "result" not in message:
            raise SystemExit(f"{method} failed: {message}")
        return message["result"], time.perf_counter() - started


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(int(fraction * len(ordered)), len(ordered) - 1)]


def memory(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0])
    return fields


async def plain(sessions: list[Session], count: int) -> tuple[float, list[float]]:
    started = time.perf_counter()
    calls = [
        sessions[n % len(sessions)].request(
            "tools/call", {"name": "echo", "arguments": {"n": n}}
        )
        for n in range(count)
    ]
    answers = await asyncio.gather(*calls)
    return time.perf_counter() - started, [latency for _, latency in answers]


async def as_tasks(sessions: list[Session], count: int) -> tuple[float, list[float]]:
    polls: list[float] = []

    async def one(n: int) -> None:
        session = sessions[n % len(sessions)]
        created, _ = await session.request(
            "tools/call", {"name": "echo", "arguments": {"n": n}, "task": {}}
        )
        task_id = created["task"]["taskId"]
        while True:
            task, latency = await session.request("tasks/get", {"taskId": task_id})
            polls.append(latency)
            if task["status"] == "completed":
                break
            await asyncio.sleep(
                0.01
            )  # the benchmark polls far faster than pollInterval asks
        result, _ = await session.request("tasks/result", {"taskId": task_id})
        assert result["content"][0]["text"] == str(n), result

    started = time.perf_counter()
    await asyncio.gather(*(one(n) for n in range(count)))
    return time.perf_counter() - started, polls


async def measure(url: str, pid: int, count: int, session_count: int) -> None:
    # Requests beyond the connections wait for one in the client's pool (as a browser's would).
    limits = httpx2.Limits(
        max_connections=CONNECTIONS, max_keepalive_connections=CONNECTIONS
    )
    async with httpx2.AsyncClient(timeout=120, limits=limits) as client:
        sessions = [Session(client, url) for _ in range(session_count)]
        for session in sessions:
            await session.open()
        await plain(sessions, min(count, 100))  # warm-up
        idle = memory(pid)
        plain_seconds, plain_latencies = await plain(sessions, count)
        after_plain = memory(pid)
        task_seconds, polls = await as_tasks(sessions, count)
        after_tasks = memory(pid)
    rows = [
        [
            "plain tools/call",
            f"{count / plain_seconds:,.0f}/s",
            f"{percentile(plain_latencies, 0.5) * 1000:.0f} ms",
            f"{percentile(plain_latencies, 0.99) * 1000:.0f} ms",
            f"{after_plain['VmRSS'] / 1024:.0f} MB",
        ],
        [
            f"tasks ({len(polls)} tasks/get)",
            f"{count / task_seconds:,.0f}/s",
            f"{percentile(polls, 0.5) * 1000:.0f} ms",
            f"{percentile(polls, 0.99) * 1000:.0f} ms",
            f"{after_tasks['VmRSS'] / 1024:.0f} MB",
        ],
    ]
    print_table(
        f"{count} concurrent calls over {session_count} sessions (idle {idle['VmRSS'] / 1024:.0f} MB, "
        f"peak {after_tasks['VmHWM'] / 1024:.0f} MB)",
        ["", "throughput", "p50", "p99 (tasks/get for tasks)", "RSS after"],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--redis", metavar="URL", help="keep the tasks in this Redis")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "spec.yaml").write_text(SPEC, encoding="utf-8")
        subprocess.run(
            [PYTHON, "-m", "mcpgen", "build", "spec.yaml", "--quiet"],
            cwd=folder,
            check=True,
        )
        (folder / "app.py").write_text(APP, encoding="utf-8")
        port = free_port()
        log = tempfile.TemporaryFile(mode="w+")
        server = subprocess.Popen(
            [PYTHON, "app.py", "--http", f"127.0.0.1:{port}"]
            + (["--redis", options.redis] if options.redis else []),
            cwd=folder,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                    break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        log.seek(0)
                        raise SystemExit(
                            f"the server did not start:\n{log.read()}"
                        ) from None
                    time.sleep(0.1)
            asyncio.run(
                measure(
                    f"http://127.0.0.1:{port}/mcp",
                    server.pid,
                    options.tasks,
                    options.sessions,
                )
            )
        finally:
            server.terminate()
            server.wait(timeout=10)
            log.close()


if __name__ == "__main__":
    main()
