"""prompts/get, the prompt templates the package ships (prompts.json), pagination and completion."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from toy_server.server import create_server

from mcpgen.runtime.prompt_templates import render_template

TOY = Path(__file__).parent / "toy_server"

pytestmark = pytest.mark.anyio
MODES = ["auto", "legacy"]  # 2026-07-28 in process, and the 2025-11-25 handshake


def _texts(result: types.GetPromptResult) -> list[tuple[str, str]]:
    return [(m.role, m.content.text) for m in result.messages if isinstance(m.content, types.TextContent)]


@pytest.mark.parametrize("mode", MODES)
async def test_spec_messages(mode: str) -> None:
    toy = create_server()
    async with Client(toy, mode=mode) as client:
        plain = await client.get_prompt("greet", {"name": "Ada"})
        toned = await client.get_prompt("greet", {"name": "Ada", "tone": "warm"})
    assert plain.description == "A greeting."
    assert _texts(plain) == [("user", "Greet Ada."), ("assistant", "Gladly.")]
    assert _texts(toned)[0] == ("user", "Greet Ada in a warm tone.")


@pytest.mark.parametrize("mode", MODES)
async def test_handler_messages(mode: str) -> None:
    toy = create_server()
    async with Client(toy, mode=mode) as client:
        result = await client.get_prompt("summary", {"topic": "cats"})
    assert _texts(result) == [("user", "Summarize cats.")]


@pytest.mark.parametrize("mode", MODES)
async def test_invalid_prompt_arguments(mode: str) -> None:
    toy = create_server()
    async with Client(toy, mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("greet", {"tone": "warm", "mood": "x"})
        assert caught.value.code == -32602
        assert caught.value.message == (
            "Invalid arguments for prompt 'greet': missing required argument 'name'; " "unknown argument 'mood'"
        )
        with pytest.raises(MCPError) as unknown:
            await client.get_prompt("farewell", {})
        assert unknown.value.code == -32602


def test_render_template() -> None:
    template = [
        "Dear ",
        {"var": "name", "default": "friend"},
        {"if": "gift", "not": False, "then": [", thanks for the ", {"var": "gift"}], "else": []},
        {"if": "gift", "not": True, "then": [", hello"], "else": []},
        ".",
    ]
    assert render_template(template, {}) == "Dear friend, hello."
    assert render_template(template, {"name": "Ada", "gift": "book"}) == "Dear Ada, thanks for the book."
    # An empty argument counts as absent; values are printed, never read as templates.
    assert render_template(template, {"name": "{var}", "gift": ""}) == "Dear {var}, hello."


@pytest.mark.parametrize("mode", MODES)
async def test_pages_and_cursors(mode: str) -> None:
    server = create_server(page_size=3)
    async with Client(server, mode=mode) as client:
        first = await client.list_tools(cache_mode="bypass")
        assert [t.name for t in first.tools] == ["divide", "halves", "echo"]
        assert first.next_cursor is not None
        second = await client.list_tools(cursor=first.next_cursor, cache_mode="bypass")
        assert [t.name for t in second.tools] == ["ask_name"]
        assert second.next_cursor is None
        resources = await client.list_resources(cache_mode="bypass")
        assert [r.name for r in resources.resources] == ["motd", "raw", "widget"]
        tampered = first.next_cursor[:-4] + "AAAA"
        forged = base64.urlsafe_b64encode(b"1.0").decode()
        for cursor in ["nonsense", tampered, forged, resources.next_cursor]:
            with pytest.raises(MCPError) as caught:
                await client.list_tools(cursor=cursor, cache_mode="bypass")
            assert caught.value.code == -32602
            assert caught.value.data == {"cursor": cursor}


async def test_completion() -> None:
    toy = create_server()
    async with Client(toy, mode="auto") as client:
        spec = await client.complete(types.PromptReference(name="greet"), {"name": "tone", "value": "w"})
        handler = await client.complete(
            types.ResourceTemplateReference(uri="toy://items/{id}"), {"name": "id", "value": "ap"}
        )
        nothing = await client.complete(types.PromptReference(name="greet"), {"name": "name", "value": ""})
    assert (spec.completion.values, spec.completion.total, spec.completion.has_more) == (
        ["warm", "witty"],
        2,
        False,
    )
    assert handler.completion.values == ["apple", "apricot"]
    assert nothing.completion.values == []


@pytest.mark.slow  # a subprocess
def test_spec_messages_are_read_from_a_zipped_package(tmp_path: Path) -> None:
    """prompts.json is package data, read with importlib.resources: a package imported from
    a zip serves its spec messages as one imported from a folder does."""
    archive = tmp_path / "toy.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in sorted(TOY.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                zipped.write(path, path.relative_to(TOY.parent).as_posix())
    script = (
        "import anyio\n"
        "from mcp import Client\n"
        "import toy_server\n"
        "from toy_server.server import create_server\n"
        "async def main():\n"
        "    async with Client(create_server()) as client:\n"
        "        result = await client.get_prompt('greet', {'name': 'Ada', 'tone': 'warm'})\n"
        "    print(toy_server.__file__)\n"
        "    print(result.messages[0].content.text)\n"
        "anyio.run(main)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(archive)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [str(archive / "toy_server" / "__init__.py"), "Greet Ada in a warm tone."]
