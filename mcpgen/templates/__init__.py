"""Stage 0, shared: what every stage may use: diagnostics, the helpers, the templates' folder.

The Jinja templates of generated packages, one per kind of output file, inside the package
(pyproject.toml's package-data ships them). This module stays light: the no-op rebuild
hashes the templates without importing Jinja.
"""

from __future__ import annotations

from pathlib import Path


def template_directory() -> Path:
    """The folder of the `*.jinja` templates: this package's own."""
    return Path(__file__).resolve().parent
