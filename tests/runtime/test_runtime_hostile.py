"""Handlers and clients that try to stop, stall or fool the server: it keeps serving.

Handlers of the toy raise SystemExit, KeyboardInterrupt or a BaseExceptionGroup, or
stall, when asked to (`toy_server.handlers.hostile`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel
from toy_server.handlers import HOSTILE, HOSTILE_NUMBERS, STALL, Toy
from toy_server.models import DivideInput
from toy_server.server import create_server

from mcpgen.runtime.context import Context
from mcpgen.runtime.encoding import to_json
from mcpgen.runtime.keys import SECRET_VARIABLE
from mcpgen.runtime.limits import Limits
from mcpgen.runtime.package_data import schema_document
from mcpgen.runtime.pagination import Pages
from mcpgen.runtime.server import GeneratedServer, build_server
from mcpgen.runtime.tools import ToolBinding

pytestmark = pytest.mark.anyio
MODES = ["auto", "legacy"]  # 2026-07-28 in process, and the 2025-11-25 handshake
HERE = Path(__file__).parent
SHORT = Limits(handler_timeout=0.3)


def _text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def _logged_crash(caplog: pytest.LogCaptureFixture, what: str) -> None:
    """One error was logged, with the traceback of the BaseException the handler raised."""
    [record] = [r for r in caplog.records if r.name == "mcpgen" and r.levelno >= logging.ERROR]
    assert record.exc_info is not None
    cause = record.exc_info[1].__cause__ if record.exc_info[1] else None
    assert type(cause) is type(HOSTILE[what]())
    assert record.exc_text is None or "Traceback" in record.exc_text
    caplog.clear()


@pytest.mark.parametrize("what", sorted(HOSTILE))
@pytest.mark.parametrize("mode", MODES)
async def test_a_tool_raising_a_base_exception_is_an_internal_error(
    mode: str, what: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="mcpgen")
    async with Client(create_server(), mode=mode) as client:
        result = await client.call_tool("divide", {"a": HOSTILE_NUMBERS[what], "b": 1})
        assert result.is_error is True
        assert _text(result) == "Tool 'divide' failed with an internal error."
        assert "secret" not in result.model_dump_json()
        _logged_crash(caplog, what)
        # The server keeps serving.
        again = await client.call_tool("divide", {"a": 1, "b": 4})
        assert again.structured_content == {"quotient": 0.25}


@pytest.mark.parametrize("what", sorted(HOSTILE))
@pytest.mark.parametrize("mode", MODES)
async def test_a_resource_or_prompt_raising_a_base_exception_is_an_internal_error(
    mode: str, what: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="mcpgen")
    async with Client(create_server(), mode=mode) as client:
        with pytest.raises(MCPError) as read:
            await client.read_resource(f"toy://items/{what}")
        assert (read.value.code, read.value.message) == (
            -32603,
            f"Reading resource 'toy://items/{what}' failed with an internal error.",
        )
        _logged_crash(caplog, what)
        with pytest.raises(MCPError) as prompt:
            await client.get_prompt("summary", {"topic": what})
        assert (prompt.value.code, prompt.value.message) == (
            -32603,
            "Prompt 'summary' failed with an internal error.",
        )
        _logged_crash(caplog, what)
        with pytest.raises(MCPError) as completion:
            await client.complete(types.ResourceTemplateReference(uri="toy://items/{id}"), {"name": "id", "value": what})
        assert (completion.value.code, completion.value.message) == (
            -32603,
            "Completion failed with an internal error.",
        )
        _logged_crash(caplog, what)
        item = await client.read_resource("toy://items/apple")
        assert isinstance(item.contents[0], types.TextResourceContents)


@pytest.mark.parametrize("mode", MODES)
async def test_a_stalled_handler_times_out_and_is_cancelled(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="mcpgen")
    async with Client(create_server(limits=SHORT), mode=mode) as client:
        with anyio.fail_after(5):
            result = await client.call_tool("divide", {"a": HOSTILE_NUMBERS[STALL], "b": 1})
        assert result.is_error is True
        assert _text(result) == "Tool 'divide' timed out after 0.3 s."
        for call in (
            lambda: client.read_resource(f"toy://items/{STALL}"),
            lambda: client.get_prompt("summary", {"topic": STALL}),
        ):
            with pytest.raises(MCPError) as caught, anyio.fail_after(5):
                await call()
            assert caught.value.code == -32603
            assert "timed out after 0.3 s" in caught.value.message
        again = await client.call_tool("divide", {"a": 1, "b": 4})
        assert again.structured_content == {"quotient": 0.25}
    assert sum("timed out after 0.3 s, and was cancelled" in r.getMessage() for r in caplog.records) == 3


class Watched(Toy):
    """divide stalls, and says when it started and whether it was cancelled."""

    def __init__(self) -> None:
        super().__init__()
        self.started = anyio.Event()
        self.cancelled = anyio.Event()

    async def divide(self, args: DivideInput, ctx: Context) -> Any:
        self.started.set()
        try:
            await anyio.sleep_forever()
        finally:
            self.cancelled.set()


async def test_the_timeout_cancels_the_handler() -> None:
    toy = Watched()
    async with Client(create_server(toy, limits=SHORT), mode="legacy") as client:
        result = await client.call_tool("divide", {"a": 1, "b": 1})
    assert result.is_error is True
    assert toy.cancelled.is_set()


@pytest.mark.parametrize("mode", MODES)
async def test_client_cancellation_still_cancels_the_handler(mode: str) -> None:
    toy = Watched()
    async with Client(create_server(toy, limits=Limits(handler_timeout=None)), mode=mode) as client:
        async with anyio.create_task_group() as group:
            group.start_soon(client.call_tool, "divide", {"a": 1, "b": 1})
            with anyio.fail_after(5):
                await toy.started.wait()
            group.cancel_scope.cancel()
        with anyio.fail_after(5):
            await toy.cancelled.wait()
        again = await client.call_tool("echo", {"text": "still here"})
        assert _text(again) == "still here"


SERVE = (
    "import sys; from toy_server.server import create_server; "
    "from mcpgen.runtime.serving import serve; serve(create_server(), sys.argv[1:])"
)


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
async def test_over_stdio_the_server_survives_system_exit_and_keyboard_interrupt(mode: str) -> None:
    parameters = StdioServerParameters(command=sys.executable, args=["-c", SERVE], cwd=str(HERE))
    async with Client(parameters, mode=mode) as client:
        for what in sorted(HOSTILE):
            result = await client.call_tool("divide", {"a": HOSTILE_NUMBERS[what], "b": 1})
            assert _text(result) == "Tool 'divide' failed with an internal error."
            with pytest.raises(MCPError) as caught:
                await client.read_resource(f"toy://items/{what}")
            assert caught.value.code == -32603
        result = await client.call_tool("divide", {"a": 1, "b": 8})
    assert result.structured_content == {"quotient": 0.125}


# --------------------------------------------------------------------------- cursors

HUGE_CURSORS = [
    base64.urlsafe_b64encode(("1" * 5000 + ".0").encode()).decode(),  # Python's int-string limit
    "A" * 100_000,
    base64.urlsafe_b64encode("١.0".encode()).decode(),  # a non-ASCII digit
    base64.urlsafe_b64encode(b"-1.0").decode(),
    "%%%",
    "",
]


@pytest.mark.parametrize("cursor", HUGE_CURSORS, ids=["digits", "long", "arabic", "negative", "junk", "empty"])
@pytest.mark.parametrize("mode", MODES)
async def test_any_malformed_cursor_is_invalid_params(mode: str, cursor: str) -> None:
    async with Client(create_server(page_size=1), mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.list_tools(cursor=cursor, cache_mode="bypass")
        assert (caught.value.code, caught.value.message) == (-32602, "Invalid cursor")
        assert len(str(caught.value.data)) < 200
        listed = await client.list_tools(cache_mode="bypass")
        assert [t.name for t in listed.tools] == ["divide"]


def _forged(offset: int) -> str:
    """A cursor signed the old way: with a key derived from the public list alone."""
    tools = [types.Tool.model_validate(t) for t in schema_document("toy_server")["tools/list"]["tools"]]
    key = hashlib.sha256(json.dumps([to_json(t) for t in tools], sort_keys=True).encode()).digest()
    signature = hmac.new(key, str(offset).encode(), hashlib.sha256).hexdigest()[:32]
    return base64.urlsafe_b64encode(f"{offset}.{signature}".encode()).decode()


async def _first_cursor(server: GeneratedServer) -> str:
    async with Client(server, mode="auto") as client:
        cursor = (await client.list_tools(cache_mode="bypass")).next_cursor
    assert cursor is not None
    return cursor


async def _accepts(server: GeneratedServer, cursor: str) -> bool:
    async with Client(server, mode="auto") as client:
        try:
            await client.list_tools(cursor=cursor, cache_mode="bypass")
        except MCPError as error:
            assert error.code == -32602
            return False
    return True


async def test_cursors_are_signed_with_the_deployment_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    # Without the secret: a key of this process; the public list alone does not forge one.
    monkeypatch.delenv(SECRET_VARIABLE, raising=False)
    alone = create_server(page_size=1)
    assert not await _accepts(alone, _forged(1))
    assert await _accepts(create_server(page_size=1), await _first_cursor(alone))
    # Replicas that share the secret accept each other's cursors, and no one else's.
    monkeypatch.setenv(SECRET_VARIABLE, "a" * 64)
    replica, other = create_server(page_size=1), create_server(page_size=1)
    cursor = await _first_cursor(replica)
    assert await _accepts(other, cursor)
    assert not await _accepts(other, _forged(1))
    monkeypatch.setenv(SECRET_VARIABLE, "b" * 64)
    assert not await _accepts(create_server(page_size=1), cursor)


def test_a_cursor_outlives_no_change_to_the_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SECRET_VARIABLE, "a" * 64)
    _, cursor = Pages(["a", "b", "c"], 1).page(None)
    assert cursor is not None
    assert Pages(["a", "b", "c"], 1).page(types.PaginatedRequestParams(cursor=cursor))[0] == ["b"]
    with pytest.raises(MCPError):
        Pages(["a", "b", "d"], 1).page(types.PaginatedRequestParams(cursor=cursor))


# --------------------------------------------------------------------------- error sizes

HUGE = "x" * 3_900_000


@pytest.mark.parametrize("mode", MODES)
async def test_an_invalid_huge_value_gives_a_short_error(mode: str) -> None:
    async with Client(create_server(), mode=mode) as client:
        result = await client.call_tool("divide", {"a": HUGE, "b": 1})
    text = _text(result)
    assert result.is_error is True
    assert len(text) <= Limits().max_error_chars
    header, violation = text.splitlines()
    assert header == "Invalid arguments for tool 'divide':"
    assert violation.startswith('- $.a: "xxx') and violation.endswith("more characters)")


@pytest.mark.parametrize("mode", MODES)
async def test_many_violations_are_capped_saying_how_many_were_left_out(mode: str) -> None:
    limits = Limits(max_error_chars=1000)
    async with Client(create_server(limits=limits), mode=mode) as client:
        # Just under FULL_REPORT_VALUES values, so that every violation is looked for.
        result = await client.call_tool("halves", {"values": ["y" * 300] * 900})
    lines = _text(result).splitlines()
    assert len(_text(result)) <= 1000
    shown = [line for line in lines if line.startswith("- $.values[")]
    assert 1 <= len(shown) < 10
    assert lines[-1] == f"({900 - len(shown)} more not shown)"


@pytest.mark.parametrize("mode", MODES)
async def test_protocol_errors_are_bounded_too(mode: str) -> None:
    server = create_server(invalid_arguments="protocol_error")
    async with Client(server, mode=mode) as client:
        with pytest.raises(MCPError) as invalid:
            await client.call_tool("halves", {"values": [HUGE[:100_000]] * 100})
        with pytest.raises(MCPError) as tool:
            await client.call_tool(HUGE, {})
        with pytest.raises(MCPError) as resource:
            await client.read_resource("toy://nothing/" + HUGE)
        with pytest.raises(MCPError) as prompt:
            await client.get_prompt(HUGE, {})
        with pytest.raises(MCPError) as arguments:
            await client.get_prompt("greet", {f"{i}{HUGE[:1000]}": "" for i in range(1000)})
    assert invalid.value.data["more"] > 90
    for caught in (invalid, tool, resource, prompt, arguments):
        assert caught.value.code == -32602
        assert len(caught.value.message) + len(json.dumps(caught.value.data)) < 2 * Limits().max_error_chars


# --------------------------------------------------------------------------- regular expressions

EVIL_PATTERN = "^(a+)+$"
EVIL_WORD = "a" * 28 + "!"  # Python's re backtracks for about 13 s on this


class Word(BaseModel):
    word: str


class Nothing(BaseModel):
    pass


@pytest.fixture
def regex_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GeneratedServer:
    """A one-tool package whose argument has a catastrophic pattern for backtracking engines."""
    package = tmp_path / "regex_toy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    word_schema = {
        "type": "object",
        "properties": {"word": {"type": "string", "pattern": EVIL_PATTERN}},
        "required": ["word"],
    }
    document = {
        "serverInfo": {"name": "regex-toy", "version": "1"},
        "capabilities": {"tools": {"listChanged": False}},
        "tools/list": {
            "tools": [
                {"name": "match", "inputSchema": word_schema},
                {"name": "ping", "inputSchema": {"type": "object"}},
            ]
        },
    }
    (package / "schema.json").write_text(json.dumps(document))
    monkeypatch.syspath_prepend(str(tmp_path))

    async def match(args: Word, ctx: Context) -> str:
        return "matched"

    async def ping(args: Nothing, ctx: Context) -> str:
        return "pong"

    return build_server("regex_toy", tools={"match": ToolBinding(match, Word), "ping": ToolBinding(ping, Nothing)})


@pytest.mark.parametrize("mode", MODES)
async def test_a_catastrophic_pattern_answers_at_once_while_others_are_served(
    mode: str, regex_server: GeneratedServer
) -> None:
    answers: dict[str, tuple[float, types.CallToolResult]] = {}
    async with Client(regex_server, mode=mode) as client:
        started = time.perf_counter()

        async def call(name: str, arguments: dict[str, Any]) -> None:
            result = await client.call_tool(name, arguments)
            answers[name] = (time.perf_counter() - started, result)

        with anyio.fail_after(5):
            async with anyio.create_task_group() as group:
                group.start_soon(call, "match", {"word": EVIL_WORD})
                group.start_soon(call, "ping", {})
    elapsed, matched = answers["match"]
    assert elapsed < 0.5
    assert matched.is_error is True
    assert _text(matched).startswith("Invalid arguments for tool 'match':\n- $.word: ")
    assert answers["ping"][0] < 0.5 and _text(answers["ping"][1]) == "pong"
