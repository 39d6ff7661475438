"""The warm build path, stage by stage: where a rebuild's time goes once the caches are warm.

    python benchmarks/stages.py [--tools 500] [--rounds 3] [--tree DIR ...]

For the N-tool spec of `benchmarks/specs.py`, with a warm `MCPGEN_CACHE_DIR` (models and
black output cached), it times in one process `load_spec` (read, check), `resolve` (IR),
`render_package` and a whole `build`; and in fresh processes `mcpgen build` after a
one-tool edit, the no-op rebuild right after it, and the no-op rebuild again. Each is the
best of `--rounds`. With `--tree`, the same is timed for other checkouts of mcpgen (run
with that tree first on PYTHONPATH), rounds interleaved so that a noisy machine treats them
alike, and the table gives each stage's ratio to the first tree.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import PYTHON, ROOT, print_table, ratio, seconds

from specs import spec_text

STAGES = ("load_spec", "resolve", "render_package", "build (in process)")
RUNS = ("edit rebuild", "no-op after it", "no-op again")


def _in_process(spec: Path, rounds: int) -> dict[str, float]:
    """Best-of-`rounds` stage times of the mcpgen on sys.path (the cache warmed first)."""
    from mcpgen.ir.resolve import resolve
    from mcpgen.render.package import render_package
    from mcpgen.services import pipeline, spec_loading

    pipeline.build(spec, allow_outside=True)
    best: dict[str, float] = {}

    def timed(stage: str, run):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        result = run()
        best[stage] = min(best.get(stage, float("inf")), time.perf_counter() - started)
        return result

    for _ in range(rounds):
        checked, raw, _ = timed("load_spec", lambda: spec_loading.load_spec(spec))
        # Each lambda runs at once, inside timed(), so it reads this round's values.
        api = timed("resolve", lambda: resolve(checked, raw))  # noqa: B023
        timed("render_package", lambda: render_package(api))  # noqa: B023
        timed("build (in process)", lambda: pipeline.build(spec, allow_outside=True))
    return best


def _environment(tree: Path, cache: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(tree), MCPGEN_CACHE_DIR=str(cache))


def _mcpgen_build(spec: Path, env: dict[str, str], expect: str) -> float:
    started = time.perf_counter()
    result = subprocess.run([PYTHON, "-m", "mcpgen", "build", spec.name], cwd=spec.parent, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if result.returncode != 0 or expect not in result.stdout:
        raise SystemExit(f"expected {expect!r} from mcpgen build, got:\n{result.stdout}{result.stderr}")
    return elapsed


def _round(tree: Path, project: Path, cache: Path, tools: int, number: int) -> dict[str, float]:
    env = _environment(tree, cache)
    spec = project / "spec.yaml"
    # Texts of this round's own, as a real edit is: no rebuild has seen them before.
    spec.write_text(spec_text(tools) + f"# round {number}\n", encoding="utf-8")
    _mcpgen_build(spec, env, "")  # the package of the unedited spec, as the edit finds it
    spec.write_text(spec_text(tools, edited=True) + f"# round {number}\n", encoding="utf-8")
    times = {
        "edit rebuild": _mcpgen_build(spec, env, "written"),
        "no-op after it": _mcpgen_build(spec, env, "up to date"),
        "no-op again": _mcpgen_build(spec, env, "up to date"),
    }
    child = subprocess.run(
        [PYTHON, __file__, "--in-process", str(spec), "--rounds", "1"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return {**times, **json.loads(child.stdout)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tools", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tree", type=Path, action="append", help="a checkout of mcpgen (default: this one)")
    parser.add_argument("--in-process", type=Path, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.in_process:
        print(json.dumps(_in_process(arguments.in_process, arguments.rounds)))
        return
    trees = [tree.resolve() for tree in arguments.tree or [ROOT]]
    best: list[dict[str, float]] = [{} for _ in trees]
    with tempfile.TemporaryDirectory(prefix="mcpgen-stages-") as scratch:
        cache = Path(scratch) / "cache"  # shared: what it holds is keyed by content
        for round_number in range(arguments.rounds):
            for index, tree in enumerate(trees):
                project = Path(scratch) / f"tree-{index}"
                project.mkdir(exist_ok=True)
                # one in-process round per fresh-process round: each stage is best of --rounds
                for name, value in _round(tree, project, cache, arguments.tools, round_number).items():
                    best[index][name] = min(best[index].get(name, float("inf")), value)
            print(f"round {round_number + 1} of {arguments.rounds} done", file=sys.stderr)
    headers = ["stage (best of rounds)", *(str(tree) for tree in trees)]
    if len(trees) > 1:
        headers += [f"ratio {index + 1}/1" for index in range(1, len(trees))]
    rows = []
    for name in (*STAGES, *RUNS):
        row = [name, *(seconds(times[name]) for times in best)]
        row += [ratio(times[name], best[0][name]) for times in best[1:]]
        rows.append(row)
    print_table(f"warm build path, {arguments.tools} tools", headers, rows)


if __name__ == "__main__":
    main()
