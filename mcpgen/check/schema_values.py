"""What a JSON Schema's metaschema cannot see: regular expressions that do not compile,
`default`/`const`/`enum`/`examples` values that their own schema rejects, and `required`
properties that `additionalProperties: false` forbids.

JSON Schema prescribes ECMA-262 regular expressions, which `jsonschema_rs` implements
(Python's `re` is another dialect: `\\p{L}` is fine in ECMA-262, an error in `re`), so
regexes and values are checked with it.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import jsonschema_rs

from mcpgen.diagnostics import Diagnostic, did_you_mean
from mcpgen.spec.json_schema import iter_subschemas
from mcpgen.spec.source import JsonPath, SourceMap

_DOCUMENT = "urn:mcpgen:schema"  # where a checked schema is registered, so that its refs resolve


def _shown(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@functools.cache  # specs repeat their patterns, and compiling one is the cost
def regex_problem(pattern: str) -> bool:
    """Whether `pattern` is not an ECMA-262 regular expression."""
    try:
        jsonschema_rs.validator_for({"pattern": pattern})
    except jsonschema_rs.ValidationError:
        return True
    return False


def _regex_hint(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"Python's re reads it the same way: {exc}"
    return "JSON Schema patterns are ECMA-262 (JavaScript) regular expressions"


@functools.cache
def needs_backtracking(pattern: str) -> bool:
    """Whether a valid `pattern` needs the backtracking engine (a backreference or a
    lookaround): the linear-time one cannot run it."""
    try:
        jsonschema_rs.validator_for({"pattern": pattern}, pattern_options=jsonschema_rs.RegexOptions())
    except jsonschema_rs.ValidationError:
        return not regex_problem(pattern)
    return False


_BACKTRACKING_HINT = (
    "backreferences and lookaround need a backtracking engine, which may take a million steps "
    "per match; a server checks all of one call's matches within Limits.pattern_budget (0.1 s) "
    "and refuses calls that need more. Without them, a pattern runs in linear time"
)
_BACKTRACKING_NAMES_HINT = (
    "property names are matched outside any time budget, so one request with many names could "
    "hold the server for seconds; write the pattern without backreferences and lookaround, or "
    "check the names in the handler"
)


def bad_regexes(schema: dict[str, Any], path: JsonPath, source: SourceMap) -> Iterator[Diagnostic]:
    """Every `pattern` and `patternProperties` key that is no ECMA-262 regular expression;
    a warning for a `pattern` that needs backtracking, an error for such a
    `patternProperties` key."""
    for at, subschema in iter_subschemas(schema, path):
        pattern = subschema.get("pattern")
        if isinstance(pattern, str) and regex_problem(pattern):
            yield source.error(
                at + ("pattern",),
                f"pattern '{pattern}' is not a valid regular expression",
                _regex_hint(pattern),
                at_value=True,
            )
        elif isinstance(pattern, str) and needs_backtracking(pattern):
            yield source.warning(
                at + ("pattern",),
                f"pattern '{pattern}' needs backtracking: checking it can take a million steps per string",
                _BACKTRACKING_HINT,
                at_value=True,
            )
        pattern_properties = subschema.get("patternProperties")
        if isinstance(pattern_properties, dict):
            for key in pattern_properties:
                if regex_problem(key):
                    yield source.error(
                        at + ("patternProperties", key),
                        f"patternProperties key '{key}' is not a valid regular expression",
                        _regex_hint(key),
                    )
                elif needs_backtracking(key):
                    yield source.error(
                        at + ("patternProperties", key),
                        f"patternProperties key '{key}' needs backtracking (a backreference or lookaround)",
                        _BACKTRACKING_NAMES_HINT,
                    )


def _pointer(relative: JsonPath) -> str:
    """A URI fragment naming `relative` as a JSON Pointer."""
    return "".join("/" + quote(str(part).replace("~", "~0").replace("/", "~1"), safe="~") for part in relative)


def _first_error(validator: jsonschema_rs.Validator, value: Any) -> str | None:
    try:
        for error in validator.iter_errors(value):
            where = "/".join(str(part) for part in error.instance_path)
            return f"{error.message} (at /{where})" if where else error.message
    except Exception:  # a schema the validator cannot evaluate is reported by other checks
        return None
    return None


_VALUE_HINTS = {
    "default": "a default must be valid under the schema it is the default of",
    "const": "no value can be valid: the constant contradicts the rest of its schema",
    "enum": "this value can never be valid; remove it, or widen the schema",
    "examples": "an example must be valid under the schema it illustrates",
}


def invalid_values(
    schema: dict[str, Any], path: JsonPath, source: SourceMap, document: dict[str, Any]
) -> Iterator[Diagnostic]:
    """`default`, `const`, every `enum` value and every `examples` item must be valid under
    the schema they sit in (refs resolving in the enclosing schema and shared definitions).
    `document` is the schema's bundle (`Bundles.of`), where its paths stay the same."""
    try:
        registry = jsonschema_rs.Registry([(_DOCUMENT, document)])
    except Exception:  # unresolvable or malformed: reported by the other checks
        return
    for at, subschema in iter_subschemas(schema, path):
        values: list[tuple[JsonPath, str, Any]] = []
        if "default" in subschema:
            values.append((("default",), "default", subschema["default"]))
        if "const" in subschema:
            values.append((("const",), "const", subschema["const"]))
        for keyword in ("enum", "examples"):
            if isinstance(subschema.get(keyword), list):
                values += [((keyword, index), keyword, item) for index, item in enumerate(subschema[keyword])]
        if not values:
            continue
        try:
            validator = jsonschema_rs.validator_for(
                {"$ref": f"{_DOCUMENT}#{_pointer(at[len(path) :])}"}, registry=registry
            )
        except Exception:  # a bad regex or ref inside: reported by the other checks
            continue
        for where, keyword, value in values:
            reason = _first_error(validator, value)
            if reason is None:
                continue
            what = {"enum": "enum value", "examples": "example"}.get(keyword, keyword)
            yield source.error(
                at + where,
                f"{what} {_shown(value)} is not valid under its own schema: {reason}",
                _VALUE_HINTS[keyword],
                at_value=True,
            )


def _could_match(name: str, patterns: list[str]) -> bool:
    """Whether a property name matches one of `patternProperties`' keys (ECMA-262)."""
    for pattern in patterns:
        try:
            if not jsonschema_rs.is_valid({"patternProperties": {pattern: False}}, {name: None}):
                return True
        except Exception:  # a bad regex is reported on its own; assume it could match
            return True
    return False


def unsatisfiable_required(schema: dict[str, Any], path: JsonPath, source: SourceMap) -> Iterator[Diagnostic]:
    """A `required` name that `additionalProperties: false` forbids: not among `properties`,
    nor matched by a `patternProperties` key. No object can be valid."""
    for at, subschema in iter_subschemas(schema, path):
        required = subschema.get("required")
        if subschema.get("additionalProperties") is not False or not isinstance(required, list):
            continue
        properties = subschema.get("properties")
        declared = list(properties) if isinstance(properties, dict) else []
        pattern_properties = subschema.get("patternProperties")
        patterns = list(pattern_properties) if isinstance(pattern_properties, dict) else []
        for index, name in enumerate(required):
            if not isinstance(name, str) or name in declared or _could_match(name, patterns):
                continue
            yield source.error(
                at + ("required", index),
                f"required property '{name}' is not declared in properties, and additionalProperties is false",
                did_you_mean(name, declared) or f"declare '{name}' under properties, or allow additional properties",
                at_value=True,
            )
