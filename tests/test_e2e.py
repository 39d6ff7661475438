"""End-to-end tests of the committed generated gift server with the real MCP client.

`generated_example/gift_server` (generated) + `generated_example/app.py` (`GiftShop`,
hand-written) are exercised through `mcp.Client` in both protocol eras
(mode="auto" -> 2026-07-28, mode="legacy" -> 2025-11-25) and over three transports:
in-memory, stdio (a subprocess per test) and Streamable HTTP (one subprocess per module).
"""

from __future__ import annotations

import copy
import json
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gift_server
import mcp_types as types
import pytest
import yaml
from gift_server import (
    Gift,
    GiftCatalogContent,
    GiftServerClient,
    SuggestGiftsInput,
    SuggestGiftsOutput,
    ToolCallError,
    create_server,
)
from helpers import (
    ERA,
    EXAMPLE,
    EXAMPLE_APP,
    GENERATED,
    GIFT_SPEC,
    ROOT,
    assert_violations,
    load_example_app,
    wire,
)
from jsonschema import Draft202012Validator
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

pytestmark = pytest.mark.anyio

GiftShop = load_example_app().GiftShop

SPEC = yaml.safe_load(GIFT_SPEC.read_text(encoding="utf-8"))
SCHEMA_JSON = json.loads((GENERATED / "schema.json").read_text(encoding="utf-8"))
CATALOG = json.loads((EXAMPLE / "catalog.json").read_text(encoding="utf-8"))
WIDGET_HTML = (EXAMPLE / "gifts.html").read_text(encoding="utf-8")

CATALOG_URI = "mcp://gift-server/resources/gift_catalog"
WIDGET_URI = "ui://widget/gifts.html"


# --------------------------------------------------------------------------- helpers


def bundle(schema: Any, definitions: dict[str, Any]) -> Any:
    """The spec's schema with `#/definitions/X` refs rewritten to `#/$defs/X`, and every
    definition it uses (transitively) bundled under `$defs`."""
    used: dict[str, Any] = {}

    def rewrite(node: Any) -> Any:
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if key == "$ref" and isinstance(value, str) and value.startswith("#/definitions/"):
                    name = value.removeprefix("#/definitions/")
                    if name not in used:
                        used[name] = None  # claim it first: definitions may be recursive
                        used[name] = rewrite(definitions[name])
                    out[key] = f"#/$defs/{name}"
                else:
                    out[key] = rewrite(value)
            return out
        if isinstance(node, list):
            return [rewrite(item) for item in node]
        return node

    result = rewrite(copy.deepcopy(schema))
    if used:
        result["$defs"] = used
    return result


def spec_schema(schema: Any) -> Any:
    return bundle(schema, SPEC.get("definitions", {}))


def only_text(result: types.CallToolResult) -> str:
    assert len(result.content) == 1, result.content
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


def gifts_for(occasion: str, budget: float) -> list[dict[str, Any]]:
    return [g for g in CATALOG["gifts"] if occasion in g["occasions"] and g["price"] <= budget]


def listed_tool(tool_name: str) -> dict[str, Any]:
    return next(t for t in SCHEMA_JSON["tools/list"]["tools"] if t["name"] == tool_name)


def output_validator(tool_name: str) -> Draft202012Validator:
    schema = listed_tool(tool_name)["outputSchema"]
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


# --------------------------------------------------------------------------- targets


@dataclass(frozen=True)
class Target:
    transport: str  # memory | stdio | http
    mode: str  # auto | legacy
    url: str | None = None

    def stdio_parameters(self) -> StdioServerParameters:
        return StdioServerParameters(command=sys.executable, args=[str(EXAMPLE_APP)], cwd=str(ROOT))

    def client(self) -> Client:
        if self.transport == "memory":
            return Client(create_server(GiftShop()), mode=self.mode)
        if self.transport == "stdio":
            return Client(self.stdio_parameters(), mode=self.mode)
        assert self.url is not None
        return Client(self.url, mode=self.mode)

    def typed(self) -> GiftServerClient:
        if self.transport == "memory":
            return GiftServerClient.in_memory(create_server(GiftShop()), mode=self.mode)
        if self.transport == "stdio":
            return GiftServerClient.stdio(sys.executable, [str(EXAMPLE_APP)], mode=self.mode)
        assert self.url is not None
        return GiftServerClient.http(self.url, mode=self.mode)


