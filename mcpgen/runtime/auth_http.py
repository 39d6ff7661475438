"""A generated HTTP server as an OAuth 2.1 protected resource (MCP's authorization
page, RFC 9728, RFC 6750): it publishes its metadata, challenges a request without a
valid access token (401), and asks for more scope (403) where the server, or the
tool, resource or prompt a request calls, needs scopes the token lacks: decided
before any handler runs, so a client can step up and retry.

The package's `authorization.json` says what: `metadata` (the RFC 9728 document),
`scopes` (every request needs them) and, per tool, resource, resource template and
prompt, the scopes calling it needs besides. Deployment may move the resource and
its authorization servers (`with_overrides`). Over stdio none of this applies: its
client is the process that started the server.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.shared.uri_template import UriTemplate

from .auth_log import caller_address, refusals
from .auth_scopes import Named, named_entities, named_task, requiring, reset_required
from .http_guard import ASGIApp, Receive, Scope, Send, replaying
from .http_sessions import client_of
from .log import logger

WELL_KNOWN = "/.well-known/oauth-protected-resource"

TaskScopes = Callable[[str, AccessToken], Awaitable[Sequence[str]]]
"""`await task_scopes(task_id, access)`: the scopes kept with the task, if the
caller with `access` owns it; () otherwise."""

# The metadata is public, and browser clients fetch it from their own origin (with an
# MCP-Protocol-Version header, hence a preflight): any origin may read it.
_METADATA_CORS = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-methods", b"GET, HEAD, OPTIONS"),
    (b"access-control-max-age", b"86400"),
]


class TokenCheckUnavailable(Exception):
    """A verifier could not tell whether a token is valid (its authorization server
    did not answer): the request is answered 503, retry after `retry_after` seconds,
    rather than 401, which would tell the client its token is bad."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"token check unavailable, retry after {retry_after:g} s")
        self.retry_after = retry_after


class TokenCheckThrottled(TokenCheckUnavailable):
    """A verifier will not ask about more new tokens from this caller now (it sent
    too many unknown ones): 429 with Retry-After. Its token may be fine, so no
    challenge either."""


B64TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
"""What a bearer token may be (RFC 6750 section 2.1, `b64token`)."""


@dataclass(frozen=True)
class Authorization:
    """What a server's authorization document says (see the module's docstring)."""

    metadata: Mapping[str, Any]
    scopes: tuple[str, ...] = ()
    tools: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    resources: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    templates: Sequence[tuple[UriTemplate, tuple[str, ...]]] = ()
    prompts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def from_document(cls, document: Mapping[str, Any]) -> Authorization:
        def scopes_of(key: str) -> dict[str, tuple[str, ...]]:
            return {name: tuple(s) for name, s in document.get(key, {}).items()}

        return cls(
            metadata=dict(document["metadata"]),
            scopes=tuple(document.get("scopes", ())),
            tools=scopes_of("tools"),
            resources=scopes_of("resources"),
            templates=[
                (UriTemplate.parse(template), scopes)
                for template, scopes in scopes_of("templates").items()
            ],
            prompts=scopes_of("prompts"),
        )

    def with_overrides(
        self,
        resource: str | None = None,
        authorization_servers: Sequence[str] | None = None,
    ) -> Authorization:
        """This, served as `resource` with tokens from `authorization_servers`."""
        metadata = dict(self.metadata)
        if resource:
            metadata["resource"] = resource
        if authorization_servers:
            metadata["authorization_servers"] = list(authorization_servers)
        return replace(self, metadata=metadata)

    @property
    def resource(self) -> str:
        return str(self.metadata["resource"])

    @property
    def authorization_servers(self) -> list[str]:
        return [str(url) for url in self.metadata["authorization_servers"]]

    @property
    def metadata_url(self) -> str:
        """Where clients find the metadata (RFC 9728 section 3.1: the well-known path
        inserted before the resource's path)."""
        parts = urlsplit(self.resource)
        path = WELL_KNOWN + parts.path.rstrip("/")
        return urlunsplit((parts.scheme, parts.netloc, path, "", ""))

    def metadata_paths(self, mcp_path: str = "/mcp") -> frozenset[str]:
        """The paths this server answers the metadata at."""
        resource_path = urlsplit(self.resource).path.rstrip("/")
        return frozenset(
            {WELL_KNOWN, WELL_KNOWN + mcp_path, WELL_KNOWN + resource_path}
        )

    def needed_for(self, message: Any) -> list[str]:
        """The scopes calling what a JSON-RPC `message` (or batch) names needs, besides
        the server-wide ones: every tool, prompt, resource or template it names, by
        any method (auth_scopes.ENTITY_METHODS). A task's scopes are kept with the
        task (`AuthGuard` asks its store)."""
        if isinstance(message, list):
            return _union(self.needed_for(item) for item in message)
        if not isinstance(message, dict):
            return []
        return _union(self.scopes_of(named) for named in named_entities(message))

    def scopes_of(self, named: Named) -> tuple[str, ...]:
        """The scopes of one named entity; () for one without (or unknown)."""
        kind, name = named
        if kind == "tool":
            return self.tools.get(name, ())
        if kind == "prompt":
            return self.prompts.get(name, ())
        if name in self.resources:
            return self.resources[name]
        for template, scopes in self.templates:
            # A completion names a template by its `uriTemplate`; a read, by a URI.
            if template.template == name or template.match(name) is not None:
                return scopes
        return ()


