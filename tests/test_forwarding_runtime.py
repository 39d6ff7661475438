"""The forwarding runtime (`runtime/upstream.py`) against a real HTTP API that records what
it gets: the exact wire shape of each request (path encoding, query styles, headers,
cookies, bodies, credentials) and how answers become results or `ToolError`s. The served
end to end (a generated package, `python -m PACKAGE`, MCP clients) is test_forwarding.py.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

import mcp_types as types
import pytest
from helpers import free_port
from pydantic import BaseModel, ConfigDict, RootModel
from recording_upstream import Answer, Recorded, RecordingApi, recording_api

from mcpgen.runtime.errors import ToolError
from mcpgen.runtime.upstream import Upstream, UpstreamSettings
from mcpgen.runtime.upstream_names import scheme_variable

pytestmark = pytest.mark.anyio

SCHEMES = {
    "api_key": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
    "query_key": {"type": "apiKey", "in": "query", "name": "key"},
    "cookie_key": {"type": "apiKey", "in": "cookie", "name": "sid"},
    "basic": {"type": "http", "scheme": "basic"},
    "bearerAuth": {"type": "http", "scheme": "bearer"},
}


def arg(location: str, name: str | None = None, **style: Any) -> dict[str, Any]:
    return {"in": location, **({"name": name} if name else {}), **style}


TOOLS: dict[str, Any] = {
    "get_pet": {
        "method": "GET",
        "path": "/pets/{petId}/tags/{tag}",
        "arguments": {
            "petId": arg("path", "petId"),
            "tag": arg("path", "tag"),
            "verbose": arg("query", "verbose"),
            "ids": arg("query", "id"),
            "colors": arg("query", "colors", explode=False),
            "sizes": arg("query", "sizes", style="pipeDelimited", explode=False),
            "filter": arg("query", "filter", style="deepObject", explode=True),
            "trace": arg("header", "X-Trace"),
            "session": arg("cookie", "session"),
            "theme": arg("cookie", "theme"),
        },
        "response": {"contentType": "application/json"},
    },
    "add_pet": {
        "method": "POST",
        "path": "/pets",
        "arguments": {
            "name": arg("body", "name"),
            "tags": arg("body", "tags"),
            "owner": arg("body", "owner"),
        },
        "body": "application/json",
        "security": [{"bearerAuth": []}],
        "response": {"contentType": "application/json"},
    },
    "replace_pet": {
        "method": "PUT",
        "path": "/pets",
        "arguments": {"pet": arg("body")},
        "body": "application/json",
        "security": [],
        "response": {"contentType": "application/json"},
    },
    "form_pet": {
        "method": "POST",
        "path": "/form",
        "arguments": {
            "name": arg("body", "name"),
            "tags": arg("body", "tags"),
            "meta": arg("body", "meta"),
        },
        "body": "application/x-www-form-urlencoded",
        "response": {},
    },
    "upload": {
        "method": "POST",
        "path": "/upload",
        "arguments": {
            "note": arg("body", "note"),
            "meta": arg("body", "meta"),
            "picture": arg("body", "picture", file="image/png"),
            "pages": arg("body", "page", file="application/octet-stream"),
        },
        "body": "multipart/form-data",
        "response": {},
    },
    "photo": {
        "method": "GET",
        "path": "/photo",
        "arguments": {},
        "response": {"binary": True, "mimeType": "image/png"},
    },
    "count": {
        "method": "GET",
        "path": "/count",
        "arguments": {},
        "response": {"contentType": "application/json"},
    },
    "delete_pet": {
        "method": "DELETE",
        "path": "/pets/{id}",
        "arguments": {"id": arg("path", "id")},
        "response": {},
    },
}
DOCUMENT = {
    "url": "http://unused.invalid/v1",
    "securitySchemes": SCHEMES,
    "security": [{"api_key": []}, {"query_key": [], "cookie_key": []}],
    "tools": TOOLS,
}


class Args(BaseModel):
    model_config = ConfigDict(extra="allow")


class Pet(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: int
    name: str


class Count(RootModel[int]):
    pass


class PetRoot(RootModel[dict[str, Any]]):
    pass


def args(**values: Any) -> Args:
    return Args.model_validate(values)


@pytest.fixture(scope="module")
def api() -> Iterator[RecordingApi]:
    with recording_api() as running:
        yield running


@pytest.fixture
def fresh(api: RecordingApi) -> Iterator[RecordingApi]:
    api.requests.clear()
    yield api
    api.answer = lambda request: Answer()


def upstream(api: RecordingApi, environment: dict[str, str] | None = None, **settings: Any) -> Upstream:
    environment = {"MCP_UPSTREAM_URL": api.url + "/v1", **(environment or {})}
    return Upstream(
        DOCUMENT,
        settings=UpstreamSettings(backoff=0.01, **settings),
        environment=environment,
    )


def pet(request: Recorded) -> Answer:
    return Answer(body=json.dumps({"id": 7, "name": "Rex", "extra": [1]}).encode())


async def test_parameters_reach_the_api_as_openapi_serializes_them(
    fresh: RecordingApi,
) -> None:
    fresh.answer = pet
    forwarding = upstream(fresh, {"MCP_UPSTREAM_API_KEY": "k-1"})
    value = await forwarding.call_model(
        "get_pet",
        args(
            petId="a b/c?d",
            tag="ü%",
            verbose=True,
            ids=[1, 2],
            colors=["blue", "black"],
            sizes=["S", "M"],
            filter={"kind": "dog", "age": 3},
            trace="t-1",
            session="s 1",
            theme=None,
        ),
        Pet,
    )
    await forwarding.aclose()
    assert value == Pet.model_validate({"id": 7, "name": "Rex", "extra": [1]})
    request = fresh.last
    assert (request.method, request.path) == (
        "GET",
        "/v1/pets/a%20b%2Fc%3Fd/tags/%C3%BC%25",
    )
    assert request.query == (
        "verbose=true&id=1&id=2&colors=blue,black&sizes=S|M&filter%5Bkind%5D=dog&filter%5Bage%5D=3"
    )
    assert request.headers["x-trace"] == "t-1"
    assert request.headers["x-api-key"] == "k-1"  # the first requirement the environment meets
    assert request.headers["cookie"] == "session=s%201"  # a null leaves the cookie out
    assert "authorization" not in request.headers
    assert request.headers["accept"] == "application/json, */*;q=0.1"
    assert request.body == b""


async def test_requirements_are_tried_in_order_and_all_of_one_are_sent(
    fresh: RecordingApi,
) -> None:
    fresh.answer = pet
    environment = {"MCP_UPSTREAM_QUERY_KEY": "q&1", "MCP_UPSTREAM_COOKIE_KEY": "c1"}
    forwarding = upstream(fresh, environment)
    await forwarding.call_model("get_pet", args(petId=1, tag="x", session="s"), Pet)
    await forwarding.aclose()
    assert fresh.last.query == "key=q%261"
    assert fresh.last.headers["cookie"] == "session=s; sid=c1"
    assert "x-api-key" not in fresh.last.headers


async def test_json_body_and_bearer_from_the_environment(fresh: RecordingApi) -> None:
    fresh.answer = pet
    forwarding = upstream(fresh, {"MCP_UPSTREAM_BEARER_AUTH": "tok", "MCP_UPSTREAM_API_KEY": "unused"})
    await forwarding.call_model("add_pet", args(name="Rex", tags=["a"], owner=None), Pet)
    # The whole body as one argument; an operation without security sends no credential.
    await forwarding.call_model("replace_pet", args(pet={"id": 7, "name": "Rex"}), Pet)
    await forwarding.aclose()
    added, replaced = fresh.requests
    assert (added.method, added.headers["content-type"]) == ("POST", "application/json")
    assert json.loads(added.body) == {"name": "Rex", "tags": ["a"], "owner": None}
    assert added.headers["authorization"] == "Bearer tok"
    assert "x-api-key" not in added.headers
    assert json.loads(replaced.body) == {"id": 7, "name": "Rex"}
    assert "authorization" not in replaced.headers and "x-api-key" not in replaced.headers


async def test_an_object_body_is_sent_when_none_of_its_properties_is_given(fresh: RecordingApi) -> None:
    fresh.answer = pet
    forwarding = upstream(fresh, {"MCP_UPSTREAM_BEARER_AUTH": "tok"})
    await forwarding.call_model("add_pet", args(), Pet)
    await forwarding.aclose()
    assert (fresh.last.headers["content-type"], fresh.last.body) == ("application/json", b"{}")


async def test_a_whole_authorization_header_from_the_environment(
    fresh: RecordingApi,
) -> None:
    fresh.answer = pet
    forwarding = upstream(fresh, {"MCP_UPSTREAM_AUTHORIZATION": "Token abc"})
    await forwarding.call_model("add_pet", args(name="Rex"), Pet)
    await forwarding.aclose()
    assert fresh.last.headers["authorization"] == "Token abc"


async def test_basic_credentials(fresh: RecordingApi) -> None:
    document = {**DOCUMENT, "security": [{"basic": []}]}
    forwarding = Upstream(document, url=fresh.url, environment={"MCP_UPSTREAM_BASIC": "ann:pa:ss"})
    fresh.answer = pet
    await forwarding.call_model("get_pet", args(petId=1, tag="x"), Pet)
    await forwarding.aclose()
    assert fresh.last.headers["authorization"] == "Basic " + base64.b64encode(b"ann:pa:ss").decode()


async def test_form_and_multipart_bodies(fresh: RecordingApi) -> None:
    forwarding = upstream(fresh)
    await forwarding.call_content("form_pet", args(name="a&b c", tags=["x", "y"], meta={"k": 1}))
    await forwarding.call_content("upload", args(note="hello", meta={"k": [1]}))
    await forwarding.aclose()
    form, upload = fresh.requests
    assert form.headers["content-type"] == "application/x-www-form-urlencoded"
    assert form.body == b"name=a%26b%20c&tags=x&tags=y&meta=%7B%22k%22%3A1%7D"
    assert unquote(form.body.decode().split("meta=")[1]) == '{"k":1}'
    assert upload.headers["content-type"].startswith("multipart/form-data; boundary=")
    assert b'name="note"\r\n\r\nhello' in upload.body
    assert b'name="meta"\r\nContent-Type: application/json\r\n\r\n{"k":[1]}' in upload.body


async def test_a_file_argument_is_sent_as_a_file_part_decoded_from_base64(fresh: RecordingApi) -> None:
    forwarding = upstream(fresh)
    png = b"\x89PNG\r\n\x1a\n\x00\xff"
    pages = [base64.b64encode(page).decode() for page in (b"one", b"\x00two")]
    await forwarding.call_content("upload", args(note="hi", picture=base64.b64encode(png).decode(), pages=pages))
    [upload] = fresh.requests
    # A file part has a file name (the property's, with its type's extension: APIs tell formats by it).
    assert b'name="picture"; filename="picture.png"\r\nContent-Type: image/png\r\n\r\n' + png in upload.body
    assert upload.body.count(b'name="page"; filename="page.bin"') == 2  # an array: one part per file
    assert b"\r\n\r\none\r\n" in upload.body and b"\r\n\r\n\x00two\r\n" in upload.body
    assert b'name="note"\r\n\r\nhi' in upload.body  # a field stays a part without a file name
    with pytest.raises(ToolError, match="The call cannot be sent: the file 'picture' is not base64."):
        await forwarding.call_content("upload", args(picture="not base64!"))
    assert len(fresh.requests) == 1  # nothing was sent
    await forwarding.aclose()


async def test_answers_become_results(fresh: RecordingApi) -> None:
    forwarding = upstream(fresh)
    fresh.answer = lambda request: Answer(body=b"42")
    assert await forwarding.call_root("count", args(), Count) == 42
    png = b"\x89PNG\r\n\x1a\nbinary"
    fresh.answer = lambda request: Answer(body=png, content_type="image/png")
    content = await forwarding.call_content("photo", args())
    assert isinstance(content, list)
    [blob] = content
    assert isinstance(blob, types.EmbeddedResource)
    assert isinstance(blob.resource, types.BlobResourceContents)
    assert base64.b64decode(blob.resource.blob) == png
    assert (blob.resource.mime_type, blob.resource.uri) == (
        "image/png",
        fresh.url + "/v1/photo",
    )
    fresh.answer = lambda request: Answer(status=204, body=b"")
    assert await forwarding.call_content("delete_pet", args(id=3)) == "204 No Content"
    fresh.answer = lambda request: Answer(body=b"plain words", content_type="text/plain")
    assert await forwarding.call_content("delete_pet", args(id=3)) == "plain words"
    fresh.answer = lambda request: Answer(body=b'{"id": "not a number"}')
    with pytest.raises(ToolError, match=r"does not match the tool's outputSchema: \$\.id: "):
        await forwarding.call_model("get_pet", args(petId=1, tag="x"), Pet)
    await forwarding.aclose()


PET_SCHEMA = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "labels": {"type": "object", "maxProperties": 2},
        "size": {"oneOf": [{"type": "number"}, {"type": "integer", "minimum": 0}]},
    },
}


async def test_an_answer_outside_the_output_schema_is_a_tool_error_even_where_the_model_is_silent(
    fresh: RecordingApi,
) -> None:
    """What the models do not hold (`maxProperties`, `oneOf`'s "exactly one") the check
    against the served outputSchema does, as the client's own check would: an API that
    strays from its document gets an isError result naming where, not a -32603."""
    forwarding = Upstream(
        DOCUMENT,
        environment={"MCP_UPSTREAM_URL": fresh.url + "/v1"},
        output_schemas={
            "get_pet": PET_SCHEMA,
            "count": {"type": "object", "properties": {"result": {"type": "integer", "maximum": 10}}},
        },
    )
    fresh.answer = lambda request: Answer(body=b'{"id": 1, "name": "Rex", "labels": {"a": 1, "b": 2}, "size": 1.5}')
    assert (await forwarding.call_model("get_pet", args(petId=1, tag="x"), Pet)).name == "Rex"
    # A root model of an object schema (a `$ref`) is served as it is: checked unwrapped.
    assert (await forwarding.call_root("get_pet", args(petId=1, tag="x"), PetRoot))["name"] == "Rex"
    fresh.answer = lambda request: Answer(body=b'{"id": 1, "name": "Rex", "labels": {"a": 1, "b": 2, "c": 3}}')
    with pytest.raises(ToolError, match=r"outputSchema: \$\.labels: .*more than 2 properties"):
        await forwarding.call_model("get_pet", args(petId=1, tag="x"), Pet)
    fresh.answer = lambda request: Answer(body=b'{"id": 1, "name": "Rex", "size": 3}')  # both branches
    with pytest.raises(ToolError, match=r"outputSchema: \$\.size: "):
        await forwarding.call_model("get_pet", args(petId=1, tag="x"), Pet)
    fresh.answer = lambda request: Answer(body=b"42")  # checked as served: {"result": 42}
    with pytest.raises(ToolError, match=r"outputSchema: \$\.result: 42 is greater than the maximum of 10"):
        await forwarding.call_root("count", args(), Count, wrapped=True)
    fresh.answer = lambda request: Answer(body=b"7")
    assert await forwarding.call_root("count", args(), Count, wrapped=True) == 7
    await forwarding.aclose()


async def test_an_answer_s_backtracking_patterns_are_checked_within_the_budget(fresh: RecordingApi) -> None:
    """A pattern with a backreference runs in the budgeted engine: an answer that would hold
    the event loop past `UpstreamSettings.pattern_budget` is refused, not checked at length."""
    schema = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"pattern": "^(a|b)\\1$"}}}
    fresh.answer = lambda request: Answer(body=b'{"id": 1, "name": "aa"}')
    for budget, refused in ((None, False), (0.0, True)):
        forwarding = Upstream(
            DOCUMENT,
            settings=UpstreamSettings(pattern_budget=budget),
            environment={"MCP_UPSTREAM_URL": fresh.url + "/v1"},
            output_schemas={"get_pet": schema},
        )
        if refused:
            with pytest.raises(ToolError, match=r"outputSchema: \$: its patterns cannot be checked within 0 s"):
                await forwarding.call_model("get_pet", args(petId=1, tag="x"), Pet)
        else:
            assert (await forwarding.call_model("get_pet", args(petId=1, tag="x"), Pet)).id == 1
        await forwarding.aclose()


@pytest.mark.parametrize(
    ("body", "content_type", "message"),
    [
        (
            b'{"type": "about:blank", "title": "Not Found", "detail": "no pet 9"}',
            "application/problem+json",
            "The API answered 404 Not Found: Not Found: no pet 9",
        ),
        (
            b'{"message": "no pet 9"}',
            "application/json",
            "The API answered 404 Not Found: no pet 9",
        ),
        (
            b'{"error": {"message": "no pet 9"}}',
            "application/json",
            "The API answered 404 Not Found: no pet 9",
        ),
        (
            b"x" * 5000,
            "text/plain",
            "The API answered 404 Not Found: " + "x" * 1000 + "... (5,000 characters)",
        ),
        (b"", "text/plain", "The API answered 404 Not Found."),
    ],
)
async def test_client_errors_carry_the_api_message(
    fresh: RecordingApi, body: bytes, content_type: str, message: str
) -> None:
    fresh.answer = lambda request: Answer(404, body, content_type)
    forwarding = upstream(fresh)
    with pytest.raises(ToolError) as raised:
        await forwarding.call_model("get_pet", args(petId=9, tag="x"), Pet)
    await forwarding.aclose()
    assert str(raised.value) == message
    assert len(fresh.requests) == 1  # a 4xx is never retried


async def test_only_idempotent_methods_are_retried(fresh: RecordingApi) -> None:
    fresh.answer = lambda request: Answer(503, b'{"message": "busy"}')
    forwarding = upstream(fresh, attempts=3)
    with pytest.raises(ToolError, match="^The API answered 503 Service Unavailable: busy$"):
        await forwarding.call_model("get_pet", args(petId=1, tag="x"), Pet)
    assert [r.method for r in fresh.requests] == ["GET"] * 3
    fresh.requests.clear()
    with pytest.raises(ToolError, match="503"):
        await forwarding.call_model("add_pet", args(name="Rex"), Pet)
    assert [r.method for r in fresh.requests] == ["POST"]
    fresh.requests.clear()
    # A retry that succeeds is the answer.
    fresh.answer = lambda request: (Answer(502) if len(fresh.requests) == 1 else pet(request))
    assert (await forwarding.call_model("replace_pet", args(pet={}), Pet)).id == 7
    assert [r.method for r in fresh.requests] == ["PUT", "PUT"]
    await forwarding.aclose()


async def test_an_unreachable_api_is_a_tool_error_that_shows_no_password() -> None:
    port = free_port()
    url = f"http://ann:secret@127.0.0.1:{port}/v1"
    forwarding = Upstream(DOCUMENT, url=url, settings=UpstreamSettings(backoff=0.01))
    with pytest.raises(ToolError) as raised:
        await forwarding.call_model("get_pet", args(petId=1, tag="x"), Pet)
    await forwarding.aclose()
    assert str(raised.value) == f"The API at http://127.0.0.1:{port}/v1 could not be reached."


async def test_a_blob_s_uri_carries_no_api_key_from_the_query(fresh: RecordingApi) -> None:
    fresh.answer = lambda request: Answer(body=b"\x00\x01", content_type="application/octet-stream")
    document = {**DOCUMENT, "security": [{"query_key": []}]}
    environment = {"MCP_UPSTREAM_QUERY_KEY": "secret-key"}
    forwarding = Upstream(document, url=fresh.url, environment=environment)
    content = await forwarding.call_content("photo", args())
    await forwarding.aclose()
    assert fresh.last.query == "key=secret-key"
    assert isinstance(content, list) and isinstance(content[0], types.EmbeddedResource)
    assert content[0].resource.uri == fresh.url + "/photo"


async def test_answers_past_the_size_bound_are_refused(fresh: RecordingApi) -> None:
    fresh.answer = lambda request: Answer(body=b'"' + b"x" * 100_000 + b'"')
    forwarding = upstream(fresh, max_response_bytes=50_000)
    with pytest.raises(ToolError, match="larger than 50,000 bytes"):
        await forwarding.call_content("delete_pet", args(id=1))
    await forwarding.aclose()


def test_scheme_variables_are_upper_snake_case() -> None:
    assert scheme_variable("api_key") == "MCP_UPSTREAM_API_KEY"
    assert scheme_variable("bearerAuth") == "MCP_UPSTREAM_BEARER_AUTH"
    assert scheme_variable("petstore-auth.v2") == "MCP_UPSTREAM_PETSTORE_AUTH_V2"


@pytest.mark.parametrize(("value", "sent"), [(".", "%2E"), ("..", "%2E%2E"), ("...", "...")])
async def test_a_dot_segment_stays_the_value_of_its_segment(fresh: RecordingApi, value: str, sent: str) -> None:
    # Unencoded, `..` is normalised away and the call reaches another endpoint (`/v1/pets`).
    fresh.answer = pet
    forwarding = upstream(fresh)
    await forwarding.call_model("get_pet", args(petId=value, tag="t"), Pet)
    await forwarding.aclose()
    assert fresh.last.path == f"/v1/pets/{sent}/tags/t"
