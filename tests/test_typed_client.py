"""The generated typed client (issue 20): explicit null, one word per protocol era, typed errors.

A spec built into a package here (`issues`), served by its generated server in memory,
over stdio and over Streamable HTTP, in both eras; its handlers report which arguments
arrived and which of them were null. Wrong outputs come from a real server that skips
the generated server's output check: a raw low-level server listing the package's
tools, with count_issues' outputSchema as written or loosened, answering against it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from helpers import built_package, http_server, run_mcpgen, write_spec
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from mcpgen.importer.live import ERAS as IMPORT_ERAS
from mcpgen.runtime import client as runtime_client

pytestmark = pytest.mark.anyio

SPEC = """\
mcpgen: 1
server: {name: issues, version: "1"}
definitions:
  Assignee: {type: [string, "null"]}
tools:
  create_issue:
    description: Opens an issue; answers which arguments arrived, and which were null.
    inputSchema:
      type: object
      properties:
        title: {type: string}
        body: {type: [string, "null"]}
        assignee: {$ref: "#/definitions/Assignee"}
        labels: {type: array, items: {type: string}}
        priority: {type: integer, default: 3}
      required: [title]
      additionalProperties: false
    outputSchema:
      type: object
      properties:
        sent: {type: array, items: {type: string}}
        nulls: {type: array, items: {type: string}}
      required: [sent, nulls]
  count_issues:
    description: Counts open issues (its handler answers wrongly, on purpose).
    inputSchema: {type: object}
    outputSchema:
      type: object
      properties:
        open: {type: integer}
        by_label: {type: array, items: {type: integer}}
      required: [open]
prompts:
  triage:
    arguments:
      - {name: issue, required: true}
      - {name: tone, required: false}
    messages:
      - role: user
        text: "Triage {{ issue }}{% if tone %} ({{ tone }}){% endif %}."
"""

APP = """\
from issues import Handlers, ToolError, run
from issues.models import CreateIssueOutput


class App(Handlers):
    async def create_issue(self, args, ctx):
        if not args.title:
            raise ToolError("An issue needs a title.")
        sent = sorted(args.model_fields_set)
        return CreateIssueOutput(sent=sent, nulls=[name for name in sent if getattr(args, name) is None])

    async def count_issues(self, args, ctx):
        # Wrong for the spec: the server refuses to send it (-32603).
        return {"open": 2, "by_label": [1, "one"]}


if __name__ == "__main__":
    run(App())
