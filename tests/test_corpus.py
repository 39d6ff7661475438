"""Real servers' contracts, written by other people, survive mcpgen unchanged.

Each captured `*/list` answer in shared/corpus becomes a spec; the generated server must
build, type-check, and serve the very same payloads back to a real client in both eras.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from helpers import (
    CORPUS,
    CORPUS_UNSUPPORTED_TOOL_KEYS,
    built_package,
    corpus_spec,
    wire,
)

pytestmark = pytest.mark.slow  # each case builds a package

SERVERS = sorted(path.stem for path in CORPUS.glob("*.json"))


def _implementation(handlers: type) -> Any:
    """A Handlers subclass whose every method exists; listing never calls them."""

    async def unused(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    methods = {name: unused for name in handlers.__abstractmethods__}  # type: ignore[attr-defined]
    return type("CorpusHandlers", (handlers,), methods)()


async def _listings(server: Any, mode: str) -> dict[str, list[dict[str, Any]]]:
    from mcp import Client

    def dump(items: list[Any]) -> list[dict[str, Any]]:
        return [wire(item) for item in items]

    async with Client(server, mode=mode) as client:
        return {
            "tools": dump((await client.list_tools()).tools),
            "resources": dump((await client.list_resources()).resources) if client.server_capabilities.resources else [],
            "resourceTemplates": dump((await client.list_resource_templates()).resource_templates)
            if client.server_capabilities.resources
            else [],
            "prompts": dump((await client.list_prompts()).prompts) if client.server_capabilities.prompts else [],
        }


@pytest.mark.parametrize("name", SERVERS)
def test_corpus_server_round_trips(name: str, tmp_path: Path) -> None:
    capture = json.loads((CORPUS / f"{name}.json").read_text())
    package = f"corpus_{name}"
    spec_path = tmp_path / f"{name}.yaml"
    spec_path.write_text(yaml.safe_dump(corpus_spec(capture, package), sort_keys=False, allow_unicode=True))
    with built_package(spec_path, tmp_path / "out") as generated:
        server = generated.create_server(_implementation(generated.Handlers))
        for mode in ("auto", "legacy"):
            served = anyio.run(_listings, server, mode)
            assert len(served["tools"]) == len(capture["tools"]) > 0
            for key in ("tools", "resources", "resourceTemplates", "prompts"):
                expected = capture.get(key, [])
                if key == "tools":
                    expected = [{k: v for k, v in t.items() if k not in CORPUS_UNSUPPORTED_TOOL_KEYS} for t in expected]
                assert served[key] == expected, f"{name} {key} in {mode} mode"
