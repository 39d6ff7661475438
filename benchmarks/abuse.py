"""Abuse benchmark: hostile requests against a real generated server over HTTP, while a
well-behaved client lists its tools.

    python benchmarks/abuse.py [--duration S] [--only NAME,NAME] [--abusers N]

A package is built from a small spec (`SPEC` below: tools with an array argument, a map
argument, an array of strings under a pattern that needs backtracking, and a nested
argument) and served by `python app.py --http` with the defaults of `Limits` (but
`max_request_body`, which `--body-limit` sets, and each abuse's size with it). For each
abuse in turn, N abusers send that request back to back for S seconds while one
well-behaved client, in a process of its own, calls `tools/list` in a loop on its own
connection. Printed per abuse: the well-behaved client's answers and p50/p99/max latency,
the abusive requests answered and how (HTTP status, `isError`), and the server's peak
resident memory during the abuse (VmHWM, reset before each abuse through clear_refs).

The goal (issue 19): the well-behaved client's worst latency under 250 ms and the
server's peak memory under 300 MB, in every case. `baseline` is no abuse at all.

The introspection flood (issue 31; `--only introspection` runs it alone): the same
tools/list client, but against a server with `server.authorization` and
`run --introspection`, each call with a fresh valid opaque token (so each one is a
question to the introspection endpoint, as a new or refreshed token is), while N
abusers on another address (127.0.0.2) send made-up tokens back to back. The endpoint
runs in this process and, as authorization servers do, answers 429 beyond
`--endpoint-rate` questions a second. Printed: the client's p50/p99/max without and
during the flood and their ratio, its failures (503s), the flood's answers, and the
questions the endpoint got. The goal: every call served, within 250 ms.

The task-quota flood (issue 31; `--only task` runs it alone, `--task-pool N`,
`--task-duration S`): ten anonymous 2025-11-25 callers, each from its own loopback
address, fill a store of N tasks (N // 10 per caller, as 10,000 and 1,000 are by
default) with tasks that ask a day's ttl, and go on asking; then for S seconds a
well-behaved caller, from a fresh address each time, creates one task. Printed: its
p50/p99/max and every refusal. The goal: every task created, each within 250 ms.
`--tree` of an older checkout shows the lockout it had.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

from common import PYTHON, console_script, free_port, print_table  # noqa: E402

MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
BACKTRACKING = "^(a|a)+\\1$"  # a backreference: only a backtracking engine can run it

SPEC = f"""\
mcpgen: 1
output: .
server: {{name: abuse-target, version: 1.0.0, package: abuse_target}}
tools:
  tag:
    description: Tags items by number.
    inputSchema:
      type: object
      properties:
        items: {{type: array, items: {{type: integer}}}}
      required: [items]
  label:
    description: Counts labels.
    inputSchema:
      type: object
      properties:
        labels: {{type: object, additionalProperties: {{type: integer}}}}
      required: [labels]
  words:
    description: Checks doubled words.
    inputSchema:
      type: object
      properties:
        words: {{type: array, items: {{type: string, pattern: {json.dumps(BACKTRACKING)}}}}}
      required: [words]
  tree:
    description: Walks a tree.
    inputSchema:
      type: object
      properties:
        tree: {{$ref: "#/$defs/node"}}
      required: [tree]
      $defs:
        node:
          type: object
          properties:
            name: {{type: string}}
            children: {{type: array, items: {{$ref: "#/$defs/node"}}}}
          required: [name]
"""

APP = """\
import os

from abuse_target import Context, Handlers, LabelInput, Limits, TagInput, TreeInput, WordsInput, run


class Target(Handlers):
    async def tag(self, args: TagInput, ctx: Context) -> str:
        return f"{len(args.items)} items"

    async def label(self, args: LabelInput, ctx: Context) -> str:
        return "labels"

    async def words(self, args: WordsInput, ctx: Context) -> str:
        return f"{len(args.words)} words"

    async def tree(self, args: TreeInput, ctx: Context) -> str:
        return "a tree"


