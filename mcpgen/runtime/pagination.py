"""Lists served in pages behind opaque, tamper-evident cursors."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any, Generic, TypeVar

import mcp_types as types
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

from .errors import INVALID_PARAMS
from .keys import cursor_key

T = TypeVar("T")

_LIST_JSON = TypeAdapter(list[Any])  # JSON bytes at C speed, for dicts and models alike

MAX_CURSOR_CHARS = 100
"""The longest cursor looked at; the cursors issued are about 50 characters."""

_OFFSET = re.compile(r"[0-9]{1,9}")


class Pages(Generic[T]):
    """A fixed list served in pages, behind opaque, tamper-evident cursors.

    A cursor is an offset signed (HMAC-SHA-256) with a key derived from the
    deployment's secret and the list's digest (`keys.cursor_key`): it cannot be forged
    without the secret, every replica that shares the secret accepts it, and it
    outlives no change to the list. Anything else, a cursor issued for another list,
    malformed or too long, is invalid params (-32602, "Invalid cursor").
    `page_size` None serves the whole list as one page.
    """

    def __init__(self, items: Sequence[T], page_size: int | None) -> None:
        self.items = list(items)
        self.size = page_size or max(len(self.items), 1)

    @cached_property
    def key(self) -> bytes:
        """The key cursors are signed with. Made when first needed: it hashes the whole
        list (as JSON, in its fixed order), and a list served in one page may never need
        it."""
        digest = hashlib.sha256(_LIST_JSON.dump_json(self.items, by_alias=True))
        return cursor_key(digest.digest())

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

    def _offset(self, cursor: Any) -> int:
        offset = _verified(cursor, self._sign)
        if offset is None or not 0 < offset < len(self.items):
            data = (
                {"cursor": cursor}
                if isinstance(cursor, str) and len(cursor) <= MAX_CURSOR_CHARS
                else None
            )
            raise MCPError(INVALID_PARAMS, "Invalid cursor", data)
        return offset


def _verified(cursor: Any, sign: Callable[[int], str]) -> int | None:
    """The offset a cursor carries, if it is well formed and its signature holds."""
    if not isinstance(cursor, str) or len(cursor) > MAX_CURSOR_CHARS:
        return None
    try:
        decoded = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("ascii")
    except (ValueError, UnicodeError, binascii.Error):
        return None
    offset, _, signature = decoded.partition(".")
    if not _OFFSET.fullmatch(offset):
        return None
    value = int(offset)
    return value if hmac.compare_digest(signature, sign(value)) else None
