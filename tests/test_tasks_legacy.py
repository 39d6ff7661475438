"""Tasks on the 2025-11-25 wire (the revision's tasks utility, SEP-1686), against a
generated server run as a real process: raw JSON-RPC over stdio (newline-delimited) and
over Streamable HTTP (httpx, a 2025-11-25 session).

The spec has a tool that may run as a task, one that must, and one that must not; the
handlers are the plain ones a spec's user writes: nothing in them knows of tasks.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from helpers import (
    ROOT,
    build_and_write,
    http_server,
    node_environment,
    require_node_tools,
    write_spec,
)

pytestmark = pytest.mark.slow  # builds a package, runs servers

SPEC = """\
mcpgen: 1
server: {name: chores, version: "1", pageSize: 2}
tools:
  slow_report:
    description: Works for a while, saying how far it got.
    inputSchema:
      type: object
      properties:
        seconds: {type: number}
        outcome: {type: string, enum: [done, business_error, crash, refused, big]}
    execution: {taskSupport: optional}
  batch:
    description: Runs only as a task.
    inputSchema: {type: object}
    execution: {taskSupport: required}
  quick:
    description: Never runs as a task.
    inputSchema: {type: object}
  confirm:
    description: Asks the user before it goes on.
    inputSchema: {type: object}
    execution: {taskSupport: optional}
"""

APP = """\
import sys

import anyio
from mcp.shared.exceptions import MCPError

from chores import Handlers, ToolError, run


class Chores(Handlers):
    async def slow_report(self, args, ctx):
        await ctx.report_progress(1, 2, "Halfway there")
        await anyio.sleep(args.seconds or 0)
        outcome = getattr(args.outcome, "value", args.outcome) or "done"
        if outcome == "business_error":
            raise ToolError("No gifts in that budget.")
        if outcome == "crash":
            raise RuntimeError("secret internals")
        if outcome == "refused":
            raise MCPError(-32602, "Refused by the handler")
        if outcome == "big":
            return "x" * 5_000_000
        return "done"

    async def batch(self, args, ctx):
        return "batched"

    async def quick(self, args, ctx):
        return "quick"

    async def confirm(self, args, ctx):
        schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
        answer = await ctx.elicit("Go ahead?", schema)
        return f"answer: {answer.action}"


run(Chores(), sys.argv[1:])
"""

INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "raw", "version": "1"},
}
RELATED = "io.modelcontextprotocol/related-task"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built package and its app.py, in a folder of their own."""
    folder = tmp_path_factory.mktemp("chores")
    build_and_write(write_spec(folder, SPEC))
    (folder / "app.py").write_text(APP, encoding="utf-8")
    return folder / "app.py"


def _environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


