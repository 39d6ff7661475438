"""The OpenAPI proof's harness (issue 25): an API description served by a Prism mock (which
refuses requests its document does not allow: 422, or 401 without the document's
credentials), an MCP server made from the same document in front of it, and every tool of
that server called over MCP with arguments hypothesis makes from the tool's own inputSchema.

A tool answers when every one of its calls gets a result that is not an error. For each
one that does not, the report keeps why: the error the server returned and what Prism
logged about the request (its validation violations), or why no arguments could be made.

Both sides of the comparison go through the same `exercise`: the mcpgen package
(`mcpgen import --openapi`, `mcpgen build`, `python -m PACKAGE --http`) and FastMCP's
`from_openapi` (benchmarks/openapi_vs_fastmcp.py starts it in a venv of its own)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helpers import free_port, node_environment, require_node_tools
from openapi_documents import HTTP_METHODS, loaded

PRISM_START_TIMEOUT = 120.0  # Prism reads a large document for a while before it listens
CALL_TIMEOUT = 60.0
CREDENTIAL = "proof-credential"


@dataclass
class ToolOutcome:
    tool: str
    calls: int = 0
    answered: int = 0
    reason: str = ""  # why the first failing call failed
    redrawn: int = 0  # calls made again because the mock answered outside its own document

    @property
    def ok(self) -> bool:
        return self.calls > 0 and self.answered == self.calls


@dataclass
class Report:
    """What one server made of one document."""

    document: str
    server: str
    cold_start: float = 0.0  # seconds from the process's start to its first tools/list answer
    list_bytes: int = 0  # the tools/list result as JSON (every page)
    outcomes: list[ToolOutcome] = field(default_factory=list)
    problem: str = ""  # why the server could not be made or started at all

    @property
    def tools(self) -> int:
        return len(self.outcomes)

    @property
    def answering(self) -> int:
        return sum(outcome.ok for outcome in self.outcomes)

    @property
    def success(self) -> float:
        return 100.0 * self.answering / self.tools if self.tools else 0.0

    @property
    def redrawn(self) -> int:
        return sum(outcome.redrawn for outcome in self.outcomes)

    def failures(self) -> list[ToolOutcome]:
        return [outcome for outcome in self.outcomes if not outcome.ok]

    def kinds(self) -> dict[str, int]:
        """How many tools failed for each kind of reason (see `failure_kind`)."""
        counted: dict[str, int] = {}
        for outcome in self.failures():
            kind = failure_kind(outcome.reason)
            counted[kind] = counted.get(kind, 0) + 1
        return dict(sorted(counted.items(), key=lambda item: -item[1]))

    def summary(self) -> str:
        if self.problem:
            return f"{self.document} [{self.server}]: not served: {self.problem}"
        lines = [
            f"{self.document} [{self.server}]: {self.answering}/{self.tools} tools answer ({self.success:.1f} %), "
            f"cold start {self.cold_start:.2f} s, tools/list {self.list_bytes} bytes, "
            f"{self.redrawn} calls drawn again (the mock at fault)"
        ]
        if self.failures():
            lines.append("  failures by kind: " + ", ".join(f"{kind}: {count}" for kind, count in self.kinds().items()))
        lines += [f"  - {outcome.tool}: {outcome.reason}" for outcome in self.failures()]
        return "\n".join(lines)


# Kinds of failure, first match wins: Prism's own words for the request, then the status the
# server reported, then what the harness saw.
FAILURE_KINDS = (
    ("empty path parameter (Prism: path must have required property)", "Request path must have required property"),
    ("no route: an empty path segment or a path the mock does not serve", "NO_PATH_MATCHED"),
    ("request refused by the mock (422: outside the document)", "422"),
    ("request refused: credentials missing (401)", "401"),
    ("request refused by the mock (other 4xx)", " 4"),
    ("mock error (5xx)", " 5"),
    ("the mock's answer is not valid HTTP (a made-up Transfer-Encoding)", "RemoteProtocolError"),
    # Prism checks its own answers too: an answer refused because the mock strayed from its document.
    ("the mock answered outside its own document (Prism logged the violation)", "violation: response"),
    ("answer refused by the client's outputSchema check", "does not match its schema"),
    ("answer refused by the server's outputSchema check", "outputSchema"),
    ("no arguments generated", "no arguments generated"),
    ("not called: time budget", "not called"),
    ("call raised", "call raised"),
)


def failure_kind(reason: str) -> str:
    said, _, prism = reason.partition(" (arguments ")  # the arguments could hold any marker
    text = (said + prism.partition("; Prism: ")[2]).lower()
    for kind, marker in FAILURE_KINDS:
        if marker.lower() in text:
            return kind
    return "other"


# --- the mock ----------------------------------------------------------------------------------


@dataclass
class Mock:
    url: str  # the API's base URL: Prism serves the document's paths from its root, whatever its servers say
    log: Path

    def mark(self) -> int:
        return self.log.stat().st_size

    def violations_since(self, mark: int) -> str:
        """What Prism said was wrong with the requests since `mark`, one line."""
        with self.log.open("rb") as text:
            text.seek(mark)
            lines = text.read().decode(errors="replace").splitlines()
        said = [_plain(line) for line in lines if "✖" in line or "Violation" in line or "violation" in line]
        return " | ".join(dict.fromkeys(said))[:600]


def _plain(line: str) -> str:
    """A Prism log line without its time stamp, colour codes and padding."""
    line = re.sub(r"\x1b\[[0-9;]*m", "", line)
    return re.sub(r"\s+", " ", re.sub(r"^\[[^]]*\]\s*›\s*", "", line)).strip()


def answers_need_examples(document: dict[str, Any]) -> bool:
    """Whether some answer of the document has content without a schema, which Prism can
    only answer from its examples (static mode)."""
    for item in document.get("paths", {}).values():
        for method, operation in item.items():
            if method in HTTP_METHODS:
                for response in (operation.get("responses") or {}).values():
                    for content in (response.get("content") or {}).values():
                        if "schema" not in content:
                            return True
    return False


@contextmanager
def prism_mock(document: Path, folder: Path) -> Iterator[Mock]:
    """Prism mocking `document` on a free port. Dynamic answers (json-schema-faker makes
    each from its response schema, afresh on every request) unless some answer has no
    schema: static ones are the document's examples, which a document may write outside
    its own schemas. Static mode with the examples ignored samples the schemas without
    their patterns (Twilio's `^AC[0-9a-fA-F]{32}$` sids answered "stringstring..."), so
    dynamic it is; its answers stray from the document at times too, which `exercise`
    tells by Prism's own log and draws again."""
    tools = require_node_tools()
    port = free_port()
    log = folder / f"prism-{port}.log"
    content = loaded(document.read_bytes(), document.name)
    mode = [] if answers_need_examples(content) else ["--dynamic"]
    command = [str(tools / "node_modules" / ".bin" / "prism"), "mock", *mode, "-h", "127.0.0.1"]
    with log.open("wb") as output:
        process = subprocess.Popen(
            [*command, "-p", str(port), str(document)],
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            env=node_environment(tools, folder),
        )
    try:
        _wait_listening(port, process, PRISM_START_TIMEOUT, log)
        yield Mock(f"http://127.0.0.1:{port}", log)
    finally:
        _stop(process)


def _wait_listening(port: int, process: subprocess.Popen[bytes], timeout: float, log: Path) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args!r} exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port} after {timeout:.0f} s:\n{log.read_text()[-3000:]}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


