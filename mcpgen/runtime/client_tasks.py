"""Tools run as tasks from a generated typed client: `start_task` sends the call, and
the `TaskHandle` it returns asks for the task's status, waits for it, reads its result
as the plain method would, or cancels it. Both eras: 2025-11-25 (a task-augmented
`tools/call`, then `tasks/get|result|cancel`) and 2026-07-28 (the tasks extension,
declared in each request's capabilities; `tasks/get` polled at `pollIntervalMs`).

The SDK's `mcp.Client` no longer speaks tasks, and its `send_request` checks a
`tools/call` answer as a plain result, so a task's requests go out through the
session's dispatcher, stamped as the session stamps its own (`_stamp`: the era's
`_meta` and headers). That reaches into the SDK's session: this module is the one
place that does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import anyio
import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import TypeAdapter

from .client import answered

if TYPE_CHECKING:
    from mcp import Client

    from .client_sessions import Connection

__all__ = ["TaskFailedError", "TaskHandle", "TaskState", "start_task"]

T = TypeVar("T")

MODERN_TASKS = "io.modelcontextprotocol/tasks"
_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
TERMINAL = frozenset({"completed", "failed", "cancelled"})
_DEFAULT_POLL_MS = 1000
_INPUT_REQUEST: TypeAdapter[types.InputRequest] = TypeAdapter(types.InputRequest)


class TaskFailedError(Exception):
    """A task ended without a result: `failed` (a protocol-level error: `code` and
    `message` are the JSON-RPC error's) or `cancelled` (`code` None)."""

    def __init__(
        self, tool: str, task_id: str, status: str, message: str, code: int | None
    ) -> None:
        super().__init__(f"{tool}: task {task_id} {status}: {message}")
        self.tool = tool
        self.task_id = task_id
        self.status = status
        self.message = message
        self.code = code


@dataclass(frozen=True)
class TaskState:
    """What `tasks/get` says of a task: its status (`working`, `input_required`,
    `completed`, `failed`, `cancelled`), the server's message (a handler's progress
    message, say), and how long (ms) the server asks a caller to wait between polls."""

    task_id: str
    status: str
    message: str | None
    poll_interval: int

    @property
    def done(self) -> bool:
        """Whether the status is terminal: it never changes again."""
        return self.status in TERMINAL


class TaskHandle(Generic[T]):
    """A tool call running as a task on the server. `result()` is what the plain
    method returns (ToolCallError for an `isError` result); `TaskFailedError` when
    the task failed or was cancelled."""

    def __init__(
        self,
        connection: Connection,
        tool: str,
        state: TaskState,
        read: Callable[[types.CallToolResult], T],
        immediate: types.CallToolResult | None = None,
    ) -> None:
        self.connection = connection
        self.tool = tool
        self.task_id = state.task_id
        self.last = state
        self._read = read
        self._answer: dict[str, Any] = {}  # the last tasks/get answer
        self._answered: set[str] = set()  # keys of questions answered (used once each)
        # A 2026-07-28 server may answer a quick call at once, without a task.
        self._immediate = immediate

    def __repr__(self) -> str:
        return f"TaskHandle({self.tool!r}, {self.task_id!r}, {self.last.status!r})"

    @property
    def client(self) -> Client:
        """The client of the typed client's session now: a task of a lost session is
        asked for in the new one (the server answers whether it still has it)."""
        return self.connection.client

    @property
    def modern(self) -> bool:
        return self.client.protocol_version in MODERN_PROTOCOL_VERSIONS

    async def status(self) -> TaskState:
        """The task's state now (`tasks/get`)."""
        if self._immediate is not None:
            return self.last
        answer = await self._send("tasks/get", {"taskId": self.task_id})
        self.last = _state(answer, self.modern)
        self._answer = answer
        return self.last

    async def wait(self) -> TaskState:
        """Poll until the task's status is terminal, at the interval the server asks.
        On 2026-07-28, a question the task waits on (`input_required`) goes to the
        client's own elicitation, sampling or roots callback, and the answer back with
        `tasks/update` (on 2025-11-25 the server asks the client directly)."""
        state = await self.status()
        while not state.done:
            if state.status == "input_required" and self.modern:
                await self._answer_questions()
            else:
                await anyio.sleep(state.poll_interval / 1000)
            state = await self.status()
        return state

    async def _answer_questions(self) -> None:
        from mcp.client.session import ClientRequestContext
        from mcp.shared.exceptions import MCPError

        questions: Mapping[str, Any] = self._answer.get("inputRequests") or {}
        answers: dict[str, Any] = {}
        for key, question in questions.items():
            if key in self._answered:
                continue
            request = _INPUT_REQUEST.validate_python(question)
            meta = request.params.meta if request.params else None
            context = ClientRequestContext(
                session=self.client.session, request_id=key, meta=meta
            )
            answer = await self.client.session.dispatch_input_request(context, request)
            if isinstance(answer, types.ErrorData):
                raise MCPError(answer.code, answer.message, answer.data)
            answers[key] = answer.model_dump(
                by_alias=True, mode="json", exclude_none=True
            )
            self._answered.add(key)
        if not answers:  # answered already; the task has not moved on yet
            await anyio.sleep(self.last.poll_interval / 1000)
            return
        params = {"taskId": self.task_id, "inputResponses": answers}
        await self._send("tasks/update", params)

    async def result(self) -> T:
        """Wait for the task to end, then its result as the plain method returns it."""
        if self._immediate is not None:
            return self._read(self._immediate)
        if not self.modern:
            return self._read(await self._legacy_result())
        state = await self.wait()
        if state.status == "completed":
            return self._read(
                types.CallToolResult.model_validate(self._answer["result"])
            )
        error: Mapping[str, Any] = self._answer.get("error") or {}
        message = str(error.get("message", state.message or state.status))
        raise TaskFailedError(
            self.tool, self.task_id, state.status, message, error.get("code")
        )

    async def _legacy_result(self) -> types.CallToolResult:
        # tasks/result waits for a terminal status, then answers the tool's own result
        # (or the JSON-RPC error it failed with).
        from mcp.shared.exceptions import MCPError

        try:
            answer = await self._send("tasks/result", {"taskId": self.task_id})
        except MCPError as error:
            state = await self.status()
            raise TaskFailedError(
                self.tool,
                self.task_id,
                state.status,
                error.error.message,
                error.error.code,
            ) from None
        return types.CallToolResult.model_validate(answer)

    async def cancel(self) -> None:
        """Ask the server to cancel the task (`tasks/cancel`); a task already ended
        keeps its status."""
        if self._immediate is None:
            await self._send("tasks/cancel", {"taskId": self.task_id})

    async def _send(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return await self.connection.run(lambda client: _send(client, method, params))


async def start_task(
    connection: Connection,
    tool: str,
    arguments: Mapping[str, Any],
    read: Callable[[types.CallToolResult], T],
    ttl: int | None = None,
) -> TaskHandle[T]:
    """Call `tool` as a task: `ttl` asks the server to keep it that many ms (its
    default when None; 2025-11-25 only, 2026-07-28 servers choose)."""
    modern = connection.client.protocol_version in MODERN_PROTOCOL_VERSIONS
    params: dict[str, Any] = {"name": tool, "arguments": dict(arguments)}
    if not modern:
        params["task"] = {} if ttl is None else {"ttl": ttl}
    answer = await connection.run(lambda client: _send(client, "tools/call", params))
    if modern and answer.get("resultType") != "task":
        result = types.CallToolResult.model_validate(answer)
        state = TaskState("", "completed", None, _DEFAULT_POLL_MS)
        return TaskHandle(connection, tool, state, read, immediate=result)
    task = answer if modern else answer["task"]
    return TaskHandle(connection, tool, _state(task, modern), read)


def _state(task: Mapping[str, Any], modern: bool) -> TaskState:
    interval = task.get("pollIntervalMs" if modern else "pollInterval")
    return TaskState(
        task_id=str(task["taskId"]),
        status=str(task["status"]),
        message=task.get("statusMessage"),
        poll_interval=interval if isinstance(interval, int) else _DEFAULT_POLL_MS,
    )


async def _send(client: Client, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """One request, stamped as the session stamps its own; on 2026-07-28 with the
    tasks extension declared and, for `tasks/*`, the task id as `Mcp-Name`."""
    session = client.session
    data: dict[str, Any] = {"method": method, "params": params}
    options: Any = {}
    session._stamp(data, options)  # private SDK API: see the module docstring
    if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
        meta = data["params"].setdefault("_meta", {})
        capabilities = dict(meta.get(_CAPABILITIES) or {})
        capabilities["extensions"] = {
            **(capabilities.get("extensions") or {}),
            MODERN_TASKS: {},
        }
        meta[_CAPABILITIES] = capabilities
        if method.startswith("tasks/"):
            options.setdefault("headers", {})["Mcp-Name"] = params["taskId"]
    dispatcher = session._dispatcher
    answer: dict[str, Any] = await answered(
        dispatcher.send_raw_request(method, data["params"], options)
    )
    return answer
