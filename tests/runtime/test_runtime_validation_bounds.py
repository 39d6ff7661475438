"""No tool call's arguments can hold the event loop for long (issue 19, items 1 and 2).

- A value with a million violations is answered with the first one found, at once,
  not with all of them collected and sorted (7-10 s and 1.6 GB before).
- Patterns that need backtracking (a backreference here) are matched within a budget
  per call, not only per match: a thousand strings that each take the most steps
  held the server for 16 s, and the client read the regex engine's own words.
"""

from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from mcpgen.runtime.context import Context
from mcpgen.runtime.limits import Limits
from mcpgen.runtime.server import GeneratedServer, build_server
from mcpgen.runtime.tools import ToolBinding
from mcpgen.runtime.validation import (
    FULL_REPORT_VALUES,
    ArgumentsTooCostly,
    SchemaValidator,
    _backtracking_patterns,
    _values_up_to,
)

pytestmark = pytest.mark.anyio
MODES = ["auto", "legacy"]
BACKTRACKING = "^(a|a)+\\1$"  # a backreference: jsonschema-rs runs it on its backtracking engine
SLOW_WORDS = ["a" * 30 + format(i, "x") for i in range(1000)]  # each takes the most steps
NUMBERS = {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "integer"}}}}
WORDS = {
    "type": "object",
    "properties": {"words": {"type": "array", "items": {"type": "string", "pattern": BACKTRACKING}}},
}


class Numbers(BaseModel):
    items: list[int] = []


class Words(BaseModel):
    words: list[str] = []


class Nothing(BaseModel):
    pass


def _package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, invalid: str, limits: Limits) -> GeneratedServer:
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    document = {
        "serverInfo": {"name": name, "version": "1"},
        "capabilities": {"tools": {"listChanged": False}},
        "tools/list": {
            "tools": [
                {"name": "tag", "inputSchema": NUMBERS},
                {"name": "words", "inputSchema": WORDS},
                {"name": "ping", "inputSchema": {"type": "object"}},
            ]
        },
    }
    (package / "schema.json").write_text(json.dumps(document))
    monkeypatch.syspath_prepend(str(tmp_path))

    async def tag(args: Numbers, ctx: Context) -> str:
        return f"{len(args.items)} items"

    async def words(args: Words, ctx: Context) -> str:
        return f"{len(args.words)} words"

    async def ping(args: Nothing, ctx: Context) -> str:
        return "pong"

    bindings = {"tag": ToolBinding(tag, Numbers), "words": ToolBinding(words, Words), "ping": ToolBinding(ping, Nothing)}
    return build_server(name, tools=bindings, invalid_arguments=invalid, limits=limits)  # type: ignore[arg-type]


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GeneratedServer:
    return _package(tmp_path, monkeypatch, "bounds_toy", "tool_error", Limits())


@pytest.fixture
def unbudgeted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GeneratedServer:
    """No pattern budget, only each match's step limit: for what the step limit alone
    decides. One match to the limit takes some 16 ms of CPU, more than the 100 ms of wall
    time the default budget gives where a loaded machine lends this process a few percent
    of a core, and then the budget, not the step limit, would answer."""
    return _package(tmp_path, monkeypatch, "bounds_unbudgeted", "tool_error", Limits(pattern_budget=None))


