"""`mcpgen init`: the files of a new server project. Existing files are never overwritten."""

from __future__ import annotations

import json
import os
from pathlib import Path

from mcpgen import naming
from mcpgen.spec_format import spec_format_schema

SPEC = "spec.yaml"
APP = "app.py"
SCHEMA = "mcpgen-spec.schema.json"


def create(path: Path, text: str) -> bool:
    """Write a new file and say so; an existing file is kept as it is."""
    try:
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        print(f"{path}: exists, kept")
        return False
    print(f"{path}: created")
    return True


def starter_files(directory: Path) -> dict[str, str]:
    """The commented starter spec and the spec format's schema, named after the directory."""
    from mcpgen.render.python import render_template

    name = naming.snake(Path(os.path.abspath(directory)).name).replace("_", "-") or "server"
    spec = render_template("spec.yaml.jinja", name=name, package=naming.package(name))
    return {SPEC: spec, SCHEMA: json.dumps(spec_format_schema(), indent=2) + "\n"}
