"""FastMCP's `from_openapi` serving one OpenAPI document over Streamable HTTP, its calls sent to
UPSTREAM: the other side of benchmarks/openapi_vs_fastmcp.py. It runs in FastMCP's own venv
(FastMCP pins its own `mcp`), so it imports nothing of this project.

    python fastmcp_openapi_server.py DOCUMENT.json UPSTREAM PORT

PROOF_CREDENTIALS (JSON: headers, params, cookies) become the httpx client's defaults:
FastMCP sends whatever its client carries and applies no security scheme itself."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import httpx2
from fastmcp import FastMCP


def main(document: str, upstream: str, port: str) -> None:
    credentials = json.loads(os.environ.get("PROOF_CREDENTIALS", "{}"))
    client = httpx2.AsyncClient(base_url=upstream, timeout=60.0, **credentials)
    spec = json.loads(Path(document).read_text(encoding="utf-8"))
    server = FastMCP.from_openapi(openapi_spec=spec, client=client, name="proof")
    server.run(transport="http", host="127.0.0.1", port=int(port), show_banner=False, log_level="warning")


if __name__ == "__main__":
    main(*sys.argv[1:4])
