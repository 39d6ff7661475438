"""Files a spec refers to (`file:` keys), read at build time and recorded in the manifest."""

from __future__ import annotations

import base64
import binascii
from pathlib import Path


def asset_path(spec_file: Path, relative: str) -> Path:
    return spec_file.parent / relative


def read_asset(spec_file: Path, relative: str) -> bytes | None:
    try:
        return asset_path(spec_file, relative).read_bytes()
    except OSError:
        return None


def is_base64(text: str) -> bool:
    try:
        base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        return False
    return True
