"""What the benchmark scripts share: medians and ratios, timed subprocesses with their peak
memory, sizes on disk, import times, servers in subprocesses, and printed tables."""

from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
GNU_TIME = "/usr/bin/time"

# Every process measured starts as on a user's machine, with byte code cached after its
# first run. Some environments (CI images, this project's sandbox) set
# PYTHONDONTWRITEBYTECODE, which would charge every start for compiling the generated
# package, and every build for compiling an editable install of mcpgen.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def median(samples: Sequence[float]) -> float:
    return statistics.median(samples)


def ratio(numerator: float | None, denominator: float | None) -> str:
    if not numerator or not denominator:
        return "-"
    return f"{numerator / denominator:.2f}x"


def seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def megabytes(kilobytes: float | None) -> str:
    return "-" if kilobytes is None else f"{kilobytes / 1024:.0f} MB"


def print_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """A plain-text table; the first column left-aligned, the others right-aligned."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        first, *rest = (str(cell) for cell in cells)
        return "  ".join([first.ljust(widths[0]), *(cell.rjust(width) for cell, width in zip(rest, widths[1:], strict=True))])

    print(f"\n{title}")
    print(line(headers))
    print("  ".join("-" * width for width in widths))
    for row in rows:
        print(line(row))
    sys.stdout.flush()


def console_script(name: str) -> str:
    """An installed console script of this environment (beside its python), else on PATH."""
    beside = Path(PYTHON).with_name(name)
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found:
        raise SystemExit(f"{name} is not installed in this environment")
    return found


# --- timed subprocesses ----------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    seconds: float  # wall time, measured around the whole subprocess
    peak_rss_kb: int | None  # the process's (and its waited-for children's) maximum resident set
    stdout: str
    stderr: str


# Without GNU time, a wrapper reports its children's peak RSS (ru_maxrss of RUSAGE_CHILDREN).
_RUSAGE_WRAPPER = """\
import resource, subprocess, sys
code = subprocess.run(sys.argv[2:]).returncode
with open(sys.argv[1], "w") as report:
    report.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(code)
"""


def run_measured(command: Sequence[str], *, cwd: Path | None = None, env: dict[str, str] | None = None) -> Run:
    """Run `command` to completion in a fresh process: its wall time and peak RSS. Raises
    SystemExit with its output if it fails."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as report:
        if os.access(GNU_TIME, os.X_OK):
            wrapped = [GNU_TIME, "-v", "-o", report.name, *command]
        else:
            wrapped = [PYTHON, "-c", _RUSAGE_WRAPPER, report.name, *command]
        started = time.perf_counter()
        result = subprocess.run(wrapped, cwd=cwd, env=env, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        text = report.read()
    if result.returncode != 0:
        raise SystemExit(
            f"failed ({result.returncode}): {' '.join(command)}\n--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}"
        )
    peak = None
    for line in text.splitlines():
        if "Maximum resident set size" in line:
            peak = int(line.rsplit(":", 1)[1])
    if peak is None and text.strip().isdigit():
        peak = int(text)
    return Run(elapsed, peak, result.stdout, result.stderr)


def tree_size(directory: Path) -> tuple[int, int]:
    """(files, bytes) under `directory`, leaving out byte-code caches."""
    files = [path for path in directory.rglob("*") if path.is_file() and "__pycache__" not in path.parts]
    return len(files), sum(path.stat().st_size for path in files)


_IMPORT_TIMER = """\
import sys, time
started = time.perf_counter()
import {module}
print(time.perf_counter() - started)
"""


def import_seconds(module: str, path: Path | None = None) -> float:
    """How long `import module` takes in a fresh interpreter (with `path` first on sys.path)."""
    env = dict(os.environ, PYTHONPATH=str(path)) if path else None
    result = subprocess.run(
        [PYTHON, "-c", _IMPORT_TIMER.format(module=module)], capture_output=True, text=True, env=env, check=False
    )
    if result.returncode != 0:
        raise SystemExit(f"import {module} failed:\n{result.stderr}")
    return float(result.stdout.strip().splitlines()[-1])


# --- servers in subprocesses -----------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def server_process(command: Callable[[int], Sequence[str]], *, timeout: float = 60.0, **options: Any) -> Iterator[str]:
    """Start the command made for a free port, yield its MCP URL once the port accepts
    connections, and stop the process afterwards (this process's own child, by its id)."""
    port = free_port()
    log = tempfile.TemporaryFile(mode="w+")  # a file, not a pipe: a full pipe would stall the server
    process = subprocess.Popen(command(port), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, **options)

    def fail(reason: str) -> None:
        log.seek(0)
        raise SystemExit(f"{reason}\n--- server output ---\n{log.read()}")

    deadline = time.monotonic() + timeout
    try:
        while True:
            if process.poll() is not None:
                fail(f"the server exited with code {process.returncode} before listening on port {port}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    fail(f"the server did not listen on port {port} within {timeout:.0f} s")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        log.close()
