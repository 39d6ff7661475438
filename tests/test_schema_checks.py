"""The checks of JSON Schemas beyond their metaschema, warnings and `--strict`, and the
promise behind them: a spec that validates builds. What each bad schema gets is data in
tests/bad_specs/ (keywords, regex, values, required, cycles, models); here are the schemas
that must pass, and the command line's handling of warnings."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from helpers import MINIMAL, built_package, write_spec

from mcpgen.cli import main
from mcpgen.diagnostics import Diagnostic, Position, SpecError, summary
from mcpgen.ir.resolve import resolve
from mcpgen.models.model_errors import failing_models
from mcpgen.services.spec_loading import load_spec

HEAD = 'mcpgen: 1\nserver: {name: demo, version: "1"}\n'
WARNED = MINIMAL.replace("{text: {type: string}}", "{text: {type: string, minLenght: 1}}")


def _tool(schema: str) -> str:
    """A spec whose one tool has this inputSchema (YAML, indented as written)."""
    return HEAD + "tools:\n  t:\n    inputSchema:\n" + textwrap.indent(textwrap.dedent(schema), "      ")


def _diagnostics(tmp_path: Path, text: str) -> list[Diagnostic]:
    try:
        return load_spec(write_spec(tmp_path, text))[2]
    except SpecError as error:
        return error.diagnostics


# --- schemas that must pass, without a warning -----------------------------------------------


@pytest.mark.parametrize(
    "schema",
    [
        # Extensions are no typos.
        "type: object\nx-widget: search\nproperties: {q: {type: string, x-order: 1}}\n",
        # Every 2020-12 keyword, annotations included.
        """\
        $schema: https://json-schema.org/draft/2020-12/schema
        $id: https://example.com/t
        $comment: every keyword
        title: T
        description: d
        type: object
        deprecated: false
        readOnly: false
        writeOnly: false
        properties:
          s: {type: string, format: email, contentMediaType: text/plain, contentEncoding: base64, minLength: 1}
          j: {type: string, contentMediaType: application/json, contentSchema: {type: object}}
          l: {type: array, prefixItems: [{type: string}], items: false, contains: {type: string}, minContains: 1, maxContains: 2, unevaluatedItems: false, uniqueItems: true}
          n: {type: number, multipleOf: 0.5, minimum: 0, maximum: 9, exclusiveMinimum: -1, exclusiveMaximum: 10}
        dependentRequired: {s: [n]}
        dependentSchemas: {l: {required: [s]}}
        propertyNames: {maxLength: 5}
        minProperties: 0
        maxProperties: 9
        unevaluatedProperties: false
        $defs: {A: {$anchor: a, $dynamicAnchor: node, type: string}}
        examples: [{s: a@b.c, n: 1}]
        """,
        # Draft-07's own keywords, in a draft-07 schema.
        """\
        $schema: http://json-schema.org/draft-07/schema#
        type: object
        properties:
          pair: {type: array, items: [{type: string}, {type: integer}], additionalItems: false, default: [a, 1]}
        dependencies: {pair: {required: [pair]}}
        """,
        # Valid in ECMA-262, not in Python's re: JSON Schema means ECMA-262.
        "type: object\nproperties: {name: {type: string, pattern: '^\\p{L}+$', default: Zoë}}\n"
        "patternProperties: {'^\\p{Lu}': {type: string}}\n",
        # Values that their schemas accept, through refs, nullable types and draft-07 tuples.
        """\
        type: object
        properties:
          when: {type: [string, "null"], default: null, examples: [null, today]}
          size: {$ref: "#/$defs/Size", default: 2}
          level: {enum: [1, "one", null], default: "one"}
          kind: {const: gift, default: gift}
        $defs:
          Size: {type: integer, minimum: 1}
        """,
        # Required names that additionalProperties: false still allows.
        """\
        type: object
        properties: {a: {type: string}}
        patternProperties: {'^x-': {type: string}}
        additionalProperties: false
        required: [a, x-team]
        """,
        # Recursion that looks at a smaller part of the value each time is fine.
        """\
        type: object
        properties:
          children: {type: array, items: {$ref: "#"}}
          next: {anyOf: [{$ref: "#"}, {type: "null"}]}
        """,
    ],
    ids=["extensions", "2020-12", "draft-07", "ecma-regex", "values", "required", "recursion"],
)
def test_legal_schemas_pass_without_a_diagnostic(tmp_path: Path, schema: str) -> None:
    assert _diagnostics(tmp_path, _tool(schema)) == []


# --- warnings ----------------------------------------------------------------------------------


def test_a_warning_renders_as_warning() -> None:
    warning = Diagnostic("a.yaml", Position(3, 7), "odd", "fix it", "warning")
    assert warning.render() == "a.yaml:3:7: warning: odd\n  hint: fix it"
    assert not warning.is_error


def test_the_summary_counts_errors_and_warnings() -> None:
    error = Diagnostic("a.yaml", Position(1, 1), "bad")
    warning = Diagnostic("a.yaml", Position(1, 1), "odd", severity="warning")
    assert summary([error, error, warning]) == "2 errors, 1 warning"
    assert summary([warning, warning]) == "2 warnings"
    assert summary([error]) == "1 error"


def test_load_spec_returns_warnings_and_raises_for_them_under_strict(tmp_path: Path) -> None:
    path = write_spec(tmp_path, WARNED)
    spec, _, warnings = load_spec(path)
    assert [w.message for w in warnings] == ["unknown JSON Schema keyword 'minLenght' is ignored"]
    with pytest.raises(SpecError) as caught:
        load_spec(path, strict=True)
    assert caught.value.diagnostics == warnings


def test_validate_prints_a_warning_and_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_spec(tmp_path, WARNED)
    assert main(["validate", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out == f"{path}: ok\n"
    assert err == (
        f"{path}:7:41: warning: unknown JSON Schema keyword 'minLenght' is ignored\n"
        "  hint: did you mean 'minLength'?\n"
        "1 warning\n"
    )


def test_strict_validate_fails_on_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_spec(tmp_path, WARNED)
    assert main(["validate", "--strict", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.endswith("\n1 warning (--strict: warnings are errors)\n")
    assert err.count("warning: unknown JSON Schema keyword 'minLenght'") == 1


def test_errors_and_warnings_are_reported_together(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_spec(tmp_path, WARNED.replace("required: [text]", "required: [text]\n      requried: [text]\n      minProperties: x"))
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count(": warning: ") == 2 and err.count(": error: ") == 1
    assert err.endswith("\n1 error, 2 warnings\n")


@pytest.mark.slow  # builds with the real generator
@pytest.mark.parametrize("command", ["build", "check"])
def test_strict_build_and_check_fail_on_a_warning_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    path = write_spec(tmp_path, WARNED)
    assert main([command, "--strict", str(path)]) == 1
    assert "warning: unknown JSON Schema keyword 'minLenght'" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec.yaml"]


@pytest.mark.slow  # builds with the real generator
def test_build_prints_warnings_once_and_strict_still_fails_on_an_up_to_date_package(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_spec(tmp_path, WARNED)
    assert main(["build", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err.count("warning: unknown JSON Schema keyword 'minLenght'") == 1 and err.endswith("\n1 warning\n")
    assert "files written" in out
    assert main(["build", str(path)]) == 0  # up to date: not even checked again
    assert capsys.readouterr().out.endswith("up to date\n")
    assert main(["build", "--strict", str(path)]) == 1  # but --strict checks it
    assert "1 warning (--strict: warnings are errors)" in capsys.readouterr().err


# --- validate = build --------------------------------------------------------------------------

WIDE = HEAD + """\
definitions:
  Node:
    type: object
    properties:
      value: {type: [string, "null"]}
      children: {type: array, items: {$ref: "#/definitions/Node"}}
  Anything: {}
