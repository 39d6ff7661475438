"""`mcpgen import` against hostile servers and inputs: each ends within its bounds
(`--timeout`, `--max-bytes`, `--max-pages`) with one line, `<target>: error: ...`, never a
traceback, with bounded memory, and leaves the user's files as they were.

The servers are real processes (`import_hostile_server.py`: over stdio, started by the
import; over Streamable HTTP, uvicorn on a free port). Each import runs in a fresh
interpreter under a measuring parent (`MEASURE`) that reports its wall time and its peak
memory (`RUSAGE_CHILDREN`: the import and the servers it started), with a hard timeout and
an address-space limit, so that a regression fails here instead of hanging the run or
eating the machine.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, http_server
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from mcpgen.cli import main

pytestmark = pytest.mark.slow  # every test starts an import, and most a server

HOSTILE = Path(__file__).parent / "import_hostile_server.py"
HARD_TIMEOUT = 120  # seconds; far above every bound below, only a hang reaches it
ADDRESS_SPACE = 3 << 30  # the import's own limit: a runaway fails with MemoryError, not the machine
PEAK_LIMIT_MB = 450  # a bounded import peaks near 150 MB (the defaults hold 32 MiB of answers)

# Runs argv[1:] with its address space limited; prints {rc, seconds, peak_mb, stderr}.
MEASURE = textwrap.dedent(
    f"""
    import json, resource, subprocess, sys, time
    def limited():
        resource.setrlimit(resource.RLIMIT_AS, ({ADDRESS_SPACE}, {ADDRESS_SPACE}))
    started = time.monotonic()
    done = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, capture_output=True, text=True, preexec_fn=limited)
    seconds = time.monotonic() - started
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(json.dumps({{"rc": done.returncode, "seconds": seconds, "peak_mb": peak_mb, "stderr": done.stderr}}))
    """
)


@dataclass(frozen=True)
class Run:
    rc: int
    seconds: float
    peak_mb: float
    stderr: str


def measured_import(*arguments: str) -> Run:
    """`mcpgen import ARGUMENTS`, measured; killed with everything it started after HARD_TIMEOUT."""
    command = [sys.executable, "-c", MEASURE, sys.executable, "-m", "mcpgen", "import", *arguments]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, start_new_session=True, cwd=ROOT)
    try:
        out, _ = process.communicate(timeout=HARD_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"mcpgen import {' '.join(arguments)} was still running after {HARD_TIMEOUT} s", pytrace=False)
    return Run(**json.loads(out))


def assert_one_clear_line(run: Run, target: str, *phrases: str) -> None:
    lines = run.stderr.strip().splitlines()
    assert "Traceback" not in run.stderr, run.stderr
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith(f"{target}: error: "), run.stderr
    assert "SourceError" not in lines[0], run.stderr  # our own sentence, not its type
    for phrase in phrases:
        assert phrase in lines[0], run.stderr
    assert run.rc == 1, run


@pytest.fixture()
def users_files(tmp_path: Path) -> tuple[Path, Path]:
    """A spec and a capture the user already has; `--force` would replace them on success."""
    spec, capture = tmp_path / "spec.yaml", tmp_path / "capture.json"
    spec.write_text("mine\n")
    capture.write_text('{"mine": true}\n')
    return spec, capture


def assert_untouched(files: tuple[Path, Path]) -> None:
    spec, capture = files
    assert spec.read_text() == "mine\n"
    assert capture.read_text() == '{"mine": true}\n'
    assert sorted(path.name for path in spec.parent.iterdir()) == ["capture.json", "spec.yaml"]


# What each hostile server must end with: the phrase in the error, and the --timeout given.
# Those stopped by a bound are given a long timeout: they must end well before it.
CASES = {
    "endless_line": ("--max-bytes", 60),
    "huge": ("--max-bytes", 60),
    "gzip_bomb": ("--max-bytes", 60),
    "endless_events": ("--max-bytes", 90),
    "endless_pages": ("error: tools/list: the pages did not end after --max-pages 1000", 60),
    "empty_pages": ("error: tools/list: the pages did not end after --max-pages 1000", 60),
    "silent": ("within 4 s", 4),
    "drip": ("within 4 s", 4),
}
# Stopped by a bound, each must end this long after the server started answering at most.
QUICK = 30
# But for endless notifications: the SDK's client reads each of them (some 130,000 fit in
# --max-bytes) before the byte cap ends the stream, about 24 s over HTTP on an idle machine.
SLOW_TO_CAP = {"endless_events": 60}


def _check(run: Run, target: str, phrase: str, timeout: int, files: tuple[Path, Path], mode: str = "") -> None:
    assert_one_clear_line(run, target, phrase)
    quick = SLOW_TO_CAP.get(mode, QUICK)
    assert run.seconds < (quick if timeout > quick else timeout + 15), run
    assert run.peak_mb < PEAK_LIMIT_MB, run
    assert_untouched(files)


def _arguments(timeout: int, files: tuple[Path, Path]) -> list[str]:
    spec, capture = files
    return ["-o", str(spec), "--capture", str(capture), "--force", "--timeout", str(timeout)]


@pytest.mark.parametrize("mode", sorted(CASES))
def test_a_hostile_stdio_server_ends_within_the_bounds(mode: str, users_files: tuple[Path, Path]) -> None:
    phrase, timeout = CASES[mode]
    target = f"{sys.executable} {HOSTILE} {mode}"
    run = measured_import("--stdio", target, *_arguments(timeout, users_files))
    _check(run, target, phrase, timeout, users_files, mode)


@pytest.mark.parametrize("mode", sorted(CASES))
def test_a_hostile_http_server_ends_within_the_bounds(mode: str, users_files: tuple[Path, Path]) -> None:
    phrase, timeout = CASES[mode]
    with http_server([sys.executable, str(HOSTILE), mode]) as url:
        run = measured_import("--url", url, *_arguments(timeout, users_files))
    _check(run, url, phrase, timeout, users_files, mode)


@pytest.mark.parametrize("mode", ["malformed", "not_jsonrpc"])
def test_a_server_that_answers_with_no_json_rpc_is_one_line(mode: str, users_files: tuple[Path, Path]) -> None:
    target = f"{sys.executable} {HOSTILE} {mode}"
    run = measured_import("--stdio", target, *_arguments(4, users_files))
    _check(run, target, "not JSON-RPC", 4, users_files)
    with http_server([sys.executable, str(HOSTILE), mode]) as url:
        run = measured_import("--url", url, *_arguments(30, users_files))
    _check(run, url, "tools/list", 30, users_files)


def test_the_bounds_are_flags_with_their_defaults_in_the_help() -> None:
    done = subprocess.run([sys.executable, "-m", "mcpgen", "import", "--help"], capture_output=True, text=True)
    help_text = " ".join(done.stdout.split())
    for flag in ("--timeout", "--max-bytes", "--max-pages"):
        assert flag in help_text
    assert "whole import" in help_text


def test_a_lower_max_bytes_refuses_a_server_the_default_accepts(users_files: tuple[Path, Path]) -> None:
    """The cap counts what was read: the example server's answers are a few kilobytes."""
    target = f"{sys.executable} {ROOT / 'generated_example' / 'app.py'}"
    run = measured_import("--stdio", target, *_arguments(60, users_files), "--max-bytes", "1000")
    _check(run, target, "--max-bytes 1000", 60, users_files)


