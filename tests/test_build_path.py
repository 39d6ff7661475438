"""One way down for a build: `mcpgen build` reads and checks its spec once, the no-op check
and the build sharing that reading (benchmarks/build_path.py shows the whole path)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import MINIMAL, write_spec

import mcpgen.spec.source
from mcpgen.cli import main


@pytest.fixture
def yaml_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The spec files read as YAML from now on (the real loader, counted), with a cache of
    this test's own (so no build of this spec text is remembered)."""
    monkeypatch.setenv("MCPGEN_CACHE_DIR", str(tmp_path / "cache"))
    reads: list[str] = []
    load = mcpgen.spec.source.load_yaml

    def counted(text: str, file: str) -> Any:
        reads.append(file)
        return load(text, file)

    monkeypatch.setattr(mcpgen.spec.source, "load_yaml", counted)
    return reads


@pytest.mark.slow  # builds with the real generator
@pytest.mark.parametrize("strict", [False, True])
def test_a_first_build_reads_its_spec_once(tmp_path: Path, yaml_reads: list[str], strict: bool) -> None:
    # Nothing remembers where this spec's package goes: the no-op check must read the spec
    # to learn it, and the build that follows uses that reading instead of reading it again.
    (tmp_path / "project").mkdir()
    spec = write_spec(tmp_path / "project", MINIMAL)
    assert main(["build", str(spec), *(["--strict"] if strict else [])]) == 0
    assert yaml_reads == [str(spec)]
    assert (tmp_path / "project" / "demo" / "server.py").is_file()
