"""Files written once for the user (`mcpgen init`): created if absent, never overwritten."""

from __future__ import annotations

from pathlib import Path


def create(path: Path, text: str) -> bool:
    """Write a new file; an existing one is kept as it is. Whether it was created."""
    try:
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        return False
    return True