# In memory is quick; stdio and HTTP start a server subprocess, so they are slow.
COMBOS = [
    pytest.param(
        (transport, mode), id=f"{transport}-{mode}", marks=[pytest.mark.slow] if transport != "memory" else []
    )
    for transport in ("memory", "stdio", "http")
    for mode in ("auto", "legacy")
]


@pytest.fixture(params=COMBOS)
def target(request: pytest.FixtureRequest) -> Target:
    transport, mode = request.param
    url = request.getfixturevalue("gift_http_server") if transport == "http" else None
    return Target(transport, mode, url)


@pytest.fixture(params=["auto", "legacy"])
def memory_mode(request: pytest.FixtureRequest) -> str:
    mode: str = request.param
    return mode


@asynccontextmanager
async def connected(client: Client, mode: str) -> AsyncIterator[Client]:
    async with client:
        assert client.protocol_version == ERA[mode]
        yield client


def in_memory(shop: Any, mode: str) -> Any:
    """A client connected in memory to the gift server with these handlers."""
    return connected(Client(create_server(shop), mode=mode), mode)


def gift_server_errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "gift_server" and r.levelno >= logging.ERROR]


# --------------------------------------------------------------------------- listings


def test_spec_bundling_matches_schema_json() -> None:
    """The committed schema.json is the spec's tools after #/definitions -> #/$defs bundling."""
    for name, tool in SPEC["tools"].items():
        listed = listed_tool(name)
        assert listed["inputSchema"] == spec_schema(tool["inputSchema"])
        output = spec_schema(tool["outputSchema"])
        if output.get("type") != "object":
            # Non-object outputs are wrapped as {"result": ...} (the SDK's convention).
            output = {"type": "object", "properties": {"result": output}, "required": ["result"]}
        assert listed["outputSchema"] == output


async def test_listings(target: Target) -> None:
    """tools/list, resources/list, resources/templates/list and prompts/list serve schema.json."""
    async with connected(target.client(), target.mode) as client:
        tools = await client.list_tools()
        resources = await client.list_resources()
        templates = await client.list_resource_templates()
        prompts = await client.list_prompts()

    expected = SCHEMA_JSON["tools/list"]["tools"]
    listed = [wire(tool) for tool in tools.tools]
    assert [t["name"] for t in listed] == [t["name"] for t in expected]
    for got, want in zip(listed, expected, strict=True):
        for key in ("inputSchema", "outputSchema", "annotations", "_meta", "title", "description"):
            assert got.get(key) == want.get(key), (got["name"], key)
        assert got == want
    # The input schemas are the spec's, bundled: same properties and required lists.
    for got in listed:
        spec_input = SPEC["tools"][got["name"]]["inputSchema"]
        assert got["inputSchema"] == spec_schema(spec_input)
        assert list(got["inputSchema"]["properties"]) == list(spec_input["properties"])
        assert got["inputSchema"]["required"] == spec_input["required"]
        Draft202012Validator.check_schema(got["inputSchema"])

    assert [wire(r) for r in resources.resources] == SCHEMA_JSON["resources/list"]["resources"]
    assert [wire(t) for t in templates.resource_templates] == SCHEMA_JSON["resources/templates/list"][
        "resourceTemplates"
    ]
    assert [wire(p) for p in prompts.prompts] == SCHEMA_JSON["prompts/list"]["prompts"]
    for page in (tools, resources, templates, prompts):
        assert page.next_cursor is None


# --------------------------------------------------------------------------- tools


