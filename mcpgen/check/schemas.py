"""JSON Schemas inside a spec: valid under their metaschema, with `$ref`s that point somewhere,
keywords that mean something, regexes that compile, values their own schema accepts, and no
`$ref` cycle that would never end."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.validators import validator_for

from mcpgen.check.keywords import unknown_keywords
from mcpgen.check.paths import label as _label
from mcpgen.check.schema_cycles import ref_cycles
from mcpgen.check.schema_depth import long_ref_chains
from mcpgen.check.schema_values import (
    bad_regexes,
    has_values,
    invalid_values,
    unsatisfiable_required,
)
from mcpgen.diagnostics import Diagnostic, did_you_mean
from mcpgen.spec.json_schema import (
    DEFINITIONS_PREFIX,
    LOCAL_PREFIX,
    iter_refs,
    iter_subschemas,
    ref_target,
    resolve_pointer,
)
from mcpgen.spec.model import Spec
from mcpgen.spec.source import JsonPath, SourceMap

JSON_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")


def _type_typos(schema: Any, path: JsonPath, source: SourceMap) -> list[tuple[JsonPath, Diagnostic]]:
    """Misspelt `type` names get a dedicated message with a suggestion."""
    typos = []
    for at, subschema in iter_subschemas(schema, path):
        value = subschema.get("type")
        for index, name in enumerate(value if isinstance(value, list) else [value]):
            if isinstance(name, str) and name not in JSON_TYPES:
                where = at + ("type",) + ((index,) if isinstance(value, list) else ())
                hint = did_you_mean(name, JSON_TYPES) or f"the types are {', '.join(JSON_TYPES)}"
                typos.append((where, source.error(where, f"'{name}' is not a JSON Schema type", hint, at_value=True)))
    return typos


def _valid_under_metaschema(schema: dict[str, Any]) -> bool:
    """jsonschema-rs's verdict (compiled, where the Python validator walks the metaschema in
    Python); the Python validator is asked only for the messages of an invalid schema."""
    try:
        return bool(jsonschema_rs.meta.is_valid(schema))
    except Exception:  # a dialect it does not know (an unusual $schema): let jsonschema decide
        return False


def check_schema(schema: dict[str, Any], path: JsonPath, source: SourceMap) -> list[Diagnostic]:
    """A JSON Schema must be valid under its dialect's metaschema (2020-12 unless `$schema` says)."""
    typos = _type_typos(schema, path, source)
    problems = [diagnostic for _, diagnostic in typos]
    if not typos and _valid_under_metaschema(schema):
        return problems  # the common case, decided by the compiled validator; messages need not be
    try:
        cls = validator_for(schema, default=Draft202012Validator)
    except jsonschema.exceptions.SchemaError:
        cls = Draft202012Validator
    for error in cls(cls.META_SCHEMA).iter_errors(schema):
        at = path + tuple(error.absolute_path)
        # A misspelt type is already reported, better; skip the metaschema's view of it.
        if any(typo[: len(at)] == at or at[: len(typo)] == typo for typo, _ in typos):
            continue
        problems.append(source.error(at, f"invalid JSON Schema at {_label(at)}: {error.message}", at_value=True))
    return problems


def _check_refs(schema: dict[str, Any], path: JsonPath, spec: Spec) -> Iterator[Diagnostic]:
    defs = schema.get("$defs")
    local: dict[str, Any] = defs if isinstance(defs, dict) else {}
    for ref_path, ref in iter_refs(schema):
        at = path + ref_path
        shared = ref_target(ref, DEFINITIONS_PREFIX)
        own = ref_target(ref, LOCAL_PREFIX)
        if shared is not None:
            if shared not in spec.definitions:
                hint = did_you_mean(shared, spec.definitions) or "declare it under the top-level 'definitions'"
                yield spec.source.error(at, f"$ref '{ref}' names a missing definition '{shared}'", hint, at_value=True)
            elif not resolve_pointer({"definitions": spec.definitions}, ref[1:]):
                yield spec.source.error(at, f"$ref '{ref}' points to nothing inside '{shared}'", at_value=True)
        elif own is not None and own not in local:
            hint = did_you_mean(own, local) or f"to use a shared definition write '{DEFINITIONS_PREFIX}{own}'"
            yield spec.source.error(at, f"$ref '{ref}' names a missing $defs entry '{own}'", hint, at_value=True)
        elif ref.startswith("#") and not resolve_pointer(schema, ref[1:]):
            yield spec.source.error(at, f"$ref '{ref}' points to nothing in this schema", at_value=True)
        elif not ref.startswith("#"):
            yield spec.source.error(
                at,
                f"$ref '{ref}' points outside the spec",
                f"put the schema under 'definitions' and use '{DEFINITIONS_PREFIX}<name>'",
                at_value=True,
            )
    for name in local:
        if name in spec.definitions:
            yield spec.source.error(
                path + ("$defs", name),
                f"$defs entry '{name}' has the same name as a shared definition",
                "rename one of them, or use the shared definition with a $ref",
            )




def spec_schemas(spec: Spec) -> Iterator[tuple[JsonPath, dict[str, Any]]]:
    for name, definition in spec.definitions.items():
        yield ("definitions", name), definition
    for tool in spec.tools:
        yield tool.path + ("inputSchema",), tool.input_schema
        if tool.output_schema is not None:
            yield tool.path + ("outputSchema",), tool.output_schema
    for resource in spec.resources:
        if resource.schema is not None:
            yield resource.path + ("schema",), resource.schema




def check_schemas(spec: Spec) -> Iterator[Diagnostic]:
    roots = list(spec_schemas(spec))
    for path, schema in roots:
        yield from check_schema(schema, path, spec.source)
        yield from _check_refs(schema, path, spec)
        yield from bad_regexes(schema, path, spec.source)
        yield from unknown_keywords(schema, path, spec.source)
        yield from unsatisfiable_required(schema, path, spec.source)
        if has_values(schema):  # a bundle per schema is quadratic in chained definitions
            yield from invalid_values(schema, path, spec.source, spec.bundles.of(schema))
    yield from ref_cycles(roots, spec.source)
    yield from long_ref_chains(roots, spec.source)
