"""SEP-2243 in the typed client: each call of a tool with `x-mcp-header` properties
carries their arguments as `Mcp-Param-*` headers, from the first call on.

The SDK's client sends them for the tools it has listed: it learns each tool's headers
from `tools/list`. A call before any listing goes without them, is refused (-32020),
and is sent again after a listing: a request refused, and a listing, per client. The
typed client knows the headers from the spec, so it tells the SDK's session up front,
in the form the session keeps from a listing (property path -> name). A later listing
replaces them, so the server's own schema still wins. Like the SDK, only 2026-07-28
calls over HTTP send them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp import Client

ParamHeaders = Mapping[str, Mapping[tuple[str, ...], str]]


def declare(client: Client, headers: ParamHeaders) -> None:
    """Tell the session of an entered `client` each tool's headers (tool name -> property
    path -> the `x-mcp-header` value), except for tools it has already listed."""
    # The session's own table (mcp 2.3): an SDK without it keeps its refuse-list-retry path.
    known = getattr(client.session, "_x_mcp_header_maps", None)
    if isinstance(known, dict):
        for tool, paths in headers.items():
            known.setdefault(tool, dict(paths))