def deployed(
    document: Mapping[str, Any],
    resource: str | None = None,
    authorization_servers: Sequence[str] | None = None,
) -> Authorization:
    """A package's authorization document as this deployment serves it: its resource
    and authorization servers moved by `resource` and `authorization_servers` (`run`'s
    flags), else by MCPGEN_RESOURCE and MCPGEN_AUTHORIZATION_SERVERS (space
    separated), since the same spec runs in several places."""
    resource = resource or os.environ.get("MCPGEN_RESOURCE")
    if not authorization_servers:
        from_environment = os.environ.get("MCPGEN_AUTHORIZATION_SERVERS", "").split()
        authorization_servers = from_environment or None
    return Authorization.from_document(document).with_overrides(
        resource, authorization_servers
    )


class AuthGuard:
    """ASGI middleware: answers the protected resource metadata, and lets through only
    requests with one valid bearer token in the Authorization header carrying the
    scopes they need. A passed request carries its caller as the SDK's bearer
    middleware leaves it (`scope["user"]`, the SDK's auth context),
    so the SDK binds a 2025-11-25 session to the caller that opened it, and tasks to
    their caller.

    Place it after a middleware that reads the whole body into one message
    (`RequestGuard`): the guard reads the JSON-RPC message to know what it calls.

    A request about a task (`tasks/get`, say) needs the scopes the request that made
    the task needed: `task_scopes(task_id, access)` answers them from the task store
    (() for a task the caller does not own or that does not exist, which the task
    methods then answer as not found). What the guard required of a request is left
    in `auth_scopes.required_scopes()` for its handlers, so a task keeps it.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        authorization: Authorization,
        verifier: TokenVerifier,
        mcp_path: str = "/mcp",
        task_scopes: TaskScopes | None = None,
    ) -> None:
        self.app = app
        self.authorization = authorization
        self.verifier = verifier
        self.task_scopes = task_scopes
        self.metadata_paths = authorization.metadata_paths(mcp_path)
        self.metadata_body = json.dumps(dict(authorization.metadata)).encode()
        # Without per-call scopes the body need not be looked into.
        self.per_call = any(
            (
                authorization.tools,
                authorization.resources,
                authorization.templates,
                authorization.prompts,
            )
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":  # no MCP transport; and no bearer check there
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] in self.metadata_paths and scope["method"] in (
            "GET",
            "HEAD",
            "OPTIONS",
        ):
            await self._metadata(scope, send)
            return
        if scope["method"] == "OPTIONS":  # CORS preflight carries no credentials
            await self.app(scope, receive, send)
            return
        # Who asks, for the log of refused tokens and the introspection verifier's
        # per-caller budget.
        asking = caller_address.set(client_of(scope))
        try:
            access = await self._access(scope, send)
        finally:
            caller_address.reset(asking)
        if access is None:
            return  # answered
        needed = list(self.authorization.scopes)
        if self.per_call:
            message = await receive()
            receive = replaying(message, receive)
            parsed = _parsed(message)
            try:
                of_tasks = await self._of_tasks(parsed, access)
            except Exception:  # noqa: BLE001
                # The task store cannot say (Redis away): refuse rather than guess.
                logger.warning("task scopes could not be read", exc_info=True)
                await self._unavailable(send, 1.0)
                return
            needed = _union([needed, self.authorization.needed_for(parsed), of_tasks])
        if not set(needed) <= set(access.scopes):
            await self._challenge(
                send, 403, "insufficient_scope", "More scope needed", needed
            )
            return
        user = AuthenticatedUser(access)
        scope["user"] = user
        reset = auth_context_var.set(user)
        required = requiring(needed)
        try:
            await self.app(scope, receive, send)
        finally:
            reset_required(required)
            auth_context_var.reset(reset)

    async def _of_tasks(self, message: Any, access: AccessToken) -> list[str]:
        """The scopes kept with the tasks a message (or batch) names."""
        if self.task_scopes is None:
            return []
        items = message if isinstance(message, list) else [message]
        task_ids = [named_task(item) for item in items if isinstance(item, dict)]
        return _union(
            [await self.task_scopes(task_id, access) for task_id in task_ids if task_id]
        )

    async def _access(self, scope: Scope, send: Send) -> AccessToken | None:
        """The access the request's bearer token grants, or None once the refusal
        (401, or 503/429 when the token cannot be checked now) is sent."""
        token = _bearer_token(scope)
        if isinstance(token, _Refusal):
            await self._challenge(send, 401, token.error, token.description)
            return None
        try:
            access = await self.verifier.verify_token(token)
        except TokenCheckThrottled as throttled:
            await self._unavailable(send, throttled.retry_after, 429)
            return None
        except TokenCheckUnavailable as unavailable:
            await self._unavailable(send, unavailable.retry_after)
            return None
        if access is None:  # the verifier logged why
            await self._challenge(send, 401, "invalid_token", "Invalid access token")
        return access

    async def _metadata(self, scope: Scope, send: Send) -> None:
        """The metadata, readable from any origin; a CORS preflight allowed the
        headers it asks for."""
        headers = list(_METADATA_CORS)
        if scope["method"] == "OPTIONS":
            asked = [
                value
                for key, value in scope.get("headers", [])
                if key.lower() == b"access-control-request-headers"
            ]
            if asked:
                headers.append((b"access-control-allow-headers", asked[0]))
            await _send(send, 204, b"", headers)
            return
        headers.append((b"content-type", b"application/json"))
        await _send(send, 200, self.metadata_body, headers)

    async def _unavailable(
        self, send: Send, retry_after: float, status: int = 503
    ) -> None:
        """503 (or 429, too many new tokens from this caller) with Retry-After (RFC
        9110) and no challenge: nothing is known to be wrong with the token, the
        client keeps it and tries again."""
        description = (
            "Too many new access tokens from this client"
            if status == 429
            else "The access token cannot be checked now"
        )
        body = json.dumps(
            {"error": "temporarily_unavailable", "error_description": description}
        ).encode()
        seconds = str(max(1, math.ceil(retry_after))).encode()
        headers = [(b"content-type", b"application/json"), (b"retry-after", seconds)]
        await _send(send, status, body, headers)

    async def _challenge(
        self,
        send: Send,
        status: int,
        error: str | None,
        description: str,
        scopes: Sequence[str] | None = None,
    ) -> None:
        """A refusal with its RFC 6750 `WWW-Authenticate` challenge: the metadata URL
        (MCP: so a client discovers the authorization server from a 401), the error,
        and the scopes to ask for."""
        scopes = self.authorization.scopes if scopes is None else scopes
        parts = [f'resource_metadata="{self.authorization.metadata_url}"']
        if error is not None:
            parts.append(f'error="{error}"')
            parts.append(f'error_description="{description}"')
        if scopes:
            parts.append(f'scope="{" ".join(scopes)}"')
        body = json.dumps(
            {"error": error or "invalid_request", "error_description": description}
        ).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"www-authenticate", ("Bearer " + ", ".join(parts)).encode()),
        ]
        await _send(send, status, body, headers)


def _parsed(message: Mapping[str, Any]) -> Any:
    """The JSON-RPC message (or batch) of a request's body; None when there is none,
    or it is no JSON (the transport answers the parse error)."""
    if message.get("type") != "http.request" or not message.get("body"):
        return None
    try:
        return json.loads(message["body"])
    except (ValueError, UnicodeDecodeError):
        return None


async def _send(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]
) -> None:
    length = (b"content-length", str(len(body)).encode())
    await send(
        {"type": "http.response.start", "status": status, "headers": [*headers, length]}
    )
    await send({"type": "http.response.body", "body": body})


@dataclass(frozen=True)
class _Refusal:
    error: str | None
    description: str


def _bearer_token(scope: Scope) -> str | _Refusal:
    """The one bearer token of a request, or why there is none: MCP (and OAuth 2.1)
    take a token only in the Authorization header, never in the query string, where
    logs and browser histories keep it."""
    query = scope.get("query_string", b"").decode("latin-1")
    if any(name == "access_token" for name, _ in parse_qsl(query)):
        return _Refusal("invalid_request", "Access token in the query string")
    values = [
        value
        for key, value in scope.get("headers", [])
        if key.lower() == b"authorization"
    ]
    if not values:
        return _Refusal(None, "Authentication required")
    if len(values) > 1:
        return _Refusal("invalid_request", "More than one Authorization header")
    scheme, _, token = values[0].decode("latin-1").strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return _Refusal("invalid_request", "Authorization is not a bearer token")
    if not B64TOKEN.fullmatch(token):
        # Checked before any verifier: no authorization server is asked about it.
        refusals.refused(
            "malformed",
            f"{len(token)} characters, not all of RFC 6750's token characters "
            "(letters, digits, - . _ ~ + /, then =)",
        )
        return _Refusal("invalid_token", "Malformed access token")
    return str(token)


def _union(lists: Iterable[Iterable[str]]) -> list[str]:
    return list(dict.fromkeys(scope for scopes in lists for scope in scopes))
