"""`server.upstream` and the tools' `upstream`: the format `mcpgen import --openapi` writes
and the forwarding handlers read, checked with a diagnostic per problem, resolved into
upstream.json, and compared by `mcpgen diff` as UPSTREAM changes (never WIRE)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import build_and_write, package_files, write_spec

from mcpgen.diagnostics import Diagnostic, SpecError
from mcpgen.ir.resolve import resolve
from mcpgen.render.schema_doc import schema_document, upstream_json
from mcpgen.services.spec_diff import diff
from mcpgen.services.spec_loading import load_spec

PETS = """\
mcpgen: 1
server:
  name: pets
  version: 1.0.0
  package: {package}
  upstream:
    url: https://api.example.com/v1
    securitySchemes:
      api_key: {{type: apiKey, in: header, name: X-API-Key}}
      basic: {{type: http, scheme: basic}}
    security: [{{api_key: []}}]
tools:
  get_pet:
    inputSchema:
      type: object
      properties:
        petId: {{type: integer}}
        verbose: {{type: boolean}}
        X-Trace: {{type: string}}
      required: [petId]
    outputSchema: {{type: object, properties: {{id: {{type: integer}}}}}}
    upstream:
      method: GET
      path: /pets/{{petId}}
      arguments:
        petId: {{in: path}}
        verbose: {{in: query, name: verbose, style: form, explode: true}}
        X-Trace: {{in: header}}
  add_pet:
    inputSchema:
      type: object
      properties: {{name: {{type: string}}}}
      required: [name]
    upstream:
      method: POST
      path: /pets
      arguments: {{name: {{in: body, name: name}}}}
      body: application/json
      security: [{{basic: []}}]
  photo:
    inputSchema: {{type: object, properties: {{id: {{type: string}}}}, required: [id]}}
    upstream:
      method: GET
      path: /pets/{{id}}/photo
      arguments: {{id: {{in: path}}}}
      response: {{binary: true, mimeType: image/png}}