"""

ERA = {"auto": "2026-07-28", "modern": "2026-07-28", "legacy": "2025-11-25"}
WORDS = sorted(ERA)


@pytest.fixture(scope="module")
def issues(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    folder = tmp_path_factory.mktemp("issues")
    spec = write_spec(folder, SPEC)
    (folder / "app.py").write_text(APP, encoding="utf-8")
    with built_package(spec, folder) as package:
        yield package


def app_path(issues: Any) -> Path:
    return Path(issues.__file__).parent.parent / "app.py"


def in_memory(issues: Any, mode: str) -> Any:
    app = _load_app(issues)
    return issues.IssuesClient.in_memory(issues.create_server(app.App()), mode=mode)


def _load_app(issues: Any) -> Any:
    from helpers import load_module

    return load_module("issues_test_app", app_path(issues))


@pytest.fixture(scope="module")
def issues_url(issues: Any) -> Iterator[str]:
    with http_server([sys.executable, str(app_path(issues))], cwd=app_path(issues).parent) as url:
        yield url


# --- explicit null ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_none_sends_null_and_leaving_out_sends_nothing(issues: Any, mode: str) -> None:
    async with in_memory(issues, mode) as client:
        left_out = await client.create_issue(title="t")
        assert (left_out.sent, left_out.nulls) == (["priority", "title"], [])
        nulls = await client.create_issue(title="t", body=None, assignee=None)
        assert (nulls.sent, nulls.nulls) == (["assignee", "body", "priority", "title"], ["assignee", "body"])
        given = await client.create_issue(title="t", body="b", labels=["x"], priority=1)
        assert (given.sent, given.nulls) == (["body", "labels", "priority", "title"], [])
        passed_on = await client.create_issue(title="t", body=issues.UNSET, labels=issues.UNSET)
        assert passed_on.sent == ["priority", "title"]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_explicit_null_over_stdio_and_http(issues: Any, issues_url: str, mode: str) -> None:
    for connect in (
        lambda: issues.IssuesClient.stdio(sys.executable, [str(app_path(issues))], mode=mode),
        lambda: issues.IssuesClient.http(issues_url, mode=mode),
    ):
        async with connect() as client:
            assert client.client.protocol_version == ERA[mode]
            nulls = await client.create_issue(title="t", body=None)
            assert (nulls.sent, nulls.nulls) == (["body", "priority", "title"], ["body"])
            left_out = await client.create_issue(title="t")
            assert left_out.nulls == [] and "body" not in left_out.sent


async def test_none_where_the_schema_refuses_null_is_refused_before_sending(issues: Any) -> None:
    async with in_memory(issues, "auto") as client:
        with pytest.raises(TypeError, match=r"create_issue: labels cannot be None .*leave it out"):
            await client.create_issue(title="t", labels=None)
        with pytest.raises(TypeError, match=r"get_triage: tone cannot be None"):
            await client.get_triage(issue="i", tone=None)
        prompt = await client.get_triage(issue="#1")
        assert isinstance(prompt.messages[0].content, types.TextContent)
        assert prompt.messages[0].content.text == "Triage #1."


def test_the_signatures_say_which_arguments_take_none(issues: Any) -> None:
    source = (Path(issues.__file__).parent / "client.py").read_text(encoding="utf-8")
    assert "body: str | None | Unset = UNSET," in source
    assert "assignee: str | None | Unset = UNSET," in source  # null through a $ref
    assert "labels: list[str] | Unset = UNSET," in source
    assert "priority: int = 3," in source
    assert "tone: str | Unset = UNSET" in source
    assert repr(issues.UNSET) == "UNSET" and not issues.UNSET
    assert isinstance(issues.UNSET, issues.Unset)


@pytest.mark.slow  # runs mypy
def test_mypy_refuses_none_where_the_schema_refuses_null(issues: Any, tmp_path: Path) -> None:
    caller = tmp_path / "caller.py"
    caller.write_text(
        textwrap.dedent(
            """\
            from issues import IssuesClient


            async def main(client: IssuesClient) -> None:
                await client.create_issue(title="t", body=None, assignee=None)
                await client.create_issue(title="t", labels=None)
            """
        ),
        encoding="utf-8",
    )
    completed = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(caller)],
        capture_output=True,
        text=True,
        cwd=app_path(issues).parent,
        timeout=300,
    )
    errors = [line for line in completed.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, completed.stdout
    assert "caller.py:6:" in errors[0] and '"labels"' in errors[0], completed.stdout


# --- one word per era --------------------------------------------------------------------------


def test_the_client_and_the_cli_accept_the_same_words() -> None:
    assert sorted(typing.get_args(runtime_client.Mode)) == WORDS
    assert sorted(runtime_client.MODES) == WORDS
    assert sorted(IMPORT_ERAS) == WORDS


@pytest.mark.parametrize("word", ["2026-07-28", "2025-11-25", "Modern", "stateless"])
def test_other_words_are_refused_naming_the_valid_ones(issues: Any, word: str) -> None:
    with pytest.raises(ValueError, match=r"mode must be 'auto', 'modern' or 'legacy'") as caught:
        issues.IssuesClient.http("http://127.0.0.1:9/mcp", mode=word)
    assert repr(word) in str(caught.value)
    completed = run_mcpgen("import", "--url", "http://127.0.0.1:9/mcp", "--era", word)
    assert completed.returncode == 2 and "invalid choice" in completed.stderr


@pytest.mark.slow
@pytest.mark.parametrize("word", WORDS)
async def test_every_word_works_for_the_client_and_the_cli(issues: Any, issues_url: str, word: str) -> None:
    for connect in (
        lambda: issues.IssuesClient.stdio(sys.executable, [str(app_path(issues))], mode=word),
        lambda: issues.IssuesClient.http(issues_url, mode=word),
    ):
        async with connect() as client:
            assert client.client.protocol_version == ERA[word]
            assert (await client.create_issue(title="t")).sent == ["priority", "title"]
    for source in (["--url", issues_url], ["--stdio", f"{sys.executable} {app_path(issues)}"]):
        completed = run_mcpgen("import", *source, "--era", word, timeout=120)
        assert completed.returncode == 0, completed.stderr
        assert "create_issue:" in completed.stdout


LEGACY_ONLY = """\
import json, sys

for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message["method"] == "initialize":
        answer = {"result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                             "serverInfo": {"name": "old", "version": "1"}}}
    elif message["method"] == "tools/list":
        answer = {"result": {"tools": []}}
    else:
        answer = {"error": {"code": -32601, "message": "Method not found"}}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], **answer}), flush=True)
