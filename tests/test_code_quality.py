"""The code people read: the generator passes mypy --strict and ruff, and every generated
package in the repository passes ruff and black as committed (mypy on the gift and kitchen-sink
packages is in test_render and test_kitchen_sink; the conformance package's is here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, build_and_write

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


def test_mypy_strict_passes_on_the_conformance_package_and_its_handlers() -> None:
    # The one committed package with x-mcp-header parameters (the client's PARAM_HEADERS table).
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "app.py", "conformance_server"],
        cwd=ROOT / "tests" / "conformance",
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_passes_on_the_generator_and_the_generated_packages() -> None:
    result = _run("ruff", "check", "--no-cache", "mcpgen", *GENERATED_PACKAGES)
    assert result.returncode == 0, result.stdout + result.stderr


def test_generated_packages_are_black_clean() -> None:
    result = _run("black", "--check", "--quiet", "-l", "88", "--target-version", "py311", *GENERATED_PACKAGES)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_generated_100_tool_package_is_black_clean(tmp_path: Path) -> None:
    # Large classes (Handlers, the client) are formatted method by method, and models come
    # group by group: black on the whole result must find nothing to change.
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from specs import write_spec as write_benchmark_spec
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    spec = write_benchmark_spec(tmp_path, 100)
    result = build_and_write(spec, tmp_path / "out")
    package = str(result.directory)
    black = _run("black", "--check", "-l", "88", "--target-version", "py311", package)
    assert black.returncode == 0, black.stdout + black.stderr
    ruff = _run("ruff", "check", "--no-cache", package)
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr


@pytest.mark.parametrize("spec", ["gift_server", "conformance", "kitchen_sink"])
def test_fresh_packages_pass_ruff_defaults_and_the_repository_config(spec: str, request: pytest.FixtureRequest) -> None:
    # A user's own ruff reaches generated code unless told otherwise: with no configuration
    # (`--isolated`: ruff's defaults, which grow with ruff) and with this repository's, it
    # finds nothing. Built fresh (once a session: conftest.py), so the committed packages' age does not matter.
    package = str(request.getfixturevalue(f"{spec}_build").directory)
    defaults = _run("ruff", "check", "--no-cache", "--isolated", "--target-version", "py311", package)
    assert defaults.returncode == 0, defaults.stdout + defaults.stderr
    configured = _run("ruff", "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), package)
    assert configured.returncode == 0, configured.stdout + configured.stderr
