"""Tools run as tasks from the generated typed client (`start_<tool>` -> TaskHandle), in
both eras, in memory and over Streamable HTTP; and the task limits a generated server
takes (`Limits(tasks=TaskLimits(...))`)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from helpers import (
    ROOT,
    build_and_write,
    http_server,
    imported,
    validate_diagnostics,
    write_spec,
)
from mcp import Client
from mcp.shared.exceptions import MCPError

pytestmark = pytest.mark.slow  # builds a package, runs a server

SPEC = """\
mcpgen: 1
server: {name: chores, version: "1"}
tools:
  slow_report:
    description: Works for a while.
    inputSchema:
      type: object
      properties:
        seconds: {type: number}
        fail: {type: boolean}
    outputSchema:
      type: object
      properties:
        pages: {type: integer}
      required: [pages]
    execution: {taskSupport: optional}
  batch:
    description: Runs only as a task.
    inputSchema: {type: object}
    execution: {taskSupport: required}
  quick:
    description: Never a task.
    inputSchema: {type: object}
  confirm:
    description: Asks the user before it goes on.
    inputSchema: {type: object}
    execution: {taskSupport: optional}
"""

APP = """\
import sys

import anyio

from chores import Handlers, Limits, TaskLimits, ToolError, run

LIMITS = Limits(tasks=TaskLimits(max_working_per_owner=2, poll_interval=20))


class Chores(Handlers):
    async def slow_report(self, args, ctx):
        await anyio.sleep(args.seconds or 0)
        if args.fail:
            raise ToolError("No pages today.")
        return {"pages": 3}

    async def batch(self, args, ctx):
        return "batched"

    async def quick(self, args, ctx):
        return "quick"

    async def confirm(self, args, ctx):
        schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
        answer = await ctx.elicit("Go ahead?", schema)
        return f"answer: {answer.action} {answer.content}"


if __name__ == "__main__":
    run(Chores(), sys.argv[1:], limits=LIMITS)
