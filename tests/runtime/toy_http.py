"""The toy served over Streamable HTTP by `serve()` in a subprocess (real uvicorn, real
sockets), for the tests that need a real server."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest

HERE = Path(__file__).parent
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
ANNOUNCED = re.compile(r"^Serving MCP over Streamable HTTP at (http://\S+/mcp)$", re.MULTILINE)


def serve_script(limits: str = "") -> str:
    return (
        "import sys; from toy_server.server import create_server; "
        "from mcpgen.runtime.limits import Limits; from mcpgen.runtime.serving import serve; "
        f"serve(create_server(limits=Limits({limits})), sys.argv[1:])"
    )


@contextmanager
def serving(address: str, *arguments: str, limits: str = "") -> Iterator[tuple[str, Any]]:
    """`serve()` on the toy with `--http ADDRESS ARGUMENTS` in a subprocess; yields the URL
    it announced on stderr once it listens, and the file holding its stdout."""
    stdout, stderr = tempfile.TemporaryFile(mode="w+"), tempfile.TemporaryFile(mode="w+")
    command = [sys.executable, "-c", serve_script(limits), "--http", address, *arguments]
    process = subprocess.Popen(command, cwd=HERE, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr)
    try:
        deadline = time.monotonic() + 30
        while not (found := ANNOUNCED.search(read(stderr))):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the server did not announce itself:\n{read(stderr)}", pytrace=False)
            time.sleep(0.05)
        yield found.group(1), stdout
    finally:
        process.terminate()
        process.wait(timeout=10)
        stdout.close()
        stderr.close()


def read(file: Any) -> str:
    file.seek(0)
    text: str = file.read()
    return text


def post(url: str, headers: dict[str, str], body: Any = INITIALIZE) -> int:
    return httpx2.post(url, json=body, headers={**MCP_HEADERS, **headers}, timeout=10).status_code
