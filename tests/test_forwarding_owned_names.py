"""Issue 31, findings 5 and 7: the names forwarding owns (mcpgen/runtime/upstream_names.py).

5. A header parameter is the MCP caller's value: it never sets the request's framing,
   `Host` (which virtual host receives the key), or a credential; a parameter named like
   the apiKey header in other letter case is not sent beside the secret.
7. A security scheme's credential is MCP_UPSTREAM_<NAME>: a scheme named `authorization`
   or `url` must not read the runtime's own variables, nor two schemes one variable.

Refused at validate (tests/bad_specs/upstream/), renamed or left out with a note at
import, and refused again at run time against a real HTTP API (upstream.json may predate
the rules or be edited by hand).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict
from recording_upstream import RecordingApi, recording_api

from mcpgen.importer.from_openapi import import_openapi
from mcpgen.importer.openapi.document import load_document
from mcpgen.importer.openapi.to_spec import Filters, convert
from mcpgen.runtime.errors import ToolError
from mcpgen.runtime.upstream import Upstream

pytestmark = pytest.mark.anyio


class Args(BaseModel):
    model_config = ConfigDict(extra="allow")


def document(schemes: dict[str, Any], arguments: dict[str, Any], security: list[Any]) -> dict[str, Any]:
    return {
        "url": "http://unused.invalid",
        "securitySchemes": schemes,
        "security": security,
        "tools": {"echo": {"method": "GET", "path": "/echo", "arguments": arguments}},
    }


@pytest.fixture(scope="module")
def api() -> Iterator[RecordingApi]:
    with recording_api() as running:
        yield running


@pytest.fixture
def fresh(api: RecordingApi) -> RecordingApi:
    api.requests.clear()
    return api


HEADER_ARGUMENTS = {
    "host": {"in": "header", "name": "Host"},
    "key_again": {"in": "header", "name": "x-api-key"},
    "length": {"in": "header", "name": "Content-Length"},
    "chunked": {"in": "header", "name": "Transfer-Encoding"},
    "proxy": {"in": "header", "name": "Proxy-Authorization"},
    "cookies": {"in": "header", "name": "Cookie"},
    "trace": {"in": "header", "name": "X-Trace"},
}
KEY_IN_HEADER = {"api_key": {"type": "apiKey", "in": "header", "name": "X-API-Key"}}


@pytest.mark.parametrize(
    ("argument", "value", "why"),
    [
        ("host", "internal.example", "it frames the request (hop-by-hop, framing or Host)"),
        ("key_again", "caller-key", "the apiKey scheme 'api_key' sends its credential in it"),
        ("length", "0", "it frames the request"),
        ("chunked", "chunked", "it frames the request"),
        ("proxy", "Basic eDp5", "it carries credentials"),
        ("cookies", "sid=caller", "it carries credentials"),
    ],
)
async def test_a_header_parameter_forwarding_owns_is_refused_at_run_time(
    fresh: RecordingApi, argument: str, value: str, why: str
) -> None:
    upstream = Upstream(
        document(KEY_IN_HEADER, HEADER_ARGUMENTS, [{"api_key": []}]),
        url=fresh.url,
        environment={"MCP_UPSTREAM_API_KEY": "operator-key"},
    )
    try:
        with pytest.raises(ToolError) as refused:
            await upstream.call_content("echo", Args.model_validate({argument: value, "trace": "t1"}))
        name = HEADER_ARGUMENTS[argument]["name"]
        assert str(refused.value).startswith(
            f"The call cannot be sent: the header parameter '{name}' is refused: {why}"
        )
        assert fresh.requests == []  # nothing was sent
        await upstream.call_content("echo", Args.model_validate({"trace": "t1"}))
    finally:
        await upstream.aclose()
    [sent] = fresh.requests
    assert (sent.headers["x-trace"], sent.headers["x-api-key"]) == ("t1", "operator-key")
    assert sent.headers["host"] == fresh.url.removeprefix("http://")


@pytest.mark.parametrize(
    ("scheme", "variable", "environment"),
    [
        ("authorization", "MCP_UPSTREAM_AUTHORIZATION", {"MCP_UPSTREAM_AUTHORIZATION": "Bearer operator-secret"}),
        ("url", "MCP_UPSTREAM_URL", {}),
        ("Authorization", "MCP_UPSTREAM_AUTHORIZATION", {"MCP_UPSTREAM_AUTHORIZATION": "Bearer operator-secret"}),
    ],
)
async def test_a_scheme_that_reads_the_runtime_s_variables_is_refused_at_run_time(
    fresh: RecordingApi, scheme: str, variable: str, environment: dict[str, str]
) -> None:
    """Before: `authorization` (apiKey in query) sent the operator's whole Authorization
    value in the query string; `url` sent the API's URL as its key."""
    schemes = {scheme: {"type": "apiKey", "in": "query", "name": "leak"}}
    with pytest.raises(ValueError) as refused:
        upstream = Upstream(
            document(schemes, {}, [{scheme: []}]),
            environment={"MCP_UPSTREAM_URL": fresh.url, **environment},
        )
        try:
            await upstream.call_content("echo", Args())
        finally:
            await upstream.aclose()
    assert str(refused.value) == (
        f"the security scheme '{scheme}' cannot be used: its credential would be read from {variable}, "
        "the runtime's own variable"
    )
    assert fresh.requests == []


