"""client.py: what a generated typed client uses, against the toy server and on its own."""

from __future__ import annotations

import subprocess
import sys

import mcp_types as types
import pytest
from mcp import Client
from pydantic import BaseModel, Field
from toy_server.models import DivideInput, DivideOutput, HalvesOutput, Item
from toy_server.server import create_server

from mcpgen.runtime.client import (
    UNSET,
    ToolCallError,
    ToolOutputError,
    Unset,
    given,
    output_value,
    resource_value,
    structured_result,
    to_json,
    tool_content,
)

pytestmark = pytest.mark.anyio
MODES = ["auto", "legacy"]  # 2026-07-28 in process, and the 2025-11-25 handshake


@pytest.mark.parametrize("mode", MODES)
async def test_a_typed_call_round_trip(mode: str) -> None:
    toy = create_server()
    async with Client(toy, mode=mode) as client:
        arguments = DivideInput.model_validate(given("divide", {"a": 9, "b": 3}))
        result = await client.call_tool("divide", to_json(arguments))
        assert DivideOutput.model_validate(structured_result("divide", result, wrapped=False)) == DivideOutput(
            quotient=3.0
        )
        halves = await client.call_tool("halves", {"values": [1]})
        assert HalvesOutput.model_validate(structured_result("halves", halves, wrapped=True)).root == [0.5]
        failed = await client.call_tool("divide", {"a": 1, "b": 0})
        with pytest.raises(ToolCallError) as caught:
            structured_result("divide", failed, wrapped=False)
        assert (caught.value.tool, caught.value.message) == ("divide", "Cannot divide by zero.")
        assert str(caught.value) == "divide: Cannot divide by zero."
        assert caught.value.result is failed
        echoed = await client.call_tool("echo", {"text": "hi"})
        assert tool_content("echo", echoed) == [types.TextContent(text="hi")]
        item = resource_value(await client.read_resource("toy://items/apple"), Item)
        assert item == Item(id="apple", name="An apple")
        logo = resource_value(await client.read_resource("toy://logo.png"), None)
        assert isinstance(logo, bytes) and logo.startswith(b"\x89PNG")


def test_results_without_what_the_client_expects() -> None:
    bare = types.CallToolResult(content=[])
    with pytest.raises(ToolOutputError, match=r"^t: \$: the result has no structuredContent$"):
        structured_result("t", bare, wrapped=False)
    unwrapped = types.CallToolResult(content=[], structured_content={"value": 1})
    with pytest.raises(ToolOutputError, match="the result has no structuredContent"):
        structured_result("t", unwrapped, wrapped=True)
    error = types.CallToolResult(content=[types.ImageContent(data="", mime_type="image/png")], is_error=True)
    with pytest.raises(ToolCallError, match="the tool reported an error"):
        tool_content("t", error)


def test_resource_values() -> None:
    text = types.ReadResourceResult(contents=[types.TextResourceContents(uri="u://a", text='{"id": "a", "name": "A"}')])
    blob = types.ReadResourceResult(
        contents=[types.BlobResourceContents(uri="u://a", blob="eyJpZCI6ICJiIiwgIm5hbWUiOiAiQiJ9")]
    )
    assert resource_value(text, None) == '{"id": "a", "name": "A"}'
    assert resource_value(text, Item) == Item(id="a", name="A")
    assert resource_value(blob, None) == b'{"id": "b", "name": "B"}'
    assert resource_value(blob, Item) == Item(id="b", name="B")


def test_given_and_to_json() -> None:
    class Query(BaseModel):
        search_term: str = Field(alias="searchTerm")
        limit: int | None = None

    assert given("m", {"a": 1, "b": UNSET, "c": False, "d": None}, nullable=("d",)) == {"a": 1, "c": False, "d": None}
    with pytest.raises(TypeError, match=r"^m: b cannot be None \(its schema does not allow null\)"):
        given("m", {"a": 1, "b": None}, nullable=("a",))
    assert to_json(Query(searchTerm="x")) == {"searchTerm": "x"}
    assert to_json([1]) == [1]


def test_the_client_module_does_not_import_the_server_stack() -> None:
    code = (
        "import mcpgen.runtime.client, sys; "
        "loaded = sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')); "
        "assert not any(m.startswith('mcp.server') for m in loaded), loaded"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stderr


def test_unset_is_one_falsy_value() -> None:
    import copy
    import pickle

    assert Unset() is UNSET and copy.deepcopy(UNSET) is UNSET and pickle.loads(pickle.dumps(UNSET)) is UNSET
    assert not UNSET and repr(UNSET) == "UNSET"


def test_output_errors_name_where_in_the_structured_content() -> None:
    wrapped = types.CallToolResult(content=[], structured_content={"result": [0.5, "half"]})
    with pytest.raises(ToolOutputError) as caught:
        output_value("halves", wrapped, HalvesOutput, wrapped=True)
    assert (caught.value.tool, caught.value.path, caught.value.result) == ("halves", "$.result[1]", wrapped)


    class Either(BaseModel):
        n: int | str

    # pydantic's location also names the union member it tried (`n.int`), which is no key.
    wrong = types.CallToolResult(content=[], structured_content={"n": [1]})
    with pytest.raises(ToolOutputError, match=r"^either: \$\.n: ") as located:
        output_value("either", wrong, Either, wrapped=False)
    assert located.value.path == "$.n"
