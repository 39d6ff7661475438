"""The typed client's `auth=`: a Streamable HTTP transport whose requests carry an access
token, and `AuthorizationError`, which tells the caller why the server refused one.

The SDK's transport answers an MCP request refused with 401 or 403 with a bare
"Server returned an error response": the RFC 6750 challenge in `WWW-Authenticate` is
lost. The transport here turns such a refusal into the JSON-RPC error the SDK hands to
the waiting request, the challenge in its data, and `authorization_error` reads it back.
httpx2 and the SDK's transport are imported only when a client passes `auth`.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    import httpx2
    from mcp.client._transport import TransportStreams

    HttpAuth: TypeAlias = "str | httpx2.Auth"

__all__ = ["AuthorizationError", "authorization_error", "authorized_transport"]

# The JSON-RPC error a refused request is told with; its data holds the HTTP status and
# the challenge, which is how `authorization_error` knows it (the code alone would not
# tell it from a server's own -32001).
REFUSED_CODE = -32001
_REFUSAL = "mcpgen.authorization_refused"
_AUTH_PARAM = re.compile(r'([A-Za-z_]+)=(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))')


class AuthorizationError(Exception):
    """The server refused the request's access token (RFC 6750).

    `status` is 401 when the request has no valid token (`error` "invalid_token", or
    None when it carried none) and 403 when the token lacks scope (`error`
    "insufficient_scope"); `scope` lists the scopes the server's challenge names (what
    to ask the authorization server for), `resource_metadata` is the URL of its
    protected resource metadata (RFC 9728) and `description` its error_description.
    """

    def __init__(
        self,
        status: int,
        error: str | None,
        description: str | None,
        scope: tuple[str, ...],
        resource_metadata: str | None,
    ) -> None:
        needs = f" (scope: {' '.join(scope)})" if scope else ""
        reason = description or error or "access token refused"
        super().__init__(f"HTTP {status}: {reason}{needs}")
        self.status = status
        self.error = error
        self.description = description
        self.scope = scope
        self.resource_metadata = resource_metadata

    @classmethod
    def from_challenge(cls, status: int, challenge: str) -> AuthorizationError:
        """The refusal a `WWW-Authenticate: Bearer ...` challenge states."""
        params = {
            name.lower(): quoted.replace('\\"', '"') if quoted else bare
            for name, quoted, bare in _AUTH_PARAM.findall(challenge)
        }
        return cls(
            status,
            params.get("error"),
            params.get("error_description"),
            tuple(params.get("scope", "").split()),
            params.get("resource_metadata"),
        )


def authorization_error(error: BaseException) -> AuthorizationError | None:
    """The AuthorizationError an SDK `MCPError` stands for, if the transport made it
    from a refusal; None for any other error."""
    data = getattr(error, "data", None)
    if getattr(error, "code", None) != REFUSED_CODE or not isinstance(data, Mapping):
        return None
    if data.get("type") != _REFUSAL or not isinstance(data.get("status"), int):
        return None
    return AuthorizationError.from_challenge(
        data["status"], str(data.get("www_authenticate", ""))
    )


@asynccontextmanager
async def authorized_transport(
    url: str, auth: HttpAuth
) -> AsyncIterator[TransportStreams]:
    """A Streamable HTTP transport to `url` whose requests carry `auth`: a bearer
    token (str) or an `httpx2.Auth`; an MCP request refused with 401 or 403 fails with
    the challenge (see `authorization_error`)."""
    # Imported here: a client without auth, and every server, never loads them.
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {auth}"} if isinstance(auth, str) else None
    http = httpx2.AsyncClient(
        auth=None if isinstance(auth, str) else auth,
        headers=headers,
        # The SDK's own client's timeouts: a response stream may stay open long.
        timeout=httpx2.Timeout(30.0, read=300.0),
        transport=_refusals_told(httpx2.AsyncHTTPTransport(), httpx2.URL(url)),
    )
    async with http, streamable_http_client(url, http_client=http) as streams:
        yield streams


def _refusals_told(
    inner: httpx2.AsyncBaseTransport, endpoint: httpx2.URL
) -> httpx2.AsyncBaseTransport:
    """`inner`, with a 401 or 403 to a POST to the MCP endpoint given a JSON-RPC error
    body the SDK passes on to the request; the status and headers stay, so an
    `httpx2.Auth` (the SDK's OAuth provider) still reads the challenge first."""
    import httpx2

    class RefusalsTold(httpx2.AsyncBaseTransport):
        async def handle_async_request(
            self, request: httpx2.Request
        ) -> httpx2.Response:
            response = await inner.handle_async_request(request)
            challenge = response.headers.get("www-authenticate")
            if (
                response.status_code not in (401, 403)
                or challenge is None
                or request.method != "POST"
                or request.url != endpoint
            ):
                return response
            try:
                await response.aread()  # the server's prose; the challenge says it all
            finally:
                await response.aclose()
            data = {
                "type": _REFUSAL,
                "status": response.status_code,
                "www_authenticate": challenge,
            }
            message = f"HTTP {response.status_code}: access token refused"
            error = {"code": REFUSED_CODE, "message": message, "data": data}
            kept = [
                (name, value)
                for name, value in response.headers.multi_items()
                if name.lower()
                not in ("content-type", "content-length", "content-encoding")
            ]
            return httpx2.Response(
                response.status_code,
                headers=kept,
                json={"jsonrpc": "2.0", "id": None, "error": error},
                request=request,
            )

        async def aclose(self) -> None:
            await inner.aclose()

    return RefusalsTold()
