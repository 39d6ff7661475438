"""Checks of content written into a spec: prompt messages and static resource contents."""

from __future__ import annotations

import json
from collections.abc import Iterator

from jsonschema import Draft202012Validator

from mcpgen.assets import asset_path, is_base64, read_asset
from mcpgen.diagnostics import Diagnostic, did_you_mean
from mcpgen.prompt_templates import PromptTemplateError, compile_template, used_arguments
from mcpgen.schemas import bundle
from mcpgen.source import JsonPath
from mcpgen.spec import MESSAGE_KINDS, Json, Prompt, Spec


def _one_of(
    spec: Spec, mapping: dict[str, Json], keys: tuple[str, ...], path: JsonPath, what: str, required: bool = True
) -> Iterator[Diagnostic]:
    present = [key for key in keys if key in mapping]
    if len(present) > 1 or (required and not present):
        choices = ", ".join(f"'{key}'" for key in keys)
        yield spec.source.error(path, f"{what} needs {'exactly' if required else 'at most'} one of {choices}")


def _data(spec: Spec, mapping: dict[str, Json], key: str, path: JsonPath) -> Iterator[Diagnostic]:
    """A base64 `data`/`blob` value must decode; a `file` must exist."""
    value = mapping.get(key)
    if key == "file" and isinstance(value, str) and read_asset(spec.file, value) is None:
        yield spec.source.error(
            path + (key,),
            f"cannot read '{value}'",
            f"the path is relative to the spec: {asset_path(spec.file, value)}",
            at_value=True,
        )
    elif key in ("data", "blob") and isinstance(value, str) and not is_base64(value):
        yield spec.source.error(path + (key,), f"'{key}' is not valid base64", at_value=True)


def check_messages(spec: Spec, prompt: Prompt, declared: list[str]) -> Iterator[Diagnostic]:
    for message in prompt.messages or ():
        yield from _one_of(spec, dict.fromkeys(message.kinds), MESSAGE_KINDS, message.path, "a prompt message")
        if message.text is not None:
            yield from _placeholders(spec, prompt, message.text, message.path + ("text",), declared)
        elif message.kinds in (("image",), ("audio",)) and isinstance(message.body, dict):
            at = message.path + message.kinds
            yield from _one_of(spec, message.body, ("data", "file"), at, f"an {message.kinds[0]}")
            for key in ("data", "file"):
                yield from _data(spec, message.body, key, at)
        elif message.kinds == ("resource",) and isinstance(message.body, dict):
            at = message.path + ("resource",)
            yield from _one_of(spec, message.body, ("text", "blob", "file"), at, "an embedded resource")
            for key in ("blob", "file"):
                yield from _data(spec, message.body, key, at)


def _placeholders(spec: Spec, prompt: Prompt, text: str, at: JsonPath, declared: list[str]) -> Iterator[Diagnostic]:
    try:
        used = used_arguments(compile_template(text))
    except PromptTemplateError as exc:
        hint = "templates may use {{ argument }}, {{ argument | default('text') }} and {% if argument %}"
        yield spec.source.error(at, f"prompt '{prompt.name}': {exc}", hint, at_value=True)
        return
    for name in used:
        if name not in declared:
            hint = did_you_mean(name, declared) or "declare it under the prompt's 'arguments'"
            yield spec.source.error(
                at, f"prompt '{prompt.name}' uses the undeclared argument '{name}'", hint, at_value=True
            )


def check_static_resources(spec: Spec) -> Iterator[Diagnostic]:
    for resource in spec.resources:
        content = {key: value for key in ("text", "blob", "file") if (value := getattr(resource, key)) is not None}
        if not content:
            continue
        yield from _one_of(spec, content, ("text", "blob", "file"), resource.path, "static content", required=False)
        if resource.uri_template is not None:
            yield spec.source.error(
                resource.path, "a resource template cannot have static content", "serve it from a handler"
            )
        for key in ("blob", "file"):
            yield from _data(spec, content, key, resource.path)
        if resource.schema is not None and "blob" not in content:
            raw = resource.text if resource.text is not None else read_asset(spec.file, resource.file or "")
            if raw is not None:
                yield from _json_content(spec, resource.path, raw, bundle(resource.schema, spec.definitions))


def _json_content(spec: Spec, path: JsonPath, raw: str | bytes, schema: dict[str, Json]) -> Iterator[Diagnostic]:
    try:
        value = json.loads(raw)
    except ValueError as exc:
        yield spec.source.error(path, f"the static content is not JSON: {exc}")
        return
    for error in sorted(Draft202012Validator(schema).iter_errors(value), key=lambda e: e.message):
        where = "/".join(str(part) for part in error.absolute_path) or "its root"
        yield spec.source.error(path, f"the static content does not match the schema at {where}: {error.message}")
