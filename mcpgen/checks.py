"""Every check a spec must pass before it is built; each problem becomes one diagnostic."""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Iterator
from typing import Any

import jsonschema
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from jsonschema.validators import validator_for

from mcpgen import FORMAT_VERSION, naming
from mcpgen.diagnostics import Diagnostic, did_you_mean
from mcpgen.content_checks import check_messages, check_static_resources
from mcpgen.schemas import DEFINITIONS_PREFIX, LOCAL_PREFIX, iter_refs, iter_subschemas, ref_target, resolve_pointer
from mcpgen.source import JsonPath, SourceMap
from mcpgen.spec import Spec
from mcpgen.spec_format import NAME_PATTERN, spec_format_schema
from mcpgen.uri_templates import UriTemplateError, template_variables

JSON_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")
_FORMAT_VALIDATOR = Draft202012Validator(spec_format_schema())
_NAME = re.compile(NAME_PATTERN.strip("^$"))
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


def _label(path: JsonPath) -> str:
    return ".".join(str(part) for part in path) or "the spec"


def _structure_diagnostic(error: ValidationError, source: SourceMap) -> Iterator[Diagnostic]:
    path = tuple(error.absolute_path)
    where = _label(path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {})
        for key in error.instance:
            if key not in known:
                hint = did_you_mean(key, known) or f"allowed keys: {', '.join(known)}"
                yield source.error(path + (key,), f"unknown key '{key}' in {where}", hint)
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
        allowed = error.validator_value if error.validator == "enum" else [error.validator_value]
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


def check_schema(schema: dict[str, Any], path: JsonPath, source: SourceMap) -> list[Diagnostic]:
    """A JSON Schema must be valid under its dialect's metaschema (2020-12 unless `$schema` says)."""
    typos = _type_typos(schema, path, source)
    problems = [diagnostic for _, diagnostic in typos]
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
    local = schema.get("$defs") if isinstance(schema.get("$defs"), dict) else {}
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


def _schemas(spec: Spec) -> Iterator[tuple[JsonPath, dict[str, Any]]]:
    for name, definition in spec.definitions.items():
        yield ("definitions", name), definition
    for tool in spec.tools:
        yield tool.path + ("inputSchema",), tool.input_schema
        if tool.output_schema is not None:
            yield tool.path + ("outputSchema",), tool.output_schema
    for resource in spec.resources:
        if resource.schema is not None:
            yield resource.path + ("schema",), resource.schema


def _unique(names: list[tuple[str, JsonPath]], kind: str, source: SourceMap) -> Iterator[Diagnostic]:
    """Distinct spec names that become the same Python name would overwrite each other."""
    seen: dict[str, JsonPath] = {}
    for python_name, path in names:
        if python_name in seen:
            other = seen[python_name]
            yield source.error(
                path,
                f"{_label(path)} and {_label(other)} both become the {kind} '{python_name}'",
                "rename one of them",
            )
        else:
            seen[python_name] = path


def _widget_uris(meta: dict[str, Any] | None) -> Iterator[tuple[JsonPath, str]]:
    if not meta:
        return
    if isinstance(meta.get("openai/outputTemplate"), str):
        yield ("_meta", "openai/outputTemplate"), meta["openai/outputTemplate"]
    ui = meta.get("ui")
    if isinstance(ui, dict) and isinstance(ui.get("resourceUri"), str):
        yield ("_meta", "ui", "resourceUri"), ui["resourceUri"]


