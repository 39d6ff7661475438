"""Tasks across replicas: three processes of one generated server over HTTP, started with
`--redis URL` on a real redis-server (tests/services.py), keep their tasks in Redis.

A task started on one replica is read, awaited and answered on another and cancelled on
a third (its handler stops where it runs), in both eras: 2025-11-25 stateless, and
2026-07-28, where `tasks/update` reaching another replica is relayed to the one whose
handler waits. A replica killed with SIGKILL leaves its running task `failed` once the
lease lapses; one stopped with SIGTERM ends its running tasks `failed` at once; tasks
outlive a replica's restart.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from helpers import ROOT, build_and_write, free_port, stop_process, write_spec
from services import RedisServer, redis_server, wait_for_port
from test_tasks_legacy import INITIALIZE, Http
from test_tasks_modern import WITH_TASKS, PollsTasks, Stateless

from mcpgen.runtime.task_store_common import REPLICA_LOST
from mcpgen.runtime.tasks import SERVER_STOPPED

pytestmark = pytest.mark.slow  # builds a package, runs three servers and a redis-server

SPEC = """\
mcpgen: 1
server: {name: relay, version: "1"}
tools:
  slow:
    description: Sleeps, then says which process ran it.
    inputSchema:
      type: object
      properties:
        seconds: {type: number}
    execution: {taskSupport: optional}
  confirm:
    description: Asks the user before it goes on.
    inputSchema: {type: object}
    execution: {taskSupport: optional}
"""

APP = """\
import os
import sys
from pathlib import Path

import anyio

from relay import Handlers, Limits, TaskLimits, run

CONFIRM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


class Relay(Handlers):
    async def slow(self, args, ctx):
        try:
            await anyio.sleep(args.seconds or 0)
        except anyio.get_cancelled_exc_class():
            Path(os.environ["STOPPED_MARKER"]).write_text("stopped")
            raise
        return f"done by {os.getpid()}"

    async def confirm(self, args, ctx):
        answer = await ctx.elicit("Go ahead?", CONFIRM, key="confirm")
        return f"{answer.action} by {os.getpid()}"


