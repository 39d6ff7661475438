"""Rules for resources and templates: addresses, template syntax, completion, static content."""

from __future__ import annotations

import json
from collections.abc import Iterator

from jsonschema import Draft202012Validator

from mcpgen.check.content import one_of, readable_data
from mcpgen.check.paths import label
from mcpgen.diagnostics import Diagnostic, did_you_mean
from mcpgen.spec.assets import read_asset
from mcpgen.spec.model import Resource, Spec
from mcpgen.spec.source import JsonPath
from mcpgen.spec.uri_templates import UriTemplateError, template_variables
from mcpgen.utils.json_types import Json


def check_resources(spec: Spec) -> Iterator[Diagnostic]:
    seen_uris: dict[str, JsonPath] = {}
    for resource in spec.resources:
        if resource.uri is not None:
            yield from _uri(spec, resource, seen_uris)
        if resource.completion and resource.uri_template is None:
            yield spec.source.error(
                resource.path + ("completion",),
                "completion values are for the variables of a uriTemplate",
                "remove `completion`, or make this resource a template",
            )
        if resource.uri_template is not None:
            yield from _template(spec, resource)
        if resource.schema is not None and not (resource.mime_type or "").split(";")[0].endswith("json"):
            yield spec.source.error(
                resource.path + ("schema",),
                f"resource '{resource.name}' has a schema but its mimeType is not JSON",
                "set `mimeType: application/json`",
            )
        yield from _static_content(spec, resource)


def _uri(spec: Spec, resource: Resource, seen: dict[str, JsonPath]) -> Iterator[Diagnostic]:
    assert resource.uri is not None
    if ":" not in resource.uri:
        yield spec.source.error(
            resource.path + ("uri",),
            f"uri '{resource.uri}' has no scheme",
            "write an absolute URI, e.g. 'file:///data.json'",
            at_value=True,
        )
    if resource.uri in seen:
        yield spec.source.error(
            resource.path + ("uri",), f"uri '{resource.uri}' is already used by {label(seen[resource.uri])}", at_value=True
        )
    seen.setdefault(resource.uri, resource.path)


def _template(spec: Spec, resource: Resource) -> Iterator[Diagnostic]:
    assert resource.uri_template is not None
    try:
        variables = template_variables(resource.uri_template)
    except UriTemplateError as exc:
        yield spec.source.error(
            resource.path + ("uriTemplate",),
            f"invalid uriTemplate '{resource.uri_template}': {exc}",
            "RFC 6570 templates look like 'gifts://{id}'",
            at_value=True,
        )
        return
    for name in resource.completion:
        if name not in variables:
            yield spec.source.error(
                resource.path + ("completion", name),
                f"'{name}' is not a variable of uriTemplate '{resource.uri_template}'",
                did_you_mean(name, variables) or f"its variables: {', '.join(variables)}",
            )


def _static_content(spec: Spec, resource: Resource) -> Iterator[Diagnostic]:
    content = {key: value for key in ("text", "blob", "file") if (value := getattr(resource, key)) is not None}
    if not content:
        return
    yield from one_of(spec, content, ("text", "blob", "file"), resource.path, "static content", required=False)
    if resource.uri_template is not None:
        yield spec.source.error(resource.path, "a resource template cannot have static content", "serve it from a handler")
    for key in ("blob", "file"):
        yield from readable_data(spec, content, key, resource.path)
    if resource.schema is not None and "blob" not in content:
        raw = resource.text if resource.text is not None else read_asset(spec.file, resource.file or "")
        if raw is not None:
            yield from _json_content(spec, resource.path, raw, spec.bundles.of(resource.schema))


def _json_content(spec: Spec, path: JsonPath, raw: str | bytes, schema: dict[str, Json]) -> Iterator[Diagnostic]:
    try:
        value = json.loads(raw)
    except ValueError as exc:
        yield spec.source.error(path, f"the static content is not JSON: {exc}")
        return
    try:
        errors = list(Draft202012Validator(schema).iter_errors(value))
    except RecursionError:  # a $ref cycle that never ends, reported with the schema checks
        return
    for error in sorted(errors, key=lambda e: e.message):
        where = "/".join(str(part) for part in error.absolute_path) or "its root"
        yield spec.source.error(path, f"the static content does not match the schema at {where}: {error.message}")
