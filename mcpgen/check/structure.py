"""The shape of a spec: unknown keys, wrong value types and missing keys, against the format's schema."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from mcpgen import FORMAT_VERSION
from mcpgen.check.paths import label as _label
from mcpgen.diagnostics import Diagnostic, did_you_mean
from mcpgen.spec.format import spec_format_schema
from mcpgen.spec.source import JsonPath, SourceMap

_FORMAT_VALIDATOR = Draft202012Validator(spec_format_schema())
_TYPE_NAMES = {
    dict: "a mapping",
    list: "a list",
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    type(None): "null",
}
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")  # a string YAML reads back as itself, unquoted
_EXPECTED = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "boolean": "true or false",
    "integer": "an integer",
    "number": "a number",
}


def _flow(key: str, value: Any) -> str:
    """`{key: value}` as a YAML flow mapping, for a hint."""
    plain = isinstance(value, str) and _PLAIN.fullmatch(value) and value.lower() not in ("true", "false", "null")
    shown = value if plain else json.dumps(value)
    return f"{{{key}: {shown}}}"


def _nested_hint(key: str, value: Any, known: dict[str, Any]) -> str | None:
    """Where a key of a nested mapping goes when it is written one level too high
    (`taskSupport` beside `inputSchema` instead of under `execution`)."""
    for parent, schema in known.items():
        if isinstance(schema, dict) and key in schema.get("properties", {}):
            return f"'{key}' goes under '{parent}': `{parent}: {_flow(key, value)}`"
    return None


def _wrapped_value_hint(path: JsonPath, value: Any, schema: Any) -> str | None:
    """For a mapping written as one of its values (`execution: optional`): the mapping."""
    if not path or not isinstance(value, str) or not isinstance(schema, dict):
        return None
    for key, property_schema in schema.get("properties", {}).items():
        if isinstance(property_schema, dict) and value in property_schema.get("enum", ()):
            return f"write `{path[-1]}: {_flow(key, value)}`"
    return None


def _structure_diagnostic(error: ValidationError, source: SourceMap) -> Iterator[Diagnostic]:
    path = tuple(error.absolute_path)
    where = _label(path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        patterns = error.schema.get("patternProperties", {}) if isinstance(error.schema, dict) else {}
        for key in error.instance:
            if key not in known and not any(re.search(pattern, key) for pattern in patterns):
                suggestion = (
                    did_you_mean(key, known)
                    or _nested_hint(key, error.instance[key], known)
                    or f"allowed keys: {', '.join(known)}"
                )
                yield source.error(path + (key,), f"unknown key '{key}' in {where}", suggestion)
    elif error.validator == "type":
        actual = _TYPE_NAMES.get(type(error.instance), "a value")
        expected = _EXPECTED.get(str(error.validator_value), str(error.validator_value))
        hint = _wrapped_value_hint(path, error.instance, error.schema)
        yield source.error(path, f"{where} must be {expected}, not {actual}", hint, at_value=True)
    elif error.validator == "required":
        missing = str(error.message).split("'")[1]
        yield source.error(path, f"{where} is missing the required key '{missing}'")
    elif error.validator == "oneOf" and path[:1] == ("resources",):
        if not isinstance(error.instance, dict):
            return  # its type is reported on its own
        yield source.error(path, f"{where} needs exactly one of 'uri' or 'uriTemplate'")
    elif path == ("mcpgen",):
        yield source.error(
            path,
            f"unsupported spec format version {error.instance!r}; this mcpgen reads version {FORMAT_VERSION}",
            f"write `mcpgen: {FORMAT_VERSION}`",
            at_value=True,
        )
    elif error.validator in ("enum", "const"):
        value: Any = error.validator_value
        allowed: list[Any] = list(value) if error.validator == "enum" else [value]
        hint = did_you_mean(str(error.instance), [str(value) for value in allowed if value != error.instance])
        choices = ", ".join(repr(value) for value in allowed)
        written = repr(error.instance) if isinstance(error.instance, str) else json.dumps(error.instance)
        yield source.error(path, f"{where} is {written}; expected one of {choices}", hint, at_value=True)
    else:
        yield source.error(path, f"{where}: {error.message}", at_value=True)


def _non_finite(data: Any, path: JsonPath, source: SourceMap) -> Iterator[Diagnostic]:
    if isinstance(data, float) and not math.isfinite(data):
        yield source.error(path, f"{_label(path)} is {data}, which JSON cannot carry", "use a finite number", at_value=True)
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from _non_finite(value, path + (key,), source)
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _non_finite(value, path + (index,), source)


def check_structure(data: Any, source: SourceMap) -> list[Diagnostic]:
    """Unknown keys, wrong value types and missing keys, against the spec format's schema."""
    problems = list(_non_finite(data, (), source))
    for error in _FORMAT_VALIDATOR.iter_errors(data):
        problems.extend(_structure_diagnostic(error, source))
    return problems


