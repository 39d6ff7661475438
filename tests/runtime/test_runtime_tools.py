"""tools/call through the runtime, with the real SDK client in both protocol eras."""

from __future__ import annotations

import json
import logging
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from toy_server.handlers import CRASH, UNLUCKY
from toy_server.server import create_server

pytestmark = pytest.mark.anyio
MODES = ["auto", "legacy"]  # 2026-07-28 in process, and the 2025-11-25 handshake


def _text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def _toy_errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    # The runtime logs under the package it is part of (here mcpgen; gift_server when generated).
    return [r for r in caplog.records if r.name == "mcpgen" and r.levelno >= logging.ERROR]


@pytest.mark.parametrize("mode", MODES)
async def test_structured_output(mode: str) -> None:
    toy = create_server()
    async with Client(toy, mode=mode) as client:
        result = await client.call_tool("divide", {"a": 7, "b": 2})
    assert not result.is_error
    assert result.structured_content == {"quotient": 3.5}
    assert [json.loads(_text(result))] == [{"quotient": 3.5}]


@pytest.mark.parametrize("mode", MODES)
async def test_wrapped_output_with_extra_content(mode: str) -> None:
    toy = create_server()
    async with Client(toy, mode=mode) as client:
        result = await client.call_tool("halves", {"values": [4, 1]})
    assert result.structured_content == {"result": [2.0, 0.5]}
    first, extra = result.content
    assert isinstance(first, types.TextContent) and json.loads(first.text) == {"result": [2.0, 0.5]}
    assert isinstance(extra, types.TextContent) and extra.text == "halved"


@pytest.mark.parametrize("mode", MODES)
async def test_content_output(mode: str) -> None:
    toy = create_server()
    async with Client(toy, mode=mode) as client:
        result = await client.call_tool("echo", {"text": "hi"})
    assert not result.is_error
    assert result.structured_content is None
    assert [(b.type, _text(result)) for b in result.content] == [("text", "hi")]


INVALID: list[tuple[str, dict[str, Any], list[str]]] = [
    ("divide", {"a": 1}, ['$: "b" is a required property']),
    (
        "divide",
        {"a": "one", "b": 2, "c": 3},
        ["$: Additional properties are not allowed", '$.a: "one" is not of type "number"'],
    ),
    ("echo", {"text": ""}, ['$.text: "" is shorter than 1 character']),
]


@pytest.mark.parametrize(("tool", "arguments", "violations"), INVALID)
@pytest.mark.parametrize("mode", MODES)
async def test_invalid_arguments_are_tool_errors(
    mode: str, tool: str, arguments: dict[str, Any], violations: list[str]
) -> None:
    toy = create_server()
    async with Client(toy, mode=mode) as client:
        result = await client.call_tool(tool, arguments)
    assert result.is_error is True
    assert result.structured_content is None
    lines = _text(result).splitlines()
    assert lines[0] == f"Invalid arguments for tool '{tool}':"
    assert len(lines) == 1 + len(violations)
    for line, expected in zip(lines[1:], violations, strict=True):
        assert line.startswith(f"- {expected}"), lines


