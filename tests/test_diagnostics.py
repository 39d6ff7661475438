"""Spec checking end to end: `load_spec` diagnostics (position, message, hint) and the CLI.

Every bad spec below is written out in full, so the line numbers in the assertions can be
read off the YAML: line 1 is `mcpgen: 1`, line 2 the `server`, and so on.
"""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest
from helpers import GIFT_SPEC, mcpgen_executable, spec_diagnostics, where
from helpers import write_spec as write

from mcpgen.cli import main
from mcpgen.diagnostics import Diagnostic, Position, SpecError
from mcpgen.pipeline import load_spec

MINIMAL = """\
mcpgen: 1
server: {name: s, version: "1"}
tools:
  t:
    inputSchema: {type: object}
"""


def diagnostics(directory: Path, text: str) -> list[Diagnostic]:
    """Every diagnostic of a spec that must fail to load."""
    return spec_diagnostics(write(directory, text))


def only(directory: Path, text: str) -> Diagnostic:
    """The one diagnostic of a spec with exactly one problem."""
    found = diagnostics(directory, text)
    assert len(found) == 1, "\n".join(d.render() for d in found)
    return found[0]


def _case(text: str, position: tuple[int, int], message: str, hint: str | None) -> tuple[str, tuple[int, int], str, str | None]:
    return textwrap.dedent(text), position, message, hint


# --- the baseline ----------------------------------------------------------------------------


def test_the_minimal_spec_is_valid(tmp_path: Path) -> None:
    spec, raw = load_spec(write(tmp_path, MINIMAL))
    assert [tool.name for tool in spec.tools] == ["t"]
    assert raw == MINIMAL.encode()


def test_the_gift_server_example_is_valid() -> None:
    spec, _ = load_spec(GIFT_SPEC)
    assert spec.server.name == "gift-server"


def test_render_is_file_line_col_error_message_then_the_hint() -> None:
    diagnostic = Diagnostic("a.yaml", Position(3, 7), "something is wrong", "fix it")
    assert diagnostic.render() == "a.yaml:3:7: error: something is wrong\n  hint: fix it"
    assert Diagnostic("a.yaml", Position(1, 1), "no hint").render() == "a.yaml:1:1: error: no hint"


def test_spec_error_sorts_by_position_and_drops_exact_repeats() -> None:
    late = Diagnostic("a.yaml", Position(9, 1), "late")
    early = Diagnostic("a.yaml", Position(2, 5), "early")
    same_line = Diagnostic("a.yaml", Position(2, 3), "same line, earlier column")
    error = SpecError([late, early, same_line, late])
    assert error.diagnostics == [same_line, early, late]
    assert str(error) == "\n".join(d.render() for d in (same_line, early, late))


# --- structure: unknown keys, wrong types, missing keys --------------------------------------

