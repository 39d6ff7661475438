"""Chains of `$ref`s longer than the model generator can resolve are refused at validate,
at once and where they start (issue 19: a chain of ~200 definitions through arrays made
the build fail after almost five minutes, naming an arbitrary definition)."""

from __future__ import annotations

import time
from pathlib import Path

from helpers import validate_diagnostics, where, write_spec

from mcpgen.check.schema_depth import MAX_REF_CHAIN
from mcpgen.services.pipeline import validate


def _chain(length: int, local: bool = False) -> str:
    """A tool whose argument starts a chain of `length` definitions, each an array of the
    next: shared definitions, or the argument's own `$defs`."""
    prefix = "#/properties/d/$defs/" if local else "#/definitions/"
    entries = [
        f"D{i}: {{type: array, items: {{$ref: '{prefix}D{i + 1}'}}}}" if i < length else f"D{i}: {{type: string}}"
        for i in range(1, length + 1)
    ]
    head = 'mcpgen: 1\nserver: {name: s, version: "1"}\n'
    tool = "tools:\n  t:\n    inputSchema:\n      type: object\n      properties:\n"
    if local:
        return head + tool + f"        d:\n          $ref: '{prefix}D1'\n          $defs:\n" + "".join(f"            {e}\n" for e in entries)
    return head + "definitions:\n" + "".join(f"  {e}\n" for e in entries) + tool + "        d: {$ref: '#/definitions/D1'}\n"


def test_a_chain_at_the_limit_passes_and_one_past_it_is_refused_where_it_starts(tmp_path: Path) -> None:
    assert validate(write_spec(tmp_path, _chain(MAX_REF_CHAIN))) == []
    [error] = validate_diagnostics(write_spec(tmp_path, _chain(MAX_REF_CHAIN + 1)))
    assert error.severity == "error"
    assert f"a chain through {MAX_REF_CHAIN + 1} definitions (at most {MAX_REF_CHAIN})" in error.message
    assert where(error) == (MAX_REF_CHAIN + 1 + 9, 19)  # the value of the tool's `$ref`, after the definitions


def test_a_chain_of_local_definitions_counts_too(tmp_path: Path) -> None:
    [error] = validate_diagnostics(write_spec(tmp_path, _chain(150, local=True)))
    assert "a chain through 150 definitions" in error.message


def test_recursion_is_one_model_family_not_a_chain(tmp_path: Path) -> None:
    spec = (
        'mcpgen: 1\nserver: {name: s, version: "1"}\ndefinitions:\n'
        "  Node: {type: object, properties: {children: {type: array, items: {$ref: '#/definitions/Node'}}}}\n"
        "  Even: {type: object, properties: {next: {$ref: '#/definitions/Odd'}}}\n"
        "  Odd: {type: object, properties: {next: {$ref: '#/definitions/Even'}}}\n"
        "tools:\n  t:\n    inputSchema:\n      type: object\n"
        "      properties: {tree: {$ref: '#/definitions/Node'}, parity: {$ref: '#/definitions/Even'}}\n"
    )
    assert validate(write_spec(tmp_path, spec)) == []


def test_ten_thousand_chained_definitions_are_refused_in_seconds(tmp_path: Path) -> None:
    path = write_spec(tmp_path, _chain(10_000))
    started = time.process_time()
    diagnostics = validate_diagnostics(path)
    assert [d.message.split(":")[0] for d in diagnostics] == ["this $ref starts a chain through 10000 definitions (at most 100)"]
    assert time.process_time() - started < 30
