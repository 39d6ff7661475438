"""A CancelledError that is the handler's own failure is answered like any other.

A handler that awaits a helper task which something else cancelled gets a
CancelledError, though no one cancelled the call: the client did not cancel it and
the handler timeout did not run out. That is a handler failure (a tool: an `isError`
result; a resource, prompt or completion: -32603), logged, and the server keeps
serving, in both eras and over both transports. Only the client's cancel or the
handler timeout cancels a call (see test_runtime_hostile.py for those).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from helpers import free_port
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from toy_http import serving
from toy_server.handlers import FOREIGN_CANCEL, HOSTILE_NUMBERS
from toy_server.server import create_server

pytestmark = pytest.mark.anyio
MODES = ["auto", "legacy"]  # 2026-07-28, and the 2025-11-25 handshake
HERE = Path(__file__).parent
FOREIGN = HOSTILE_NUMBERS[FOREIGN_CANCEL]
SERVE = (
    "import sys; from toy_server.server import create_server; "
    "from mcpgen.runtime.serving import serve; serve(create_server(), sys.argv[1:])"
)


def _text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def _every_kind_fails_and_the_server_serves_on(client: Client) -> None:
    """Each kind of handler raises a foreign CancelledError: each call is answered as a
    failure, and the next call is answered as usual."""
    with anyio.fail_after(10):
        result = await client.call_tool("divide", {"a": FOREIGN, "b": 1})
    assert result.is_error is True
    assert _text(result) == "Tool 'divide' failed with an internal error."
    failing: list[tuple[Callable[[], Awaitable[Any]], str]] = [
        (
            lambda: client.read_resource(f"toy://items/{FOREIGN_CANCEL}"),
            f"Reading resource 'toy://items/{FOREIGN_CANCEL}' failed with an internal error.",
        ),
        (
            lambda: client.get_prompt("summary", {"topic": FOREIGN_CANCEL}),
            "Prompt 'summary' failed with an internal error.",
        ),
        (
            lambda: client.complete(
                types.ResourceTemplateReference(uri="toy://items/{id}"), {"name": "id", "value": FOREIGN_CANCEL}
            ),
            "Completion failed with an internal error.",
        ),
    ]
    for call, message in failing:
        with pytest.raises(MCPError) as caught, anyio.fail_after(10):
            await call()
        assert (caught.value.code, caught.value.message) == (-32603, message)
    with anyio.fail_after(10):
        again = await client.call_tool("divide", {"a": 1, "b": 4})
    assert again.structured_content == {"quotient": 0.25}


@pytest.mark.parametrize("mode", MODES)
async def test_a_foreign_cancellation_is_a_handler_failure(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="mcpgen")
    async with Client(create_server(), mode=mode) as client:
        await _every_kind_fails_and_the_server_serves_on(client)
    failures = [r for r in caplog.records if r.name == "mcpgen" and r.levelno >= logging.ERROR]
    assert len(failures) == 4
    assert all(r.exc_info is not None for r in failures)


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
async def test_over_stdio_a_foreign_cancellation_does_not_stop_the_server(mode: str) -> None:
    parameters = StdioServerParameters(command=sys.executable, args=["-c", SERVE], cwd=str(HERE))
    async with Client(parameters, mode=mode) as client:
        await _every_kind_fails_and_the_server_serves_on(client)


@pytest.mark.slow
async def test_over_http_a_foreign_cancellation_keeps_sessions_and_answers_json_rpc() -> None:
    with serving(f"127.0.0.1:{free_port()}") as (url, _):
        for mode in MODES:
            async with Client(url, mode=mode) as client:
                # For 2025-11-25 the session survives: the calls after the failures
                # go to the same session, which would answer 404 had it died.
                await _every_kind_fails_and_the_server_serves_on(client)
                listed = await client.list_tools()
                assert "divide" in [tool.name for tool in listed.tools]
