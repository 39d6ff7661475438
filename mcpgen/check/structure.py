"""The shape of a spec: unknown keys, wrong value types and missing keys, against the format's schema."""

from __future__ import annotations

import math
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
_EXPECTED = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "boolean": "true or false",
    "integer": "an integer",
    "number": "a number",
}


def _structure_diagnostic(error: ValidationError, source: SourceMap) -> Iterator[Diagnostic]:
    path = tuple(error.absolute_path)
    where = _label(path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        for key in error.instance:
            if key not in known:
                suggestion = did_you_mean(key, known) or f"allowed keys: {', '.join(known)}"
                yield source.error(path + (key,), f"unknown key '{key}' in {where}", suggestion)
    elif error.validator == "type":
        actual = _TYPE_NAMES.get(type(error.instance), "a value")
        expected = _EXPECTED.get(str(error.validator_value), str(error.validator_value))
        yield source.error(path, f"{where} must be {expected}, not {actual}", at_value=True)
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
        yield source.error(path, f"{where} is {error.instance!r}; expected one of {choices}", hint, at_value=True)
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


