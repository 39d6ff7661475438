"""mcpgen's cache on disk: results keyed by the content they were computed from, so a stale
entry is never found, only missed. Deleting the folder at any time is safe."""

from __future__ import annotations

import os
from pathlib import Path


def cache_directory() -> Path:
    """`$MCPGEN_CACHE_DIR`, or `$XDG_CACHE_HOME/mcpgen`, or `~/.cache/mcpgen`."""
    configured = os.environ.get("MCPGEN_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mcpgen"


def read(kind: str, key: str) -> str | None:
    try:
        return (cache_directory() / kind / key[:2] / key).read_text(encoding="utf-8")
    except OSError:
        return None


def write(kind: str, key: str, text: str) -> None:
    """Best effort: a read-only or full disk only costs the next build some time."""
    folder = cache_directory() / kind / key[:2]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / f".{key}.{os.getpid()}"
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, folder / key)
    except OSError:
        pass
