"""`mcpgen lint`: each rule of each profile, on data and at its limits; the spec's `lint:` key
in `validate` and `build`; the command line; and real servers' captured contracts.

A data case is a spec `tests/lint_cases/<profile>/<rule>.yaml` that breaks the rule, and
`<rule>-ok.yaml` that keeps it, each with the exact findings of that profile beside it in
`.expected` (empty when there are none), file names relative to tests/lint_cases. Write or
rewrite the `.expected` files from what mcpgen says now, then review the diff:

    MCPGEN_UPDATE_EXPECTED=1 pytest tests/test_lint.py

Rules about sizes and counts are tested in code, just below and just above their limit.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import (
    CORPUS,
    MINIMAL,
    corpus_spec,
    validate_diagnostics,
    where,
    write_spec,
)

from mcpgen import cli
from mcpgen.diagnostics import Diagnostic, SpecError
from mcpgen.lint import PROFILES, RULES, anthropic_strict, openai_strict, portable
from mcpgen.services import pipeline, spec_lint
from mcpgen.spec.format import LINT_PROFILES
from mcpgen.spec.source import SourceMap, load_yaml

CASES_DIR = Path(__file__).resolve().parent / "lint_cases"
UPDATE = os.environ.get("MCPGEN_UPDATE_EXPECTED") == "1"
CASES = sorted(path.relative_to(CASES_DIR).with_suffix("").as_posix() for path in CASES_DIR.rglob("*.yaml"))


def findings(spec: Path, *profiles: str) -> list[Diagnostic]:
    return spec_lint.lint(spec, profiles).findings


def rules_of(found: list[Diagnostic]) -> set[str | None]:
    return {finding.rule for finding in found}


@pytest.mark.parametrize("case", CASES)
def test_a_case_gives_exactly_the_expected_findings(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CASES_DIR)
    profile = case.split("/")[0]
    said = "".join(finding.render() + "\n" for finding in findings(Path(f"{case}.yaml"), profile))
    expected = CASES_DIR / f"{case}.expected"
    if UPDATE and (not expected.exists() or expected.read_text(encoding="utf-8") != said):
        expected.write_text(said, encoding="utf-8")
    assert expected.exists(), f"{expected.name} is missing; write it with MCPGEN_UPDATE_EXPECTED=1"
    assert said == expected.read_text(
        encoding="utf-8"
    ), "if on purpose: MCPGEN_UPDATE_EXPECTED=1 pytest tests/test_lint.py"


@pytest.mark.parametrize("case", [case for case in CASES if not case.endswith("-ok")])
def test_a_case_breaks_its_rule_and_its_ok_twin_keeps_it(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CASES_DIR)
    profile = case.split("/")[0]
    assert case in rules_of(findings(Path(f"{case}.yaml"), profile))
    assert f"{case}-ok" in CASES, "every failing case has a passing twin"
    assert case not in rules_of(findings(Path(f"{case}-ok.yaml"), profile))


# --- sizes and counts, at their limits ------------------------------------------------------


def _tools_spec(tools: dict[str, object]) -> str:
    return yaml.safe_dump({"mcpgen": 1, "server": {"name": "demo", "version": "1"}, "tools": tools})


def _closed(properties: dict[str, object], required: bool = True) -> dict[str, object]:
    schema: dict[str, object] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required and properties:
        schema["required"] = list(properties)
    return schema


def _one_tool(schema: dict[str, object]) -> str:
    return _tools_spec({"echo": {"inputSchema": schema}})


def _nested(levels: int) -> dict[str, object]:
    schema = _closed({"leaf": {"type": "string"}})
    for _ in range(levels - 1):
        schema = _closed({"inner": schema})
    return schema


def _enum(count: int, width: int = 1) -> dict[str, object]:
    return _closed({"choice": {"type": "string", "enum": [f"v{index:0{width}d}" for index in range(count)]}})


# For each rule, the spec text for a value of its limit.
LIMITS: dict[str, Callable[[int], str]] = {
    "openai-strict/nesting-depth": lambda n: _one_tool(_nested(n)),
    "openai-strict/property-count": lambda n: _one_tool(
        _closed({f"p{index}": {"type": "string"} for index in range(n)})
    ),
    "openai-strict/enum-count": lambda n: _one_tool(_enum(n)),
    "openai-strict/enum-size": lambda n: _one_tool(_enum(251, width=n)),
    "openai-strict/string-size": lambda n: _one_tool(_closed({"choice": {"type": "string", "enum": ["x" * n]}})),
    "anthropic-strict/tool-count": lambda n: _tools_spec(
        {f"t{index}": {"inputSchema": _closed({})} for index in range(n)}
    ),
    "anthropic-strict/optional-parameters": lambda n: _one_tool(
        _closed({f"p{index}": {"type": "string"} for index in range(n)}, required=False)
    ),
    "anthropic-strict/union-parameters": lambda n: _one_tool(
        _closed({f"p{index}": {"type": ["string", "null"]} for index in range(n)})
    ),
    "portable/tool-count": lambda n: _tools_spec(
        {f"t{index}": {"inputSchema": {"type": "object"}} for index in range(n)}
    ),
    "portable/description-length": lambda n: _tools_spec(
        {"echo": {"description": "d" * n, "inputSchema": {"type": "object"}}}
    ),
}
# The largest value each limit allows, in the terms of the spec each lambda writes.
WITHIN = {
    "openai-strict/nesting-depth": openai_strict.MAX_DEPTH,
    "openai-strict/property-count": openai_strict.MAX_PROPERTIES,
    "openai-strict/enum-count": openai_strict.MAX_ENUM_VALUES,
    "openai-strict/enum-size": openai_strict.MAX_LARGE_ENUM_LENGTH // 251 - 1,  # 251 values of 1 + this width
    "openai-strict/string-size": openai_strict.MAX_STRING_LENGTH - len("choice"),
    "anthropic-strict/tool-count": anthropic_strict.MAX_TOOLS,
    "anthropic-strict/optional-parameters": anthropic_strict.MAX_OPTIONAL,
    "anthropic-strict/union-parameters": anthropic_strict.MAX_UNIONS,
    "portable/tool-count": portable.MAX_TOOLS,
    "portable/description-length": portable.MAX_DESCRIPTION,
}


@pytest.mark.parametrize("rule", sorted(LIMITS))
def test_a_limit_holds_at_its_value_and_fails_past_it(rule: str, tmp_path: Path) -> None:
    profile = rule.split("/")[0]
    within = write_spec(tmp_path, LIMITS[rule](WITHIN[rule]), "within.yaml")
    beyond = write_spec(tmp_path, LIMITS[rule](WITHIN[rule] + 1), "beyond.yaml")
    assert rule not in rules_of(findings(within, profile))
    past = [finding for finding in findings(beyond, profile) if finding.rule == rule]
    assert len(past) == 1
    assert past[0].severity == next(r.severity for r in RULES if r.id == rule)


def _chained(levels: int) -> str:
    """`levels` objects deep through shared definitions, each used twice (a diamond, not a tree)."""
    definitions: dict[str, object] = {
        f"D{index}": _closed(
            {"a": {"$ref": f"#/definitions/D{index + 1}"}, "b": {"$ref": f"#/definitions/D{index + 1}"}}
        )
        for index in range(levels - 2)
    }
    definitions[f"D{levels - 2}"] = _closed({"leaf": {"type": "string"}})
    spec = yaml.safe_load(_one_tool(_closed({"x": {"$ref": "#/definitions/D0"}})))
    return yaml.safe_dump({**spec, "definitions": definitions})


def test_nesting_depth_counts_through_refs(tmp_path: Path) -> None:
    within = write_spec(tmp_path, _chained(openai_strict.MAX_DEPTH), "within.yaml")
    beyond = write_spec(tmp_path, _chained(30), "beyond.yaml")
    assert "openai-strict/nesting-depth" not in rules_of(findings(within, "openai-strict"))
    (deep,) = [
        finding for finding in findings(beyond, "openai-strict") if finding.rule == "openai-strict/nesting-depth"
    ]
    assert deep.message.endswith("nests objects 30 levels deep")


def test_every_rule_is_tested_and_documented() -> None:
    expected = "".join(path.read_text(encoding="utf-8") for path in CASES_DIR.rglob("*.expected"))
    reference = (Path(__file__).resolve().parent.parent / "docs" / "reference" / "lint-rules.md").read_text(encoding="utf-8")
    for rule in RULES:
        assert rule.id in CASES or rule.id in LIMITS, f"{rule.id} has no case"
        assert f"[{rule.id}]" in expected or rule.id in LIMITS, f"{rule.id} is never reported by its case"
        assert f"`{rule.id}`" in reference, f"{rule.id} is not in docs/reference/lint-rules.md"
        assert rule.source and rule.hint


def test_the_format_declares_exactly_the_profiles() -> None:
    assert tuple(PROFILES) == LINT_PROFILES
    assert {rule.profile for rule in RULES} == set(LINT_PROFILES)
    assert len({rule.id for rule in RULES}) == len(RULES)


# --- which profiles run, and the spec's `lint:` key ------------------------------------------

LOOSE = MINIMAL  # `text` is not closed with additionalProperties: false


def test_without_profiles_lint_uses_the_spec_list_else_portable(tmp_path: Path) -> None:
    assert spec_lint.lint(write_spec(tmp_path, LOOSE)).profiles == ("portable",)
    selected = write_spec(tmp_path, LOOSE + "lint: [openai-strict]\n", "selected.yaml")
    assert spec_lint.lint(selected).profiles == ("openai-strict",)
    assert spec_lint.lint(selected, ["anthropic-strict", "portable"]).profiles == ("anthropic-strict", "portable")


def test_the_spec_lint_key_makes_validate_warn(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, LOOSE + "lint: [openai-strict]\n")
    warned = validate_diagnostics(spec)
    assert rules_of(warned) == {"openai-strict/additional-properties"}
    assert all(warning.severity == "warning" for warning in warned)
    with pytest.raises(SpecError) as failed:
        pipeline.validate(spec, strict=True)
    assert rules_of(failed.value.diagnostics) == {"openai-strict/additional-properties"}


def test_without_the_lint_key_validate_says_nothing_about_profiles(tmp_path: Path) -> None:
    assert pipeline.validate(write_spec(tmp_path, LOOSE)) == []


def test_an_unknown_profile_in_the_spec_is_an_error(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, LOOSE + "lint: [gemini]\n")
    with pytest.raises(SpecError) as failed:
        spec_lint.lint(spec)
    (error,) = failed.value.diagnostics
    assert error.is_error and error.position.line == 9 and "gemini" in error.message


@pytest.mark.slow
def test_build_prints_the_lint_warnings_and_fails_under_strict(tmp_path: Path) -> None:
    from helpers import run_mcpgen

    (tmp_path / ".git").mkdir()
    spec = write_spec(tmp_path, LOOSE + "lint: [openai-strict]\n")
    built = run_mcpgen("build", str(spec), cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    assert "warning: [openai-strict/additional-properties]" in built.stderr
    assert "1 warning" in built.stderr
    strict = run_mcpgen("build", "--force", "--strict", str(spec), cwd=tmp_path)
    assert strict.returncode == 1
    assert "error: [openai-strict/additional-properties]" not in strict.stderr  # a warning, counted as an error
    assert "(--strict: warnings are errors)" in strict.stderr


# --- the command line ------------------------------------------------------------------------


def test_cli_exits_1_on_errors_and_0_on_warnings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = write_spec(tmp_path, LOOSE.replace("echo:", "files.read:"))
    assert cli.main(["lint", str(spec)]) == 1
    out, err = capsys.readouterr()
    assert f"{spec}:4:3: error: [portable/tool-name] tool name 'files.read' is not portable\n  hint: " in out
    assert err == f"{spec}: portable: 1 error\n"
    closed = write_spec(tmp_path, LOOSE, "loose.yaml")
    assert cli.main(["lint", str(closed), "--profile", "anthropic-strict"]) == 0
    out, err = capsys.readouterr()
    assert "warning: [anthropic-strict/closed-objects]" in out
    assert err == f"{closed}: anthropic-strict: 1 warning\n"
    assert cli.main(["lint", str(closed), "--profile", "anthropic-strict", "--strict"]) == 1
    assert capsys.readouterr().err.endswith("1 warning (--strict: warnings are errors)\n")


def test_cli_profiles_repeat_and_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = write_spec(tmp_path, LOOSE)
    assert cli.main(["lint", str(spec), "--profile", "openai-strict", "--profile", "portable", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["profiles"] == ["openai-strict", "portable"]
    (finding,) = report["findings"]
    assert finding == {
        "file": str(spec),
        "line": 5,
        "column": 5,
        "severity": "error",
        "rule": "openai-strict/additional-properties",
        "message": "this object does not set `additionalProperties: false`",
        "hint": openai_strict.ADDITIONAL_PROPERTIES.hint,
    }


def test_cli_a_clean_spec_and_a_broken_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["lint", str(write_spec(tmp_path, LOOSE))]) == 0
    assert capsys.readouterr().err.endswith(": portable: no findings\n")
    broken = write_spec(tmp_path, LOOSE.replace("type: object", "type: objekt"), "broken.yaml")
    assert cli.main(["lint", str(broken)]) == 1
    assert "'objekt' is not a JSON Schema type" in capsys.readouterr().err
    assert cli.main(["lint", str(broken), "--profile", "gemini"]) == 2


# --- real servers ----------------------------------------------------------------------------

SERVERS = sorted(path.stem for path in CORPUS.glob("*.json"))


def _corpus_lint(name: str, tmp_path: Path) -> tuple[dict[str, Any], SourceMap, list[Diagnostic]]:
    """A captured server as a spec, where its parts are written, and all three profiles' findings."""
    capture = json.loads((CORPUS / f"{name}.json").read_text())
    spec = tmp_path / f"{name}.yaml"
    spec.write_text(yaml.safe_dump(corpus_spec(capture, f"corpus_{name}"), sort_keys=False, allow_unicode=True))
    _, source, _ = load_yaml(spec.read_text(), str(spec))
    return capture, source, findings(spec, *LINT_PROFILES)


