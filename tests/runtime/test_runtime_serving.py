"""serving.py: the command line of a generated server, and its ASGI app."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from helpers import ROOT
from mcp import Client, StdioServerParameters
from starlette.applications import Starlette
from toy_server.server import create_server

from mcpgen.runtime.limits import Limits
from mcpgen.runtime.serving import http_app

pytestmark = pytest.mark.anyio
HERE = Path(__file__).parent
SERVE = "import sys; from toy_server.server import create_server; from mcpgen.runtime.serving import serve; serve(create_server(), sys.argv[1:])"


def test_http_app_serves_streamable_http_at_mcp() -> None:
    app = http_app(create_server(), host="127.0.0.1", stateless=True)
    assert isinstance(app, Starlette)
    assert [getattr(route, "path", None) for route in app.routes] == ["/mcp"]


def test_a_bad_http_address_is_a_usage_error() -> None:
    completed = subprocess.run(
        [sys.executable, "-c", SERVE, "--http", "8000"], cwd=HERE, capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == 2
    assert "--http needs HOST:PORT, not '8000'" in completed.stderr


def test_help_names_the_module_a_server_runs_as(tmp_path: Path) -> None:
    """Run as `python -m PACKAGE`, the usage line says so, not `__main__.py`."""
    package = tmp_path / "toy_main"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(SERVE.replace("; ", "\n"))
    completed = subprocess.run(
        [sys.executable, "-m", "toy_main", "--help"],
        cwd=HERE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(HERE)])},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith("usage: python -m toy_main [-h]"), completed.stdout


async def test_stdio_by_default() -> None:
    parameters = StdioServerParameters(command=sys.executable, args=["-c", SERVE], cwd=str(HERE))
    async with Client(parameters, mode="legacy") as client:
        result = await client.call_tool("divide", {"a": 1, "b": 8})
    assert result.structured_content == {"quotient": 0.125}


def test_serving_takes_the_start_out_of_the_collectors_passes() -> None:
    """`serve` freezes what the process made to start (gc.freeze), so the full
    collections while serving do not walk it again; the server still answers."""
    script = (
        "import gc, sys; from toy_server.server import create_server; "
        "from mcpgen.runtime.serving import serve; "
        "before = gc.get_freeze_count(); serve(create_server(), []); "
        "print(before, gc.get_freeze_count(), file=sys.stderr)"
    )
    request = (
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": '
        '{"io.modelcontextprotocol/protocolVersion": "2026-07-28", '
        '"io.modelcontextprotocol/clientCapabilities": {}}}}\n'
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], cwd=HERE, input=request, capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == 0, completed.stderr
    assert '"id":1,"result":' in completed.stdout and '"name":"divide"' in completed.stdout
    before, after = map(int, completed.stderr.split()[-2:])
    assert before == 0 and after > 10_000


def test_every_limit_is_documented_where_limits_are_read() -> None:
    # Limits is the one place for bounds: its docstring and the security model's table name each
    # (the generated reference, docs/reference/server.md, is the docstring's: test_docs_site.py).
    page = (ROOT / "docs" / "explanation" / "security.md").read_text()
    table = page[page.index("| `Limits` field |") :]
    table = table[: table.index("\n\n")]
    for field in fields(Limits):
        assert f"| `{field.name}` |" in table, f"the security model's Limits table lacks {field.name}"
        assert f"`{field.name}`" in (Limits.__doc__ or ""), f"Limits' docstring lacks {field.name}"
