"""build_server: what it reads from schema.json, and how it refuses bindings that do not match."""

from __future__ import annotations

import gc
from typing import Any

import pytest
from mcp import Client
from toy_server.handlers import Toy
from toy_server.models import GreetArguments, SummaryArguments
from toy_server.server import bindings, create_server

from mcpgen.runtime.package_data import schema_document
from mcpgen.runtime.prompts import PromptBinding
from mcpgen.runtime.resources import ResourceBinding
from mcpgen.runtime.server import GeneratedServer, build_server
from mcpgen.runtime.tools import ToolBinding

pytestmark = pytest.mark.anyio
MODES = ["auto", "legacy"]  # 2026-07-28 in process, and the 2025-11-25 handshake
SCHEMA = schema_document("toy_server")


def _build(**changes: Any) -> GeneratedServer:
    options = bindings(Toy())
    options.update(changes)
    return build_server("toy_server", **options)


@pytest.mark.parametrize("mode", MODES)
async def test_lists_follow_schema_json(mode: str) -> None:
    toy = create_server()
    async with Client(toy, mode=mode) as client:
        tools = await client.list_tools()
        resources = await client.list_resources()
        templates = await client.list_resource_templates()
        prompts = await client.list_prompts()
    assert [t.name for t in tools.tools] == ["divide", "halves", "echo", "ask_name"]
    assert [r.name for r in resources.resources] == [
        "motd",
        "raw",
        "widget",
        "logo",
        "stats",
        "note",
    ]
    assert [t.uri_template for t in templates.resource_templates] == ["toy://items/{id}"]
    assert [p.name for p in prompts.prompts] == ["greet", "summary"]
    # Served verbatim: the wire form of each item is schema.json's.
    served = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools.tools]
    assert served == SCHEMA["tools/list"]["tools"]
    assert tools.next_cursor is None


async def test_server_info_instructions_and_capabilities() -> None:
    toy = create_server()
    async with Client(toy, mode="legacy") as client:
        assert client.server_info is not None
        assert (client.server_info.name, client.server_info.title, client.server_info.version) == (
            "toy-server",
            "Toy server",
            "0.1.0",
        )
        assert client.instructions == "A toy for the runtime's tests."
        capabilities = client.server_capabilities
        assert capabilities.tools is not None and capabilities.tools.list_changed
        assert capabilities.resources is not None and capabilities.resources.subscribe
        assert capabilities.prompts is not None and not capabilities.prompts.list_changed
        assert capabilities.logging is not None
        assert capabilities.completions is not None


def test_schema_json_is_read_once_per_package() -> None:
    assert schema_document("toy_server") is schema_document("toy_server")
    assert create_server().name == "toy-server"


def test_a_missing_binding_is_named() -> None:
    tools = dict(bindings(Toy())["tools"])
    del tools["echo"]
    with pytest.raises(ValueError, match=r"tool 'echo' is in schema.json but has no binding"):
        _build(tools=tools)


def test_a_binding_for_nothing_in_schema_json_is_named() -> None:
    options = bindings(Toy())
    prompts = {**options["prompts"], "farewell": PromptBinding(get=Toy().get_summary)}
    resources = {**options["resources"], "extra": ResourceBinding(text="x")}
    with pytest.raises(ValueError) as caught:
        _build(prompts=prompts, resources=resources)
    message = str(caught.value)
    assert "prompt 'farewell' has a binding but is not in schema.json" in message
    assert "resource 'extra' has a binding but is not in schema.json" in message
    assert "edited by hand" in message


def test_prompts_without_a_handler_match_prompts_json() -> None:
    toy = Toy()
    prompts = {"greet": PromptBinding(GreetArguments, get=toy.get_summary), "summary": PromptBinding(SummaryArguments)}
    with pytest.raises(ValueError) as caught:
        _build(prompts=prompts)
    message = str(caught.value)
    assert "prompt 'summary' has neither a handler nor messages in prompts.json" in message
    assert "prompts.json has messages for 'greet', which is no prompt without a handler" in message


def test_content_models_match_resource_schemas() -> None:
    toy = Toy()
    resources = {**bindings(toy)["resources"], "stats": ResourceBinding(toy.read_stats)}
    with pytest.raises(ValueError, match="resourceSchemas has 'stats'"):
        _build(resources=resources)
    resources["stats"] = ResourceBinding(toy.read_stats, dict)  # type: ignore[arg-type]
    resources["note"] = ResourceBinding(toy.read_note, dict)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="resource 'note' has a content model but no resourceSchemas entry"):
        _build(resources=resources)


def test_completions_match_the_capability() -> None:
    with pytest.raises(ValueError, match="schema.json declares completions, but none are given"):
        _build(completions=None)


def test_output_models_match_output_schemas() -> None:
    toy = Toy()
    tools = {**bindings(toy)["tools"], "divide": ToolBinding(toy.divide, dict)}  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tool 'divide': an output_model is needed"):
        _build(tools=tools)


def test_build_server_needs_the_package() -> None:
    with pytest.raises(ValueError, match="__package__"):
        build_server(None)
    with pytest.raises(ValueError, match="invalid_arguments"):
        _build(invalid_arguments="ignore")


def test_bindings_check_their_own_arguments() -> None:
    with pytest.raises(ValueError, match="exactly one of read, file, text and blob"):
        ResourceBinding()
    with pytest.raises(ValueError, match="exactly one of read, file, text and blob"):
        ResourceBinding(text="a", blob="Yg==")
    with pytest.raises(ValueError, match="binary=True"):
        ResourceBinding(text="a", binary=True)
    with pytest.raises(ValueError, match="wrapped=True"):
        ToolBinding(Toy().echo, dict, wrapped=True)  # type: ignore[arg-type]


def test_schema_json_is_read_into_the_oldest_generation() -> None:
    """The parse runs with the collector off; what it made goes straight to the oldest
    generation, instead of waiting, young, for a collection of all of it."""
    assert gc.isenabled() and gc.get_freeze_count() == 0
    document = schema_document.__wrapped__("toy_server")  # read again, not from the cache
    oldest = {id(each) for each in gc.get_objects(generation=2)}
    assert id(document) in oldest and id(document["tools/list"]["tools"][0]) in oldest
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_reading_schema_json_leaves_what_others_froze_frozen() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        schema_document.__wrapped__("toy_server")
        assert gc.get_freeze_count() == frozen  # nothing unfrozen, nothing added
    finally:
        gc.unfreeze()
