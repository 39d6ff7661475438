"""Unit tests of the spec YAML loader, `mcpgen.spec.source.load_yaml`.

It resolves scalars by YAML 1.2's core schema, records the 1-based line and column of
every key and value, and turns every problem into a `file:line:col` diagnostic.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap

import pytest
from helpers import ROOT, where

from mcpgen.diagnostics import Diagnostic, Position, SpecError
from mcpgen.spec.source import MAX_NODES, SourceMap, load_yaml

FILE = "spec.yaml"


def load(text: str) -> tuple[object, SourceMap]:
    data, source, found = load_yaml(textwrap.dedent(text), FILE)
    assert found == [], "a clean document loads without problems"
    return data, source


def problems(text: str) -> list[Diagnostic]:
    """The diagnostics of a document with problems: fatal ones raise, the rest are returned."""
    try:
        _, _, found = load_yaml(textwrap.dedent(text), FILE)
    except SpecError as error:
        found = error.diagnostics
    assert found, "a bad document must produce at least one diagnostic"
    return found


# --- YAML 1.2 core schema scalars ------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        # YAML 1.1 booleans are plain strings under the 1.2 core schema.
        ("no", "no"),
        ("yes", "yes"),
        ("on", "on"),
        ("off", "off"),
        ("y", "y"),
        ("Yes", "Yes"),
        # Only true/false (in three spellings) are booleans.
        ("true", True),
        ("True", True),
        ("TRUE", True),
        ("false", False),
        ("False", False),
        # Dates and times are not resolved: they stay strings.
        ("2024-01-01", "2024-01-01"),
        ("2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00"),
        ("1:30", "1:30"),  # a YAML 1.1 sexagesimal number (90), a string in 1.2
        # Integers: decimal, 0x hex, 0o octal; 1.1-only forms stay strings.
        ("42", 42),
        ("-3", -3),
        ("+7", 7),
        ("012", 12),  # decimal in 1.2 (octal 10 in 1.1)
        ("0x1F", 31),
        ("0o17", 15),
        ("0b101", "0b101"),
        ("1_000", "1_000"),
        ("0o8", "0o8"),
        # Floats.
        ("1.5", 1.5),
        ("-0.25", -0.25),
        ("1e3", 1000.0),
        ("1.", 1.0),
        (".5", 0.5),
        (".inf", math.inf),
        ("-.inf", -math.inf),
        # Nulls.
        ("null", None),
        ("Null", None),
        ("NULL", None),
        ("~", None),
        ("", None),
        ("nULL", "nULL"),
        # Quoting always makes a string.
        ("'5'", "5"),
        ('"true"', "true"),
        ("'null'", "null"),
    ],
)
def test_core_schema_scalars(written: str, expected: object) -> None:
    data, _ = load(f"value: {written}\n")
    assert data == {"value": expected}
    # `True == 1` and `1.0 == 1` in Python: the type must match too.
    assert type(data["value"]) is type(expected)


@pytest.mark.parametrize("written", [".nan", ".NaN", ".NAN"])
def test_nan(written: str) -> None:
    data, _ = load(f"value: {written}\n")
    assert isinstance(data["value"], float) and math.isnan(data["value"])  # type: ignore[index]


def test_a_yaml_1_1_directive_does_not_bring_back_1_1_booleans() -> None:
    data, _ = load("%YAML 1.1\n---\nflag: yes\n")
    assert data == {"flag": "yes"}


def test_nested_collections_load_as_plain_json_data() -> None:
    data, _ = load(
        """\
        server:
          name: s
          tags: [a, b]
        tools:
          - {name: x, n: 1}
        """
    )
    assert data == {"server": {"name": "s", "tags": ["a", "b"]}, "tools": [{"name": "x", "n": 1}]}


def test_explicit_str_and_collection_tags_are_allowed() -> None:
    data, _ = load("a: !!str 5\nb: !!map {c: 1}\nd: !!seq [1]\n")
    assert data == {"a": "5", "b": {"c": 1}, "d": [1]}


def test_an_alias_copies_the_anchored_value() -> None:
    data, _ = load("base: &b {x: 1}\nother: *b\n")
    assert data == {"base": {"x": 1}, "other": {"x": 1}}


def test_merge_key_is_not_special_in_yaml_1_2() -> None:
    # `<<` merge keys are a YAML 1.1 extension; under 1.2 `<<` is an ordinary key
    # (which the spec checks then report as unknown).
    data, _ = load("<<: {a: 1}\nb: 2\n")
    assert data == {"<<": {"a": 1}, "b": 2}


# --- positions -------------------------------------------------------------------------------

DOCUMENT = """\
mcpgen: 1
server:
  name: demo
  tags: [a, bb]
