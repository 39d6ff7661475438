"""What one JSON Schema says, keyword by keyword: its types, allowed values, bounds and
extra properties, read the same way on both sides of a comparison."""

from __future__ import annotations

import json
import math
import re
from typing import Literal

from mcpgen.utils.json_types import Json, canonical

# Keywords that only document: a change to them is reported, and breaks nothing.
ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment", "$anchor"}
)
# Reached through `$ref`s only; a definition nothing refers to changes nothing on the wire.
CONTAINERS = frozenset({"$defs", "definitions"})
LOWER_BOUNDS = {"minimum": "exclusiveMinimum", "minLength": None, "minItems": None, "minProperties": None}
UPPER_BOUNDS = {"maximum": "exclusiveMaximum", "maxLength": None, "maxItems": None, "maxProperties": None}
HANDLED = frozenset(
    {"$ref", "type", "nullable", "enum", "const", "required", "properties", "additionalProperties"}
    | {"multipleOf", "uniqueItems", "pattern", "format", "items", "prefixItems", "anyOf", "oneOf", "allOf"}
    | set(LOWER_BOUNDS) | set(UPPER_BOUNDS)
    | {key for key in (*LOWER_BOUNDS.values(), *UPPER_BOUNDS.values()) if key}
)  # fmt: skip
ALL_TYPES = ("null", "boolean", "object", "array", "number", "string")

# `format` is an annotation in 2019-09 and 2020-12 (the default dialect), and the generated
# server's validator (jsonschema-rs) does not check it there; in draft-04, -06 and -07 it
# checks the formats it knows, by dialect. Unknown formats are annotations everywhere.
# `tests/test_diff_wire.py` holds this table equal to what jsonschema-rs does.
_DRAFT_04_FORMATS = frozenset(
    {"date", "date-time", "time", "email", "idn-email", "hostname", "ipv4", "ipv6", "uri", "regex"}
)
_DRAFT_06_FORMATS = _DRAFT_04_FORMATS | {"uri-reference", "uri-template", "json-pointer"}
_DRAFT_07_FORMATS = _DRAFT_06_FORMATS | {"idn-hostname", "iri", "iri-reference", "relative-json-pointer"}
FORMAT_ASSERTING_DIALECTS = {
    "draft-04": _DRAFT_04_FORMATS,
    "draft-06": _DRAFT_06_FORMATS,
    "draft-07": _DRAFT_07_FORMATS,
}
_DIALECT = re.compile(r"^https?://json-schema\.org/(draft-0[467])/schema#?$")


def asserts_format(dialect: Json, name: Json) -> bool:
    """Whether the generated server rejects strings that do not match format `name` in a
    schema whose `$schema` is `dialect` (None: the default, 2020-12)."""
    found = _DIALECT.match(dialect) if isinstance(dialect, str) else None
    return found is not None and name in FORMAT_ASSERTING_DIALECTS[found.group(1)]


def show(value: Json) -> str:
    """A value as a finding quotes it: JSON spaced for reading, cut at 60 characters."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


EXTRAS_TEXT = {"open": "allowed", "schema": "checked against a schema", "closed": "rejected"}


def has(schema: Json, keyword: str) -> bool:
    return isinstance(schema, dict) and keyword in schema


def types_of(schema: dict[str, Json]) -> frozenset[str] | None:
    """The JSON types a schema's `type` allows (None: any); `nullable: true` (OpenAPI) adds null."""
    written = schema.get("type")
    if written is None:
        return None
    types = {written} if isinstance(written, str) else {t for t in written if isinstance(t, str)}
    if schema.get("nullable") is True:
        types.add("null")
    return frozenset(types)


def covered(kind: str, types: frozenset[str] | None) -> bool:
    return types is None or kind in types or (kind == "integer" and "number" in types)


def kinds_text(kinds: list[str], other: frozenset[str] | None) -> str:
    def one(kind: str) -> str:
        if kind == "number" and other is not None and "integer" in other:
            return "a non-integer number"
        return "null" if kind == "null" else f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"

    return " or ".join(one(kind) for kind in kinds)


def type_text(types: frozenset[str] | None) -> str:
    return "any" if types is None else "|".join(sorted(types))


def allowed_values(schema: dict[str, Json]) -> dict[str, Json] | None:
    """The values `enum` and `const` leave (both apply when both are written), by their
    canonical spelling; None when neither limits them."""
    allowed: dict[str, Json] | None = None
    if isinstance(schema.get("enum"), list):
        allowed = {canonical(value): value for value in schema["enum"]}
    if "const" in schema:
        key = canonical(schema["const"])
        allowed = {key: schema["const"]} if allowed is None or key in allowed else {}
    return allowed


def names(value: Json) -> list[str]:
    return [name for name in value if isinstance(name, str)] if isinstance(value, list) else []


def extras(schema: dict[str, Json]) -> Literal["open", "schema", "closed"]:
    extra = schema.get("additionalProperties", True)
    if extra is False:
        return "closed"
    return "schema" if isinstance(extra, dict) and extra else "open"


def number(value: Json) -> float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def number_or_absent(schema: dict[str, Json], keyword: str) -> bool:
    return keyword not in schema or number(schema[keyword]) is not None


def divides(step: float, multiple: float) -> bool:
    ratio = multiple / step
    return math.isfinite(ratio) and abs(ratio - round(ratio)) < 1e-9


Bound = tuple[float, bool, str]  # value, exclusive, the keyword that says it


def bound_of(schema: dict[str, Json], inclusive: str, exclusive: str | None, lower: bool) -> Bound | None:
    """The tightest of a schema's inclusive and exclusive bound on one side."""
    found: list[Bound] = []
    if (value := number(schema.get(inclusive))) is not None:
        found.append((value, False, inclusive))
    if exclusive and (value := number(schema.get(exclusive))) is not None:
        found.append((value, True, exclusive))
    best: Bound | None = None
    for bound in found:
        if best is None or is_tighter(bound, best, lower):
            best = bound
    return best


def is_tighter(bound: Bound | None, other: Bound | None, lower: bool) -> bool:
    """Whether `bound` allows strictly less than `other` on its side."""
    if bound is None:
        return False
    if other is None:
        return True
    if bound[0] != other[0]:
        return bound[0] > other[0] if lower else bound[0] < other[0]
    return bound[1] and not other[1]


def bound_text(bound: Bound | None, keyword: str) -> str:
    return f"{keyword} none" if bound is None else f"{bound[2]} {bound[0]:g}"


def unmatched(these: list[Json], those: list[Json]) -> list[int]:
    """Indexes of `these` with no equal schema left in `those` (as multisets)."""
    remaining = [canonical(item) for item in those]
    unmatched = []
    for index, item in enumerate(these):
        key = canonical(item)
        if key in remaining:
            remaining.remove(key)
        else:
            unmatched.append(index)
    return unmatched
