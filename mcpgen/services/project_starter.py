"""What `mcpgen init` and `mcpgen stub` start a project with: the spec and the spec format's
schema a new project gets before its first build, and the Handlers subclass to fill in that a
built spec gets (`stub` prints it; `init` writes it once)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from mcpgen.names import naming

if TYPE_CHECKING:
    from mcpgen.services.pipeline import Build

STARTER_SPEC = "spec.yaml"
STARTER_APP = "app.py"
STARTER_SCHEMA = "mcpgen-spec.schema.json"


def starter_files(directory: Path) -> dict[str, str]:
    """The files `mcpgen init` starts a project with, before its package is built."""
    from mcpgen.render.starter import render_starter_spec
    from mcpgen.spec.format import spec_format_json

    name = naming.snake(Path(os.path.abspath(directory)).name).replace("_", "-") or "server"
    return {STARTER_SPEC: render_starter_spec(name), STARTER_SCHEMA: spec_format_json()}


def starter_app(result: Build) -> str:
    """The implementation stub for a built spec: a Handlers subclass with a stub per method."""
    from mcpgen.render.starter import render_app

    return render_app(result.api)
