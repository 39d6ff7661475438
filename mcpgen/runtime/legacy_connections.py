"""What a generated server keeps per 2025-11-25 connection, and how notifications reach it.

A 2025-11-25 client holds a connection (a session over HTTP, or stdio) whose standalone
channel (the GET stream) carries notifications outside any call; it subscribes to
resources with `resources/subscribe` and sets its log level with `logging/setLevel`.
(2026-07-28 clients have none of this: they listen with `subscriptions/listen` and choose
a log level per request.) Connections are held weakly: a closed one drops out.
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable
from typing import Any, get_args

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.subscriptions import (
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ServerEvent,
    ToolsListChanged,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from .log import logger

# What a connection is told a list changed with.
_LIST_CHANGED_SENDS = {
    ToolsListChanged: "send_tool_list_changed",
    PromptsListChanged: "send_prompt_list_changed",
    ResourcesListChanged: "send_resource_list_changed",
}
# From least to most severe (the order the type lists them in): a level lets itself
# and everything after it through.
_LOG_LEVELS: tuple[types.LoggingLevel, ...] = get_args(types.LoggingLevel)


class LegacyConnections:
    """This process's 2025-11-25 connections: `remember` is the middleware that notes
    them, `subscribe`/`unsubscribe`/`set_logging_level` the request handlers, `send`
    what delivers an event to those that want it."""

    def __init__(self) -> None:
        self._connections: weakref.WeakSet[Any] = weakref.WeakSet()
        self._subscribed: weakref.WeakKeyDictionary[Any, set[str]] = (
            weakref.WeakKeyDictionary()
        )
        self._log_levels: weakref.WeakKeyDictionary[Any, types.LoggingLevel] = (
            weakref.WeakKeyDictionary()
        )

    async def remember(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self._connections.add(_connection(ctx))
        return await call_next(ctx)

    async def subscribe(
        self, ctx: ServerRequestContext[Any, Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        self._subscribed.setdefault(_connection(ctx), set()).add(str(params.uri))
        return types.EmptyResult()

    async def unsubscribe(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.UnsubscribeRequestParams,
    ) -> types.EmptyResult:
        self._subscribed.get(_connection(ctx), set()).discard(str(params.uri))
        return types.EmptyResult()

    async def set_logging_level(
        self, ctx: ServerRequestContext[Any, Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        self._log_levels[_connection(ctx)] = params.level
        return types.EmptyResult()

    def log_level_allows(self, session: Any, level: types.LoggingLevel) -> bool:
        """Whether the `logging/setLevel` of `session`'s connection lets `level` through."""
        threshold = self._log_levels.get(getattr(session, "_connection", None))
        return threshold is None or _LOG_LEVELS.index(level) >= _LOG_LEVELS.index(
            threshold
        )

    async def send(self, event: ServerEvent) -> None:
        """Send `event` to the connections that want it: a resource update to those
        subscribed to its URI, a list change to all."""
        if isinstance(event, ResourceUpdated):
            for connection in [
                c for c, uris in list(self._subscribed.items()) if event.uri in uris
            ]:
                await _quietly(connection.send_resource_updated(event.uri))
            return
        send = _LIST_CHANGED_SENDS[type(event)]
        for connection in list(self._connections):
            await _quietly(getattr(connection, send)())


def _connection(ctx: ServerRequestContext[Any, Any]) -> Any:
    # mcp 2.3.0 offers no public handle on a request's connection; its session keeps one.
    return ctx.session._connection


async def _quietly(send: Awaitable[None]) -> None:
    """Send a notification to a connection that may have gone away meanwhile."""
    try:
        await send
    except Exception:  # noqa: BLE001
        # A closed connection cannot be told anything, and that is fine.
        logger.debug("a notification could not be delivered", exc_info=True)