STRUCTURE_CASES = {
    "misspelt tool key": _case(
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          t:
            descripton: Echoes.
            inputSchema: {type: object}
        """,
        (5, 5),
        "unknown key 'descripton' in tools.t",
        "did you mean 'description'?",
    ),
    "misspelt top-level key": _case(
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tool:
          t:
            inputSchema: {type: object}
        """,
        (3, 1),
        "unknown key 'tool' in the spec",
        "did you mean 'tools'?",
    ),
    "misspelt key in a flow mapping": _case(
        """\
        mcpgen: 1
        server: {name: s, version: "1", titel: S}
        """,
        (2, 33),
        "unknown key 'titel' in server",
        "did you mean 'title'?",
    ),
    "list where a string goes": _case(
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          t:
            title: [a]
            inputSchema: {type: object}
        """,
        (5, 12),
        "tools.t.title must be a string, not a list",
        None,
    ),
    "quoted 'yes' where a boolean goes": _case(
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          t:
            annotations: {readOnlyHint: "yes"}
            inputSchema: {type: object}
        """,
        (5, 33),
        "tools.t.annotations.readOnlyHint must be true or false, not a string",
        None,
    ),
    "plain yes is a string in YAML 1.2": _case(
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          t:
            annotations: {readOnlyHint: yes}
            inputSchema: {type: object}
        """,
        (5, 33),
        "tools.t.annotations.readOnlyHint must be true or false, not a string",
        None,
    ),
    "number where a string goes": _case(
        """\
        mcpgen: 1
        server: {name: s, version: 1.0}
        """,
        (2, 28),
        "server.version must be a string, not a number",
        None,
    ),
    "list where a mapping goes": _case(
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          t:
            inputSchema: [type, object]
        """,
        (5, 18),
        "tools.t.inputSchema must be a mapping, not a list",
        None,
    ),
    "empty section": _case(
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
        """,
        (3, 7),
        "tools must be a mapping, not null",
        None,
    ),
    "enum value with a typo": _case(
        """\
        mcpgen: 1
        server: {name: s, version: "1", invalidArguments: tool_eror}
        """,
        (2, 51),
        "server.invalidArguments is 'tool_eror'; expected one of 'tool_error', 'protocol_error'",
        "did you mean 'tool_error'?",
    ),
    "missing server.version": _case(
        """\
        mcpgen: 1
        server:
          name: s
        """,
        (2, 1),
        "server is missing the required key 'version'",
        None,
    ),
    "missing tool inputSchema": _case(
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          t:
            title: T
        """,
        (4, 3),
        "tools.t is missing the required key 'inputSchema'",
        None,
    ),
    "missing server": _case(
        """\
        mcpgen: 1
        """,
        (1, 1),
        "the spec is missing the required key 'server'",
        None,
    ),
    "missing prompt argument name": _case(
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        prompts:
          p:
            arguments:
              - {title: Who}
        """,
        (6, 9),
        "prompts.p.arguments.0 is missing the required key 'name'",
        None,
    ),
    "unsupported format version": _case(
        """\
        mcpgen: 2
        server: {name: s, version: "1"}
        """,
        (1, 9),
        "unsupported spec format version 2; this mcpgen reads version 1",
        "write `mcpgen: 1`",
    ),
    "a list is not a spec": _case(
        """\
        - mcpgen: 1
        """,
        (1, 1),
        "the spec must be a mapping, not a list",
        None,
    ),
    "a bare document marker is not a spec": _case(
        """\
        ---
        """,
        (2, 1),
        "the spec must be a mapping, not null",
        None,
    ),
}


@pytest.mark.parametrize(("text", "position", "message", "hint"), STRUCTURE_CASES.values(), ids=STRUCTURE_CASES)
def test_structure_problems(tmp_path: Path, text: str, position: tuple[int, int], message: str, hint: str | None) -> None:
    diagnostic = only(tmp_path, text)
    assert where(diagnostic) == position
    assert diagnostic.message == message
    assert diagnostic.hint == hint


def test_unknown_key_without_a_close_match_lists_the_allowed_keys(tmp_path: Path) -> None:
    diagnostic = only(
        tmp_path,
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          t:
            zzz: 1
            inputSchema: {type: object}
        """,
    )
    assert where(diagnostic) == (5, 5)
    assert diagnostic.message == "unknown key 'zzz' in tools.t"
    assert diagnostic.hint is not None and diagnostic.hint.startswith("allowed keys: ")
    assert "inputSchema" in diagnostic.hint and "description" in diagnostic.hint


def test_a_misspelt_required_key_is_both_unknown_and_missing(tmp_path: Path) -> None:
    found = diagnostics(
        tmp_path,
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          t:
            inputSchem: {type: object}
        """,
    )
    assert [(where(d), d.message, d.hint) for d in found] == [
        ((4, 3), "tools.t is missing the required key 'inputSchema'", None),
        ((5, 5), "unknown key 'inputSchem' in tools.t", "did you mean 'inputSchema'?"),
    ]


def test_the_rendered_diagnostic_carries_the_hint(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL.replace("    inputSchema", "    descripton: x\n    inputSchema"))
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert str(caught.value) == (
        f"{path}:5:5: error: unknown key 'descripton' in tools.t\n  hint: did you mean 'description'?"
    )


def test_a_quoted_format_version_gets_a_useful_hint(tmp_path: Path) -> None:
    diagnostic = only(tmp_path, "mcpgen: '1'\nserver: {name: s, version: \"1\"}\n")
    assert where(diagnostic) == (1, 9)
    assert diagnostic.hint != "did you mean '1'?"


def test_a_resource_of_the_wrong_type_gets_one_diagnostic(tmp_path: Path) -> None:
    diagnostic = only(tmp_path, 'mcpgen: 1\nserver: {name: s, version: "1"}\nresources:\n  r: []\n')
    assert diagnostic.message == "resources.r must be a mapping, not a list"


@pytest.mark.parametrize("value", ["5", "true"])
def test_prompt_arguments_that_are_not_a_list(tmp_path: Path, value: str) -> None:
    diagnostic = only(tmp_path, f'mcpgen: 1\nserver: {{name: s, version: "1"}}\nprompts:\n  p:\n    arguments: {value}\n')
    assert where(diagnostic) == (5, 16)
    assert diagnostic.message == "prompts.p.arguments must be a list, not " + (
        "an integer" if value == "5" else "a boolean"
    )


def test_a_package_name_with_a_trailing_newline_is_rejected(tmp_path: Path) -> None:
    diagnostic = only(tmp_path, 'mcpgen: 1\nserver: {name: s, version: "1", package: "pkg\\n"}\n')
    assert where(diagnostic) == (2, 42)


# --- JSON Schemas inside the spec ------------------------------------------------------------

SCHEMA_SPOTS = {
    "inputSchema property": (
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          t:
            inputSchema:
              type: object
              properties:
                n: {type: nubmer}
        """,
        (8, 19),
    ),
    "outputSchema root": (
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          t:
            inputSchema: {type: object}
            outputSchema: {type: nubmer}
        """,
        (6, 26),
    ),
    "shared definition": (
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        definitions:
          Amount: {type: nubmer}
        """,
        (4, 18),
    ),
    "resource schema": (
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        resources:
          r:
            uri: data://r
            mimeType: application/json
            schema:
              type: array
              items: {type: nubmer}
        """,
        (9, 21),
    ),
    "type list item": (
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          t:
            inputSchema:
              type: object
              properties:
                n: {type: [nubmer, "null"]}
        """,
        (8, 20),
    ),
    "draft-07 schema": (
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          t:
            inputSchema:
              $schema: "http://json-schema.org/draft-07/schema#"
              type: object
              properties:
                n: {type: nubmer}
        """,
        (9, 19),
    ),
}


@pytest.mark.parametrize(("text", "position"), SCHEMA_SPOTS.values(), ids=SCHEMA_SPOTS)
def test_a_misspelt_json_schema_type(tmp_path: Path, text: str, position: tuple[int, int]) -> None:
    diagnostic = only(tmp_path, text)
    assert where(diagnostic) == position
    assert diagnostic.message == "'nubmer' is not a JSON Schema type"
    assert diagnostic.hint == "did you mean 'number'?"


def test_an_unknown_json_schema_type_without_a_close_match_lists_the_types(tmp_path: Path) -> None:
    diagnostic = only(tmp_path, MINIMAL.replace("{type: object}", "{type: object, properties: {n: {type: whatever}}}"))
    assert where(diagnostic) == (5, 56)
    assert diagnostic.message == "'whatever' is not a JSON Schema type"
    assert diagnostic.hint == "the types are array, boolean, integer, null, number, object, string"


def test_every_typo_in_a_type_list_is_reported(tmp_path: Path) -> None:
    found = diagnostics(
        tmp_path, MINIMAL.replace("{type: object}", "{type: object, properties: {n: {type: [nubmer, strng]}}}")
    )
    assert [(where(d), d.message) for d in found] == [
        ((5, 57), "'nubmer' is not a JSON Schema type"),
        ((5, 65), "'strng' is not a JSON Schema type"),
    ]


@pytest.mark.parametrize("property_name", ["type", "default"])
def test_a_type_typo_in_a_property_named_like_a_keyword(tmp_path: Path, property_name: str) -> None:
    diagnostic = only(
        tmp_path,
        MINIMAL.replace("{type: object}", f"{{type: object, properties: {{{property_name}: {{type: nubmer}}}}}}"),
    )
    assert diagnostic.message == "'nubmer' is not a JSON Schema type"
    assert diagnostic.hint == "did you mean 'number'?"


def test_type_inside_an_unknown_keyword_is_not_checked(tmp_path: Path) -> None:
    load_spec(
        write(tmp_path, MINIMAL.replace("{type: object}", "{type: object, x-kind: {type: whatever}}"))
    )


def test_a_string_where_the_metaschema_wants_a_number(tmp_path: Path) -> None:
    diagnostic = only(
        tmp_path,
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          t:
            inputSchema:
              type: object
              properties:
                n: {type: number, minimum: "5"}
        """,
    )
    assert where(diagnostic) == (8, 36)
    assert diagnostic.message == (
        "invalid JSON Schema at tools.t.inputSchema.properties.n.minimum: '5' is not of type 'number'"
    )


def test_required_must_be_a_list(tmp_path: Path) -> None:
    diagnostic = only(
        tmp_path,
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          t:
            inputSchema:
              type: object
              properties:
                name: {type: string}
              required: name
        """,
    )
    assert where(diagnostic) == (9, 17)
    assert diagnostic.message == "invalid JSON Schema at tools.t.inputSchema.required: 'name' is not of type 'array'"


@pytest.mark.parametrize(
    "input_schema",
    ["{type: array}", "{type: string}", "{properties: {a: {type: string}}}", "{type: [object, 'null']}"],
)
def test_the_input_schema_root_must_be_an_object(tmp_path: Path, input_schema: str) -> None:
    diagnostic = only(tmp_path, MINIMAL.replace("{type: object}", input_schema))
    assert where(diagnostic) == (5, 5)
    assert diagnostic.message == "the inputSchema of tool 't' must have `type: object` at its root"
    assert diagnostic.hint == "MCP passes tool arguments as a JSON object"


# --- $ref ------------------------------------------------------------------------------------

REF_SPEC = """\
mcpgen: 1
server: {{name: s, version: "1"}}
definitions:
  Occasion: {{type: string}}
tools:
  t:
    inputSchema:
      type: object
      properties:
        o: {{$ref: "{ref}"}}
"""


@pytest.mark.parametrize(
    ("ref", "message", "hint"),
    [
        (
            "#/definitions/Ocasion",
            "$ref '#/definitions/Ocasion' names a missing definition 'Ocasion'",
            "did you mean 'Occasion'?",
        ),
        (
            "#/definitions/Missing",
            "$ref '#/definitions/Missing' names a missing definition 'Missing'",
            "declare it under the top-level 'definitions'",
        ),
        (
            "#/$defs/Occasion",
            "$ref '#/$defs/Occasion' names a missing $defs entry 'Occasion'",
            "to use a shared definition write '#/definitions/Occasion'",
        ),
        (
            "https://example.com/schemas/occasion.json",
            "$ref 'https://example.com/schemas/occasion.json' points outside the spec",
            "put the schema under 'definitions' and use '#/definitions/<name>'",
        ),
        (
            "other.yaml#/Occasion",
            "$ref 'other.yaml#/Occasion' points outside the spec",
            "put the schema under 'definitions' and use '#/definitions/<name>'",
        ),
    ],
)
def test_bad_refs(tmp_path: Path, ref: str, message: str, hint: str) -> None:
    diagnostic = only(tmp_path, REF_SPEC.format(ref=ref))
    assert where(diagnostic) == (10, 19)
    assert diagnostic.message == message
    assert diagnostic.hint == hint


def test_a_good_ref_is_accepted(tmp_path: Path) -> None:
    spec, _ = load_spec(write(tmp_path, REF_SPEC.format(ref="#/definitions/Occasion")))
    assert "Occasion" in spec.definitions


@pytest.mark.parametrize("ref", ["#/properties/zzz", "#/definitions/Occasion/properties/zzz"])
def test_a_dangling_json_pointer_is_reported(tmp_path: Path, ref: str) -> None:
    diagnostic = only(tmp_path, REF_SPEC.format(ref=ref))
    assert where(diagnostic) == (10, 19)


# --- tool names ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["get x", "a" * 65, "''", "get/x", "'café'"])
def test_tool_names_outside_the_mcp_pattern(tmp_path: Path, name: str) -> None:
    diagnostic = only(tmp_path, MINIMAL.replace("  t:", f"  {name}:"))
    assert where(diagnostic) == (4, 3)
    shown = name.strip("'")
    assert diagnostic.message == f"tool name '{shown}' is not 1-64 characters of A-Z a-z 0-9 _ . -"
    assert diagnostic.hint == "clients reject other names; use e.g. snake_case"


@pytest.mark.parametrize("name", ["a" * 64, "get.x-y_Z9", "x"])
def test_tool_names_inside_the_mcp_pattern(tmp_path: Path, name: str) -> None:
    spec, _ = load_spec(write(tmp_path, MINIMAL.replace("  t:", f"  {name}:")))
    assert [tool.name for tool in spec.tools] == [name]


def test_a_tool_name_with_a_trailing_newline_is_rejected(tmp_path: Path) -> None:
    diagnostic = only(tmp_path, MINIMAL.replace("  t:", '  "get_x\\n":'))
    assert where(diagnostic) == (4, 3)
    assert diagnostic.message.startswith("tool name ")


def test_a_duplicate_tool_name_is_a_duplicate_key(tmp_path: Path) -> None:
    diagnostic = only(
        tmp_path,
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          t:
            inputSchema: {type: object}
          t:
            inputSchema: {type: object}
        """,
    )
    assert where(diagnostic) == (6, 3)
    assert diagnostic.message == "duplicate key 't' (first defined at line 4)"
    assert diagnostic.hint is not None and "once" in diagnostic.hint


def test_names_that_become_the_same_python_name(tmp_path: Path) -> None:
    found = diagnostics(
        tmp_path,
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          get-x:
            inputSchema: {type: object}
          get_x:
            inputSchema: {type: object}
        """,
    )
    assert {where(d) for d in found} == {(6, 3)}
    assert all(d.hint == "rename one of them" for d in found)
    messages = [d.message for d in found]
    assert "tools.get_x and tools.get-x both become the method 'get_x'" in messages
    # The model classes clash too, but one diagnostic says it.
    assert len(messages) == 1


def test_a_tool_and_a_resource_whose_methods_clash(tmp_path: Path) -> None:
    diagnostic = only(
        tmp_path,
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          read_a:
            inputSchema: {type: object}
        resources:
          a:
            uri: data://a
        """,
    )
    assert where(diagnostic) == (7, 3)
    assert diagnostic.message == "resources.a and tools.read_a both become the method 'read_a'"


def test_prompt_arguments_that_become_the_same_parameter(tmp_path: Path) -> None:
    diagnostic = only(
        tmp_path,
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        prompts:
          p:
            arguments:
              - {name: gift-card}
              - {name: gift_card}
        """,
    )
    assert where(diagnostic) == (7, 9)
    assert "both become the argument 'gift_card'" in diagnostic.message


# --- resources -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "problem"),
    [
        ("gifts://all", "it has no variables; use `uri` for a fixed address"),
        ("gifts://{id", "unbalanced '{' or '}'"),
        ("gifts://id}", "unbalanced '{' or '}'"),
        ("gifts://{id}/{id}", "variable 'id' appears twice"),
        ("gifts://{}", "empty expression '{}'"),
        ("gifts://{a b}", "'a b' is not a valid variable"),
    ],
)
def test_bad_uri_templates(tmp_path: Path, template: str, problem: str) -> None:
    diagnostic = only(
        tmp_path, f'mcpgen: 1\nserver: {{name: s, version: "1"}}\nresources:\n  r:\n    uriTemplate: "{template}"\n'
    )
    assert where(diagnostic) == (5, 18)
    assert diagnostic.message == f"invalid uriTemplate '{template}': {problem}"
    assert diagnostic.hint == "RFC 6570 templates look like 'gifts://{id}'"


@pytest.mark.parametrize(
    "body",
    ["    uri: data://r\n    uriTemplate: data://{r}\n", "    title: R\n"],
    ids=["both", "neither"],
)
def test_a_resource_needs_exactly_one_of_uri_and_uri_template(tmp_path: Path, body: str) -> None:
    diagnostic = only(tmp_path, f'mcpgen: 1\nserver: {{name: s, version: "1"}}\nresources:\n  r:\n{body}')
    assert where(diagnostic) == (4, 3)
    assert diagnostic.message == "resources.r needs exactly one of 'uri' or 'uriTemplate'"


@pytest.mark.parametrize("mime_line", ["    mimeType: text/plain\n", ""], ids=["text/plain", "no mimeType"])
def test_a_resource_schema_needs_a_json_mime_type(tmp_path: Path, mime_line: str) -> None:
    text = f'mcpgen: 1\nserver: {{name: s, version: "1"}}\nresources:\n  r:\n    uri: data://r\n{mime_line}'
    text += "    schema: {type: object}\n"
    diagnostic = only(tmp_path, text)
    assert where(diagnostic) == (7 if mime_line else 6, 5)
    assert diagnostic.message == "resource 'r' has a schema but its mimeType is not JSON"
    assert diagnostic.hint == "set `mimeType: application/json`"


@pytest.mark.parametrize("mime", ["application/json", "'application/json; charset=utf-8'", "application/ld+json"])
def test_json_mime_types_allow_a_schema(tmp_path: Path, mime: str) -> None:
    text = 'mcpgen: 1\nserver: {name: s, version: "1"}\nresources:\n  r:\n    uri: data://r\n'
    text += f"    mimeType: {mime}\n    schema: {{type: object}}\n"
    spec, _ = load_spec(write(tmp_path, text))
    assert spec.resources[0].schema == {"type": "object"}


def test_a_widget_link_to_a_missing_resource(tmp_path: Path) -> None:
    diagnostic = only(
        tmp_path,
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          t:
            inputSchema: {type: object}
            _meta: {openai/outputTemplate: ui://missing.html}
        """,
    )
    assert where(diagnostic) == (6, 36)
    assert diagnostic.message == "tool 't' links the widget 'ui://missing.html', but no resource has that uri"
    assert diagnostic.hint == "declare the widget under 'resources' with that uri"


def test_a_widget_link_to_a_declared_resource_is_fine(tmp_path: Path) -> None:
    spec, _ = load_spec(
        write(
            tmp_path,
            MINIMAL
            + "    _meta: {openai/outputTemplate: ui://w.html}\n"
            + "resources:\n  w:\n    uri: ui://w.html\n    mimeType: text/html+skybridge\n",
        )
    )
    assert spec.tools[0].meta == {"openai/outputTemplate": "ui://w.html"}


# --- prompts ---------------------------------------------------------------------------------

PROMPT_SPEC = """\
mcpgen: 1
server: {{name: s, version: "1"}}
prompts:
  p:
    arguments:
      - {{name: occasion}}
    messages:
      - role: user
        text: "{text}"
"""


TEMPLATE_HINT = "templates may use {{ argument }}, {{ argument | default('text') }} and {% if argument %}"


@pytest.mark.parametrize(
    ("text", "message", "hint"),
    [
        ("A card for {{ ocasion }}", "prompt 'p' uses the undeclared argument 'ocasion'", "did you mean 'occasion'?"),
        ("Hello {{ name }}", "prompt 'p' uses the undeclared argument 'name'", "declare it under the prompt's 'arguments'"),
        ("{% for o in occasion %}x{% endfor %}", "prompt 'p': unsupported template syntax: for", TEMPLATE_HINT),
        ("{{ occasion.upper() }}", "prompt 'p': unsupported template expression: call", TEMPLATE_HINT),
        ("{% if occasion == 1 %}x{% endif %}", "prompt 'p': an {% if %} may only test an argument, e.g. {% if tone %}", TEMPLATE_HINT),
        (
            "{{ occasion",
            "prompt 'p': template syntax error on line 1: unexpected end of template, expected 'end of print statement'.",
            TEMPLATE_HINT,
        ),
    ],
)
def test_bad_prompt_templates(tmp_path: Path, text: str, message: str, hint: str) -> None:
    diagnostic = only(tmp_path, PROMPT_SPEC.format(text=text))
    assert where(diagnostic) == (9, 15)
    assert diagnostic.message == message
    assert diagnostic.hint == hint


def test_a_good_prompt_template(tmp_path: Path) -> None:
    spec, _ = load_spec(write(tmp_path, PROMPT_SPEC.format(text="A card for {{occasion}} and {{ occasion }}")))
    assert spec.prompts[0].messages is not None


# --- one run reports every problem -----------------------------------------------------------


def test_one_run_reports_every_problem_sorted_by_position(tmp_path: Path) -> None:
    found = diagnostics(
        tmp_path,
        """\
        mcpgen: 1
        server:
          name: s
          versoin: "1"
        tools:
          t:
            inputSchema: {type: array}
          u:
            inputSchema:
              type: object
              properties:
                n: {type: strng}
        resources:
          r:
            uriTemplate: gifts://all
        prompts:
          p:
            messages:
              - {role: user, text: "{{ who }}"}
        """,
    )
    assert [(where(d), d.message) for d in found] == [
        ((2, 1), "server is missing the required key 'version'"),
        ((4, 3), "unknown key 'versoin' in server"),
        ((7, 5), "the inputSchema of tool 't' must have `type: object` at its root"),
        ((12, 19), "'strng' is not a JSON Schema type"),
        ((15, 18), "invalid uriTemplate 'gifts://all': it has no variables; use `uri` for a fixed address"),
        ((19, 28), "prompt 'p' uses the undeclared argument 'who'"),
    ]
    assert found[1].hint == "did you mean 'version'?"
    assert found[3].hint == "did you mean 'string'?"


def test_a_duplicate_key_does_not_hide_the_other_problems(tmp_path: Path) -> None:
    found = diagnostics(
        tmp_path,
        """\
        mcpgen: 1
        server: {name: s, version: "1"}
        tools:
          t:
            inputSchema: {type: nubmer}
          t:
            inputSchema: {type: object}
        colour: red
        """,
    )
    # The first `t` also lacks an object root: that is reported too.
    assert [where(d) for d in found] == [(5, 5), (5, 25), (6, 3), (8, 1)]


# --- the command line ------------------------------------------------------------------------


def test_validate_a_good_spec_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(GIFT_SPEC)]) == 0
    out, err = capsys.readouterr()
    assert out == f"{GIFT_SPEC}: ok\n"
    assert err == ""


