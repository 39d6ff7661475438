"""The `next:` hint after a first build is a shell command that works as printed, from the
directory the user is in, wherever the spec sends the package (`output: ../generated`, a
spec in a subfolder, the spec's own folder): run verbatim, it writes the app and starts
a server that a real client lists."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from helpers import MINIMAL

pytestmark = pytest.mark.slow  # builds and starts a server

LAYOUTS = {
    # spec path inside the project, its `output:` line (or none), the folder the user is in
    "sibling-output": ("specs/spec.yaml", "output: ../generated\n", "."),
    "spec-in-subfolder": ("specs/spec.yaml", "", "."),
    "from-inside-specs": ("specs/spec.yaml", "output: ../generated\n", "specs"),
    "flat": ("spec.yaml", "", "."),
}


async def _tool_names(command: list[str], cwd: Path) -> list[str]:
    from mcp import Client, StdioServerParameters

    server = StdioServerParameters(command=command[0], args=command[1:], cwd=str(cwd), env=dict(os.environ))
    async with Client(server) as client:
        return [tool.name for tool in (await client.list_tools()).tools]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_next_hint_runs_as_printed(layout: str, tmp_path: Path) -> None:
    spec_name, output, here = LAYOUTS[layout]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    spec = tmp_path / spec_name
    spec.parent.mkdir(parents=True, exist_ok=True)
    spec.write_text(MINIMAL.replace("mcpgen: 1\n", f"mcpgen: 1\n{output}", 1))
    cwd = tmp_path / here
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"  # `mcpgen` and `python` of this venv
    built = subprocess.run(
        ["mcpgen", "build", os.path.relpath(spec, cwd)], cwd=cwd, env=env, capture_output=True, text=True
    )
    assert built.returncode == 0, built.stderr
    found = re.search(r"^next: .*?`([^`]+)`", built.stdout, re.MULTILINE)
    assert found, built.stdout
    write_app = found[1]
    subprocess.run(write_app, shell=True, cwd=cwd, env=env, check=True)
    serve = re.search(r"serve it with `([^`]+)`", built.stdout)
    assert serve, built.stdout
    # The printed command, as the shell runs it, here.
    names = anyio.run(_tool_names, ["sh", "-c", serve[1]], cwd)
    assert names, built.stdout