class Stdio:
    """A raw JSON-RPC client on a server's stdin and stdout."""

    def __init__(self, app: Path, capabilities: dict[str, Any] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(app)],
            cwd=app.parent,
            env=_environment(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.notifications: list[dict[str, Any]] = []
        self.answers: dict[Any, dict[str, Any]] = {}
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        self.initialized = self.request(
            "initialize", {**INITIALIZE, "capabilities": capabilities or {}}
        )
        self.notify("notifications/initialized")

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.messages.put(json.loads(line))

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        self.send(
            {
                "jsonrpc": "2.0",
                "method": method,
                **({"params": params} if params else {}),
            }
        )

    def start(self, method: str, params: dict[str, Any]) -> int:
        self.next_id += 1
        self.send(
            {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        )
        return self.next_id

    def answer(self, request_id: int, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while request_id not in self.answers:
            message = self.messages.get(timeout=max(deadline - time.monotonic(), 0.01))
            if "id" in message and "method" not in message:
                self.answers[message["id"]] = message
            else:
                self.notifications.append(message)
        return self.answers.pop(request_id)

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return self.answer(self.start(method, params))

    def asked(self, method: str, timeout: float = 30) -> dict[str, Any]:
        """The first request of `method` the server sent (read until it comes)."""
        deadline = time.monotonic() + timeout
        while True:
            for message in self.notifications:
                if message.get("method") == method and "id" in message:
                    return message
            message = self.messages.get(timeout=max(deadline - time.monotonic(), 0.01))
            if "id" in message and "method" not in message:
                self.answers[message["id"]] = message
            else:
                self.notifications.append(message)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Http:
    """A raw JSON-RPC client of a 2025-11-25 Streamable HTTP session."""

    def __init__(self, url: str, capabilities: dict[str, Any] | None = None) -> None:
        self.url = url
        self.client = httpx2.Client(timeout=30)
        self.headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        self.next_id = 0
        initialize = {**INITIALIZE, "capabilities": capabilities or {}}
        response = self.post(
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize}
        )
        self.initialized = self._answer(response)
        self.headers["Mcp-Session-Id"] = response.headers["mcp-session-id"]
        self.headers["MCP-Protocol-Version"] = "2025-11-25"
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def post(self, body: dict[str, Any]) -> httpx2.Response:
        return self.client.post(self.url, json=body, headers=self.headers)

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        return self._answer(
            self.post(
                {
                    "jsonrpc": "2.0",
                    "id": self.next_id,
                    "method": method,
                    "params": params,
                }
            )
        )

    @staticmethod
    def _answer(response: httpx2.Response) -> dict[str, Any]:
        assert response.status_code == 200, response.text
        if response.headers["content-type"].startswith("application/json"):
            answer: dict[str, Any] = response.json()
            return answer
        for line in response.text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                message = json.loads(line[5:])
                if "id" in message and "method" not in message:
                    return dict(message)
        raise AssertionError(f"no answer in {response.text!r}")

    def close(self) -> None:
        self.client.delete(self.url, headers=self.headers)
        self.client.close()


@pytest.fixture(params=["stdio", "http"])
def client(request: pytest.FixtureRequest, app: Path) -> Iterator[Any]:
    if request.param == "stdio":
        stdio = Stdio(app)
        yield stdio
        stdio.close()
        return
    with http_server(
        [sys.executable, str(app)], cwd=app.parent, env=_environment()
    ) as url:
        http = Http(url)
        yield http
        http.close()


def result_of(answer: dict[str, Any]) -> dict[str, Any]:
    assert "result" in answer, answer
    result: dict[str, Any] = answer["result"]
    return result


def error_of(answer: dict[str, Any]) -> dict[str, Any]:
    assert "error" in answer, answer
    error: dict[str, Any] = answer["error"]
    return error


def start_task(
    client: Any,
    arguments: dict[str, Any],
    ttl: int | None = None,
    tool: str = "slow_report",
) -> dict[str, Any]:
    task: dict[str, Any] = {} if ttl is None else {"ttl": ttl}
    created = result_of(
        client.request(
            "tools/call", {"name": tool, "arguments": arguments, "task": task}
        )
    )
    assert set(created) == {"task"}, created
    return dict(created["task"])


def test_initialize_and_the_tools_say_which_calls_may_be_tasks(client: Any) -> None:
    capabilities = result_of(client.initialized)["capabilities"]
    assert capabilities["tasks"] == {
        "list": {},
        "cancel": {},
        "requests": {"tools": {"call": {}}},
    }
    first = result_of(client.request("tools/list", {}))
    rest = result_of(client.request("tools/list", {"cursor": first["nextCursor"]}))
    execution = {
        tool["name"]: tool.get("execution") for tool in first["tools"] + rest["tools"]
    }
    assert execution == {
        "slow_report": {"taskSupport": "optional"},
        "batch": {"taskSupport": "required"},
        "quick": None,
        "confirm": {"taskSupport": "optional"},
    }


def test_a_task_runs_and_its_result_is_the_plain_calls(client: Any) -> None:
    task = start_task(client, {"seconds": 0.3}, ttl=60_000)
    assert task["status"] == "working" and task["ttl"] == 60_000
    assert (
        task["createdAt"].endswith("Z")
        and "lastUpdatedAt" in task
        and task["pollInterval"] > 0
    )
    polled = result_of(client.request("tasks/get", {"taskId": task["taskId"]}))
    assert polled["taskId"] == task["taskId"] and polled["status"] in (
        "working",
        "completed",
    )
    result = result_of(client.request("tasks/result", {"taskId": task["taskId"]}))
    assert result["content"] == [{"type": "text", "text": "done"}]
    assert result["_meta"][RELATED] == {"taskId": task["taskId"]}
    assert not result.get("isError")
    ended = result_of(client.request("tasks/get", {"taskId": task["taskId"]}))
    assert ended["status"] == "completed"
    plain = result_of(
        client.request("tools/call", {"name": "slow_report", "arguments": {}})
    )
    assert plain["content"] == result["content"] and "task" not in plain


def test_a_business_error_ends_the_task_failed_with_the_is_error_result(
    client: Any,
) -> None:
    task = start_task(client, {"outcome": "business_error"})
    result = result_of(client.request("tasks/result", {"taskId": task["taskId"]}))
    assert result["isError"] is True
    assert result["content"] == [{"type": "text", "text": "No gifts in that budget."}]
    ended = result_of(client.request("tasks/get", {"taskId": task["taskId"]}))
    assert (
        ended["status"] == "failed"
        and ended["statusMessage"] == "No gifts in that budget."
    )


def test_protocol_failures_end_the_task_failed_and_result_is_the_error(
    client: Any,
) -> None:
    refused = start_task(client, {"outcome": "refused"})
    error = error_of(client.request("tasks/result", {"taskId": refused["taskId"]}))
    assert error["code"] == -32602 and error["message"] == "Refused by the handler"
    crashed = start_task(client, {"outcome": "crash"})
    result = result_of(client.request("tasks/result", {"taskId": crashed["taskId"]}))
    # A crash is what a plain call answers too: isError, no internals.
    assert result["isError"] is True and "secret" not in json.dumps(result)
    for task in (refused, crashed):
        assert (
            result_of(client.request("tasks/get", {"taskId": task["taskId"]}))["status"]
            == "failed"
        )


def test_cancel_ends_the_task_and_terminal_states_never_change(client: Any) -> None:
    task = start_task(client, {"seconds": 30})
    cancelled = result_of(client.request("tasks/cancel", {"taskId": task["taskId"]}))
    assert cancelled["status"] == "cancelled" and cancelled["taskId"] == task["taskId"]
    again = error_of(client.request("tasks/cancel", {"taskId": task["taskId"]}))
    assert again["code"] == -32602 and "cancelled" in again["message"]
    assert (
        result_of(client.request("tasks/get", {"taskId": task["taskId"]}))["status"]
        == "cancelled"
    )
    error = error_of(client.request("tasks/result", {"taskId": task["taskId"]}))
    assert error["code"] == -32603
    done = start_task(client, {})
    result_of(client.request("tasks/result", {"taskId": done["taskId"]}))
    late = error_of(client.request("tasks/cancel", {"taskId": done["taskId"]}))
    assert late["code"] == -32602 and "'completed'" in late["message"]


def test_unknown_tasks_and_cursors_are_invalid_params(client: Any) -> None:
    for method in ("tasks/get", "tasks/result", "tasks/cancel"):
        assert (
            error_of(client.request(method, {"taskId": "no-such-task"}))["code"]
            == -32602
        )
    assert (
        error_of(client.request("tasks/list", {"cursor": "forged"}))["code"] == -32602
    )


def test_list_pages_through_the_callers_tasks(client: Any) -> None:
    made = [start_task(client, {})["taskId"] for _ in range(5)]
    seen: list[str] = []
    cursor = None
    while True:
        page = result_of(
            client.request("tasks/list", {} if cursor is None else {"cursor": cursor})
        )
        assert len(page["tasks"]) <= 2
        seen += [task["taskId"] for task in page["tasks"]]
        cursor = page.get("nextCursor")
        if cursor is None:
            break
    assert seen[-5:] == made


def test_required_and_forbidden_tools_answer_method_not_found(client: Any) -> None:
    plain = error_of(client.request("tools/call", {"name": "batch", "arguments": {}}))
    assert plain["code"] == -32601 and "task" in plain["message"]
    as_task = error_of(
        client.request("tools/call", {"name": "quick", "arguments": {}, "task": {}})
    )
    assert as_task["code"] == -32601
    task = start_task(client, {}, tool="batch")
    result = result_of(client.request("tasks/result", {"taskId": task["taskId"]}))
    assert result["content"] == [{"type": "text", "text": "batched"}]
    unknown = error_of(
        client.request("tools/call", {"name": "nope", "arguments": {}, "task": {}})
    )
    assert unknown["code"] == -32602


def test_a_task_is_gone_when_its_ttl_ends(client: Any) -> None:
    task = start_task(client, {"seconds": 30}, ttl=300)
    assert task["ttl"] == 300
    time.sleep(0.6)
    error = error_of(client.request("tasks/get", {"taskId": task["taskId"]}))
    assert error["code"] == -32602


def test_a_result_larger_than_the_store_keeps_fails_the_task(client: Any) -> None:
    task = start_task(client, {"outcome": "big"})
    error = error_of(client.request("tasks/result", {"taskId": task["taskId"]}))
    assert error["code"] == -32603 and "larger" in error["message"]


def test_progress_and_status_reach_a_stdio_client_with_the_related_task(
    app: Path,
) -> None:
    stdio = Stdio(app)
    try:
        created = result_of(
            stdio.request(
                "tools/call",
                {
                    "name": "slow_report",
                    "arguments": {"seconds": 0.2},
                    "task": {},
                    "_meta": {"progressToken": "p1"},
                },
            )
        )
        task_id = created["task"]["taskId"]
        result_of(stdio.request("tasks/result", {"taskId": task_id}))
        stdio.request("ping", {})  # whatever was sent before is read by now
        progress = [
            n["params"]
            for n in stdio.notifications
            if n["method"] == "notifications/progress"
        ]
        assert progress == [
            {
                "progressToken": "p1",
                "progress": 1,
                "total": 2,
                "message": "Halfway there",
                "_meta": {RELATED: {"taskId": task_id}},
            }
        ]
        statuses = [
            n["params"]
            for n in stdio.notifications
            if n["method"] == "notifications/tasks/status"
        ]
        assert [s["status"] for s in statuses] == ["completed"] and statuses[0][
            "taskId"
        ] == task_id
        assert "_meta" not in statuses[0]
    finally:
        stdio.close()


def test_asking_the_client_moves_the_task_to_input_required_and_back(app: Path) -> None:
    stdio = Stdio(app, capabilities={"elicitation": {}})
    try:
        task_id = start_task(stdio, {}, tool="confirm")["taskId"]
        question = stdio.asked("elicitation/create")
        assert question["params"]["message"] == "Go ahead?"
        assert question["params"]["_meta"][RELATED] == {"taskId": task_id}
        waiting = result_of(stdio.request("tasks/get", {"taskId": task_id}))
        assert waiting["status"] == "input_required"
        stdio.send(
            {
                "jsonrpc": "2.0",
                "id": question["id"],
                "result": {"action": "accept", "content": {"ok": True}},
            }
        )
        result = result_of(stdio.request("tasks/result", {"taskId": task_id}))
        assert result["content"] == [{"type": "text", "text": "answer: accept"}]
        stdio.request("ping", {})
        statuses = [
            n["params"]["status"]
            for n in stdio.notifications
            if n.get("method") == "notifications/tasks/status"
        ]
        assert statuses == ["input_required", "working", "completed"]
    finally:
        stdio.close()


def test_one_session_cannot_see_anothers_tasks(app: Path) -> None:
    with http_server(
        [sys.executable, str(app)], cwd=app.parent, env=_environment()
    ) as url:
        alice, bob = Http(url), Http(url)
        try:
            task = start_task(alice, {"seconds": 30})
            assert (
                error_of(bob.request("tasks/get", {"taskId": task["taskId"]}))["code"]
                == -32602
            )
            assert (
                error_of(bob.request("tasks/cancel", {"taskId": task["taskId"]}))[
                    "code"
                ]
                == -32602
            )
            assert result_of(bob.request("tasks/list", {}))["tasks"] == []
            assert (
                result_of(alice.request("tasks/cancel", {"taskId": task["taskId"]}))[
                    "status"
                ]
                == "cancelled"
            )
        finally:
            alice.close()
            bob.close()


def test_a_caller_may_run_only_so_many_tasks_at_once(app: Path) -> None:
    stdio = Stdio(app)
    try:
        ids = [
            stdio.start(
                "tools/call",
                {"name": "slow_report", "arguments": {"seconds": 30}, "task": {}},
            )
            for _ in range(101)
        ]
        answers = [stdio.answer(i) for i in ids]
        assert all("result" in a for a in answers[:100])
        refused = error_of(answers[100])
        assert refused["code"] == -32600 and "at most 100" in refused["message"]
    finally:
        stdio.close()


def test_stateless_http_reaches_a_task_by_its_id_alone(app: Path) -> None:
    with http_server(
        [sys.executable, str(app), "--stateless"], cwd=app.parent, env=_environment()
    ) as url:
        client = httpx2.Client(timeout=30)
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": "2025-11-25",
        }

        def request(method: str, params: dict[str, Any]) -> dict[str, Any]:
            body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
            return Http._answer(client.post(url, json=body, headers=headers))

        try:
            result_of(request("initialize", INITIALIZE))
            created = result_of(
                request(
                    "tools/call", {"name": "slow_report", "arguments": {}, "task": {}}
                )
            )
            task_id = created["task"]["taskId"]
            result = result_of(request("tasks/result", {"taskId": task_id}))
            assert result["content"] == [{"type": "text", "text": "done"}]
            assert (
                result_of(request("tasks/get", {"taskId": task_id}))["status"]
                == "completed"
            )
            assert result_of(request("tasks/list", {}))["tasks"] == []
        finally:
            client.close()


TYPESCRIPT_PEER = """\
const [sdk, python, app, url] = process.argv.slice(2);
const { Client } = await import(`${sdk}/dist/esm/client/index.js`);
const { StdioClientTransport } = await import(`${sdk}/dist/esm/client/stdio.js`);
const { StreamableHTTPClientTransport } = await import(`${sdk}/dist/esm/client/streamableHttp.js`);
const { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } = await import(
  `${sdk}/dist/esm/types.js`);

const client = new Client({ name: "ts-peer", version: "1" }, { capabilities: { elicitation: {} } });
const out = {};
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  out.asked = request.params._meta?.["io.modelcontextprotocol/related-task"]?.taskId ?? "no task";
  return { action: "accept", content: { ok: true } };
});
await client.connect(url ? new StreamableHTTPClientTransport(new URL(url))
                         : new StdioClientTransport({ command: python, args: [app], env: process.env }));
out.capability = client.getServerCapabilities().tasks;
await client.listTools();

async function stream(args, name = "slow_report") {
  const seen = [];
  const calls = client.experimental.tasks.callToolStream(
    { name, arguments: args }, CallToolResultSchema, { task: { ttl: 60000 } });
  for await (const message of calls) {
    seen.push({ type: message.type, taskId: message.task?.taskId, status: message.task?.status,
                result: message.result, error: message.error?.message });
  }
  return seen;
}
out.done = await stream({ seconds: 0.2 });
out.business = await stream({ outcome: "business_error" });

const created = await client.request(
  { method: "tools/call", params: { name: "slow_report", arguments: { seconds: 30 }, task: {} } },
  CreateTaskResultSchema);
const taskId = created.task.taskId;
out.polled = (await client.experimental.tasks.getTask(taskId)).status;
out.cancelled = (await client.experimental.tasks.cancelTask(taskId)).status;
out.listed = [];
let cursor;
do {
  const page = await client.experimental.tasks.listTasks(cursor);
  out.listed.push(...page.tasks.map((task) => task.status));
  cursor = page.nextCursor;
} while (cursor);
out.confirm = await stream({}, "confirm");
console.log(JSON.stringify(out));
await client.close();
"""


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_typescript_sdk_client_runs_tasks(
    app: Path, tmp_path: Path, transport: str
) -> None:
    """The TypeScript SDK 1.x client's experimental tasks API, a real 2025-11-25 peer."""
    folder = require_node_tools()
    sdk = folder / "node_modules" / "@modelcontextprotocol" / "sdk"
    if not (sdk / "dist" / "esm" / "experimental" / "tasks").is_dir():
        pytest.skip(
            "the TypeScript SDK 1.x is not installed; run .ci/install-node-tools"
        )
    script = tmp_path / "peer.mjs"
    script.write_text(TYPESCRIPT_PEER, encoding="utf-8")
    environment = {**node_environment(folder, tmp_path), "PYTHONPATH": str(ROOT)}
    command = ["node", str(script), str(sdk), sys.executable, str(app)]
    with contextlib.ExitStack() as stack:
        if transport == "http":
            server = [sys.executable, str(app)]
            command.append(
                stack.enter_context(
                    http_server(server, cwd=app.parent, env=_environment())
                )
            )
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=120,
            env=environment,
            cwd=app.parent,
        )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["capability"] == {
        "list": {},
        "cancel": {},
        "requests": {"tools": {"call": {}}},
    }
    assert [m["type"] for m in seen["done"]][0] == "taskCreated"
    assert seen["done"][-1]["type"] == "result"
    assert seen["done"][-1]["result"]["content"] == [{"type": "text", "text": "done"}]
    assert seen["done"][-2]["status"] == "completed"
    # isError ends a 2025-11-25 task failed: the client reports the task's failure.
    assert [m["status"] for m in seen["business"] if m["type"] == "taskStatus"][
        -1
    ] == "failed"
    assert seen["business"][-1]["type"] == "error"
    assert seen["polled"] == "working" and seen["cancelled"] == "cancelled"
    assert seen["listed"] == ["completed", "failed", "cancelled"]
    # A question inside a task reaches the client's handler, tied to its task.
    confirmed = seen["confirm"]
    assert confirmed[-1]["type"] == "result", confirmed
    assert confirmed[-1]["result"]["content"] == [
        {"type": "text", "text": "answer: accept"}
    ]
    assert seen["asked"] == confirmed[0]["taskId"]


