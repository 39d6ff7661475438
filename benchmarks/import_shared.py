"""Shared-definition extraction (`mcpgen import`) on chains of definitions: near-linear.

    python benchmarks/import_shared.py [--sizes 1000,2000,4000,8000,10000] [--reference-up-to 2000]

Two tools hold the same chain of N `$defs` entries, each pointing at the next. "differs at
the end": the last entry differs between the tools, so nothing can be shared, and each
refusal spreads back along the whole chain (the plain fixpoint took one round over all
N per definition: 21 s at 4,000, 147 s at 8,000). "same": the chains are equal, all N are
shared and each schema is bundled back to be compared. The table gives the best of
`--rounds` for each, and the ratio to the size before it (2.00x for a doubling is linear).
The plain algorithm (kept in tests/test_shared_definitions.py as the reference) is timed
too, up to `--reference-up-to` definitions.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from collections.abc import Callable
from typing import Any

from common import ROOT, print_table, ratio, seconds

sys.path.insert(0, str(ROOT / "tests"))

from test_shared_definitions import chained_tools, reference_extract  # noqa: E402

from mcpgen.importer.shared import extract_shared_definitions  # noqa: E402

Tools = dict[str, dict[str, Any]]


def _shapes(count: int) -> dict[str, Tools]:
    same = chained_tools(count)
    same["b"]["inputSchema"]["$defs"][f"D{count - 1}"] = {"type": "string"}
    return {"differs at the end": chained_tools(count), "same": same}


def _best(extract: Callable[[Tools], Any], tools: Tools, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        given = copy.deepcopy(tools)
        started = time.perf_counter()
        extract(given)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,2000,4000,8000,10000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reference-up-to", type=int, default=2000)
    options = parser.parse_args()
    sizes = [int(size) for size in options.sizes.split(",")]
    rows = []
    previous: dict[str, float] = {}
    for count in sizes:
        row = [f"{count:,}"]
        for shape, tools in _shapes(count).items():
            took = _best(extract_shared_definitions, tools, options.rounds)
            row += [seconds(took), ratio(took, previous.get(shape))]
            previous[shape] = took
            if shape == "differs at the end":
                plain = _best(reference_extract, tools, 1) if count <= options.reference_up_to else None
                row.append(seconds(plain))
        rows.append(row)
    print_table(
        "shared definitions: chains of N $defs in two tools (best of rounds; ratio to the size before)",
        ["N", "differs at the end", "ratio", "plain fixpoint", "same", "ratio"],
        rows,
    )


if __name__ == "__main__":
    main()
