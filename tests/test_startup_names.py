"""Package names Python imports by itself: `site` imports `sitecustomize` and `usercustomize`
at every start where they are on the path, so a generated package of that name would run
at every start. They are refused as standard-library names are (see
tests/bad_specs/names/), and `import` names a server's package so that it is never one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import CORPUS

from mcpgen.cli import main


@pytest.mark.parametrize("server_name", ["sitecustomize", "usercustomize", "json", "mcp"])
def test_import_picks_a_package_name_python_does_not_import_by_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], server_name: str
) -> None:
    capture = json.loads((CORPUS / "time.json").read_text())
    capture["serverInfo"]["name"] = server_name
    (tmp_path / "capture.json").write_text(json.dumps(capture))
    spec = tmp_path / "spec.yaml"
    assert main(["import", str(tmp_path / "capture.json"), "-o", str(spec)]) == 0
    assert f"  package: {server_name}_server\n" in spec.read_text()
    assert "error" not in capsys.readouterr().err
    assert main(["validate", str(spec)]) == 0


def test_import_keeps_a_package_name_the_user_chose(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "spec.yaml"
    assert main(["import", str(CORPUS / "time.json"), "-o", str(spec), "--package", "sitecustomize"]) == 1
    assert "the package name 'sitecustomize' is a module Python imports by itself" in capsys.readouterr().err
