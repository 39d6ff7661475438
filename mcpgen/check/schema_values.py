"""What a JSON Schema's metaschema cannot see: regular expressions that do not compile,
`default`/`const`/`enum`/`examples` values that their own schema rejects, and `required`
properties that `additionalProperties: false` forbids.

JSON Schema prescribes ECMA-262 regular expressions (Python's `re` is another dialect:
`\\p{L}` is fine in ECMA-262, an error in `re`). A pattern must be ECMA-262 as JavaScript
reads it (`ecma_regex`), so that clients that check schemas accept it, and one that
jsonschema-rs, the generated server's validator, compiles: it is more lenient than
ECMA-262 in some ways and stricter in others. Values are checked with jsonschema-rs.
"""

from __future__ import annotations

import functools
import json
import re
import warnings
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import jsonschema_rs

from mcpgen.check.ecma_regex import ecma262_hint, ecma262_problem
from mcpgen.diagnostics import Diagnostic, did_you_mean
from mcpgen.spec.json_schema import iter_subschemas
from mcpgen.spec.source import JsonPath, SourceMap

_DOCUMENT = "urn:mcpgen:schema"  # where a checked schema is registered, so that its refs resolve


def _shown(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@functools.cache  # specs repeat their patterns, and compiling one is the cost
def engine_refuses(pattern: str) -> bool:
    """Whether jsonschema-rs, the generated server's validator, cannot compile `pattern`."""
    try:
        jsonschema_rs.validator_for({"pattern": pattern})
    except jsonschema_rs.ValidationError:
        return True
    return False


def regex_problem(pattern: str) -> bool:
    """Whether `pattern` is no ECMA-262 regular expression, or one the server cannot run."""
    return ecma262_problem(pattern) is not None or engine_refuses(pattern)


def _python_problem(pattern: str) -> str | None:
    with warnings.catch_warnings():  # re's FutureWarnings about nested sets are not the point
        warnings.simplefilter("ignore")
        try:
            re.compile(pattern)
        except (re.error, OverflowError, RecursionError) as exc:
            return str(exc)
    return None


def _regex_hint(pattern: str, problem: str) -> str:
    better = ecma262_hint(pattern, problem)
    if better is not None:
        return better
    python = _python_problem(pattern)
    if python is not None:
        return f"Python's re reads it the same way: {python}"
    return f"JSON Schema patterns are ECMA-262; JavaScript's RegExp (u flag) says: {problem}"


# ECMA-262 that jsonschema-rs (Rust's regex engines underneath) does not take, and the spelling it does.
_ENGINE_HINTS = (
    (re.compile(r"\\k<"), "refer to the group by number (\\1): jsonschema-rs has no named backreferences"),
    (re.compile(r"\(\?<[^=!>]*[^\w=!>]"), "name groups with letters, digits and _ only"),
    (re.compile(r"(?<!\\)(?:\\\\)*\\0"), "write NUL as \\x00"),
    (re.compile(r"\[\\b\]|\[[^\]]*\\b"), "write a backspace as \\x08"),
    (re.compile(r"\[\^?\]"), "write any character as [\\s\\S], and drop a [] that matches nothing"),
    (re.compile(r"\\u[dD][89a-fA-F]"), "write the character itself, or its code point as \\u{1F600}"),
)
_ENGINE_HINT = (
    "generated servers check arguments with jsonschema-rs, which lacks this construct "
    "(or this large a repetition count); write it another way"
)


def _engine_hint(pattern: str) -> str:
    return next((hint for construct, hint in _ENGINE_HINTS if construct.search(pattern)), _ENGINE_HINT)


def _regex_diagnostic(source: SourceMap, path: JsonPath, what: str, pattern: str, at_value: bool) -> Diagnostic | None:
    """The error for a pattern that is no ECMA-262, or that the server's validator cannot run."""
    problem = ecma262_problem(pattern)
    if problem is not None:
        message = f"{what} '{pattern}' is not a valid regular expression"
        return source.error(path, message, _regex_hint(pattern, problem), at_value=at_value)
    if engine_refuses(pattern):
        message = f"{what} '{pattern}' is ECMA-262, but generated servers cannot check it"
        return source.error(path, message, _engine_hint(pattern), at_value=at_value)
    return None


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
        bad = (
            _regex_diagnostic(source, at + ("pattern",), "pattern", pattern, True) if isinstance(pattern, str) else None
        )
        if bad is not None:
            yield bad
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
                bad = _regex_diagnostic(source, at + ("patternProperties", key), "patternProperties key", key, False)
                if bad is not None:
                    yield bad
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


_VALUE_KEYWORDS = ("default", "const", "enum", "examples")


def has_values(schema: dict[str, Any]) -> bool:
    """Whether `schema` holds a value that `invalid_values` checks."""
    return any(keyword in subschema for _, subschema in iter_subschemas(schema) for keyword in _VALUE_KEYWORDS)


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
