"""The benchmark scripts run to the end and print their tables (smoke tests, marked slow: no
timing is asserted; the numbers are for people), and their specs are deterministic."""

from __future__ import annotations

import subprocess
import sys

import pytest
from helpers import ROOT

BENCHMARKS = ROOT / "benchmarks"
pytestmark = pytest.mark.timeout(1200)  # a script may take its own 600 s on a loaded machine


def _run(script: str, *arguments: str) -> str:
    result = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *arguments], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, f"{script} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.mark.slow
def test_generation_prints_its_tables() -> None:
    output = _run("generation.py", "--sizes", "10", "--rounds", "1")
    for header in ("generation: wall time", "generation: ratios", "generated package: size on disk"):
        assert header in output
    assert "\n10 " in output


@pytest.mark.slow
def test_serving_prints_its_tables() -> None:
    output = _run("serving.py", "--quick")
    for header in (
        "serving (a): in-process",
        "serving (b): cold start",
        "serving (c): Streamable HTTP",
        "serving (d): stdio",
    ):
        assert header in output
    for server in ("mcpgen generated", "MCPServer", "bare low-level Server", "start not frozen"):
        assert server in output


@pytest.mark.slow
def test_model_batches_prints_its_table_and_floor() -> None:
    output = _run("model_batches.py", "--tools", "10", "--groups", "8", "--sizes", "1,4", "--floor-tools", "100")
    assert "CPU per model group by batch size (8 groups of the 10-tool spec)" in output
    assert "\n1 " in output and "\n4 " in output
    assert "floor: the models of 100 tools need at least" in output


def test_specs_are_deterministic_and_the_edit_changes_one_description() -> None:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from specs import spec, spec_text
    finally:
        sys.path.remove(str(BENCHMARKS))
    assert spec_text(20) == spec_text(20)
    original, edited = spec(20), spec(20, edited=True)
    changed = [name for name in original["tools"] if original["tools"][name] != edited["tools"][name]]
    assert len(changed) == 1
    assert original["tools"][changed[0]]["description"] != edited["tools"][changed[0]]["description"]
    assert list(spec(10)["tools"].items()) == list(original["tools"].items())[:10]


@pytest.mark.slow
def test_import_shared_prints_its_table() -> None:
    output = _run("import_shared.py", "--sizes", "100,200", "--rounds", "1", "--reference-up-to", "200")
    assert "shared definitions: chains of N $defs in two tools" in output
    assert "\n200 " in output


@pytest.mark.slow
def test_abuse_prints_its_table() -> None:
    # 2 s each: long enough for one abusive answer of each kind on a loaded machine (at 0.5 s, the
    # 1 MB invalid array was once still unanswered when its window closed).
    output = _run("abuse.py", "--duration", "2", "--abusers", "1", "--only", "invalid array,over the limit")
    assert "Well-behaved tools/list client during each abuse" in output
    rows = [line for line in output.splitlines() if line.startswith(("baseline", "invalid array", "a body over"))]
    assert len(rows) == 3, output
    assert "HTTP 413" in rows[2] and "isError" in rows[1], output


@pytest.mark.slow
def test_abuse_introspection_flood_prints_its_table() -> None:
    output = _run("abuse.py", "--duration", "1", "--abusers", "1", "--only", "introspection")
    assert "during an introspection flood" in output
    rows = [line for line in output.splitlines() if line.startswith(("no flood", "flood ("))]
    assert len(rows) == 2, output
    assert "HTTP 429" in rows[1], output  # the flooder's budget ran out
    assert "Well-behaved tools/list client during each abuse" not in output


@pytest.mark.slow
def test_tasks_prints_its_table() -> None:
    output = _run("tasks.py", "--tasks", "20", "--sessions", "2")
    assert "20 concurrent calls over 2 sessions" in output
    rows = [line for line in output.splitlines() if line.startswith(("plain tools/call", "tasks ("))]
    assert len(rows) == 2, output


@pytest.mark.slow
def test_authorization_prints_its_table() -> None:
    output = _run("authorization.py", "--clients", "5", "--seconds", "0.5", "--rounds", "1")
    rows = [line for line in output.splitlines() if line.startswith(("without ", "with ", "JWT /", "introspected /"))]
    assert len(rows) == 5, output


@pytest.mark.slow
def test_openapi_import_prints_its_table() -> None:
    output = _run("openapi_import.py", "--operations", "8")
    assert "openapi import: 8 operations" in output
    assert "goal: import + build within 2x datamodel-codegen on the same schemas (wall):" in output
    assert "classes from mcpgen's schemas" in output
