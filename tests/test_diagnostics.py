"""Spec checking end to end, beyond one exact output: specs that must load, how diagnostics
render and sort, many problems reported in one run, and the command line.

Bad specs with exactly the diagnostics they give are data, in tests/bad_specs (run by
test_bad_specs.py). Every bad spec below is written out in full, so the line numbers in the
assertions can be read off the YAML: line 1 is `mcpgen: 1`, line 2 the `server`, and so on.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers import GIFT_SPEC, mcpgen_executable, spec_diagnostics, where, write_spec

from mcpgen.cli import main
from mcpgen.diagnostics import Diagnostic, Position, SpecError
from mcpgen.services.spec_loading import load_spec

# The smallest valid spec: one tool `t` taking any object.
ONE_TOOL = """\
mcpgen: 1
server: {name: s, version: "1"}
tools:
  t:
    inputSchema: {type: object}
"""


def diagnostics(directory: Path, text: str) -> list[Diagnostic]:
    """Every diagnostic of a spec that must fail to load."""
    return spec_diagnostics(write_spec(directory, text))


def only(directory: Path, text: str) -> Diagnostic:
    """The one diagnostic of a spec with exactly one problem."""
    found = diagnostics(directory, text)
    assert len(found) == 1, "\n".join(d.render() for d in found)
    return found[0]


# --- the baseline ----------------------------------------------------------------------------


def test_the_minimal_spec_is_valid(tmp_path: Path) -> None:
    spec, raw, warnings = load_spec(write_spec(tmp_path, ONE_TOOL))
    assert [tool.name for tool in spec.tools] == ["t"]
    assert raw == ONE_TOOL.encode()
    assert warnings == []


def test_the_gift_server_example_is_valid_without_warnings() -> None:
    spec, _, warnings = load_spec(GIFT_SPEC, strict=True)
    assert spec.server.name == "gift-server" and warnings == []


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


# --- structure ------------------------------------------------------------------------------


def test_the_rendered_diagnostic_carries_the_hint(tmp_path: Path) -> None:
    path = write_spec(tmp_path, ONE_TOOL.replace("    inputSchema", "    descripton: x\n    inputSchema"))
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert str(caught.value) == (
        f"{path}:5:5: error: unknown key 'descripton' in tools.t\n  hint: did you mean 'description'?"
    )


def test_a_quoted_format_version_gets_a_useful_hint(tmp_path: Path) -> None:
    diagnostic = only(tmp_path, "mcpgen: '1'\nserver: {name: s, version: \"1\"}\n")
    assert where(diagnostic) == (1, 9)
    assert diagnostic.hint != "did you mean '1'?"


# --- JSON Schemas inside the spec ------------------------------------------------------------


def test_type_inside_an_unknown_keyword_is_not_checked(tmp_path: Path) -> None:
    spec, _, _ = load_spec(
        write_spec(tmp_path, ONE_TOOL.replace("{type: object}", "{type: object, x-kind: {type: whatever}}"))
    )
    assert spec.tools[0].input_schema["x-kind"] == {"type": "whatever"}


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


def test_a_good_ref_is_accepted(tmp_path: Path) -> None:
    spec, _, _ = load_spec(write_spec(tmp_path, REF_SPEC.format(ref="#/definitions/Occasion")))
    assert "Occasion" in spec.definitions


# --- tool names ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a" * 64, "get.x-y_Z9", "x"])
def test_tool_names_inside_the_mcp_pattern(tmp_path: Path, name: str) -> None:
    spec, _, _ = load_spec(write_spec(tmp_path, ONE_TOOL.replace("  t:", f"  {name}:")))
    assert [tool.name for tool in spec.tools] == [name]


# --- resources -------------------------------------------------------------------------------


@pytest.mark.parametrize("mime", ["application/json", "'application/json; charset=utf-8'", "application/ld+json"])
def test_json_mime_types_allow_a_schema(tmp_path: Path, mime: str) -> None:
    text = 'mcpgen: 1\nserver: {name: s, version: "1"}\nresources:\n  r:\n    uri: data://r\n'
    text += f"    mimeType: {mime}\n    schema: {{type: object}}\n"
    spec, _, _ = load_spec(write_spec(tmp_path, text))
    assert spec.resources[0].schema == {"type": "object"}


def test_a_widget_link_to_a_declared_resource_is_fine(tmp_path: Path) -> None:
    spec, _, _ = load_spec(
        write_spec(
            tmp_path,
            ONE_TOOL
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


def test_a_good_prompt_template(tmp_path: Path) -> None:
    spec, _, _ = load_spec(write_spec(tmp_path, PROMPT_SPEC.format(text="A card for {{occasion}} and {{ occasion }}")))
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
    path = write_spec(tmp_path, ONE_TOOL.replace("{type: object}", "{type: array}").replace('"1"', "1"))
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
    path = write_spec(tmp_path, "mcpgen: 2\nserver: {name: s, version: '1'}\n")
    assert main(["validate", str(path)]) == 1
    assert capsys.readouterr().err.endswith("\n1 error\n")


@pytest.mark.parametrize("command", ["build", "check"])
def test_build_and_check_refuse_a_bad_spec_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    path = write_spec(tmp_path, "mcpgen: 2\nserver: {name: s, version: '1'}\n")
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
    assert err == f"{missing}:1:1: error: the spec does not exist\n  hint: check the path; `mcpgen init` starts one\n1 error\n"


@pytest.mark.parametrize(
    ("kind", "message"), [("directory", "this is a folder, not a spec"), ("not UTF-8", "the spec is not UTF-8 text")]
)
def test_an_unreadable_spec_is_a_diagnostic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, message: str
) -> None:
    if kind == "directory":
        path = tmp_path / "spec.yaml"
        path.mkdir()
    else:
        path = tmp_path / "spec.yaml"
        path.write_bytes(b"mcpgen: 1\nserver: {name: \xff}\n")
    assert main(["validate", str(path)]) == 1
    assert capsys.readouterr().err.startswith(f"{path}:1:1: error: {message}\n  hint: ")


def test_invalid_yaml_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_spec(tmp_path, "mcpgen: 1\nserver: {name: s, version: '1'\n")
    assert main(["validate", str(path)]) == 1
    assert capsys.readouterr().err.startswith(f"{path}:3:1: error: invalid YAML: ")


def test_validate_never_crashes_on_a_malformed_prompt(tmp_path: Path) -> None:
    path = write_spec(tmp_path, 'mcpgen: 1\nserver: {name: s, version: "1"}\nprompts:\n  p:\n    arguments: 5\n')
    assert main(["validate", str(path)]) == 1


def test_the_installed_command_reports_a_bad_spec_without_a_traceback(tmp_path: Path) -> None:
    path = write_spec(tmp_path, ONE_TOOL.replace("inputSchema", "inputSchem"))
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
    assert result.stderr.startswith(f"{missing}:1:1: error: the spec does not exist")