if __name__ == "__main__":
    run(Target(), limits=Limits(max_request_body=int(os.environ.get("ABUSE_BODY_LIMIT", Limits().max_request_body))))
"""


def _call(tool: str, arguments: Any) -> bytes:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments, "_meta": META}}
    return json.dumps(message, separators=(",", ":")).encode()


def _nested(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"name": "leaf", "children": [], "x": 1}
    for _ in range(depth):
        node = {"name": 1, "children": [node]}  # every level breaks the schema: name is no string
    return node


def _abuses(limit: int) -> dict[str, tuple[str, bytes]]:
    """name -> (tool, request body), each as large as fits within `limit` bytes (the
    server's `max_request_body`), and one over it."""
    items = limit // 4 - 100  # `"x",` is four bytes
    return {
        "baseline": ("", b""),
        f"invalid array items ({items:,})": ("tag", _call("tag", {"items": ["x"] * items})),
        f"invalid map values ({limit // 14:,})": ("label", _call("label", {"labels": {f"k{i}": "x" for i in range(limit // 14)}})),
        f"valid array ({limit // 2 - 1000:,} integers)": ("tag", _call("tag", {"items": [7] * (limit // 2 - 1000)})),
        "backtracking pattern (1,000 items)": (
            "words",
            _call("words", {"words": ["a" * 30 + format(i, "x") for i in range(1000)]}),
        ),
        f"backtracking pattern ({limit // 38:,} items)": (
            "words",
            _call("words", {"words": ["a" * 30 + format(i, "x") for i in range(limit // 38)]}),
        ),
        "nested invalid tree (150 levels)": ("tree", _call("tree", {"tree": _nested(150)})),
        f"invalid long strings ({limit // 1003:,} x 1 KB)": ("tag", _call("tag", {"items": ["y" * 1000] * (limit // 1003)})),
        "a body over the limit (4x)": ("tag", _call("tag", {"items": ["x"] * items * 4})),
    }


HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": MODERN,
    "Mcp-Method": "tools/call",
}

# The well-behaved client, in a process of its own: tools/list in a loop on one connection
# for the given seconds; prints its latencies (s) as JSON.
GOOD_CLIENT = """\
import json, sys, time
import httpx2

url, duration = sys.argv[1], float(sys.argv[2])
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": __META__}}).encode()
headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": "__VERSION__", "Mcp-Method": "tools/list"}
latencies, failures = [], 0
with httpx2.Client(timeout=30) as client:
    client.post(url, content=body, headers=headers, timeout=600)  # the server may still digest the last abuse
    print("ready", flush=True)
    sys.stdin.readline()
    until = time.perf_counter() + duration
    while time.perf_counter() < until:
        sent = time.perf_counter()
        try:
            response = client.post(url, content=body, headers=headers)
            ok = response.status_code == 200 and b'"tools"' in response.content
        except Exception:  # a timeout, or the server gone: a failure, measured
            ok = False
        latencies.append(time.perf_counter() - sent)
        failures += not ok
        time.sleep(0.01)
print(json.dumps({"latencies": latencies, "failures": failures}))
""".replace("__META__", json.dumps(META)).replace("__VERSION__", MODERN)


@contextmanager
def _serving(
    folder: Path, body_limit: int, command: list[str] | None = None, environment: dict[str, str] | None = None
) -> Iterator[tuple[str, int]]:
    port = free_port()
    if command is not None:  # it names its port
        port = int(command[command.index("--http") + 1].rpartition(":")[2])
    log = tempfile.TemporaryFile(mode="w+")
    process = subprocess.Popen(
        command or [PYTHON, "app.py", "--http", f"127.0.0.1:{port}"], cwd=folder, stdin=subprocess.DEVNULL, stdout=log,
        stderr=subprocess.STDOUT, env=dict(os.environ, ABUSE_BODY_LIMIT=str(body_limit), **(environment or {})),
    )
    try:
        deadline = time.monotonic() + 60
        import socket

        while True:
            if process.poll() is not None:
                log.seek(0)
                raise SystemExit(f"the server exited:\n{log.read()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not listen") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp", process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _reset_peak(pid: int) -> None:
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # resets VmHWM to the current RSS


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def _abuse_loop(url: str, tool: str, body: bytes, until: float, outcomes: Counter[str]) -> None:
    import httpx2

    headers = dict(HEADERS, **{"Mcp-Name": tool})
    with httpx2.Client(timeout=30) as client:
        while time.perf_counter() < until:
            try:
                response = client.post(url, content=body, headers=headers)
            except httpx2.HTTPError as error:
                outcomes[type(error).__name__] += 1
                continue
            if response.status_code != 200:
                outcomes[f"HTTP {response.status_code}"] += 1
            elif b'"isError":true' in response.content:
                outcomes["isError"] += 1
            elif b'"error":' in response.content[:200]:
                outcomes[f"error {json.loads(response.content)['error']['code']}"] += 1
            else:
                outcomes["ok"] += 1


def measure(url: str, pid: int, tool: str, body: bytes, duration: float, abusers: int) -> dict[str, Any]:
    good = subprocess.Popen(
        [PYTHON, "-c", GOOD_CLIENT, url, str(duration)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert good.stdin is not None and good.stdout is not None
    good.stdout.readline()  # "ready": connected and served once
    _reset_peak(pid)
    outcomes: Counter[str] = Counter()
    until = time.perf_counter() + duration
    good.stdin.write("go\n")
    good.stdin.flush()
    threads = [
        threading.Thread(target=_abuse_loop, args=(url, tool, body, until, outcomes)) for _ in range(abusers if body else 0)
    ]
    for thread in threads:
        thread.start()
    report = json.loads(good.stdout.read().strip().splitlines()[-1])
    for thread in threads:
        thread.join()
    good.wait()
    latencies = report["latencies"]
    return {
        "answers": len(latencies),
        "failures": report["failures"],
        "p50": _percentile(latencies, 0.5),
        "p99": _percentile(latencies, 0.99),
        "max": max(latencies, default=float("nan")),
        "peak_mb": _peak_rss_mb(pid),
        "outcomes": outcomes,
    }


def build(folder: Path, tree: Path | None = None, spec: str = SPEC, app: str = APP) -> None:
    (folder / "spec.yaml").write_text(spec)
    (folder / "app.py").write_text(app)
    if tree is None:
        command = [console_script("mcpgen"), "build", "spec.yaml"]
    else:  # another checkout's generator, and so its runtime (`git worktree add`)
        command = [PYTHON, "-c", f"import sys; sys.path.insert(0, {str(tree)!r}); from mcpgen.cli import main; sys.exit(main())"]
        command += ["build", "spec.yaml"]
    result = subprocess.run(command, cwd=folder, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"mcpgen build failed:\n{result.stdout}\n{result.stderr}")


# --- The introspection flood (issue 31) -------------------------------------------

INTROSPECTION_SPEC = """\
mcpgen: 1
output: .
server:
  name: guarded-target
  version: 1.0.0
  package: guarded_target
  authorization:
    metadata:
      resource: https://mcp.example.com/mcp
      authorization_servers: [https://auth.example.com]
      scopes_supported: [notes:read]
    scopes: [notes:read]
tools:
  whoami:
    description: Says who called.
    inputSchema: {type: object}
"""

INTROSPECTION_APP = """\
import sys

from guarded_target import Context, Handlers, WhoamiInput, run


class Guarded(Handlers):
    async def whoami(self, args: WhoamiInput, ctx: Context) -> str:
        return str(ctx.auth.subject if ctx.auth else None)


run(Guarded(), sys.argv[1:])
"""

# The well-behaved client of the flood: tools/list with the next fresh token (one a
# line in the file argv[3]) each call, every 50 ms; prints its latencies as JSON.
FRESH_TOKEN_CLIENT = GOOD_CLIENT.replace(
    "url, duration = sys.argv[1], float(sys.argv[2])",
    "url, duration = sys.argv[1], float(sys.argv[2])\n"
    "tokens = iter(open(sys.argv[3]).read().split())\n"
    "first = next(tokens)",
).replace(
    "client.post(url, content=body, headers=headers, timeout=600)",
    "client.post(url, content=body, headers={**headers, 'Authorization': 'Bearer ' + first}, timeout=600)",
).replace(
    "response = client.post(url, content=body, headers=headers)",
    "response = client.post(url, content=body, headers={**headers, 'Authorization': 'Bearer ' + next(tokens)})",
).replace("time.sleep(0.01)", "time.sleep(0.05)")


class _RateLimitedIntrospection:
    """RFC 8414 metadata and an RFC 7662 endpoint on a free port of this process:
    `tokens` are active for `audience`, any other inactive; beyond `rate` questions a
    second, 429 (as authorization servers answer a flood)."""

    def __init__(self, rate: int) -> None:
        import threading
        from collections import deque
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import parse_qs

        self.tokens: dict[str, dict[str, Any]] = {}
        self.answered: Counter[str] = Counter()
        recent: deque[float] = deque()
        lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                metadata = {"issuer": owner.issuer, "introspection_endpoint": owner.issuer + "/introspect"}
                self._reply(200, metadata if self.path == "/.well-known/oauth-authorization-server" else {})

            def do_POST(self) -> None:  # noqa: N802
                form = parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
                with lock:
                    now = time.monotonic()
                    while recent and recent[0] <= now - 1:
                        recent.popleft()
                    limited = len(recent) >= rate
                    if not limited:
                        recent.append(now)
                if limited:
                    owner.answered["429"] += 1
                    self._reply(429, {"error": "rate_limited"})
                    return
                answer = owner.tokens.get(form["token"][0], {"active": False})
                owner.answered["active" if answer["active"] else "inactive"] += 1
                self._reply(200, answer)

            def _reply(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            request_queue_size = 128
            daemon_threads = True

        self.http = Server(("127.0.0.1", 0), Handler)
        self.issuer = f"http://127.0.0.1:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def issue(self, audience: str, count: int) -> list[str]:
        import secrets

        now = int(time.time())
        fresh = [secrets.token_urlsafe(24) for _ in range(count)]
        for token in fresh:
            self.tokens[token] = {
                "active": True, "iss": self.issuer, "aud": audience, "sub": "carol",
                "client_id": "desk", "scope": "notes:read", "exp": now + 3600,
            }  # fmt: skip
        return fresh


def _flood_loop(url: str, until: float, outcomes: Counter[str]) -> None:
    """Made-up tokens, back to back, from another address than the well-behaved client."""
    import secrets

    import httpx2

    headers = {**HEADERS, "Mcp-Method": "tools/list"}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}).encode()
    transport = httpx2.HTTPTransport(local_address="127.0.0.2")
    with httpx2.Client(timeout=30, transport=transport) as client:
        while time.perf_counter() < until:
            bearer = {"Authorization": "Bearer " + secrets.token_urlsafe(24)}
            try:
                outcomes[f"HTTP {client.post(url, content=body, headers={**headers, **bearer}).status_code}"] += 1
            except httpx2.HTTPError as error:
                outcomes[type(error).__name__] += 1


def introspection_flood(duration: float, abusers: int, endpoint_rate: int, tree: Path | None) -> dict[str, dict[str, Any]]:
    """The well-behaved fresh-token client without, then during, the flood."""
    endpoint = _RateLimitedIntrospection(endpoint_rate)
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        build(folder, tree, INTROSPECTION_SPEC, INTROSPECTION_APP)
        port = free_port()
        url = f"http://127.0.0.1:{port}/mcp"
        command = [PYTHON, "app.py", "--http", f"127.0.0.1:{port}", "--resource", url, "--introspection"]
        environment = {"MCPGEN_AUTHORIZATION_SERVERS": endpoint.issuer}
        with _serving(folder, 0, command, environment) as (_, pid):
            for name, flooders in (("no flood", 0), (f"flood ({abusers} abusers)", abusers)):
                tokens = folder / "tokens.txt"
                tokens.write_text("\n".join(endpoint.issue(url, int(duration * 25) + 50)))
                endpoint.answered.clear()
                good = subprocess.Popen(
                    [PYTHON, "-c", FRESH_TOKEN_CLIENT, url, str(duration), str(tokens)],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                )  # fmt: skip
                assert good.stdin is not None and good.stdout is not None
                good.stdout.readline()
                _reset_peak(pid)
                outcomes: Counter[str] = Counter()
                until = time.perf_counter() + duration
                good.stdin.write("go\n")
                good.stdin.flush()
                threads = [threading.Thread(target=_flood_loop, args=(url, until, outcomes)) for _ in range(flooders)]
                for thread in threads:
                    thread.start()
                report = json.loads(good.stdout.read().strip().splitlines()[-1])
                for thread in threads:
                    thread.join()
                good.wait()
                latencies = report["latencies"]
                results[name] = {
                    "answers": len(latencies),
                    "failures": report["failures"],
                    "p50": _percentile(latencies, 0.5),
                    "p99": _percentile(latencies, 0.99),
                    "max": max(latencies, default=float("nan")),
                    "peak_mb": _peak_rss_mb(pid),
                    "outcomes": outcomes,
                    "endpoint": Counter(endpoint.answered),
                }
                print(f"introspection {name}: {results[name]}", file=sys.stderr, flush=True)
    endpoint.http.shutdown()
    baseline = results["no flood"]

    def ms(value: float) -> str:
        return f"{value * 1000:.0f} ms"

    rows = [
        [
            name,
            str(r["answers"]),
            str(r["failures"]),
            ms(r["p50"]),
            ms(r["p99"]),
            ms(r["max"]),
            f"{r['p50'] / baseline['p50']:.2f}x / {r['p99'] / baseline['p99']:.2f}x",
            ", ".join(f"{k} {v}" for k, v in sorted(r["outcomes"].items())) or "-",
            ", ".join(f"{k} {v}" for k, v in sorted(r["endpoint"].items())) or "-",
            "ok" if r["max"] < 0.25 and not r["failures"] else "OVER",
        ]
        for name, r in results.items()
    ]
    print_table(
        f"Well-behaved client, a fresh valid token each call, during an introspection flood "
        f"(endpoint: 429 beyond {endpoint_rate}/s; {duration:g} s each)",
        ["run", "calls", "failed", "p50", "p99", "max", "p50 / p99 vs no flood", "flood's answers", "endpoint's answers", "goal"],
        rows,
    )
    return results


# --- the task-quota flood (issue 31) ----------------------------------------------------
# Ten anonymous callers, each from its own loopback address, create tasks (each asking
# for a day's ttl) back to back: they reach their per-caller quota, and together the
# store's bound (the pool is ten quotas, as 10,000 and 1,000 are by default), then go on
# asking. Meanwhile a well-behaved caller, from a fresh address each time, opens a
# 2025-11-25 session and creates one task: its `tools/call` is timed, and counted as a
# failure unless a task was created.

TASK_SPEC = """\
mcpgen: 1
output: .
server: {name: task-target, version: 1.0.0, package: task_target}
tools:
  chore:
    description: Does a small chore, as a task if asked.
    inputSchema: {type: object}
    execution: {taskSupport: optional}
"""

TASK_APP = """\
import os

from task_target import Handlers, Limits, TaskLimits, run

POOL = int(os.environ["ABUSE_TASK_POOL"])


class Target(Handlers):
    async def chore(self, args, ctx):
        return "done"


if __name__ == "__main__":
    run(Target(), limits=Limits(tasks=TaskLimits(max_tasks=POOL, max_tasks_per_owner=POOL // 10)))
"""

# A 2025-11-25 session on a connection of its own, sent from a given address: the hogs'
# client and the well-behaved caller's alike.
LEGACY_SESSION = """\
import json, time
import httpx2

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}}
CREATE = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
          "params": {"name": "chore", "arguments": {}, "task": {"ttl": 86400000}}}


class Session:
    def __init__(self, url, address):
        self.url = url
        self.client = httpx2.Client(timeout=30, transport=httpx2.HTTPTransport(local_address=address))
        self.headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        response = self.client.post(url, json=INITIALIZE, headers=self.headers)
        self.headers["Mcp-Session-Id"] = response.headers["mcp-session-id"]
        self.headers["MCP-Protocol-Version"] = "2025-11-25"
        self.client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=self.headers)

    def create(self):
        # How the task-augmented call ended: "created", or the error's message.
        response = self.client.post(self.url, json=CREATE, headers=self.headers)
        if response.status_code != 200:
            return f"HTTP {response.status_code}"
        text = response.text
        for line in text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                text = line[5:]
        answer = json.loads(text)
        return "created" if "task" in answer.get("result", {}) else answer.get("error", {}).get("message", "?")

    def close(self):
        self.client.delete(self.url, headers=self.headers)
        self.client.close()
"""

# The well-behaved caller, in a process of its own: a fresh address and session for each
# task, the `tools/call` alone timed; prints its latencies (s) and failures as JSON.
TASK_CLIENT = LEGACY_SESSION + """
import sys

url, duration = sys.argv[1], float(sys.argv[2])
latencies, failures, n = [], {}, 0
print("ready", flush=True)
sys.stdin.readline()
until = time.perf_counter() + duration
while time.perf_counter() < until:
    session = Session(url, f"127.0.{2 + n // 250}.{2 + n % 250}")
    n += 1
    sent = time.perf_counter()
    outcome = session.create()
    latencies.append(time.perf_counter() - sent)
    if outcome != "created":
        failures[outcome] = failures.get(outcome, 0) + 1
    session.close()
    time.sleep(0.05)
print(json.dumps({"latencies": latencies, "failures": failures}))
"""


def _hog(url: str, address: str, stop: threading.Event, outcomes: Counter[str]) -> None:
    namespace: dict[str, Any] = {}
    exec(LEGACY_SESSION, namespace)  # noqa: S102 - the same client the well-behaved caller runs
    session = namespace["Session"](url, address)
    try:
        while not stop.is_set():
            outcome = session.create()
            outcomes["created" if outcome == "created" else "refused: " + outcome.split(";")[0]] += 1
    finally:
        session.close()


FILL_PATIENCE = 300.0
"""Seconds the hogs may take to fill the store before the well-behaved caller starts."""


def task_quota_flood(pool: int, duration: float, tree: Path | None) -> dict[str, Any]:
    """Ten hogs fill a store of `pool` tasks (`pool // 10` per caller), then go on for
    `duration` seconds while the well-behaved caller creates its tasks: its latencies
    and failures, and what the hogs were answered."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        build(folder, tree, spec=TASK_SPEC, app=TASK_APP)
        os.environ["ABUSE_TASK_POOL"] = str(pool)
        with _serving(folder, 1024 * 1024) as (url, _pid):
            good = subprocess.Popen(
                [PYTHON, "-c", TASK_CLIENT, url, str(duration)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
            )
            assert good.stdin is not None and good.stdout is not None
            good.stdout.readline()
            outcomes: Counter[str] = Counter()
            stop = threading.Event()
            hogs = [threading.Thread(target=_hog, args=(url, f"127.0.1.{2 + n}", stop, outcomes)) for n in range(10)]
            for hog in hogs:
                hog.start()
            # The well-behaved caller starts once the hogs have filled the store (however
            # slow the machine), and they go on asking while it is measured.
            filled = time.perf_counter()
            while outcomes["created"] < pool and time.perf_counter() - filled < FILL_PATIENCE:
                time.sleep(0.1)
            filled = time.perf_counter() - filled
            good.stdin.write("go\n")
            good.stdin.flush()
            report = json.loads(good.stdout.read().strip().splitlines()[-1])
            stop.set()
            for hog in hogs:
                hog.join()
            good.wait()
    latencies = report["latencies"]
    return {
        "filled_in": filled,
        "asked": len(latencies),
        "failures": report["failures"],
        "p50": _percentile(latencies, 0.5),
        "p99": _percentile(latencies, 0.99),
        "max": max(latencies, default=float("nan")),
        "hogs": outcomes,
    }


def print_task_flood(result: dict[str, Any], pool: int, duration: float) -> None:
    def ms(value: float) -> str:
        return f"{value * 1000:.0f} ms"

    refused = sum(result["failures"].values())
    print_table(
        f"Task-quota flood: 10 anonymous callers filled a store of {pool:,} tasks ({pool // 10:,} each) "
        f"in {result['filled_in']:.0f} s, then {duration:g} s more",
        ["well-behaved caller", "asked", "created", "p50", "p99", "max", "refused", "goal"],
        [
            [
                "fresh address, one task",
                str(result["asked"]),
                str(result["asked"] - refused),
                ms(result["p50"]),
                ms(result["p99"]),
                ms(result["max"]),
                "; ".join(f"{v}x {k}" for k, v in result["failures"].items()) or "-",
                "ok" if result["max"] < 0.25 and not refused else "OVER",
            ]
        ],
    )
    print("hogs answered: " + ", ".join(f"{k} {v}" for k, v in sorted(result["hogs"].items())))


def main(argv: list[str] | None = None) -> dict[str, dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=5.0, help="seconds of each abuse (default 5)")
    parser.add_argument("--abusers", type=int, default=2, help="abusive clients at once (default 2)")
    parser.add_argument(
        "--body-limit", type=int, default=1024 * 1024, help="the server's max_request_body (default: Limits' default, 1 MiB)"
    )
    parser.add_argument("--only", help="comma-separated abuse names (substrings) to run")
    parser.add_argument("--tree", type=Path, help="build with the mcpgen of this checkout (e.g. an older commit)")
    parser.add_argument(
        "--endpoint-rate", type=int, default=50, help="introspection flood: the endpoint's questions a second before 429 (default 50)"
    )
    parser.add_argument(
        "--task-pool", type=int, default=1000, help="the task-quota flood's store: max_tasks (default 1,000; a tenth per caller)"
    )
    parser.add_argument(
        "--task-duration", type=float, default=15.0, help="seconds of the task-quota flood once the store is full (default 15)"
    )
    options = parser.parse_args(argv)
    wanted = options.only.split(",") if options.only else []
    results: dict[str, dict[str, Any]] = {}
    if not wanted or "introspection" in wanted:
        flood = introspection_flood(options.duration, options.abusers, options.endpoint_rate, options.tree)
        results.update({f"introspection {name}": result for name, result in flood.items()})
        if wanted == ["introspection"]:
            return results
    abuses = _abuses(options.body_limit)
    if wanted:
        abuses = {name: abuse for name, abuse in abuses.items() if name == "baseline" or any(w in name for w in wanted)}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        build(folder, options.tree)
        with _serving(folder, options.body_limit) as (url, pid):
            for name, (tool, body) in abuses.items():
                results[name] = measure(url, pid, tool, body, options.duration, options.abusers)
                print(f"{name}: {results[name]}", file=sys.stderr, flush=True)

    def ms(value: float) -> str:
        return f"{value * 1000:.0f} ms"

    rows = [
        [
            name,
            f"{len(abuses[name][1]) / 1e6:.1f} MB" if abuses[name][1] else "-",
            str(r["answers"]),
            ms(r["p50"]),
            ms(r["p99"]),
            ms(r["max"]),
            f"{r['peak_mb']:.0f} MB",
            ", ".join(f"{k} {v}" for k, v in sorted(r["outcomes"].items())) or "-",
            "ok" if r["max"] < 0.25 and r["peak_mb"] < 300 and not r["failures"] else "OVER",
        ]
        for name, r in results.items()
        if name in abuses
    ]
    print_table(
        f"Well-behaved tools/list client during each abuse ({options.abusers} abusers, {options.duration:g} s each)",
        ["abuse", "body", "lists", "p50", "p99", "max", "server peak RSS", "abusive answers", "goal"],
        rows,
    )
    if not options.only or "task" in options.only:
        flood = task_quota_flood(options.task_pool, options.task_duration, options.tree)
        print_task_flood(flood, options.task_pool, options.task_duration)
        results["task-quota flood"] = flood
    return results


if __name__ == "__main__":
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    main()
