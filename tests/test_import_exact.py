"""Issue 20: real servers import exactly, and `import` behaves at its edges.

Three Python reference servers (time, fetch, git; captures in tests/corpus/) announce
`resources` and `prompts` with nothing in them: a spec declares such capabilities under
`server.capabilities` (`resources: {}`), and a built server then answers the empty lists
instead of -32601, in both eras. `completions: false` keeps completion off where prompt
arguments would imply it (the fetch server has a prompt with an argument and no
completion). Also: `--stdio` takes leading KEY=VALUE words as the command's environment,
`--timeout` holds the whole process to within half a second, and a peer that breaks the
protocol ends the import with one line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from helpers import (
    CORPUS,
    GENERATED,
    built_package,
    identical,
    run_mcpgen,
    stub_implementation,
    wire,
    write_spec,
)

from mcpgen.cli import main

REAL_SERVERS = ("time", "fetch", "git")

DECLARED_EMPTY = """\
mcpgen: 1
server:
  name: declared
  version: 1.0.0
  capabilities:
    resources: {}
    prompts: {}
    completions: false
tools:
  ping:
    inputSchema: {type: object}
"""


async def _lists_and_capabilities(server: Any, mode: str) -> dict[str, Any]:
    """What a client of `mode` sees: capabilities, the four lists, and how completion answers."""
    from mcp import Client, MCPError

    async with Client(server, mode=mode) as client:
        seen: dict[str, Any] = {"capabilities": wire(client.server_capabilities)}
        seen["tools"] = [wire(tool) for tool in (await client.list_tools()).tools]
        for key, call, field in (
            ("resources", client.list_resources, "resources"),
            ("resourceTemplates", client.list_resource_templates, "resource_templates"),
            ("prompts", client.list_prompts, "prompts"),
        ):
            try:
                seen[key] = [wire(item) for item in getattr(await call(), field)]
            except MCPError as error:
                seen[key] = error.error.code
        return seen


def _capabilities(announced: dict[str, Any]) -> dict[str, Any]:
    """The list capabilities and their flags (the SDK adds `experimental`, and others, as it likes)."""
    return {key: announced[key] for key in ("tools", "resources", "prompts", "completions", "logging") if key in announced}


@pytest.mark.slow  # builds a package
def test_a_spec_declares_capabilities_without_entries(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, DECLARED_EMPTY)
    with built_package(spec, tmp_path / "out") as generated:
        server = generated.create_server(stub_implementation(generated.Handlers))
        for mode in ("auto", "legacy"):
            seen = anyio.run(_lists_and_capabilities, server, mode)
            assert seen["resources"] == [] and seen["resourceTemplates"] == [] and seen["prompts"] == [], (mode, seen)
            assert _capabilities(seen["capabilities"]) == {
                "tools": {"listChanged": False},
                "resources": {"subscribe": False, "listChanged": False},
                "prompts": {"listChanged": False},
            }, mode
    schema = json.loads((tmp_path / "out" / "declared" / "schema.json").read_text())
    assert schema["resources/list"] == {"resources": []} and schema["prompts/list"] == {"prompts": []}


@pytest.mark.slow  # builds a package
def test_completions_false_turns_off_what_prompt_arguments_imply(tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path,
        DECLARED_EMPTY.replace("    resources: {}\n    prompts: {}\n", "")
        + "prompts:\n  greet:\n    arguments: [{name: who}]\n    messages: [{role: user, text: 'hi {{ who }}'}]\n",
    )
    with built_package(spec, tmp_path / "out") as generated:
        server = generated.create_server(stub_implementation(generated.Handlers))
        seen = anyio.run(_lists_and_capabilities, server, "auto")
        assert "completions" not in seen["capabilities"]
        assert not hasattr(generated.Handlers, "complete")


def test_completions_false_beside_completion_values_is_a_diagnostic(tmp_path: Path, capsys: Any) -> None:
    spec = write_spec(
        tmp_path,
        DECLARED_EMPTY + "prompts:\n  greet:\n    arguments: [{name: who, completion: [ann, bob]}]\n",
    )
    assert main(["validate", str(spec)]) == 1
    err = capsys.readouterr().err
    assert f"{spec}:8:18: error: " in err and "completions: false" in err and "hint:" in err, err
    assert "Traceback" not in err


def _import_capture(name: str, tmp_path: Path) -> tuple[Path, str]:
    spec = tmp_path / f"{name}.yaml"
    done = run_mcpgen("import", str(CORPUS / f"{name}.json"), "-o", str(spec), "--package", f"real_{name}")
    assert done.returncode == 0, done.stderr
    return spec, done.stderr


@pytest.mark.slow  # builds a package per server
@pytest.mark.parametrize("name", REAL_SERVERS)
def test_a_real_python_server_imports_exactly(name: str, tmp_path: Path) -> None:
    capture = json.loads((CORPUS / f"{name}.json").read_text())
    spec, stderr = _import_capture(name, tmp_path)
    assert "0 things not carried over exactly" in stderr, stderr
    with built_package(spec, tmp_path / "out") as generated:
        server = generated.create_server(stub_implementation(generated.Handlers))
        for mode in ("auto", "legacy"):
            seen = anyio.run(_lists_and_capabilities, server, mode)
            assert _capabilities(seen["capabilities"]) == capture["capabilities"], mode
            for key in ("tools", "resources", "resourceTemplates", "prompts"):
                assert identical(seen[key], capture[key]), (mode, key)


# TypeScript reference servers (captured over 2025-11-25, the protocol they speak):
# `execution: {taskSupport: ...}` on every tool, and everything's `tasks` capability.
TYPESCRIPT_SERVERS = ("everything", "filesystem", "memory")


@pytest.mark.slow  # builds a package per server
@pytest.mark.parametrize("name", TYPESCRIPT_SERVERS)
def test_a_real_typescript_server_imports_exactly_with_its_task_support(name: str, tmp_path: Path) -> None:
    capture = json.loads((CORPUS / f"{name}.json").read_text())
    spec, stderr = _import_capture(name, tmp_path)
    assert "0 things not carried over exactly" in stderr, stderr
    assert "execution:\n      taskSupport: forbidden\n" in spec.read_text()
    strict = run_mcpgen("import", str(CORPUS / f"{name}.json"), "--strict")
    assert strict.returncode == 0, strict.stderr
    announced = _capabilities(capture["capabilities"]) | {
        key: capture["capabilities"][key] for key in ("tasks",) if key in capture["capabilities"]
    }
    with built_package(spec, tmp_path / "out") as generated:
        server = generated.create_server(stub_implementation(generated.Handlers))
        legacy = anyio.run(_lists_and_capabilities, server, "legacy")
        modern = anyio.run(_lists_and_capabilities, server, "auto")
    assert {key: legacy["capabilities"][key] for key in announced} == announced
    assert "tasks" not in modern["capabilities"]  # 2026-07-28 names its tasks extension instead
    assert identical(legacy["tools"], capture["tools"])
    # 2026-07-28's Tool has no `execution`; everything else is served the same.
    without = [{key: value for key, value in tool.items() if key != "execution"} for tool in capture["tools"]]
    assert identical(modern["tools"], without)
    for key in ("resources", "resourceTemplates", "prompts"):
        for seen in (legacy, modern):  # a list the server does not announce is -32601
            assert identical(seen[key], capture[key] if key in capture else -32601), key


def _real_server(name: str) -> str | None:
    """The installed PyPI server's command (MCPGEN_REAL_SERVERS names their bin folder)."""
    folder = os.environ.get("MCPGEN_REAL_SERVERS")
    found = Path(folder, f"mcp-server-{name}") if folder else None
    return str(found) if found and found.exists() else shutil.which(f"mcp-server-{name}")