"""


@pytest.mark.slow
async def test_modern_refuses_a_server_that_only_speaks_2025_11_25(issues: Any, tmp_path: Path) -> None:
    server = tmp_path / "legacy_only.py"
    server.write_text(LEGACY_ONLY, encoding="utf-8")
    async with issues.IssuesClient.stdio(sys.executable, [str(server)], mode="auto") as client:
        assert client.client.protocol_version == "2025-11-25"
    with pytest.raises(ConnectionError, match=r"speaks 2025-11-25, not 2026-07-28 \(mode='modern'\)"):
        async with issues.IssuesClient.stdio(sys.executable, [str(server)], mode="modern"):
            pass


# --- client errors -----------------------------------------------------------------------------


COUNT_OUTPUT = {
    "type": "object",
    "properties": {"open": {"type": "integer"}, "by_label": {"type": "array", "items": {"type": "integer"}}},
    "required": ["open"],
}


def raw_server(issues: Any, listed: dict[str, Any], structured: dict[str, Any] | None) -> Server[Any]:
    """Lists the package's tools, count_issues with outputSchema `listed`, and answers
    count_issues with `structured`, unchecked."""
    document = json.loads((Path(issues.__file__).parent / "schema.json").read_text(encoding="utf-8"))
    tools = [types.Tool.model_validate(tool) for tool in document["tools/list"]["tools"]]
    for tool in tools:
        if tool.name == "count_issues":
            assert tool.output_schema == COUNT_OUTPUT
            tool.output_schema = listed

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        return types.CallToolResult(content=[], structured_content=structured)

    return Server("issues", on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_output_the_models_refuse_is_a_tool_output_error(issues: Any, mode: str) -> None:
    # The SDK checks the loosened listing and lets it through; the client's models refuse.
    wrong = {"open": 2, "by_label": [1, "one"]}
    with pytest.raises(issues.ToolOutputError) as caught:
        async with issues.IssuesClient.in_memory(raw_server(issues, {"type": "object"}, wrong), mode=mode) as client:
            await client.count_issues()
    assert (caught.value.tool, caught.value.path) == ("count_issues", "$.by_label[1]")
    assert "integer" in caught.value.message
    assert str(caught.value).startswith("count_issues: $.by_label[1]: ")
    assert caught.value.result is not None and caught.value.result.structured_content == wrong


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_output_the_schema_refuses_is_a_tool_output_error(issues: Any, mode: str) -> None:
    with pytest.raises(issues.ToolOutputError) as caught:
        async with issues.IssuesClient.in_memory(raw_server(issues, COUNT_OUTPUT, {"open": "two"}), mode=mode) as client:
            await client.count_issues()
    assert (caught.value.tool, caught.value.path) == ("count_issues", "$.open")
    assert "'two' is not of type 'integer'" in caught.value.message
    assert "\n" not in str(caught.value)

    with pytest.raises(issues.ToolOutputError) as missing:
        async with issues.IssuesClient.in_memory(raw_server(issues, COUNT_OUTPUT, None), mode=mode) as client:
            await client.count_issues()
    assert (missing.value.tool, missing.value.path) == ("count_issues", "$")
    assert "no structuredContent" in missing.value.message


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_is_error_result_is_one_tool_call_error(issues: Any, mode: str) -> None:
    with pytest.raises(issues.ToolCallError) as caught:
        async with in_memory(issues, mode) as client:
            await client.create_issue(title="")
    assert (caught.value.tool, caught.value.message) == ("create_issue", "An issue needs a title.")
    assert caught.value.result.is_error is True


@pytest.mark.slow
async def test_errors_leave_an_http_client_unwrapped(issues: Any, issues_url: str) -> None:
    for mode in ("auto", "legacy"):
        with pytest.raises(MCPError, match="does not match its schema"):  # the server's own check
            async with issues.IssuesClient.http(issues_url, mode=mode) as client:
                await client.count_issues()
        with pytest.raises(issues.ToolCallError):
            async with issues.IssuesClient.http(issues_url, mode=mode) as client:
                await client.create_issue(title="")
        with pytest.raises(KeyError):  # the caller's own exceptions, too
            async with issues.IssuesClient.http(issues_url, mode=mode) as client:
                {}["missing"]


def test_the_http_transport_takes_the_proxy_the_environment_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """The typed client's HTTP transport is its own (to tell refusals and lost sessions), and
    httpx reads HTTPS_PROXY / NO_PROXY only for clients without one: it reads them itself."""
    from mcpgen.runtime.client_auth import environment_proxy

    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert environment_proxy("https://mcp.example.com/mcp") is None
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    assert environment_proxy("https://mcp.example.com/mcp") == "http://proxy.internal:3128"
    assert environment_proxy("http://mcp.example.com/mcp") is None  # HTTP_PROXY is not set
    assert environment_proxy("https://localhost:8000/mcp") is None
    monkeypatch.setenv("ALL_PROXY", "http://all.internal:3128")
    assert environment_proxy("http://mcp.example.com/mcp") == "http://all.internal:3128"