def test_progress_and_status_reach_an_http_client_on_its_get_stream(app: Path) -> None:
    with http_server(
        [sys.executable, str(app)], cwd=app.parent, env=_environment()
    ) as url:
        http = Http(url)
        heard: queue.Queue[dict[str, Any]] = queue.Queue()
        opened = threading.Event()

        def listen() -> None:
            headers = {**http.headers, "Accept": "text/event-stream"}
            with (
                httpx2.Client(timeout=None) as client,
                client.stream("GET", url, headers=headers) as stream,
            ):
                opened.set()
                for line in stream.iter_lines():
                    if line.startswith("data:") and line[5:].strip():
                        heard.put(json.loads(line[5:]))

        threading.Thread(target=listen, daemon=True).start()
        try:
            assert opened.wait(10)
            params = {
                "name": "slow_report",
                "arguments": {"seconds": 0.2},
                "task": {},
                "_meta": {"progressToken": 7},
            }
            task_id = result_of(http.request("tools/call", params))["task"]["taskId"]
            result_of(http.request("tasks/result", {"taskId": task_id}))
            messages = []
            while not any(
                m.get("method") == "notifications/tasks/status" for m in messages
            ):
                messages.append(heard.get(timeout=10))
            progress = next(
                m["params"] for m in messages if m["method"] == "notifications/progress"
            )
            assert (
                progress["progressToken"] == 7
                and progress["message"] == "Halfway there"
            )
            assert progress["_meta"] == {RELATED: {"taskId": task_id}}
            status = next(
                m["params"]
                for m in messages
                if m["method"] == "notifications/tasks/status"
            )
            assert status["taskId"] == task_id and status["status"] == "completed"
        finally:
            http.close()


