"""Every fenced block of the README and of every page of the docs site (docs/**/*.md) has a
fate, in one table (FATES): the checks that run it, here or in another test file, or the reason
it cannot run here (CI only, the network, pytest running itself). A block without an entry fails
`test_every_block_has_a_fate`, so no new block slips in unchecked; a block rewritten in place
fails it too until its entry is reviewed.

Commands run as the README prints them, through the shell, in a temporary project, with this
virtual environment's `mcpgen`, `python` and `uvicorn` first on PATH; a server's port 8000
becomes a free one. Output blocks are compared with what the command prints, line for line.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
import yaml
from helpers import CORPUS, GIFT_SPEC, ROOT, free_port, listening
from packaging.requirements import Requirement
from services import require_program, wait_for_port

from mcpgen.cli import _parser

README = ROOT / "README.md"
DOCS = ROOT / "docs"


def pages() -> list[Path]:
    """The README and every page of the docs site, as committed (the generated reference pages
    hold no blocks to run: tests/test_docs_site.py checks them)."""
    return [README, *sorted(DOCS.rglob("*.md"))]


@dataclass(frozen=True)
class Block:
    page: str  # README.md, docs/tutorial.md, ...
    section: str  # the heading above it, without its hashes
    language: str
    text: str
    line: int  # of the opening fence, 1-based

    def lines(self) -> list[str]:
        return self.text.splitlines()

    def commands(self) -> list[str]:
        """A shell block's commands, comments and the trailing `# ...` explanations left out."""
        return [strip_comment(line) for line in self.lines() if strip_comment(line)]


def strip_comment(line: str) -> str:
    return re.sub(r"\s+#\s.*$", "", line).strip() if not line.startswith("#") else ""


def page_blocks(page: str, text: str) -> dict[str, Block]:
    """Each fenced block of one page, keyed `page: section: language` (`... #2` for the second
    one of that language in the same section)."""
    blocks: dict[str, Block] = {}
    section = ""
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("#"):
            section = line.lstrip("#").strip()
        fence = re.match(r"```(\w*)\s*$", line)
        if fence:
            end = index + 1
            while not lines[end].startswith("```"):
                end += 1
            key = f"{page}: {section}: {fence[1] or 'plain'}"
            count = 1
            while (f"{key} #{count}" if count > 1 else key) in blocks:
                count += 1
            key = f"{key} #{count}" if count > 1 else key
            body = "\n".join(lines[index + 1 : end]) + "\n"
            blocks[key] = Block(page, section, fence[1], body, index + 1)
            index = end
        index += 1
    return blocks


