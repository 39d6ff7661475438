"""Serving benchmark: a generated server against the SDK's MCPServer and a bare low-level Server.

    python benchmarks/serving.py [--quick] [--only in-process,cold-start,http,stdio]
                                 [--calls N] [--rounds R] [--starts K] [--cold-tools T]
                                 [--clients C] [--duration S] [--stdio-calls N]

The tool under test has ten arguments and an object result (benchmarks/servers.py); the
three servers compute the same answer, and only the generated one and MCPServer validate.
  a. in process: `tools/call` through `mcp.Client` on the in-memory transport, both
     protocol eras (2026-07-28 and the 2025-11-25 handshake), calls/s;
  b. cold start over stdio: a fresh process until its first `tools/list` answer is read,
     and until it is parsed too (2026-07-28, one JSON-RPC line with `params._meta`), for
     the package generated from a T-tool spec (benchmarks/specs.py, default 500), a bare
     low-level Server listing the same T tools (read from that package's schema.json),
     the generated ten-argument server, and a hello-world MCPServer; one untimed start
     each first (byte-code), then the median of K;
  c. Streamable HTTP, stateless, 2026-07-28: each server under uvicorn in a subprocess,
     C concurrent clients (one httpx2 AsyncClient, raw JSON-RPC POSTs) for S seconds after
     a warm-up; req/s, p50 and p99 latency;
  d. stdio, one client, N `tools/call` one after the other (2026-07-28 JSON-RPC lines),
     each server as its own `run` serves it, and the generated one also with its start
     left to the garbage collector (no `gc.freeze`): calls/s, p50, p99 and the slowest
     call, where a full collection's pause shows.
Medians of R rounds, rounds interleaved across servers; ratios are within this run.
`--quick` is a smoke run: few calls, a 10-tool cold-start package, 2 s of HTTP, 100
stdio calls.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

import servers  # noqa: E402
from common import (  # noqa: E402
    PYTHON,
    median,
    print_table,
    ratio,
    run_measured,
    seconds,
    server_process,
)
from servers import ARGUMENTS, PACKAGE, TEN_ARGUMENT_SPEC, TOOL, find_offers  # noqa: E402

from specs import write_spec  # noqa: E402

MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
EXPECTED = {
    "offers": find_offers(
        ARGUMENTS["origin"], ARGUMENTS["destination"], ARGUMENTS["max_price"], ARGUMENTS["currency"],
        ARGUMENTS["airlines"], ARGUMENTS["preferences"]["max_stops"],
    ),  # fmt: skip
    "count": 3,
}
GENERATED, SDK, BARE = "mcpgen generated", "MCPServer", "bare low-level Server"


def build_package(spec_text: str | None, tools: int, folder: Path) -> Path:
    """Build a spec (the given text, else the `tools`-tool benchmark spec) with `mcpgen build`
    in a fresh process; the folder that holds the package."""
    if spec_text is None:
        spec = write_spec(folder, tools)
    else:
        folder.mkdir(parents=True)
        spec = folder / "spec.yaml"
        spec.write_text(spec_text, encoding="utf-8")
    run_measured([PYTHON, "-m", "mcpgen", "build", str(spec), "-o", str(folder / "out")])
    return folder / "out"


# --- a. in process ---------------------------------------------------------------------------


async def _calls_per_second(server: Any, mode: str, calls: int) -> float:
    from mcp import Client

    async with Client(server, mode=mode) as client:
        await client.list_tools()
        for _ in range(max(20, calls // 10)):  # warm up, and check the answer
            result = await client.call_tool(TOOL, ARGUMENTS)
            if result.is_error or result.structured_content != EXPECTED:
                raise SystemExit(f"{mode}: unexpected answer {result}")
        started = time.perf_counter()
        for _ in range(calls):
            await client.call_tool(TOOL, ARGUMENTS)
        return calls / (time.perf_counter() - started)


def in_process(package_parent: Path, calls: int, rounds: int) -> None:
    import anyio

    factories: dict[str, Callable[[], Any]] = {
        GENERATED: lambda: servers.generated_server(str(package_parent)),
        SDK: servers.sdk_server,
        BARE: servers.bare_server,
    }
    eras = {MODERN: "auto", "2025-11-25": "legacy"}
    rates: dict[tuple[str, str], list[float]] = {}
    for _ in range(rounds):
        for era, mode in eras.items():
            for name, factory in factories.items():
                server = factory()
                rates.setdefault((name, era), []).append(anyio.run(_calls_per_second, server, mode, calls))
    rate = {key: median(samples) for key, samples in rates.items()}
    rows = []
    for name in factories:
        row = [name]
        for era in eras:
            row += [f"{rate[name, era]:.0f}", ratio(rate[GENERATED, era], rate[name, era])]
        rows.append(row)
    print_table(
        f"serving (a): in-process tools/call, ten arguments, {calls} calls x {rounds} round(s), calls/s",
        ["server", f"{MODERN}", "mcpgen / this", "2025-11-25", "mcpgen / this"],
        rows,
    )


# --- b. cold start over stdio ----------------------------------------------------------------


def _first_list(command: list[str]) -> tuple[float, float, int, int]:
    """Start `command` (a stdio server), send one 2026-07-28 tools/list, read the answer:
    seconds from launch until the answer's line is read, and until it is parsed too
    (json.loads, in this process), the number of tools and the answer's size in bytes."""
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
    started = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(json.dumps(request).encode() + b"\n")
        process.stdin.flush()
        while True:
            line = process.stdout.readline()
            if not line:
                raise SystemExit(f"{' '.join(command)} closed stdout before answering tools/list")
            arrived = time.perf_counter()
            message = json.loads(line)
            if message.get("id") == 1:
                break
        parsed = time.perf_counter()
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if "result" not in message:
        raise SystemExit(f"tools/list failed: {message}")
    return arrived - started, parsed - started, len(message["result"]["tools"]), len(line)


