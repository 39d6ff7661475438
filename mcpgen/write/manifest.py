"""The manifest (`.mcpgen.json`): which files a build wrote, from which spec, by which generator.

It is what lets a rebuild tell the user's files from generated ones, spot hand edits,
and finish without rendering when nothing changed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcpgen import FORMAT_VERSION, RUNTIME_REQUIREMENTS, __version__
from mcpgen.spec.assets import read_asset
from mcpgen.utils.hashing import sha256, spec_hash
from mcpgen.write.fingerprint import generator_fingerprint

MANIFEST = ".mcpgen.json"


def manifest_text(
    spec_name: str, spec_hash: str, inputs: dict[str, str], files: dict[str, bytes], api: object = None
) -> bytes:
    """`api`: what the next rebuild compares its own API with (the Handlers methods, as
    `mcpgen.bind` writes them), kept under "api" when given."""
    document: dict[str, object] = {
        "generator": "mcpgen",
        "version": __version__,
        "format": FORMAT_VERSION,
        "requires": list(RUNTIME_REQUIREMENTS),
        "fingerprint": generator_fingerprint(),
        "spec": {"name": spec_name, "sha256": spec_hash, "inputs": inputs},
        "files": {name: sha256(data) for name, data in sorted(files.items())},
    }
    if api is not None:
        document["api"] = _API_PLACE
    text = json.dumps(document, indent=2)
    if api is not None:
        # On one line: a diff of the manifest shows files, not the API's every parameter.
        compact = json.dumps(api, separators=(",", ":"), sort_keys=True)
        text = text.replace(json.dumps(_API_PLACE), compact, 1)
    return (text + "\n").encode()


_API_PLACE = "\0api\0"  # no other value of the document can be this string


def _manifest_document(directory: Path) -> dict[str, Any]:
    try:
        document = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return document if isinstance(document, dict) else {}


def read_manifest(directory: Path) -> dict[str, str]:
    """The generated files recorded by the last build, by name -> hash ({} if none)."""
    files = _manifest_document(directory).get("files")
    return {str(name): str(digest) for name, digest in files.items()} if isinstance(files, dict) else {}


def recorded_api(directory: Path) -> object:
    """What the last build kept of its API ("api"), None when its manifest has none (no
    build yet, or one older than the key)."""
    return _manifest_document(directory).get("api")


def recorded_spec_hash(directory: Path) -> str | None:
    """The hash of the spec text the package was last built from (None if there is none)."""
    spec = _manifest_document(directory).get("spec")
    recorded = spec.get("sha256") if isinstance(spec, dict) else None
    return recorded if isinstance(recorded, str) else None


def is_fresh(directory: Path, spec_path: Path, spec_text: bytes) -> bool:
    """Whether the package is exactly what this generator made from this spec and the files it
    names, untouched since: then a rebuild would change nothing, and need not render at all."""
    document = _manifest_document(directory)
    spec = document.get("spec")
    if (
        document.get("fingerprint") != generator_fingerprint()
        or not isinstance(spec, dict)
        or spec.get("sha256") != spec_hash(spec_text)
    ):
        return False
    inputs = spec.get("inputs")
    if not isinstance(inputs, dict):
        return False
    for relative, digest in inputs.items():
        current = read_asset(spec_path, str(relative))
        if current is None or sha256(current) != digest:
            return False
    recorded = read_manifest(directory)
    return bool(recorded) and all(
        (current := _read(directory / name)) is not None and sha256(current) == digest
        for name, digest in recorded.items()
    )


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
