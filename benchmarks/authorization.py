"""Authorization benchmark: C clients, each with its own valid access token, calling one
tool as stateless 2026-07-28 requests, against the same generated server with and
without `server.authorization` (issue 23's goal: at least 0.9x the throughput), the
tokens JWTs, or opaque ones the server checks by introspection (`run --introspection`).

    python benchmarks/authorization.py [--clients C] [--seconds S] [--rounds R]

The server runs `run --http` in a subprocess; the authorization server is a tiny
RFC 8414 metadata + JWKS + RFC 7662 introspection server in this process, its RSA key
made here, the tokens signed with PyJWT (RS256). The servers take turns, R rounds of S seconds each
after a one-second warm-up, and the table gives the medians: calls/s (wall clock, the
clients share the machine) and calls per CPU second of the server process (what the
server itself spends, less disturbed by what else runs).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

import httpx2  # noqa: E402
import jwt  # noqa: E402
from common import PYTHON, free_port, median, print_table, ratio  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: E402
from jwt.algorithms import RSAAlgorithm  # noqa: E402

SPEC = """\
mcpgen: 1
server:
  name: guarded
  version: "1"
{authorization}
tools:
  whoami:
    description: Says who called.
    inputSchema: {{type: object}}
"""

AUTHORIZATION = """\
  authorization:
    metadata:
      resource: https://mcp.example.com/mcp
      authorization_servers: [https://auth.example.com]
      scopes_supported: [notes:read]
    scopes: [notes:read]
"""

APP = """\
import sys
from guarded import Handlers, Limits, run

class Guarded(Handlers):
    async def whoami(self, args, ctx):
        return "anonymous" if ctx.auth is None else str(ctx.auth.subject)

limits = Limits(max_client_requests=None, max_client_sessions=None, max_connections=None)
run(Guarded(), sys.argv[1:], limits=limits)
"""

VERSION = "2026-07-28"


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # many clients' first calls ask at once; the default is 5


def authorization_server(key: rsa.RSAPrivateKey, opaque: dict[str, dict[str, Any]]) -> str:
    """Serve RFC 8414 metadata, the JWKS of `key` and the introspection of the `opaque`
    tokens (token -> its answer) on a free port; its issuer URL."""
    jwk = {**json.loads(RSAAlgorithm.to_jwk(key.public_key())), "kid": "k1", "alg": "RS256", "use": "sig"}
    documents: dict[str, bytes] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            body = documents.get(self.path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:  # noqa: N802
            form = parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
            body = json.dumps(opaque.get(form["token"][0], {"active": False})).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    http = _Server(("127.0.0.1", 0), Handler)
    issuer = f"http://127.0.0.1:{http.server_address[1]}"
    documents["/.well-known/oauth-authorization-server"] = json.dumps(
        {"issuer": issuer, "jwks_uri": issuer + "/jwks", "introspection_endpoint": issuer + "/introspect"}
    ).encode()
    documents["/jwks"] = json.dumps({"keys": [jwk]}).encode()
    threading.Thread(target=http.serve_forever, daemon=True).start()
    return issuer


def build(folder: Path, name: str, authorization: str) -> Path:
    directory = folder / name
    directory.mkdir()
    (directory / "spec.yaml").write_text(SPEC.format(authorization=authorization))
    subprocess.run(
        [PYTHON, "-m", "mcpgen", "build", "spec.yaml"], cwd=directory, check=True, capture_output=True
    )
    (directory / "app.py").write_text(APP)
    return directory


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def load(url: str, tokens: list[str | None], seconds: float) -> int:
    """Calls answered while every client calls in a loop for `seconds`."""
    meta = {"io.modelcontextprotocol/protocolVersion": VERSION, "io.modelcontextprotocol/clientCapabilities": {}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "whoami", "arguments": {}, "_meta": meta}}
    answered = 0
    # One pool of keep-alive connections, one per client at a time: 50 AsyncClients of
    # their own took longer to make (each loads the CA bundle) than a round lasts.
    pool = httpx2.AsyncClient(timeout=60, limits=httpx2.Limits(max_connections=None, max_keepalive_connections=None))
    end = time.monotonic() + seconds

    async def client(bearer: str | None) -> None:
        nonlocal answered
        headers = {
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": VERSION,
            "Mcp-Method": "tools/call",
            "Mcp-Name": "whoami",
        }
        if bearer is not None:
            headers["Authorization"] = f"Bearer {bearer}"
        while time.monotonic() < end:
            response = await pool.post(url, json=body, headers=headers)
            if response.status_code != 200:
                raise SystemExit(f"HTTP {response.status_code}: {response.text}")
            answered += 1

    async with pool:
        await asyncio.gather(*(client(bearer) for bearer in tokens))
    return answered


def measure(
    directory: Path, port: int, issuer: str | None, tokens: list[str | None], seconds: float, *flags: str
) -> tuple[float, float]:
    """(calls/s, calls per server CPU second) of one round, the server on `port`."""
    url = f"http://127.0.0.1:{port}/mcp"
    command = [PYTHON, "app.py", "--http", f"127.0.0.1:{port}", "--max-sessions", "0", *flags]
    if issuer is not None:
        command += ["--resource", url, "--authorization-server", issuer]
    server = subprocess.Popen(command, cwd=directory, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the server on port {port} did not start") from None
                time.sleep(0.05)
        asyncio.run(load(url, tokens, 1.0))
        started, cpu = time.monotonic(), cpu_seconds(server.pid)
        answered = asyncio.run(load(url, tokens, seconds))
        elapsed, spent = time.monotonic() - started, cpu_seconds(server.pid) - cpu
        return answered / elapsed, answered / max(spent, 1e-9)
    finally:
        server.terminate()
        server.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    opaque: dict[str, dict[str, Any]] = {}
    issuer = authorization_server(key, opaque)
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        plain, guarded = build(folder, "plain", ""), build(folder, "guarded", AUTHORIZATION)
        now = int(time.time())
        results: dict[str, list[tuple[float, float]]] = {"without": [], "JWT": [], "introspected": []}
        for _ in range(options.rounds):
            anonymous: list[str | None] = [None] * options.clients
            results["without"].append(measure(plain, free_port(), None, anonymous, options.seconds))
            port = free_port()  # the tokens' audience is the URL the server is served at
            tokens = signed(key, issuer, f"http://127.0.0.1:{port}/mcp", now, options.clients)
            results["JWT"].append(measure(guarded, port, issuer, tokens, options.seconds))
            port = free_port()
            tokens = introspected(opaque, issuer, f"http://127.0.0.1:{port}/mcp", now, options.clients)
            results["introspected"].append(measure(guarded, port, issuer, tokens, options.seconds, "--introspection"))
    names = {"without": "without authorization", "JWT": "with authorization (JWT)"}
    names["introspected"] = "with authorization (opaque, introspected)"
    rows = []
    for name, samples in results.items():
        rows.append([names[name], f"{median([s[0] for s in samples]):.0f}", f"{median([s[1] for s in samples]):.0f}"])
    for name in ("JWT", "introspected"):
        wall = ratio(median([s[0] for s in results[name]]), median([s[0] for s in results["without"]]))
        cpu = ratio(median([s[1] for s in results[name]]), median([s[1] for s in results["without"]]))
        rows.append([f"{name} / without", wall, cpu])
    print_table(
        f"{options.clients} clients, stateless tools/call, {options.rounds} rounds of {options.seconds:g} s (medians)",
        ["server", "calls/s", "calls per server CPU s"],
        rows,
    )


def signed(key: rsa.RSAPrivateKey, issuer: str, audience: str, now: int, count: int) -> list[str | None]:
    """One access token per client, each for its own subject."""
    return [
        jwt.encode(
            {"iss": issuer, "aud": audience, "sub": f"user{n}", "client_id": "bench", "scope": "notes:read",
             "iat": now, "exp": now + 3600},
            key,
            algorithm="RS256",
            headers={"kid": "k1", "typ": "at+jwt"},
        )
        for n in range(count)
    ]  # fmt: skip


def introspected(
    opaque: dict[str, dict[str, Any]], issuer: str, audience: str, now: int, count: int
) -> list[str | None]:
    """One opaque token per client, made active at the introspection endpoint (each
    is asked about once: the server remembers the answer)."""
    tokens: list[str | None] = []
    for n in range(count):
        token = secrets.token_urlsafe(32)
        opaque[token] = {"active": True, "iss": issuer, "aud": audience, "sub": f"user{n}", "client_id": "bench",
                         "scope": "notes:read", "exp": now + 3600}  # fmt: skip
        tokens.append(token)
    return tokens


if __name__ == "__main__":
    main()