def _at(found: list[Diagnostic], rule: str) -> set[tuple[int, int]]:
    return {where(finding) for finding in found if finding.rule == rule}


@pytest.mark.parametrize("name", SERVERS)
def test_corpus_servers_lint_and_every_finding_is_positioned(name: str, tmp_path: Path) -> None:
    _, _, found = _corpus_lint(name, tmp_path)
    assert found, "real servers' schemas are not written for strict modes"
    for finding in found:
        assert finding.position.line > 1 and finding.hint
        assert finding.rule in {rule.id for rule in RULES}


def test_corpus_time_server_leaves_its_arguments_open(tmp_path: Path) -> None:
    capture, source, found = _corpus_lint("time", tmp_path)
    open_inputs = {
        position(source, ("tools", tool["name"], "inputSchema"))
        for tool in capture["tools"]
        if tool["inputSchema"].get("additionalProperties") is not False
    }
    assert len(open_inputs) == 2  # get_current_time and convert_time
    assert open_inputs <= _at(found, "openai-strict/additional-properties")
    assert open_inputs <= _at(found, "anthropic-strict/closed-objects")
    assert {finding.rule for finding in found if finding.is_error} == {"openai-strict/additional-properties"}


def test_corpus_filesystem_server_declares_draft_07_everywhere(tmp_path: Path) -> None:
    capture, source, found = _corpus_lint("filesystem", tmp_path)
    declared = {
        position(source, ("tools", tool["name"], key, "$schema"), at_value=True)
        for tool in capture["tools"]
        for key in ("inputSchema", "outputSchema")
        if tool.get(key, {}).get("$schema") == "http://json-schema.org/draft-07/schema#"
    }
    assert len(declared) == 28  # 14 tools, input and output
    assert _at(found, "portable/dialect") == declared


def test_corpus_everything_server_uses_constraints_strict_modes_lack(tmp_path: Path) -> None:
    _, source, found = _corpus_lint("everything", tmp_path)
    count = ("tools", "get-resource-links", "inputSchema", "properties", "count")
    assert _at(found, "anthropic-strict/unsupported-keyword") == {
        position(source, count + ("minimum",)),
        position(source, count + ("maximum",)),
    }
    data = ("tools", "gzip-file-as-resource", "inputSchema", "properties", "data", "format")
    assert _at(found, "openai-strict/format") == {position(source, data, at_value=True)}


def position(source: SourceMap, path: tuple[str, ...], at_value: bool = False) -> tuple[int, int]:
    found = source.value(path) if at_value else source.key(path)
    return found.line, found.column