"""

EXPECTED = {
    "url": "https://api.example.com/v1",
    "securitySchemes": {
        "api_key": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
        "basic": {"type": "http", "scheme": "basic"},
    },
    "security": [{"api_key": []}],
    "tools": {
        "get_pet": {
            "method": "GET",
            "path": "/pets/{petId}",
            "arguments": {
                "petId": {"in": "path", "name": "petId"},
                "verbose": {"in": "query", "name": "verbose", "style": "form", "explode": True},
                "X-Trace": {"in": "header", "name": "X-Trace"},
            },
            "response": {"contentType": "application/json"},
        },
        "add_pet": {
            "method": "POST",
            "path": "/pets",
            "arguments": {"name": {"in": "body", "name": "name"}},
            "body": "application/json",
            "security": [{"basic": []}],
            "response": {"contentType": "application/json"},
        },
        "photo": {
            "method": "GET",
            "path": "/pets/{id}/photo",
            "arguments": {"id": {"in": "path", "name": "id"}},
            "response": {"binary": True, "mimeType": "image/png"},
        },
    },
}


def _problems(tmp_path: Path, text: str) -> list[Diagnostic]:
    try:
        return load_spec(write_spec(tmp_path, text))[2]
    except SpecError as error:
        return error.diagnostics


def test_the_resolved_api_gives_the_normalised_document_and_nothing_on_the_wire(tmp_path: Path) -> None:
    spec, text, warnings = load_spec(write_spec(tmp_path, PETS.format(package="pets_resolved")))
    assert warnings == []
    api = resolve(spec, text)
    document = upstream_json(api)
    assert document is not None and json.loads(document) == EXPECTED
    # Compact and sorted: one line, the same bytes whatever order the spec writes keys in.
    assert document.count("\n") == 1 and document == json.dumps(EXPECTED, sort_keys=True, separators=(",", ":")) + "\n"
    assert "upstream" not in json.dumps(schema_document(api))
    assert [tool.name for tool in api.forwarded_tools] == ["get_pet", "add_pet", "photo"]


def test_a_spec_without_upstream_has_no_document(tmp_path: Path) -> None:
    text = 'mcpgen: 1\nserver: {name: open, version: "1"}\ntools:\n  t: {inputSchema: {type: object}}\n'
    spec, raw, _ = load_spec(write_spec(tmp_path, text))
    assert upstream_json(resolve(spec, raw)) is None


@pytest.mark.slow  # builds a package
def test_the_package_carries_upstream_json_and_schema_md_says_where_calls_go(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, PETS.format(package="pets_carried"))
    first = build_and_write(spec)
    files = package_files(first.directory)
    assert json.loads(files["upstream.json"]) == EXPECTED
    schema_md = files["SCHEMA.md"].decode()
    assert "forward their calls to the HTTP API at `https://api.example.com/v1`" in schema_md
    assert "**Upstream**: `POST /pets`, body `application/json`" in schema_md
    assert build_and_write(spec).files["upstream.json"] == files["upstream.json"]


# Each bad spec: what it changes in PETS, the errors expected, and the line the first points at.
BAD = [
    pytest.param(
        "        X-Trace: {{in: header}}\n",
        "",
        ["the inputSchema property 'X-Trace' of tool 'get_pet' has no `arguments` entry"],
        "      arguments:",
        id="property-without-argument",
    ),
    pytest.param(
        "        X-Trace: {{in: header}}\n",
        "        X-Trace: {{in: header}}\n        extra: {{in: query}}\n",
        ["the argument 'extra' of tool 'get_pet' is not a property of its inputSchema"],
        "        extra: {in: query}",
        id="argument-without-property",
    ),
    pytest.param(
        "      path: /pets/{{petId}}\n",
        "      path: /pets/{{petid}}\n",
        [
            "the path names '{petid}', but no argument goes `in: path` with that name",
            "the argument 'petId' goes in the path as 'petId', but the path has no '{petId}'",
        ],
        "      path: /pets/{petid}",
        id="path-names-unknown-parameter",
    ),
    pytest.param(
        "      required: [petId]\n    outputSchema",
        "    outputSchema",
        ["the path parameter 'petId' of tool 'get_pet' is not required in its inputSchema"],
        "        petId: {in: path}",
        id="path-parameter-optional",
    ),
    pytest.param(
        "      body: application/json\n",
        "",
        ["the argument 'name' goes in the body, but `upstream.body` does not say its content type"],
        "      arguments: {name: {in: body, name: name}}",
        id="body-argument-without-body",
    ),
    pytest.param(
        "      security: [{{basic: []}}]\n",
        "      security: [{{bearer: []}}]\n",
        ["the security requirement names 'bearer', which `server.upstream.securitySchemes` does not declare"],
        "      security: [{bearer: []}]",
        id="undeclared-scheme",
    ),
    pytest.param(
        "        X-Trace: {{in: header}}\n",
        "        X-Trace: {{in: query, name: verbose}}\n",
        ["'X-Trace' and 'verbose' both fill the query parameter 'verbose'"],
        "        X-Trace: {in: query, name: verbose}",
        id="two-arguments-one-parameter",
    ),
    pytest.param(
        "style: form,",
        "style: simple,",
        [
            "style 'simple' is not one OpenAPI allows in query (allowed: form, spaceDelimited, pipeDelimited, deepObject)"
        ],
        "        verbose: {in: query, name: verbose, style: simple, explode: true}",
        id="style-not-for-location",
    ),
    pytest.param(
        "    url: https://api.example.com/v1\n",
        "    url: api.example.com\n",
        ["the upstream url 'api.example.com' is not an absolute http or https URL"],
        "    url: api.example.com",
        id="relative-url",
    ),
    pytest.param(
        "      response: {{binary: true, mimeType: image/png}}\n",
        "      response: {{binary: true, mimeType: image/png}}\n    outputSchema: {{type: object}}\n",
        ["tool 'photo' answers binary content, which has no outputSchema"],
        "      response: {binary: true, mimeType: image/png}",
        id="binary-with-output-schema",
    ),
    pytest.param(
        "      basic: {{type: http, scheme: basic}}\n",
        "      basic: {{type: http, scheme: digest}}\n",
        ["the http scheme 'basic' is 'digest'; forwarding sends only basic or bearer"],
        "      basic: {type: http, scheme: digest}",
        id="unsupported-http-scheme",
    ),
    pytest.param(
        "      method: POST\n",
        "      method: FETCH\n",
        [
            "tools.add_pet.upstream.method is 'FETCH'; expected one of 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', "
            "'HEAD', 'OPTIONS', 'TRACE'"
        ],
        "      method: FETCH",
        id="unknown-method",
    ),
    pytest.param(
        "      arguments: {{name: {{in: body, name: name}}}}\n",
        "      arguments: {{name: {{in: body, name: name, file: image/png}}}}\n",
        [
            "the argument 'name' is a file, but files travel only as properties of a `multipart/form-data` body",
            "the file argument 'name' is sent decoded from base64, but its inputSchema does not say "
            "`contentEncoding: base64`",
        ],
        "      arguments: {name: {in: body, name: name, file: image/png}}",
        id="file-outside-multipart-and-not-base64",
    ),
]


@pytest.mark.parametrize(("old", "new", "messages", "line"), BAD)
def test_a_bad_upstream_is_one_diagnostic_each_at_its_place(
    tmp_path: Path, old: str, new: str, messages: list[str], line: str
) -> None:
    text = PETS.format(package="pets_bad").replace(old.format(), new.format())
    assert text != PETS.format(package="pets_bad")
    problems = _problems(tmp_path, text)
    assert [problem.message for problem in problems] == messages
    assert text.splitlines()[problems[0].position.line - 1] == line
    assert problems[0].render().startswith(f"{tmp_path / 'spec.yaml'}:{problems[0].position.line}:")


def test_a_query_and_a_header_parameter_may_share_a_name(tmp_path: Path) -> None:
    text = PETS.format(package="pets_shared").replace("name: verbose, style", "name: X-Trace, style")
    assert _problems(tmp_path, text) == []


def test_a_tool_upstream_needs_the_server_upstream(tmp_path: Path) -> None:
    text = PETS.format(package="pets_no_server")
    start = text.index("  upstream:\n    url")
    text = text[:start] + text[text.index("tools:") :]
    problems = [problem for problem in _problems(tmp_path, text) if problem.is_error]
    assert {problem.message for problem in problems} == {
        f"tool '{name}' forwards to an HTTP API, but the server has no `upstream`"
        for name in ("get_pet", "add_pet", "photo")
    } | {"the security requirement names 'basic', which `server.upstream.securitySchemes` does not declare"}
    assert all(problem.hint for problem in problems)


def test_diff_reports_a_moved_argument_and_a_new_path_as_upstream_changes_only(tmp_path: Path) -> None:
    old = write_spec(tmp_path, PETS.format(package="pets_diff"), "old.yaml")
    moved = (
        PETS.format(package="pets_diff")
        .replace("path: /pets/{petId}\n", "path: /animals/{petId}\n")
        .replace("X-Trace: {in: header}", "X-Trace: {in: query}")
        .replace("url: https://api.example.com/v1", "url: https://api.example.com/v2")
    )
    new = write_spec(tmp_path, moved, "new.yaml")
    changes = diff(old, new)
    assert sorted((change.category, change.rule, change.severity, change.message) for change in changes) == [
        ("UPSTREAM", "UPSTREAM/argument-moved", "info", "header X-Trace -> query X-Trace"),
        ("UPSTREAM", "UPSTREAM/request-changed", "info", "GET /pets/{petId} -> GET /animals/{petId}"),
        ("UPSTREAM", "UPSTREAM/url-changed", "info", "url https://api.example.com/v1 -> https://api.example.com/v2"),
    ]
    assert not any(change.is_breaking for change in changes)
