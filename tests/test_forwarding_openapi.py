"""An imported OpenAPI document served as MCP (issue 25): `mcpgen import --openapi` on the
OAI petstore, `mcpgen build`, `python -m PACKAGE --http` forwarding to a Prism mock of the
same document (which refuses requests the document does not allow), called by MCP clients
of both eras. The large documents and the FastMCP comparison are test_openapi_proof.py's."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import (
    free_port,
    listening,
    node_environment,
    require_node_tools,
    run_mcpgen,
)
from mcp import Client
from services import wait_for_port

pytestmark = pytest.mark.anyio

PETSTORE = Path(__file__).parent / "openapi" / "oai" / "petstore.yaml"


@contextmanager
def prism(document: Path, home: Path) -> Iterator[str]:
    """Prism mocking `document` (it refuses requests the document does not allow, 422); its URL."""
    tools = require_node_tools()
    port = free_port()
    command = [
        str(tools / "node_modules" / ".bin" / "prism"),
        "mock",
        "-h",
        "127.0.0.1",
        "-p",
        str(port),
        str(document),
    ]
    with (home / "prism.log").open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=node_environment(tools, home))
        try:
            wait_for_port(port, process, timeout=120)
            yield f"http://127.0.0.1:{port}"
        finally:
            process.terminate()
            process.wait(timeout=30)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_imported_petstore_forwards_to_prism(mode: str, tmp_path: Path) -> None:
    imported_spec = run_mcpgen("import", "--openapi", str(PETSTORE), "-o", "petstore.yaml", cwd=tmp_path)
    assert imported_spec.returncode == 0, imported_spec.stderr
    built_package = run_mcpgen("build", "petstore.yaml", "-o", "out", cwd=tmp_path)
    assert built_package.returncode == 0, built_package.stderr
    with prism(PETSTORE, tmp_path) as mock:
        environment = dict(os.environ, PYTHONPATH=str(tmp_path / "out"), MCP_UPSTREAM_URL=mock)
        command = lambda port: [sys.executable, "-m", "swagger_petstore", "--http", f"127.0.0.1:{port}"]  # noqa: E731
        with listening(command, env=environment, cwd=str(tmp_path)) as url:
            async with Client(url, mode=mode) as client:
                assert {tool.name for tool in (await client.list_tools()).tools} == {
                    "listPets",
                    "createPets",
                    "showPetById",
                }
                pets = await client.call_tool("listPets", {"limit": 5})
                assert not pets.is_error, pets.content
                assert isinstance(pets.structured_content, dict) and isinstance(pets.structured_content["result"], list)
                pet = await client.call_tool("showPetById", {"petId": "12"})
                assert not pet.is_error and isinstance(pet.structured_content, dict), pet.content
                assert {"id", "name"} <= set(pet.structured_content)
                created = await client.call_tool("createPets", {"id": 1, "name": "Rex"})
                assert not created.is_error, created.content
                # Prism refuses what the document does not allow; the tool's own schema refused it first.
                refused = await client.call_tool("listPets", {"limit": 500})
                assert refused.is_error