"""

MODES = ["legacy", "modern"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("task_client")
    build_and_write(write_spec(folder, SPEC))
    (folder / "app.py").write_text(APP, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def url(folder: Path) -> Iterator[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    with http_server(
        [sys.executable, str(folder / "app.py")], cwd=folder, env=environment
    ) as served:
        yield served


@pytest.fixture
def app(folder: Path) -> Iterator[Any]:
    with imported("app", folder) as module:
        yield module


def in_memory(app: Any, mode: str) -> Any:
    package = sys.modules["chores"]
    return package.ChoresClient.in_memory(
        package.create_server(app.Chores(), limits=app.LIMITS), mode=mode
    )


async def exercise(client: Any, package: Any) -> None:
    """What a task handle does, the same in every era and transport."""
    handle = await client.start_slow_report(seconds=0.2)
    assert (await handle.status()).status in ("working", "completed")
    assert await handle.result() == package.models.SlowReportOutput(pages=3)
    assert (await handle.wait()).status == "completed"
    assert await handle.result() == await client.slow_report(
        seconds=0
    )  # as the plain method

    failing = await client.start_slow_report(fail=True)
    with pytest.raises(package.ToolCallError, match="No pages today."):
        await failing.result()

    long = await client.start_slow_report(seconds=30)
    await long.cancel()
    assert (await long.wait()).status == "cancelled"
    with pytest.raises(package.TaskFailedError) as cancelled:
        await long.result()
    assert cancelled.value.status == "cancelled"

    batch = await client.start_batch()
    assert [block.text for block in await batch.result()] == ["batched"]
    assert not hasattr(client, "start_quick")  # a tool that never runs as a task


@pytest.mark.parametrize("mode", MODES)
def test_a_task_from_the_typed_client_in_memory(app: Any, mode: str) -> None:
    async def main() -> None:
        async with in_memory(app, mode) as client:
            await exercise(client, sys.modules["chores"])

    anyio.run(main)


@pytest.mark.parametrize("mode", MODES)
def test_a_task_from_the_typed_client_over_http(
    folder: Path, url: str, mode: str
) -> None:
    async def main() -> None:
        with imported("chores", folder) as package:
            async with package.ChoresClient.http(url, mode=mode) as client:
                await exercise(client, package)

    anyio.run(main)


@pytest.mark.parametrize("mode", MODES)
def test_task_limits_passed_to_create_server_refuse_the_extra_task(
    app: Any, mode: str
) -> None:
    async def main() -> None:
        async with in_memory(app, mode) as client:
            running = [await client.start_slow_report(seconds=30) for _ in range(2)]
            with pytest.raises(MCPError, match="at most 2 tasks running at once"):
                await client.start_slow_report(seconds=30)
            for handle in running:
                await handle.cancel()

    anyio.run(main)


async def accept(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"ok": True})


async def ask(client: Any) -> None:
    handle = await client.start_confirm()
    with anyio.fail_after(20):
        [block] = await handle.result()
    assert block.text == "answer: accept {'ok': True}"


@pytest.mark.parametrize("mode", MODES)
def test_a_tasks_question_reaches_the_clients_callback_in_memory(
    app: Any, mode: str
) -> None:
    package = sys.modules["chores"]
    server = package.create_server(app.Chores(), limits=app.LIMITS)
    sdk_mode = package._runtime.client.sdk_mode(mode)
    client = Client(server, mode=sdk_mode, elicitation_callback=accept)

    async def main() -> None:
        async with package.ChoresClient(client, mode=mode) as typed:
            await ask(typed)

    anyio.run(main)


@pytest.mark.parametrize("mode", MODES)
def test_a_tasks_question_reaches_the_clients_callback_over_http(
    folder: Path, url: str, mode: str
) -> None:
    async def main() -> None:
        with imported("chores", folder) as package:
            sdk_mode = package._runtime.client.sdk_mode(mode)
            client = Client(url, mode=sdk_mode, elicitation_callback=accept)
            async with package.ChoresClient(client, mode=mode) as typed:
                await ask(typed)

    anyio.run(main)


def test_limits_refuse_task_limits_of_another_type() -> None:
    from mcpgen.runtime.limits import Limits
    from mcpgen.runtime.task_store import TaskLimits

    assert Limits(tasks=TaskLimits(max_tasks=5)).tasks.max_tasks == 5
    with pytest.raises(TypeError, match="Limits.tasks must be a TaskLimits"):
        Limits(tasks={"max_tasks": 5})  # type: ignore[arg-type]


def test_a_tool_named_like_another_tools_start_method_is_refused(
    tmp_path: Path,
) -> None:
    spec = SPEC.replace("  quick:\n", "  start_batch:\n")
    problems = validate_diagnostics(write_spec(tmp_path, spec))
    assert any(
        "both become the method 'start_batch'" in problem.message
        for problem in problems
    ), problems


CANCEL_AND_CLOSE = """\
import sys

import anyio

from chores import ChoresClient


async def once(client):
    async with client:
        handle = await client.start_slow_report(seconds=30)
        await handle.cancel()


async def main(url, rounds):
    for _ in range(rounds):
        await once(ChoresClient.http(url, mode="legacy"))
    for _ in range(3):
        await once(ChoresClient.stdio(sys.executable, ["app.py"], mode="legacy"))


anyio.run(main, sys.argv[1], int(sys.argv[2]))
"""


def test_a_legacy_client_closing_after_a_cancel_prints_no_traceback(
    folder: Path, url: str
) -> None:
    """Issue 31: a 2025-11-25 client that cancelled a task and closed printed the SDK's
    "Error parsing SSE message" traceback (a BrokenResourceError: the task's status
    arrived on the GET stream after the client closed), in about a third of the runs
    over HTTP. Its stderr, as a user's terminal shows it, stays clean now."""
    script = folder / "cancel_and_close.py"
    script.write_text(CANCEL_AND_CLOSE, encoding="utf-8")
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    ran = subprocess.run(
        [sys.executable, str(script), url, "30"],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr
    assert "Traceback" not in ran.stderr and "Error" not in ran.stderr, ran.stderr
