"""Generation benchmark: mcpgen builds against datamodel-code-generator alone, by spec size.

    python benchmarks/generation.py [--sizes 10,100,500] [--rounds R] [--with-10000]
    python benchmarks/generation.py --profile [--sizes 500]

For each size (specs from benchmarks/specs.py, written to a temporary folder), every round
runs, each in a fresh process:
  - `mcpgen build` into a fresh output folder (full build);
  - the same command again (no-op rebuild: the package is up to date);
  - the same command after the one-tool edit (one tool's description changed);
  - `datamodel-codegen` with its CLI defaults making only the models, from a JSON file
    `{"$defs": {...}}` holding the very schemas mcpgen models (`Api.model_schemas`);
  - `import` of the generated package, first (byte-code compiled then) and again.
Wall times are medians over the rounds; peak RSS comes from `/usr/bin/time -v` (or the
children's `ru_maxrss` of a wrapper). Ratios are taken within this run: the machine is
shared and noisy. 10,000 tools only with `--with-10000` (minutes per build).

`--profile` instead builds the largest size once in process (render and write, as
`mcpgen build` does) under cProfile, and prints the top 25 entries by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402
    PYTHON,
    Run,
    console_script,
    import_seconds,
    median,
    megabytes,
    print_table,
    ratio,
    run_measured,
    seconds,
    tree_size,
)

from specs import spec_text, write_spec  # noqa: E402

MCPGEN = [PYTHON, "-m", "mcpgen", "build"]
FLOOR_MODULE = "mcp.server"  # what any SDK server imports: the floor under a package's import time


@dataclass
class Samples:
    full: list[Run] = field(default_factory=list)
    warm: list[Run] = field(default_factory=list)
    noop: list[Run] = field(default_factory=list)
    edit: list[Run] = field(default_factory=list)
    codegen: list[Run] = field(default_factory=list)
    import_first: list[float] = field(default_factory=list)
    import_again: list[float] = field(default_factory=list)
    package: tuple[int, int] = (0, 0)  # files, bytes
    models_bytes: int = 0

    @staticmethod
    def wall(runs: list[Run]) -> float:
        return median([run.seconds for run in runs])

    @staticmethod
    def rss(runs: list[Run]) -> float | None:
        peaks = [run.peak_rss_kb for run in runs if run.peak_rss_kb is not None]
        return median(peaks) if peaks else None


def model_document(spec: Path) -> str:
    """The JSON Schema document of every model mcpgen generates for `spec`: `{"$defs": ...}`
    from the checked, resolved spec (what `pipeline.build(...).api.model_schemas` holds,
    without rendering)."""
    from mcpgen.ir.resolve import resolve
    from mcpgen.services.spec_loading import load_spec

    checked, raw, _ = load_spec(spec)
    return json.dumps({"$defs": resolve(checked, raw).model_schemas}, indent=1)


def measure(tools: int, rounds: int, work: Path) -> Samples:
    samples = Samples()
    folder = work / f"tools-{tools}"
    document = folder / "models.json"
    document.parent.mkdir(parents=True)
    document.write_text(model_document(write_spec(folder / "document", tools)))
    package = f"bench_{tools}"
    edited = spec_text(tools, edited=True)
    codegen = console_script("datamodel-codegen")
    for round_number in range(rounds):
        project = folder / f"round-{round_number}"
        spec = write_spec(project, tools)
        output = project / "out"
        build = [*MCPGEN, str(spec), "-o", str(output)]
        # A cache of this round's own: "full" starts from nothing, as a first build does.
        env = dict(os.environ, MCPGEN_CACHE_DIR=str(project / "cache"))
        samples.full.append(run_measured(build, env=env))
        shutil.rmtree(output)
        samples.warm.append(run_measured(build, env=env))
        samples.noop.append(_expect(run_measured(build, env=env), "up to date"))
        spec.write_text(edited, encoding="utf-8")
        samples.edit.append(_expect(run_measured(build, env=env), "written"))
        models = project / "codegen_models.py"
        # Its own folder as the working directory: no pyproject.toml there to change its defaults.
        samples.codegen.append(
            run_measured(
                [codegen, "--input", str(document), "--input-file-type", "jsonschema", "--output", str(models)], cwd=project
            )
        )
        samples.package = tree_size(output / package)
        samples.models_bytes = tree_size(output / package / "models")[1]
        samples.import_first.append(import_seconds(package, output))
        samples.import_again.append(import_seconds(package, output))
        shutil.rmtree(project)
    return samples


def _expect(run: Run, text: str) -> Run:
    if text not in run.stdout:
        raise SystemExit(f"expected {text!r} from mcpgen build, got:\n{run.stdout}{run.stderr}")
    return run


def report(results: dict[int, Samples], rounds: int, floor: float) -> None:
    wall, rss = Samples.wall, Samples.rss
    print_table(
        f"generation: wall time (peak RSS), median of {rounds} round(s), each a fresh process",
        ["tools", "mcpgen full", "full, warm cache", "no-op rebuild", "one-tool edit", "datamodel-codegen"],
        [
            [
                str(tools),
                f"{seconds(wall(s.full))} ({megabytes(rss(s.full))})",
                f"{seconds(wall(s.warm))} ({megabytes(rss(s.warm))})",
                f"{seconds(wall(s.noop))} ({megabytes(rss(s.noop))})",
                f"{seconds(wall(s.edit))} ({megabytes(rss(s.edit))})",
                f"{seconds(wall(s.codegen))} ({megabytes(rss(s.codegen))})",
            ]
            for tools, s in results.items()
        ],
    )
    print_table(
        "generation: ratios (same run)",
        ["tools", "full / dmcg", "warm / dmcg", "no-op / full", "edit / dmcg", "edit / full", "RSS full / dmcg"],
        [
            [
                str(tools),
                ratio(wall(s.full), wall(s.codegen)),
                ratio(wall(s.warm), wall(s.codegen)),
                ratio(wall(s.noop), wall(s.full)),
                ratio(wall(s.edit), wall(s.codegen)),
                ratio(wall(s.edit), wall(s.full)),
                ratio(rss(s.full), rss(s.codegen)),
            ]
            for tools, s in results.items()
        ],
    )
    print_table(
        f"generated package: size on disk, and `import` in a fresh process ({FLOOR_MODULE} alone: {seconds(floor)})",
        ["tools", "files", "package", "models/", "import (first)", "import (again)", "again / floor"],
        [
            [
                str(tools),
                str(s.package[0]),
                f"{s.package[1] / 1024:.0f} KB",
                f"{s.models_bytes / 1024:.0f} KB",
                seconds(median(s.import_first)),
                seconds(median(s.import_again)),
                ratio(median(s.import_again), floor),
            ]
            for tools, s in results.items()
        ],
    )


def profile(tools: int, work: Path) -> None:
    """One in-process build (render and write) of the `tools`-tool spec under cProfile."""
    from mcpgen.services import pipeline

    spec = write_spec(work / f"profile-{tools}", tools)
    profiler = cProfile.Profile()
    profiler.enable()
    result = pipeline.build(spec, spec.parent / "out")
    pipeline.write(result, result.plan())
    profiler.disable()
    print(f"\nprofile: in-process build of {tools} tools (render and write), top 25 by cumulative time")
    pstats.Stats(profiler, stream=sys.stdout).strip_dirs().sort_stats("cumulative").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10,100,500", help="tool counts, comma-separated (default: 10,100,500)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--with-10000", action="store_true", help="also 10,000 tools (minutes per build)")
    parser.add_argument("--profile", action="store_true", help="profile one in-process build of the largest size")
    options = parser.parse_args()
    sizes = [int(size) for size in options.sizes.split(",") if size]
    if options.with_10000:
        sizes.append(10000)
    with tempfile.TemporaryDirectory(prefix="mcpgen-bench-") as temporary:
        work = Path(temporary)
        if options.profile:
            profile(max(sizes), work)
            return
        results = {}
        for tools in sizes:
            print(f"measuring {tools} tools x {options.rounds} round(s)...", file=sys.stderr, flush=True)
            results[tools] = measure(tools, options.rounds, work)
        floor = median([import_seconds(FLOOR_MODULE) for _ in range(max(3, options.rounds))])
        report(results, options.rounds, floor)


if __name__ == "__main__":
    main()
