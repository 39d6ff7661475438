"""Regressions for what the fuzzing campaigns (tests/test_fuzz.py) found, each as a plain test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import build_and_write, imported
from mcp import Client

pytestmark = [pytest.mark.slow, pytest.mark.anyio]  # each builds a package


async def test_a_resource_whose_schema_is_empty_serves_its_content(tmp_path: Path) -> None:
    """`schema: {}` (anything) has a content model and a resourceSchemas entry; the server
    used to refuse to start, its bindings not matching schema.json."""
    spec = {
        "mcpgen": 1,
        "server": {"name": "anything", "version": "1"},
        "resources": {"item": {"uriTemplate": "items://{id}", "mimeType": "application/json", "schema": {}}},
    }
    path = tmp_path / "spec.yaml"
    path.write_text(json.dumps(spec), encoding="utf-8")
    result = build_and_write(path)
    assert json.loads((result.directory / "schema.json").read_text())["resourceSchemas"] == {"item": {}}

    with imported("anything", result.directory.parent) as package:

        class Items(package.Handlers):  # type: ignore[name-defined,misc]
            async def read_item(self, id: str, ctx: Any) -> Any:
                return {"id": id, "any": [1, None]}

        async with Client(package.create_server(Items()), mode="auto") as client:
            read = await client.read_resource("items://7")
            assert json.loads(read.contents[0].text) == {"id": "7", "any": [1, None]}
