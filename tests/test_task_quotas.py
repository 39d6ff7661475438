"""Task quotas over HTTP (issue 31, finding 8), against a generated server run as a real
process: anonymous 2025-11-25 callers, each from an address of its own on the loopback
range (127.0.0.0/8 is all this machine's; the server listens on 127.0.0.1, and a
client binds the address it sends from).

The server keeps 20 tasks, 2 per caller: ten callers at their quota fill it, as the
default 10,000 and 1,000 did. What is proven: an eleventh caller is still served (a
finished task of the largest holder gives up its place), cancelling frees a place,
an anonymous caller's ttl is capped, and the callers of one /24 share a bound on
running tasks. The stores' contract is tested in tests/runtime/ (both stores).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from helpers import ROOT, build_and_write, http_server, write_spec

pytestmark = pytest.mark.slow  # builds a package, runs servers

SPEC = """\
mcpgen: 1
server: {name: chores, version: "1"}
tools:
  slow_report:
    description: Works for a while.
    inputSchema:
      type: object
      properties:
        seconds: {type: number}
    execution: {taskSupport: optional}
"""

APP = """\
import sys

import anyio

from chores import Handlers, Limits, TaskLimits, run

LIMITS = Limits(
    tasks=TaskLimits(
        max_tasks=20,
        max_tasks_per_owner=2,
        max_working_per_network=3,
        max_anonymous_ttl=60_000,
    )
)


class Chores(Handlers):
    async def slow_report(self, args, ctx):
        await anyio.sleep(args.seconds or 0)
        return "done"


run(Chores(), sys.argv[1:], limits=LIMITS)
"""

INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "raw", "version": "1"},
}
DAY = 24 * 60 * 60 * 1000


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("quotas")
    build_and_write(write_spec(folder, SPEC))
    (folder / "app.py").write_text(APP, encoding="utf-8")
    return folder / "app.py"


@pytest.fixture
def url(app: Path) -> Iterator[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    with http_server([sys.executable, str(app)], cwd=app.parent, env=environment) as served:
        yield served


class Caller:
    """An anonymous 2025-11-25 session sent from `address`."""

    def __init__(self, url: str, address: str) -> None:
        self.url = url
        transport = httpx2.HTTPTransport(local_address=address)
        self.client = httpx2.Client(timeout=30, transport=transport)
        self.headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        self.next_id = 0
        response = self._post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INITIALIZE})
        self.headers["Mcp-Session-Id"] = response.headers["mcp-session-id"]
        self.headers["MCP-Protocol-Version"] = "2025-11-25"
        self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _post(self, body: dict[str, Any]) -> httpx2.Response:
        return self.client.post(self.url, json=body, headers=self.headers)

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        response = self._post({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert response.status_code == 200, response.text
        if response.headers["content-type"].startswith("application/json"):
            return dict(response.json())
        for line in response.text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                message = json.loads(line[5:])
                if "id" in message and "method" not in message:
                    return dict(message)
        raise AssertionError(f"no answer in {response.text!r}")

    def start(self, seconds: float, ttl: int | None = None) -> dict[str, Any]:
        """A task's answer: {"result": {"task": ...}} or {"error": ...}."""
        task = {} if ttl is None else {"ttl": ttl}
        params = {"name": "slow_report", "arguments": {"seconds": seconds}, "task": task}
        return self.request("tools/call", params)

    def finished(self) -> dict[str, Any]:
        """A task started and run to its end (its result read)."""
        task = _task(self.start(0))
        assert "result" in self.request("tasks/result", {"taskId": task["taskId"]})
        return task

    def close(self) -> None:
        self.client.delete(self.url, headers=self.headers)
        self.client.close()


def _task(answer: dict[str, Any]) -> dict[str, Any]:
    assert "result" in answer, answer
    return dict(answer["result"]["task"])


def _callers(url: str, network: str, count: int) -> list[Caller]:
    return [Caller(url, f"{network}.{host}") for host in range(2, 2 + count)]


def test_ten_callers_at_their_quota_do_not_lock_out_an_eleventh(url: str) -> None:
    hogs = _callers(url, "127.0.1", 10)
    newcomer = Caller(url, "127.0.2.2")
    try:
        kept = {hog: [hog.finished()["taskId"] for _ in range(2)] for hog in hogs}
        refused = hogs[0].start(0)  # at its own quota: still refused
        assert refused["error"]["code"] == -32600 and "at most 2 tasks kept" in refused["error"]["message"]
        task = _task(newcomer.start(0))
        assert newcomer.request("tasks/get", {"taskId": task["taskId"]})["result"]["status"] in ("working", "completed")
        gone = [
            task_id
            for hog, task_ids in kept.items()
            for task_id in task_ids
            if "error" in hog.request("tasks/get", {"taskId": task_id})
        ]
        assert len(gone) == 1  # one place given up, by one of the largest holders
    finally:
        for caller in [*hogs, newcomer]:
            caller.close()


def test_cancel_frees_a_place(url: str) -> None:
    caller = Caller(url, "127.0.3.2")
    try:
        first, second = (_task(caller.start(30)) for _ in range(2))
        refused = caller.start(30)
        assert "at most 2 tasks kept" in refused["error"]["message"]
        cancelled = caller.request("tasks/cancel", {"taskId": first["taskId"]})
        assert cancelled["result"]["status"] == "cancelled"
        third = _task(caller.start(30))
        assert "error" in caller.request("tasks/get", {"taskId": first["taskId"]})
        for task in (second, third):
            caller.request("tasks/cancel", {"taskId": task["taskId"]})
    finally:
        caller.close()


def test_an_anonymous_callers_ttl_is_capped(url: str) -> None:
    caller = Caller(url, "127.0.4.2")
    try:
        assert _task(caller.start(0, ttl=DAY))["ttl"] == 60_000
        assert _task(caller.start(0))["ttl"] == 60_000  # the default hour, capped
    finally:
        caller.close()


def test_callers_of_one_network_share_a_bound_on_running_tasks(url: str) -> None:
    nearby = _callers(url, "127.0.5", 4)
    elsewhere = Caller(url, "127.0.6.2")
    try:
        running = [_task(caller.start(30)) for caller in nearby[:3]]
        refused = nearby[3].start(30)
        assert "one network may have at most 3" in refused["error"]["message"]
        other = _task(elsewhere.start(30))  # another /24
        nearby[0].request("tasks/cancel", {"taskId": running[0]["taskId"]})
        late = _task(nearby[3].start(30))
        ends = [*zip(nearby[1:3], running[1:], strict=True), (elsewhere, other), (nearby[3], late)]
        for caller, task in ends:
            caller.request("tasks/cancel", {"taskId": task["taskId"]})
    finally:
        for caller in [*nearby, elsewhere]:
            caller.close()
