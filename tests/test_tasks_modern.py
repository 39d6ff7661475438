"""Tasks on the 2026-07-28 wire (the tasks extension, SEP-2663), against a generated
server run as a real process, with raw stateless JSON-RPC over Streamable HTTP (httpx).

What the official conformance suite checks is in tests/test_conformance.py; these are
the runtime's own choices around it: which calls become tasks and when, questions
before and inside a task, answers of the wrong shape, keys asked twice, cancelling a
task that waits, the headers. The handlers are the plain ones a spec's user writes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx2
import pytest
from helpers import ROOT, build_and_write, http_server, write_spec

pytestmark = pytest.mark.slow  # builds a package, runs a server

SPEC = """\
mcpgen: 1
server: {name: errands, version: "1"}
tools:
  work:
    description: Works for a while, saying how far it got.
    inputSchema:
      type: object
      properties:
        seconds: {type: number}
        outcome: {type: string, enum: [done, business_error, crash, refused]}
    execution: {taskSupport: optional}
  confirm_twice:
    description: Asks for a confirmation twice, under the same key.
    inputSchema: {type: object}
    execution: {taskSupport: optional}
  gather:
    description: Asks a name before it starts, then runs only as a task.
    inputSchema: {type: object}
    execution: {taskSupport: required}
  batch:
    description: Runs only as a task, and is quick.
    inputSchema: {type: object}
    execution: {taskSupport: required}
  quick:
    description: Never runs as a task.
    inputSchema: {type: object}
  hold:
    description: Holds on for half a minute, as a task.
    inputSchema: {type: object}
    execution: {taskSupport: required}
"""

APP = """\
import sys

import anyio
from mcp.shared.exceptions import MCPError

from errands import Handlers, ToolError, run

CONFIRM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


class Errands(Handlers):
    async def work(self, args, ctx):
        await anyio.sleep((args.seconds or 0) / 2)
        await ctx.report_progress(1, 2, "Halfway there")
        await anyio.sleep((args.seconds or 0) / 2)
        outcome = getattr(args.outcome, "value", args.outcome) or "done"
        if outcome == "business_error":
            raise ToolError("No gifts in that budget.")
        if outcome == "crash":
            raise RuntimeError("secret internals")
        if outcome == "refused":
            raise MCPError(-32602, "Refused by the handler")
        return "done"

    async def confirm_twice(self, args, ctx):
        first = await ctx.elicit("Sure?", CONFIRM, key="confirm")
        second = await ctx.elicit("Really sure?", CONFIRM, key="confirm")
        return f"{first.content['ok']} then {second.content['ok']}"

    async def gather(self, args, ctx):
        answer = await ctx.elicit("Your name?", NAME, key="name", before_task=True)
        await anyio.sleep(0.3)
        return f"Gathered for {answer.content['name']}"

    async def batch(self, args, ctx):
        return "batched"

    async def quick(self, args, ctx):
        return "quick"

    async def hold(self, args, ctx):
        await anyio.sleep(30)
        return "held"