def test_validate_a_bad_spec_exits_1_and_prints_every_diagnostic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, MINIMAL.replace("{type: object}", "{type: array}").replace('"1"', "1"))
    assert main(["validate", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"{path}:2:28: error: server.version must be a string, not an integer\n"
        f"{path}:5:5: error: the inputSchema of tool 't' must have `type: object` at its root\n"
        "  hint: MCP passes tool arguments as a JSON object\n"
        "2 errors\n"
    )


def test_a_single_error_is_counted_in_the_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "mcpgen: 2\nserver: {name: s, version: '1'}\n")
    assert main(["validate", str(path)]) == 1
    assert capsys.readouterr().err.endswith("\n1 error\n")


@pytest.mark.parametrize("command", ["build", "check"])
def test_build_and_check_refuse_a_bad_spec_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    path = write(tmp_path, "mcpgen: 2\nserver: {name: s, version: '1'}\n")
    assert main([command, str(path), "-o", str(tmp_path / "out")]) == 1
    assert f"{path}:1:9: error: unsupported spec format version 2" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec.yaml"]


@pytest.mark.parametrize(
    "argv",
    [[], ["frob"], ["validate"], ["build"], ["validate", "a.yaml", "b.yaml"], ["validate", "--frob", "a.yaml"]],
    ids=["no command", "unknown command", "validate without spec", "build without spec", "two specs", "bad flag"],
)
def test_bad_usage_exits_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: mcpgen")
    assert "error:" in err