# --- credentials ------------------------------------------------------------------------------


def security_schemes(document: Path) -> dict[str, dict[str, Any]]:
    schemes: dict[str, dict[str, Any]] = (
        loaded(document.read_bytes(), document.name).get("components", {}).get("securitySchemes", {})
    )
    return schemes


def upstream_environment(document: Path) -> dict[str, str]:
    """The credentials a generated server sends Prism: one per security scheme of the
    document (Prism checks that they are there, not what they are)."""
    from mcpgen.runtime.upstream_names import scheme_variable

    environment: dict[str, str] = {}
    for name, scheme in security_schemes(document).items():
        kind, http_scheme = scheme.get("type"), str(scheme.get("scheme", "")).lower()
        environment[scheme_variable(name)] = "user:password" if http_scheme == "basic" else CREDENTIAL
        if kind in ("oauth2", "openIdConnect"):
            environment["MCP_UPSTREAM_AUTHORIZATION"] = f"Bearer {CREDENTIAL}"
    return environment


def client_credentials(document: Path) -> dict[str, dict[str, str]]:
    """The same credentials as httpx client defaults (headers, params, cookies), for a server
    that sends whatever its client carries (FastMCP): one requirement's worth each."""
    sent: dict[str, dict[str, str]] = {"headers": {}, "params": {}, "cookies": {}}
    for scheme in security_schemes(document).values():
        kind, http_scheme = scheme.get("type"), str(scheme.get("scheme", "")).lower()
        if kind == "apiKey":
            where = {"query": "params", "cookie": "cookies"}.get(str(scheme.get("in")), "headers")
            sent[where][str(scheme["name"])] = CREDENTIAL
        elif http_scheme == "basic":
            sent["headers"]["Authorization"] = "Basic " + base64.b64encode(b"user:password").decode()
        elif kind in ("http", "oauth2", "openIdConnect"):
            sent["headers"]["Authorization"] = f"Bearer {CREDENTIAL}"
    return sent


