"""The generator's own identity: its templates, and a fingerprint of everything that shapes output."""

from __future__ import annotations

import functools
import hashlib
from importlib.metadata import version
from importlib.resources import files
from pathlib import Path


def template_directory() -> Path:
    return Path(str(files("mcpgen.templates")))


@functools.cache
def generator_fingerprint() -> str:
    """A hash of mcpgen's code and templates and the pinned model generator and formatter:
    equal fingerprints render equal files from equal specs."""
    digest = hashlib.sha256()
    for distribution in ("datamodel-code-generator", "black"):
        digest.update(f"{distribution}=={version(distribution)}\n".encode())
    package = Path(__file__).resolve().parent
    for path in sorted([*package.rglob("*.py"), *template_directory().glob("*.jinja")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
