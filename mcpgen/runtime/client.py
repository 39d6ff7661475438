"""What a generated typed client needs: the words for protocol eras, arguments left out
or sent as null, reading results, and one exception per way a call can fail.

This module imports nothing of the server stack (no `mcp` at all, only `mcp_types` and
pydantic; the SDK's HTTP transport only when a client connects over HTTP), so a client
does not pay for the server's import time.
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Collection, Mapping, Sequence
from typing import (
    TYPE_CHECKING,
    Any,
    Final,
    Literal,
    Self,
    TypeAlias,
    TypeVar,
    overload,
)

import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError

from .client_auth import AuthorizationError, authorization_error, authorized_transport
from .client_logs import quiet_messages_after_close
from .encoding import json_path, to_json
from .eras import MODES, Mode

if TYPE_CHECKING:
    from types import TracebackType

    import httpx2
    from mcp import Client
    from mcp.client import Transport
    from mcp.shared.dispatcher import ProgressFnT

    HttpAuth: TypeAlias = "str | httpx2.Auth"

__all__ = [
    "MODES",
    "UNSET",
    "AuthorizationError",
    "Mode",
    "ToolCallError",
    "ToolOutputError",
    "Unset",
    "answered",
    "call_tool",
    "connect",
    "disconnect",
    "given",
    "http_target",
    "output_value",
    "resource_value",
    "sdk_mode",
    "structured_result",
    "to_json",
    "tool_content",
]

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

# The protocol eras, in the words of `mcpgen import --era` and the Inspector's
# `--protocol-era`, and the SDK's `mode=` for each. "modern" discovers too (a pinned
# version would skip `server/discover`, and with it serverInfo and capabilities), then
# insists on its answer (`connect`).


class Unset:
    """The type of `UNSET`: an optional argument left out, so nothing is sent and the
    server's default applies (None, where the schema allows it, sends `null`)."""

    _instance: Unset | None = None

    def __new__(cls) -> Self:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance  # type: ignore[return-value]  # the one instance, of this class

    def __bool__(self) -> Literal[False]:
        return False

    def __repr__(self) -> str:
        return "UNSET"

    def __reduce__(self) -> str:
        return "UNSET"  # pickled by name: one UNSET per process


UNSET: Final = Unset()


class ToolCallError(Exception):
    """A tool answered with `isError: true`; `message` is the text it returned."""

    def __init__(self, tool: str, message: str, result: types.CallToolResult) -> None:
        super().__init__(f"{tool}: {message}")
        self.tool = tool
        self.message = message
        self.result = result


class ToolOutputError(Exception):
    """A tool's result breaks its output schema or model: the server broke its contract.

    `path` is where, as a JSON path into the result's structuredContent (`$` for all of
    it); `result` is the result, where the SDK handed it over (None when the SDK's own
    check against the listed outputSchema refused it first).
    """

    def __init__(
        self, tool: str, path: str, message: str, result: types.CallToolResult | None
    ) -> None:
        super().__init__(f"{tool}: {path}: {message}")
        self.tool = tool
        self.path = path
        self.message = message
        self.result = result


# -- connecting ---------------------------------------------------------------------------


def sdk_mode(mode: str) -> str:
    """The SDK's `mode=` for one of `MODES`; ValueError naming them for anything else
    (the SDK's own spellings included: one vocabulary, the CLI's)."""
    if mode not in MODES:
        raise ValueError(
            f"mode must be 'auto', 'modern' or 'legacy', not {mode!r} ('modern' is "
            "2026-07-28, 'legacy' the 2025-11-25 handshake, 'auto' the newest the server speaks)"
        )
    return MODES[mode]


async def connect(client: Client, mode: str) -> None:
    """Enter `client`; for mode "modern", refuse (ConnectionError) a server that only
    speaks the 2025-11-25 handshake; AuthorizationError when it refuses the token."""
    sdk_mode(mode)
    quiet_messages_after_close()
    try:
        await answered(client.__aenter__())
    except BaseExceptionGroup as group:
        _raise_sole(group)
    if mode == "modern" and client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        version = client.protocol_version
        await disconnect(client, None, None, None)
        raise ConnectionError(
            f"the server speaks {version}, not 2026-07-28 (mode='modern'); "
            "use mode='auto' or mode='legacy'"
        )


async def disconnect(
    client: Client,
    exc_type: type[BaseException] | None,
    exc_value: BaseException | None,
    traceback: TracebackType | None,
) -> None:
    """Exit `client`. The SDK's task groups wrap whatever leaves an `async with` body in
    ExceptionGroups; here it leaves as itself, so callers catch `ToolCallError`, not a
    group of groups."""
    try:
        await client.__aexit__(exc_type, exc_value, traceback)
    except BaseExceptionGroup as group:
        if exc_value is not None and all(leaf is exc_value for leaf in _leaves(group)):
            return  # Python goes on raising exc_value, with its own traceback
        _raise_sole(group)


def http_target(url: str, auth: HttpAuth | None) -> Transport:
    """What `mcp.Client` connects to for a server at `url`: a Streamable HTTP transport
    whose requests carry `auth`, when given: a bearer token (str) or an `httpx2.Auth`
    such as the SDK's `OAuthClientProvider`, which answers a 401 with discovery,
    registration and PKCE, a 403 `insufficient_scope` by asking for more scope, and
    refreshes expired tokens. With or without `auth`, a refused request raises
    `AuthorizationError`, and a lost session is told (see client_sessions.py)."""
    return authorized_transport(url, auth)


