"""Bad specs, and exactly what mcpgen says about them, kept as data in tests/bad_specs/.

A case is a spec `tests/bad_specs/<topic>/<case>.yaml` with its expected diagnostics beside
it in `<case>.expected`: the `file:line:col: error: message` (or `warning:`) lines, each
followed by its `  hint: ...` line when it has one, exactly as `mcpgen validate` prints them
(without the closing "N errors" count), the file named relative to tests/bad_specs. A case
that needs files beside its spec (say, for `file:`) is a folder `<topic>/<case>/` holding
`spec.yaml`, `spec.expected` and those files (which must not end in `.yaml`). Every case
goes through `mcpgen.services.pipeline.validate`, must fail or warn, and must give exactly the
expected lines.

To add a case, write its `.yaml` and run the command below: it writes the `.expected` file.
When messages change on purpose, the same command rewrites every `.expected` file from what
mcpgen says now; review the diff before committing it:

    MCPGEN_UPDATE_EXPECTED=1 pytest tests/test_bad_specs.py

Properties that are more than one exact output (no traceback, many errors sorted by
position, valid specs) stay as code in test_diagnostics.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import validate_diagnostics

BAD_SPECS = Path(__file__).resolve().parent / "bad_specs"
UPDATE = os.environ.get("MCPGEN_UPDATE_EXPECTED") == "1"
CASES = sorted(path.relative_to(BAD_SPECS).with_suffix("").as_posix() for path in BAD_SPECS.rglob("*.yaml"))


def what_mcpgen_says(case: str) -> str:
    """The rendered diagnostics of a case, one per line (a hint takes a line of its own);
    run with tests/bad_specs as the working directory, so that file names are relative."""
    return "".join(diagnostic.render() + "\n" for diagnostic in validate_diagnostics(Path(f"{case}.yaml")))


@pytest.mark.parametrize("case", CASES)
def test_a_bad_spec_gives_exactly_the_expected_diagnostics(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(BAD_SPECS)
    said = what_mcpgen_says(case)
    expected = BAD_SPECS / f"{case}.expected"
    if UPDATE and (not expected.exists() or expected.read_text(encoding="utf-8") != said):
        expected.write_text(said, encoding="utf-8")
    assert expected.exists(), f"{expected.name} is missing; write it with MCPGEN_UPDATE_EXPECTED=1"
    assert said == expected.read_text(encoding="utf-8"), "if on purpose: MCPGEN_UPDATE_EXPECTED=1 pytest tests/test_bad_specs.py"


def test_every_expected_file_has_its_spec() -> None:
    expected = sorted(path.relative_to(BAD_SPECS).with_suffix("").as_posix() for path in BAD_SPECS.rglob("*.expected"))
    assert expected == CASES


def test_no_case_went_missing() -> None:
    # 75 cases came from test_diagnostics.py, 9 were added, then 24 for the schema checks
    # (keywords, regex, values, required, cycles, models); add more, lose none.
    assert len(CASES) >= 108