def cold_start(big_parent: Path, big_tools: int, ten_parent: Path, starts: int) -> None:
    """Two measures: until the answer is read (the server's start, as any client sees it)
    and until it is parsed too. The parse is this client's work, which grows with the
    answer (2.4 MB for 500 tools) and with what this process holds when it runs: 35 ms
    here after a cold start alone, 65 ms after the in-process part."""
    script = str(BENCHMARKS / "servers.py")
    commands = {
        f"mcpgen generated, {big_tools} tools": [PYTHON, script, "generated", str(big_parent), f"bench_{big_tools}"],
        f"bare low-level Server, the same {big_tools} tools": [
            PYTHON, script, "bare-listing", str(big_parent), f"bench_{big_tools}",
        ],  # fmt: skip
        "mcpgen generated, ten-argument tool": [PYTHON, script, "generated", str(ten_parent), PACKAGE],
        "MCPServer hello world": [PYTHON, script, "hello"],
    }
    for command in commands.values():
        _first_list(command)  # byte-code compiled, files cached
    samples: dict[str, list[tuple[float, float, int, int]]] = {name: [] for name in commands}
    for _ in range(starts):
        for name, command in commands.items():
            samples[name].append(_first_list(command))
    hello = samples["MCPServer hello world"]
    hello_read, hello_parsed = median([s[0] for s in hello]), median([s[1] for s in hello])
    print_table(
        f"serving (b): cold start to the first tools/list answer over stdio ({MODERN}), median of {starts} fresh processes",
        ["server", "tools", "answer", "read", "min", "read / hello world", "read and parsed", "parsed / hello world"],
        [
            [
                name,
                str(runs[0][2]),
                f"{runs[0][3] / 1024:.0f} KB",
                seconds(median([s[0] for s in runs])),
                seconds(min(s[0] for s in runs)),
                ratio(median([s[0] for s in runs]), hello_read),
                seconds(median([s[1] for s in runs])),
                ratio(median([s[1] for s in runs]), hello_parsed),
            ]
            for name, runs in samples.items()
        ],
    )


