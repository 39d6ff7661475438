"""Progress on a terminal: a build or an import that takes more than about a second shows
its stage and counts on stderr, on one line that it overwrites, and clears it at the end;
on a pipe, or with --quiet, nothing. The terminal is a real pseudo-terminal."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT

pytestmark = pytest.mark.slow  # each builds a 300-tool spec in a fresh interpreter

sys.path.insert(0, str(ROOT))
from benchmarks.specs import write_spec  # noqa: E402


def _on_a_terminal(arguments: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """`mcpgen ARGUMENTS` with stderr on a pty (stdout on a pipe); its stderr as the terminal got it."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "mcpgen", *arguments], stdout=subprocess.PIPE, stderr=follower, cwd=cwd, env=env
    )
    os.close(follower)
    seen = bytearray()
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    process.communicate(timeout=60)
    return process.returncode, seen.decode(errors="replace")


@pytest.fixture()
def large_spec(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A 300-tool spec and an empty cache of its own, so the build generates every model."""
    spec = write_spec(tmp_path, 300)
    env = {**os.environ, "MCPGEN_CACHE_DIR": str(tmp_path / "cache")}
    return spec, env


def test_a_long_build_shows_stages_and_counts_on_a_terminal(large_spec: tuple[Path, dict[str, str]]) -> None:
    spec, env = large_spec
    code, terminal = _on_a_terminal(["build", str(spec)], spec.parent, env)
    assert code == 0, terminal
    updates = re.findall(r"\r\x1b\[K(building[^\r\n\x1b]*)", terminal)
    assert any(re.search(r"models \d+/\d+", update) for update in updates), terminal
    assert any("300 tools" in update for update in updates), terminal
    assert "\n" not in "".join(updates)
    assert not terminal.rsplit("\r\x1b[K", 1)[1].startswith("building"), "the line is cleared at the end"


def test_no_progress_on_a_pipe_or_with_quiet(large_spec: tuple[Path, dict[str, str]]) -> None:
    spec, env = large_spec
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen", "build", str(spec)], capture_output=True, text=True, cwd=spec.parent, env=env
    )
    assert done.returncode == 0, done.stderr
    assert "building" not in done.stderr and "\r" not in done.stderr and "\x1b" not in done.stderr
    code, terminal = _on_a_terminal(["build", str(spec), "--force", "--quiet"], spec.parent, {**env, "MCPGEN_CACHE_DIR": str(spec.parent / "cache2")})
    assert code == 0
    assert "building" not in terminal and "\x1b" not in terminal, terminal


def test_a_long_import_shows_progress_on_a_terminal(large_spec: tuple[Path, dict[str, str]]) -> None:
    spec, env = large_spec
    code = subprocess.run(
        [sys.executable, "-m", "mcpgen", "build", str(spec), "--quiet"], cwd=spec.parent, env=env, capture_output=True
    ).returncode
    assert code == 0
    app = spec.parent / "app.py"
    app.write_text(
        subprocess.run(
            [sys.executable, "-m", "mcpgen", "stub", str(spec)], cwd=spec.parent, env=env, capture_output=True, text=True
        ).stdout
    )
    code, terminal = _on_a_terminal(
        ["import", "--stdio", f"{sys.executable} {app}", "-o", str(spec.parent / "again.yaml")],
        spec.parent,
        {**env, "MCPGEN_CACHE_DIR": str(spec.parent / "import-cache")},  # the models are generated again
    )
    assert code == 0, terminal
    assert re.search(r"\r\x1b\[Kimporting 300 tools[^:\r]*: models \d+/\d+", terminal), terminal