@pytest.mark.parametrize("mode", MODES)
async def test_the_schema_decides_even_where_the_model_is_narrower(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    # The toy model says max_length=20, the schema does not: the schema is the contract.
    toy = create_server()
    async with Client(toy, mode=mode) as client:
        result = await client.call_tool("echo", {"text": "x" * 21})
    assert not result.is_error
    assert _text(result) == "x" * 21
    assert any("cannot type a value its schema accepts" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("mode", MODES)
async def test_invalid_arguments_as_protocol_errors(mode: str) -> None:
    server = create_server(invalid_arguments="protocol_error")
    async with Client(server, mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("divide", {"a": 1})
        assert caught.value.code == -32602
        assert "Invalid arguments for tool 'divide'" in caught.value.message
        assert caught.value.data == {"tool": "divide", "errors": ['$: "b" is a required property']}
        # Good arguments still get an answer.
        ok = await client.call_tool("divide", {"a": 1, "b": 4})
        assert ok.structured_content == {"quotient": 0.25}


@pytest.mark.parametrize("mode", MODES)
async def test_tool_error_is_a_readable_error_result(mode: str) -> None:
    toy = create_server()
    async with Client(toy, mode=mode) as client:
        result = await client.call_tool("divide", {"a": 1, "b": 0})
    assert result.is_error is True
    assert _text(result) == "Cannot divide by zero."


@pytest.mark.parametrize("mode", MODES)
async def test_a_crash_is_a_generic_error_result(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    toy = create_server()
    caplog.set_level(logging.ERROR, logger="mcpgen")
    async with Client(toy, mode=mode) as client:
        result = await client.call_tool("divide", {"a": CRASH, "b": 1})
    assert result.is_error is True
    assert _text(result) == "Tool 'divide' failed with an internal error."
    assert "secret detail" not in result.model_dump_json()
    [record] = _toy_errors(caplog)
    assert record.exc_info is not None and str(record.exc_info[1]) == "secret detail"


@pytest.mark.parametrize("mode", MODES)
async def test_wrong_shaped_output_is_an_internal_error(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    toy = create_server()
    caplog.set_level(logging.ERROR, logger="mcpgen")
    async with Client(toy, mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("divide", {"a": UNLUCKY, "b": 1})
    assert caught.value.code == -32603
    assert caught.value.message == "The tool 'divide' produced a result that does not match its schema."
    assert "unlucky" not in f"{caught.value.message} {caught.value.data}"
    [record] = _toy_errors(caplog)
    assert record.getMessage() == (
        "tool 'divide' produced a value that breaks its schema: "
        "$.quotient: Input should be a valid number, unable to parse string as a number"
    )


@pytest.mark.parametrize("mode", MODES)
async def test_unknown_tool_is_invalid_params(mode: str) -> None:
    toy = create_server()
    async with Client(toy, mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("multiply", {})
    assert caught.value.code == -32602
    assert caught.value.data == {"tool": "multiply"}


async def _name(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Ada"})


@pytest.mark.parametrize("mode", MODES)
async def test_asking_the_client_in_both_eras(mode: str) -> None:
    toy = create_server()
    # 2026-07-28: input_required, then a retry with the answer; 2025-11-25: a request mid-call.
    async with Client(toy, mode=mode, elicitation_callback=_name) as client:
        result = await client.call_tool("ask_name", {})
    assert _text(result) == "Hello, Ada!"


def test_arguments_say_which_fields_were_given_with_or_without_json_names() -> None:
    """`model_fields_set` holds the fields the JSON named and the extras, as pydantic has it;
    an extra spelt like a field's Python name (`my_field` beside `my-field`) is no field set.
    Models with no JSON name of their own skip the walk that makes sure of it."""
    from pydantic import BaseModel, ConfigDict, Field

    from mcpgen.runtime.validation import _has_aliases, from_wire

    class Inner(BaseModel):
        model_config = ConfigDict(extra="allow", populate_by_name=True)
        my_field: bool | None = Field(None, alias="my-field")

    class Plain(BaseModel):
        model_config = ConfigDict(extra="allow", populate_by_name=True)
        count: int | None = None
        note: str | None = None

    class Outer(BaseModel):
        model_config = ConfigDict(extra="allow", populate_by_name=True)
        plain: Plain | None = None
        inner: list[Inner] | None = None

    assert not _has_aliases(Plain) and _has_aliases(Inner) and _has_aliases(Outer)
    plain = from_wire(Plain, {"count": None, "other": 1})
    assert plain.model_fields_set == {"count", "other"}
    outer = from_wire(Outer, {"plain": {"note": "x"}, "inner": [{"my_field": True}, {"my-field": False}]})
    assert outer.model_fields_set == {"plain", "inner"}
    assert isinstance(outer.plain, Plain) and outer.plain.model_fields_set == {"note"}
    first, second = outer.inner or []
    assert first.my_field is None and first.model_fields_set == set()
    assert second.my_field is False and second.model_fields_set == {"my_field"}
    assert outer.model_dump(mode="json", by_alias=True, exclude_unset=True) == {
        "plain": {"note": "x"},
        "inner": [{"my_field": True}, {"my-field": False}],
    }
