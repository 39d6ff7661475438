"""`mcpgen import --openapi`: OpenAPI documents as specs (tests/openapi/oai/ holds the OpenAPI
Initiative's examples), each rule of the mapping on a small document of its own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import run_mcpgen

from mcpgen.importer.from_openapi import import_openapi
from mcpgen.importer.openapi.document import OpenApiError, load_document
from mcpgen.importer.openapi.names import readable_name
from mcpgen.importer.openapi.to_spec import Filters, convert
from mcpgen.services.spec_diff import diff

OAI = Path(__file__).parent / "openapi" / "oai"
EXAMPLES = sorted(OAI.glob("*.yaml"))


def _document(tmp_path: Path, paths: dict[str, Any], **extra: Any) -> str:
    document = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths, **extra}
    path = tmp_path / "api.json"
    path.write_text(json.dumps(document))
    return str(path)


def _spec(tmp_path: Path, paths: dict[str, Any], filters: Filters | None = None, **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = convert(load_document(_document(tmp_path, paths, **extra)), filters or Filters()).data
    return data


def _ok(content_schema: Any = None) -> dict[str, Any]:
    if content_schema is None:
        return {"204": {"description": "done"}}
    return {"200": {"description": "ok", "content": {"application/json": {"schema": content_schema}}}}


def test_the_oai_examples_import_and_validate_without_an_error() -> None:
    counts = {}
    for example in EXAMPLES:
        imported = import_openapi(str(example), "spec.yaml", Filters())
        assert imported.valid, [d.render() for d in imported.diagnostics]
        assert imported.budget is not None and imported.budget.total_bytes > 0
        counts[example.stem] = imported.tools
    assert counts == {
        "api-with-examples": 2,
        "callback-example": 1,
        "link-example": 6,
        "petstore-expanded": 4,
        "petstore": 3,
        "uspto": 3,
    }


@pytest.mark.slow  # builds six packages
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.stem)
def test_an_oai_example_imports_builds_and_checks_clean(tmp_path: Path, example: Path) -> None:
    spec = tmp_path / "spec.yaml"
    imported = run_mcpgen("import", "--openapi", str(example), "-o", str(spec), "--package", "imported_api")
    assert imported.returncode == 0, imported.stderr
    assert "token budget:" in imported.stderr
    built = run_mcpgen("build", str(spec))
    assert built.returncode == 0, built.stderr
    package = tmp_path / "imported_api"
    listed = json.loads((package / "schema.json").read_text())["tools/list"]["tools"]
    assert set(json.loads((package / "upstream.json").read_text())["tools"]) == {tool["name"] for tool in listed}
    checked = run_mcpgen("check", str(spec))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_petstore_maps_parameters_body_and_answers() -> None:
    tools = convert(load_document(str(OAI / "petstore.yaml")), Filters()).data["tools"]
    assert list(tools) == ["listPets", "createPets", "showPetById"]
    assert tools["listPets"]["inputSchema"]["properties"]["limit"] == {
        "type": "integer",
        "maximum": 100,
        "format": "int32",
        "description": "How many items to return at one time (max 100)",
        "minimum": -(2**31),  # int32's own bound: the API refuses a limit its type cannot hold
    }
    assert tools["listPets"]["outputSchema"] == {"$ref": "#/definitions/Pets"}
    assert tools["listPets"]["annotations"] == {"readOnlyHint": True}
    # The Pet body is flattened: its properties are the arguments, each one body property.
    assert tools["createPets"]["inputSchema"]["required"] == ["id", "name"]
    assert tools["createPets"]["upstream"]["arguments"]["name"] == {"in": "body", "name": "name"}
    assert tools["createPets"]["upstream"]["body"] == "application/json"
    # A path segment cannot be empty: the API could never take "".
    assert tools["showPetById"]["inputSchema"]["properties"]["petId"]["minLength"] == 1
    assert tools["showPetById"]["upstream"] == {
        "method": "GET",
        "path": "/pets/{petId}",
        "arguments": {"petId": {"in": "path"}},
    }


def test_names_are_readable_short_and_unique(tmp_path: Path) -> None:
    assert readable_name("GET", "/pets/{petId}/photos", None) == "get_pets_by_petId_photos"
    assert readable_name("GET", "/x", "list pets (v2)") == "list_pets_v2"
    long = readable_name("GET", "/x", "a" * 40 + "_" + "b" * 40)
    assert len(long) == 64 and long.startswith("a" * 40 + "_" + "b" * 14 + "_")
    assert long != readable_name("GET", "/x", "a" * 40 + "_" + "b" * 41)
    get = {"responses": _ok()}
    tools = _spec(tmp_path, {"/a": {"get": {**get, "operationId": "same"}, "put": {**get, "operationId": "same"}}})[
        "tools"
    ]
    assert list(tools) == ["same", "same_2"]


def test_a_parameter_name_in_two_places_is_prefixed_and_a_colliding_body_is_one_argument(tmp_path: Path) -> None:
    operation = {
        "operationId": "update",
        "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
            {"name": "id", "in": "query", "schema": {"type": "string"}},
            {"name": "Accept", "in": "header", "schema": {"type": "string"}},
        ],
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": {"type": "object", "properties": {"path_id": {"type": "string"}}}}
            },
        },
        "responses": _ok(),
    }
    tool = _spec(tmp_path, {"/things/{id}": {"patch": operation}})["tools"]["update"]
    assert tool["upstream"]["arguments"] == {
        "path_id": {"in": "path", "name": "id"},
        "query_id": {"in": "query", "name": "id"},
        "body": {"in": "body"},
    }
    assert tool["inputSchema"]["required"] == ["path_id", "body"]


def test_every_constraint_is_kept_and_30_keywords_become_2020_12(tmp_path: Path) -> None:
    body = {
        "type": "object",
        "required": ["size"],
        "additionalProperties": False,
        "properties": {
            "size": {"type": "integer", "minimum": 1, "exclusiveMinimum": True, "maximum": 9, "example": 3},
            "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 8, "nullable": True},
            "kind": {"type": "string", "enum": ["a", "b"], "nullable": True, "x-internal": 1},
            "when": {"type": "string", "format": "date-time"},
        },
    }
    operation = {
        "operationId": "make",
        "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
        "responses": _ok(),
    }
    tool = _spec(tmp_path, {"/m": {"post": operation}})["tools"]["make"]
    assert tool["inputSchema"]["properties"] == {
        "size": {"type": "integer", "exclusiveMinimum": 1, "maximum": 9, "examples": [3]},
        "name": {"type": ["string", "null"], "pattern": "^[a-z]+$", "maxLength": 8},
        "kind": {"type": ["string", "null"], "enum": ["a", "b", None]},
        "when": {"type": "string", "format": "date-time"},
    }
    assert tool["inputSchema"]["required"] == ["size"]


def test_recursive_schemas_stay_references_and_read_only_write_only_follow_the_direction(tmp_path: Path) -> None:
    components = {
        "schemas": {
            "Node": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "readOnly": True},
                    "secret": {"type": "string", "writeOnly": True},
                    "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
                },
                "required": ["id"],
            }
        }
    }
    operation = {
        "operationId": "put_node",
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}},
        },
        "responses": _ok({"$ref": "#/components/schemas/Node"}),
    }
    spec = _spec(tmp_path, {"/n": {"put": operation}}, components=components)
    definitions = spec["definitions"]
    assert definitions["NodeInput"]["properties"]["children"]["items"] == {"$ref": "#/definitions/NodeInput"}
    assert "id" not in definitions["NodeInput"]["properties"] and "required" not in definitions["NodeInput"]
    assert set(definitions["NodeOutput"]["properties"]) == {"id", "children"}
    tool = spec["tools"]["put_node"]
    assert tool["outputSchema"] == {"$ref": "#/definitions/NodeOutput"}
    assert set(tool["inputSchema"]["properties"]) == {"secret", "children"}
    assert tool["annotations"] == {"idempotentHint": True}


def test_filters_and_x_mcp_choose_and_name_the_tools(tmp_path: Path) -> None:
    def operation(name: str, *tags: str, **extra: Any) -> dict[str, Any]:
        return {"operationId": name, "tags": list(tags), "responses": _ok(), **extra}

    paths = {
        "/a": {"get": operation("listA", "a"), "delete": operation("dropA", "a", "admin")},
        "/b": {"get": operation("listB", "b", **{"x-mcp": {"name": "b_list", "description": "All the Bs."}})},
        "/c": {"get": operation("hidden", "b", **{"x-mcp": {"exclude": True}})},
    }
    assert list(_spec(tmp_path, paths)["tools"]) == ["listA", "dropA", "b_list"]
    assert _spec(tmp_path, paths)["tools"]["b_list"]["description"] == "All the Bs."
    assert list(_spec(tmp_path, paths, Filters(include_tags=frozenset({"a"})))["tools"]) == ["listA", "dropA"]
    assert list(_spec(tmp_path, paths, Filters(exclude_tags=frozenset({"admin"})))["tools"]) == ["listA", "b_list"]
    assert list(_spec(tmp_path, paths, Filters(operations=frozenset({"listB", "dropA"})))["tools"]) == [
        "dropA",
        "b_list",
    ]
    assert list(_spec(tmp_path, paths, Filters(methods=frozenset({"DELETE"})))["tools"]) == ["dropA"]


def test_security_binary_answers_and_form_bodies_are_recorded(tmp_path: Path) -> None:
    components = {
        "securitySchemes": {
            "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
            "basic": {"type": "http", "scheme": "Basic"},
            "digest": {"type": "http", "scheme": "digest"},
        }
    }
    paths = {
        "/photo": {
            "get": {"operationId": "photo", "responses": {"200": {"description": "png", "content": {"image/png": {}}}}}
        },
        "/login": {
            "post": {
                "operationId": "login",
                "security": [{"basic": []}],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/x-www-form-urlencoded": {
                            "schema": {"type": "object", "properties": {"user": {"type": "string"}}}
                        }
                    },
                },
                "responses": _ok(),
            }
        },
    }
    spec = _spec(
        tmp_path,
        paths,
        components=components,
        security=[{"key": []}],
        servers=[{"url": "https://{host}/v1", "variables": {"host": {"default": "api.example.com"}}}],
    )
    assert spec["server"]["upstream"] == {
        "url": "https://api.example.com/v1",
        "securitySchemes": {
            "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
            "basic": {"type": "http", "scheme": "basic"},
        },
        "security": [{"key": []}],
    }
    assert spec["tools"]["photo"]["upstream"]["response"] == {"binary": True, "mimeType": "image/png"}
    assert "outputSchema" not in spec["tools"]["photo"]
    login = spec["tools"]["login"]["upstream"]
    assert (login["body"], login["security"]) == ("application/x-www-form-urlencoded", [{"basic": []}])


def test_swagger_2_is_refused_with_its_version_and_a_converter(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"swagger": "2.0", "info": {"title": "x", "version": "1"}, "paths": {}}))
    with pytest.raises(OpenApiError, match=r"(?s)Swagger 2\.0 .*swagger2openapi"):
        load_document(str(path))
    result = run_mcpgen("import", "--openapi", str(path))
    assert result.returncode == 1 and "this is Swagger 2.0 (OpenAPI 2)" in result.stderr


def _alias_bomb(levels: int) -> list[str]:
    """YAML lines defining anchors l0..l{levels}, each a list of ten aliases of the one
    before: l{levels} expands to 10**(levels + 1) values."""
    lines = ["x-anchors:", "  l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"  l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 10)}]" for n in range(1, levels + 1)]
    return lines


def _document_with(default_lines: list[str], default: str) -> str:
    head = ["openapi: 3.0.3", "info: {title: Bombs, version: '1'}", "servers: [{url: 'https://api.example.com'}]"]
    operation = [
        "paths:",
        "  /items:",
        "    get:",
        "      operationId: listItems",
        f"      parameters: [{{name: tags, in: query, schema: {{type: array, default: {default}}}}}]",
        "      responses: {'200': {description: ok}}",
    ]
    return "\n".join(head + default_lines + operation) + "\n"


def test_an_alias_bomb_in_a_document_is_refused_where_it_multiplies(tmp_path: Path) -> None:
    # Before: the document loaded (PyYAML shares an alias's value), the import expanded it
    # into the spec it wrote, and checking that spec raised a traceback naming a temporary file.
    path = tmp_path / "bomb.yaml"
    path.write_text(_document_with(_alias_bomb(6), "*l6"))
    result = run_mcpgen("import", "--openapi", str(path), "-o", str(tmp_path / "spec.yaml"))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"{path}:10:7: error: the document is too large: its aliases make this value alone 1,111,111 values")
    assert "hint: each *alias repeats its whole &anchor" in result.stderr
    assert not (tmp_path / "spec.yaml").exists()


def test_a_documents_small_aliases_are_written_out_in_the_spec(tmp_path: Path) -> None:
    path = tmp_path / "aliases.yaml"
    # The default's ten items are one list, shared: before, the spec said it once as &id001
    # and then nine times as *id001.
    path.write_text(_document_with(_alias_bomb(1), "*l1"))
    imported = import_openapi(str(path), "spec.yaml", Filters())
    assert "&id" not in imported.text and "*id" not in imported.text
    spec = yaml.safe_load(imported.text)
    assert spec["tools"]["listItems"]["inputSchema"]["properties"]["tags"]["default"] == [["x"] * 10] * 10


def test_reimport_after_an_api_change_shows_the_mcp_visible_change_in_diff(tmp_path: Path) -> None:
    old_doc = OAI / "petstore.yaml"
    new_doc = tmp_path / "petstore.yaml"
    shutil.copy(old_doc, new_doc)
    text = new_doc.read_text().replace(
        "maximum: 100\n            format: int32", "maximum: 50\n            format: int32"
    )
    new_doc.write_text(text.replace("/pets/{petId}:", "/animals/{petId}:"))
    for name, document in (("old.yaml", old_doc), ("new.yaml", new_doc)):
        result = run_mcpgen("import", "--openapi", str(document), "-o", str(tmp_path / name))
        assert result.returncode == 0, result.stderr
    changes = {(change.rule, change.target) for change in diff(tmp_path / "old.yaml", tmp_path / "new.yaml")}
    assert changes == {
        ("WIRE/bound-tightened", "tools.listPets.inputSchema.properties.limit.maximum"),
        ("UPSTREAM/request-changed", "tools.showPetById.upstream"),
    }


def test_what_real_documents_get_wrong_is_repaired_and_said(tmp_path: Path) -> None:
    components = {
        "schemas": {
            "Filter": {
                "$recursiveAnchor": True,
                "type": "object",
                "required": ["op", "op"],
                "properties": {
                    "op": {"type": "string", "enum": ["and", "or"], "example": '"and"'},
                    "filters": {"type": "array", "items": {"$recursiveRef": "#"}},
                    "limit": {"type": "integer", "default": None},
                },
            }
        }
    }
    operation = {
        "operationId": "search",
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Filter"}}},
        },
        "responses": _ok(),
    }
    source = _document(tmp_path, {"/search": {"post": operation}}, components=components)
    imported = import_openapi(source, "spec.yaml", Filters())
    assert imported.valid, [d.render() for d in imported.diagnostics]
    assert imported.notes[-1] == "2 example(s) or default(s) that their own schema refuses left out"
    definition = convert(load_document(source), Filters()).data["definitions"]["Filter"]
    assert definition["required"] == ["op"]
    assert definition["properties"]["filters"]["items"] == {"$ref": "#/definitions/Filter"}
    assert "$recursiveAnchor" not in definition


def test_a_document_by_url_resolves_a_relative_server_against_its_own_url(tmp_path: Path) -> None:
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(OAI))
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            url = f"http://127.0.0.1:{server.server_address[1]}/link-example.yaml"
            imported = import_openapi(url, "spec.yaml", Filters(methods=frozenset({"GET"})))
        finally:
            server.shutdown()
    assert imported.valid and imported.tools == 5
    assert f"  upstream:\n    url: http://127.0.0.1:{server.server_address[1]}\n" in imported.text


def test_lint_budget_prints_bytes_and_tokens_per_tool(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    assert run_mcpgen("import", "--openapi", str(OAI / "petstore.yaml"), "-o", str(spec)).returncode == 0
    result = run_mcpgen("lint", "--budget", str(spec))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "token budget: 3 tools, tools/list 1,604 bytes, ~401 tokens (bytes/4)"
    # The largest first: listPets carries its output schema, createPets no answer at all.
    assert [line.split()[-1] for line in lines[1:]] == ["listPets", "showPetById", "createPets"]
    as_json = json.loads(run_mcpgen("lint", "--budget", "--format", "json", str(spec)).stdout)
    assert set(as_json["budget"]["tools"]) == {"listPets", "createPets", "showPetById"}
    assert as_json["budget"]["tokens"] == -(-as_json["budget"]["bytes"] // 4)


def test_an_operation_the_spec_cannot_express_is_left_out_with_the_reason(tmp_path: Path) -> None:
    broken = {"name": "q", "in": "query", "schema": {"type": "string", "pattern": "(unclosed"}}
    paths = {
        "/items/{id}": {"get": {"operationId": "undeclared", "responses": _ok()}},  # {id}: no parameter says it
        "/items": {"get": {"operationId": "broken", "parameters": [broken], "responses": _ok()}},
    }
    imported = import_openapi(
        _document(tmp_path, paths, servers=[{"url": "https://x.example"}]), "spec.yaml", Filters()
    )
    assert imported.valid and imported.tools == 1
    assert len(imported.notes) == 1 and imported.notes[0].startswith("tool 'broken' left out: ")
    assert "upstream:\n      method: GET\n      path: /items/{id}\n      arguments:\n        id:\n" in imported.text


def test_the_fast_yaml_emitter_writes_the_same_data() -> None:
    from mcpgen.importer.yaml_text import yaml_text
    from mcpgen.spec.source import load_yaml

    awkward = {
        "k" * 140: {"type": ["string", "null"]},  # a key longer than 128 characters
        "folded": "word " * 40 + " two  spaces, then a break:  \n * `item`  \n * `other`",
        "scalars": ["yes", "no", "null", "1e3", "0x1F", "*star", ": colon", "~", "", "2026-12-01"],
        "numbers": [0, -1.5, 10**20, True, None],
        "unicode": "naïve \u2028 line separator \t tab",
    }
    for data in [awkward, *(convert(load_document(str(example)), Filters()).data for example in EXAMPLES)]:
        text = yaml_text(data, "header", fast=True)
        assert load_yaml(text, "spec.yaml")[0] == data
        assert text == yaml_text(data, "header", fast=True)


def test_a_31_document_keeps_its_2020_12_schemas_and_refs_with_siblings(tmp_path: Path) -> None:
    components = {"schemas": {"Tag": {"type": "string", "maxLength": 10}}}
    parameters = [
        {"name": "tag", "in": "query", "schema": {"$ref": "#/components/schemas/Tag", "description": "One tag."}},
        {
            "name": "since",
            "in": "query",
            "schema": {"type": ["integer", "null"], "exclusiveMinimum": 0, "examples": [5]},
        },
    ]
    operation = {"operationId": "find", "parameters": parameters, "responses": _ok({"type": "array", "items": {}})}
    path = tmp_path / "api.json"
    document = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/f": {"get": operation}}}
    path.write_text(json.dumps({**document, "components": components}))
    tool = convert(load_document(str(path)), Filters()).data["tools"]["find"]
    assert tool["inputSchema"]["properties"] == {
        "tag": {"$ref": "#/definitions/Tag", "description": "One tag."},
        "since": {"type": ["integer", "null"], "exclusiveMinimum": 0, "examples": [5]},
    }
    assert tool["outputSchema"] == {"type": "array", "items": {}}


def test_a_path_item_by_reference_is_followed(tmp_path: Path) -> None:
    item = {"get": {"operationId": "shared", "responses": _ok()}}
    spec = _spec(
        tmp_path, {"/a": {"$ref": "#/components/pathItems/Shared"}}, components={"pathItems": {"Shared": item}}
    )
    assert spec["tools"]["shared"]["upstream"]["path"] == "/a"


def test_a_path_parameter_is_one_whole_segment_never_empty_nor_a_dot_segment(tmp_path: Path) -> None:
    def parameter(name: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {"name": name, "in": "path", "required": True, "schema": schema}

    listed = [
        parameter("code", {"type": "string", "format": "iso-country-code"}),
        parameter("kind", {"type": "string", "enum": ["a", "b"]}),
        parameter("sid", {"type": "string", "minLength": 34}),
        parameter("ab", {"type": "string", "minLength": 2}),
        parameter("n", {"type": "integer"}),
    ]
    operation = {"operationId": "get", "parameters": listed, "responses": _ok()}
    paths = {"/{code}/{kind}/{sid}/{ab}/{n}/{undeclared}": {"get": operation}}
    properties = _spec(tmp_path, paths)["tools"]["get"]["inputSchema"]["properties"]
    dots = {"not": {"enum": [".", ".."]}}
    assert properties == {
        "code": {"type": "string", "format": "iso-country-code", "minLength": 1, **dots},
        "kind": {"type": "string", "enum": ["a", "b"]},
        "sid": {"type": "string", "minLength": 34},  # "." and ".." are too short anyway
        "ab": {"type": "string", "minLength": 2, **dots},
        "n": {"type": "integer"},
        "undeclared": {"type": "string", "minLength": 1, **dots},  # named by the path only
    }


def test_a_reference_made_nullable_through_all_of_accepts_null(tmp_path: Path) -> None:
    components = {"schemas": {"Choice": {"type": "string", "enum": ["auto", "none"]}}}
    answer = {
        "type": "object",
        "properties": {"choice": {"allOf": [{"$ref": "#/components/schemas/Choice"}, {"nullable": True}]}},
    }
    operation = {"operationId": "get_run", "responses": _ok(answer)}
    tool = _spec(tmp_path, {"/run": {"get": operation}}, components=components)["tools"]["get_run"]
    assert tool["outputSchema"]["properties"]["choice"] == {
        "anyOf": [{"allOf": [{"$ref": "#/definitions/Choice"}]}, {"type": "null"}]
    }


def test_int32_and_int64_are_bounded_to_their_range_unless_the_document_bounds_them_tighter(tmp_path: Path) -> None:
    parameters = [
        {"name": "a", "in": "query", "schema": {"type": "integer", "format": "int32"}},
        {"name": "b", "in": "query", "schema": {"type": "integer", "format": "int64", "minimum": 1}},
        {"name": "c", "in": "query", "schema": {"type": "integer", "format": "int32", "maximum": 1e12}},
        {"name": "d", "in": "query", "schema": {"type": "number", "format": "float"}},
    ]
    spec = _spec(tmp_path, {"/x": {"get": {"operationId": "x", "parameters": parameters, "responses": _ok()}}})
    properties = spec["tools"]["x"]["inputSchema"]["properties"]
    assert (properties["a"]["minimum"], properties["a"]["maximum"]) == (-(2**31), 2**31 - 1)
    assert (properties["b"]["minimum"], properties["b"]["maximum"]) == (1, 2**63 - 1)
    assert properties["c"]["maximum"] == 2**31 - 1  # the document's bound is looser than the type's
    assert "minimum" not in properties["d"] and "maximum" not in properties["d"]


def test_multipart_files_are_base64_arguments_sent_as_file_parts(tmp_path: Path) -> None:
    """A multipart property that is a file (3.0's `format: binary`, 3.1's `contentMediaType`)
    is an argument in base64, its grammar enforced, and `file: <media type>` in the mapping
    (the encoding's contentType first); other properties stay fields."""
    body = {
        "type": "object",
        "required": ["photo"],
        "properties": {
            "photo": {"type": "string", "format": "binary", "description": "The picture."},
            "pages": {"type": "array", "items": {"type": "string", "format": "binary"}},
            "audio": {"type": "string", "contentMediaType": "audio/mpeg"},
            "caption": {"type": "string"},
            "encoded": {"type": "string", "contentMediaType": "image/png", "contentEncoding": "base64"},
        },
    }
    multipart = {"schema": body, "encoding": {"photo": {"contentType": "image/png, image/jpeg"}}}
    operation = {
        "operationId": "upload",
        "requestBody": {"required": True, "content": {"multipart/form-data": multipart}},
        "responses": _ok(),
    }
    spec = import_openapi(_document(tmp_path, {"/uploads": {"post": operation}}), "spec.yaml", Filters())
    assert spec.valid, [d.render() for d in spec.diagnostics]  # the check agrees: base64 declared
    tool = yaml.safe_load(spec.text)["tools"]["upload"]
    properties, places = tool["inputSchema"]["properties"], tool["upstream"]["arguments"]
    base64 = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
    assert properties["photo"] == {
        "type": "string",
        "contentEncoding": "base64",
        "contentMediaType": "image/png",
        "pattern": base64,
        "description": "The picture.\n\nThe file's content (image/png), base64.",
    }
    assert properties["pages"]["items"]["contentMediaType"] == "application/octet-stream"
    assert properties["audio"]["contentEncoding"] == "base64"
    assert properties["caption"] == {"type": "string"}
    assert "pattern" not in properties["encoded"]  # base64 text already: a field the API decodes
    assert {key: place.get("file") for key, place in places.items()} == {
        "photo": "image/png",
        "pages": "application/octet-stream",
        "audio": "audio/mpeg",
        "caption": None,
        "encoded": None,
    }
    assert tool["upstream"]["body"] == "multipart/form-data"
