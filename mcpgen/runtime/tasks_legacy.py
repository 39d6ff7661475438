"""Tasks on the 2025-11-25 wire: the revision's tasks utility (SEP-1686).

Served when some tool's `execution.taskSupport` is `optional` or `required`; the
`tasks` capability (`list`, `cancel`, `requests.tools.call`) says so at `initialize`.

- A `tools/call` with `params.task` (`{ttl?}`) is answered at once with the task
  (`CreateTaskResult`); the tool runs in the background (`task_runner.TaskRunner`).
- `tasks/get` answers the task, `tasks/result` waits for it to end and answers exactly
  what the plain call would have (the tool's result, `isError` included, or the
  JSON-RPC error) with the related-task `_meta`; `tasks/list` pages through the
  caller's tasks; `tasks/cancel` cancels one that has not ended (-32602 otherwise).
- A task for a tool whose taskSupport is `forbidden`, and a plain call of a
  `required` one, are -32601 (Method not found), as the page's tool-level rules say.
- A tool result with `isError` ends its task `failed` ("for tool calls specifically,
  this includes cases where the tool call result has isError set to true").
- While the task runs, what the handler sends goes on the connection's standalone
  channel (stdio; the GET stream on HTTP), since the request that made the task has
  been answered: progress, log messages, and on stdio its questions (elicitation,
  sampling), the task `input_required` meanwhile. Over HTTP a question waits for the
  client's `tasks/result` and goes out on its stream, as the page's flow has it. Each
  carries the related-task `_meta`; `notifications/tasks/status` tells each new status.

Tasks are bound to the caller's authorization context (its access token's principal)
where there is one, else to the connection (the 2025-11-25 session) that made them:
another session cannot see, list or cancel them, and when the session closes, those
still running are cancelled (nobody could read their results). Stateless HTTP without a token has no
session: there a task is reached by its id alone (unguessable), `tasks/list` lists
nothing rather than every caller's tasks. Without a token, the per-caller bounds count
by the caller's address over HTTP.

With replicas sharing a Redis task store, any replica answers `tasks/get`,
`tasks/result`, `tasks/list` and `tasks/cancel` for a task whose owner reaches it
there (a token's principal, or anyone holding the id on stateless HTTP; a session lives
on one replica: route it there, e.g. by `Mcp-Session-Id`). `notifications/tasks/status`
is sent only by the replica that runs the task, to the connection that made it (and by
the replica that cancels it, to its own caller's connection); a client that polls loses
nothing by it. A question asked over HTTP goes out on a `tasks/result` stream open on
the replica that runs the task.
"""

from __future__ import annotations

import secrets
import weakref
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import methods
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError

from .auth_scopes import required_scopes
from .context import InputRequest, InputResponse
from .errors import INVALID_PARAMS
from .task_quota import caller_quota
from .task_runner import TaskRunner
from .tasks import (
    Task,
    TaskAlreadyTerminal,
    TaskContext,
    TaskControl,
    TaskNotFound,
    TaskOutcome,
    call_params,
    caller_may_see,
    protocol_error,
    seen_task,
)
from .tasks_modern import caller

if TYPE_CHECKING:
    from .server import GeneratedServer
    from .tools import ToolTable

RELATED_TASK = "io.modelcontextprotocol/related-task"
SESSION_HEADER = "mcp-session-id"
ANYONE = ""
"""The owner of a task made where there is no session (stateless HTTP)."""
METHOD_NOT_FOUND = -32601
DEFAULT_PAGE_SIZE = 100

P = TypeVar("P", bound=BaseModel)

_ANSWER_TYPES: dict[str, type[InputResponse]] = {
    "elicitation/create": types.ElicitResult,
    "sampling/createMessage": types.CreateMessageResult,
    "roots/list": types.ListRootsResult,
}

