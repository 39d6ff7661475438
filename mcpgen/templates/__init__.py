"""The Jinja templates of generated packages, one per kind of output file; they ship inside
the package (pyproject.toml's package-data). This module stays light: the no-op rebuild
hashes the templates without importing Jinja."""

from __future__ import annotations

from pathlib import Path


def template_directory() -> Path:
    """The folder of the `*.jinja` templates: this package's own."""
    return Path(__file__).resolve().parent
