"""The README as a new user follows it: a fresh virtual environment, mcpgen installed the way
the README says (which brings what generated servers need), then the quickstart in order:
write the spec, validate, build, implement, serve over HTTP, and call it with the client."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, listening, readme_block

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]  # a new venv and a real install: about a minute idle


def test_the_quickstart_in_a_fresh_virtual_environment(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    bin_dir = venv / "bin"
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"

    def run(*command: str, cwd: Path = tmp_path) -> str:
        result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, f"{' '.join(command)}\n{result.stdout}\n{result.stderr}"
        return result.stdout + result.stderr

    # "Install mcpgen ...": the README's command, from a clone of its own (what the install and
    # the build read), so that neither writes into this checkout, which other tests read meanwhile.
    install = readme_block("sh", "Install mcpgen and build the example gift server")
    assert install.strip() == "pip install -e . && mcpgen build specs/gift_server.yaml"
    clone = tmp_path / "clone"
    # Every file a clone holds, as this checkout has it now (uncommitted edits included): a
    # hand-kept list of folders went stale when the templates moved into the package.
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, clone / name)
    (clone / ".git").mkdir()  # a clone is a git repository: the project the spec may read from
    run(str(bin_dir / "pip"), "install", "--quiet", "-e", ".", cwd=clone)
    run(str(bin_dir / "mcpgen"), "build", "specs/gift_server.yaml", cwd=clone)

    project = tmp_path / "project"
    project.mkdir()
    (project / "spec.yaml").write_text(readme_block("yaml", "### 1. Write a spec"))
    assert "spec.yaml: ok" in run(str(bin_dir / "mcpgen"), "validate", "spec.yaml", cwd=project)
    built = run(str(bin_dir / "mcpgen"), "build", "spec.yaml", cwd=project)
    assert "mcpgen stub spec.yaml" in built  # the first build says how to start the handlers
    (project / "app.py").write_text(readme_block("python", "### 3. Implement the handlers"))
    client = readme_block("python", "### 5. Call it")
    assert 'GiftServerClient.http("http://127.0.0.1:8000/mcp")' in client

    def serve(port: int) -> list[str]:
        return [str(bin_dir / "python"), "app.py", "--http", f"127.0.0.1:{port}"]

    with listening(serve, cwd=project, env=env) as url:
        (project / "client.py").write_text(client.replace("http://127.0.0.1:8000/mcp", url))
        assert run(str(bin_dir / "python"), "client.py", cwd=project).strip() == "['scarf', 'book']"
