"""Unit tests of how spec text reaches generated files (each found by tests/test_payloads.py
or tests/test_fuzz.py first): one escaping function per context, names derived or checked."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, build_and_write, imported

from mcpgen.models.environment import (
    docstring,
    markdown_code,
    markdown_comment,
    markdown_text,
    one_line,
)
from mcpgen.models.imports import Imports
from mcpgen.names.naming import static_file
from mcpgen.runtime.prompt_templates import parse_template
from mcpgen.spec.json_schema import (
    bundle,
    pointer_token,
    ref_target,
    resolve_pointer,
    split_ref,
)


@pytest.mark.parametrize(
    "text",
    [
        'x"""\n__import__("os").system("touch PWNED")\n"""',
        'ends in a quote"',
        "ends in a backslash\\",
        'an escaped quote at the end\\"',
        '"""""',
        "\\N{BULLET} \\u2028 \\x00",
        "nul \x00, bidi \u202e, line separator \u2028, astral \U000e0001, CR \r",
    ],
)
def test_a_docstring_reads_back_as_the_text(text: str) -> None:
    source = f'"""{docstring(text)}"""'
    assert ast.literal_eval(source) == text.strip()
    assert all(c.isprintable() or c in "\n\t" for c in source)


def test_a_comment_stays_on_its_line() -> None:
    assert one_line("a\nb\u2028c\u202e") == "a\\x0ab\\u2028c\\u202e"


def test_markdown_text_cannot_reshape_the_document() -> None:
    assert markdown_text("Suggests gift ideas.") == "Suggests gift ideas."
    assert markdown_text("1.0.0") == "1.0.0"
    assert markdown_text("a | b\n```\n<!-- hidden -->") == "a \\| b<br>\\`\\`\\`<br>\\<!-- hidden --\\>"
    assert markdown_text("1. item") == "1\\. item"
    assert markdown_text("- item") == "\\- item"
    assert markdown_text("[click](http://x)") == "\\[click\\](http://x)"
    assert markdown_text("bidi \u202e nul \x00") == "bidi \\\\u202e nul \\\\x00"
    assert markdown_text(None) == ""


def test_markdown_code_uses_a_code_span_only_where_the_text_fits_in_one() -> None:
    assert markdown_code("suggest_gifts") == "`suggest_gifts`"
    assert markdown_code("a`b") == "<code>a\\`b</code>"
    assert markdown_code("a|b") == "<code>a\\|b</code>"
    assert markdown_code("a\nb") == "<code>a<br>b</code>"


def test_markdown_comment_never_ends_the_comment() -> None:
    assert "--" not in markdown_comment("spec --> <!-- ---.yaml")


def test_imports_sort_names_as_ruff_does() -> None:
    rendered = Imports().add(".models", "P18Input", "P7Input", "P007Input", "Gift", "GIFT_ID", "run").render()
    assert rendered == "from .models import GIFT_ID, Gift, P007Input, P7Input, P18Input, run"


def test_static_file_names_are_short_and_portable() -> None:
    assert static_file("gifts_widget", "../generated_example/gifts.html") == "gifts_widget.html"
    assert static_file("w", 'a."x\n') == "w"
    long = static_file("x" * 300, "a.txt")
    assert len(long) < 100 and long.endswith(".txt")
    assert static_file("x" * 300 + "a", "a.txt") != static_file("x" * 300 + "b", "a.txt")


def test_json_pointer_fragments_are_decoded_before_they_are_split() -> None:
    name = 'a/b~c "d"'
    ref = "#/definitions/" + pointer_token(name) + "/properties/x"
    assert ref_target(ref, "#/definitions/") == name
    assert split_ref(ref, "#/definitions/") == (name, "/properties/x")
    # %2F separates tokens, as every validator reads it: it is not a "/" inside a name.
    assert split_ref("#/definitions/D1%2F0", "#/definitions/") == ("D1", "%2F0")
    assert resolve_pointer({"D1": [0]}, "/D1%2F0")
    assert not resolve_pointer({"D1/0": 1}, "/D1%2F0")