async def test_suggest_gifts_and_gift_cards(target: Target) -> None:
    gifts_validator = output_validator("suggest_gifts")
    cards_validator = output_validator("suggest_gift_cards")
    async with connected(target.client(), target.mode) as client:
        await client.list_tools()
        for occasion, budget in [("new_year", 40), ("wedding", 500), ("birthday", 12)]:
            result = await client.call_tool(
                "suggest_gifts", {"occasion": occasion, "budget": budget, "recipient": "mum"}
            )
            assert not result.is_error, result
            structured = result.structured_content
            assert structured is not None
            assert list(gifts_validator.iter_errors(structured)) == []
            gifts = structured["gifts"]
            assert gifts, structured
            assert structured["total"] == len(gifts)
            for gift in gifts:
                assert gift["price"] <= budget
                assert occasion in gift["occasions"]
            # Exactly the catalog's matches, most expensive first.
            want = sorted(gifts_for(occasion, budget), key=lambda g: g["price"], reverse=True)
            assert gifts == want
            assert json.loads(only_text(result)) == structured

        cards = await client.call_tool("suggest_gift_cards", {"budget": 60})
        assert not cards.is_error, cards
        assert cards.structured_content == {"result": [50.0, 30.0, 25.0]}
        assert list(cards_validator.iter_errors(cards.structured_content)) == []
        assert json.loads(only_text(cards)) == cards.structured_content

        many = await client.call_tool("suggest_gift_cards", {"budget": 1000, "count": 10})
        assert not many.is_error, many
        assert many.structured_content == {
            "result": [200.0, 150.0, 100.0, 75.0, 50.0, 30.0, 25.0, 20.0, 15.0, 10.0]
        }
        assert list(cards_validator.iter_errors(many.structured_content)) == []
        assert json.loads(only_text(many)) == many.structured_content


INVALID_GIFTS_ARGUMENTS = [
    # (arguments, [(json path, fragment of the message)])
    ({"occasion": "graduation", "budget": 20}, [("$.occasion", '"graduation"')]),
    ({"occasion": "birthday", "budget": -5}, [("$.budget", "-5")]),
    ({"occasion": "birthday", "budget": 0}, [("$.budget", "0")]),
    ({"occasion": "birthday", "budget": 20, "colour": "red"}, [("$", "'colour'")]),
    ({"budget": 20}, [("$", '"occasion" is a required property')]),
    ({"occasion": "birthday", "budget": "20"}, [("$.budget", '"20"')]),
    (
        {"occasion": "graduation", "budget": -5, "colour": "red"},
        [("$", "'colour'"), ("$.budget", "-5"), ("$.occasion", '"graduation"')],
    ),
    (
        {"recipient": 7, "extra": True},
        [
            ("$", '"occasion" is a required property'),
            ("$", '"budget" is a required property'),
            ("$", "'extra'"),
            ("$.recipient", "7"),
        ],
    ),
]

INVALID_CARDS_ARGUMENTS = [
    ({"budget": 50, "count": 0}, [("$.count", "0")]),
    ({"budget": 50, "count": 11}, [("$.count", "11")]),
    ({"budget": 50, "count": 2.5}, [("$.count", "2.5")]),
    ({}, [("$", '"budget" is a required property')]),
]


async def test_invalid_arguments_are_tool_errors(target: Target) -> None:
    async with connected(target.client(), target.mode) as client:
        for tool, cases in [
            ("suggest_gifts", INVALID_GIFTS_ARGUMENTS),
            ("suggest_gift_cards", INVALID_CARDS_ARGUMENTS),
        ]:
            for arguments, expected in cases:
                result = await client.call_tool(tool, arguments)
                assert result.is_error is True, (arguments, result)
                assert result.structured_content is None
                assert_violations(only_text(result), tool, expected)


async def test_unknown_tool_and_business_error(target: Target) -> None:
    async with connected(target.client(), target.mode) as client:
        await client.list_tools()
        # An unknown tool is a protocol error.
        with pytest.raises(MCPError) as caught:
            await client.call_tool("suggest_flights", {"budget": 10})
        assert caught.value.code == -32602
        assert "suggest_flights" in caught.value.message

        # A business failure is a readable isError result.
        result = await client.call_tool("suggest_gifts", {"occasion": "wedding", "budget": 10})
        assert result.is_error is True
        assert result.structured_content is None
        assert only_text(result) == "No gifts for a wedding within 10.00 EUR; try a larger budget."

        cards = await client.call_tool("suggest_gift_cards", {"budget": 5})
        assert cards.is_error is True
        assert only_text(cards) == "The smallest gift card is 10.00 EUR."

        # The server keeps serving.
        ok = await client.call_tool("suggest_gifts", {"occasion": "wedding", "budget": 25})
        assert not ok.is_error, ok
        assert ok.structured_content == {"gifts": gifts_for("wedding", 25), "total": 1}