def test_over_http_a_question_comes_on_the_tasks_result_stream(app: Path) -> None:
    """The page's flow: the client sees input_required, calls tasks/result, answers the
    question that comes on that stream, and reads the result at its end."""
    with http_server(
        [sys.executable, str(app)], cwd=app.parent, env=_environment()
    ) as url:
        http = Http(url, capabilities={"elicitation": {}})
        try:
            task_id = start_task(http, {}, tool="confirm")["taskId"]
            deadline = time.monotonic() + 10
            while (
                result_of(http.request("tasks/get", {"taskId": task_id}))["status"]
                != "input_required"
            ):
                assert time.monotonic() < deadline
                time.sleep(0.05)
            body = {
                "jsonrpc": "2.0",
                "id": "result-1",
                "method": "tasks/result",
                "params": {"taskId": task_id},
            }
            result = None
            with (
                httpx2.Client(timeout=30) as client,
                client.stream("POST", url, json=body, headers=http.headers) as stream,
            ):
                for line in stream.iter_lines():
                    if not (line.startswith("data:") and line[5:].strip()):
                        continue
                    message = json.loads(line[5:])
                    if message.get("method") == "elicitation/create":
                        assert message["params"]["_meta"][RELATED] == {
                            "taskId": task_id
                        }
                        answer = {"action": "accept", "content": {"ok": True}}
                        accepted = http.post(
                            {"jsonrpc": "2.0", "id": message["id"], "result": answer}
                        )
                        assert accepted.status_code == 202
                    elif message.get("id") == "result-1":
                        result = result_of(message)
                        break
            assert result is not None and result["content"] == [
                {"type": "text", "text": "answer: accept"}
            ]
            assert (
                result_of(http.request("tasks/get", {"taskId": task_id}))["status"]
                == "completed"
            )
        finally:
            http.close()


def test_over_http_a_callers_sessions_share_its_bound(app: Path) -> None:
    """100 running tasks per caller: more sessions from one address do not make more."""
    with http_server(
        [sys.executable, str(app)], cwd=app.parent, env=_environment()
    ) as url:
        alice, again = Http(url), Http(url)
        try:
            for n in range(100):
                start_task(alice if n % 2 else again, {"seconds": 30})
            refused = error_of(
                again.request(
                    "tools/call",
                    {"name": "slow_report", "arguments": {"seconds": 30}, "task": {}},
                )
            )
            assert refused["code"] == -32600 and "at most 100" in refused["message"]
        finally:
            alice.close()
            again.close()