def all_blocks() -> dict[str, Block]:
    blocks: dict[str, Block] = {}
    for path in pages():
        blocks.update(page_blocks(path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")))
    return blocks


@dataclass(frozen=True)
class Fate:
    starts: str  # how the block starts: a block replaced by another one needs its fate reviewed
    checks: tuple[str, ...] = ()  # `test_x` in this file, or `tests/test_y.py::test_z`
    not_run: str = ""  # why the block, or the part of it the checks leave out, cannot run here


FIRST_HOUR = "tests/test_first_hour.py::test_the_quickstart_in_a_fresh_virtual_environment"
QUICKSTART = "tests/test_readme.py::test_quickstart_spec_builds_and_the_app_answers"
TWO_COMMANDS = "tests/test_readme.py::test_the_two_commands_are_stated"
PYTEST_ITSELF = "pytest running pytest; the checks collect what it selects"
SAME_AS_TUTORIAL = "test_the_readme_quickstart_is_the_tutorials"  # the tutorial's block, whose checks run it

FATES: dict[str, Fate] = {
    # README.md: the two commands, and the quickstart (the tutorial's blocks, in short:
    # test_the_readme_quickstart_is_the_tutorials holds them equal)
    "README.md: Two commands: sh": Fate("pip install -e . && mcpgen build", (FIRST_HOUR, TWO_COMMANDS)),
    "README.md: Two commands: sh #2": Fate(
        'pip install -e ".[test]" && pytest', (TWO_COMMANDS, "test_the_pytest_commands_select_tests"), PYTEST_ITSELF
    ),
    "README.md: 1. Write a spec: yaml": Fate("# yaml-language-server", (QUICKSTART, FIRST_HOUR, SAME_AS_TUTORIAL)),
    "README.md: 2. Build: sh": Fate("mcpgen build spec.yaml", (FIRST_HOUR, SAME_AS_TUTORIAL)),
    "README.md: 3. Implement the handlers: python": Fate("# app.py", (QUICKSTART, FIRST_HOUR, SAME_AS_TUTORIAL)),
    "README.md: 4. Serve: sh": Fate("python app.py", (FIRST_HOUR, SAME_AS_TUTORIAL)),
    "README.md: 5. Call it: python": Fate("import asyncio", (FIRST_HOUR, SAME_AS_TUTORIAL)),
    # docs/tutorial.md
    "docs/tutorial.md: 1. Write a spec: yaml": Fate("# yaml-language-server", ("test_the_quickstart_serves",)),
    "docs/tutorial.md: 1. Write a spec: text": Fate("spec.yaml:", ("test_validate_prints_the_quickstart_error",)),
    "docs/tutorial.md: 2. Build: sh": Fate("mcpgen build spec.yaml", ("test_the_quickstart_serves",)),
    "docs/tutorial.md: 3. Implement the handlers: python": Fate("# app.py", ("test_the_quickstart_serves",)),
    "docs/tutorial.md: 4. Serve: sh": Fate("python app.py", ("test_the_quickstart_serves",)),
    "docs/tutorial.md: 4. Serve: python": Fate("# asgi.py", ("test_the_quickstart_serves",)),
    "docs/tutorial.md: 4. Serve: sh #2": Fate(
        "export MCP_REQUEST_STATE_KEY",
        ("test_the_quickstart_serves", "tests/test_deployment.py::test_several_workers_answer_both_eras"),
    ),
    "docs/tutorial.md: 5. Call it: python": Fate("import asyncio", ("test_the_quickstart_serves",)),
    "docs/tutorial.md: 5. Call it: sh": Fate("python generated_example/app.py --http", ("test_the_example_serves_from_the_root",)),
    # how-to guides
    "docs/how-to/workflow.md: Start a project: sh": Fate(
        "mcpgen init my-server",
        ("test_init_and_its_app_serve", "tests/test_workflow.py::test_init_starts_a_project_that_serves_and_never_overwrites"),
    ),
    "docs/how-to/import-a-server.md: Import an existing server: sh": Fate(
        'mcpgen import --stdio "python server.py"',
        ("test_the_import_commands_write_specs",),
        "the fourth command (uvx mcp-server-fetch) needs the network; tests/test_import_exact.py imports "
        "mcp-server-fetch from its capture and tests --stdio's KEY=VALUE words",
    ),
    "docs/how-to/import-a-server.md: Import an existing server: text": Fate(
        "http://127.0.0.1:8000/mcp: error:", ("test_import_prints_the_documented_refusals",)
    ),
    "docs/how-to/import-a-server.md: Import an existing server: text #2": Fate(
        "capture.json: warning:", ("test_import_prints_the_documented_reports",)
    ),
    "docs/openapi.md: Serving an API: sh": Fate(
        "mcpgen import --openapi petstore.yaml",
        ("tests/test_forwarding_openapi.py::test_an_imported_petstore_forwards_to_prism",),
        "petstore.example.com is no API; the test imports, builds and serves the petstore the same way, "
        "with MCP_UPSTREAM_URL pointing at a Prism mock of it",
    ),
    "docs/openapi.md: Overriding an operation: python": Fate(
        "from swagger_petstore import Context",
        ("tests/test_forwarding_openapi.py::test_an_imported_petstore_forwards_to_prism",),
        "a subclass of the petstore's ForwardingHandlers; the test serves the package it subclasses",
    ),
    "docs/openapi.md: Importing a document: sh": Fate(
        "mcpgen import --openapi api.yaml",
        (
            "tests/test_openapi_import.py::test_filters_and_x_mcp_choose_and_name_the_tools",
            "tests/test_openapi_import.py::test_a_document_by_url_resolves_a_relative_server_against_its_own_url",
            "tests/test_openapi_import.py::test_lint_budget_prints_bytes_and_tokens_per_tool",
        ),
        "api.yaml and example.com stand for your document; the tests run the same flags on real ones",
    ),
    "docs/authorization.md: The spec: yaml": Fate(
        "server:",
        ("tests/test_authorization_spec.py::test_a_spec_with_authorization_validates_cleanly",),
        "an excerpt of a spec (no tools' schemas); the test validates a whole spec with these keys",
    ),
    "docs/authorization.md: With a real authorization server: sh": Fate(
        "export PATH=$PWD/.ci/_work/node",
        ("tests/test_auth_oidc.py::test_the_typed_client_with_a_static_token",),
        "starts the Node authorization server and curl; the test starts the same provider and server "
        "and asks it for a client_credentials token",
    ),
    "docs/authorization.md: Clients: python": Fate(
        "from notes import NotesClient",
        (
            "tests/test_auth_oidc.py::test_the_typed_client_with_a_static_token",
            "tests/test_auth_oidc.py::test_the_typed_client_with_the_sdks_oauth_provider",
        ),
        "fragments (an `async with` outside a coroutine, the OAuth provider's arguments left out)",
    ),
    "docs/authorization.md: Why a token was refused: the server's log: text": Fate(
        "WARNING notes.auth: access token refused (typ)",
        ("tests/test_auth_introspection_abuse.py::test_a_refused_token_is_logged_with_why_and_the_setting_never_the_token",),
        "log lines shown as an example; the test reads the same lines from a served package's stderr",
    ),
    "docs/reference/client.md: A lost session: python": Fate(
        "async def subscribe(client: Client)",
        ("tests/test_load_balancer.py::test_a_typed_client_opens_a_new_session_when_its_replica_stops",),
        "a fragment on a server the example is not; the test subscribes again the same way, through HAProxy",
    ),
    "docs/authorization.md: Opaque tokens (introspection): sh": Fate(
        "# the endpoint named by",
        ("tests/test_auth_introspection_served.py::test_the_mcp_client_calls_with_an_opaque_token",),
        "auth.example.com is no authorization server; the test serves with --introspection against a real one",
    ),
    "docs/how-to/tasks.md: Call a task from the typed client: python": Fate(
        "handle = await client.start_build_report",
        ("tests/test_task_client.py::test_a_task_from_the_typed_client_in_memory",),
        "a fragment on a tool the example has not; the test makes the same calls on a task tool",
    ),
    "docs/how-to/deployment.md: Deployment: text": Fate(
        "                 clients, both eras",
        ("tests/test_load_balancer.py::test_2026_requests_go_to_every_replica",),
        "a drawing of the topology deploy/compose.yaml makes and the test starts",
    ),
    "docs/how-to/deployment.md: Three replicas as plain processes: sh": Fate(
        "# Redis, shared by the replicas", ("test_the_plain_process_deployment_serves",)
    ),
    "docs/how-to/deployment.md: Docker Compose: yaml": Fate(
        "# Three replicas of one MCP server behind HAProxy",
        (
            "tests/test_deploy_files.py::test_the_docs_show_the_files_as_they_are",
            "tests/test_deploy_files.py::test_haproxy_sends_to_every_replica_where_it_listens",
        ),
        "Docker Compose does not run here: the load balancer tests start the same processes directly",
    ),
    "docs/how-to/deployment.md: Docker Compose: haproxy": Fate(
        "# HAProxy in front of the replicas",
        (
            "tests/test_deploy_files.py::test_the_docs_show_the_files_as_they_are",
            "tests/test_load_balancer.py::test_a_replica_killed_under_load_loses_only_its_own_calls",
            "test_the_plain_process_deployment_serves",
        ),
    ),
    "docs/scale-out.md: Turning it on: sh": Fate(
        "python app.py --http 0.0.0.0:8000 --redis",
        (
            "tests/test_redis_bus.py::test_a_call_on_one_replica_reaches_clients_of_another_in_both_eras",
            "tests/test_redis_bus.py::test_redis_url_comes_from_the_environment",
            "test_the_plain_process_deployment_serves",
        ),
        "`redis` is a host name inside Docker Compose; the tests and the plain-process guide use a local redis-server",
    ),
    "docs/how-to/lint.md: Lint for the clients you target: sh": Fate("mcpgen lint spec.yaml", ("test_lint_prints_the_documented_finding",)),
    "docs/how-to/lint.md: Lint for the clients you target: text": Fate("spec.yaml:44:9", ("test_lint_prints_the_documented_finding",)),
    "docs/how-to/ci.md: In CI: yaml": Fate(
        "# GitHub Actions",
        ("test_the_workflow_snippets_parse_and_name_real_commands",),
        "CI only: installs mcpgen from its git URL (the network); the check command is checked to parse, "
        "and tests/test_cli.py::test_check_passes_on_the_committed_packages runs it",
    ),
    "docs/how-to/ci.md: As a pre-commit hook: yaml": Fate(
        "# .pre-commit-config.yaml",
        ("test_the_workflow_snippets_parse_and_name_real_commands", "tests/test_workflow.py::test_pre_commit_hooks_are_declared"),
        "needs pre-commit, which mcpgen does not install; its command is what test_check_passes_on_the_committed_packages runs",
    ),
    "docs/how-to/breaking-changes.md: Breaking changes: sh": Fate(
        "mcpgen diff old.yaml spec.yaml",
        ("test_diff_prints_the_documented_excerpt", "tests/test_diff.py::test_against_a_git_ref"),
    ),
    "docs/how-to/breaking-changes.md: Breaking changes: text": Fate("old.yaml:29:3", ("test_diff_prints_the_documented_excerpt",)),
    "docs/how-to/breaking-changes.md: In CI: yaml": Fate(
        "# .github/workflows/contract.yml",
        ("test_the_workflow_snippets_parse_and_name_real_commands", "tests/test_diff.py::test_against_a_git_ref"),
        "CI only: a GitHub Actions workflow that installs mcpgen from its git URL",
    ),
    # reference and explanation
    "docs/reference/package.md: The generated package: toml": Fate("# pyproject.toml", ("test_the_linter_settings_leave_the_package_out",)),
    "docs/explanation/security.md: What you add: python": Fate(
        "# asgi.py: the server behind a bearer token",
        ("tests/test_security.py::test_the_bearer_token_example_guards_the_server",),
    ),
    # contributing
    "docs/contributing/index.md: Development: sh": Fate(
        'pip install -e ".[test]" && pytest -m "not slow"',
        ("test_the_pytest_commands_select_tests", "test_the_quick_loop_takes_what_pyproject_says"),
        PYTEST_ITSELF,
    ),
    "docs/contributing/index.md: Fixtures to regenerate: sh": Fate(
        "mcpgen build specs/gift_server.yaml && mcpgen build specs/conformance.yaml",
        (
            "tests/test_render.py::test_golden_rebuild_is_byte_identical",
            "tests/test_cli.py::test_check_passes_on_the_committed_packages",
            "tests/test_cli.py::test_schema_prints_the_spec_format_and_the_committed_copy_is_current",
            "test_the_pytest_commands_select_tests",
        ),
        "rebuilding would rewrite the committed packages in the working tree; the golden tests hold them "
        "to what these commands write. The update runs are pytest running pytest",
    ),
    "docs/contributing/index.md: Benchmarks: sh": Fate(
        "python benchmarks/generation.py",
        ("test_the_benchmark_commands_take_their_flags", "tests/test_benchmarks.py::test_generation_prints_its_tables"),
        "minutes each on a quiet machine, measurements only; tests/test_benchmarks.py runs their quick variants",
    ),
    "docs/contributing/index.md: The docs site: sh": Fate(
        "mkdocs build --strict",
        ("tests/test_docs_site.py::test_the_site_builds_with_strict_warnings",),
        "`mkdocs serve` serves until it is stopped; the test runs the build",
    ),
    "docs/contributing/fuzzing.md: Fuzzing: sh": Fate("MCPGEN_FUZZ_EXAMPLES=10000", ("test_the_pytest_commands_select_tests",), PYTEST_ITSELF),
}


def block(key: str) -> Block:
    return all_blocks()[key]


# --- the table itself --------------------------------------------------------------------------


def test_every_block_has_a_fate() -> None:
    blocks = all_blocks()
    missing = {key: f"{b.page}:{b.line}" for key, b in blocks.items() if key not in FATES}
    assert not missing, f"blocks without an entry in FATES: {missing}"
    assert not set(FATES) - set(blocks), f"FATES names blocks the pages no longer have: {set(FATES) - set(blocks)}"
    changed = {key: f"{b.page}:{b.line}" for key, b in blocks.items() if not b.text.startswith(FATES[key].starts)}
    assert not changed, f"blocks that no longer start as their FATES entry says (review it): {changed}"


def test_every_fate_names_checks_that_exist() -> None:
    defined: dict[Path, set[str]] = {}
    for key, fate in FATES.items():
        assert fate.checks or fate.not_run, f"{key}: neither a check nor a reason"
        for check in fate.checks:
            file, _, name = check.rpartition("::")
            path = ROOT / file if file else Path(__file__)
            if path not in defined:
                tree = ast.parse(path.read_text(encoding="utf-8"))
                defined[path] = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
            assert name.startswith("test_") and name in defined[path], f"{key}: {check} is not a test"


def test_the_table_finds_a_new_block() -> None:
    page = "docs/how-to/deployment.md"
    text = (ROOT / page).read_text(encoding="utf-8") + "\n## Later\n\n```sh\nmcpgen new-command\n```\n"
    assert page_blocks(page, text).keys() - FATES.keys() == {f"{page}: Later: sh"}


def test_every_page_is_searched() -> None:
    searched = {path.relative_to(ROOT).as_posix() for path in pages()}
    assert {"README.md", "docs/tutorial.md", "docs/how-to/deployment.md", "docs/authorization.md"} <= searched
    assert {b.page for b in all_blocks().values()} <= searched


# The README's quickstart is the tutorial's, in short: the same blocks, so they cannot part.
QUICKSTART_STEPS = ("1. Write a spec: yaml", "2. Build: sh", "3. Implement the handlers: python", "4. Serve: sh", "5. Call it: python")


def test_the_readme_quickstart_is_the_tutorials() -> None:
    for step in QUICKSTART_STEPS:
        assert block(f"README.md: {step}").text == block(f"docs/tutorial.md: {step}").text, step


# --- helpers ------------------------------------------------------------------------------------


def environment(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"  # this venv's mcpgen, python, uvicorn
    return {**env, **extra}


def shell(command: str, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=environment(**extra), capture_output=True, text=True, timeout=300
    )


def succeeds(command: str, cwd: Path, **extra: str) -> str:
    done = shell(command, cwd, **extra)
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def on_port(script: str) -> Callable[[int], list[str]]:
    """The shell lines as a server command for `listening`, port 8000 made the given one; the
    last line is exec'd, so that stopping the shell stops the server."""

    def command(port: int) -> list[str]:
        *first, last = script.replace("8000", str(port)).splitlines()
        return ["bash", "-c", "\n".join([*first, f"exec {last}"])]

    return command


async def tool_names(target: str, mode: str) -> list[str]:
    from mcp import Client

    async with Client(target, mode=mode) as client:
        return [tool.name for tool in (await client.list_tools()).tools]


async def stdio_tool_names(command: str, cwd: Path, mode: str) -> list[str]:
    from mcp import Client, StdioServerParameters

    server = StdioServerParameters(command="bash", args=["-c", f"exec {command}"], cwd=str(cwd), env=environment())
    async with Client(server, mode=mode) as client:
        return [tool.name for tool in (await client.list_tools()).tools]


TUTORIAL = "docs/tutorial.md: "


def quickstart_spec() -> str:
    return block(TUTORIAL + "1. Write a spec: yaml").text


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The quickstart's folder after steps 1-4: spec.yaml built with step 2's command, app.py, asgi.py."""
    folder = tmp_path_factory.mktemp("quickstart")
    (folder / "spec.yaml").write_text(quickstart_spec())
    [build] = block(TUTORIAL + "2. Build: sh").commands()
    succeeds(build, folder)
    (folder / "app.py").write_text(block(TUTORIAL + "3. Implement the handlers: python").text)
    (folder / "asgi.py").write_text(block(TUTORIAL + "4. Serve: python").text)
    yield folder


# --- the quickstart ----------------------------------------------------------------------------


@pytest.mark.slow  # the spec goes through the whole build in memory
def test_validate_prints_the_quickstart_error(tmp_path: Path) -> None:
    (tmp_path / "spec.yaml").write_text(quickstart_spec())
    assert succeeds("mcpgen validate spec.yaml", tmp_path) == "spec.yaml: ok\n"
    (tmp_path / "spec.yaml").write_text(quickstart_spec().replace("type: number", "type: nubmer"))
    done = shell("mcpgen validate spec.yaml", tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == block(TUTORIAL + "1. Write a spec: text").text


@pytest.mark.slow  # builds, serves over stdio, HTTP and uvicorn workers
def test_the_quickstart_serves(project: Path) -> None:
    assert (project / "gift_server" / "server.py").is_file()  # "writes ./gift_server/"
    stdio, http = block(TUTORIAL + "4. Serve: sh").commands()
    for mode in ("auto", "legacy"):
        assert anyio.run(stdio_tool_names, stdio, project, mode) == ["suggest_gifts"], mode
    with listening(on_port(http), cwd=project, env=environment()) as url:
        for mode in ("auto", "legacy"):
            assert anyio.run(tool_names, url, mode) == ["suggest_gifts"], mode
    # Several workers behind uvicorn, from the user's folder, with the asgi.py the step shows;
    # then step 5's client against them.
    client = block(TUTORIAL + "5. Call it: python").text
    with listening(on_port(block(TUTORIAL + "4. Serve: sh #2").text), cwd=project, env=environment(), timeout=60) as url:
        for mode in ("auto", "legacy"):
            assert anyio.run(tool_names, url, mode) == ["suggest_gifts"], mode
        (project / "client.py").write_text(client.replace("http://127.0.0.1:8000/mcp", url))
        assert succeeds("python client.py", project).strip() == "['scarf', 'book']"


@pytest.mark.slow  # serves the example over HTTP
def test_the_example_serves_from_the_root() -> None:
    [command] = block(TUTORIAL + "5. Call it: sh").commands()
    with listening(on_port(command), cwd=ROOT, env=environment()) as url:
        assert "suggest_gifts" in anyio.run(tool_names, url, "auto")


# --- deployment ----------------------------------------------------------------------------------


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


@pytest.mark.slow  # redis-server, three replicas and HAProxy, as the guide starts them
def test_the_plain_process_deployment_serves(project: Path, tmp_path: Path) -> None:
    """The deployment guide's plain processes, run as written from the quickstart's folder with
    haproxy.cfg beside app.py: on free ports, clients of both eras are answered through HAProxy,
    and every replica serves."""
    for program in ("redis-server", "redis-cli", "haproxy"):
        require_program(program)
    folder = tmp_path / "deployed"
    shutil.copytree(project, folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "deploy" / "haproxy.cfg", folder / "haproxy.cfg")
    script = block("docs/how-to/deployment.md: Three replicas as plain processes: sh").text
    ports = {port: str(free_port()) for port in ("6379", "8000", "8001", "8002", "8003")}
    script = re.sub(r"\b(6379|8000|8001|8002|8003)\b", lambda m: ports[m[1]], script)
    log = folder / "deployment.log"
    with log.open("wb") as sink:
        # Its own process group: the shell, redis-server, the replicas and HAProxy stop together.
        shell_process = subprocess.Popen(
            ["bash", "-c", script], cwd=folder, env=environment(), stdin=subprocess.DEVNULL,
            stdout=sink, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        balancer = int(ports["8000"])
        try:
            wait_for_port(balancer, shell_process, timeout=90)
            for port in ("8001", "8002", "8003"):
                wait_for_port(int(ports[port]), shell_process, timeout=60)
        except (RuntimeError, TimeoutError) as error:
            pytest.fail(f"{error}\n{log.read_text(errors='replace')}", pytrace=False)
        # HAProxy sends work to a replica once two health checks a second apart found it ready.
        ready = f"http://127.0.0.1:{balancer}/readyz"
        deadline = time.monotonic() + 60
        while status_of(ready) != 200:
            assert time.monotonic() < deadline, f"no replica ready behind HAProxy\n{log.read_text(errors='replace')}"
            time.sleep(0.2)
        through = f"http://127.0.0.1:{balancer}/mcp"
        for mode in ("auto", "legacy"):
            assert anyio.run(tool_names, through, mode) == ["suggest_gifts"], mode
        for port in ("8001", "8002", "8003"):
            assert anyio.run(tool_names, f"http://127.0.0.1:{ports[port]}/mcp", "auto") == ["suggest_gifts"]
    finally:
        os.killpg(shell_process.pid, signal.SIGTERM)
        try:
            shell_process.wait(timeout=40)
        except subprocess.TimeoutExpired:
            os.killpg(shell_process.pid, signal.SIGKILL)
            shell_process.wait(timeout=10)


# --- the generated package ---------------------------------------------------------------------


@pytest.mark.slow  # ruff, black and mypy over a built package
def test_the_linter_settings_leave_the_package_out(project: Path, tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    shutil.copytree(project, folder, ignore=shutil.ignore_patterns("client.py", "__pycache__"))
    settings = block("docs/reference/package.md: The generated package: toml").text
    # The strictest rule set, which the README says finds things in generated code.
    stricter = '\n[tool.ruff.lint]\nselect = ["ALL"]\n'
    (folder / "pyproject.toml").write_text(stricter)
    everything = shell("ruff check --output-format concise .", folder)
    assert "gift_server/" in everything.stdout, everything.stdout
    (folder / "pyproject.toml").write_text(settings + stricter)
    kept_out = shell("ruff check --output-format concise .", folder)
    assert kept_out.stdout and "gift_server/" not in kept_out.stdout, kept_out.stdout  # app.py's are the user's
    black = shell("black --check --verbose .", folder)
    assert "gift_server ignored: matches the --extend-exclude" in black.stderr, black.stderr
    # mypy skips the package's errors, and still checks the user's code against its types.
    succeeds("python -m mypy --strict app.py", folder)
    app = (folder / "app.py").read_text()
    (folder / "app.py").write_text(app.replace('SuggestGiftsOutput(gifts=["scarf", "book"])', '["scarf", "book"]'))
    wrong = shell("python -m mypy --strict app.py", folder)
    assert wrong.returncode == 1 and "Incompatible return value type" in wrong.stdout, wrong.stdout


# --- the workflow ------------------------------------------------------------------------------


@pytest.mark.slow  # init builds a package; its app serves over stdio
def test_init_and_its_app_serve(tmp_path: Path) -> None:
    init, serve = block("docs/how-to/workflow.md: Start a project: sh").commands()
    succeeds(init, tmp_path)
    assert anyio.run(stdio_tool_names, serve, tmp_path, "auto")


@pytest.mark.slow  # starts servers and builds what they list
def test_the_import_commands_write_specs(project: Path, tmp_path: Path) -> None:
    stdio, url, capture, network = block("docs/how-to/import-a-server.md: Import an existing server: sh").commands()
    assert network.startswith('mcpgen import --stdio "API_KEY=x uvx mcp-server-fetch"')  # its fate says why not
    for name in ("stdio", "url", "capture"):
        (tmp_path / name).mkdir()
    (tmp_path / "stdio" / "server.py").write_text((project / "app.py").read_text())
    succeeds(stdio, tmp_path / "stdio", PYTHONPATH=str(project))
    assert "suggest_gifts:" in (tmp_path / "stdio" / "spec.yaml").read_text()
    with listening(on_port("python app.py --http 127.0.0.1:8000"), cwd=project, env=environment()) as served:
        port = served.split(":")[2].split("/")[0]
        succeeds(url.replace("8000", port), tmp_path / "url")
    assert "suggest_gifts:" in (tmp_path / "url" / "spec.yaml").read_text()
    shutil.copy(CORPUS / "time.json", tmp_path / "capture" / "capture.json")
    succeeds(capture, tmp_path / "capture")
    assert "get_current_time:" in (tmp_path / "capture" / "spec.yaml").read_text()


@pytest.mark.slow  # a hostile server sends 40 MB; another never answers
def test_import_prints_the_documented_refusals(tmp_path: Path) -> None:
    too_large, no_answer = block("docs/how-to/import-a-server.md: Import an existing server: text").lines()
    hostile = ROOT / "tests" / "import_hostile_server.py"
    with listening(lambda port: [sys.executable, str(hostile), "huge", "--http", f"127.0.0.1:{port}"]) as url:
        done = shell(f"mcpgen import --url {url} -o spec.yaml", tmp_path)
    assert done.returncode == 1 and done.stderr.replace(url, "http://127.0.0.1:8000/mcp") == too_large + "\n"
    # A server that prints a banner on stdout and waits; --timeout 3, not the default 120 s.
    (tmp_path / "server.py").write_text("import sys\nprint('Server started', flush=True)\nsys.stdin.read()\n")
    done = shell('mcpgen import --stdio "python server.py" --timeout 3', tmp_path)
    assert done.returncode == 1 and done.stderr.replace("within 3 s", "within 120 s") == no_answer + "\n"


CAPTURE_WITH_EXTRAS = {
    "serverInfo": {"name": "echo", "version": "1.0.0"},
    "capabilities": {"tools": {"listChanged": False}, "tasks": {"list": {}}},
    "tools": [
        {"name": "echo", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}},
    ],
}


@pytest.mark.slow  # builds the imported spec in memory
def test_import_prints_the_documented_reports(tmp_path: Path) -> None:
    (tmp_path / "capture.json").write_text(json.dumps(CAPTURE_WITH_EXTRAS))
    done = shell("mcpgen import capture.json -o spec.yaml", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == block("docs/how-to/import-a-server.md: Import an existing server: text #2").lines()


@pytest.mark.slow  # lint checks the spec first, which builds it in memory
def test_lint_prints_the_documented_finding(tmp_path: Path) -> None:
    # The example spec, as spec.yaml beside the files it names.
    (tmp_path / "specs").mkdir()
    spec = tmp_path / "specs" / "spec.yaml"
    shutil.copy(GIFT_SPEC, spec)
    shutil.copytree(ROOT / "generated_example", tmp_path / "generated_example", ignore=shutil.ignore_patterns("gift_server"))
    (tmp_path / ".git").mkdir()  # a project, as a repository is: the files the spec names are inside
    outputs = []
    for command in block("docs/how-to/lint.md: Lint for the clients you target: sh").commands():
        done = shell(command, spec.parent)
        assert done.returncode in (0, 1) and not done.stderr.startswith("usage:"), f"{command}\n{done.stderr}"
        outputs.append(done.stdout)
    documented = block("docs/how-to/lint.md: Lint for the clients you target: text").lines()
    found = outputs[1].splitlines()
    assert documented[0] in found and found[found.index(documented[0]) + 1] == documented[1], outputs[1]
    assert json.loads(outputs[2])  # --format json


DIFF_NEW = """\
mcpgen: 1
server: {name: demo, version: "1"}
definitions:
  Filter:
    type: object
    properties:
      limit: {type: integer, maximum: 50}

tools:
  search:
    description: Searches the catalogue, newest first.
    inputSchema:
      type: object
      properties:
        query: {type: string}
        limit: {type: integer}
        filter: {$ref: "#/definitions/Filter"}
      required: [query, limit]
    outputSchema:
      type: object
      properties:
        hits: {type: array, items: {type: string}}
  count:
    description: Counts the catalogue.
    inputSchema:
      type: object
      properties:
        since: {type: string}
"""
DIFF_OLD = (
    DIFF_NEW.replace("maximum: 50", "maximum: 100")
    .replace("newest first", "best match first")
    .replace("required: [query, limit]", "required: [query]")
    + "  remove_me:\n    description: Goes away.\n    inputSchema: {type: object}\n"
)


@pytest.mark.slow  # generates both specs' models
def test_diff_prints_the_documented_excerpt(tmp_path: Path) -> None:
    (tmp_path / "old.yaml").write_text(DIFF_OLD)
    (tmp_path / "spec.yaml").write_text(DIFF_NEW)
    two_files, against = block("docs/how-to/breaking-changes.md: Breaking changes: sh").commands()
    done = shell(two_files, tmp_path)
    assert done.returncode == 1, done.stderr
    printed = done.stdout.splitlines()
    excerpt = block("docs/how-to/breaking-changes.md: Breaking changes: text").lines()
    assert all(line in printed for line in excerpt), done.stdout
    assert [printed.index(line) for line in excerpt] == sorted(printed.index(line) for line in excerpt)
    assert against == "mcpgen diff --against origin/main spec.yaml"  # run by test_diff.py::test_against_a_git_ref


# --- CI, hooks, development ----------------------------------------------------------------------


def mcpgen_command_parses(command: str) -> None:
    words = shlex.split(command)
    assert words[0] == "mcpgen", command
    try:
        _parser().parse_args(words[1:])
    except SystemExit as error:
        pytest.fail(f"`{command}` is not a valid mcpgen command line (exit {error.code})")


def test_the_workflow_snippets_parse_and_name_real_commands() -> None:
    commands: list[str] = []
    ci = yaml.safe_load(block("docs/how-to/ci.md: In CI: yaml").text)
    commands += [step["run"] for step in ci]
    workflow = yaml.safe_load(block("docs/how-to/breaking-changes.md: In CI: yaml").text)
    commands += [step["run"] for step in workflow["jobs"]["breaking"]["steps"] if "run" in step]
    hooks = yaml.safe_load(block("docs/how-to/ci.md: As a pre-commit hook: yaml").text)
    [hook] = hooks["repos"][0]["hooks"]
    commands.append(hook["entry"])
    assert re.search(hook["files"], "specs/gift_server.yaml") and re.search(hook["files"], "gift_server/server.py")
    declared = {entry["id"] for entry in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert hook["id"] in declared and declared == {"mcpgen-check", "mcpgen-build"}
    pyproject = (ROOT / "pyproject.toml").read_text()
    for line in commands:
        for command in line.split(" && "):
            if command.startswith("pip install "):
                requirement = Requirement(shlex.split(command)[2])
                assert f'name = "{requirement.name}"' in pyproject and requirement.url, command
            else:
                mcpgen_command_parses(command)
                spec = shlex.split(command)[-1]
                assert (ROOT / spec).is_file(), command


def pytest_commands() -> list[str]:
    found = []
    for key in (
        "README.md: Two commands: sh #2",
        "docs/contributing/index.md: Development: sh",
        "docs/contributing/index.md: Fixtures to regenerate: sh",
        "docs/contributing/fuzzing.md: Fuzzing: sh",
    ):
        for line in block(key).commands():
            for command in line.split(" && "):
                if "pytest" in command:
                    found.append(command)
    return found


@pytest.mark.slow  # collects the suite, or the files named, in a subprocess
@pytest.mark.parametrize("command", pytest_commands())
def test_the_pytest_commands_select_tests(command: str) -> None:
    words = shlex.split(command)
    variables = dict(word.split("=", 1) for word in words if re.match(r"[A-Z_]+=", word))
    arguments = words[len(variables) + 1 :]
    files = [ROOT / word for word in arguments if word.endswith(".py")] or sorted((ROOT / "tests").glob("*.py"))
    read = "".join(file.read_text(encoding="utf-8") for file in files)
    assert all(variable in read for variable in variables), f"{command}: a variable it sets that no test reads"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    collected = re.search(r"(\d+)(?:/\d+)? tests? collected|^(\d+) tests? selected", done.stdout, re.MULTILINE)
    assert collected, done.stdout[-2000:]


def test_the_quick_loop_takes_what_pyproject_says() -> None:
    readme = README.read_text(encoding="utf-8")
    development = (DOCS / "contributing" / "index.md").read_text(encoding="utf-8")
    stated = re.search(r"run the quick loop \(about (\d+ (?:s|minutes)) on a 2-core machine", development)
    assert stated, "Development (docs/contributing/index.md) states the quick loop's time"
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert f'`pytest -m "not slow"` is the quick loop (about {stated[1]} on a 2-core machine' in pyproject
    whole = re.findall(r"about (\d+ minutes) on 2 cores", readme + development)
    two_commands = readme[readme.index("## Two commands") : readme.index("## Quickstart")]
    assert "the whole suite" in two_commands and len(set(whole)) == 1 and whole[0] in two_commands, whole


def test_the_benchmark_commands_take_their_flags() -> None:
    for line in block("docs/contributing/index.md: Benchmarks: sh").lines():
        words = line.split()
        script = ROOT / words[1]
        assert words[0] == "python" and script.is_file(), line
        text = script.read_text(encoding="utf-8")
        flags = re.findall(r"(?<![\w-])--[a-z][\w-]*", line)  # the comment's too: `--profile`
        assert all(f'"{flag}"' in text for flag in flags), line
