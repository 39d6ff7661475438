"""The command line: build, check, validate, schema, and their exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import GIFT_SPEC, MINIMAL, ROOT, run_mcpgen, write_spec

from mcpgen.cli import main
from mcpgen.spec.format import spec_format_schema


@pytest.mark.slow  # builds with the real generator
@pytest.mark.parametrize("spec", [GIFT_SPEC, ROOT / "specs" / "conformance.yaml"])
def test_check_passes_on_the_committed_packages(spec: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["check", str(spec)]) == 0
    assert "up to date" in capsys.readouterr().out


@pytest.mark.slow  # builds with the real generator
def test_check_writes_nothing_and_shows_a_diff_when_stale(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    spec = write_spec(tmp_path, MINIMAL)
    assert main(["check", str(spec)]) == 1  # never built
    assert not (tmp_path / "demo").exists()
    assert main(["build", str(spec)]) == 0
    assert main(["check", str(spec)]) == 0
    write_spec(tmp_path, MINIMAL.replace("echo:", "echo:\n    description: Says it back."))
    capsys.readouterr()
    before = (tmp_path / "demo" / "schema.json").read_text()
    assert main(["check", str(spec)]) == 1
    out = capsys.readouterr().out
    assert '+        "description": "Says it back.",' in out
    assert (tmp_path / "demo" / "schema.json").read_text() == before


@pytest.mark.slow  # builds with the real generator
def test_check_detects_a_hand_edit(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, MINIMAL)
    assert main(["build", str(spec)]) == 0
    with open(tmp_path / "demo" / "models" / "echo.py", "a") as handle:
        handle.write("# edited\n")
    assert main(["check", str(spec)]) == 1


@pytest.mark.slow  # builds with the real generator
def test_output_option_overrides_the_spec(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, MINIMAL)
    assert main(["build", str(spec), "-o", str(tmp_path / "elsewhere")]) == 0  # inside the spec's folder
    assert (tmp_path / "elsewhere" / "demo" / "server.py").exists()


def test_schema_prints_the_spec_format_and_the_committed_copy_is_current(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["schema"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == spec_format_schema()
    assert json.loads((ROOT / "mcpgen-spec.schema.json").read_text()) == printed


def test_usage_errors_exit_2() -> None:
    assert main([]) == 2
    assert main(["frobnicate"]) == 2
    assert main(["build"]) == 2


def test_the_installed_command_runs() -> None:
    result = run_mcpgen("validate", str(GIFT_SPEC))
    assert result.returncode == 0 and result.stdout.strip().endswith("ok")


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, MINIMAL)
    # `mcpgen schema | head -1`: the reader stops early; no BrokenPipeError traceback.
    result = subprocess.run(
        f"{sys.executable} -m mcpgen schema | head -1", shell=True, capture_output=True, text=True, cwd=tmp_path
    )
    assert result.stdout == "{\n"
    assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr
    assert spec.exists()


@pytest.mark.slow  # builds with the real generator
def test_check_tells_stale_from_hand_edited(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = write_spec(tmp_path, MINIMAL)
    assert main(["build", str(spec)]) == 0
    write_spec(tmp_path, MINIMAL.replace("echo:", "echo:\n    title: Echo"))
    capsys.readouterr()
    assert main(["check", str(spec)]) == 1
    assert f"out of date; run `mcpgen build {spec}`" in capsys.readouterr().err
    handlers = tmp_path / "demo" / "handlers.py"
    handlers.write_text(handlers.read_text() + "# mine\n")
    assert main(["check", str(spec)]) == 1
    captured = capsys.readouterr()
    assert "edited by hand (handlers.py)" in captured.err and "--force" in captured.err
    assert f"--- a/{tmp_path / 'demo' / 'handlers.py'}" in captured.out  # the same paths as build shows