def test_a_missing_spec_file_is_a_diagnostic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.yaml"
    assert main(["validate", str(missing)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{missing}:1:1: error: cannot read the spec: ")
    assert "No such file" in err
    assert err.endswith("\n1 error\n")


@pytest.mark.parametrize("kind", ["directory", "not UTF-8"])
def test_an_unreadable_spec_is_a_diagnostic(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    if kind == "directory":
        path = tmp_path / "spec.yaml"
        path.mkdir()
    else:
        path = tmp_path / "spec.yaml"
        path.write_bytes(b"mcpgen: 1\nserver: {name: \xff}\n")
    assert main(["validate", str(path)]) == 1
    assert capsys.readouterr().err.startswith(f"{path}:1:1: error: cannot read the spec: ")


def test_invalid_yaml_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "mcpgen: 1\nserver: {name: s, version: '1'\n")
    assert main(["validate", str(path)]) == 1
    assert capsys.readouterr().err.startswith(f"{path}:3:1: error: invalid YAML: ")


def test_validate_never_crashes_on_a_malformed_prompt(tmp_path: Path) -> None:
    path = write(tmp_path, 'mcpgen: 1\nserver: {name: s, version: "1"}\nprompts:\n  p:\n    arguments: 5\n')
    assert main(["validate", str(path)]) == 1


def test_the_installed_command_reports_a_bad_spec_without_a_traceback(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL.replace("inputSchema", "inputSchem"))
    result = subprocess.run(
        [mcpgen_executable(), "validate", str(path)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert result.stderr == (
        f"{path}:4:3: error: tools.t is missing the required key 'inputSchema'\n"
        f"{path}:5:5: error: unknown key 'inputSchem' in tools.t\n"
        "  hint: did you mean 'inputSchema'?\n"
        "2 errors\n"
    )


def test_the_installed_command_reports_a_missing_file_without_a_traceback(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    result = subprocess.run(
        [mcpgen_executable(), "validate", str(missing)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(f"{missing}:1:1: error: cannot read the spec")


def test_completion_values_must_name_a_template_variable(tmp_path: Path) -> None:
    diagnostic = only(
        tmp_path,
        'mcpgen: 1\nserver: {name: s, version: "1"}\nresources:\n  r:\n    uriTemplate: "x://{id}"\n'
        "    completion:\n      idd: [a]\n",
    )
    assert where(diagnostic) == (7, 7)
    assert diagnostic.message == "'idd' is not a variable of uriTemplate 'x://{id}'"
    assert diagnostic.hint == "did you mean 'id'?"


def test_completion_values_need_a_template(tmp_path: Path) -> None:
    diagnostic = only(
        tmp_path,
        'mcpgen: 1\nserver: {name: s, version: "1"}\nresources:\n  r:\n    uri: "x://a"\n    completion: {a: [b]}\n',
    )
    assert where(diagnostic) == (6, 5)
    assert diagnostic.message == "completion values are for the variables of a uriTemplate"
