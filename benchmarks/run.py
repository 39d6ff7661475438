"""The quick variants of both benchmarks, one after the other:

    python benchmarks/run.py

runs `benchmarks/generation.py --sizes 10,100 --rounds 3` and `benchmarks/serving.py --quick`.
For the full numbers run those two scripts themselves (see their --help).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
QUICK = [
    ["generation.py", "--sizes", "10,100", "--rounds", "3"],
    ["serving.py", "--quick"],
]

if __name__ == "__main__":
    for script, *arguments in QUICK:
        subprocess.run([sys.executable, str(BENCHMARKS / script), *arguments], check=True)