def test_a_capture_larger_than_max_bytes_is_refused_unread(tmp_path: Path, users_files: tuple[Path, Path]) -> None:
    capture = tmp_path.parent / f"{tmp_path.name}-big.json"
    capture.write_text('{"serverInfo": {"name": "x", "version": "1"}, "tools": []}' + " " * 5000)
    spec = users_files[0]
    run = measured_import(str(capture), "-o", str(spec), "--force", "--max-bytes", "4096")
    _check(run, str(capture), "--max-bytes 4096", 60, users_files)


# --- processing: the deadline holds after the listing too ------------------------------------


def test_the_timeout_bounds_building_the_spec_too(tmp_path: Path, users_files: tuple[Path, Path]) -> None:
    """2,000 tools from a capture: listing is instant, building the spec in memory (every
    tool's models) takes far longer than a second. (A chain of definitions no longer serves:
    `$ref` chains past 100 are refused before anything is built.)"""
    capture = tmp_path.parent / f"{tmp_path.name}-many.json"
    tools = [
        {"name": f"tool_{index}", "inputSchema": {"type": "object", "properties": {f"p{index}": {"type": "string"}}}}
        for index in range(2000)
    ]
    capture.write_text(json.dumps({"serverInfo": {"name": "many", "version": "1"}, "tools": tools}))
    spec = users_files[0]
    run = measured_import(str(capture), "-o", str(spec), "--force", "--timeout", "1")
    _check(run, str(capture), "did not finish within --timeout 1 s", 1, users_files)


# --- fuzzing: random answers to tools/list, over stdio and HTTP ---------------------------------


