"""Lists served in pages behind opaque, tamper-evident cursors."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Sequence
from typing import Generic, TypeVar

import mcp_types as types
from mcp.shared.exceptions import MCPError

from .encoding import to_json
from .errors import INVALID_PARAMS

T = TypeVar("T")


class Pages(Generic[T]):
    """A fixed list served in pages, behind opaque, tamper-evident cursors.

    A cursor is an offset signed with a key derived from the list itself, so every replica
    of a server accepts the others' cursors, and a cursor outlives no change to the list.
    A cursor that was not issued for this list is invalid params (-32602).
    `page_size` None serves the whole list as one page.
    """

    def __init__(self, items: Sequence[T], page_size: int | None) -> None:
        self.items = list(items)
        self.size = page_size or max(len(self.items), 1)
        digest = hashlib.sha256(
            json.dumps([to_json(item) for item in self.items], sort_keys=True).encode()
        )
        self.key = digest.digest()

    def page(
        self, params: types.PaginatedRequestParams | None
    ) -> tuple[list[T], str | None]:
        """The page a list request asks for, and the cursor of the next one (if any)."""
        offset = 0
        if params is not None and params.cursor is not None:
            offset = self._offset(params.cursor)
        end = offset + self.size
        following = None
        if end < len(self.items):
            following = base64.urlsafe_b64encode(
                f"{end}.{self._sign(end)}".encode()
            ).decode("ascii")
        return self.items[offset:end], following

    def _sign(self, offset: int) -> str:
        return hmac.new(self.key, str(offset).encode(), hashlib.sha256).hexdigest()[:32]

    def _offset(self, cursor: str) -> int:
        try:
            offset, _, signature = (
                base64.urlsafe_b64decode(cursor.encode("ascii"))
                .decode("ascii")
                .partition(".")
            )
        except (ValueError, UnicodeError):
            offset, signature = "", ""
        valid = offset.isdigit() and hmac.compare_digest(
            signature, self._sign(int(offset))
        )
        if not valid or int(offset) >= len(self.items):
            raise MCPError(INVALID_PARAMS, "Invalid cursor", {"cursor": cursor})
        return int(offset)