tools:
  echo: {inputSchema: {type: object}}
"""


def test_key_positions_are_1_based_lines_and_columns() -> None:
    _, source = load(DOCUMENT)
    assert source.file == FILE
    assert source.keys[("mcpgen",)] == Position(1, 1)
    assert source.keys[("server",)] == Position(2, 1)
    assert source.keys[("server", "name")] == Position(3, 3)
    assert source.keys[("server", "tags")] == Position(4, 3)
    assert source.keys[("tools", "echo")] == Position(6, 3)
    assert source.keys[("tools", "echo", "inputSchema")] == Position(6, 10)
    assert source.keys[("tools", "echo", "inputSchema", "type")] == Position(6, 24)


def test_value_positions_are_1_based_lines_and_columns() -> None:
    _, source = load(DOCUMENT)
    assert source.values[()] == Position(1, 1)
    assert source.values[("mcpgen",)] == Position(1, 9)
    assert source.values[("server",)] == Position(3, 3)  # a block mapping starts at its first key
    assert source.values[("server", "name")] == Position(3, 9)
    assert source.values[("server", "tags")] == Position(4, 9)
    assert source.values[("server", "tags", 0)] == Position(4, 10)
    assert source.values[("server", "tags", 1)] == Position(4, 13)
    assert source.values[("tools", "echo")] == Position(6, 9)
    assert source.values[("tools", "echo", "inputSchema", "type")] == Position(6, 30)


def test_sequences_have_value_positions_but_no_key_positions() -> None:
    _, source = load("- a\n- b\n")
    assert source.values[(0,)] == Position(1, 3)
    assert source.values[(1,)] == Position(2, 3)
    assert (0,) not in source.keys


def test_source_map_falls_back_to_the_nearest_enclosing_position() -> None:
    _, source = load(DOCUMENT)
    # A key the document does not have (say, a missing required key) is reported at its parent.
    assert source.key(("server", "version")) == Position(2, 1)
    assert source.value(("server", "version")) == Position(3, 3)
    # A list item has no key: its value position is used.
    assert source.key(("server", "tags", 1)) == Position(4, 13)
    assert source.key(()) == Position(1, 1)


def test_source_map_error_builds_a_diagnostic_at_the_key_or_the_value() -> None:
    _, source = load(DOCUMENT)
    at_key = source.error(("server", "name"), "bad name", "rename it")
    at_value = source.error(("server", "name"), "bad name", at_value=True)
    assert at_key == Diagnostic(FILE, Position(3, 3), "bad name", "rename it")
    assert at_value == Diagnostic(FILE, Position(3, 9), "bad name", None)


def test_positions_with_crlf_line_ends_and_a_byte_order_mark() -> None:
    _, source, _ = load_yaml("\ufeffa: 1\r\nb:\r\n  c: 2\r\n", FILE)
    assert source.keys[("a",)] == Position(1, 1)
    assert source.keys[("b", "c")] == Position(3, 3)
    assert source.values[("b", "c")] == Position(3, 6)


# --- duplicate keys --------------------------------------------------------------------------


def test_a_duplicate_key_is_an_error_naming_both_lines() -> None:
    [problem] = problems(
        """\
        a: 1
        b: 2
        a: 3
        """
    )
    assert where(problem) == (3, 1)
    assert problem.message == "duplicate key 'a' (first defined at line 1)"
    assert problem.hint is not None and "once" in problem.hint


def test_a_nested_duplicate_key_is_reported_where_it_is() -> None:
    [problem] = problems(
        """\
        tools:
          echo:
            title: x
            title: y
        """
    )
    assert where(problem) == (4, 5)
    assert "duplicate key 'title'" in problem.message and "line 3" in problem.message


def test_quoting_does_not_hide_a_duplicate_key() -> None:
    [problem] = problems("a: 1\n'a': 2\n")
    assert where(problem) == (2, 1)
    assert "duplicate key 'a'" in problem.message


def test_every_repeat_of_a_key_is_reported() -> None:
    found = problems("a: 1\na: 2\na: 3\n")
    assert [where(d) for d in found] == [(2, 1), (3, 1)]
    assert all("first defined at line 1" in d.message for d in found)


# --- invalid YAML ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "position", "problem"),
    [
        ("a: b: c\n", (1, 5), "mapping values are not allowed here"),
        ("a: [1\n", (2, 1), "expected ',' or ']'"),
        ("a: 1\n\tb: 2\n", (2, 1), "cannot start any token"),
        ('a: "\\x"\n', (1, 7), "escape sequence"),
        ("a: 1\n---\nb: 2\n", (2, 1), "another document"),
        ("a:\n  b: 1\n c: 2\n", (3, 2), "expected <block end>"),
    ],
)
def test_invalid_yaml_is_a_positioned_diagnostic(text: str, position: tuple[int, int], problem: str) -> None:
    [diagnostic] = problems(text)
    assert where(diagnostic) == position
    assert diagnostic.message.startswith("invalid YAML")
    assert problem in diagnostic.message
    assert diagnostic.render().startswith(f"{FILE}:{position[0]}:{position[1]}: error: invalid YAML")


def test_invalid_yaml_raises_spec_error_not_a_yaml_exception() -> None:
    with pytest.raises(SpecError) as caught:
        load_yaml("a: [1\n", FILE)
    assert caught.value.__cause__ is None  # `from None`: no PyYAML chain in the user's face
    assert str(caught.value).startswith(f"{FILE}:2:1: error: invalid YAML")


# --- keys must be strings --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "position", "shown"),
    [
        ("1: x\n", (1, 1), "'1'"),
        ("1.5: x\n", (1, 1), "'1.5'"),
        ("true: x\n", (1, 1), "'true'"),
        ("null: x\n", (1, 1), "'null'"),
        ("tools:\n  404: {}\n", (2, 3), "'404'"),
        ("[a]: x\n", (1, 1), "'a collection'"),
        ("? {a: 1}\n: x\n", (1, 3), "'a collection'"),
    ],
)
def test_non_string_keys_are_rejected(text: str, position: tuple[int, int], shown: str) -> None:
    [problem] = problems(text)
    assert where(problem) == position
    assert problem.message == f"mapping keys must be strings, not {shown}"
    assert problem.hint == "quote the key"


def test_a_quoted_number_is_a_string_key() -> None:
    data, source = load("'1': x\n")
    assert data == {"1": "x"}
    assert source.keys[("1",)] == Position(1, 1)


# --- tags ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tag"),
    [
        ("a: !!python/object:os.system x\n", "tag:yaml.org,2002:python/object:os.system"),
        ("a: !!python/name:os.system ''\n", "tag:yaml.org,2002:python/name:os.system"),
        ("a: !custom x\n", "!custom"),
        ("a: !!binary aGVsbG8=\n", "tag:yaml.org,2002:binary"),
        ("a: !!timestamp 2001-01-01\n", "tag:yaml.org,2002:timestamp"),
    ],
)
def test_unsupported_scalar_tags_are_rejected(text: str, tag: str) -> None:
    [problem] = problems(text)
    assert where(problem) == (1, 4)
    assert problem.message == f"unsupported YAML tag {tag!r}"
    assert problem.hint == "specs use plain JSON-compatible values"


@pytest.mark.parametrize(
    "text",
    [
        "a: !!python/object/apply:os.system [ls]\n",
        "a: !!python/object:mod.Cls {b: 1}\n",
        "a: !!set {b, c}\n",
        "a: !!omap [{b: 1}]\n",
        "a: !custom [1]\n",
    ],
)
def test_unsupported_collection_tags_are_rejected(text: str) -> None:
    [problem] = problems(text)
    assert where(problem) == (1, 4)
    assert problem.message.startswith("unsupported YAML tag")


@pytest.mark.parametrize("text", ["a: !!int x\n", "a: !!float x\n"])
def test_an_explicit_number_tag_on_a_non_number_is_a_diagnostic(text: str) -> None:
    [problem] = problems(text)
    assert where(problem) == (1, 4)


@pytest.mark.parametrize("text", ["a: !!bool yes\n", "a: !!null x\n"])
def test_an_explicit_tag_that_does_not_fit_the_text_is_a_diagnostic(text: str) -> None:
    [problem] = problems(text)
    assert where(problem) == (1, 4)


# --- alias bombs and other resource exhaustion -----------------------------------------------


def _billion_laughs(levels: int = 9, width: int = 9) -> str:
    lines = ["a: &a [" + ", ".join(["lol"] * width) + "]"]
    names = "abcdefghijklmnopqrstuvwxyz"
    for previous, name in zip(names, names[1 : levels + 1], strict=False):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * width) + "]")
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_quickly_with_a_clear_error() -> None:
    # 9**10 (~3.5e9) expanded nodes: building it would hang and exhaust memory. It runs in a
    # subprocess with a timeout so that a missing guard fails the test instead of hanging the run.
    script = textwrap.dedent(
        """\
        import json, sys
        from mcpgen.diagnostics import SpecError
        from mcpgen.spec.source import load_yaml
        try:
            load_yaml(sys.stdin.read(), "bomb.yaml")
        except SpecError as error:
            print(json.dumps([d.render() for d in error.diagnostics]))
        else:
            print(json.dumps(None))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], input=_billion_laughs(), capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    rendered = json.loads(result.stdout)
    assert rendered is not None, "the alias bomb loaded"
    assert len(rendered) == 1
    assert rendered[0].startswith("bomb.yaml:")
    assert "error: the document is too large" in rendered[0]