# --------------------------------------------------------------------------- handler failures (in-memory)


class CrashingShop(GiftShop):  # type: ignore[misc, valid-type]
    async def suggest_gifts(self, args: SuggestGiftsInput, ctx: Any) -> SuggestGiftsOutput:
        raise RuntimeError("secret detail")


async def test_crashing_handler_is_generic_tool_error(
    memory_mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="gift_server")
    async with in_memory(CrashingShop(), memory_mode) as client:
        result = await client.call_tool("suggest_gifts", {"occasion": "birthday", "budget": 50})
        assert result.is_error is True
        text = only_text(result)
        assert "internal error" in text
        assert "secret detail" not in text
        assert "Traceback" not in text
        assert "RuntimeError" not in text
        assert "secret detail" not in json.dumps(wire(result))
        # Still serving.
        ok = await client.call_tool("suggest_gift_cards", {"budget": 20})
        assert ok.structured_content == {"result": [20.0, 15.0, 10.0]}

    records = gift_server_errors(caplog)
    assert records, caplog.text
    assert any(
        r.exc_info is not None and isinstance(r.exc_info[1], RuntimeError) and "secret detail" in str(r.exc_info[1])
        for r in records
    ), caplog.text
    assert "Traceback" in caplog.text and "secret detail" in caplog.text


def _bad_many() -> Any:
    return SuggestGiftsOutput.model_construct(gifts=[], total="many")