@pytest.mark.slow  # starts the real server over stdio
@pytest.mark.parametrize("name", REAL_SERVERS)
def test_the_real_server_lists_what_its_capture_holds(name: str, tmp_path: Path) -> None:
    command = _real_server(name)
    if command is None:
        pytest.skip(f"mcp-server-{name} is not installed (pip install it, or set MCPGEN_REAL_SERVERS)")
    capture = tmp_path / "capture.json"
    done = run_mcpgen("import", "--stdio", command, "-o", str(tmp_path / "spec.yaml"), "--capture", str(capture))
    assert done.returncode == 0, done.stderr
    assert "0 things not carried over exactly" in done.stderr, done.stderr
    live, committed = json.loads(capture.read_text()), json.loads((CORPUS / f"{name}.json").read_text())
    live["serverInfo"].pop("version"), committed["serverInfo"].pop("version")
    assert identical(live, committed)


# --- --stdio KEY=VALUE ... ------------------------------------------------------------------


@pytest.mark.slow  # servers in subprocesses
def test_stdio_takes_leading_assignments_as_the_environment(tmp_path: Path) -> None:
    """The app imports the example package only through PYTHONPATH, given on the command line."""
    app = tmp_path / "app.py"
    app.write_text(f"import runpy\nrunpy.run_path({str(GENERATED.parent / 'app.py')!r}, run_name='__main__')\n")
    command = f"PYTHONPATH={GENERATED.parent} MCPGEN_UNUSED='a b' {sys.executable} {app}"
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = run_mcpgen("import", "--stdio", command, "-o", str(tmp_path / "spec.yaml"), env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "name: gift-server" in (tmp_path / "spec.yaml").read_text()


def test_stdio_with_only_assignments_is_a_usage_error(capsys: Any) -> None:
    assert main(["import", "--stdio", "FOO=1 BAR=2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no command after the environment" in err, err


def test_the_help_says_stdio_takes_environment_words() -> None:
    done = run_mcpgen("import", "--help")
    assert "KEY=VALUE" in " ".join(done.stdout.split())


# --- --timeout, and peers that break the protocol -------------------------------------------

# Ignores stdin closing and SIGTERM alike: only SIGKILL ends it.
STUBBORN = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"


@pytest.mark.slow  # waits for the timeout
def test_the_timeout_holds_the_whole_process(tmp_path: Path) -> None:
    stubborn = tmp_path / "stubborn.py"
    stubborn.write_text(STUBBORN)
    # What the timeout cannot bound: this interpreter starting and importing mcpgen, timed
    # here, now, so that a loaded machine (tests in parallel) moves both sides alike.
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "mcpgen", "--version"], capture_output=True, check=True, timeout=30)
    start_up = time.monotonic() - started
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen", "import", "--stdio", f"{sys.executable} {stubborn}", "--timeout", "3"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    seconds = time.monotonic() - started
    assert done.returncode == 1 and "within 3 s" in done.stderr, done.stderr
    assert seconds < 3.5 + start_up, f"--timeout 3 took {seconds:.2f} s, of which starting {start_up:.2f} s"


@pytest.mark.slow  # starts servers
@pytest.mark.parametrize(
    "server, timeout, phrase",
    [
        # Waits for ever after its banner: the timeout is the answer.
        ("print('Server started'); import sys; sys.stdout.flush(); sys.stdin.read()", "3", "within 3 s"),
        # Answer at once: a timeout long enough for a loaded machine, so that only the junk is seen.
        ("print('not json at all'); print('{\"jsonrpc\": 2}')", "20", "not JSON-RPC"),
        ("import sys; sys.stdout.buffer.write(bytes(range(256)) + b'\\n')", "20", "not JSON-RPC"),
    ],
    ids=["banner", "junk-then-exit", "binary"],
)
def test_a_peer_that_breaks_the_protocol_gets_one_line(server: str, timeout: str, phrase: str, tmp_path: Path) -> None:
    script = tmp_path / "peer.py"
    script.write_text(server)
    target = f"{sys.executable} {script}"
    done = run_mcpgen("import", "--stdio", target, "--timeout", timeout, timeout=60)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "pydantic" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{target}: error: ") and phrase in lines[0], done.stderr
