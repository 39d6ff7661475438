"""Forwarding tool calls to the HTTP API a generated server wraps (`server.upstream`).

`Upstream` holds the package's `upstream.json` (see `upstream_requests`) and one pooled
HTTP client, made on the first call. A call becomes one request; its answer becomes the
tool's result: a 2xx JSON body the tool's output model (or, for a tool without an
outputSchema, its text), a binary body an embedded resource (a blob), and a 4xx or 5xx
a `ToolError`, so the client gets an `isError` result carrying the status and the API's
own message. A JSON answer outside the tool's outputSchema (an API that strays from its
own document) is a `ToolError` too, naming where it strays: the server would refuse to
serve it anyway, and the caller learns that the API, not the call, was wrong. Only
idempotent methods are retried, a bounded number of times with backoff, on a connection
that failed or a 502, 503 or 504. The MCP caller's own credentials never
reach the API: the request is made from the arguments and the environment alone.
Redirects are followed only as `UpstreamSettings.redirects` (MCP_UPSTREAM_REDIRECTS)
allows, within the API's origin by default (see `upstream_redirects`); a refused one is a
`ToolError` naming it.

The base URL is `MCP_UPSTREAM_URL`, else the spec's. httpx is imported on the first
call: a package that does not forward never imports it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from http.cookiejar import CookieJar
from importlib.resources import files
from typing import TYPE_CHECKING, Any, TypeVar, cast

import anyio
from pydantic import BaseModel, RootModel, ValidationError

from .content import ToolContent, embedded_resource
from .errors import ToolError
from .log import logger
from .package_data import schema_document
from .upstream_names import (
    REDIRECTS_VARIABLE,
    URL_VARIABLE,
    scheme_name_problems,
)
from .upstream_redirects import (
    REDIRECT_STATUSES,
    RedirectPolicy,
    RedirectRefused,
    followed,
    redirect_policy,
)
from .upstream_requests import (
    ArgumentError,
    Operation,
    Request,
    build_request,
    without_secrets,
)
from .validation import ArgumentsTooCostly, Report, SchemaValidators

if TYPE_CHECKING:
    import httpx2 as httpx

UPSTREAM_FILE = "upstream.json"
_RETRIED_STATUSES = frozenset({502, 503, 504})
_TEXT_TYPES = ("text/", "application/json", "application/xml", "+json", "+xml")

ModelT = TypeVar("ModelT", bound=BaseModel)
ValueT = TypeVar("ValueT")


@cache
def upstream_document(package: str) -> Mapping[str, Any] | None:
    """The parsed upstream.json of `package`, or None when the spec has no
    `server.upstream`: `url`, `securitySchemes`, `security`, and per tool its
    `method`, `path`, `arguments`, `body`, `security` and `response`."""
    resource = files(package).joinpath(UPSTREAM_FILE)
    if not resource.is_file():
        return None
    document: dict[str, Any] = json.loads(resource.read_bytes())
    return document


@dataclass(frozen=True)
class UpstreamSettings:
    """The bounds of forwarding: seconds to connect and to wait for an answer, the
    pool's connections, the attempts an idempotent call gets and the first pause between
    them (doubled each time), the largest body read, the longest API message quoted, and
    the seconds an answer's check against the outputSchema may spend on patterns that
    backtrack (as `Limits.pattern_budget` bounds a handler's value; None: no bound).

    `redirects` is which of the API's redirects are followed (see `upstream_redirects`):
    "same-origin" (the default), "none" or "any" (other origins too, without
    credentials); None reads MCP_UPSTREAM_REDIRECTS. `max_redirects` bounds a chain.
    """

    connect_timeout: float = 10.0
    timeout: float = 60.0
    max_connections: int = 100
    attempts: int = 3
    backoff: float = 0.25
    max_response_bytes: int = 16 * 1024 * 1024
    max_message_chars: int = 1000
    pattern_budget: float | None = 0.1
    redirects: RedirectPolicy | None = None
    max_redirects: int = 5


class Upstream:
    """The API the tools forward to (see the module's docstring)."""

    def __init__(
        self,
        document: Mapping[str, Any],
        *,
        url: str | None = None,
        settings: UpstreamSettings | None = None,
        environment: Mapping[str, str] | None = None,
        output_schemas: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        """`url` overrides MCP_UPSTREAM_URL and the document's; `environment` (default
        os.environ) holds MCP_UPSTREAM_URL and the credentials; `output_schemas` (tool
        name -> outputSchema, as served) are what the API's answers are checked against
        (`from_package` gives schema.json's)."""
        self.environment = os.environ if environment is None else environment
        chosen = url or self.environment.get(URL_VARIABLE) or document.get("url")
        if not chosen:
            raise ValueError(
                f"the API's base URL is unknown: set {URL_VARIABLE} (the spec has none)"
            )
        self.url = str(chosen)
        self.settings = settings or UpstreamSettings()
        self.redirects = redirect_policy(
            self.settings.redirects or self.environment.get(REDIRECTS_VARIABLE)
        )
        self.schemes: Mapping[str, Any] = document.get("securitySchemes", {})
        for name, why in scheme_name_problems(self.schemes):
            # upstream.json may predate `mcpgen validate`'s refusing such a name.
            raise ValueError(f"the security scheme '{name}' cannot be used: {why}")
        self.security = document.get("security", [])
        self.operations = {
            name: Operation.from_document(entry)
            for name, entry in document.get("tools", {}).items()
        }
        self._client: httpx.AsyncClient | None = None
        self._output_validators = SchemaValidators(output_schemas or {})
        self._checked = frozenset(output_schemas or ())

    @classmethod
    def from_package(cls, package: str | None, **options: Any) -> Upstream:
        """The API of `package`'s upstream.json (`__package__` of a generated module)."""
        document = upstream_document(package) if package else None
        if document is None or package is None:
            raise ValueError(f"package {package!r} has no {UPSTREAM_FILE}")
        listed = schema_document(package).get("tools/list", {}).get("tools", [])
        schemas = {
            t["name"]: t["outputSchema"] for t in listed if t.get("outputSchema")
        }
        return cls(document, **{"output_schemas": schemas, **options})

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # What the generated ForwardingHandlers call, by the kind of the tool's output.

    async def call_model(
        self, tool: str, args: BaseModel, output: type[ModelT], *, wrapped: bool = False
    ) -> ModelT:
        """Call `tool`; its JSON answer as an instance of `output` (`wrapped`: the answer
        is served as `{"result": ...}`, the outputSchema not being an object)."""
        data = await self._json(tool, args)
        data = {} if data is None else data
        self._check(tool, {"result": data} if wrapped else data)
        return _validated(output, data, tool)

    async def call_root(
        self,
        tool: str,
        args: BaseModel,
        output: type[RootModel[ValueT]],
        *,
        wrapped: bool = False,
    ) -> ValueT:
        """Call `tool`; its JSON answer as the value of root model `output` (`wrapped`:
        as for `call_model`)."""
        data = await self._json(tool, args)
        self._check(tool, {"result": data} if wrapped else data)
        return _validated(output, data, tool).root

    async def call_content(self, tool: str, args: BaseModel) -> ToolContent:
        """Call `tool` (no outputSchema); its answer as text, or as an embedded
        resource for a binary answer."""
        operation, request, response, body = await self._send(tool, args)
        media_type = response.headers.get("content-type", "").split(";")[0].strip()
        if operation.binary or (body and not _textual(media_type)):
            mime_type = media_type or operation.response.get("mimeType")
            return [embedded_resource(request.shown_url, body, mime_type)]
        if not body:
            return f"{response.status_code} {response.reason_phrase}".strip()
        return body.decode("utf-8", "replace")

    def _check(self, tool: str, served: Any) -> None:
        """Refuse an answer outside the tool's outputSchema, as the client would: the
        models alone do not hold every keyword (`maxProperties`, `oneOf`'s "exactly one").
        """
        if tool not in self._checked:
            return
        budget = self.settings.pattern_budget
        try:
            report = self._output_validators[tool].violations(served, budget)
        except ArgumentsTooCostly:
            report = Report([f"$: its patterns cannot be checked within {budget:g} s"])
        if report:
            raise ToolError(
                f"The API's answer to {tool!r} does not match the tool's outputSchema: "
                + "; ".join(report.lines[:5])
            )

    # The request and its answer

    async def _json(self, tool: str, args: BaseModel) -> Any:
        _, _, response, body = await self._send(tool, args)
        if not body.strip():
            return None  # 204 and the like: what an empty answer validates as
        try:
            return json.loads(body)
        except ValueError:
            excerpt = _excerpt(body.decode("utf-8", "replace"), self.settings)
            raise ToolError(
                f"The API answered {response.status_code} with a body that is not "
                f"JSON: {excerpt}"
            ) from None

    async def _send(
        self, tool: str, args: BaseModel
    ) -> tuple[Operation, Request, httpx.Response, bytes]:
        operation = self.operations[tool]
        arguments = args.model_dump(by_alias=True, exclude_unset=True, mode="json")
        requirements = (
            self.security if operation.security is None else operation.security
        )
        try:
            request = build_request(
                operation,
                self.url,
                arguments,
                requirements,
                self.schemes,
                self.environment,
            )
        except ArgumentError as exc:
            raise ToolError(f"The call cannot be sent: {exc}.") from None
        response, body = await self._exchange(operation, request)
        if response.status_code >= 400:
            raise ToolError(_failure(response, body, self.settings))
        return operation, request, response, body

    async def _exchange(
        self, operation: Operation, request: Request
    ) -> tuple[httpx.Response, bytes]:
        import httpx2 as httpx

        attempts = self.settings.attempts if operation.idempotent else 1
        for attempt in range(1, attempts + 1):
            last = attempt == attempts
            try:
                response, body = await self._read(request)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                if last:
                    logger.warning("%s: %r", request.shown_url, exc)
                    raise ToolError(
                        f"The API at {without_secrets(self.url)} could not be reached."
                    ) from None
            except httpx.TimeoutException:
                raise ToolError(
                    f"The API did not answer within {self.settings.timeout:g} s."
                ) from None
            except httpx.HTTPError as exc:
                # Its text may quote the URL, credentials in the query included.
                logger.warning("%s: %r", request.shown_url, exc)
                raise ToolError(
                    f"The request to the API failed ({type(exc).__name__})."
                ) from None
            else:
                if last or response.status_code not in _RETRIED_STATUSES:
                    return response, body
            await anyio.sleep(self.settings.backoff * 2 ** (attempt - 1))
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _read(self, request: Request) -> tuple[httpx.Response, bytes]:
        """Send `request`, following the redirects the policy allows; the response
        and its body, refused past the size bound."""
        client = self._http_client()
        limit = self.settings.max_response_bytes
        hops = 0
        while True:
            async with client.stream(
                request.method,
                request.url,
                headers=request.headers,
                content=request.content,
                files=request.files,
            ) as response:
                location = response.headers.get("location")
                if response.status_code in REDIRECT_STATUSES and location is not None:
                    hops += 1
                    request = self._followed(request, response, location, hops)
                    continue
                chunks = bytearray()
                async for chunk in response.aiter_bytes():
                    chunks += chunk
                    if len(chunks) > limit:
                        raise ToolError(
                            f"The API's answer is larger than {limit:,} bytes; not read."
                        )
            return response, bytes(chunks)

    def _followed(
        self, request: Request, response: httpx.Response, location: str, hops: int
    ) -> Request:
        status = f"{response.status_code} {response.reason_phrase}".strip()
        try:
            return followed(
                request,
                status,
                location,
                home=self.url,
                policy=self.redirects,
                hops=hops,
                max_redirects=self.settings.max_redirects,
            )
        except RedirectRefused as refused:
            logger.warning("%s: %s", request.shown_url, refused)
            raise ToolError(str(refused)) from None

    def _http_client(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx2 as httpx

            settings = self.settings
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(
                    settings.timeout, connect=settings.connect_timeout
                ),
                limits=httpx.Limits(
                    max_connections=settings.max_connections,
                    max_keepalive_connections=settings.max_connections,
                ),
                # Redirects are followed by `_read`, as the policy says.
                follow_redirects=False,
                cookies=_KeepsNoCookies(),
                trust_env=False,
            )
        return self._client


class _KeepsNoCookies(CookieJar):
    """A jar that keeps nothing: the client is shared by every MCP caller, so a cookie
    the API sets in answer to one (a session) would be sent on everyone's later calls.
    Cookies come from cookie parameters and apiKey schemes alone."""

    def extract_cookies(self, response: Any, request: Any) -> None:
        return None


def _validated(output: type[ModelT], data: Any, tool: str) -> ModelT:
    from .validation import from_wire, pydantic_violations

    try:
        return cast(ModelT, from_wire(output, data))
    except ValidationError as exc:
        violations = "; ".join(pydantic_violations(exc)[:5])
        raise ToolError(
            f"The API's answer to {tool!r} does not match the tool's outputSchema: "
            f"{violations}"
        ) from None


def _textual(media_type: str) -> bool:
    return not media_type or any(kind in media_type for kind in _TEXT_TYPES)


def _failure(response: httpx.Response, body: bytes, settings: UpstreamSettings) -> str:
    """The isError text of a 4xx or 5xx: the status and the API's own message."""
    status = f"{response.status_code} {response.reason_phrase}".strip()
    message = _api_message(body)
    if message is None:
        message = body.decode("utf-8", "replace").strip()
    text = f"The API answered {status}"
    return f"{text}: {_excerpt(message, settings)}" if message else f"{text}."


def _api_message(body: bytes) -> str | None:
    """The message of a JSON error body: problem+json's `detail` and `title` (RFC 9457),
    or the usual `message`, `error` (a string or an object with a message), or
    `error_description` (OAuth)."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("detail"), str) or isinstance(data.get("title"), str):
        parts = [data.get("title"), data.get("detail")]
        return ": ".join(str(part) for part in parts if isinstance(part, str))
    for key in ("message", "error_description", "error"):
        value = data.get(key)
        if isinstance(value, dict):
            value = value.get("message") or value.get("detail")
        if isinstance(value, str) and value:
            return value
    return None


def _excerpt(text: str, settings: UpstreamSettings) -> str:
    limit = settings.max_message_chars
    return (
        text if len(text) <= limit else text[:limit] + f"... ({len(text):,} characters)"
    )