CAPABILITY = types.ServerTasksCapability(
    list=types.TasksListCapability(),
    cancel=types.TasksCancelCapability(),
    requests=types.ServerTasksRequestsCapability(
        tools=types.TasksToolsCapability(call=types.TasksCallCapability())
    ),
)
"""The `tasks` capability a server with task tools declares at `initialize`."""


def related(task_id: str) -> dict[str, Any]:
    """The related-task `_meta` of a message about a task."""
    return {RELATED_TASK: {"taskId": task_id}}


class LegacyTasks:
    """Server middleware: the tasks utility for connections that speak 2025-11-25 (or
    an earlier handshake version); anything else goes on down the chain, untouched.

    The SDK (mcp 2.3.0) dropped tasks: it has no handlers for `tasks/*`, and its check
    of a `tools/call` answer would refuse a `CreateTaskResult`. So these are answered
    here, as `ListFromSchema` answers `tools/list`.
    """

    def __init__(
        self,
        table: ToolTable,
        server: GeneratedServer,
        runner: TaskRunner,
        page_size: int | None,
    ) -> None:
        self.table = table
        self.server = server
        self.runner = runner
        self.page_size = page_size or DEFAULT_PAGE_SIZE
        self.result_streams = ResultStreams()
        self._owners: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self._methods: dict[
            str, Callable[[ServerRequestContext[Any, Any]], Awaitable[dict[str, Any]]]
        ] = {
            "tasks/get": self._get,
            "tasks/result": self._result,
            "tasks/list": self._list,
            "tasks/cancel": self._cancel,
        }

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return await call_next(ctx)
        if ctx.method == "tools/call":
            return await self._call_tool(ctx, call_next)
        answer = self._methods.get(ctx.method)
        if answer is None:
            return await call_next(ctx)
        if not _connection(ctx).initialize_accepted:
            # What the SDK answers any method it serves before the handshake.
            raise MCPError(INVALID_PARAMS, "Invalid request parameters", "")
        try:
            return await answer(ctx)
        except (TaskNotFound, ValueError, LookupError) as exc:
            raise protocol_error(exc) from None

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        raw = ctx.params or {}
        name = raw.get("name")
        binding = self.table.bindings.get(name) if isinstance(name, str) else None
        if binding is None or (
            "task" not in raw and binding.task_support != "required"
        ):
            # A plain call (or an unknown tool's): the usual path, checked only there.
            return await call_next(ctx)
        params = call_params(ctx)
        if params is None:
            return await call_next(ctx)  # for the SDK's own error
        support = binding.task_support
        if params.task is None:
            if support == "required":
                raise MCPError(
                    METHOD_NOT_FOUND,
                    f"Tool '{params.name}' must be called as a task "
                    "(its execution.taskSupport is 'required'): "
                    "add params.task to the tools/call request.",
                    {"tool": params.name},
                )
            return await call_next(ctx)
        if support == "forbidden":
            raise MCPError(
                METHOD_NOT_FOUND,
                f"Tool '{params.name}' cannot be called as a task "
                "(its execution.taskSupport is 'forbidden').",
                {"tool": params.name},
            )
        if not _connection(ctx).initialize_accepted:
            return await call_next(ctx)
        plain = params.model_copy(update={"task": None})
        connection = _connection(ctx)

        async def work(control: TaskControl) -> TaskOutcome:
            context = LegacyTaskContext(ctx, self.server, control, self.result_streams)
            result = await self.table.call_tool(ctx, plain, context=context)
            dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
            # As the SDK shapes a plain call's answer for this protocol version.
            shaped = methods.serialize_server_result(
                "tools/call", ctx.protocol_version, dumped
            )
            return TaskOutcome(result=shaped)

        try:
            owner = self._owner(ctx)
            quota_key, network = caller_quota(owner, ctx.request)
            task = await self.runner.start(
                work,
                owner=owner,
                quota_key=quota_key,
                network=network,
                ttl=params.task.ttl,
                request={"name": params.name},
                scopes=required_scopes(),
                listener=_status_teller(connection),
            )
        except Exception as exc:  # noqa: BLE001
            raise protocol_error(exc) from None
        return {"task": task.to_wire()}

    async def _get(self, ctx: ServerRequestContext[Any, Any]) -> dict[str, Any]:
        params = _params(ctx, types.GetTaskRequestParams)
        task = await seen_task(self.runner.store, params.task_id, self._owner(ctx))
        return task.to_wire()

    async def _result(self, ctx: ServerRequestContext[Any, Any]) -> dict[str, Any]:
        params = _params(ctx, types.GetTaskPayloadRequestParams)
        owner = self._owner(ctx)
        await seen_task(self.runner.store, params.task_id, owner)
        with self.result_streams.open(params.task_id, ctx):
            await self.runner.store.wait(params.task_id, owner)
        outcome = await self.runner.store.outcome(params.task_id, owner)
        if outcome is None:  # the task is terminal: `finish` kept its outcome
            raise TaskNotFound(params.task_id)
        result = dict(outcome.raise_or_return())
        result["_meta"] = {**(result.get("_meta") or {}), **related(params.task_id)}
        return result

    async def _list(self, ctx: ServerRequestContext[Any, Any]) -> dict[str, Any]:
        params = _params(ctx, types.PaginatedRequestParams)
        owner = self._owner(ctx)
        if owner == ANYONE:
            # Listing would hand every caller the ids of everyone's tasks.
            return {"tasks": []}
        tasks, following = await self.runner.store.list_page(
            owner, params.cursor, self.page_size
        )
        # A task made by a request that needed scopes this token lacks is left out
        # (the page may come out short; its cursor still leads on).
        seen = [task.to_wire() for task in tasks if caller_may_see(task)]
        page: dict[str, Any] = {"tasks": seen}
        if following is not None:
            page["nextCursor"] = following
        return page

    async def _cancel(self, ctx: ServerRequestContext[Any, Any]) -> dict[str, Any]:
        params = _params(ctx, types.CancelTaskRequestParams)
        tell = _status_teller(_connection(ctx))
        owner = self._owner(ctx)
        await seen_task(self.runner.store, params.task_id, owner)
        task = await self.runner.cancel(params.task_id, owner, tell)
        return task.to_wire()

    def _owner(self, ctx: ServerRequestContext[Any, Any]) -> str:
        """Whose tasks these are: the principal of the request's access token, where
        there is one (as in 2026-07-28); else the connection's (its 2025-11-25
        session). Stateless HTTP (`--stateless`, for replicas) without a token has no
        session to bind a task to: there a task is anyone's who holds its id ("")."""
        principal = caller()
        if principal:
            return principal
        http = ctx.request
        if http is not None and SESSION_HEADER not in getattr(http, "headers", {}):
            return ANYONE
        connection = _connection(ctx)
        owner = self._owners.get(connection)
        if owner is None:
            owner = self._owners[connection] = "session:" + secrets.token_urlsafe(16)
            connection.exit_stack.push_async_callback(self._session_closed, owner)
        return owner

    async def _session_closed(self, owner: str) -> None:
        """The session that owned these tasks closed: nobody can reach them any more,
        so those still running are cancelled rather than left to run out their ttl
        (ended ones are kept until their ttl, as every task is)."""
        cursor = None
        while True:
            tasks, cursor = await self.runner.store.list_page(
                owner, cursor, self.page_size
            )
            for task in tasks:
                if not task.terminal:
                    with suppress(TaskNotFound, TaskAlreadyTerminal):
                        await self.runner.cancel(task.task_id, owner)
            if cursor is None:
                return


