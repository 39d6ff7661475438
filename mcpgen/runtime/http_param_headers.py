"""SEP-2243 on the server: an `Mcp-Param-*` header a tool declares (`x-mcp-header`) whose
value holds characters a header value may not carry is refused, even when it matches.

The SDK compares each declared header with its argument, after Base64 decoding, and
refuses a mismatch (400, -32020), but it reads header bytes as latin-1, as HTTP servers
do: `Mcp-Param-Region: caf\\xe9` matches the argument "café", and a raw tab matches a
tab. The spec requires a refusal: a value beyond visible ASCII and space must come
Base64-encoded (`=?base64?...?=`), so two readers of the header cannot disagree on it.

Only requests that carry such a header pay for reading the body here (to learn the tool
and the request id); RequestGuard has already read it whole.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from mcp.shared.inbound import MCP_PARAM_HEADER_PREFIX, x_mcp_header_map
from mcp_types.jsonrpc import HEADER_MISMATCH
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from .http_guard import ASGIApp, Message, Receive, Scope, Send, replaying, send_response

_PREFIX = MCP_PARAM_HEADER_PREFIX.lower().encode()
# What a client may send unencoded (the SDK's encoder sends nothing else plain).
_PLAIN = re.compile(rb"[\x20-\x7e]*")
_MODERN = frozenset(version.encode() for version in MODERN_PROTOCOL_VERSIONS)

InputSchemaOf = Callable[[str], Mapping[str, Any] | None]


def unsendable_param_headers(headers: Iterable[tuple[bytes, bytes]]) -> list[str]:
    """The names (lower case) of the `Mcp-Param-*` headers whose values hold a byte
    outside visible ASCII and space."""
    return [
        name.decode("latin-1").lower()
        for name, value in headers
        if name.lower().startswith(_PREFIX) and not _PLAIN.fullmatch(value)
    ]


def declared_headers(input_schema: Mapping[str, Any]) -> dict[str, str]:
    """The headers a tool declares: lower-case name -> name as declared."""
    names = (
        MCP_PARAM_HEADER_PREFIX + token
        for token in x_mcp_header_map(input_schema).values()
    )
    return {name.lower(): name for name in names}


class ParamHeaderCheck:
    """ASGI middleware, behind RequestGuard: refuses a 2026-07-28 `tools/call` whose
    declared `Mcp-Param-*` header holds unsendable characters (400, JSON-RPC -32020)."""

    def __init__(self, app: ASGIApp, *, input_schema: InputSchemaOf | None) -> None:
        self.app = app
        self.input_schema = input_schema

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers: list[tuple[bytes, bytes]] = scope.get("headers", [])
        suspects = (
            unsendable_param_headers(headers)
            if scope["type"] == "http"
            and self.input_schema is not None
            and _modern(headers)
            else []
        )
        if not suspects:
            await self.app(scope, receive, send)
            return
        message = await receive()
        refusal = self._refusal(message, suspects)
        if refusal is not None:
            await send_response(
                send, 400, json.dumps(refusal).encode(), b"application/json"
            )
            return
        await self.app(scope, replaying(message, receive), send)

    def _refusal(self, message: Message, suspects: list[str]) -> dict[str, Any] | None:
        try:
            request = json.loads(message.get("body", b""))
        except (ValueError, RecursionError):
            return None  # the SDK answers a body that is no JSON
        if not isinstance(request, dict) or request.get("method") != "tools/call":
            return None
        params = request.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        schema = (
            self.input_schema(name)
            if isinstance(name, str) and self.input_schema
            else None
        )
        if schema is None:
            return None  # an unknown tool declares nothing; the SDK answers it
        declared = declared_headers(schema)
        refused = [declared[suspect] for suspect in suspects if suspect in declared]
        if not refused:
            return None
        request_id = request.get("id")
        return {
            "jsonrpc": "2.0",
            "id": (
                request_id
                if isinstance(request_id, str | int)
                and not isinstance(request_id, bool)
                else None
            ),
            "error": {
                "code": HEADER_MISMATCH,
                "message": f"{refused[0]} header holds characters a header value may not carry: "
                "a value beyond visible ASCII and space is sent Base64-encoded, as =?base64?...?=",
            },
        }


def _modern(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    return any(
        name.lower() == b"mcp-protocol-version" and value.strip() in _MODERN
        for name, value in headers
    )
