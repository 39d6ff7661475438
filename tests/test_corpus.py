"""Real servers' contracts, written by other people, survive mcpgen unchanged.

Each captured `*/list` answer in shared/corpus becomes a spec; the generated server must
build, type-check, and serve the very same payloads back to a real client in both eras.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
import yaml
from helpers import (
    CORPUS,
    built_package,
    corpus_spec,
    server_listings,
    stub_implementation,
    tools_as_listed,
)

pytestmark = pytest.mark.slow  # each case builds a package

SERVERS = sorted(path.stem for path in CORPUS.glob("*.json"))


@pytest.mark.parametrize("name", SERVERS)
def test_corpus_server_round_trips(name: str, tmp_path: Path) -> None:
    capture = json.loads((CORPUS / f"{name}.json").read_text())
    package = f"corpus_{name}"
    spec_path = tmp_path / f"{name}.yaml"
    spec_path.write_text(yaml.safe_dump(corpus_spec(capture, package), sort_keys=False, allow_unicode=True))
    with built_package(spec_path, tmp_path / "out") as generated:
        server = generated.create_server(stub_implementation(generated.Handlers))
        for mode in ("auto", "legacy"):
            served = anyio.run(server_listings, server, mode)
            assert len(served["tools"]) == len(capture["tools"]) > 0
            for key in ("tools", "resources", "resourceTemplates", "prompts"):
                expected = capture.get(key, [])
                if key == "tools":
                    expected = tools_as_listed(expected, mode)
                assert served[key] == expected, f"{name} {key} in {mode} mode"
