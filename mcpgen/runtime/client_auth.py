"""The typed client's HTTP transport: requests that carry `auth=` (an access token), and
`AuthorizationError`, which tells the caller why the server refused one.

The SDK's transport answers an MCP request refused with 401 or 403 with a bare
"Server returned an error response": the RFC 6750 challenge in `WWW-Authenticate` is
lost; and a 404 for a 2025-11-25 session only as "Session not found". The transport
here (`HttpTransport`, with or without `auth`) turns each into a JSON-RPC error the SDK
hands to the waiting request, tagged in its data: `authorization_error` reads a refusal
back, `lost_session` a session the server no longer has. httpx2 and the SDK's
transport are imported only when a client connects over HTTP.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from types import TracebackType

    import httpx2
    from mcp.client._transport import TransportStreams

    HttpAuth: TypeAlias = "str | httpx2.Auth"

__all__ = [
    "AuthorizationError",
    "HttpTransport",
    "authorization_error",
    "authorized_transport",
    "lost_session",
]

SESSION_HEADER = "mcp-session-id"

# The JSON-RPC error a refused request is told with; its data holds the HTTP status and
# the challenge, which is how `authorization_error` knows it (the code alone would not
# tell it from a server's own -32001).
REFUSED_CODE = -32001
_REFUSAL = "mcpgen.authorization_refused"
# The JSON-RPC error a request answered 404 for its session is told with (the code the
# SDK gives a 404 it reads itself; the data's type tells it from the server's own).
LOST_CODE = -32600
_LOST = "mcpgen.session_lost"
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


def authorized_transport(url: str, auth: HttpAuth | None) -> HttpTransport:
    """A Streamable HTTP transport to `url` whose requests carry `auth` (a bearer token
    or an `httpx2.Auth`; None for none); see `HttpTransport`."""
    return HttpTransport(url, auth)


class HttpTransport:
    """A Streamable HTTP transport to `url` (an `mcp.Client` target) whose requests
    carry `auth`, and whose refusals the typed client can tell:

    - a 401 or 403 to an MCP request, with or without `auth`, fails that request with
      the challenge (see `authorization_error`);
    - a 404 to a request that carries an `Mcp-Session-Id` fails it as a lost session
      (see `lost_session`): the 2025-11-25 transport's "Session Management" says a
      server answers 404 for a session it no longer has, and the client must open a new
      one (client_sessions.py does). The DELETE that closing the client then sends for
      that session is answered here, unsent: the server said it has no such session.

    One transport serves one `mcp.Client` once; `again()` is another to the same server
    with the same `auth`, for a new session.
    """

    def __init__(self, url: str, auth: HttpAuth | None = None) -> None:
        self.url = url
        self.auth = auth
        self._stack: AsyncExitStack | None = None
        self._lost: set[str] = set()  # sessions the server answered 404 for

    def again(self) -> HttpTransport:
        """A new transport to the same server, with the same `auth`."""
        return HttpTransport(self.url, self.auth)

    async def __aenter__(self) -> TransportStreams:
        # Imported here: a client that never connects over HTTP, and every server,
        # never loads them.
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        auth = self.auth
        headers = {"Authorization": f"Bearer {auth}"} if isinstance(auth, str) else None
        http = httpx2.AsyncClient(
            auth=None if isinstance(auth, str) else auth,
            headers=headers,
            # The SDK's own client's timeouts: a response stream may stay open long.
            timeout=httpx2.Timeout(30.0, read=300.0),
            transport=_told(
                httpx2.AsyncHTTPTransport(proxy=environment_proxy(self.url)),
                httpx2.URL(self.url),
                self._lost,
            ),
        )
        async with AsyncExitStack() as stack:
            await stack.enter_async_context(http)
            streams = await stack.enter_async_context(
                streamable_http_client(self.url, http_client=http)
            )
            self._stack = stack.pop_all()
        return streams

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        stack, self._stack = self._stack, None
        if stack is None:
            return None
        return await stack.__aexit__(exc_type, exc_value, traceback)


def environment_proxy(url: str) -> str | None:
    """The proxy the environment names for `url` (`HTTPS_PROXY`, `HTTP_PROXY`,
    `ALL_PROXY`, less `NO_PROXY`): httpx reads them only for a client without a
    transport of its own, and the SDK's own client, which this one replaces, has none.
    """
    import urllib.request

    parts = urlsplit(url)
    if urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    proxies = urllib.request.getproxies()
    return proxies.get(parts.scheme) or proxies.get("all")


def lost_session(error: BaseException) -> str | None:
    """The id of the session an SDK `MCPError` says the server no longer has (an
    `HttpTransport` made it from a 404); None for any other error."""
    data = getattr(error, "data", None)
    if getattr(error, "code", None) != LOST_CODE or not isinstance(data, Mapping):
        return None
    session = data.get("session")
    return session if data.get("type") == _LOST and isinstance(session, str) else None


def _told(
    inner: httpx2.AsyncBaseTransport, endpoint: httpx2.URL, lost: set[str]
) -> httpx2.AsyncBaseTransport:
    """`inner`, with a 401 or 403 to a POST to the MCP endpoint, and a 404 to one that
    names a session, given a JSON-RPC error body the SDK passes on to the request; the
    status and headers stay, so an `httpx2.Auth` (the SDK's OAuth provider) still reads
    a challenge first."""
    import httpx2

    def error_response(
        response: httpx2.Response, request: httpx2.Request, error: dict[str, Any]
    ) -> httpx2.Response:
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

    class Told(httpx2.AsyncBaseTransport):
        async def handle_async_request(
            self, request: httpx2.Request
        ) -> httpx2.Response:
            session = request.headers.get(SESSION_HEADER)
            if request.method == "DELETE" and session in lost:
                return httpx2.Response(204, request=request)
            response = await inner.handle_async_request(request)
            if request.method != "POST" or request.url != endpoint:
                return response
            challenge = response.headers.get("www-authenticate")
            refused = response.status_code in (401, 403) and challenge is not None
            gone = response.status_code == 404 and session is not None
            if not (refused or gone):
                return response
            try:
                await response.aread()  # the server's prose; the status says it all
            finally:
                await response.aclose()
            if gone:
                assert session is not None
                lost.add(session)
                message = f"HTTP 404: the server has no session {session}"
                data: dict[str, Any] = {"type": _LOST, "session": session}
                error = {"code": LOST_CODE, "message": message, "data": data}
                return error_response(response, request, error)
            data = {
                "type": _REFUSAL,
                "status": response.status_code,
                "www_authenticate": challenge,
            }
            message = f"HTTP {response.status_code}: access token refused"
            error = {"code": REFUSED_CODE, "message": message, "data": data}
            return error_response(response, request, error)

        async def aclose(self) -> None:
            await inner.aclose()

    return Told()
