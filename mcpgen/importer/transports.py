"""The SDK client's transports, with every byte the server sends counted (`Budget`) as it
is read, before it is decoded into JSON-RPC.

Streamable HTTP: the SDK takes an `httpx2.AsyncClient`; ours has a transport that hands
each response body on already decoded by httpx2's own decoders (which inflate gzip,
deflate, brotli and zstd in pieces of at most 1 MiB), counting the pieces, so a gzip bomb
is stopped after one piece past the cap, never inflated whole.

stdio: the SDK's `stdio_client` reads the server's stdout itself and gathers a line until
its newline, however long, with no hook on the bytes; so the server is run here, on the
same terms (its own process group, stderr inherited, stdin closed then the group killed
on the way out, with the SDK's own tree kill), and its stdout is split into lines as the
chunks arrive, each chunk counted first. A line that is not JSON-RPC is skipped, as the
SDK skips it, and remembered for the error should the import then fail.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any

import anyio
import httpx2
import mcp_types as types
from anyio.abc import Process
from mcp.shared.message import SessionMessage

from mcpgen.importer.bounds import Budget, Deadline, OverBudget

# --- Streamable HTTP -----------------------------------------------------------------------------

# Headers that describe the body as sent; ours is handed on decoded.
_ENCODING_HEADERS = frozenset({"content-encoding", "content-length"})


class _DecodedBody(httpx2.AsyncByteStream):
    def __init__(self, response: httpx2.Response, budget: Budget) -> None:
        self._response = response
        self._budget = budget

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for piece in self._response.aiter_bytes():
            self._budget.take(len(piece))
            yield piece

    async def aclose(self) -> None:
        await self._response.aclose()


class _CountingTransport(httpx2.AsyncBaseTransport):
    """httpx2's own transport, its response bodies decoded and counted on the way out."""

    def __init__(self, budget: Budget) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self._budget = budget

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        response.request = request
        headers = [(key, value) for key, value in response.headers.multi_items() if key.lower() not in _ENCODING_HEADERS]
        return httpx2.Response(
            response.status_code,
            headers=headers,
            stream=_DecodedBody(response, self._budget),
            request=request,
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


@asynccontextmanager
async def counted_http(url: str, budget: Budget, timeout: float) -> AsyncIterator[Any]:
    """The SDK's Streamable HTTP transport to `url`, reading through a counting client.
    One SSE event may be as large as the whole budget (the SDK's own cap is 1 MiB)."""
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(transport=_CountingTransport(budget), timeout=timeout) as client:
        async with streamable_http_client(url, http_client=client, max_sse_event_size=budget.max_bytes) as streams:
            yield streams


# --- stdio ---------------------------------------------------------------------------------------

# As the SDK's stdio client: the server may take this long to exit once its stdin closes.
_EXIT_GRACE = 2.0
_KILL_GRACE = 2.0


class StdioNotes:
    """What a stdio server wrote that was not JSON-RPC: how many lines, and the first."""

    def __init__(self) -> None:
        self.count = 0
        self.first = b""

    def add(self, line: bytes) -> None:
        self.count += 1
        if self.count == 1:
            self.first = line[:80]

    def sentence(self) -> str | None:
        if not self.count:
            return None
        lines = "a line" if self.count == 1 else f"{self.count} lines"
        return f"the server wrote {lines} on stdout that {'is' if self.count == 1 else 'are'} not JSON-RPC, first {self.first!r}"


def _message(line: bytes, notes: StdioNotes) -> SessionMessage | None:
    if not line.strip():
        return None
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError:
        notes.add(line)
        return None


@asynccontextmanager
async def counted_stdio(
    command: Sequence[str], environment: Mapping[str, str], budget: Budget, notes: StdioNotes, deadline: Deadline
) -> AsyncIterator[Any]:
    """Streams to and from the stdio server `command`, run with this process's environment
    and `environment` (see the module), for `mcp.Client`. On the way out the server gets
    what remains of `deadline` to exit, and none past it: a server the import gave up on
    is killed at once, so `--timeout` holds."""
    process = await anyio.open_process(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=None,
        start_new_session=os.name == "posix",
        env={**os.environ, **environment},
    )
    to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_session = anyio.create_memory_object_stream[SessionMessage](0)

    async def read() -> None:
        assert process.stdout is not None
        line = bytearray()
        async with to_session:
            try:
                async for chunk in process.stdout:
                    budget.take(len(chunk))
                    first, *rest = chunk.split(b"\n")
                    line += first
                    for part in rest:  # each newline ends the line before it
                        message = _message(bytes(line), notes)
                        if message is not None:
                            await to_session.send(message)
                        line = bytearray(part)
            except (OverBudget, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                pass  # the session sees the end of the stream; the budget says why

    async def write() -> None:
        assert process.stdin is not None
        async with from_session:
            with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                async for session_message in from_session:
                    text = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(text.encode() + b"\n")

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read)
        tasks.start_soon(write)
        try:
            yield from_server, to_server
        finally:
            with anyio.CancelScope(shield=True):
                grace = 0 if budget.broken else min(_EXIT_GRACE, max(deadline.remaining(), 0))
                await _stop(process, grace)
            tasks.cancel_scope.cancel()


async def _stop(process: Process, grace: float) -> None:
    """Close the server's stdin, give it `grace` seconds to exit, then kill its process
    group; close the pipes and reap it. Every wait is bounded: a server that ignores all
    of it cannot hold the import."""
    assert process.stdin is not None
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    if not await _exited(process, grace):
        if sys.platform != "win32":
            from mcp.os.posix.utilities import terminate_posix_process_tree

            # SIGTERM, then SIGKILL after as long as it was given to exit (none: at once).
            await terminate_posix_process_tree(process, min(grace, _KILL_GRACE))
        else:
            with suppress(ProcessLookupError):
                process.kill()
    with anyio.move_on_after(_KILL_GRACE), suppress(OSError):
        await process.aclose()  # closes the pipes' transports too, and kills a survivor


async def _exited(process: Process, seconds: float) -> bool:
    """Whether the process exits within `seconds` (polled: on Python 3.11 `wait()` also
    waits for the pipes to close, which a child of the server may hold open)."""
    with anyio.move_on_after(seconds):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None
