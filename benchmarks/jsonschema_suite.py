"""The JSON-Schema-Test-Suite (draft 2020-12) through generated servers, as a table.

    python benchmarks/jsonschema_suite.py [--details] [--blame] [--baseline] [--log] [FILE ...]

Per suite file: the tests run, how many the server's verdict agrees on (accepted exactly
when the test's data is valid), how many of those also round-trip through the typed input
model, the tests skipped (see SKIPPED) and the tests lost to a spec that does not build;
then a total line. `--details` lists every disagreement, `--blame` builds each case of a
file that does not build alone, `--baseline` prints the numbers for the test's BASELINE.
The harness is `tests/test_jsonschema_suite.py` (`pytest -m slow tests/test_jsonschema_suite.py`
asserts the baseline); this script runs its `main()`.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import test_jsonschema_suite  # noqa: E402  (tests/ is not a package)

if __name__ == "__main__":
    sys.exit(test_jsonschema_suite.main())
