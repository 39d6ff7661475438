"""Tasks: a call that answers at once with a task, and runs on while the caller polls.

This module is the core both protocol eras build on; it knows no wire. The 2025-11-25
tasks utility (`tasks_legacy.py`) and the 2026-07-28 tasks extension put it on the
wire, each with its own methods, fields and errors.

- `Task` is what a caller may see of a task, under the spec's names (`to_wire()`).
- `TaskOutcome` is how it ended: the result of the underlying request as wire JSON,
  or the JSON-RPC error it ended with. `tasks/result` answers exactly that.
- `task_store.TaskStore` keeps tasks and outcomes behind one async interface, bounded
  by `task_store.TaskLimits` (in memory: `task_store_memory.InMemoryTaskStore`; a
  shared store, Redis say, implements the same).
- `task_runner.TaskRunner` runs work as a task: it creates the task, runs the work in the
  background, records its outcome, and cancels it on request.
- `TaskContext` is the `Context` a tool handler gets when its call runs as a task:
  the handler does not change; `report_progress(message=...)` also sets the task's
  `statusMessage`.

Visibility: every task has an `owner`, the caller's authorization context where there
is one (the token's subject), else whatever the era binds tasks to (a 2025-11-25
session; "" for none). A task is seen, cancelled and listed only by its owner; task
ids are unguessable (`secrets`), so a task with owner "" is as safe as its id.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

import mcp_types as types
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import methods
from pydantic import ValidationError

from .context import Context
from .errors import INTERNAL_ERROR, INVALID_PARAMS

if TYPE_CHECKING:  # server.py imports the tables, which import this module
    from .server import GeneratedServer
    from .task_runner import TaskRunner
    from .task_store import TaskStore

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TerminalStatus = Literal["completed", "failed", "cancelled"]
TERMINAL_STATUSES: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
"""A task in one of these never changes again (both eras)."""

INVALID_REQUEST = -32600
SERVER_STOPPED = "The server stopped while the task ran; the task did not finish."


@dataclass(frozen=True)
class Task:
    """A task as its store has it. Times are POSIX seconds; `ttl` and
    `poll_interval` milliseconds, as on the wire.

    `request` is what the era layer chose to keep of the request that made the task
    (2026-07-28 re-runs a tool call that needed input); `details` is JSON the era
    layer attaches to the current status (2026-07-28's `inputRequests`, say).
    `scopes` are the scopes the request that made the task needed (the server-wide
    ones and its tool's): every later request about the task needs them too, so a
    token without them cannot read what a better-scoped one of the same principal
    started. None of these is shown by `to_wire()`.
    """

    task_id: str
    owner: str
    status: TaskStatus
    created_at: float
    last_updated_at: float
    ttl: int
    poll_interval: int | None = None
    status_message: str | None = None
    request: Mapping[str, Any] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)
    scopes: tuple[str, ...] = ()

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    @property
    def expires_at(self) -> float:
        return self.created_at + self.ttl / 1000

    def to_wire(self) -> dict[str, Any]:
        """The spec's `Task` object: taskId, status, statusMessage?, createdAt,
        lastUpdatedAt, ttl, pollInterval? (ISO 8601 times, in UTC)."""
        wire: dict[str, Any] = {"taskId": self.task_id, "status": self.status}
        if self.status_message is not None:
            wire["statusMessage"] = self.status_message
        wire["createdAt"] = iso_time(self.created_at)
        wire["lastUpdatedAt"] = iso_time(self.last_updated_at)
        wire["ttl"] = self.ttl
        if self.poll_interval is not None:
            wire["pollInterval"] = self.poll_interval
        return wire


def iso_time(moment: float) -> str:
    """`moment` (POSIX seconds) in ISO 8601, UTC, to the millisecond, with a Z (as the spec's examples write createdAt)."""
    text = datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


@dataclass(frozen=True)
class TaskOutcome:
    """How a task's underlying request ended: a `result` (wire JSON, e.g. a
    CallToolResult with `isError`) or an `error` (a JSON-RPC error object: code,
    message, data?). Exactly one is set."""

    result: Mapping[str, Any] | None = None
    error: Mapping[str, Any] | None = None

    @classmethod
    def of_error(cls, exc: MCPError) -> TaskOutcome:
        return cls(error=exc.error.model_dump(by_alias=True, exclude_none=True))

    @property
    def is_error_result(self) -> bool:
        """A result that says the tool failed (`isError: true`): a business error."""
        return self.result is not None and self.result.get("isError") is True

    def size(self) -> int:
        """Its size as compact JSON, in bytes (what `max_result_bytes` bounds)."""
        body = self.result if self.result is not None else self.error
        return len(json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode())

    def raise_or_return(self) -> Mapping[str, Any]:
        """The result; or the error, raised as the `MCPError` it was."""
        if self.error is not None:
            raise MCPError(
                self.error.get("code", INTERNAL_ERROR),
                str(self.error.get("message", "")),
                self.error.get("data"),
            )
        assert self.result is not None
        return self.result


class TaskNotFound(LookupError):
    """No such task for this owner: unknown, another owner's, or deleted (ttl over)."""


class TaskAlreadyTerminal(ValueError):
    """The task is completed, failed or cancelled: it cannot be cancelled."""

    def __init__(self, task: Task) -> None:
        super().__init__(
            f"Cannot cancel task: already in terminal status '{task.status}'"
        )
        self.task = task


class TaskLimitReached(Exception):
    """A `TaskLimits` bound refuses a new task (the message says which)."""


class InvalidTaskCursor(ValueError):
    """A `tasks/list` cursor that this store did not issue for this owner."""


def caller_may_see(task: Task) -> bool:
    """Whether the request being served carries a token with the task's scopes (no
    token: stdio, or HTTP without authorization, where tasks keep no scopes). Over
    HTTP the authorization guard has refused a request naming such a task already;
    this keeps `tasks/list` from listing it, and holds where no guard runs."""
    access = get_access_token()
    return access is None or set(task.scopes) <= set(access.scopes)


async def seen_task(store: TaskStore, task_id: str, owner: str) -> Task:
    """`owner`'s task as the caller may see it; `TaskNotFound` when it is not there
    for them (unknown, another owner's, or beyond the token's scopes)."""
    task = await store.get(task_id, owner)
    if task is None or not caller_may_see(task):
        raise TaskNotFound(task_id)
    return task


def protocol_error(exc: Exception) -> MCPError:
    """The JSON-RPC error both eras answer a store's refusal with."""
    if isinstance(exc, TaskNotFound):
        return MCPError(INVALID_PARAMS, "Failed to retrieve task: Task not found")
    if isinstance(exc, TaskAlreadyTerminal):
        return MCPError(INVALID_PARAMS, str(exc))
    if isinstance(exc, InvalidTaskCursor):
        return MCPError(INVALID_PARAMS, "Invalid cursor")
    if isinstance(exc, TaskLimitReached):
        return MCPError(INVALID_REQUEST, str(exc))
    return MCPError(INTERNAL_ERROR, "Internal error")


StatusListener = Callable[[Task], Awaitable[None]]
"""Told of each status a task moves to (`notifications/tasks/status`, say)."""


class TaskControl:
    """What the work of one task may do to its task (given to the work by the runner)."""

    def __init__(
        self, runner: TaskRunner, task: Task, listener: StatusListener | None
    ) -> None:
        self.runner = runner
        self.task = task
        self.listener = listener

    @property
    def task_id(self) -> str:
        return self.task.task_id

    async def set_message(self, message: str | None) -> None:
        """The task's `statusMessage` (no status notification: the status is the same)."""
        task = await self.runner.store.set_message(self.task_id, message)
        self.task = task or self.task

    async def set_status(
        self,
        status: Literal["working", "input_required"],
        message: str | None = None,
        *,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        """Move the task to `input_required` (waiting on the caller) or back to `working`."""
        task = await self.runner.store.set_status(
            self.task_id, status, message, details=details
        )
        if task is not None and not task.terminal:
            self.task = task
            await self.runner.tell(self.listener, task)


TaskWork = Callable[[TaskControl], Awaitable[TaskOutcome]]
"""The work of one task: its outcome. A raised `MCPError` is an `error` outcome; any
other exception is logged and becomes an internal error; both end the task `failed`."""


class TaskContext(Context):
    """The `Context` of a tool call that runs as a task. The handler is the same one
    a plain call runs; what differs is where what it sends goes:

    - `report_progress(..., message=)` also sets the task's `statusMessage`;
    - `deliver_progress` sends the progress notification itself: by default on the
      request's own channel; an era overrides it (2025-11-25: the connection's
      standalone channel, with the related-task `_meta`), since the request that
      made the task has been answered already.
    """

    def __init__(
        self,
        request: ServerRequestContext[Any, Any],
        server: GeneratedServer | None,
        control: TaskControl,
    ) -> None:
        super().__init__(request, server)
        self.control = control

    @property
    def task(self) -> Task:
        return self.control.task

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        if message is not None:
            await self.control.set_message(message)
        await self.deliver_progress(progress, total, message)

    async def deliver_progress(
        self, progress: float, total: float | None, message: str | None
    ) -> None:
        await super().report_progress(progress, total, message)


def call_params(
    ctx: ServerRequestContext[Any, Any],
) -> types.CallToolRequestParams | None:
    """A `tools/call`'s params as the SDK reads them for the request's revision, or None
    when they are malformed: the usual path then answers with the SDK's own error."""
    try:
        methods.validate_client_request("tools/call", ctx.protocol_version, ctx.params)
        return types.CallToolRequestParams.model_validate(
            ctx.params or {}, by_name=False
        )
    except (ValidationError, KeyError):
        return None