# --- the mcpgen side --------------------------------------------------------------------------


def mcpgen_package(document: Path, folder: Path, package: str) -> Path:
    """`mcpgen import --openapi` then `mcpgen build`: the folder that holds the package."""
    spec = folder / f"{package}.yaml"
    output = folder / "packages"
    folder.mkdir(parents=True, exist_ok=True)
    for command in (
        ["import", "--openapi", str(document), "--package", package, "-o", str(spec), "--force"],
        ["build", str(spec), "-o", str(output), "--allow-outside-project", "--force"],
    ):
        result = subprocess.run(
            [sys.executable, "-m", "mcpgen", *command], capture_output=True, text=True, cwd=folder, timeout=1800
        )
        if result.returncode != 0:
            raise RuntimeError(f"mcpgen {command[0]} failed ({result.returncode}):\n{result.stderr[-3000:]}")
    return output


def mcpgen_command(package: str, port: int) -> list[str]:
    return [sys.executable, "-m", package, "--http", f"127.0.0.1:{port}"]


@dataclass
class Served:
    url: str
    started: float  # time.monotonic() just before the process started
    process: subprocess.Popen[bytes]
    log: Path


@contextmanager
def served(command: Sequence[str], port: int, environment: dict[str, str], folder: Path) -> Iterator[Served]:
    """An MCP server process listening on `port` (Streamable HTTP at /mcp)."""
    log = folder / f"server-{port}.log"
    with log.open("wb") as output:
        started = time.monotonic()
        process = subprocess.Popen(
            list(command),
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            env=environment,
            cwd=folder,
        )
    try:
        _wait_listening(port, process, 300.0, log)
        yield Served(f"http://127.0.0.1:{port}/mcp", started, process, log)
    finally:
        _stop(process)


# --- calling every tool -----------------------------------------------------------------------


UNROLLED_LIMIT = 4_000_000  # characters of JSON: past this an unrolled schema is too large to generate from


