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
