"""Listing a running server with the SDK's own client: every page of the four lists.

The server is a stdio command line or a Streamable HTTP URL. `era` picks the protocol:
"auto" (2026-07-28, falling back to the 2025-11-25 handshake for servers that lack it, as
the SDK's client does), "modern" or "legacy". What the client's types hold is dumped as
it was sent (`exclude_unset`): a key the server left out stays out, a `null` it sent stays.
A list entry's keys that the SDK's types do not declare never reach us; a capture file
keeps them (and the import reports them).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Awaitable, Callable
from typing import Any

from mcpgen.importer.capture import LISTS, Capture, SourceError
from mcpgen.terminal import shown

# The client's `mode` per era. "modern" discovers too (a pinned version would skip
# `server/discover`, and with it serverInfo and capabilities), then insists on its result.
ERAS = {"auto": "auto", "modern": "auto", "legacy": "legacy"}


def _wire(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(by_alias=True, exclude_unset=True, mode="json")
    return dumped


async def _all_pages(method: str, fetch: Callable[[str | None], Awaitable[Any]], field: str) -> list[dict[str, Any]]:
    """Every item of one list, following `nextCursor`; a cursor that comes back again stops it."""
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    seen: set[str] = set()
    while True:
        page = await fetch(cursor)
        items.extend(_wire(item) for item in getattr(page, field))
        cursor = page.next_cursor
        if cursor is None:
            return items
        if cursor in seen:
            raise SourceError(f"{method}: the server sent the cursor {cursor!r} twice; its pages never end")
        seen.add(cursor)


async def _list(client: Any, era: str) -> Capture:
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    if era == "modern" and client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        raise SourceError(f"the server speaks {client.protocol_version}, not 2026-07-28; try --era legacy")
    capabilities = client.server_capabilities
    info = client.server_info
    if info is None:
        raise SourceError("the server did not say its name and version (serverInfo); try --era legacy")
    capture: Capture = {
        "serverInfo": _wire(info),
        "capabilities": _wire(capabilities),
    }
    if client.instructions:
        capture["instructions"] = client.instructions
    fetchers: dict[str, tuple[Any, Callable[[str | None], Awaitable[Any]], str]] = {
        "tools": (
            capabilities.tools,
            lambda c: client.list_tools(cursor=c, cache_mode="bypass"),
            "tools",
        ),
        "resources": (
            capabilities.resources,
            lambda c: client.list_resources(cursor=c, cache_mode="bypass"),
            "resources",
        ),
        "resourceTemplates": (
            capabilities.resources,
            lambda c: client.list_resource_templates(cursor=c, cache_mode="bypass"),
            "resource_templates",
        ),
        "prompts": (
            capabilities.prompts,
            lambda c: client.list_prompts(cursor=c, cache_mode="bypass"),
            "prompts",
        ),
    }
    for key, (announced, fetch, field) in fetchers.items():
        if announced is not None:  # a server that does not announce a list may not answer it
            capture[key] = await _all_pages(LISTS[key], fetch, field)
    return capture


def _leaf_errors(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaf_errors(inner)]
    return [error]


def list_server(target: str, stdio: bool, era: str = "auto", timeout: float = 60.0) -> Capture:
    """What the server at `target` (a command line if `stdio`, else a URL) lists, as a capture.
    The command runs with this process's environment, as the user's shell would run it.
    """
    import anyio
    from mcp import Client, StdioServerParameters

    server: Any = target
    if stdio:
        words = shlex.split(target)
        if not words:
            raise SourceError("--stdio: the command line is empty")
        server = StdioServerParameters(command=words[0], args=words[1:], env=dict(os.environ))

    async def run() -> Capture:
        with anyio.fail_after(timeout):
            async with Client(server, mode=ERAS[era], read_timeout_seconds=timeout, cache=None) as client:
                return await _list(client, era)

    try:
        return anyio.run(run)
    except SourceError as error:
        raise SourceError(f"{shown(target)}: error: {shown(str(error))}") from None
    except Exception as exc:  # whatever the transport or the server did, the user gets a sentence
        reasons = "; ".join(f"{type(leaf).__name__}: {leaf}".rstrip(": ") for leaf in _leaf_errors(exc))
        if isinstance(exc, TimeoutError):
            reasons = f"no complete answer within {timeout:g} s"
        # The server's own words are quoted: escaped, so they cannot drive the terminal.
        raise SourceError(f"{shown(target)}: error: cannot list the server: {shown(reasons)}") from None