def unrolled(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with its local `#/$defs/` references written out, and a reference back to a
    definition already being written out replaced by `false` (nothing): hypothesis-jsonschema
    cannot follow recursive references, and a value that recursion is optional for is still a
    valid one. Where the recursion is required, no value is made, and the report says so."""
    definitions = schema.get("$defs", {})

    def written(value: Any, open_: tuple[str, ...]) -> Any:
        if isinstance(value, list):
            return [written(item, open_) for item in value]
        if not isinstance(value, dict):
            return value
        reference = value.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/$defs/"):
            name = reference.removeprefix("#/$defs/")
            if name in open_ or name not in definitions:
                return False
            target = written(definitions[name], (*open_, name))
            siblings = {key: written(item, open_) for key, item in value.items() if key != "$ref"}
            return {"allOf": [target, siblings]} if siblings else target
        return {key: written(item, open_) for key, item in value.items() if key != "$defs"}

    result: dict[str, Any] = written(schema, ())
    if len(json.dumps(result)) > UNROLLED_LIMIT:
        raise ValueError("the schema written out without recursion is too large")
    return result


def argument_examples(schema: dict[str, Any], count: int) -> list[dict[str, Any]]:
    """Up to `count` distinct valid arguments for `schema`, the same on every run."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis_jsonschema import from_schema

    found: list[dict[str, Any]] = []

    @settings(
        max_examples=count,  # each example of a large schema is costly: make no more than asked for
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(from_schema(schema))
    def collect(value: dict[str, Any]) -> None:
        if len(found) < count and value not in found:
            found.append(value)

    collect()
    return found


def _text(result: Any) -> str:
    return " ".join(getattr(block, "text", type(block).__name__) for block in result.content)[:400]


async def exercise(
    served_: Served, document: str, server: str, mock: Mock, examples: int = 3, budget: float = 900.0
) -> Report:
    """List the tools of the server at `served_` (timing the first answer from the process's
    start) and call each with `examples` generated arguments, one call at a time so that
    Prism's log lines belong to the call before them; `budget` seconds for it all."""
    import httpx2
    from helpers import wire
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    report = Report(document, server)
    deadline = time.monotonic() + budget
    http = httpx2.AsyncClient(timeout=httpx2.Timeout(CALL_TIMEOUT, read=CALL_TIMEOUT * 2))
    async with http, Client(streamable_http_client(served_.url, http_client=http)) as client:
        tools: list[Any] = []
        cursor = None
        while True:
            page = await client.list_tools(cursor=cursor)
            if not tools:
                report.cold_start = time.monotonic() - served_.started
            tools += page.tools
            cursor = page.next_cursor
            if cursor is None:
                break
        report.list_bytes = len(json.dumps([wire(tool) for tool in tools], separators=(",", ":")).encode())
        for tool in tools:
            outcome = ToolOutcome(tool.name)
            report.outcomes.append(outcome)
            if time.monotonic() > deadline:
                outcome.reason = "not called: the harness's time budget ran out"
                continue
            try:
                arguments = argument_examples(tool.input_schema, examples)
            except Exception:  # hypothesis-jsonschema follows no recursive reference: write them out
                try:
                    arguments = argument_examples(unrolled(tool.input_schema), examples)
                except Exception as error:  # say which schema could not be generated from, and why
                    outcome.reason = f"no arguments generated: {type(error).__name__}: {str(error)[:300]}"
                    continue
            for value in arguments:
                outcome.calls += 1
                for draw in range(1 + REDRAWS):
                    failure, said = await _call(client, mock, tool.name, value)
                    if failure is None or draw == REDRAWS or not mock_at_fault(said):
                        break
                    outcome.redrawn += 1
                if failure is None:
                    outcome.answered += 1
                elif not outcome.reason:
                    outcome.reason = f"{failure} (arguments {json.dumps(value)[:200]})" + (
                        f"; Prism: {said}" if said else ""
                    )
    return report


REDRAWS = 4
"""Times a call is made again when it failed and Prism's log says the mock was at fault
(`mock_at_fault`): dynamic answers are drawn afresh for each request, so a tool is judged on
an answer the document allows. A tool still failing after them fails, with Prism's words as
its reason."""


def mock_at_fault(said: str) -> bool:
    """Whether Prism's log of a call says the mock, not the request, failed: it logged its own
    answer as breaking the document ("Violation: response..."), or crashed making it (a
    JavaScript error, "terminated with error: Error: TypeError...", where its refusals of a
    request name a Prism error page instead), and found nothing wrong with the request, which
    would be refused again. The arguments, which could hold any text, are not in `said`."""
    text = said.lower()
    refused = re.search(r"✖ error request (?!terminated)", text) or "violation: request" in text
    return not refused and ("violation: response" in text or "terminated with error: error:" in text)


async def _call(client: Any, mock: Mock, tool: str, value: dict[str, Any]) -> tuple[str | None, str]:
    """One call: None or why it failed, and what Prism logged meanwhile."""
    mark = mock.mark()
    try:
        result = await asyncio.wait_for(client.call_tool(tool, value), CALL_TIMEOUT * 2)
    except Exception as error:
        failure: str | None = f"call raised {type(error).__name__}: {str(error)[:300]}"
    else:
        failure = _text(result) if result.is_error else None
    return failure, (mock.violations_since(mark) if failure is not None else "")


def timed_starts(command: Callable[[int], list[str]], environment: dict[str, str], folder: Path, report: Report, runs: int) -> None:
    """Make `report.cold_start` the median of `runs` starts: the exercised one and `runs - 1`
    fresh processes, each timed from its start to its first tools/list answer (one start
    varies by seconds on a shared machine)."""
    times = [report.cold_start]
    for _ in range(runs - 1):
        port = free_port()
        with served(command(port), port, environment, folder) as server:
            asyncio.run(_first_list(server.url))
            times.append(time.monotonic() - server.started)
    report.cold_start = statistics.median(times)


async def _first_list(url: str) -> None:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with Client(streamable_http_client(url)) as client:
        await client.list_tools()


def run_mcpgen_side(
    document: Path, name: str, mock: Mock, folder: Path, examples: int = 3, starts: int = 1
) -> Report:
    """The whole mcpgen side for one document: import, build, serve, exercise."""
    package = f"api_{re.sub(r'[^a-z0-9]+', '_', name.lower())}"
    try:
        output = mcpgen_package(document, folder, package)
    except RuntimeError as error:
        return Report(name, "mcpgen", problem=str(error))
    # Byte code compiled first, as pip does when it installs a package: the cold start measured
    # is a user's, not the first import of freshly written sources.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(output / package)], check=True, timeout=600)
    port = free_port()
    environment = dict(os.environ, PYTHONPATH=str(output), MCP_UPSTREAM_URL=mock.url, **upstream_environment(document))
    with served(mcpgen_command(package, port), port, environment, output) as server:
        report = asyncio.run(exercise(server, name, "mcpgen", mock, examples))
    timed_starts(lambda port: mcpgen_command(package, port), environment, output, report, starts)
    return report


def proof_folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="openapi-proof-", dir=os.environ.get("TMPDIR")))
