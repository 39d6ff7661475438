"""The README's quickstart works as written: its spec builds, and its app serves and answers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, readme_block

from mcpgen.cli import main

README = (ROOT / "README.md").read_text()


def test_the_two_commands_are_stated() -> None:
    assert "pip install -e . && mcpgen build specs/gift_server.yaml" in README
    assert 'pip install -e ".[test]" && pytest' in README
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -e . && mcpgen build specs/gift_server.yaml" in ci
    assert 'pip install -e ".[test]" && pytest\n' in ci


@pytest.mark.slow  # builds with the real generator, then runs the app in a subprocess
def test_quickstart_spec_builds_and_the_app_answers(tmp_path: Path) -> None:
    (tmp_path / "spec.yaml").write_text(readme_block("yaml", "### 1. Write a spec"))
    assert main(["validate", str(tmp_path / "spec.yaml")]) == 0
    assert main(["build", str(tmp_path / "spec.yaml")]) == 0
    (tmp_path / "app.py").write_text(readme_block("python", "### 3. Implement the handlers"))
    # A fresh interpreter: this quickstart's gift_server is not the example's.
    result = subprocess.run([sys.executable, "-c", USE_QUICKSTART], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["['scarf', 'book']", "No gifts in this budget; try 5 EUR or more."]


USE_QUICKSTART = """
import anyio
from app import GiftShop
from gift_server import GiftServerClient, ToolCallError, create_server

async def main():
    async with GiftServerClient.in_memory(create_server(GiftShop())) as client:
        print((await client.suggest_gifts(occasion="birthday", budget=30)).gifts)
        try:
            await client.suggest_gifts(occasion="birthday", budget=1)
        except ToolCallError as error:
            print(error.message)

anyio.run(main)
"""