run(Relay(), sys.argv[1:], limits=Limits(tasks=TaskLimits(lease=1.0, poll_interval=100)))
"""

LEASE = 1.0


class Replica:
    """One server process on a port of its own, `--stateless --redis URL`."""

    def __init__(
        self,
        app: Path,
        redis_url: str,
        environment: dict[str, str],
        stateless: bool = True,
    ) -> None:
        self.app = app
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.marker = app.parent / f"stopped-{self.port}"
        self.command = [
            sys.executable,
            str(app),
            "--http",
            f"127.0.0.1:{self.port}",
            *(["--stateless"] if stateless else []),
            "--redis",
            redis_url,
        ]
        self.environment = {**environment, "STOPPED_MARKER": str(self.marker)}
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.marker.unlink(missing_ok=True)
        self.process = subprocess.Popen(
            self.command,
            cwd=self.app.parent,
            env=self.environment,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port, self.process, timeout=60)

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def stop(self, how: signal.Signals = signal.SIGTERM) -> None:
        if self.process is not None:
            stop_process(self.process, how, patience=30)
        self.process = None

    def stopped_a_handler(self, timeout: float = 15) -> bool:
        deadline = time.monotonic() + timeout
        while not self.marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.marker.exists()


@pytest.fixture(scope="module")
def redis_for_replicas() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


@pytest.fixture(scope="module")
def replicas(
    tmp_path_factory: pytest.TempPathFactory, redis_for_replicas: RedisServer
) -> Iterator[list[Replica]]:
    folder = tmp_path_factory.mktemp("relay")
    build_and_write(write_spec(folder, SPEC))
    (folder / "app.py").write_text(APP, encoding="utf-8")
    environment = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        # Replicas share the deployment's secret (signed cursors, requestState).
        "MCP_REQUEST_STATE_KEY": secrets.token_hex(32),
    }
    made = [
        Replica(folder / "app.py", redis_for_replicas.url, environment)
        for _ in range(3)
    ]
    # A fourth, with 2025-11-25 sessions.
    made.append(
        Replica(folder / "app.py", redis_for_replicas.url, environment, stateless=False)
    )
    try:
        for replica in made:
            replica.start()
        yield made
    finally:
        for replica in made:
            replica.stop()


class Legacy(PollsTasks):
    """A raw 2025-11-25 client of a stateless server: no session, one request per POST."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client = httpx2.Client(timeout=60)
        self.headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": "2025-11-25",
        }
        self.request("initialize", INITIALIZE)

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        return Http._answer(self.client.post(self.url, json=body, headers=self.headers))

    def result(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        answer = self.request(method, params)
        assert "result" in answer, answer
        result: dict[str, Any] = answer["result"]
        return result

    def start(self, seconds: float) -> str:
        created = self.result(
            "tools/call",
            {"name": "slow", "arguments": {"seconds": seconds}, "task": {}},
        )
        task_id: str = created["task"]["taskId"]
        return task_id


def test_2025_a_task_from_one_replica_is_read_and_returned_on_another_cancelled_on_a_third(
    replicas: list[Replica],
) -> None:
    a, b, c = (Legacy(replica.url) for replica in replicas[:3])
    task_id = a.start(seconds=1)
    assert b.get(task_id)["status"] == "working"
    result = b.result("tasks/result", {"taskId": task_id})  # waits on b for a's work
    assert result["content"] == [{"type": "text", "text": f"done by {replicas[0].pid}"}]
    assert c.get(task_id)["status"] == "completed"

    long_id = a.start(seconds=60)
    assert b.get(long_id)["status"] == "working"
    cancelled = c.result("tasks/cancel", {"taskId": long_id})
    assert cancelled["status"] == "cancelled"
    assert replicas[0].stopped_a_handler()  # the handler stopped where it ran
    assert a.get(long_id)["status"] == "cancelled"
    refused = b.request("tasks/cancel", {"taskId": long_id})
    assert refused["error"]["code"] == -32602


def test_2026_a_task_is_read_cancelled_and_answered_from_other_replicas(
    replicas: list[Replica],
) -> None:
    a, b, c = (Stateless(replica.url, WITH_TASKS) for replica in replicas[:3])
    created = a.call("slow", {"seconds": 1})
    assert created["resultType"] == "task"
    task_id = created["taskId"]
    done = b.until(task_id, "completed")
    assert done["result"]["content"][0]["text"] == f"done by {replicas[0].pid}"

    long_id = a.call("slow", {"seconds": 60})["taskId"]
    assert b.get(long_id)["status"] == "working"
    assert c.result("tasks/cancel", {"taskId": long_id})["resultType"] == "complete"
    assert replicas[0].stopped_a_handler()
    assert a.get(long_id)["status"] == "cancelled"

    # The handler waits on a for an answer that comes to b: Redis carries it to a.
    asking_id = a.call("confirm")["taskId"]
    asked = b.until(asking_id, "input_required")
    assert asked["inputRequests"]["confirm"]["method"] == "elicitation/create"
    answer = {"confirm": {"action": "accept", "content": {"ok": True}}}
    b.result("tasks/update", {"taskId": asking_id, "inputResponses": answer})
    answered = c.until(asking_id, "completed")
    assert answered["result"]["content"][0]["text"] == f"accept by {replicas[0].pid}"


def test_a_killed_replicas_running_task_fails_once_its_lease_lapses(
    replicas: list[Replica],
) -> None:
    a, b = Legacy(replicas[0].url), Legacy(replicas[1].url)
    task_id = a.start(seconds=60)
    assert b.get(task_id)["status"] == "working"
    replicas[0].stop(signal.SIGKILL)
    try:
        started = time.monotonic()
        failed = b.until(task_id, "failed", "completed", "cancelled")
        assert failed["status"] == "failed", failed
        assert failed["statusMessage"] == REPLICA_LOST
        assert time.monotonic() - started < LEASE + 10
        outcome = b.request("tasks/result", {"taskId": task_id})
        assert outcome["error"]["code"] == -32603
    finally:
        replicas[0].start()


def test_tasks_survive_a_restart_and_a_stopping_replica_fails_its_running_tasks(
    replicas: list[Replica],
) -> None:
    first = replicas[0]
    a, b = Legacy(first.url), Legacy(replicas[1].url)
    task_id = a.start(seconds=0.2)
    assert b.until(task_id, "completed")["status"] == "completed"
    ran_by = first.pid

    long_id = a.start(seconds=60)
    assert b.get(long_id)["status"] == "working"
    first.stop(signal.SIGTERM)  # a deliberate stop: no lease to wait for
    stopped = b.get(long_id)
    assert stopped["status"] == "failed" and stopped["statusMessage"] == SERVER_STOPPED

    first.start()
    again = Legacy(first.url)
    result = again.result("tasks/result", {"taskId": task_id})
    assert result["content"] == [{"type": "text", "text": f"done by {ran_by}"}]


def test_the_running_tasks_of_a_closed_2025_session_are_cancelled(
    replicas: list[Replica],
) -> None:
    with_sessions = replicas[3]
    session = Http(with_sessions.url)
    created = session.request(
        "tools/call", {"name": "slow", "arguments": {"seconds": 60}, "task": {}}
    )
    task_id = created["result"]["task"]["taskId"]
    assert (
        session.request("tasks/get", {"taskId": task_id})["result"]["status"]
        == "working"
    )
    session.close()  # DELETE: the session ends, and nobody else may see its tasks
    assert with_sessions.stopped_a_handler()
