"""datamodel-codegen's cost per model group by batch size, and the floor it sets on a build.

    python benchmarks/model_batches.py [--tools 500] [--groups 128] [--sizes 1,8,16,32,64,128]
                                       [--floor-tools 10000]

A build gives datamodel-codegen one group of definitions per tool (models/model_groups.py), in
batches of groups that cannot interfere. For the N-tool spec of benchmarks/specs.py, the
first `--groups` groups are generated again in batches of each size (formed as the build
forms them: consecutive groups that fit together), and the table gives the CPU time per
group. The last line is what the cheapest size makes the least wall time that the models
of `--floor-tools` tools can take on this machine's cores: every other stage free, every
core busy, no group taken from the cache.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from common import print_table, seconds

from specs import write_spec


def _groups(spec: Path) -> list[dict[str, Any]]:
    """The groups of definitions a build of `spec` gives datamodel-codegen, in order."""
    from mcpgen.models import assembly as models
    from mcpgen.services import pipeline

    seen: list[list[dict[str, Any]]] = []
    generate_groups = models.generate_groups

    def recorded(groups: Any, *arguments: Any) -> Any:
        seen.append(list(groups))
        return generate_groups(groups, *arguments)

    models.generate_groups = recorded  # observed, not replaced: the build runs as it would
    try:
        pipeline.build(spec, spec.parent / "out", allow_outside=True)
    finally:
        models.generate_groups = generate_groups
    return max(seen, key=len)


def _cpu_per_group(groups: list[dict[str, Any]], size: int) -> tuple[int, float]:
    """(datamodel-codegen runs, CPU seconds per group) for `groups` in batches of `size`."""
    from mcpgen.models import model_batches, model_generator

    started, runs, index = time.process_time(), 0, 0
    while index < len(groups):
        merged: dict[str, Any] = {}
        end = index
        while end < len(groups) and end - index < size and (end == index or model_batches._fits(groups[end], merged)):
            merged.update(groups[end])
            end += 1
        model_generator.generate_models(json.dumps({"$defs": merged}))
        runs, index = runs + 1, end
    return runs, (time.process_time() - started) / len(groups)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tools", type=int, default=500)
    parser.add_argument("--groups", type=int, default=128)
    parser.add_argument("--sizes", default="1,8,16,32,64,128")
    parser.add_argument("--floor-tools", type=int, default=10_000)
    options = parser.parse_args()
    sizes = [int(size) for size in options.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="mcpgen-batches-") as scratch:
        os.environ["MCPGEN_CACHE_DIR"] = str(Path(scratch) / "cache")  # a cold cache
        groups = _groups(write_spec(Path(scratch), options.tools))[: options.groups]
    from mcpgen.models import model_generator

    model_generator.warm_up()
    measured = {size: _cpu_per_group(groups, size) for size in sizes}
    print_table(
        f"datamodel-codegen: CPU per model group by batch size ({len(groups)} groups of the {options.tools}-tool spec)",
        ["batch size", "runs", "CPU per group"],
        [[str(size), str(runs), f"{per_group * 1000:.1f} ms"] for size, (runs, per_group) in measured.items()],
    )
    best = min(per_group for _, per_group in measured.values())
    cores = os.cpu_count() or 1
    print(
        f"\nfloor: the models of {options.floor_tools} tools need at least "
        f"{seconds(best * options.floor_tools / cores)} on {cores} cores "
        f"({best * 1000:.1f} ms of CPU per group, every other stage free)"
    )


if __name__ == "__main__":
    main()