class ResultStreams:
    """The `tasks/result` requests waiting on each task. Over HTTP a task's questions
    go out on one of them, as the page's flow has it (the client sees `input_required`,
    calls `tasks/result`, and answers what comes on that stream): no GET stream needed.
    """

    def __init__(self) -> None:
        self._open: dict[str, list[ServerRequestContext[Any, Any]]] = {}
        self._opened: dict[str, anyio.Event] = {}

    @contextmanager
    def open(self, task_id: str, ctx: ServerRequestContext[Any, Any]) -> Iterator[None]:
        """`ctx`, a `tasks/result` request, waits on the task meanwhile."""
        self._open.setdefault(task_id, []).append(ctx)
        opened = self._opened.pop(task_id, None)
        if opened is not None:
            opened.set()
        try:
            yield
        finally:
            streams = self._open[task_id]
            streams.remove(ctx)
            if not streams:
                del self._open[task_id]

    async def one(self, task_id: str) -> ServerRequestContext[Any, Any]:
        """A `tasks/result` request waiting on the task, once there is one."""
        while not self._open.get(task_id):
            opened = self._opened.setdefault(task_id, anyio.Event())
            try:
                await opened.wait()
            except BaseException:
                self._opened.pop(task_id, None)
                raise
        return self._open[task_id][-1]