async def answered(request: Awaitable[T]) -> T:
    """The answer to `request`, or AuthorizationError where the server refused its
    access token (the SDK's MCPError would only say "Server returned an error")."""
    try:
        return await request
    except Exception as error:
        refusal = authorization_error(error)
        if refusal is None:
            raise
        raise refusal from None


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    leaves: list[BaseException] = []
    for exception in group.exceptions:
        if isinstance(exception, BaseExceptionGroup):
            leaves += _leaves(exception)
        else:
            leaves.append(exception)
    return leaves


def _raise_sole(group: BaseExceptionGroup[BaseException]) -> None:
    """Raise the group's one exception (an AuthorizationError for a refused token),
    or the group itself when it holds several."""
    leaves = _leaves(group)
    if len(leaves) == 1:
        raise authorization_error(leaves[0]) or leaves[0]
    raise group


# -- arguments ----------------------------------------------------------------------------


def given(
    method: str, values: Mapping[str, Any], nullable: Collection[str] = ()
) -> dict[str, Any]:
    """The optional arguments that were given: UNSET is left out, None is sent as null
    where the schema allows it (`nullable`) and refused (TypeError) where it does not,
    before anything is sent."""
    for name, value in values.items():
        if value is None and name not in nullable:
            raise TypeError(
                f"{method}: {name} cannot be None (its schema does not allow null); "
                "leave it out to send nothing"
            )
    return {name: value for name, value in values.items() if value is not UNSET}


async def call_tool(
    client: Client,
    tool: str,
    arguments: BaseModel,
    on_progress: ProgressFnT | None,
) -> types.CallToolResult:
    """`client.call_tool`, with the SDK's refusal of an output that breaks the listed
    outputSchema (a RuntimeError) told as a ToolOutputError."""
    try:
        return await answered(
            client.call_tool(tool, to_json(arguments), progress_callback=on_progress)
        )
    except RuntimeError as error:
        output_error = _output_error(tool, error)
        if output_error is None:
            raise
        raise output_error from error


def _output_error(tool: str, error: RuntimeError) -> ToolOutputError | None:
    # The SDK raises from jsonschema's ValidationError (ClientSession.validate_tool_result),
    # read here by its attributes: the generated package does not depend on jsonschema.
    cause = error.__cause__
    where = getattr(cause, "absolute_path", None)
    message = getattr(cause, "message", None)
    if where is not None and isinstance(message, str):
        return ToolOutputError(tool, json_path(part for part in where), message, None)
    if str(error).endswith("did not return structured content"):
        return ToolOutputError(tool, "$", "the result has no structuredContent", None)
    return None


# -- results ------------------------------------------------------------------------------


def structured_result(tool: str, result: types.CallToolResult, wrapped: bool) -> Any:
    """The structured content of a successful call (unwrapped from `{"result": ...}`
    when `wrapped`); ToolCallError for an `isError` result, ToolOutputError for one
    without structuredContent."""
    if result.is_error:
        text = "\n".join(
            block.text
            for block in result.content
            if isinstance(block, types.TextContent)
        )
        raise ToolCallError(tool, text or "the tool reported an error", result)
    content = result.structured_content
    if content is None or (wrapped and "result" not in content):
        raise ToolOutputError(tool, "$", "the result has no structuredContent", result)
    return content["result"] if wrapped else content


def output_value(
    tool: str, result: types.CallToolResult, model: type[M], wrapped: bool
) -> M:
    """The structured content of a successful call as the tool's output model;
    ToolOutputError, naming where, for content the model refuses."""
    value = structured_result(tool, result, wrapped)
    try:
        return model.model_validate(value)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = _located(value, first["loc"])
        path = json_path(["result", *where] if wrapped else where)
        raise ToolOutputError(tool, path, first["msg"], result) from None


def _located(value: Any, location: Sequence[str | int]) -> list[str | int]:
    """The part of pydantic's error location that is in the value: it also names the
    members of a union it tried (`int`, `list[int]`), which are no keys."""
    path: list[str | int] = []
    for part in location:
        in_dict = isinstance(value, dict) and part in value
        in_list = (
            isinstance(value, list) and isinstance(part, int) and part < len(value)
        )
        if not (in_dict or in_list):
            break
        value = value[part]
        path.append(part)
    return path


def tool_content(tool: str, result: types.CallToolResult) -> list[types.ContentBlock]:
    """The content of a successful call to a tool without an outputSchema;
    ToolCallError for an `isError` result."""
    if result.is_error:
        structured_result(tool, result, wrapped=False)
    return list(result.content)


@overload
def resource_value(
    result: types.ReadResourceResult, content_model: None
) -> str | bytes: ...


@overload
def resource_value(result: types.ReadResourceResult, content_model: type[M]) -> M: ...


def resource_value(
    result: types.ReadResourceResult, content_model: type[BaseModel] | None
) -> Any:
    """The first content item of a read: parsed as JSON into the content model, or
    else `str` for text and `bytes` for a (base64) blob."""
    item = result.contents[0]
    if isinstance(item, types.BlobResourceContents):
        data = base64.b64decode(item.blob)
        return content_model.model_validate_json(data) if content_model else data
    return content_model.model_validate_json(item.text) if content_model else item.text