def examples(default: int) -> int:
    return int(os.environ.get("MCPGEN_FUZZ_EXAMPLES", default))


def campaign(default: int) -> Any:
    return settings(
        max_examples=examples(default),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        database=None,
    )


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
SUBSCHEMAS = st.sampled_from(
    [{"type": "string"}, {"type": "integer"}, {"$ref": "#/$defs/X"}, {"pattern": "(?<=x"}, {}, {"type": "nope"}]
)
SCHEMAS = st.one_of(
    st.just({"type": "object"}),
    st.fixed_dictionaries(
        {"type": st.just("object"), "properties": st.dictionaries(st.text(max_size=5), SUBSCHEMAS, max_size=3)},
        optional={"$defs": st.dictionaries(st.sampled_from(["X", "Y"]), SUBSCHEMAS, max_size=2)},
    ),
    JSON,
)
TOOLS = st.fixed_dictionaries(
    {"name": st.text(max_size=12), "inputSchema": SCHEMAS},
    optional={"description": st.text(max_size=20), "outputSchema": SCHEMAS, "annotations": JSON},
)


def _line(message: Any) -> bytes:
    return json.dumps(message).encode()


def _result(tools: list[Any], cursor: str | None) -> bytes:
    result: dict[str, Any] = {"tools": tools, "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}
    if cursor is not None:
        result["nextCursor"] = cursor
    return _line({"jsonrpc": "2.0", "id": "@@ID@@", "result": result})


JUNK = st.one_of(
    st.binary(max_size=40).filter(lambda line: b"\n" not in line),
    JSON.map(_line),
    st.builds(lambda data: _line({"jsonrpc": "2.0", "method": "notifications/message", "params": data}), JSON),
    st.builds(lambda result: _line({"jsonrpc": "2.0", "id": 987, "result": result}), JSON),
)
FINAL = st.one_of(
    st.builds(_result, st.lists(TOOLS, max_size=3), st.none() | st.text(max_size=4)),
    st.builds(
        lambda code, message, data: _line({"jsonrpc": "2.0", "id": "@@ID@@", "error": {"code": code, "message": message, "data": data}}),
        st.integers(),
        st.text(max_size=20),
        JSON,
    ),
    JSON.map(lambda value: _line({"jsonrpc": "2.0", "id": "@@ID@@", "result": value})),
    JUNK,
    st.just(b""),  # nothing more: the import waits out its timeout
)
ANSWERS = st.builds(lambda junk, final: b"\n".join([*junk, final]), st.lists(JUNK, max_size=3), FINAL)
FUZZ_TIMEOUT = 4


def _fuzzed_import(target: list[str], shown_target: str, script: Path, answer: bytes, capsys: Any) -> None:
    """One import of a server that answers `answer`: it succeeds, or ends in one line, in time."""
    script.write_bytes(answer)
    spec = script.with_name("spec.yaml")
    started = time.monotonic()
    code = main(["import", *target, "-o", str(spec), "--force", "--timeout", str(FUZZ_TIMEOUT), "--max-bytes", "64K"])
    seconds = time.monotonic() - started
    captured = capsys.readouterr()
    event(f"exit {code}")
    assert code in (0, 1), captured.err
    assert "Traceback" not in captured.err + captured.out
    assert seconds < FUZZ_TIMEOUT + 15, seconds
    if code == 1 and "imported" not in captured.err:  # not one that listed but does not validate
        lines = captured.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"{shown_target}: error: "), captured.err


@campaign(default=12)
@given(answer=ANSWERS)
def test_random_answers_over_stdio_end_in_an_import_or_one_line(answer: bytes, capsys: Any) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        script = Path(scratch) / "answer"
        target = f"{sys.executable} {HOSTILE} scripted {script}"
        _fuzzed_import(["--stdio", target], target, script, answer, capsys)


@pytest.fixture(scope="module")
def scripted_http() -> Iterator[tuple[str, Path]]:
    with tempfile.TemporaryDirectory() as scratch:
        script = Path(scratch) / "answer"
        script.write_bytes(b"")
        with http_server([sys.executable, str(HOSTILE), "scripted", str(script)]) as url:
            yield url, script


@campaign(default=12)
@given(answer=ANSWERS)
def test_random_answers_over_http_end_in_an_import_or_one_line(
    answer: bytes, scripted_http: tuple[str, Path], capsys: Any
) -> None:
    url, script = scripted_http
    _fuzzed_import(["--url", url], url, script, answer, capsys)