# --- d. stdio, calls one after the other -----------------------------------------------------


def _stdio_calls(command: list[str], calls: int) -> tuple[float, float, float, float]:
    """Serve `calls` tools/call one after the other over stdio, after a tenth as many to warm
    up: (calls/s, p50, p99, the slowest)."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdin is not None and process.stdout is not None
    warm_up = max(20, calls // 10)
    latencies: list[float] = []
    try:
        for number in range(warm_up + calls):
            params = {"name": TOOL, "arguments": ARGUMENTS, "_meta": META}
            request = {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params}
            started = time.perf_counter()
            process.stdin.write(json.dumps(request).encode() + b"\n")
            process.stdin.flush()
            line = process.stdout.readline()
            latencies.append(time.perf_counter() - started)
            if number == 0 and json.loads(line).get("result", {}).get("structuredContent") != EXPECTED:
                raise SystemExit(f"{' '.join(command)}: unexpected answer {line[:500]!r}")
    finally:
        process.stdin.close()
        process.wait(timeout=10)
    timed = sorted(latencies[warm_up:])
    return calls / sum(timed), _percentile(timed, 0.5), _percentile(timed, 0.99), timed[-1]


def stdio(package_parent: Path, calls: int, rounds: int) -> None:
    script = str(BENCHMARKS / "servers.py")
    commands = {
        GENERATED: [PYTHON, script, "flights", str(package_parent)],
        f"{GENERATED}, start not frozen": [PYTHON, script, "flights-unfrozen", str(package_parent)],
        SDK: [PYTHON, script, "sdk"],
        BARE: [PYTHON, script, "bare"],
    }
    results: dict[str, list[tuple[float, float, float, float]]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, command in commands.items():
            results[name].append(_stdio_calls(command, calls))
    summary = {name: tuple(median([run[i] for run in runs]) for i in range(4)) for name, runs in results.items()}
    print_table(
        f"serving (d): stdio, {MODERN}, one client, {calls} tools/call one after the other x {rounds} round(s)",
        ["server", "calls/s", "p50", "p99", "slowest", "calls/s mcpgen / this"],
        [
            [name, f"{rate:.0f}", *(f"{value * 1000:.2f} ms" for value in (p50, p99, slowest)), ratio(summary[GENERATED][0], rate)]
            for name, (rate, p50, p99, slowest) in summary.items()
        ],
    )


# --- c. Streamable HTTP ----------------------------------------------------------------------


def _uvicorn(factory: str) -> Callable[[int], list[str]]:
    return lambda port: [
        PYTHON, "-m", "uvicorn", f"servers:{factory}", "--factory", "--app-dir", str(BENCHMARKS),
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", "--no-access-log",
    ]  # fmt: skip


async def _load(url: str, clients: int, duration: float, warm_up: float) -> tuple[int, int, list[float], float, float]:
    """`clients` concurrent loops of tools/call for `warm_up` s, then for `duration` s:
    (answers, failures, latencies in seconds, elapsed, this process's CPU share) of the
    measured part. A CPU share near 100% means the load generator, not the server, limits."""
    import logging

    import httpx2

    logging.getLogger("httpx2").setLevel(logging.WARNING)  # MCPServer, built in process for (a), logs at INFO
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": TOOL, "arguments": ARGUMENTS, "_meta": META}}
    ).encode()
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/call",
        "Mcp-Name": TOOL,
    }
    limits = httpx2.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx2.AsyncClient(limits=limits, timeout=60) as client:
        first = await client.post(url, content=body, headers=headers)
        answer = json.loads(first.content)
        if first.status_code != 200 or answer.get("result", {}).get("structuredContent") != EXPECTED:
            raise SystemExit(f"{url}: unexpected answer {first.status_code} {first.text[:500]}")
        latencies: list[float] = []
        failures = 0

        async def client_loop(until: float, record: bool) -> None:
            nonlocal failures
            while time.perf_counter() < until:
                sent = time.perf_counter()
                response = await client.post(url, content=body, headers=headers)
                if record:
                    latencies.append(time.perf_counter() - sent)
                    if response.status_code != 200 or b'"isError":true' in response.content:
                        failures += 1

        until = time.perf_counter() + warm_up
        await asyncio.gather(*(client_loop(until, False) for _ in range(clients)))
        started, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(client_loop(started + duration, True) for _ in range(clients)))
        elapsed = time.perf_counter() - started
        return len(latencies), failures, latencies, elapsed, (time.process_time() - cpu) / elapsed


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def http(package_parent: Path, clients: int, duration: float, rounds: int) -> None:
    factories = {GENERATED: "generated_http_app", SDK: "sdk_http_app", BARE: "bare_http_app"}
    environment = dict(os.environ, BENCH_PACKAGE_PARENT=str(package_parent))
    results: dict[str, list[tuple[float, float, float, int, float]]] = {name: [] for name in factories}
    for _ in range(rounds):
        for name, factory in factories.items():
            with server_process(_uvicorn(factory), env=environment) as url:
                answers, failures, latencies, elapsed, cpu = asyncio.run(_load(url, clients, duration, min(1.0, duration / 2)))
            results[name].append(
                (answers / elapsed, _percentile(latencies, 0.5), _percentile(latencies, 0.99), failures, cpu)
            )
    summary = {
        name: (*(median([r[i] for r in runs]) for i in range(3)), sum(r[3] for r in runs), median([r[4] for r in runs]))
        for name, runs in results.items()
    }
    ours = summary[GENERATED]
    print_table(
        f"serving (c): Streamable HTTP, stateless {MODERN}, uvicorn (1 process), {clients} concurrent clients, "
        f"{duration:g} s x {rounds} round(s)",
        ["server", "req/s", "p50", "p99", "failures", "client CPU", "req/s mcpgen / this", "p50 mcpgen / this"],
        [
            [
                name, f"{rate:.0f}", seconds(p50), seconds(p99), str(failures), f"{cpu:.0%}",
                ratio(ours[0], rate), ratio(ours[1], p50),
            ]  # fmt: skip
            for name, (rate, p50, p99, failures, cpu) in summary.items()
        ],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smoke run: few calls, small package, 2 s of HTTP")
    parser.add_argument("--only", default="in-process,cold-start,http,stdio", help="which parts, comma-separated")
    parser.add_argument("--calls", type=int, default=2000, help="in-process calls per round (default 2000)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of in-process and HTTP (default 5)")
    parser.add_argument("--starts", type=int, default=7, help="cold starts per server (default 7)")
    parser.add_argument("--cold-tools", type=int, default=500, help="tools in the cold-start package (default 500)")
    parser.add_argument("--clients", type=int, default=50, help="concurrent HTTP clients (default 50)")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of HTTP load per round (default 10)")
    parser.add_argument("--stdio-calls", type=int, default=4000, help="stdio calls per round (default 4000)")
    options = parser.parse_args()
    if options.quick:
        options.calls, options.rounds, options.starts, options.cold_tools, options.duration = 100, 1, 1, 10, 2.0
        options.stdio_calls = 100
    parts = set(options.only.split(","))
    with tempfile.TemporaryDirectory(prefix="mcpgen-bench-") as temporary:
        work = Path(temporary)
        print("building the ten-argument server...", file=sys.stderr, flush=True)
        ten = build_package(TEN_ARGUMENT_SPEC, 1, work / "ten")
        if "in-process" in parts:
            in_process(ten, options.calls, options.rounds)
        if "cold-start" in parts:
            print(f"building the {options.cold_tools}-tool package...", file=sys.stderr, flush=True)
            big = build_package(None, options.cold_tools, work / "cold")
            cold_start(big, options.cold_tools, ten, options.starts)
        if "http" in parts:
            http(ten, options.clients, options.duration, options.rounds)
        if "stdio" in parts:
            stdio(ten, options.stdio_calls, options.rounds)


if __name__ == "__main__":
    main()
