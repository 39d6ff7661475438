"""The words for protocol eras: one vocabulary for the typed client's `mode=` and for
`mcpgen import --era` (which imports this module alone: the client's imports are slow).

- `auto`: 2026-07-28, falling back to the 2025-11-25 handshake for servers without it;
- `modern`: 2026-07-28 only (a server that speaks only 2025-11-25 is refused);
- `legacy`: the 2025-11-25 handshake.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

Mode = Literal["auto", "modern", "legacy"]

# The SDK's `mode=` for each word: "modern" connects as "auto" does (which discovers the
# server's info and capabilities), then insists on 2026-07-28.
MODES: Final[Mapping[str, str]] = {"auto": "auto", "modern": "auto", "legacy": "legacy"}