def check_semantics(spec: Spec) -> list[Diagnostic]:
    """Names, references, schemas and templates: what the format's schema alone cannot say."""
    source = spec.source
    problems: list[Diagnostic] = []
    for path, schema in _schemas(spec):
        problems += check_schema(schema, path, source)
        problems += _check_refs(schema, path, spec)

    package = spec.server.package
    if package is not None and (not package.isidentifier() or keyword.iskeyword(package)):
        problems.append(
            source.error(
                ("server", "package"), f"{package!r} is not a Python package name", "use e.g. my_server", at_value=True
            )
        )
    for tool in spec.tools:
        if not _NAME.fullmatch(tool.name):
            problems.append(
                source.error(
                    tool.path,
                    f"tool name '{tool.name}' is not 1-64 characters of A-Z a-z 0-9 _ . -",
                    "clients reject other names; use e.g. snake_case",
                )
            )
        if tool.input_schema.get("type") != "object":
            problems.append(
                source.error(
                    tool.path + ("inputSchema",),
                    f"the inputSchema of tool '{tool.name}' must have `type: object` at its root",
                    "MCP passes tool arguments as a JSON object",
                )
            )
    uris = {resource.uri for resource in spec.resources if resource.uri}
    for tool in spec.tools:
        for meta_path, uri in _widget_uris(tool.meta):
            if uri not in uris:
                problems.append(
                    source.error(
                        tool.path + meta_path,
                        f"tool '{tool.name}' links the widget '{uri}', but no resource has that uri",
                        "declare the widget under 'resources' with that uri",
                        at_value=True,
                    )
                )

    seen_uris: dict[str, JsonPath] = {}
    for resource in spec.resources:
        if resource.uri is not None:
            if ":" not in resource.uri:
                problems.append(
                    source.error(
                        resource.path + ("uri",),
                        f"uri '{resource.uri}' has no scheme",
                        "write an absolute URI, e.g. 'file:///data.json'",
                        at_value=True,
                    )
                )
            if resource.uri in seen_uris:
                problems.append(
                    source.error(
                        resource.path + ("uri",),
                        f"uri '{resource.uri}' is already used by {_label(seen_uris[resource.uri])}",
                        at_value=True,
                    )
                )
            seen_uris.setdefault(resource.uri, resource.path)
        if resource.completion and resource.uri_template is None:
            problems.append(
                source.error(
                    resource.path + ("completion",),
                    "completion values are for the variables of a uriTemplate",
                    "remove `completion`, or make this resource a template",
                )
            )
        if resource.uri_template is not None:
            try:
                variables = template_variables(resource.uri_template)
            except UriTemplateError as exc:
                problems.append(
                    source.error(
                        resource.path + ("uriTemplate",),
                        f"invalid uriTemplate '{resource.uri_template}': {exc}",
                        "RFC 6570 templates look like 'gifts://{id}'",
                        at_value=True,
                    )
                )
            else:
                for name in resource.completion:
                    if name not in variables:
                        problems.append(
                            source.error(
                                resource.path + ("completion", name),
                                f"'{name}' is not a variable of uriTemplate '{resource.uri_template}'",
                                did_you_mean(name, variables) or f"its variables: {', '.join(variables)}",
                            )
                        )
                seen: dict[str, str] = {}
                for variable in variables:
                    parameter = naming.parameter(variable)
                    if parameter in seen:
                        problems.append(
                            source.error(
                                resource.path + ("uriTemplate",),
                                f"uriTemplate variables '{seen[parameter]}' and '{variable}' both become "
                                f"the parameter '{parameter}'",
                                "rename one of them",
                                at_value=True,
                            )
                        )
                    seen.setdefault(parameter, variable)
        if resource.schema is not None and not (resource.mime_type or "").split(";")[0].endswith("json"):
            problems.append(
                source.error(
                    resource.path + ("schema",),
                    f"resource '{resource.name}' has a schema but its mimeType is not JSON",
                    "set `mimeType: application/json`",
                )
            )

    for prompt in spec.prompts:
        declared = [argument.name for argument in prompt.arguments]
        arguments_path = prompt.path + ("arguments",)
        problems += _unique(
            [(naming.parameter(name), arguments_path + (index,)) for index, name in enumerate(declared)],
            "argument",
            source,
        )
        problems += check_messages(spec, prompt, declared)
    problems += check_static_resources(spec)

    methods = (
        [(naming.tool_method(tool.name), tool.path) for tool in spec.tools]
        + [(naming.resource_method(resource.name), resource.path) for resource in spec.resources]
        + [(naming.prompt_method(prompt.name), prompt.path) for prompt in spec.prompts]
    )
    method_clashes = list(_unique(methods, "method", source))
    problems += method_clashes
    models = [(naming.definition_model(name), ("definitions", name)) for name in spec.definitions]
    models += [(naming.tool_input_model(tool.name), tool.path) for tool in spec.tools]
    models += [(naming.tool_output_model(tool.name), tool.path) for tool in spec.tools if tool.output_schema]
    models += [(naming.resource_content_model(r.name), r.path) for r in spec.resources if r.schema]
    models += [(naming.prompt_arguments_model(p.name), p.path) for p in spec.prompts if p.arguments]
    # Two tools that clash as methods clash as models too; say it once.
    reported = {diagnostic.position for diagnostic in method_clashes}
    problems += [d for d in _unique(models, "model class", source) if d.position not in reported]
    return problems
