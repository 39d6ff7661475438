"""Spec -> IR: bundling of shared definitions, wrapped outputs, model documents, stable names."""

from __future__ import annotations

from pathlib import Path

import jsonschema_rs
from helpers import GIFT_SPEC, write_spec

from mcpgen.ir.resolve import resolve
from mcpgen.ir.served import wrap_output
from mcpgen.services.spec_loading import load_spec
from mcpgen.spec.json_schema import bundle


def _api(path: Path):  # type: ignore[no-untyped-def]
    spec, raw, _ = load_spec(path)
    return resolve(spec, raw)


def test_bundle_copies_only_used_definitions_and_rewrites_refs() -> None:
    definitions = {
        "A": {"type": "object", "properties": {"b": {"$ref": "#/definitions/B"}}},
        "B": {"type": "string"},
        "Unused": {"type": "integer"},
    }
    schema = {"type": "object", "properties": {"a": {"$ref": "#/definitions/A"}}}
    assert bundle(schema, definitions) == {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"type": "string"},
        },
    }


def test_bundle_leaves_schemas_without_shared_refs_untouched() -> None:
    schema = {
        "type": "object",
        "$defs": {"x": {"type": "string"}},
        "properties": {"x": {"$ref": "#/$defs/x"}, "c": {"const": {"$ref": "#/definitions/not-a-ref"}}},
        "if": {"required": ["x"]},
        "then": {"required": ["x"]},
    }
    assert bundle(schema, {}) == schema


def test_non_object_outputs_are_wrapped_as_result() -> None:
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array", "$defs": {"n": {}}}
    assert wrap_output(schema) == {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"result": {"type": "array"}},
        "required": ["result"],
        "$defs": {"n": {}},
    }


def test_a_wrapped_output_s_pointers_into_itself_move_with_it() -> None:
    # `#` named the array the spec wrote; served wrapped, that array is at #/properties/result
    # (the refs into $defs stay: $defs stay at the root). Left as it was, `#` named the wrapper,
    # and the server checked results against another schema than the spec's.
    schema = {
        "type": "array",
        "prefixItems": [{"$ref": "#/items"}],
        "items": {"anyOf": [{"type": "string"}, {"$ref": "#"}, {"$ref": "#/$defs/n"}]},
        "$defs": {"n": {"type": "null"}},
        "examples": [{"$ref": "#"}],  # data, not a reference
    }
    wrapped = wrap_output(schema)
    assert wrapped["properties"]["result"]["items"]["anyOf"] == [
        {"type": "string"},
        {"$ref": "#/properties/result"},
        {"$ref": "#/$defs/n"},
    ]
    assert wrapped["properties"]["result"]["prefixItems"] == [{"$ref": "#/properties/result/items"}]
    assert wrapped["properties"]["result"]["examples"] == [{"$ref": "#"}]
    validator = jsonschema_rs.validator_for(wrapped)
    assert validator.is_valid({"result": ["a", ["b", ["c"]], None]})
    assert not validator.is_valid({"result": ["a", [1]]})
    assert not validator.is_valid({"result": [1]})


def test_gift_server_ir() -> None:
    api = _api(GIFT_SPEC)
    assert api.package == "gift_server"
    assert api.client_class == "GiftServerClient"
    assert [tool.name for tool in api.tools] == ["suggest_gifts", "suggest_gift_cards"]
    cards = api.tools[1]
    assert cards.output_wrapped and cards.output_model == "SuggestGiftCardsOutput"
    assert cards.output_schema is not None and cards.output_schema["required"] == ["result"]
    gifts = api.tools[0]
    assert gifts.input_schema["properties"]["occasion"] == {"$ref": "#/$defs/Occasion"}
    assert set(gifts.input_schema["$defs"]) == {"Occasion"}
    assert gifts.wire["_meta"]["openai/outputTemplate"] == "ui://widget/gifts.html"
    assert [r.name for r in api.static_resources] == ["gift_catalog", "gifts_widget"]
    assert [r.name for r in api.resource_templates] == ["gift"]
    assert api.resource_templates[0].parameters == {"id": "id"}
    assert api.capabilities == {
        "completions": {},
        "prompts": {"listChanged": False},
        "resources": {"subscribe": False, "listChanged": False},
        "tools": {"listChanged": False},
    }


def test_local_defs_are_hoisted_under_owner_qualified_names(tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path,
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          search:
            inputSchema:
              type: object
              $defs: {Filter: {type: object, properties: {q: {type: string}}}}
              properties: {filter: {$ref: "#/$defs/Filter"}}
        """,
    )
    api = _api(spec)
    assert api.model_schemas["SearchInput"]["properties"]["filter"] == {"$ref": "#/$defs/SearchInputFilter"}
    assert "SearchInputFilter" in api.model_schemas
    # ...while the served schema stays exactly as written.
    assert api.tools[0].input_schema["properties"]["filter"] == {"$ref": "#/$defs/Filter"}


def test_names_do_not_depend_on_order(tmp_path: Path) -> None:
    tool = "  {name}:\n    inputSchema: {{type: object, properties: {{opts: {{type: object, properties: {{x: {{type: string}}}}}}}}}}\n"
    head = 'mcpgen: 1\nserver: {name: s, version: "1"}\ntools:\n'
    first = write_spec(tmp_path, head + tool.format(name="alpha") + tool.format(name="beta"), "a.yaml")
    second = write_spec(tmp_path, head + tool.format(name="beta") + tool.format(name="alpha"), "b.yaml")
    assert set(_api(first).model_schemas) == set(_api(second).model_schemas)
    assert {t.name: (t.input_model, t.method) for t in _api(first).tools} == {
        t.name: (t.input_model, t.method) for t in _api(second).tools
    }
