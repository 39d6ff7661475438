"""Tasks on the 2026-07-28 wire: the tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`).

Served when some tool's `execution.taskSupport` is `optional` or `required`; the
server lists the extension under `capabilities.extensions` in `server/discover`.
docs/tasks-2026-07-28.md lists what the conformance suite checks, and where.

- Whether a client takes tasks is read from each request's own capabilities (its
  `_meta`): without the extension, `tasks/get|update|cancel` are -32021 (missing
  client capability), an `optional` tool runs as a plain call, and a `required` one is
  -32021 with `data.requiredCapabilities` naming the extension.
- The server decides which calls become tasks: a call to a task tool starts in its
  request and becomes a task when its handler asks the client something, or runs past
  `window` seconds; one that ends sooner is answered plainly (`optional`) or with a
  task that has already ended (`required`). See `task_escalation` for what the
  handler's questions do before and after.
- `CreateTaskResult` is the task itself, flat, with `resultType: "task"`; `tasks/get`
  adds `inputRequests`, the tool's `result` (a business error is `completed` with
  `isError`), or the JSON-RPC `error` of a task that `failed`; `tasks/update` delivers
  answers; `tasks/cancel` cancels (a task that has ended is left as it is); both answer
  an empty result. `tasks/result` and `tasks/list` no longer exist (-32601).
- On HTTP, `tasks/get|update|cancel` must carry `Mcp-Name: <taskId>` (-32020 otherwise).

Tasks are bound to the caller's authorization context when there is one (the token's
principal); without one, a task id (unguessable) is all a caller needs. A task's handler
runs in the process that started it, and waits there for its answers: with replicas
sharing a Redis task store, a `tasks/update` that reaches another replica is relayed to
that process through Redis (a load balancer may also route it by its `Mcp-Name`, as
SEP-2663 intends). Answers of the wrong shape are -32602 only where the task runs; a
relayed one is dropped there. Without a shared store, another process acknowledges an
answer it has no question for, and drops it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import mcp_types as types
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken, principal_components
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import MCP_NAME_HEADER, decode_header_value
from mcp_types import SERVER_INFO_META_KEY, methods
from mcp_types.jsonrpc import HEADER_MISMATCH, METHOD_NOT_FOUND
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .auth_scopes import required_scopes
from .errors import INTERNAL_ERROR, INVALID_PARAMS, MISSING_CAPABILITY
from .log import logger
from .task_escalation import (
    WAITING_FOR_INPUT,
    Escalation,
    InputWaits,
    ModernTaskContext,
)
from .task_quota import PRINCIPAL, caller_quota
from .task_runner import TaskRunner
from .tasks import (
    Task,
    TaskAlreadyTerminal,
    TaskControl,
    TaskLimitReached,
    TaskNotFound,
    TaskOutcome,
    call_params,
    protocol_error,
    seen_task,
)

if TYPE_CHECKING:
    from .server import GeneratedServer
    from .tools import ToolTable

EXTENSION = "io.modelcontextprotocol/tasks"
REQUIRED_CAPABILITIES: dict[str, Any] = {
    "requiredCapabilities": {"extensions": {EXTENSION: {}}}
}
REMOVED_METHODS = frozenset({"tasks/result", "tasks/list"})
IMMEDIATE_WINDOW = 0.1
"""Seconds a task tool's call may take before it becomes a task: most quick calls are
then answered plainly, and a slow one costs the caller this much more, once."""


class _TaskParams(BaseModel):
    """What every tasks/* request names: the task."""

    model_config = ConfigDict(extra="allow")
    task_id: str = Field(alias="taskId")


P = TypeVar("P", bound=_TaskParams)


class _UpdateParams(_TaskParams):
    input_responses: dict[str, Any] = Field(alias="inputResponses")


class ModernTasks:
    """Server middleware: the tasks extension for 2026-07-28 requests; anything else
    (other protocol versions included) goes on down the chain, untouched.

    The SDK (mcp 2.3.0) has no tasks: it has no handlers for `tasks/*`, so these are
    answered here, as `ListFromSchema` answers `tools/list`.
    """

    def __init__(
        self,
        table: ToolTable,
        server: GeneratedServer,
        runner: TaskRunner,
        *,
        window: float = IMMEDIATE_WINDOW,
    ) -> None:
        self.table = table
        self.server = server
        self.runner = runner
        self.window = window
        self.waits = InputWaits()
        self._noting: set[asyncio.Future[None]] = set()
        runner.on_relayed(self._relayed)
        self._methods: dict[
            str,
            Callable[[ServerRequestContext[Any, Any], str], Awaitable[dict[str, Any]]],
        ] = {
            "tasks/get": self._get,
            "tasks/update": self._update,
            "tasks/cancel": self._cancel,
        }

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return await call_next(ctx)
        if ctx.method == "tools/call":
            return await self._call_tool(ctx, call_next)
        if ctx.method in REMOVED_METHODS:
            raise MCPError(METHOD_NOT_FOUND, "Method not found", ctx.method)
        answer = self._methods.get(ctx.method)
        if answer is None:
            return await call_next(ctx)
        task_id = _task_id(ctx)
        if not takes_tasks(ctx):
            raise _missing_extension(f"{ctx.method} needs the tasks extension")
        try:
            body = await answer(ctx, task_id)
        except TaskNotFound as exc:
            raise protocol_error(exc) from None
        return self._stamped({"resultType": "complete", **body})

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        name = (ctx.params or {}).get("name")
        binding = self.table.bindings.get(name) if isinstance(name, str) else None
        if binding is None or binding.task_support == "forbidden":
            # A plain call (or an unknown tool's): the usual path, checked only there.
            return await call_next(ctx)
        params = call_params(ctx)
        if params is None:
            return await call_next(ctx)  # for the SDK's own error
        required = binding.task_support == "required"
        if not takes_tasks(ctx):
            if required:
                raise _missing_extension(f"Tool '{params.name}' runs only as a task")
            return await call_next(ctx)
        return await self._run(ctx, params, required)

    async def _run(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.CallToolRequestParams,
        required: bool,
    ) -> dict[str, Any]:
        """Start the call in this request; answer it plainly, or with the task it became."""
        escalation = Escalation()
        context = ModernTaskContext(ctx, self.server, escalation, self.waits)
        call = asyncio.ensure_future(self.table.call_tool(ctx, params, context=context))
        wanted = asyncio.ensure_future(escalation.wanted.wait())
        try:
            await asyncio.wait(
                {call, wanted}, timeout=self.window, return_when=asyncio.FIRST_COMPLETED
            )
        except BaseException:
            call.cancel()  # the request was cancelled before the call became a task
            raise
        finally:
            wanted.cancel()
        if call.done() and (not required or _asks_before_task(call)):
            return self._plain(call.result(), ctx.protocol_version)
        escalation.wanted.set()  # from here on, every question goes to the task
        task = await self._start(ctx, params, call, escalation)
        return self._stamped({"resultType": "task", **task_wire(task)})

    async def _start(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.CallToolRequestParams,
        call: asyncio.Future[types.CallToolResult | types.InputRequiredResult],
        escalation: Escalation,
    ) -> Task:
        version = ctx.protocol_version

        async def work(control: TaskControl) -> TaskOutcome:
            escalation.attach(control)
            try:
                result = await call
            finally:
                self.waits.forget(control.task_id)
            if isinstance(result, types.InputRequiredResult):
                # A before_task question asked as the call became a task: too late.
                raise MCPError(INTERNAL_ERROR, "The tool asked for input too late.")
            return TaskOutcome(result=_served_result(result, version))

        request = {"name": params.name, "arguments": params.arguments or {}}
        owner = caller()
        quota_key, network = caller_quota(owner, ctx.request)
        try:
            return await self.runner.start(
                work,
                owner=owner,
                ttl=None,
                quota_key=quota_key,
                network=network,
                request=request,
                scopes=required_scopes(),
            )
        except BaseException as exc:
            call.cancel()
            if isinstance(exc, TaskLimitReached):
                raise protocol_error(exc) from None
            raise

    async def _get(
        self, ctx: ServerRequestContext[Any, Any], task_id: str
    ) -> dict[str, Any]:
        store, owner = self.runner.store, caller()
        task = await seen_task(store, task_id, owner)
        body = task_wire(task)
        if task.status == "input_required":
            body["inputRequests"] = dict(task.details.get("inputRequests") or {})
        elif task.status in ("completed", "failed"):
            outcome = await store.outcome(task_id, owner)
            if outcome is not None and outcome.result is not None:
                body["result"] = dict(outcome.result)
            elif outcome is not None and outcome.error is not None:
                body["error"] = dict(outcome.error)
        return body

    async def _update(
        self, ctx: ServerRequestContext[Any, Any], task_id: str
    ) -> dict[str, Any]:
        params = _params(ctx, _UpdateParams)
        store = self.runner.store
        await seen_task(store, task_id, caller())
        outstanding = self.waits.answer(task_id, params.input_responses)
        if outstanding is None:
            # The task's handler waits in another replica: the answers go there.
            await store.relay(task_id, {"inputResponses": params.input_responses})
        else:
            await self._still_asked(task_id, outstanding)
        return {}

    async def _still_asked(self, task_id: str, outstanding: Mapping[str, Any]) -> None:
        """The task's status says what is still asked before an answer is sent, so
        that the next tasks/get shows no question twice."""
        store = self.runner.store
        if outstanding:
            details = {"inputRequests": dict(outstanding)}
            await store.set_status(
                task_id, "input_required", WAITING_FOR_INPUT, details=details
            )
        else:
            await store.set_status(task_id, "working")

    def _relayed(self, task_id: str, message: Mapping[str, Any]) -> None:
        """Answers that another replica's `tasks/update` relayed to a task running
        here (its owner was checked there); answers of the wrong shape are dropped."""
        responses = message.get("inputResponses")
        if not isinstance(responses, Mapping):
            return
        try:
            outstanding = self.waits.answer(task_id, responses)
        except MCPError:
            logger.info("relayed answers for task %s had the wrong shape", task_id[:8])
            return
        if outstanding is not None:
            noting = asyncio.ensure_future(self._still_asked(task_id, outstanding))
            self._noting.add(noting)
            noting.add_done_callback(self._noting.discard)

    async def _cancel(
        self, ctx: ServerRequestContext[Any, Any], task_id: str
    ) -> dict[str, Any]:
        owner = caller()
        await seen_task(self.runner.store, task_id, owner)
        try:
            await self.runner.cancel(task_id, owner)
        except TaskAlreadyTerminal:
            pass  # SEP-2663: the same acknowledgement; the task stays as it ended
        return {}

    def _plain(
        self, result: types.CallToolResult | types.InputRequiredResult, version: str
    ) -> dict[str, Any]:
        return self._stamped(_served_result(result, version))

    def _stamped(self, body: dict[str, Any]) -> dict[str, Any]:
        """The answer with the `serverInfo` `_meta` stamp the SDK puts on every
        2026-07-28 result (a middleware's answer is sent as it is)."""
        meta = {
            **(body.get("_meta") or {}),
            SERVER_INFO_META_KEY: self.server.server_info_stamp,
        }
        return {**body, "_meta": meta}


def takes_tasks(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether this request's client capabilities include the tasks extension."""
    capabilities = ctx.session.client_capabilities
    extensions = capabilities.extensions if capabilities is not None else None
    return extensions is not None and EXTENSION in extensions


def caller() -> str:
    """Whose tasks these are: the principal of the request's access token; "" without one."""
    token = get_access_token()
    return "" if token is None else owner_of(token)


def owner_of(access: AccessToken) -> str:
    """The owner of the tasks a caller with `access` makes: its principal."""
    return PRINCIPAL + json.dumps(principal_components(access))


def task_wire(task: Task) -> dict[str, Any]:
    """The 2026-07-28 `Task`: the 2025-11-25 one with `ttlMs` and `pollIntervalMs`."""
    wire = task.to_wire()
    wire["ttlMs"] = wire.pop("ttl")
    if "pollInterval" in wire:
        wire["pollIntervalMs"] = wire.pop("pollInterval")
    return wire


def _asks_before_task(call: asyncio.Future[Any]) -> bool:
    """Whether the finished call is an MRTR round (questions before any task)."""
    return (
        not call.cancelled()
        and call.exception() is None
        and isinstance(call.result(), types.InputRequiredResult)
    )


def _served_result(result: BaseModel, version: str) -> dict[str, Any]:
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return methods.serialize_server_result("tools/call", version, dumped)


def _task_id(ctx: ServerRequestContext[Any, Any]) -> str:
    """`params.taskId`, which an HTTP request also carries as its `Mcp-Name` header
    (SEP-2663), so that a load balancer can route it without reading the body."""
    task_id: str = _params(ctx, _TaskParams).task_id
    headers: Mapping[str, str] | None = getattr(ctx.request, "headers", None)
    if (
        headers is not None
        and decode_header_value(headers.get(MCP_NAME_HEADER)) != task_id
    ):
        raise MCPError(
            HEADER_MISMATCH,
            f"{MCP_NAME_HEADER} header does not match the request body's 'taskId' parameter",
        )
    return task_id


def _params(ctx: ServerRequestContext[Any, Any], model: type[P]) -> P:
    try:
        return model.model_validate(ctx.params or {}, by_name=False)
    except ValidationError:
        raise MCPError(INVALID_PARAMS, f"Invalid params for {ctx.method}") from None


def _missing_extension(what: str) -> MCPError:
    return MCPError(
        MISSING_CAPABILITY,
        f"{what}: declare the client capability extensions['{EXTENSION}'].",
        REQUIRED_CAPABILITIES,
    )