run(Errands(), sys.argv[1:])
"""

VERSION = "2026-07-28"
EXTENSION = "io.modelcontextprotocol/tasks"
WITH_TASKS: dict[str, Any] = {"elicitation": {}, "extensions": {EXTENSION: {}}}
NAMED_BY = {"tools/call": "name", "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}


class PollsTasks:
    """`tasks/get` and polling for a raw client of either era, which answers a request
    with `result`."""

    def result(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def get(self, task_id: str) -> dict[str, Any]:
        return self.result("tasks/get", {"taskId": task_id})

    def until(self, task_id: str, *statuses: str, timeout: float = 20) -> dict[str, Any]:
        """The task once its status is one of `statuses` (as it is after `timeout` s)."""
        deadline = time.monotonic() + timeout
        while True:
            task = self.get(task_id)
            if task["status"] in statuses or time.monotonic() > deadline:
                return task
            time.sleep(0.05)


class Stateless(PollsTasks):
    """A raw 2026-07-28 client: every request carries its own capabilities and headers."""

    def __init__(self, url: str, capabilities: dict[str, Any], address: str = "127.0.0.1") -> None:
        self.url = url
        self.capabilities = capabilities
        self.client = httpx2.Client(timeout=30, transport=httpx2.HTTPTransport(local_address=address))
        self.next_id = 0

    def post(self, method: str, params: dict[str, Any], **headers: str) -> httpx2.Response:
        self.next_id += 1
        meta = {
            "io.modelcontextprotocol/protocolVersion": VERSION,
            "io.modelcontextprotocol/clientCapabilities": self.capabilities,
        }
        sent = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": VERSION,
            "Mcp-Method": method,
        }
        if method in NAMED_BY:
            sent["Mcp-Name"] = str(params[NAMED_BY[method]])
        sent.update({name.replace("_", "-"): value for name, value in headers.items()})
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": {**params, "_meta": meta}}
        return self.client.post(self.url, json=body, headers=sent)

    def answer(self, method: str, params: dict[str, Any], **headers: str) -> dict[str, Any]:
        """The JSON-RPC answer (result or error) to one request."""
        response = self.post(method, params, **headers)
        if response.headers["content-type"].startswith("application/json"):
            answer: dict[str, Any] = response.json()
            return answer
        # An SSE answer: the last event that answers a request.
        events = [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]
        answers: list[dict[str, Any]] = [event for event in events if "id" in event]
        return answers[-1]

    def result(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        answer = self.answer(method, params)
        assert "result" in answer, answer
        result: dict[str, Any] = answer["result"]
        return result

    def error(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        answer = self.answer(method, params)
        assert "error" in answer, answer
        error: dict[str, Any] = answer["error"]
        return error

    def call(self, tool: str, arguments: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
        return self.result("tools/call", {"name": tool, "arguments": arguments or {}, **extra})



@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("errands")
    build_and_write(write_spec(folder, SPEC))
    (folder / "app.py").write_text(APP, encoding="utf-8")
    return folder / "app.py"


@pytest.fixture(scope="module")
def url(app: Path) -> Iterator[str]:
    folder = app.parent
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    # A handler timeout shorter than some tasks: a task is bounded by its own limits instead.
    command = [sys.executable, str(folder / "app.py"), "--handler-timeout", "1.5"]
    with http_server(command, cwd=folder, env=environment) as served:
        yield served


@pytest.fixture
def tasks(url: str) -> Stateless:
    return Stateless(url, WITH_TASKS)


def test_discover_lists_the_extension_and_no_tasks_capability(tasks: Stateless) -> None:
    capabilities = tasks.result("server/discover", {})["capabilities"]
    assert capabilities["extensions"][EXTENSION] == {}
    assert "tasks" not in capabilities


def test_a_quick_call_is_answered_plainly_and_a_slow_one_becomes_a_task(tasks: Stateless) -> None:
    quick = tasks.call("work", {"seconds": 0})
    assert quick["resultType"] == "complete" and quick["content"][0]["text"] == "done"
    assert "taskId" not in quick

    created = tasks.call("work", {"seconds": 2.0})
    assert created["resultType"] == "task" and created["status"] == "working"
    assert isinstance(created["ttlMs"], int) and isinstance(created["pollIntervalMs"], int)
    assert not {"ttl", "pollInterval", "result", "requestState", "task"} & set(created)
    halfway = tasks.until(created["taskId"], "completed", timeout=0.5)
    assert halfway["status"] == "working" and "result" not in halfway
    done = tasks.until(created["taskId"], "completed")
    assert done["result"]["content"][0]["text"] == "done" and done["resultType"] == "complete"


def test_progress_messages_become_the_status_message(tasks: Stateless) -> None:
    created = tasks.call("work", {"seconds": 4})
    time.sleep(2.5)
    assert tasks.get(created["taskId"])["statusMessage"] == "Halfway there"


@pytest.mark.parametrize(
    ("outcome", "status", "check"),
    [
        ("business_error", "completed", lambda t: t["result"]["isError"] and "budget" in str(t["result"])),
        ("crash", "completed", lambda t: t["result"]["isError"] and "secret" not in str(t)),
        ("refused", "failed", lambda t: t["error"]["code"] == -32602 and "result" not in t),
    ],
)
def test_how_a_task_ends(tasks: Stateless, outcome: str, status: str, check: Any) -> None:
    created = tasks.call("work", {"seconds": 0.3, "outcome": outcome})
    ended = tasks.until(created["taskId"], "completed", "failed", "cancelled")
    assert ended["status"] == status, ended
    assert check(ended), ended


def test_a_required_tool_is_a_task_even_when_quick(tasks: Stateless) -> None:
    created = tasks.call("batch")
    assert created["resultType"] == "task"
    assert tasks.until(created["taskId"], "completed")["result"]["content"][0]["text"] == "batched"
    plain = tasks.call("quick")
    assert plain["resultType"] == "complete" and plain["content"][0]["text"] == "quick"


def test_a_task_outlives_the_handler_timeout_and_a_plain_call_does_not(url: str, tasks: Stateless) -> None:
    created = tasks.call("work", {"seconds": 2.5})
    assert tasks.until(created["taskId"], "completed")["result"]["content"][0]["text"] == "done"
    plain = Stateless(url, {}).call("work", {"seconds": 2.5})
    assert plain["isError"] and "timed out after 1.5 s" in plain["content"][0]["text"]


def test_an_anonymous_caller_runs_at_most_100_tasks_at_once_counted_by_its_address(url: str) -> None:
    """TaskLimits.max_working_per_owner (100): without an authorization context, a caller
    is its network address, so one client cannot use up what the others may run."""
    first = Stateless(url, WITH_TASKS)
    with ThreadPoolExecutor(10) as pool:
        held = list(pool.map(lambda _: first.call("hold")["taskId"], range(100)))
    try:
        refused = first.error("tools/call", {"name": "hold", "arguments": {}})
        assert refused["code"] == -32600 and "100 tasks" in refused["message"]
        other = Stateless(url, WITH_TASKS, address="127.0.0.2")
        held.append(other.call("hold")["taskId"])
    finally:
        for task_id in held:
            first.result("tasks/cancel", {"taskId": task_id})
    assert first.call("hold")["resultType"] == "task"  # room again: cancelled tasks run no more


def test_without_the_extension_nothing_is_a_task(url: str) -> None:
    plain = Stateless(url, {"elicitation": {}})
    slow = plain.call("work", {"seconds": 0.3})
    assert slow["resultType"] == "complete" and slow["content"][0]["text"] == "done"
    refused = plain.error("tools/call", {"name": "batch", "arguments": {}})
    assert refused["code"] == -32021
    assert refused["data"] == {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}
    for method in ("tasks/get", "tasks/cancel"):
        assert plain.error(method, {"taskId": "anything"})["code"] == -32021


def test_questions_inside_a_task_wait_for_tasks_update_under_keys_used_once(tasks: Stateless) -> None:
    created = tasks.call("confirm_twice")
    task_id = created["taskId"]
    first = tasks.until(task_id, "input_required")
    assert list(first["inputRequests"]) == ["confirm"]
    assert first["inputRequests"]["confirm"]["method"] == "elicitation/create"

    # An answer of the wrong shape is refused, and the question stays asked.
    wrong = tasks.error("tasks/update", {"taskId": task_id, "inputResponses": {"confirm": {"action": 7}}})
    assert wrong["code"] == -32602
    assert list(tasks.get(task_id)["inputRequests"]) == ["confirm"]

    ack = tasks.result(
        "tasks/update",
        {"taskId": task_id, "inputResponses": {"confirm": {"action": "accept", "content": {"ok": True}}}},
    )
    assert set(ack) <= {"resultType", "_meta"} and ack["resultType"] == "complete"
    # The handler asks again under the same key: the wire key is new, as SEP-2663 requires.
    second = tasks.until(task_id, "input_required")
    deadline = time.monotonic() + 5
    while list(second.get("inputRequests", {})) != ["confirm-2"] and time.monotonic() < deadline:
        second = tasks.get(task_id)
    assert list(second["inputRequests"]) == ["confirm-2"]
    # An answer under the spent key is ignored.
    tasks.result(
        "tasks/update",
        {"taskId": task_id, "inputResponses": {"confirm": {"action": "accept", "content": {"ok": True}}}},
    )
    assert tasks.get(task_id)["status"] == "input_required"
    tasks.result(
        "tasks/update",
        {"taskId": task_id, "inputResponses": {"confirm-2": {"action": "accept", "content": {"ok": False}}}},
    )
    done = tasks.until(task_id, "completed")
    assert done["result"]["content"][0]["text"] == "True then False"


def test_cancelling_a_task_that_waits_for_input(tasks: Stateless) -> None:
    task_id = tasks.call("confirm_twice")["taskId"]
    tasks.until(task_id, "input_required")
    assert tasks.result("tasks/cancel", {"taskId": task_id})["resultType"] == "complete"
    cancelled = tasks.get(task_id)
    assert cancelled["status"] == "cancelled" and "inputRequests" not in cancelled
    # Again, on the task that has ended: the same acknowledgement.
    assert tasks.result("tasks/cancel", {"taskId": task_id})["resultType"] == "complete"
    # A late answer changes nothing.
    tasks.result(
        "tasks/update",
        {"taskId": task_id, "inputResponses": {"confirm": {"action": "accept", "content": {"ok": True}}}},
    )
    assert tasks.get(task_id)["status"] == "cancelled"


def test_unknown_tasks_and_removed_methods(tasks: Stateless) -> None:
    for method in ("tasks/get", "tasks/cancel"):
        assert tasks.error(method, {"taskId": "no-such-task"})["code"] == -32602
    assert tasks.error("tasks/update", {"taskId": "no-such-task", "inputResponses": {}})["code"] == -32602
    for method in ("tasks/result", "tasks/list"):
        params = {"taskId": "no-such-task"} if method == "tasks/result" else {}
        assert tasks.error(method, params)["code"] == -32601


def test_questions_before_the_task_are_an_mrtr_round(tasks: Stateless) -> None:
    first = tasks.call("gather")
    assert first["resultType"] == "input_required" and "taskId" not in first
    assert list(first["inputRequests"]) == ["name"]
    answers = {"name": {"action": "accept", "content": {"name": "Ada"}}}
    created = tasks.call("gather", inputResponses=answers, requestState=first["requestState"])
    assert created["resultType"] == "task"
    assert "requestState" not in created and "inputRequests" not in created
    done = tasks.until(created["taskId"], "completed")
    assert done["result"]["content"][0]["text"] == "Gathered for Ada"
    assert "requestState" not in done


def test_the_task_id_header_must_match(tasks: Stateless) -> None:
    task_id = tasks.call("batch")["taskId"]
    wrong = tasks.post("tasks/get", {"taskId": task_id}, Mcp_Name="another-task")
    assert wrong.status_code == 400 and wrong.json()["error"]["code"] == -32020
    right = tasks.post("tasks/get", {"taskId": task_id})
    assert right.status_code == 200 and right.json()["result"]["taskId"] == task_id


def test_over_stdio_a_task_waits_for_its_answer_without_headers(app: Path) -> None:
    server = subprocess.Popen(
        [sys.executable, str(app)],
        cwd=app.parent,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    meta = {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": WITH_TASKS,
    }
    stdin, stdout = server.stdin, server.stdout
    assert stdin is not None and stdout is not None

    def result(request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        request = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": meta}}
        stdin.write(json.dumps(request) + "\n")
        stdin.flush()
        answer = json.loads(stdout.readline())
        assert answer["id"] == request_id and "result" in answer, answer
        found: dict[str, Any] = answer["result"]
        return found

    try:
        task_id = result(1, "tools/call", {"name": "confirm_twice", "arguments": {}})["taskId"]
        asked = result(2, "tasks/get", {"taskId": task_id})
        for request_id in range(3, 100):
            if asked["status"] == "input_required":
                break
            time.sleep(0.05)
            asked = result(request_id, "tasks/get", {"taskId": task_id})
        assert list(asked["inputRequests"]) == ["confirm"]
        assert result(100, "tasks/cancel", {"taskId": task_id}) == {"resultType": "complete", "_meta": asked["_meta"]}
        assert result(101, "tasks/get", {"taskId": task_id})["status"] == "cancelled"
    finally:
        stdin.close()
        server.wait(timeout=10)