def test_a_bundled_definition_keeps_its_own_refs() -> None:
    definitions = {
        "Tree node": {
            "type": "object",
            "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}, "leaf": {"$ref": "#/$defs/Leaf"}},
            "$defs": {"Leaf": {"type": "string"}},
        }
    }
    schema = {"type": "object", "properties": {"root": {"$ref": "#/definitions/Tree%20node"}}}
    bundled = bundle(schema, definitions)
    node = bundled["$defs"]["Tree node"]
    assert bundled["properties"]["root"]["$ref"] == "#/$defs/Tree%20node"
    assert node["properties"]["kids"]["items"]["$ref"] == "#/$defs/Tree%20node"
    assert node["properties"]["leaf"]["$ref"] == "#/$defs/Tree%20node/$defs/Leaf"


def test_prompt_templates_keep_line_ends_as_written() -> None:
    assert parse_template("a\r\nb\rc\n") == ["a\r\nb\rc\n"]
    assert parse_template('{{ x | default("\r") }}\r') == [{"var": "x", "default": "\r"}, "\r"]


@pytest.mark.slow  # builds a package
def test_properties_named_like_what_generated_code_imports(tmp_path: Path) -> None:
    """Property names the model generator must alias (`Literal` -> `Literal_aliased`) or
    rename, and names the client module itself uses: the package imports, and is clean."""
    names = ["Literal", "Annotated", "Any", "Field", "BaseModel", "TypeAlias", "ConfigDict", "RootModel",
             "self", "model_config", "None", "class", "types", "Client", "Self", "Mapping", "_client"]
    properties = {name: {"enum": ["a", "b"]} if index % 2 else {"type": "string"} for index, name in enumerate(names)}
    spec = {
        "mcpgen": 1,
        "server": {"name": "shadows", "version": "1"},
        "definitions": {
            "Literal": {"type": "string", "enum": ["x"]},
            "Context": {"type": "object", "properties": {"Literal": {"$ref": "#/definitions/Literal"}}},
            "Handlers": {"type": "string"},
        },
        "tools": {
            "t": {
                "inputSchema": {"type": "object", "properties": {**properties, "ref": {"$ref": "#/definitions/Literal"}}, "required": names[:3]},
                "outputSchema": {"type": "object", "properties": properties},
            }
        },
    }
    path = tmp_path / "spec.yaml"
    path.write_text(json.dumps(spec), encoding="utf-8")
    result = build_and_write(path)
    modules = [str(p) for p in result.directory.rglob("*.py")]
    for tool in ("black", "ruff"):
        arguments = ["--check", "-q"] if tool == "black" else ["check", "--no-cache", "--config", str(ROOT / "pyproject.toml")]
        checked = subprocess.run([sys.executable, "-m", tool, *arguments, *modules], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-3000:]
    with imported("shadows", result.directory.parent) as package:
        # Shared definitions named like what the package exports get a class name of their own.
        assert package.Context.__module__.endswith("_runtime.context")
        assert package.ContextModel.model_validate({"Literal": "x"}).Literal == "x"
        assert package.HandlersModel is not package.Handlers and package.LiteralModel is not None
        assert package.TInput.model_validate({"Literal": "a", "Annotated": "b", "Any": "c"}).model_dump(
            by_alias=True, exclude_unset=True
        ) == {"Literal": "a", "Annotated": "b", "Any": "c"}


def test_json_surrogate_pairs_in_yaml_are_one_character() -> None:
    from mcpgen.spec.source import load_yaml

    data, _, problems = load_yaml('a: "gift \\ud83c\\udf81"\n"\\ud83c\\udf81": 1\n', "spec.yaml")
    assert data == {"a": "gift \U0001f381", "\U0001f381": 1} and problems == []