class LegacyTaskContext(TaskContext):
    """A handler's `Context` while its 2025-11-25 call runs as a task: what it sends
    goes on the connection's standalone channel (progress, log messages; questions on
    stdio) or on a `tasks/result` stream (questions over HTTP), with the related-task
    `_meta`."""

    def __init__(
        self,
        request: ServerRequestContext[Any, Any],
        server: GeneratedServer | None,
        control: TaskControl,
        result_streams: ResultStreams,
    ) -> None:
        super().__init__(request, server, control)
        self.result_streams = result_streams

    async def deliver_progress(
        self, progress: float, total: float | None, message: str | None
    ) -> None:
        meta = (self.request.params or {}).get("_meta")
        token = meta.get("progressToken") if isinstance(meta, Mapping) else None
        if token is None:
            return  # the caller asked for no progress
        params: dict[str, Any] = {"progressToken": token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        params["_meta"] = related(self.task.task_id)
        await _connection(self.request).outbound.notify(
            "notifications/progress", params
        )

    async def log(
        self, level: types.LoggingLevel, data: Any, logger_name: str | None = None
    ) -> None:
        if self.server is not None and not self.server.log_level_allows(
            self.request.session, level
        ):
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger_name is not None:
            params["logger"] = logger_name
        params["_meta"] = related(self.task.task_id)
        await _connection(self.request).outbound.notify("notifications/message", params)

    async def _send(self, request: InputRequest) -> InputResponse:
        """Ask the client while the task waits in `input_required`."""
        await self.control.set_status("input_required", "Waiting for the client.")
        meta = {**((request.params and request.params.meta) or {})}
        meta.update(related(self.task.task_id))
        asking = request.model_copy(
            update={
                "params": (request.params or types.RequestParams()).model_copy(
                    update={"meta": meta}
                )
            }
        )
        answer_type = _ANSWER_TYPES[request.method]
        try:
            if self.request.request is None:
                # stdio: one stream both ways; no related request, the standalone channel.
                return await self.request.session.send_request(asking, answer_type)
            stream = await self.result_streams.one(self.task.task_id)
            on_stream = ServerMessageMetadata(related_request_id=stream.request_id)
            return await stream.session.send_request(
                asking, answer_type, metadata=on_stream
            )
        finally:
            await self.control.set_status("working")


def _status_teller(connection: Any) -> Callable[[Task], Awaitable[None]]:
    """Sends `notifications/tasks/status` (the whole task; no related-task `_meta`,
    as the page asks) to the connection that made the task."""

    async def tell(task: Task) -> None:
        await connection.outbound.notify("notifications/tasks/status", task.to_wire())

    return tell


def _params(ctx: ServerRequestContext[Any, Any], model: type[P]) -> P:
    try:
        return model.model_validate(ctx.params or {}, by_name=False)
    except ValidationError:
        raise MCPError(INVALID_PARAMS, f"Invalid params for {ctx.method}") from None


def _connection(ctx: ServerRequestContext[Any, Any]) -> Any:
    # mcp 2.3.0 offers no public handle on a request's connection; its session keeps one.
    return ctx.session._connection
