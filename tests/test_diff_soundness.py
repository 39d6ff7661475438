"""The schema comparison is sound: whenever it calls a change safe for what clients send,
every value the old schema accepted is still accepted by the new one; whenever it calls a
change safe for what they receive, every value the new schema allows was allowed before.

Schemas come from a small grammar, each paired with a copy that has one keyword added,
removed or changed; a fixed pool of JSON values of every type stands in for clients.
Validation is the generated servers' own (jsonschema-rs). A longer search:
`MCPGEN_DIFF_EXAMPLES=5000 pytest tests/test_diff_soundness.py`."""

from __future__ import annotations

import copy
import os
from typing import Any

import jsonschema_rs
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mcpgen.compare.schema_nodes import Document, Node
from mcpgen.compare.schema_walk import Variance
from mcpgen.compare.schemas import SchemaComparison
from mcpgen.spec.json_schema import iter_subschemas
from mcpgen.spec.source import SourceMap
from mcpgen.utils.json_types import Json

SCALARS: list[Json] = [
    None,
    True,
    False,
    -3,
    -1,
    0,
    1,
    2,
    3,
    4,
    6,
    10,
    12,
    0.5,
    2.5,
    -0.5,
    "",
    "a",
    "b",
    "ab",
    "abc",
    "ba",
    "aaaaaa",
    "A1",
]
POOL: list[Json] = [
    *SCALARS,
    [],
    [1],
    [1, 1],
    [1, 2, 3],
    ["a"],
    ["a", "b", "c", "d"],
    [None],
    [1, "a"],
    {},
    {"x": 1},
    {"x": "a"},
    {"x": None},
    {"y": True},
    {"x": 1, "y": 2},
    {"x": 2.5, "z": "abc"},
]

EXAMPLES = int(os.environ.get("MCPGEN_DIFF_EXAMPLES", "100"))
TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"]
PATTERNS = ["^a", "b$", "^[a-z]*$"]


def keyword_values(keyword: str, children: st.SearchStrategy[Json]) -> st.SearchStrategy[Json]:
    small = st.integers(-2, 6)
    return {
        "type": st.sampled_from(TYPES) | st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True),
        "enum": st.lists(st.sampled_from(SCALARS), min_size=1, max_size=4, unique_by=repr),
        "const": st.sampled_from(SCALARS),
        "minimum": small,
        "maximum": small,
        "exclusiveMinimum": small,
        "exclusiveMaximum": small,
        "multipleOf": st.sampled_from([1, 2, 3, 0.5]),
        "minLength": st.integers(0, 3),
        "maxLength": st.integers(0, 3),
        "pattern": st.sampled_from(PATTERNS),
        "minItems": st.integers(0, 3),
        "maxItems": st.integers(0, 3),
        "uniqueItems": st.booleans(),
        "items": children,
        "properties": st.dictionaries(st.sampled_from(["x", "y", "z"]), children, max_size=2),
        "required": st.lists(st.sampled_from(["x", "y", "z"]), max_size=2, unique=True),
        "additionalProperties": st.booleans() | children,
        "anyOf": st.lists(children, min_size=1, max_size=3),
        "oneOf": st.lists(children, min_size=1, max_size=3),
        "not": children,
        "allOf": st.lists(children, min_size=1, max_size=2),
        "prefixItems": st.lists(children, min_size=1, max_size=2),
        "minProperties": st.integers(0, 2),
        "maxProperties": st.integers(0, 2),
        "contains": children,
    }[keyword]


KEYWORDS = ["type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]
KEYWORDS += ["minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "items", "properties"]
KEYWORDS += ["required", "additionalProperties", "anyOf", "oneOf", "not", "allOf", "prefixItems", "minProperties"]
KEYWORDS += ["maxProperties", "contains"]


def schemas(depth: int = 2) -> st.SearchStrategy[dict[str, Json]]:
    children = schemas(depth - 1) if depth > 0 else st.just({})

    @st.composite
    def build(draw: Any) -> dict[str, Json]:
        chosen = draw(st.lists(st.sampled_from(KEYWORDS), max_size=3, unique=True))
        return {keyword: draw(keyword_values(keyword, children)) for keyword in chosen}

    return build()


@st.composite
def mutated(draw: Any) -> tuple[dict[str, Json], dict[str, Json]]:
    """A schema, and a copy with one keyword added, removed or changed in one of its subschemas."""
    old = draw(schemas())
    new = copy.deepcopy(old)
    target = draw(st.sampled_from([subschema for _, subschema in iter_subschemas(new)]))
    keyword = draw(st.sampled_from(KEYWORDS))
    if keyword in target and draw(st.booleans()):
        del target[keyword]
    else:
        target[keyword] = draw(keyword_values(keyword, schemas(1)))
    return old, new


def breaking_changes(old: Json, new: Json, variance: Variance) -> list[str]:
    comparison = SchemaComparison(variance)
    before, after = Document(old, SourceMap("old.yaml"), ()), Document(new, SourceMap("new.yaml"), ())
    comparison.compare(Node.top(before, "v"), Node.top(after, "v"))
    rules = [change.rule for change in comparison.changes if change.severity != "info"]
    # oasdiff's choice, documented in docs/how-to/breaking-changes.md: a new optional property of an open object is
    # not breaking, though the object accepted any value under that name before.
    if variance == "input" and any(change.rule == "WIRE/property-added" for change in comparison.changes):
        rules.append("WIRE/property-added")
    return rules


def accepted(schema: Json) -> list[Json]:
    validator = jsonschema_rs.validator_for(schema)
    return [value for value in POOL if validator.is_valid(value)]


@pytest.mark.slow  # a property test: 1.5 s of CPU
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_what_it_calls_safe_for_inputs_rejects_nothing_accepted_before(pair: tuple[Json, Json]) -> None:
    old, new = pair
    if breaking_changes(old, new, "input"):
        return
    still = jsonschema_rs.validator_for(new)
    assert [value for value in accepted(old) if not still.is_valid(value)] == []


@pytest.mark.slow  # a property test: 1.5 s of CPU
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
# Found by CI: a property added where undeclared properties had to be null sends `x: 1`.
@example(({"additionalProperties": {"type": "null"}}, {"additionalProperties": {"type": "null"}, "properties": {"x": {}}}))
def test_what_it_calls_safe_for_outputs_sends_nothing_not_promised_before(pair: tuple[Json, Json]) -> None:
    old, new = pair
    if breaking_changes(old, new, "output"):
        return
    before = jsonschema_rs.validator_for(old)
    assert [value for value in accepted(new) if not before.is_valid(value)] == []
