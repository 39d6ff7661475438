"""The test tiers, held to what they promise (a pytest plugin; conftest.py loads it).

`pytest -m "not slow"` is the unit tier a developer runs on every change; `slow` marks the
rest (builds with the real generator, servers in subprocesses, mypy, Node). A test in the
unit tier must stay cheap, so each test's CPU time is measured (its own process's and that
of the subprocesses it waited for, in the call itself, fixtures apart): one over
`UNIT_CPU_BUDGET` fails the run with its name, and the summary lists every test over
`UNIT_ADVISED` seconds of CPU or wall time, so a test that creeps up is seen before it fails.

CPU time, not wall time, is what fails the run: on a loaded machine (several test runs on
two cores) wall time doubles or worse, while the CPU a test needs barely moves; the wall
times are only listed. `MCPGEN_TEST_TIMES=FILE` appends one JSON line per test (name, tier,
wall and CPU seconds) as it ends, for measuring a run that may not finish.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

UNIT_CPU_BUDGET = 5.0  # seconds of CPU a unit-tier test may use before the run fails
UNIT_ADVISED = 1.0  # seconds (CPU or wall) above which a unit-tier test is listed


def _cpu_seconds() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    wall, cpu = time.monotonic(), _cpu_seconds()
    yield
    item.user_properties.append(("cpu_seconds", round(_cpu_seconds() - cpu, 3)))
    item.user_properties.append(("wall_seconds", round(time.monotonic() - wall, 3)))


@dataclass(frozen=True)
class Timed:
    name: str
    cpu: float
    wall: float


class TierBudget:
    """Collects the unit tier's times from every test's call report (in the controller
    under xdist, where the workers' reports arrive) and judges them at the end."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.unit: list[Timed] = []
        self.log = os.environ.get("MCPGEN_TEST_TIMES")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        measured = {name: value for name, value in report.user_properties if isinstance(value, float)}
        if "cpu_seconds" not in measured:
            return
        slow = "slow" in report.keywords
        timed = Timed(report.nodeid, measured["cpu_seconds"], measured["wall_seconds"])
        if not slow and report.passed:
            self.unit.append(timed)
        if self.log:
            line = {"test": timed.name, "tier": "slow" if slow else "unit", "cpu": timed.cpu, "wall": timed.wall}
            with open(self.log, "a", encoding="utf-8") as log:
                log.write(json.dumps(line) + "\n")

    def over_budget(self) -> list[Timed]:
        return sorted((t for t in self.unit if t.cpu > UNIT_CPU_BUDGET), key=lambda t: -t.cpu)

    def advised(self) -> list[Timed]:
        listed = (t for t in self.unit if max(t.cpu, t.wall) > UNIT_ADVISED and t.cpu <= UNIT_CPU_BUDGET)
        return sorted(listed, key=lambda t: -max(t.cpu, t.wall))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.over_budget() and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        over, advised = self.over_budget(), self.advised()
        if advised:
            terminalreporter.section("unit-tier tests over the advised time")
            terminalreporter.write_line(
                f"over {UNIT_ADVISED:g} s of CPU or wall time; mark a test `slow` if it needs this time on an idle machine:"
            )
            for timed in advised[:20]:
                terminalreporter.write_line(f"  {timed.cpu:6.2f} s CPU {timed.wall:6.2f} s wall  {timed.name}")
            if len(advised) > 20:
                terminalreporter.write_line(f"  ... and {len(advised) - 20} more")
        if over:
            terminalreporter.section("unit-tier tests over budget", red=True, bold=True)
            terminalreporter.write_line(
                f"error: {len(over)} test(s) not marked `slow` used more than {UNIT_CPU_BUDGET:g} s of CPU "
                "(see tests/tiers.py); mark them `slow` or make them cheaper:",
                red=True,
            )
            for timed in over:
                terminalreporter.write_line(f"  {timed.cpu:6.2f} s CPU {timed.wall:6.2f} s wall  {timed.name}", red=True)


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # an xdist worker's reports are judged by the controller
        config.pluginmanager.register(TierBudget(config), "mcpgen-tier-budget")
