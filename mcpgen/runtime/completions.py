"""`completion/complete`: values from the spec, filtered by prefix, or from a handler."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from .context import Context
from .errors import INTERNAL_ERROR
from .guard import HandlerTimedOut, call_handler
from .limits import limits_of
from .log import logger

if TYPE_CHECKING:  # server.py imports this module
    from .server import GeneratedServer

MAX_VALUES = 100
"""The protocol's limit on the values of one completion result."""

CompletionValues = Mapping[tuple[str, str], Mapping[str, Sequence[str]]]
"""The spec's values: (`"prompt"`, prompt name) or (`"resource"`, URI template) ->
argument or variable name -> values."""

CompletionHandler = Callable[
    [str, str, str, str, dict[str, str], Context], Awaitable[Sequence[str] | None]
]
"""`await complete(ref_type, ref, argument, value, context, ctx)`: `ref_type` is
`"prompt"` (`ref` the prompt's name) or `"resource"` (`ref` the URI template),
`value` what was typed so far, `context` the other arguments already given. It
returns the values, or None for the spec's values filtered by the prefix `value`."""


class CompletionTable:
    """What a server completes: the spec's values, or the handler's."""

    server: GeneratedServer | None = None

    def __init__(
        self, values: CompletionValues, complete: CompletionHandler | None
    ) -> None:
        self.values = values
        self.handler = complete

    async def complete(
        self, ctx: ServerRequestContext[Any, Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        ref = params.ref
        key = (
            ("prompt", ref.name)
            if isinstance(ref, types.PromptReference)
            else ("resource", ref.uri)
        )
        name, prefix = params.argument.name, params.argument.value
        found: Sequence[str] | None = None
        handler = self.handler
        if handler is not None:
            context = dict(params.context.arguments or {}) if params.context else {}
            try:
                found = await call_handler(
                    lambda: handler(
                        key[0], key[1], name, prefix, context, Context(ctx, self.server)
                    ),
                    limits_of(self.server).handler_timeout,
                )
            except MCPError:
                raise
            except HandlerTimedOut as exc:
                logger.warning("completing %r %s, and was cancelled", key[1], exc)
                raise MCPError(
                    INTERNAL_ERROR, f"Completion timed out after {exc.timeout:g} s."
                ) from None
            except Exception:  # noqa: BLE001
                # A crash, SystemExit included (see guard.py): the server keeps serving.
                # Never leak exception text or tracebacks to the client: log them here.
                logger.exception("completing %r failed", key[1])
                raise MCPError(
                    INTERNAL_ERROR, "Completion failed with an internal error."
                ) from None
        if found is None:
            found = [
                value
                for value in self.values.get(key, {}).get(name, ())
                if value.startswith(prefix)
            ]
        values = list(found)
        return types.CompleteResult(
            completion=types.Completion(
                values=values[:MAX_VALUES],
                total=len(values),
                has_more=len(values) > MAX_VALUES,
            )
        )