BAD_VALUES: dict[str, tuple[str, Any, str, str]] = {
    # case: (tool, bad value, marker that must not reach the client, JSON path logged)
    "model_construct-total-many": ("suggest_gifts", _bad_many, "many", "$.total"),
    "dict-missing-gifts": ("suggest_gifts", lambda: {"total": 987654}, "987654", "$.gifts"),
    "dict-extra-field": (
        "suggest_gifts",
        lambda: {"gifts": [], "total": 0, "leak": "hunter2"},
        "hunter2",
        "$: Additional properties are not allowed ('leak' was unexpected)",
    ),
    "cards-not-numbers": ("suggest_gift_cards", lambda: ["ten", "twenty-two"], "twenty-two", "$[0]"),
}


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")
@pytest.mark.parametrize("case", list(BAD_VALUES))
async def test_wrong_shape_is_internal_error(
    case: str, memory_mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    tool, make_bad, marker, path = BAD_VALUES[case]

    class WrongShapeShop(GiftShop):  # type: ignore[misc, valid-type]
        async def suggest_gifts(self, args: Any, ctx: Any) -> Any:
            return make_bad()

        async def suggest_gift_cards(self, args: Any, ctx: Any) -> Any:
            return make_bad()

    arguments = {"occasion": "birthday", "budget": 50} if tool == "suggest_gifts" else {"budget": 50}
    caplog.set_level(logging.ERROR, logger="gift_server")
    async with in_memory(WrongShapeShop(), memory_mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool(tool, arguments)
        error = caught.value
        assert error.code == -32603
        assert tool in error.message
        reached_client = f"{error.message} {json.dumps(error.data)}"
        assert marker not in reached_client
        assert path not in reached_client
        # A good tool still answers.
        ok = await client.list_tools()
        assert len(ok.tools) == 2

    records = gift_server_errors(caplog)
    assert records, caplog.text
    assert any(path in r.getMessage() for r in records), caplog.text


class CrashingReadersShop(GiftShop):  # type: ignore[misc, valid-type]
    async def read_gift(self, id: str, ctx: Any) -> Any:
        raise RuntimeError("secret detail")

    async def get_gift_thank_you(self, args: Any, ctx: Any) -> Any:
        raise RuntimeError("secret detail")


async def test_crashing_resource_and_prompt_handlers_are_internal_errors(
    memory_mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="gift_server")
    async with in_memory(CrashingReadersShop(), memory_mode) as client:
        for call in (
            lambda: client.read_resource("gifts://book"),
            lambda: client.get_prompt("gift_thank_you", {"gift": "teapot"}),
        ):
            with pytest.raises(MCPError) as caught:
                await call()
            assert caught.value.code == -32603
            leaked = f"{caught.value.message} {json.dumps(caught.value.data)}"
            assert "secret detail" not in leaked
            assert "Traceback" not in leaked
        # Other handlers still answer.
        catalog = await client.read_resource(CATALOG_URI)
        assert json.loads(catalog.contents[0].text) == CATALOG  # type: ignore[union-attr]

    crashes = [r for r in gift_server_errors(caplog) if r.exc_info and "secret detail" in str(r.exc_info[1])]
    assert len(crashes) == 2, caplog.text


class WrongShapeReadersShop(GiftShop):  # type: ignore[misc, valid-type]
    async def read_gift_catalog(self, ctx: Any) -> Any:
        return {"gifts": "secret-catalog"}

    async def read_gift(self, id: str, ctx: Any) -> Any:
        return {"id": id, "name": "secret-gift", "price": -1, "occasions": ["birthday"]}


async def test_wrong_shape_resources_are_internal_errors(
    memory_mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="gift_server")
    async with in_memory(WrongShapeReadersShop(), memory_mode) as client:
        for uri, marker in [
            (CATALOG_URI, "secret-catalog"),
            ("gifts://book", "secret-gift"),
        ]:
            with pytest.raises(MCPError) as caught:
                await client.read_resource(uri)
            assert caught.value.code == -32603
            assert marker not in f"{caught.value.message} {json.dumps(caught.value.data)}"
    logged = "\n".join(r.getMessage() for r in gift_server_errors(caplog))
    assert "$.gifts" in logged and "$.price" in logged, caplog.text


class WrongShapePromptShop(GiftShop):  # type: ignore[misc, valid-type]
    async def get_gift_thank_you(self, args: Any, ctx: Any) -> Any:
        return ["secret-prompt-text"]  # not PromptMessage objects


async def test_wrong_shape_prompt_is_internal_error(
    memory_mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="gift_server")
    async with in_memory(WrongShapePromptShop(), memory_mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("gift_thank_you", {"gift": "teapot"})
        assert "secret-prompt-text" not in f"{caught.value.message} {json.dumps(caught.value.data)}"
        assert caught.value.code == -32603
    assert gift_server_errors(caplog), "the bad prompt result was not logged server-side"


# --------------------------------------------------------------------------- resources


async def test_read_resources(target: Target) -> None:
    catalog_validator = Draft202012Validator(spec_schema(SPEC["resources"]["gift_catalog"]["schema"]))
    gift_validator = Draft202012Validator(spec_schema(SPEC["resources"]["gift"]["schema"]))
    async with connected(target.client(), target.mode) as client:
        catalog = await client.read_resource(CATALOG_URI)
        assert len(catalog.contents) == 1
        item = catalog.contents[0]
        assert isinstance(item, types.TextResourceContents)
        assert item.uri == CATALOG_URI
        assert item.mime_type == "application/json"
        data = json.loads(item.text)
        assert list(catalog_validator.iter_errors(data)) == []
        assert data == CATALOG

        book = await client.read_resource("gifts://book")
        assert len(book.contents) == 1
        item = book.contents[0]
        assert isinstance(item, types.TextResourceContents)
        assert item.uri == "gifts://book"
        assert item.mime_type == "application/json"
        data = json.loads(item.text)
        assert list(gift_validator.iter_errors(data)) == []
        assert data == next(g for g in CATALOG["gifts"] if g["id"] == "book")

        widget = await client.read_resource(WIDGET_URI)
        assert len(widget.contents) == 1
        item = widget.contents[0]
        assert isinstance(item, types.TextResourceContents)
        assert item.uri == WIDGET_URI
        assert item.mime_type == "text/html+skybridge"
        assert item.text == WIDGET_HTML

        for missing in ["gifts://nope", "mcp://gift-server/resources/nope"]:
            with pytest.raises(MCPError) as caught:
                await client.read_resource(missing)
            assert caught.value.code == -32602
            assert caught.value.data == {"uri": missing}


# --------------------------------------------------------------------------- prompts


async def test_prompts(target: Target) -> None:
    async with connected(target.client(), target.mode) as client:
        style = await client.get_prompt("gift_congrats_style", {"occasion": "birthday", "tone": "funny"})
        assert style.description == "Writes a greeting to go with a gift."
        assert len(style.messages) == 1
        message = style.messages[0]
        assert message.role == "user"
        assert isinstance(message.content, types.TextContent)
        assert message.content.text == "Write a short funny greeting card text for a birthday."

        # Argument values are printed literally, never evaluated as templates.
        injected = await client.get_prompt(
            "gift_congrats_style", {"occasion": "{{ occasion }}", "tone": "{{tone}} {{ 7*7 }}"}
        )
        content = injected.messages[0].content
        assert isinstance(content, types.TextContent)
        assert content.text == "Write a short {{tone}} {{ 7*7 }} greeting card text for a {{ occasion }}."

        with pytest.raises(MCPError) as caught:
            await client.get_prompt("gift_congrats_style", {"tone": "warm"})
        assert caught.value.code == -32602
        assert "occasion" in caught.value.message

        thanks = await client.get_prompt("gift_thank_you", {"gift": "teapot"})
        assert thanks.description == (
            "A thank-you note for a gift received, written by the server's own logic."
        )
        assert len(thanks.messages) == 1
        assert thanks.messages[0].role == "user"
        content = thanks.messages[0].content
        assert isinstance(content, types.TextContent)
        assert content.text == "Write a warm, two-sentence thank-you note for the teapot I received."

        with pytest.raises(MCPError) as caught:
            await client.get_prompt("gift_thank_you", {})
        assert caught.value.code == -32602


# --------------------------------------------------------------------------- typed client


async def test_typed_client(target: Target) -> None:
    async with target.typed() as gifts:
        assert isinstance(gifts, GiftServerClient)
        assert gifts.client.protocol_version == ERA[target.mode]

        suggested = await gifts.suggest_gifts(occasion="anniversary", budget=30, recipient="Sam")
        assert isinstance(suggested, SuggestGiftsOutput)
        assert all(isinstance(gift, Gift) for gift in suggested.gifts)
        assert [g.id for g in suggested.gifts] == ["flowers", "book"]
        assert suggested.total == 2

        cards = await gifts.suggest_gift_cards(budget=26)
        assert cards == [25.0, 20.0, 15.0]
        assert all(isinstance(amount, float) for amount in cards)
        assert await gifts.suggest_gift_cards(budget=26, count=1) == [25.0]

        catalog = await gifts.read_gift_catalog()
        assert isinstance(catalog, GiftCatalogContent)
        assert catalog.model_dump(mode="json") == CATALOG

        book = await gifts.read_gift(id="book")
        assert isinstance(book, Gift)
        assert book.model_dump(mode="json") == next(g for g in CATALOG["gifts"] if g["id"] == "book")

        assert await gifts.read_gifts_widget() == WIDGET_HTML

        prompt = await gifts.get_gift_congrats_style(occasion="wedding", tone="formal")
        content = prompt.messages[0].content
        assert isinstance(content, types.TextContent)
        assert content.text == "Write a short formal greeting card text for a wedding."

        thanks = await gifts.get_gift_thank_you(gift="scarf")
        content = thanks.messages[0].content
        assert isinstance(content, types.TextContent)
        assert "scarf" in content.text

        with pytest.raises(ToolCallError) as caught:
            await gifts.suggest_gifts(occasion="wedding", budget=10)
        assert caught.value.message == "No gifts for a wedding within 10.00 EUR; try a larger budget."
        assert caught.value.tool == "suggest_gifts"
        assert caught.value.result.is_error is True

        with pytest.raises(MCPError) as not_found:
            await gifts.read_gift(id="nope")
        assert not_found.value.code == -32602
        assert not_found.value.data == {"uri": "gifts://nope"}

        # Still serving after the errors.
        again = await gifts.suggest_gifts(occasion="wedding", budget=25)
        assert [g.id for g in again.gifts] == ["flowers"]


def test_package_exports_the_typed_client() -> None:
    assert gift_server.GiftServerClient is GiftServerClient
    assert gift_server.ToolCallError is ToolCallError
    assert Path(gift_server.__file__).resolve().parent == GENERATED.resolve()
