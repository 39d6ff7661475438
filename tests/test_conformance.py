"""The official MCP conformance suite, in server mode, against the generated fixture server.

Every scored scenario must pass, for 2025-11-25 and for 2026-07-28; there is no
expected-failures baseline. Scenarios the suite itself does not score (the tasks
extension, pending ones) are reported but do not count, as in the suite's own verdict.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import CONFORMANCE_APP, http_server, node_environment, require_node_tools

pytestmark = [pytest.mark.node, pytest.mark.slow]

LINE = re.compile(r"^([✓✗]) (\S+): (\d+) passed, (\d+) failed$")


@pytest.fixture(scope="module")
def fixture_url() -> Iterator[str]:
    with http_server([sys.executable, str(CONFORMANCE_APP)]) as url:
        yield url


def _scenarios(output: str) -> tuple[dict[str, bool], set[str]]:
    """(scenario -> passed) and the names listed as not scored."""
    results = {}
    for line in output.splitlines():
        match = LINE.match(line.strip())
        if match:
            results[match.group(2)] = match.group(1) == "✓" and match.group(4) == "0"
    not_scored = set()
    if "Not scored" in output:
        tail = output.split("Not scored", 1)[1]
        not_scored = {match.group(1) for match in re.finditer(r"[✓✗] (\S+) \(", tail)}
    return results, not_scored


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_every_scored_scenario_passes(fixture_url: str, version: str, tmp_path: Path) -> None:
    tools = require_node_tools()
    result = subprocess.run(
        [
            str(tools / "node_modules" / ".bin" / "conformance"),
            "server",
            "--url",
            fixture_url,
            "--requirements",
            version,
            "-o",
            str(tmp_path / "results"),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env=node_environment(tools, tmp_path),
        cwd=tmp_path,
    )
    results, not_scored = _scenarios(result.stdout)
    scored = {name: passed for name, passed in results.items() if name not in not_scored}
    failing = sorted(name for name, passed in scored.items() if not passed)
    summary = next((line for line in result.stdout.splitlines() if line.startswith("Total:")), "no total")
    print(f"{version}: {len(scored)} scored scenarios, {len(failing)} failing; {summary}")
    assert len(scored) >= 30, result.stdout[-3000:] + result.stderr[-3000:]
    assert failing == [], result.stdout[-5000:]
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def test_custom_header_scenario_passes_every_check(fixture_url: str, tmp_path: Path) -> None:
    """SEP-2243's x-mcp-header (issue 20): the suite leaves this scenario unscored ("pending")
    under --requirements 2026-07-28, so the test above would not notice it failing; every one
    of its checks (Base64 values, literal look-alikes, a missing header) must pass."""
    tools = require_node_tools()
    result = subprocess.run(
        [
            str(tools / "node_modules" / ".bin" / "conformance"),
            "server",
            "--url",
            fixture_url,
            "--scenario",
            "http-custom-header-server-validation",
            "-o",
            str(tmp_path / "results"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=node_environment(tools, tmp_path),
        cwd=tmp_path,
    )
    checks = re.search(r"Passed: (\d+)/(\d+), (\d+) failed, (\d+) warnings", result.stdout)
    assert checks is not None, result.stdout[-3000:] + result.stderr[-3000:]
    passed, total, failed, warnings = map(int, checks.groups())
    assert (passed, failed, warnings) == (total, 0, 0), result.stdout[-5000:]
    assert total >= 6, result.stdout[-5000:]
    assert result.returncode == 0, result.stdout[-3000:]