def test_a_document_just_under_the_node_limit_still_loads() -> None:
    items = ", ".join(["1"] * 1000)
    data, _ = load(f"a: &a [{items}]\nb: [*a, *a, *a]\n")
    assert len(data["b"]) == 3 and len(data["b"][0]) == 1000  # type: ignore[index]
    assert 5000 < MAX_NODES


@pytest.mark.parametrize("text", ["a: &x [*x]\n", "a: &x {b: *x}\n"])
def test_a_recursive_alias_is_a_diagnostic(text: str) -> None:
    [problem] = problems(text)
    assert problem.position.line == 1


@pytest.mark.slow  # about 0.7 s
def test_very_deep_nesting_is_a_diagnostic() -> None:
    [problem] = problems("a: " + "[" * 3000 + "]" * 3000 + "\n")
    assert problem.position.line == 1


# --- empty documents -------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "\n\n", "   \n", "# only a comment\n"])
def test_an_empty_document_is_an_error(text: str) -> None:
    [problem] = problems(text)
    assert where(problem) == (1, 1)
    assert problem.message == "the spec is empty"
    assert problem.hint is not None and "mcpgen init" in problem.hint


def test_a_bare_document_marker_loads_as_null() -> None:
    # `---` alone is a document holding null (the spec checks then say it is not a mapping).
    data, source = load("---\n")
    assert data is None
    assert source.values[()] == Position(2, 1)


