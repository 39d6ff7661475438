"""`tools.<name>.execution.taskSupport` (issue 22, item 1): written in the wire spelling,
kept in the spec model and the IR, served as written where the protocol era has the
field (2025-11-25's Tool) and left out where it has none (2026-07-28's), and handed to
the runtime as `ToolBinding(task_support=...)`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from helpers import (
    build_and_write,
    built_package,
    server_listings,
    stub_implementation,
    wire,
    write_spec,
)

from mcpgen.ir.resolve import resolve
from mcpgen.services.spec_loading import load_spec

TASKS_SPEC = """\
mcpgen: 1
server: {name: tasky, version: "1.0.0", package: tasky}
tools:
  report:
    description: A report that takes minutes.
    inputSchema: {type: object, properties: {days: {type: integer}}}
    execution: {taskSupport: optional}
  batch:
    inputSchema: {type: object}
    execution: {taskSupport: required}
  quick:
    inputSchema: {type: object}
    execution: {taskSupport: forbidden}
  bare:
    inputSchema: {type: object}
    execution: {}
  plain:
    inputSchema: {type: object}
"""

WRITTEN = {
    "report": {"taskSupport": "optional"},
    "batch": {"taskSupport": "required"},
    "quick": {"taskSupport": "forbidden"},
    "bare": {},
    "plain": None,
}


def test_the_spec_model_and_the_ir_keep_what_the_spec_writes(tmp_path: Path) -> None:
    spec, raw, _ = load_spec(write_spec(tmp_path, TASKS_SPEC))
    api = resolve(spec, raw)
    assert {tool.name: tool.task_support for tool in spec.tools} == {
        "report": "optional",
        "batch": "required",
        "quick": "forbidden",
        "bare": None,
        "plain": None,
    }
    assert {tool.name: tool.task_support for tool in api.tools} == {tool.name: tool.task_support for tool in spec.tools}
    assert {tool.name: tool.wire.get("execution") for tool in api.tools} == WRITTEN
    # In the wire's place: after the annotations, before icons and _meta.
    assert list(api.tools[0].wire) == ["name", "description", "inputSchema", "execution"]


def test_the_server_hands_task_support_to_the_runtime_only_where_tasks_are_allowed(tmp_path: Path) -> None:
    built = build_and_write(write_spec(tmp_path, TASKS_SPEC), tmp_path / "out")
    server = (built.directory / "server.py").read_text()
    bindings = {line.split('"')[1]: line for line in _binding_lines(server)}
    assert 'task_support="optional"' in bindings["report"]
    assert 'task_support="required"' in bindings["batch"]
    for name in ("quick", "bare", "plain"):
        assert "task_support" not in bindings[name], bindings[name]


def _binding_lines(server: str) -> list[str]:
    """Each `"name": ToolBinding(...)` entry of server.py, joined onto one line."""
    entries: list[str] = []
    for line in server.splitlines():
        stripped = line.strip()
        if stripped.startswith('"') and "ToolBinding(" in stripped:
            entries.append(stripped)
        elif entries and not entries[-1].rstrip().endswith("),"):
            entries[-1] += " " + stripped
    return entries


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_tools_list_serves_execution_in_the_era_that_has_it(tmp_path: Path, mode: str) -> None:
    with built_package(write_spec(tmp_path, TASKS_SPEC), tmp_path / "out") as package:
        server = package.create_server(stub_implementation(package.Handlers))
        tools: list[dict[str, Any]] = anyio.run(server_listings, server, mode)["tools"]
    served = {tool["name"]: tool.get("execution") for tool in tools}
    if mode == "legacy":  # 2025-11-25: exactly as written
        assert served == WRITTEN
    else:  # 2026-07-28's Tool has no `execution`: its tasks extension decides per call
        assert served == dict.fromkeys(WRITTEN)


def test_a_task_tool_implies_the_tasks_capability_the_runtime_announces(tmp_path: Path) -> None:
    plain = TASKS_SPEC.replace("taskSupport: optional", "taskSupport: forbidden").replace(
        "taskSupport: required", "taskSupport: forbidden"
    )
    for text, announced in ((TASKS_SPEC, True), (plain, False)):
        spec, raw, _ = load_spec(write_spec(tmp_path, text))
        capabilities = resolve(spec, raw).capabilities
        assert ("tasks" in capabilities) == announced
    with built_package(write_spec(tmp_path, TASKS_SPEC), tmp_path / "out") as package:
        server = package.create_server(stub_implementation(package.Handlers))
        legacy, modern = anyio.run(_announced, server)
    assert legacy.get("tasks") == resolve(*load_spec(tmp_path / "spec.yaml")[:2]).capabilities["tasks"]
    assert "tasks" not in modern  # 2026-07-28 names its tasks extension in server/discover instead
    assert "io.modelcontextprotocol/tasks" in modern.get("extensions", {})


async def _announced(server: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    from mcp import Client

    announced = []
    for mode in ("legacy", "auto"):
        async with Client(server, mode=mode) as client:
            announced.append(wire(client.server_capabilities))
    return announced[0], announced[1]


def test_a_2026_listing_of_a_task_server_says_what_it_cannot_tell() -> None:
    from mcpgen.importer.compare import served_losses

    tools = [{"name": "report", "inputSchema": {"type": "object"}}]
    served = {"serverInfo": {"name": "s", "version": "1"}, "capabilities": {"tools": {}}, "tools": tools}
    extensions = {"io.modelcontextprotocol/tasks": {}, "io.example/other": {}}
    capture = {**served, "capabilities": {"tools": {}, "extensions": extensions}}
    losses = [(loss.item, loss.key, loss.message) for loss in served_losses(capture, served, [])]
    assert losses[0][:2] == ("server", "extensions")
    assert "import with --era legacy to keep each tool's execution.taskSupport" in losses[0][2]
    # Any other extension is compared as before.
    assert losses[1:] == [
        (
            "server",
            "extensions",
            'capability \'extensions\' is {"io.example/other":{}} on the original and would be nothing on the built server',
        )
    ]
    alone = {**served, "capabilities": {"tools": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}}
    assert len(served_losses(alone, served, [])) == 1
