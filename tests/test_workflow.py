"""The regenerate loop: init, no-op rebuilds, handler changes, watch mode, stable names."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from helpers import (
    GIFT_SPEC,
    MCPGEN,
    MINIMAL,
    ROOT,
    copy_gift_spec,
    run_mcpgen,
    write_spec,
)

from mcpgen.cli import main
from mcpgen.services.pipeline import build


@pytest.mark.slow  # builds, runs mypy and a client in subprocesses
def test_init_starts_a_project_that_serves_and_never_overwrites(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    project = tmp_path / "weather"
    assert main(["init", str(project)]) == 0
    assert {p.name for p in project.iterdir()} == {"spec.yaml", "mcpgen-spec.schema.json", "weather", "app.py"}
    spec = (project / "spec.yaml").read_text()
    assert spec.startswith("# yaml-language-server: $schema=mcpgen-spec.schema.json")
    app = (project / "app.py").read_text()
    assert "class App(Handlers):" in app and "async def greet(" in app and "async def read_about(" in app
    # The starter app type-checks and serves: a real client gets the stub's business error.
    mypy = subprocess.run([sys.executable, "-m", "mypy", "--strict", "app.py"], cwd=project, capture_output=True, text=True)
    assert mypy.returncode == 0, mypy.stdout
    use = (
        "import anyio\nfrom app import App\nfrom weather import WeatherClient, ToolCallError, create_server\n"
        "async def main():\n"
        "    async with WeatherClient.in_memory(create_server(App())) as client:\n"
        "        try:\n            await client.greet(name='Ann')\n"
        "        except ToolCallError as error:\n            print(error.message)\n"
        "anyio.run(main)\n"
    )
    result = subprocess.run([sys.executable, "-c", use], cwd=project, capture_output=True, text=True)
    assert result.stdout.strip() == "greet is not implemented yet", result.stderr

    (project / "app.py").write_text("# my code\n")
    (project / "spec.yaml").write_text(spec + "\n# my note\n")
    capsys.readouterr()
    assert main(["init", str(project)]) == 0
    assert (project / "app.py").read_text() == "# my code\n"
    assert (project / "spec.yaml").read_text().endswith("# my note\n")
    assert "app.py: exists, kept" in capsys.readouterr().out


@pytest.mark.slow  # builds with the real generator
def test_build_names_the_methods_a_new_tool_needs(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    spec = write_spec(tmp_path, MINIMAL)
    assert main(["build", str(spec)]) == 0
    user_code = tmp_path / "app.py"
    user_code.write_text("# the user's implementation\n")
    write_spec(tmp_path, MINIMAL + "  shout:\n    inputSchema: {type: object}\n")
    capsys.readouterr()
    assert main(["build", str(spec)]) == 0
    out = capsys.readouterr().out
    assert "implement these methods in your Handlers subclass" in out
    assert "async def shout(self, args: ShoutInput, ctx: Context) -> ToolContent" in out
    assert "from demo import Context, ShoutInput, ToolContent" in out  # what the signature needs
    assert user_code.read_text() == "# the user's implementation\n"


@pytest.mark.slow  # builds in subprocesses
def test_a_no_op_rebuild_does_not_render(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, MINIMAL)
    run_mcpgen("build", str(spec), check=True)
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "mcpgen", "build", str(spec)], capture_output=True, text=True
    )
    elapsed = time.perf_counter() - started
    assert result.returncode == 0 and result.stdout.strip().endswith("up to date")
    imported = {line.split("|")[-1].strip() for line in result.stderr.splitlines()}
    # Nor the SDK (its client is 0.7 s of imports, which `import --era`'s words once pulled in).
    for renderer in ("datamodel_code_generator", "black", "jinja2", "jsonschema", "jsonschema_rs", "mcp", "mcp_types"):
        assert renderer not in imported, f"a no-op rebuild imported {renderer}"
    assert elapsed < 1.0
    # Any change makes it render again: the spec...
    write_spec(tmp_path, MINIMAL.replace("echo:", "echo:\n    title: Echo"))
    rebuilt = run_mcpgen("build", str(spec), check=True).stdout
    assert "2 files written" in rebuilt  # schema.json (which the server serves) and SCHEMA.md
    # ...or a touched output file, which then counts as a hand edit.
    with open(tmp_path / "demo" / "server.py", "a") as handle:
        handle.write("# edit\n")
    assert run_mcpgen("build", str(spec)).returncode == 1


def _wait_for(predicate, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting for the watcher"
        time.sleep(0.1)


@pytest.mark.slow  # a watcher subprocess
def test_watch_rebuilds_on_save_and_survives_a_broken_spec(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, MINIMAL)
    log = tmp_path / "watch.log"
    with open(log, "w") as output:
        watcher = subprocess.Popen([*MCPGEN, "watch", str(spec)], stdout=output, stderr=subprocess.STDOUT)
    try:
        server = tmp_path / "demo" / "schema.json"
        _wait_for(server.exists)
        good = server.read_bytes()
        write_spec(tmp_path, MINIMAL.replace("type: string", "type: strnig"))
        _wait_for(lambda: "'strnig' is not a JSON Schema type" in log.read_text())
        assert server.read_bytes() == good  # the last good output stays
        write_spec(tmp_path, MINIMAL.replace("echo:", "echo:\n    description: Echoes."))
        _wait_for(lambda: b"Echoes." in server.read_bytes())
        assert watcher.poll() is None  # still watching
    finally:
        watcher.terminate()
        watcher.wait(timeout=10)


def _names(package: dict[str, bytes]) -> set[str]:
    names = set()
    for name in (*(name for name in package if name.startswith("models/")), "handlers.py", "client.py"):
        for node in ast.walk(ast.parse(package[name])):
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                names.add(f"{name}:{node.name}")
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(f"{name}:{node.target.id}")
    return names


@pytest.mark.slow  # builds with the real generator
def test_reordering_tools_and_properties_keeps_every_name(tmp_path: Path) -> None:
    spec = yaml.safe_load(GIFT_SPEC.read_text())
    spec["output"] = "out"
    spec["tools"] = dict(reversed(list(spec["tools"].items())))
    spec["definitions"] = dict(reversed(list(spec["definitions"].items())))
    for tool in spec["tools"].values():
        tool["inputSchema"]["properties"] = dict(reversed(list(tool["inputSchema"]["properties"].items())))
    reordered = copy_gift_spec(tmp_path, yaml.safe_dump(spec, sort_keys=False))
    assert _names(build(reordered).files) == _names(build(GIFT_SPEC).files)


def test_pre_commit_hooks_are_declared() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    check = next(hook for hook in hooks if hook["id"] == "mcpgen-check")
    assert check["entry"] == "mcpgen check" and check["pass_filenames"] is False
    assert re.search(r"mcpgen check specs/", (ROOT / "docs" / "how-to" / "ci.md").read_text())


@pytest.mark.slow  # builds in subprocesses
def test_a_changed_file_that_the_spec_names_is_rebuilt(tmp_path: Path) -> None:
    (tmp_path / "widget.html").write_text("<p>one</p>")
    spec = write_spec(
        tmp_path,
        MINIMAL + "resources:\n  widget:\n    uri: ui://w.html\n    mimeType: text/html\n    file: widget.html\n",
    )
    run_mcpgen("build", str(spec), check=True)
    assert "up to date" in run_mcpgen("build", str(spec)).stdout
    (tmp_path / "widget.html").write_text("<p>two</p>")
    rebuilt = run_mcpgen("build", str(spec), check=True).stdout
    assert "1 file written" in rebuilt  # the widget, shipped as package data
    assert (tmp_path / "demo" / "_static" / "widget.html").read_text() == "<p>two</p>"
