"""Benchmarks: mcpgen against the alternatives, printed as ratios.

    python benchmarks/run.py [--calls N] [--rounds R]

1. Generation: rendering the gift package (`mcpgen.build.build`, in process) against
   datamodel-code-generator alone on the same schemas (one call), which is the floor for
   producing typed models; and a no-op rebuild (`mcpgen build` on an up-to-date package,
   a fresh process) against a full one.
2. Serving: in-process `tools/call` throughput of the generated gift server (arguments
   validated against the spec's schema, result checked against the outputSchema) against
   a bare low-level `Server` that does none of that, and against the SDK's `MCPServer`.

Numbers are medians of R rounds; this machine is shared and noisy, so read the ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "gift_server.yaml"
sys.path.insert(0, str(ROOT / "generated_example"))


def median_seconds(action: Callable[[], Any], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def generation(rounds: int) -> None:
    from mcpgen.pipeline import build
    from mcpgen.render.models import generate_models

    with tempfile.TemporaryDirectory() as out:
        build(SPEC, Path(out), allow_outside=True)  # warm the lazy imports of both tools
        document = json.dumps({"$defs": build(SPEC, Path(out), allow_outside=True).api.model_schemas})
        mcpgen_time = median_seconds(lambda: build(SPEC, Path(out), allow_outside=True), rounds)
        codegen_time = median_seconds(lambda: generate_models(document), rounds)
        command = [sys.executable, "-m", "mcpgen", "build", str(SPEC), "-o", out, "--allow-outside-project"]
        subprocess.run(command, check=True, capture_output=True)
        noop = median_seconds(lambda: subprocess.run(command, check=True, capture_output=True), rounds)
        full = median_seconds(
            lambda: subprocess.run([*command, "--force"], check=True, capture_output=True), max(1, rounds // 2)
        )
    print("generation (gift spec)")
    print(f"  mcpgen render, all files      {mcpgen_time * 1000:8.1f} ms")
    print(f"  datamodel-codegen, models     {codegen_time * 1000:8.1f} ms   ratio {mcpgen_time / codegen_time:5.2f}x")
    print(f"  mcpgen build, fresh process   {full * 1000:8.1f} ms")
    print(f"  no-op rebuild, fresh process  {noop * 1000:8.1f} ms   ratio {noop / full:5.2f}x of a full build")


def _bare_server() -> Any:
    import mcp_types as types
    from mcp.server.lowlevel import Server

    tool = types.Tool(name="cards", input_schema={"type": "object", "properties": {"budget": {"type": "number"}}})

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        budget = (params.arguments or {})["budget"]
        amounts = [a for a in (10.0, 20.0, 50.0, 100.0) if a <= budget][:3]
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps({"result": amounts}))], structured_content={"result": amounts}
        )

    return Server("bare", version="1", on_list_tools=list_tools, on_call_tool=call_tool)


def _mcpserver() -> Any:
    from mcp.server import MCPServer

    server = MCPServer("sdk")

    @server.tool(name="cards")
    def cards(budget: float) -> list[float]:
        return [a for a in (10.0, 20.0, 50.0, 100.0) if a <= budget][:3]

    return server


async def _throughput(server: Any, tool: str, arguments: dict[str, Any], calls: int) -> float:
    from mcp import Client

    async with Client(server, mode="auto") as client:
        await client.list_tools()
        for _ in range(50):  # warm up
            await client.call_tool(tool, arguments)
        started = time.perf_counter()
        for _ in range(calls):
            result = await client.call_tool(tool, arguments)
            assert not result.is_error
        return calls / (time.perf_counter() - started)


def serving(calls: int, rounds: int) -> None:
    from app import GiftShop
    from gift_server import create_server

    servers: list[tuple[str, Callable[[], Awaitable[float]]]] = [
        ("mcpgen gift server", lambda: _throughput(create_server(GiftShop()), "suggest_gift_cards", {"budget": 60}, calls)),
        ("bare low-level Server", lambda: _throughput(_bare_server(), "cards", {"budget": 60}, calls)),
        ("MCPServer", lambda: _throughput(_mcpserver(), "cards", {"budget": 60}, calls)),
    ]
    rates = {name: statistics.median(anyio.run(run) for _ in range(rounds)) for name, run in servers}
    ours = rates["mcpgen gift server"]
    print(f"serving: in-process tools/call, 2026-07-28, {calls} calls x {rounds} rounds")
    for name, rate in rates.items():
        print(f"  {name:24s} {rate:8.0f} calls/s   mcpgen / this = {ours / rate:5.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    generation(options.rounds)
    serving(options.calls, options.rounds)


if __name__ == "__main__":
    main()