def test_two_schemes_that_share_a_variable_are_refused_at_run_time() -> None:
    schemes = {
        "apiKey": {"type": "apiKey", "in": "header", "name": "X-A"},
        "api_key": {"type": "apiKey", "in": "header", "name": "X-B"},
    }
    with pytest.raises(ValueError, match="'api_key' cannot be used: .* MCP_UPSTREAM_API_KEY, as that of scheme 'apiKey'"):
        Upstream(document(schemes, {}, []), url="http://unused.invalid")


HOSTILE = {
    "openapi": "3.0.3",
    "info": {"title": "hostile", "version": "1"},
    "servers": [{"url": "https://api.example.com"}],
    "components": {
        "securitySchemes": {
            "authorization": {"type": "apiKey", "in": "query", "name": "auth"},
            "url": {"type": "http", "scheme": "bearer"},
            "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
            "api_key": {"type": "apiKey", "in": "header", "name": "X-Other"},
            "framing": {"type": "apiKey", "in": "header", "name": "Transfer-Encoding"},
        }
    },
    "security": [{"authorization": []}, {"url": []}, {"apiKey": [], "api_key": []}],
    "paths": {
        "/things": {
            "get": {
                "operationId": "getThings",
                "parameters": [
                    {"name": "Host", "in": "header", "schema": {"type": "string"}},
                    {"name": "x-api-KEY", "in": "header", "schema": {"type": "string"}},
                    {"name": "Content-Length", "in": "header", "schema": {"type": "integer"}},
                    {"name": "Proxy-Authorization", "in": "header", "schema": {"type": "string"}},
                    {"name": "auth", "in": "query", "schema": {"type": "string"}},
                    {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
                ],
                "responses": {"204": {"description": "done"}},
            }
        }
    },
}


def test_the_import_renames_such_schemes_and_leaves_such_parameters_out_with_notes(tmp_path: Path) -> None:
    (tmp_path / "api.json").write_text(json.dumps(HOSTILE))
    converted = convert(load_document(str(tmp_path / "api.json")), Filters())
    upstream = converted.data["server"]["upstream"]
    assert set(upstream["securitySchemes"]) == {"authorization_scheme", "url_scheme", "apiKey", "api_key_scheme"}
    assert upstream["security"] == [{"authorization_scheme": []}, {"url_scheme": []}, {"apiKey": [], "api_key_scheme": []}]
    tool = converted.data["tools"]["getThings"]
    assert tool["upstream"]["arguments"] == {"X-Trace": {"in": "header"}}
    assert converted.notes == [
        "security scheme 'authorization' is 'authorization_scheme' (credential in MCP_UPSTREAM_AUTHORIZATION_SCHEME): "
        "its credential would be read from MCP_UPSTREAM_AUTHORIZATION, the runtime's own variable",
        "security scheme 'url' is 'url_scheme' (credential in MCP_UPSTREAM_URL_SCHEME): "
        "its credential would be read from MCP_UPSTREAM_URL, the runtime's own variable",
        "security scheme 'api_key' is 'api_key_scheme' (credential in MCP_UPSTREAM_API_KEY_SCHEME): "
        "its credential would be read from MCP_UPSTREAM_API_KEY, as that of scheme 'apiKey' is",
        "security scheme 'framing' sends its key in the header 'Transfer-Encoding' (forwarding sets that header "
        "itself); left out",
        "GET /things: the header parameter 'Host' is left out: it frames the request (hop-by-hop, framing or Host), "
        "which only the HTTP client sets",
        "GET /things: the header parameter 'x-api-KEY' is left out: the apiKey scheme 'apiKey' sends its credential in it",
        "GET /things: the header parameter 'Content-Length' is left out: it frames the request (hop-by-hop, framing "
        "or Host), which only the HTTP client sets",
        "GET /things: the header parameter 'Proxy-Authorization' is left out: it carries credentials, which come "
        "from the environment alone",
        "GET /things: the query parameter 'auth' is left out: the apiKey scheme 'authorization_scheme' sends its "
        "credential in it",
    ]
    imported = import_openapi(str(tmp_path / "api.json"), str(tmp_path / "spec.yaml"), Filters())
    assert imported.valid, [d.render() for d in imported.diagnostics]