# --- several problems at once ----------------------------------------------------------------


def test_every_loader_problem_is_reported_in_one_run_sorted_by_position() -> None:
    found = problems(
        """\
        b: !custom x
        1: one
        a: 1
        a: 2
        """
    )
    assert [where(d) for d in found] == [(1, 4), (2, 1), (4, 1)]
    assert found[0].message.startswith("unsupported YAML tag")
    assert found[1].message.startswith("mapping keys must be strings")
    assert found[2].message.startswith("duplicate key 'a'")


def test_libyaml_gives_the_same_nodes_and_positions_as_the_pure_python_parser() -> None:
    import yaml

    from mcpgen.spec import source

    texts = [path.read_text(encoding="utf-8") for path in sorted((ROOT / "specs").glob("*.yaml"))]
    texts.append("a: «ünïcödé» ✓\nb:\n  - {c: 'd', e: \"f\"}\n  - |\n    g\n    h\nk: [1, 2.5, true, null]\n")

    def nodes(loader: type, text: str) -> list[tuple[object, ...]]:
        found: list[tuple[object, ...]] = []

        def walk(node: yaml.Node) -> None:
            start, end = node.start_mark, node.end_mark
            found.append((node.tag, node.value if isinstance(node, yaml.ScalarNode) else None, start.line, start.column, end.line, end.column))
            if isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    walk(key)
                    walk(value)
            elif isinstance(node, yaml.SequenceNode):
                for item in node.value:
                    walk(item)

        root = loader(text).get_single_node()
        walk(root)
        return found

    assert yaml.__with_libyaml__, "PyYAML without libyaml: specs load, but slower"
    for text in texts:
        assert nodes(source._FastLoader, text) == nodes(source._Loader, text)


def test_a_large_document_may_have_as_many_nodes_as_characters() -> None:
    # 10,000 tools make a spec of millions of nodes; the alias-bomb limit grows with the text.
    items = ", ".join(["1"] * (MAX_NODES + 10))
    data, _ = load(f"a: [{items}]\n")
    assert len(data["a"]) == MAX_NODES + 10  # type: ignore[index]