tools:
  everything:
    inputSchema:
      type: object
      $defs:
        Point:
          type: object
          properties: {x: {type: number}, y: {type: number}}
          required: [x, y]
      properties:
        name: {type: [string, "null"]}
        blob: true
        never: false
        list: {type: array, items: true}
        closed_list: {type: array, prefixItems: [{type: string}, {type: integer}], items: false}
        flags: {type: array, prefixItems: [true, {type: boolean}]}
        loose: {type: object, additionalProperties: true}
        closed: {type: object, additionalProperties: false, properties: {a: {type: string}}}
        typed_map: {type: object, additionalProperties: {type: integer}}
        again: {$ref: "#"}
        point: {$ref: "#/$defs/Point"}
        node: {$ref: "#/definitions/Node"}
        anything: {$ref: "#/definitions/Anything"}
        both: {allOf: [{type: object, properties: {a: {type: string}}}, {type: object, properties: {b: {type: integer}}}]}
        either: {anyOf: [{type: string}, {type: integer}]}
        one: {oneOf: [{type: string}, {type: "null"}]}
        not_a_string: {not: {type: string}}
        conditional:
          type: object
          properties: {kind: {type: string}, size: {type: integer}}
          if: {properties: {kind: {const: big}}}
          then: {required: [size]}
          else: {properties: {size: {maximum: 10}}}
        payment:
          type: object
          properties: {card: {type: string}, billing: {type: string}}
          dependentSchemas: {card: {required: [billing]}}
          dependentRequired: {billing: [card]}
        sealed: {type: object, properties: {a: {type: string}}, unevaluatedProperties: false}
        nullable_point: {anyOf: [{$ref: "#/$defs/Point"}, {type: "null"}]}
        nullable_count: {type: [integer, "null"], default: null}
        letters: {type: string, pattern: '^\\p{L}+$'}
      required: [name, nullable_count]
    outputSchema:
      type: object
      properties:
        maybe: {type: [string, "null"]}
        anything: true
        nothing: false
        items: {type: array, items: {type: [number, "null"]}}
  nullable_result:
    inputSchema: {type: object, additionalProperties: false}
    outputSchema: {type: [string, "null"]}
resources:
  tree:
    uri: demo://tree
    mimeType: application/json
    schema: {$ref: "#/definitions/Node"}
"""


@pytest.mark.slow  # builds and imports a package
def test_a_spec_using_the_breadth_of_json_schema_builds_and_imports(tmp_path: Path) -> None:
    path = write_spec(tmp_path, WIDE)
    assert load_spec(path, strict=True)[2] == []
    with built_package(path) as package:
        assert package.EverythingInput.model_validate({"name": None, "nullable_count": None})
        markdown = (tmp_path / "demo" / "SCHEMA.md").read_text()
        assert "| `name` | string \\| null | yes |" in markdown
        assert "| `never` | nothing | no |" in markdown
        assert json.loads((tmp_path / "demo" / "schema.json").read_text())["tools/list"]["tools"][0]["inputSchema"][
            "properties"
        ]["blob"] is True


@pytest.mark.slow  # runs the model generator once per model
def test_a_model_failure_blames_the_schema_not_those_that_use_it(tmp_path: Path) -> None:
    path = write_spec(tmp_path, (Path(__file__).parent / "bad_specs" / "models" / "conflicting-allof-bases.yaml").read_text())
    spec, raw, _ = load_spec(path)
    api = resolve(spec, raw)
    failing = failing_models(api)
    assert list(failing) == ["Bundle"]  # not TInput, which uses it
    assert api.model_sources["Bundle"] == ("definitions", "Bundle")
    assert "inconsistent method resolution order" in failing["Bundle"]
