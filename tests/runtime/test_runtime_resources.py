"""resources/read and resource templates through the runtime, in both protocol eras."""

from __future__ import annotations

import base64
import json
import logging
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from toy_server.handlers import Toy
from toy_server.server import create_server

from mcpgen.runtime.server import GeneratedServer

pytestmark = pytest.mark.anyio
MODES = ["auto", "legacy"]  # 2026-07-28 in process, and the 2025-11-25 handshake
STATIC = Path(__file__).parent / "toy_server" / "_static"


async def _read(
    server: GeneratedServer, mode: str, uri: str
) -> types.TextResourceContents | types.BlobResourceContents:
    async with Client(server, mode=mode) as client:
        result = await client.read_resource(uri)
    [item] = result.contents
    assert item.uri == uri
    return item


@pytest.mark.parametrize("mode", MODES)
async def test_inline_text(mode: str) -> None:
    toy = create_server()
    item = await _read(toy, mode, "toy://motd")
    assert isinstance(item, types.TextResourceContents)
    assert (item.text, item.mime_type) == ("hello", "text/plain")


@pytest.mark.parametrize("mode", MODES)
async def test_inline_blob(mode: str) -> None:
    toy = create_server()
    item = await _read(toy, mode, "toy://raw")
    assert isinstance(item, types.BlobResourceContents)
    assert (item.blob, item.mime_type) == ("aGVsbG8=", "application/octet-stream")


@pytest.mark.parametrize("mode", MODES)
async def test_text_file_of_the_package(mode: str) -> None:
    toy = create_server()
    item = await _read(toy, mode, "ui://toy/widget.html")
    assert isinstance(item, types.TextResourceContents)
    assert item.text == (STATIC / "widget.html").read_text(encoding="utf-8")
    assert "Café" in item.text and item.mime_type == "text/html"


@pytest.mark.parametrize("mode", MODES)
async def test_binary_file_of_the_package(mode: str) -> None:
    toy = create_server()
    item = await _read(toy, mode, "toy://logo.png")
    assert isinstance(item, types.BlobResourceContents)
    assert base64.b64decode(item.blob) == (STATIC / "logo.png").read_bytes()
    assert item.mime_type == "image/png"


@pytest.mark.parametrize("mode", MODES)
async def test_handler_with_a_content_model(mode: str) -> None:
    toy = create_server()
    item = await _read(toy, mode, "toy://stats")
    assert isinstance(item, types.TextResourceContents)
    assert json.loads(item.text) == {"count": 3}
    assert item.mime_type == "application/json"


@pytest.mark.parametrize("mode", MODES)
async def test_handler_without_a_content_model(mode: str) -> None:
    toy = create_server()
    item = await _read(toy, mode, "toy://note")
    assert isinstance(item, types.TextResourceContents) and item.text == "a note"


@pytest.mark.parametrize("mode", MODES)
async def test_content_that_breaks_its_schema_is_an_internal_error(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="mcpgen")
    # count=-1 suits the model (int) but not the schema (minimum 0): the schema is checked too.
    async with Client(create_server(Toy(stats_count=-1)), mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource("toy://stats")
    assert caught.value.code == -32603
    assert "-1" not in caught.value.message
    assert any("$.count: -1 is less than the minimum of 0" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("mode", MODES)
async def test_template(mode: str) -> None:
    toy = create_server()
    item = await _read(toy, mode, "toy://items/apple")
    assert isinstance(item, types.TextResourceContents)
    assert json.loads(item.text) == {"id": "apple", "name": "An apple"}
    assert item.mime_type == "application/json"


@pytest.mark.parametrize("uri", ["toy://items/cherry", "toy://nothing"])
@pytest.mark.parametrize("mode", MODES)
async def test_not_found(mode: str, uri: str) -> None:
    toy = create_server()
    async with Client(toy, mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)
    assert caught.value.code == -32602
    assert caught.value.data == {"uri": uri}