def _text(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def _cpu_seconds() -> float:
    """This process's CPU time. Client and server share this process's one event loop, so
    what a call costs the loop is the CPU time spent until its answer: unlike wall time it
    does not grow with what other processes of a loaded machine take from it (the pattern
    budget itself is wall time, so a loaded machine only spends less CPU within it)."""
    return time.process_time()


async def _call_beside_a_ping(client: Client, name: str, arguments: dict[str, Any]) -> tuple[float, float, Any]:
    """Call `name` and, meanwhile, `ping`: (the call's CPU seconds, the ping's CPU seconds,
    the call's result). A call that holds the event loop holds the ping's answer too."""
    answers: dict[str, tuple[float, Any]] = {}

    async def call(tool: str, args: dict[str, Any], delay: float) -> None:
        await anyio.sleep(delay)
        started = _cpu_seconds()
        result = await client.call_tool(tool, args)
        answers[tool] = (_cpu_seconds() - started, result)

    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            group.start_soon(call, name, arguments, 0)
            group.start_soon(call, "ping", {}, 0.05)
    return answers[name][0], answers["ping"][0], answers[name][1]


# --------------------------------------------------------------------------- item 1


@pytest.mark.parametrize("mode", MODES)
async def test_a_million_invalid_items_are_answered_at_once_with_the_first(mode: str, server: GeneratedServer) -> None:
    async with Client(server, mode=mode) as client:
        took, ping, result = await _call_beside_a_ping(client, "tag", {"items": ["x"] * 1_000_000})
    assert result.is_error is True
    assert _text(result) == (
        "Invalid arguments for tool 'tag':\n"
        '- $.items[0]: "x" is not of type "integer"\n'
        f"(the arguments hold more than {FULL_REPORT_VALUES:,} values: only the first violation found is shown)"
    )
    # Collecting every violation took 7-10 s on this machine; the first alone takes ms.
    # What remains is the in-memory transport copying a million items, in both directions.
    assert took < 3, took
    assert ping < took + 0.5


def test_the_error_path_allocates_little_beside_the_value() -> None:
    validator = SchemaValidator(NUMBERS)
    value = {"items": ["x"] * 1_000_000}  # one string, a million references: 8 MB
    validator.violations({"items": ["x"]})  # compiled and warm
    tracemalloc.start()
    try:
        report = validator.violations(value)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.lines == ['$.items[0]: "x" is not of type "integer"'] and not report.complete
    assert peak < 1_000_000, peak  # every violation as a Python object: over a gigabyte


def test_small_values_still_get_every_violation_sorted() -> None:
    report = SchemaValidator(NUMBERS).violations({"items": [1, "b", 3, "a", None]})
    assert report.complete
    assert report.lines == [
        '$.items[1]: "b" is not of type "integer"',
        '$.items[3]: "a" is not of type "integer"',
        "$.items[4]: null is not of type \"integer\"",
    ]


def test_large_values_past_the_report_size_get_their_first_violation() -> None:
    values = list(range(FULL_REPORT_VALUES)) + ["late"]
    report = SchemaValidator(NUMBERS).violations({"items": values})
    assert not report.complete
    assert report.lines == [f'$.items[{FULL_REPORT_VALUES}]: "late" is not of type "integer"']


def test_values_are_counted_no_further_than_needed() -> None:
    assert _values_up_to({"a": [1, 2, {"b": None}]}, 100) == 6
    assert _values_up_to(list(range(10**6)), 10) == 11


@pytest.mark.parametrize("mode", MODES)
async def test_protocol_error_style_says_the_report_is_partial(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = _package(tmp_path, monkeypatch, "bounds_protocol", "protocol_error", Limits())
    async with Client(server, mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("tag", {"items": ["x"] * 5000})
    assert caught.value.code == -32602
    assert caught.value.data == {"tool": "tag", "errors": ['$.items[0]: "x" is not of type "integer"'], "complete": False}


# --------------------------------------------------------------------------- item 2


@pytest.mark.parametrize("mode", MODES)
async def test_backtracking_patterns_are_bounded_per_call_not_per_match(mode: str, server: GeneratedServer) -> None:
    async with Client(server, mode=mode) as client:
        # Few enough values for every violation to be looked for: the budget ends it.
        took, ping, result = await _call_beside_a_ping(client, "words", {"words": SLOW_WORDS[:900]})
        assert result.is_error is True
        assert _text(result) == (
            "Invalid arguments for tool 'words': they could not be checked within 100 ms "
            "(matching patterns that need backtracking); send fewer or shorter strings."
        )
        # 16 s before: a million steps for each of the thousand words.
        assert took < 1, took
        assert ping < 1, ping
        # The server keeps serving, and matches words that need few steps.
        fine = await client.call_tool("words", {"words": ["aa", "aaaa"]})
        assert _text(fine) == "2 words" and not fine.is_error


@pytest.mark.parametrize("mode", MODES)
async def test_past_the_full_report_size_the_first_slow_match_is_the_answer(
    mode: str, unbudgeted: GeneratedServer
) -> None:
    # More values than get a full report, and no budget to stop the check: it stops at
    # the first word, which takes the most steps (all thousand would cost 16 s of CPU).
    async with Client(unbudgeted, mode=mode) as client:
        took, ping, result = await _call_beside_a_ping(client, "words", {"words": SLOW_WORDS})
    assert _text(result).startswith(f"Invalid arguments for tool 'words':\n- $.words[0]: \"{SLOW_WORDS[0]}\" cannot")
    assert took < 1, took
    assert ping < 1, ping


@pytest.mark.parametrize("mode", MODES)
async def test_one_match_past_the_step_limit_is_a_readable_violation(mode: str, unbudgeted: GeneratedServer) -> None:
    async with Client(unbudgeted, mode=mode) as client:
        result = await client.call_tool("words", {"words": ["aa", SLOW_WORDS[0], "b"]})
    assert result.is_error is True
    text = _text(result)
    assert text == (
        "Invalid arguments for tool 'words':\n"
        f'- $.words[1]: "{SLOW_WORDS[0]}" cannot be matched against its pattern within 1,000,000 backtracking steps\n'
        f'- $.words[2]: "b" does not match "{BACKTRACKING}"'
    )
    assert "Max limit" not in text  # the engine's own words


def test_the_budget_is_the_limit_given_and_none_is_no_bound() -> None:
    validator = SchemaValidator(WORDS)
    with pytest.raises(ArgumentsTooCostly):
        validator.violations({"words": SLOW_WORDS[:20]}, pattern_budget=0.01)
    report = validator.violations({"words": SLOW_WORDS[:3]}, pattern_budget=None)
    assert len(report.lines) == 3 and report.complete


def test_a_budget_spent_inside_not_still_refuses() -> None:
    # `not` turns the failures that end a spent check into successes: the budget, not the
    # verdict, decides.
    validator = SchemaValidator({"type": "array", "items": {"not": {"type": "string", "pattern": BACKTRACKING}}})
    with pytest.raises(ArgumentsTooCostly):
        validator.violations(SLOW_WORDS, pattern_budget=0.05)


def test_only_schemas_with_backtracking_patterns_take_the_budgeted_path() -> None:
    assert _backtracking_patterns(WORDS)
    assert _backtracking_patterns({"$defs": {"x": {"pattern": "(?=a)b"}}})
    assert not _backtracking_patterns({"properties": {"w": {"pattern": "^[a-z]+$"}}})
    assert not _backtracking_patterns(NUMBERS)


@pytest.mark.parametrize("mode", MODES)
async def test_many_quick_matches_are_bounded_as_a_whole(mode: str, server: GeneratedServer) -> None:
    # A hundred thousand strings that each match at once: what costs is jsonschema-rs
    # calling the budgeted keyword for each (over a second on a busy machine, found by the
    # abusive-clients campaign), so the budget bounds the whole check, not the matches.
    async with Client(server, mode=mode) as client:
        took, ping, result = await _call_beside_a_ping(client, "words", {"words": ["aa"] * 100_000})
    assert _text(result) in ("100000 words", _TOO_COSTLY)
    assert took < 3, took  # the in-memory transport copies the 100,000 words both ways
    assert ping < took + 0.5, ping


_TOO_COSTLY = (
    "Invalid arguments for tool 'words': they could not be checked within 100 ms "
    "(matching patterns that need backtracking); send fewer or shorter strings."
)


def test_the_budget_bounds_the_whole_check() -> None:
    validator = SchemaValidator(WORDS)
    started = _cpu_seconds()
    with pytest.raises(ArgumentsTooCostly):
        validator.violations({"words": ["aa"] * 1_000_000}, pattern_budget=0.05)
    assert _cpu_seconds() - started < 0.5
