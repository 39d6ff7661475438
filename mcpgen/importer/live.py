"""Listing a running server with the SDK's own client: every page of the four lists.

The server is a stdio command line or a Streamable HTTP URL. `era` picks the protocol:
"auto" (2026-07-28, falling back to the 2025-11-25 handshake for servers that lack it, as
the SDK's client does), "modern" or "legacy". What the client's types hold is dumped as
it was sent (`exclude_unset`): a key the server left out stays out, a `null` it sent stays.
A list entry's keys that the SDK's types do not declare never reach us; a capture file
keeps them (and the import reports them).

The server is not trusted (see `bounds.py`): the client reads through transports that
count every byte (`transports.py`), the pages of a list are capped, and the whole listing
runs under what remains of the import's deadline.
"""

from __future__ import annotations

import logging
import re
import shlex
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from mcpgen.importer.bounds import Budget, Deadline, Limits
from mcpgen.importer.capture import LISTS, Capture, SourceError
from mcpgen.runtime.eras import MODES
from mcpgen.utils import progress
from mcpgen.utils.terminal import shown

# The SDK client's `mode` per era, in the words of the generated typed client, so that
# `--era` and `mode=` are one vocabulary. "modern" discovers too, then insists on its result.
ERAS = MODES


def _wire(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(by_alias=True, exclude_unset=True, mode="json")
    return dumped


class _Reading:
    """What the client is waiting for, to say where a bound was broken."""

    def __init__(self) -> None:
        self.now = "the handshake"


async def _all_pages(
    method: str, fetch: Callable[[str | None], Awaitable[Any]], field: str, max_pages: int, reading: _Reading
) -> list[dict[str, Any]]:
    """Every item of one list, following `nextCursor`; a cursor that comes back again, or
    more than `max_pages` pages, stops it."""
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    seen: set[str] = set()
    for number in range(1, max_pages + 1):
        reading.now = method if number == 1 else f"{method} (page {number})"
        progress.stage(reading.now)
        page = await fetch(cursor)
        items.extend(_wire(item) for item in getattr(page, field))
        progress.stage(reading.now, about=f"{len(items)} {method.split('/')[-2]}")
        cursor = page.next_cursor
        if cursor is None:
            return items
        if cursor in seen:
            raise SourceError(f"{method}: the server sent the cursor {cursor!r} twice; its pages never end")
        seen.add(cursor)
    raise SourceError(
        f"{method}: the pages did not end after --max-pages {max_pages}; stopped "
        "(raise --max-pages if this server really has that many)"
    )


async def _list(client: Any, era: str, max_pages: int, reading: _Reading) -> Capture:
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
            capture[key] = await _all_pages(LISTS[key], fetch, field, max_pages, reading)
    return capture


def _leaf_errors(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaf_errors(inner)]
    return [error]


def _one_line(text: str) -> str:
    """An error's text on one line (pydantic's, for one, spans several)."""
    return " ".join(text.split())


@contextmanager
def _sdk_logging_quiet() -> Iterator[None]:
    """The SDK logs what it survives (a line that is not JSON, a body it cannot parse) with
    a traceback, which Python's last-resort handler would print; the import says it in one
    line of its own instead."""
    logger = logging.getLogger("mcp")
    quiet = logging.NullHandler()
    propagate = logger.propagate
    logger.addHandler(quiet)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(quiet)
        logger.propagate = propagate


# `NAME=value`, as the shell reads an assignment before a command.
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def command_line(text: str) -> tuple[dict[str, str], list[str]]:
    """`--stdio`'s text as the shell and `env` read it: the environment that its leading
    `KEY=VALUE` words set, and the command's words. SourceError when no command is left."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise SourceError(f"{shown(text)}: error: --stdio: {error}") from None
    environment: dict[str, str] = {}
    while words and _ASSIGNMENT.match(words[0]):
        key, value = words.pop(0).split("=", 1)
        environment[key] = value
    if not words:
        what = "no command after the environment" if environment else "the command line is empty"
        raise SourceError(f"{shown(text)}: error: --stdio: {what}; give one, e.g. \"KEY=VALUE python server.py\"")
    return environment, words


def list_server(
    target: str, stdio: bool, era: str = "auto", limits: Limits | None = None, deadline: Deadline | None = None
) -> Capture:
    """What the server at `target` (a command line if `stdio`, else a URL) lists, as a capture,
    within `limits` and what remains of `deadline` (the whole of `limits.timeout` if None).
    The command runs with this process's environment and the assignments it starts with
    (`KEY=VALUE python server.py`), as the user's shell would run it."""
    import anyio
    from mcp import Client

    # Imported here, not with the CLI: they bring the SDK's client, a large import that a
    # build, or an import from a capture, does not need.
    from mcpgen.importer.transports import StdioNotes, counted_http, counted_stdio

    limits = limits or Limits()
    deadline = deadline or Deadline(limits.timeout)
    budget = Budget(limits.max_bytes)
    notes = StdioNotes()
    reading = _Reading()
    environment, words = command_line(target) if stdio else ({}, [])

    async def run() -> Capture:
        seconds = max(deadline.remaining(), 0)
        with anyio.fail_after(seconds):
            server = (
                counted_stdio(words, environment, budget, notes, deadline)
                if stdio
                else counted_http(target, budget, seconds)
            )
            async with Client(server, mode=ERAS[era], cache=None) as client:
                return await _list(client, era, limits.max_pages, reading)

    try:
        with _sdk_logging_quiet():
            return anyio.run(run)
    except SourceError as error:
        raise SourceError(f"{shown(target)}: error: {shown(str(error))}") from None
    except Exception as exc:  # whatever the transport or the server did, the user gets a sentence
        if budget.broken is not None:
            raise SourceError(f"{shown(target)}: error: {shown(reading.now)}: {budget.broken}") from None
        leaves = _leaf_errors(exc)
        ours = [leaf for leaf in leaves if isinstance(leaf, SourceError)]
        if ours:  # raised by `_list` inside the client's task groups, which wrapped it
            raise SourceError(f"{shown(target)}: error: {shown(str(ours[0]))}") from None
        if any(isinstance(leaf, TimeoutError) for leaf in leaves):
            reasons = f"no complete answer to {reading.now} within {deadline.seconds:g} s"
        else:
            reasons = f"{reading.now}: " + "; ".join(f"{type(leaf).__name__}: {leaf}".rstrip(": ") for leaf in leaves)
        also = notes.sentence()
        if also:
            reasons += f" ({also})"
        # The server's own words are quoted: escaped, so they cannot drive the terminal.
        raise SourceError(f"{shown(target)}: error: cannot list the server: {shown(_one_line(reasons))}") from None
