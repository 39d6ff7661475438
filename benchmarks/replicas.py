"""Replicas benchmark: one, two and three replicas of a generated server behind HAProxy
(deploy/haproxy.cfg, as the tests run it), C clients calling a cheap tool as stateless
2026-07-28 requests.

    python benchmarks/replicas.py [--clients C] [--seconds S] [--rounds R]

The replicas are tests/replicas (`whoami`: answers the replica's name) built once, three
started once; each measurement runs HAProxy in front of the first N. Every client has
its own keep-alive connection to HAProxy, which balances each request (round robin).
The table gives, per N, the medians over R rounds of S seconds (after a one-second
warm-up) of calls/s, and p50 and p99 of every call's latency over all rounds, with the
ratio of calls/s to one replica's. The CPU columns say where the machine's time went:
the replicas' and HAProxy's, and this process's (the clients), in CPU seconds per wall
second; calls per server CPU second (replicas and HAProxy) is what a call costs, the
column least moved by whatever else the machine runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))
sys.path.insert(0, str(BENCHMARKS.parent / "tests"))

import httpx2  # noqa: E402
from common import median, print_table, ratio  # noqa: E402
from services import build_replicated, haproxy, replicas  # noqa: E402

VERSION = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": VERSION, "io.modelcontextprotocol/clientCapabilities": {}}
BODY = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "whoami", "arguments": {}, "_meta": META}}
HEADERS = {
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": VERSION,
    "Mcp-Method": "tools/call",
    "Mcp-Name": "whoami",
}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def load(url: str, clients: int, seconds: float) -> list[float]:
    """Every call's latency (seconds) while `clients` clients call in a loop for `seconds`
    (their HTTP clients made first: making 50 takes a while, and is no server's time)."""
    latencies: list[float] = []
    https = [httpx2.AsyncClient(timeout=60) for _ in range(clients)]
    end = time.monotonic() + seconds

    async def client(http: httpx2.AsyncClient) -> None:
        async with http:
            while time.monotonic() < end:
                began = time.perf_counter()
                response = await http.post(url, json=BODY, headers=HEADERS)
                if response.status_code != 200 or "result" not in response.json():
                    raise SystemExit(f"HTTP {response.status_code}: {response.text[:300]}")
                latencies.append(time.perf_counter() - began)

    await asyncio.gather(*(client(http) for http in https))
    return latencies


def measure(url: str, pids: list[int], clients: int, seconds: float) -> tuple[float, list[float], float, float]:
    """(calls/s, latencies, server CPU s per s, client CPU s per s) of one round."""
    asyncio.run(load(url, clients, 1.0))
    servers, own = sum(cpu_seconds(pid) for pid in pids), time.process_time()
    started = time.monotonic()
    latencies = asyncio.run(load(url, clients, seconds))
    elapsed = time.monotonic() - started
    server_cpu = (sum(cpu_seconds(pid) for pid in pids) - servers) / elapsed
    return len(latencies) / elapsed, latencies, server_cpu, (time.process_time() - own) / elapsed


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    counts = (1, 2, 3)
    rates: dict[int, list[float]] = {n: [] for n in counts}
    latencies: dict[int, list[float]] = {n: [] for n in counts}
    cpu: dict[int, list[tuple[float, float]]] = {n: [] for n in counts}
    with tempfile.TemporaryDirectory() as temporary:
        folder = build_replicated(Path(temporary))
        with replicas(folder, max(counts)) as started:
            for _ in range(options.rounds):
                for n in counts:
                    with haproxy([r.address for r in started[:n]]) as url:
                        balancer = haproxy_pid()
                        pids = [r.process.pid for r in started[:n]] + [balancer]
                        rate, taken, server_cpu, client_cpu = measure(url, pids, options.clients, options.seconds)
                    rates[n].append(rate)
                    latencies[n] += taken
                    cpu[n].append((server_cpu, client_cpu))
    one = median(rates[1])
    rows = [
        [
            str(n),
            f"{median(rates[n]):.0f}",
            ratio(median(rates[n]), one),
            f"{percentile(latencies[n], 0.50) * 1000:.1f}",
            f"{percentile(latencies[n], 0.99) * 1000:.1f}",
            f"{median([c[0] for c in cpu[n]]):.2f}",
            f"{median([c[1] for c in cpu[n]]):.2f}",
            f"{median([rate / max(c[0], 1e-9) for rate, c in zip(rates[n], cpu[n], strict=True)]):.0f}",
        ]
        for n in counts
    ]
    print_table(
        f"{options.clients} clients, stateless tools/call through HAProxy, "
        f"{options.rounds} rounds of {options.seconds:g} s (medians; latency over all calls)",
        ["replicas", "calls/s", "vs 1", "p50 ms", "p99 ms", "replicas+HAProxy CPU/s", "clients CPU/s", "calls per server CPU s"],
        rows,
    )
    cores = os.cpu_count() or 1
    print(f"\nLoad average after the run (1, 5, 15 min): {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(
        f"This machine has {cores} cores, shared by the replicas, HAProxy and the clients (one Python\n"
        f"process): {cores} cores cannot run 3 replicas' CPU-bound work side by side, so calls/s cannot\n"
        "grow linearly with replicas here. What replicas buy on such a machine is the use of the\n"
        "second core (one replica is one event loop, on one core at a time), and availability: a\n"
        "replica lost or restarted leaves the others serving. On a machine with a core per replica\n"
        "(and the clients elsewhere), each replica adds about one replica's calls/s."
    )


def haproxy_pid() -> int:
    """The HAProxy this process runs (one at a time: `services.haproxy` stops each)."""
    for child in Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read_text().split():
        if Path(f"/proc/{child}/comm").read_text().strip() == "haproxy":
            return int(child)
    raise SystemExit("no HAProxy child process")


if __name__ == "__main__":
    main()
