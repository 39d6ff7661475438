"""Stage 4: the resolved API -> the text of every generated file, in memory.

One renderer per artifact; nothing here reads the spec or touches the disk.
This module stays light: the no-op rebuild imports it without black or Jinja.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def template_directory() -> Path:
    """The Jinja templates: `templates/` in the repository, `mcpgen/templates` when installed."""
    return Path(str(files("mcpgen.templates")))
