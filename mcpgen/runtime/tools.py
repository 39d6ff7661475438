"""Tools: `tools/list` from schema.json, and `tools/call` checked against the spec.

`tools/list` is answered with schema.json's own payload (`ListFromSchema`), ahead of
the SDK's per-answer re-check of every tool.

A call's arguments are checked against the tool's inputSchema (JSON Schema 2020-12),
then validated into the tool's input model; a failure is an `isError` result or a
-32602 error, as the spec's `invalid_arguments` says. The handler's value is checked
against the outputSchema before it is served (see `validation.conform`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import SERVER_INFO_META_KEY, methods
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from .content import ToolResult
from .context import Context, InputRequired
from .errors import INTERNAL_ERROR, INVALID_PARAMS, ToolError
from .guard import HandlerTimedOut, call_handler
from .limits import bounded, clip, limits_of
from .log import logger
from .model_ref import ModelRef, model_of
from .pagination import Pages
from .task_escalation import ModernTaskContext
from .tasks import TaskContext
from .validation import (
    FULL_REPORT_VALUES,
    ArgumentsTooCostly,
    Report,
    SchemaValidators,
    conform,
    typed,
)

if TYPE_CHECKING:  # server.py imports this module
    from .server import GeneratedServer

TaskSupport = Literal["forbidden", "optional", "required"]

# The contexts of calls that a task's own time bounds (TaskLimits), not the handler timeout.
TASK_CONTEXTS = (TaskContext, ModernTaskContext)

InvalidArguments = Literal["tool_error", "protocol_error"]
"""How invalid tool arguments are answered: an `isError` result the model can read
(`tool_error`, the current spec) or a JSON-RPC -32602 error (`protocol_error`)."""


@dataclass(frozen=True)
class ToolBinding:
    """How the tool of one name (a key of `build_server(tools=...)`) is served.

    `call(arguments, ctx)` is the handler: `arguments` is an instance of `input_model`
    (a model class, or a function returning it: see `model_ref`),
    `ctx` the request's `Context`. With an `output_model` (the tool has an
    outputSchema) it returns a value of that model, or a `ToolResult` of one; it is
    served as `structuredContent` and as JSON text. Without, it returns `ToolContent`
    (text, a content block, or a list of them). `wrapped=True` marks an output that is
    not an object: the value is served as `{"result": value}`. `task_support` is the
    tool's `execution.taskSupport` in the spec: whether it may be called as a task.
    """

    call: Callable[[Any, Context], Awaitable[Any]]
    input_model: ModelRef
    output_model: ModelRef | None = None
    _: KW_ONLY
    wrapped: bool = False
    task_support: TaskSupport = "forbidden"

    def __post_init__(self) -> None:
        if self.wrapped and self.output_model is None:
            raise ValueError("ToolBinding(wrapped=True) needs an output_model")


# What a `ListToolsResult` model adds by default (the 2026-07-28 `ttlMs`, `cacheScope`
# and `resultType`), taken from the model so that a dict result says the same; the SDK
# drops what an older protocol version lacks.
_LIST_RESULT_DEFAULTS = {
    key: value
    for key, value in types.ListToolsResult(tools=[])
    .model_dump(by_alias=True, mode="json", exclude_none=True)
    .items()
    if key != "tools"
}


class ToolTable:
    """The tools a server serves: `tools/list` and `tools/call`."""

    server: GeneratedServer | None = None

    def __init__(
        self,
        tools: Sequence[Mapping[str, Any]],
        bindings: Mapping[str, ToolBinding],
        invalid_arguments: InvalidArguments,
        page_size: int | None,
    ) -> None:
        """`tools` as schema.json lists them (wire JSON), in order; `bindings` has one
        per tool name."""
        self.pages = Pages(tools, page_size)
        # 2026-07-28's Tool has no `execution` (its tasks extension leaves the choice
        # to the server, call by call): that era's list leaves it out, as the SDK would.
        self.modern_pages = (
            Pages([_without_execution(tool) for tool in tools], page_size)
            if any("execution" in tool for tool in tools)
            else self.pages
        )
        self.tools = {tool["name"]: tool for tool in tools}
        self.bindings = dict(bindings)
        for name, tool in self.tools.items():
            has_output = tool.get("outputSchema") is not None
            if has_output != (self.bindings[name].output_model is not None):
                raise ValueError(
                    f"tool {name!r}: an output_model is needed exactly when "
                    "schema.json gives the tool an outputSchema"
                )
        self.input_validators = SchemaValidators(
            {name: tool["inputSchema"] for name, tool in self.tools.items()}
        )
        self.output_validators = SchemaValidators(
            {
                name: tool["outputSchema"]
                for name, tool in self.tools.items()
                if tool.get("outputSchema") is not None
            }
        )
        self.arguments_are_protocol_errors = invalid_arguments == "protocol_error"

    def input_schema(self, name: str) -> Mapping[str, Any] | None:
        """The inputSchema of a tool (the SDK checks 2026-07-28 HTTP headers with it)."""
        tool = self.tools.get(name)
        return tool["inputSchema"] if tool else None

    async def list_tools(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.PaginatedRequestParams | None,
    ) -> dict[str, Any]:
        """The SDK's handler of `tools/list`, for what `ListFromSchema` leaves to it.
        A dict result: the SDK checks it against the protocol version's schema as it
        would a model, and `Tool` models of hundreds of large schemas, made only to be
        turned back into dicts, were most of the time to the first answer."""
        return self.list_page(params, ctx.protocol_version)

    def list_page(
        self, params: types.PaginatedRequestParams | None, version: str
    ) -> dict[str, Any]:
        """A page of the list as schema.json has it (2026-07-28's without `execution`),
        with the result envelope of the protocol `version` (2026-07-28's `ttlMs`,
        `cacheScope` and `resultType`)."""
        modern = version in MODERN_PROTOCOL_VERSIONS
        pages = self.modern_pages if modern else self.pages
        tools, following = pages.page(params)
        page: dict[str, Any] = (
            {**_LIST_RESULT_DEFAULTS, "tools": tools} if modern else {"tools": tools}
        )
        if following is not None:
            page["nextCursor"] = following
        return page

    async def call_tool(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.CallToolRequestParams,
        *,
        context: Context | None = None,
    ) -> types.CallToolResult | types.InputRequiredResult:
        """The SDK's handler of `tools/call`. `context` is the handler's `Context`
        when the caller makes its own (None: `Context(ctx, server)`); a call that runs
        as a task passes a `tasks.TaskContext` (a 2026-07-28 call that may become one,
        a `task_escalation.ModernTaskContext`), whose task's own time bounds replace
        the handler timeout."""
        name = params.name
        binding = self.bindings.get(name)
        if binding is None:
            # An unknown tool is a protocol error (the SDK's MCPServer says isError).
            name = clip(name, limits_of(self.server).quote_chars)
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {name}", {"tool": name})
        arguments = params.arguments or {}
        limits = limits_of(self.server)
        # The JSON Schema first: it is what the client saw, and its messages say so.
        try:
            report = self.input_validators[name].violations(
                arguments, limits.pattern_budget
            )
        except ArgumentsTooCostly as exc:
            return self._too_costly(name, exc.args[0])
        if report:
            return self._invalid_arguments(name, report)
        args = typed(model_of(binding.input_model), arguments, f"tool {name!r}")
        try:
            value = await call_handler(
                lambda: binding.call(args, context or Context(ctx, self.server)),
                None if isinstance(context, TASK_CONTEXTS) else limits.handler_timeout,
            )
        except InputRequired as asking:
            return asking.result
        except ToolError as exc:
            return error_result(str(exc))
        except MCPError:
            raise
        except HandlerTimedOut as exc:
            logger.warning("tool %r %s, and was cancelled", name, exc)
            return error_result(f"Tool '{name}' timed out after {exc.timeout:g} s.")
        except Exception:  # noqa: BLE001
            # A crash, SystemExit included (see guard.py): the server keeps serving.
            # Never leak exception text or tracebacks to the client: log them here.
            logger.exception("tool %r failed", name)
            return error_result(f"Tool '{name}' failed with an internal error.")
        if binding.output_model is None:
            return types.CallToolResult(content=content_blocks(value, name))
        if isinstance(value, ToolResult):
            extra = content_blocks(value.content, name)
            return self._structured(name, binding, value.value, extra)
        return self._structured(name, binding, value, [])

    def _invalid_arguments(self, name: str, report: Report) -> types.CallToolResult:
        # A violation quotes the value: bound what a huge or much-broken value costs.
        limits = limits_of(self.server)
        header = f"Invalid arguments for tool '{name}':"
        shown, left_out = bounded(
            report.lines, limits, limits.max_error_chars - len(header)
        )
        lines = [header, *(f"- {v}" for v in shown)]
        if left_out:
            lines.append(f"({left_out} more not shown)")
        if not report.complete:
            lines.append(
                f"(the arguments hold more than {FULL_REPORT_VALUES:,} values: "
                "only the first violation found is shown)"
            )
        data: dict[str, Any] = {"tool": name, "errors": shown}
        if left_out:
            data["more"] = left_out
        if not report.complete:
            data["complete"] = False
        return self._refused(name, "\n".join(lines), data)

    def _too_costly(self, name: str, budget: float) -> types.CallToolResult:
        logger.warning(
            "tool %r: arguments refused, their patterns took over %g s to check",
            name,
            budget,
        )
        message = (
            f"Invalid arguments for tool '{name}': they could not be checked within "
            f"{budget * 1000:g} ms (matching patterns that need backtracking); "
            "send fewer or shorter strings."
        )
        return self._refused(name, message, {"tool": name, "errors": []})

    def _refused(
        self, name: str, message: str, data: dict[str, Any]
    ) -> types.CallToolResult:
        """Arguments refused, as the spec's `invalid_arguments` says."""
        if self.arguments_are_protocol_errors:
            raise MCPError(INVALID_PARAMS, message, data)
        return error_result(message)

    def _structured(
        self,
        name: str,
        binding: ToolBinding,
        value: Any,
        extra: list[types.ContentBlock],
    ) -> types.CallToolResult:
        assert binding.output_model is not None
        structured = conform(
            model_of(binding.output_model),
            self.output_validators[name],
            value,
            f"tool {name!r}",
            wrap=binding.wrapped,
            pattern_budget=limits_of(self.server).pattern_budget,
        )
        # The spec asks for the JSON as text too, for clients that only read content.
        serialized = types.TextContent(text=json.dumps(structured, ensure_ascii=False))
        return types.CallToolResult(
            content=[serialized, *extra], structured_content=structured
        )


_CONTENT_ITEMS = (str, *get_args(types.ContentBlock))


# The protocol versions whose `Tool` has a place for everything schema.json may hold.
# Earlier ones lack fields (`title`, `icons`, `outputSchema`...), which the SDK drops.
VERBATIM_VERSIONS = frozenset({"2025-11-25", "2026-07-28"})


class ListFromSchema:
    """Server middleware: `tools/list` answered with schema.json's payload as it is.

    The SDK checks every list answer against the protocol version's schema by
    validating it into models and dumping them again, a cost that grows with every tool
    of every answer. schema.json's tools are
    wire JSON that mcpgen wrote from a checked spec, and the answer is made of them and
    of the envelope the SDK would add (`ListToolsResult`'s defaults, the serverInfo
    `_meta` stamp), so that check would only spend the time. It would also drop `null`s
    at the top level of a schema or in `_meta` values, which schema.json keeps.

    Only requests that the SDK would answer with a page are answered here: any other
    method, a protocol version in which `Tool` lacks fields, params that the SDK refuses,
    a 2025-11-25 connection not yet initialized, or a cache hint set for the method go
    on to the SDK, whose own answer or error they get.
    """

    def __init__(self, table: ToolTable, server: GeneratedServer) -> None:
        self.table = table
        self.server = server

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        version = ctx.protocol_version
        if (
            ctx.method != "tools/list"
            or version not in VERBATIM_VERSIONS
            or "tools/list" in self.server.cache_hints
            # mcp 2.3.0 offers no public handle on a request's connection.
            or not ctx.session._connection.initialize_accepted
        ):
            return await call_next(ctx)
        try:
            methods.validate_client_request("tools/list", version, ctx.params)
            params = types.PaginatedRequestParams.model_validate(
                ctx.params or {}, by_name=False
            )
        except ValidationError:
            return await call_next(ctx)  # for the SDK's own error
        page = self.table.list_page(params, version)
        if version in MODERN_PROTOCOL_VERSIONS:
            page["_meta"] = {SERVER_INFO_META_KEY: self.server.server_info_stamp}
        return page


def _without_execution(tool: Mapping[str, Any]) -> Mapping[str, Any]:
    return {key: value for key, value in tool.items() if key != "execution"}


def content_blocks(value: Any, tool: str) -> list[types.ContentBlock]:
    """Content blocks from what a tool returned: text, a block, or a sequence of them.

    Anything else is logged and becomes an internal error (-32603).
    """
    items = [value] if isinstance(value, _CONTENT_ITEMS) else value
    if isinstance(items, Sequence) and all(
        isinstance(item, _CONTENT_ITEMS) for item in items
    ):
        return [
            types.TextContent(text=item) if isinstance(item, str) else item
            for item in items
        ]
    logger.error(
        "tool %r returned %s, not text or content blocks", tool, type(value).__name__
    )
    raise MCPError(
        INTERNAL_ERROR, f"Tool '{tool}' produced a result of the wrong type."
    )


def error_result(message: str) -> types.CallToolResult:
    """A tool result with `isError: true` and `message` as its text."""
    return types.CallToolResult(
        content=[types.TextContent(text=message)], is_error=True
    )
