"""Content hashes: the manifest records them, and the no-op rebuild compares them."""

from __future__ import annotations

import hashlib


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def spec_hash(spec_text: bytes) -> str:
    # Line endings are normalised, so a checkout with CRLFs records the same hash.
    return sha256(spec_text.replace(b"\r\n", b"\n"))
