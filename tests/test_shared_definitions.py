"""Shared-definition extraction (`mcpgen.importer.shared`): near-linear, and the same output
as the plain fixpoint it replaced.

The plain algorithm is kept below as the reference (`reference_extract`, the code as it
was before the rework): it recomputed every candidate's refs on each round of its fixpoint,
so a chain of N definitions that differ only at the end took N rounds of N (21 s at 4,000,
147 s at 8,000). The rework must give the very same definitions and tools, key order
included, on every input the tests have: the corpus, the import tests' tools, and random
tool sets built to hit its corners (names with two contents, refs that leave the shared
set, pointers into the schema's root, escaped names).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from helpers import CORPUS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_import import SHARED_TOOLS

from mcpgen.importer.shared import extract_shared_definitions
from mcpgen.spec.json_schema import (
    DEFINITIONS_PREFIX,
    LOCAL_PREFIX,
    bundle,
    iter_refs,
    rewrite_refs,
    split_ref,
    used_definitions,
)
from mcpgen.utils.json_types import Json, canonical

# --- the reference: the plain fixpoint, as it was ---------------------------------------------

_SCHEMA_KEYS = ("inputSchema", "outputSchema")


def _own_definitions(schema: Json) -> dict[str, Json]:
    found = schema.get("$defs") if isinstance(schema, dict) else None
    return found if isinstance(found, dict) else {}


def _reference_candidates(schemas: list[dict[str, Json]]) -> dict[str, Json]:
    contents: dict[str, set[str]] = {}
    counts: dict[str, int] = {}
    first: dict[str, Json] = {}
    for schema in schemas:
        for name, definition in _own_definitions(schema).items():
            contents.setdefault(name, set()).add(canonical(definition))
            counts[name] = counts.get(name, 0) + 1
            first.setdefault(name, definition)
    shared = {name: first[name] for name, texts in contents.items() if len(texts) == 1 and counts[name] > 1}
    while True:
        movable = {
            name: definition
            for name, definition in shared.items()
            if all((split_ref(ref, LOCAL_PREFIX) or ("",))[0] in shared for _, ref in iter_refs(definition))
        }
        if movable.keys() == shared.keys():
            return shared
        shared = movable


def _to_shared(names: set[str]) -> Any:
    def rewrite(ref: str) -> str:
        split = split_ref(ref, LOCAL_PREFIX)
        if split is not None and split[0] in names:
            return DEFINITIONS_PREFIX + ref[len(LOCAL_PREFIX) :]
        return ref

    return rewrite


def _reference_rewritten(schema: dict[str, Json], names: set[str]) -> dict[str, Json]:
    rewritten: dict[str, Json] = rewrite_refs(schema, _to_shared(names))
    own = {name: value for name, value in _own_definitions(rewritten).items() if name not in names}
    if own:
        rewritten["$defs"] = own
    else:
        rewritten.pop("$defs", None)
    return rewritten


def reference_extract(tools: dict[str, dict[str, Json]]) -> tuple[dict[str, Json], dict[str, dict[str, Json]]]:
    schemas = [tool[key] for tool in tools.values() for key in _SCHEMA_KEYS if isinstance(tool.get(key), dict)]
    shared = _reference_candidates(schemas)
    if not shared:
        return {}, tools
    names = set(shared)
    definitions = {name: rewrite_refs(shared[name], _to_shared(names)) for name in sorted(names)}
    result: dict[str, dict[str, Json]] = {}
    for tool_name, tool in tools.items():
        result[tool_name] = dict(tool)
        for key in _SCHEMA_KEYS:
            original = tool.get(key)
            if not isinstance(original, dict):
                continue
            if not names & _own_definitions(original).keys():
                continue
            candidate = _reference_rewritten(original, names)
            if canonical(bundle(candidate, definitions)) == canonical(original):
                result[tool_name][key] = candidate
    used = {
        name
        for tool in result.values()
        for key in _SCHEMA_KEYS
        if isinstance(tool.get(key), dict)
        for name in used_definitions(tool[key], definitions)
    }
    return {name: definition for name, definition in definitions.items() if name in used}, result


# --- equal to the reference ------------------------------------------------------------------


def _exactly(value: Json) -> str:
    """Equal texts: equal values with their keys in the same order (the YAML keeps it)."""
    return json.dumps(value, ensure_ascii=False)


def _assert_as_the_reference(tools: dict[str, dict[str, Json]]) -> tuple[dict[str, Json], dict[str, Json]]:
    expected = reference_extract(copy.deepcopy(tools))
    given_tools = copy.deepcopy(tools)
    got = extract_shared_definitions(given_tools)
    assert given_tools == tools, "the tools given were changed"
    assert _exactly(got) == _exactly(expected)
    return got


def _corpus_tools() -> dict[str, dict[str, dict[str, Json]]]:
    files = sorted(CORPUS.glob("*.json"))
    return {str(path): _tools(json.loads(path.read_text())) for path in files}


def _tools(capture: dict[str, Json]) -> dict[str, dict[str, Json]]:
    return {tool["name"]: {k: v for k, v in tool.items() if k != "name"} for tool in capture.get("tools", [])}


def test_the_corpus_and_the_import_tests_extract_as_the_reference_did() -> None:
    cases = _corpus_tools()
    assert len(cases) >= 5  # everything, filesystem, time, fetch, git
    for tools in cases.values():
        _assert_as_the_reference(tools)
    definitions, _ = _assert_as_the_reference(SHARED_TOOLS)
    assert sorted(definitions) == ["Address", "Zip"]
    # Every corpus server twice over (its tools under other names): all its $defs are shared.
    for tools in cases.values():
        doubled = tools | {f"{tool}_again": copy.deepcopy(value) for tool, value in tools.items()}
        _assert_as_the_reference(doubled)


NAMES = ["A", "B", "C", "a/b", "x~y", ""]


def _ref(name: str) -> str:
    return LOCAL_PREFIX + name.replace("~", "~0").replace("/", "~1")


@st.composite
def _definition(draw: Any) -> Json:
    """A small definition, often pointing at another one (or at the root, or elsewhere)."""
    kind = draw(st.sampled_from(["leaf", "ref", "deep", "root", "draft7", "remote", "pair"]))
    if kind == "leaf":
        return {"type": draw(st.sampled_from(["string", "integer", 1, 1.0, True]))}
    if kind == "ref":
        return {"$ref": _ref(draw(st.sampled_from(NAMES)))}
    if kind == "deep":
        return {"type": "object", "properties": {"p": {"$ref": _ref(draw(st.sampled_from(NAMES))) + "/properties/p"}}}
    if kind == "root":
        return {"properties": {"up": {"$ref": draw(st.sampled_from(["#", "#/properties/up"]))}}}
    if kind == "draft7":
        return {"$ref": DEFINITIONS_PREFIX + draw(st.sampled_from(NAMES))}
    if kind == "remote":
        return {"$ref": "https://example.com/schema.json"}
    return {"anyOf": [draw(_definition()), draw(_definition())]}


@st.composite
def _schema(draw: Any) -> Json:
    defs = draw(st.dictionaries(st.sampled_from(NAMES), _definition(), max_size=4))
    schema: dict[str, Json] = {"type": "object"}
    if defs or draw(st.booleans()):
        schema["properties"] = {"v": {"$ref": _ref(draw(st.sampled_from(NAMES)))}}
    if defs:
        schema["$defs"] = defs
    return schema


@pytest.mark.slow  # 300 random tool sets built twice: about 4 s of CPU
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(
    tools=st.dictionaries(
        st.sampled_from(["t1", "t2", "t3", "t4"]),
        st.fixed_dictionaries({"inputSchema": _schema()}, optional={"outputSchema": _schema()}),
        max_size=4,
    )
)
def test_random_tool_sets_extract_as_the_reference_did(tools: dict[str, dict[str, Json]]) -> None:
    definitions, rewritten = _assert_as_the_reference(tools)
    for name, tool in rewritten.items():  # and what the reference promised holds too
        for key, schema in tool.items():
            if schema != tools[name][key]:
                assert canonical(bundle(schema, definitions)) == canonical(tools[name][key])


# --- near-linear -------------------------------------------------------------------------------


def chained_tools(count: int) -> dict[str, dict[str, Json]]:
    """Two tools holding the same chain of `count` definitions, each pointing at the next,
    but for the last, which differs: nothing can be shared, and the plain fixpoint found
    that out one definition per round."""

    def schema(last: Json) -> Json:
        defs: dict[str, Json] = {
            f"D{index}": {"type": "object", "properties": {"next": {"$ref": f"#/$defs/D{index + 1}"}}}
            for index in range(count - 1)
        }
        defs[f"D{count - 1}"] = last
        return {"type": "object", "properties": {"head": {"$ref": "#/$defs/D0"}}, "$defs": defs}

    return {"a": {"inputSchema": schema({"type": "string"})}, "b": {"inputSchema": schema({"type": "integer"})}}


def test_chained_definitions_differing_at_the_end_are_extracted_as_the_reference_did() -> None:
    tools = chained_tools(60)
    definitions, rewritten = _assert_as_the_reference(tools)
    assert definitions == {} and rewritten == tools
    shared_tail = chained_tools(60)
    shared_tail["b"]["inputSchema"]["$defs"]["D59"] = {"type": "string"}
    definitions, _ = _assert_as_the_reference(shared_tail)
    assert len(definitions) == 60


@pytest.mark.slow  # ten thousand definitions
def test_ten_thousand_chained_definitions_take_seconds_not_minutes() -> None:
    """In a fresh interpreter with a hard timeout, so a quadratic regression fails here
    instead of hanging the run (the plain fixpoint needed minutes for this)."""
    script = textwrap.dedent(
        """
        import sys, time
        sys.path[:0] = [sys.argv[1]]
        from test_shared_definitions import chained_tools
        from mcpgen.importer.shared import extract_shared_definitions
        differing, equal = chained_tools(10_000), chained_tools(10_000)
        equal["b"]["inputSchema"]["$defs"]["D9999"] = {"type": "string"}
        for tools in (differing, equal):
            started = time.perf_counter()
            definitions, _ = extract_shared_definitions(tools)
            print(len(definitions), round(time.perf_counter() - started, 2))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(Path(__file__).parent)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert [line.split()[0] for line in result.stdout.splitlines()] == ["0", "10000"]
