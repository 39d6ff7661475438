"""The code people read: the generator passes mypy --strict and ruff, and every generated
package in the repository passes ruff and black as committed (mypy on generated code is in
test_render)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from helpers import ROOT

pytestmark = pytest.mark.slow

GENERATED_PACKAGES = [
    "generated_example/gift_server",
    "tests/conformance/conformance_server",
    "tests/kitchen_sink/kitchen_sink",
]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True)


def test_mypy_strict_passes_on_the_generator() -> None:
    result = _run("mypy", "--strict", "--no-incremental", "mcpgen")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_passes_on_the_generator_and_the_generated_packages() -> None:
    result = _run("ruff", "check", "--no-cache", "mcpgen", *GENERATED_PACKAGES)
    assert result.returncode == 0, result.stdout + result.stderr


def test_generated_packages_are_black_clean() -> None:
    result = _run("black", "--check", "--quiet", "-l", "88", "--target-version", "py311", *GENERATED_PACKAGES)
    assert result.returncode == 0, result.stdout + result.stderr
