"""The official MCP Inspector CLI drives the generated gift server over stdio, in both eras."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import EXAMPLE_APP, GENERATED, node_environment, require_node_tools

pytestmark = [pytest.mark.node, pytest.mark.slow]

ERAS = ["legacy", "modern"]


def inspector(tmp_path: Path, era: str, *arguments: str) -> tuple[int, list[dict[str, Any]]]:
    tools = require_node_tools()
    command = [
        str(tools / "node_modules" / ".bin" / "mcp-inspector"),
        "--cli",
        sys.executable,
        str(EXAMPLE_APP),
        "--protocol-era",
        era,
        "--format",
        "json",
        *arguments,
    ]
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=120, env=node_environment(tools, tmp_path)
    )
    documents = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert documents, f"no JSON from the Inspector: {result.stdout}\n{result.stderr}"
    return result.returncode, documents


def suggest_gifts(tmp_path: Path, era: str, arguments: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
    call = ["--method", "tools/call", "--tool-name", "suggest_gifts", "--tool-args-json", json.dumps(arguments)]
    return inspector(tmp_path, era, *call)


@pytest.mark.parametrize("era", ERAS)
def test_tools_list(tmp_path: Path, era: str) -> None:
    code, [answer] = inspector(tmp_path, era, "--method", "tools/list")
    assert code == 0
    served = answer["result"]["tools"]
    expected = json.loads((GENERATED / "schema.json").read_text())["tools/list"]["tools"]
    assert served == expected


@pytest.mark.parametrize("era", ERAS)
def test_tools_call_valid_and_invalid(tmp_path: Path, era: str) -> None:
    code, [answer] = suggest_gifts(tmp_path, era, {"occasion": "birthday", "budget": 20})
    assert code == 0
    result = answer["result"]
    assert result["isError"] is False
    assert result["structuredContent"]["total"] == len(result["structuredContent"]["gifts"]) == 2
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]

    code, documents = suggest_gifts(tmp_path, era, {"occasion": "graduation", "budget": -1})
    assert code != 0  # the Inspector reports an isError result as a failed call...
    result = documents[0]["result"]  # ...after printing the result itself
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert "$.budget" in text and "$.occasion" in text


@pytest.mark.parametrize("era", ERAS)
def test_resources_read(tmp_path: Path, era: str) -> None:
    code, [answer] = inspector(tmp_path, era, "--method", "resources/read", "--uri", "gifts://book")
    assert code == 0
    [content] = answer["result"]["contents"]
    assert content["uri"] == "gifts://book" and content["mimeType"] == "application/json"
    assert json.loads(content["text"])["name"] == "A good novel"


@pytest.mark.parametrize("era", ERAS)
def test_prompts_get(tmp_path: Path, era: str) -> None:
    code, [answer] = inspector(
        tmp_path,
        era,
        "--method",
        "prompts/get",
        "--prompt-name",
        "gift_congrats_style",
        "--prompt-args",
        "occasion=wedding",
        "tone=funny",
    )
    assert code == 0
    [message] = answer["result"]["messages"]
    assert message == {
        "role": "user",
        "content": {"type": "text", "text": "Write a short funny greeting card text for a wedding."},
    }
