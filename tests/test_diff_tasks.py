"""`mcpgen diff` on `execution.taskSupport` (issue 22, item 1): a change that refuses calls
clients made before is an error, one that lets every old call through is info, and the
verdict is what the built servers do with a plain call and with a task."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import BASE_SPEC, write_spec

from mcpgen.compare.entities import compare_wire
from mcpgen.services.spec_loading import load_spec

ABSENT = None


def spec_text(task_support: str | None, execution: dict[str, Any] | None = None) -> str:
    tool: dict[str, Any] = {"inputSchema": {"type": "object"}}
    if task_support is not None:
        tool["execution"] = {"taskSupport": task_support}
    elif execution is not None:
        tool["execution"] = execution
    return yaml.safe_dump({**BASE_SPEC, "tools": {"job": tool}}, sort_keys=False)


def task_findings(tmp_path: Path, old: str, new: str) -> list[tuple[str, str, str]]:
    """(rule, severity, message) of every finding about the tool's execution."""
    old_path = write_spec(tmp_path, old, "old.yaml")
    new_path = write_spec(tmp_path, new, "new.yaml")
    changes, _ = compare_wire(load_spec(old_path)[0], load_spec(new_path)[0])
    return [(c.rule, c.severity, c.message) for c in changes if c.target == "tools.job.execution"]


# (before, after) -> (rule, severity): None is `execution` not written (forbidden).
VERDICTS = {
    (ABSENT, "optional"): ("WIRE/task-support-changed", "info"),
    ("forbidden", "optional"): ("WIRE/task-support-changed", "info"),
    ("required", "optional"): ("WIRE/task-support-changed", "info"),
    (ABSENT, "forbidden"): ("WIRE/task-support-changed", "info"),
    ("forbidden", ABSENT): ("WIRE/task-support-changed", "info"),
    ("optional", "required"): ("WIRE/task-required", "error"),
    ("forbidden", "required"): ("WIRE/task-required", "error"),
    (ABSENT, "required"): ("WIRE/task-required", "error"),
    ("optional", "forbidden"): ("WIRE/task-support-removed", "error"),
    ("required", "forbidden"): ("WIRE/task-support-removed", "error"),
    ("optional", ABSENT): ("WIRE/task-support-removed", "error"),
    ("required", ABSENT): ("WIRE/task-support-removed", "error"),
}


@pytest.mark.parametrize(("before", "after"), list(VERDICTS))
def test_each_change_of_task_support_has_its_verdict(tmp_path: Path, before: str | None, after: str | None) -> None:
    findings = task_findings(tmp_path, spec_text(before), spec_text(after))
    rule, severity = VERDICTS[(before, after)]
    assert findings == [(rule, severity, f"taskSupport {before or 'forbidden'} -> {after or 'forbidden'}")]


def test_the_same_task_support_is_no_change(tmp_path: Path) -> None:
    for value in ("forbidden", "optional", "required"):
        assert task_findings(tmp_path, spec_text(value), spec_text(value)) == []
    # `execution: {}` and no `execution` say the same (forbidden); it is served differently.
    assert task_findings(tmp_path, spec_text(ABSENT, {}), spec_text(ABSENT)) == [
        ("WIRE/task-support-changed", "info", "taskSupport forbidden -> forbidden")
    ]


def test_a_breaking_change_is_positioned_at_the_new_execution(tmp_path: Path) -> None:
    old_path = write_spec(tmp_path, spec_text("optional"), "old.yaml")
    new_path = write_spec(tmp_path, spec_text("required"), "new.yaml")
    changes, _ = compare_wire(load_spec(old_path)[0], load_spec(new_path)[0])
    (change,) = [c for c in changes if c.rule == "WIRE/task-required"]
    lines = new_path.read_text().splitlines()
    assert change.file == str(new_path)
    assert lines[change.position.line - 1].strip() == "execution:"
