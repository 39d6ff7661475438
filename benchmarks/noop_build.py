"""The no-op rebuild's time: `mcpgen build SPEC` on a package that is up to date, in fresh processes.

    python benchmarks/noop_build.py [--spec specs/gift_server.yaml] [--runs 30] [--tree DIR ...]

Each run is `python -m mcpgen build SPEC` with the tree first on PYTHONPATH (this checkout,
then each `--tree`: another checkout of mcpgen, a git repository of its own whose committed
packages are fresh for its own generator), runs interleaved so that a busy machine treats
the trees alike. Printed per tree: the median and best wall time, and the median CPU time
(user + system, which a busy machine inflates less than the wall time).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def one_run(tree: Path, spec: str) -> tuple[float, float]:
    """The wall and CPU seconds of one no-op `mcpgen build` of `spec` in `tree`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen", "build", spec],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or "up to date" not in done.stdout:
        raise SystemExit(f"{tree}: not a no-op build: {done.stdout}{done.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spec", default="specs/gift_server.yaml", help="relative to each tree")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--tree", type=Path, action="append", default=[])
    options = parser.parse_args()
    trees = [ROOT, *(tree.resolve() for tree in options.tree)]
    for tree in trees:  # warm up: the OS's file cache, mcpgen's cache, .pyc files
        for _ in range(3):
            one_run(tree, options.spec)
    times: dict[Path, list[tuple[float, float]]] = {tree: [] for tree in trees}
    for _ in range(options.runs):
        for tree in trees:
            times[tree].append(one_run(tree, options.spec))
    print(f"no-op `mcpgen build {options.spec}`, {options.runs} runs each, interleaved")
    print(f"{'tree':40} {'median wall':>12} {'best wall':>10} {'median CPU':>11}")
    for tree, runs in times.items():
        walls, cpus = [wall for wall, _ in runs], [cpu for _, cpu in runs]
        print(
            f"{str(tree):40} {statistics.median(walls) * 1000:9.1f} ms {min(walls) * 1000:7.1f} ms "
            f"{statistics.median(cpus) * 1000:8.1f} ms"
        )


if __name__ == "__main__":
    main()
