"""Spec model -> resolved API (the IR)."""

from __future__ import annotations

import base64
import copy
from typing import Any

from mcpgen.ir import naming
from mcpgen.ir.model import Api, PromptArgumentIR, PromptIR, PromptMessageIR, ResourceIR, TemplateVariable, ToolIR
from mcpgen.spec.json_schema import DEFINITIONS_PREFIX, LOCAL_PREFIX, bundle, ref_target, rewrite_refs
from mcpgen.spec.model import Json, Spec
from mcpgen.spec.uri_templates import template_variables
from mcpgen.spec.assets import read_asset
from mcpgen.spec.prompt_templates import compile_template
from mcpgen.hashing import sha256, spec_hash

# Keywords that would change how a model generator resolves refs in the combined document.
_DOCUMENT_KEYWORDS = ("$schema", "$id")


def _drop_none(entries: dict[str, Json]) -> dict[str, Json]:
    return {key: value for key, value in entries.items() if value is not None}


def wrap_output(schema: dict[str, Json]) -> dict[str, Json]:
    """A non-object output schema, wrapped as {"result": ...} the way the MCP SDK serves it."""
    inner = {key: value for key, value in schema.items() if key not in ("$defs", "$schema")}
    wrapped: dict[str, Json] = {}
    if "$schema" in schema:
        wrapped["$schema"] = schema["$schema"]
    wrapped.update({"type": "object", "properties": {"result": inner}, "required": ["result"]})
    if "$defs" in schema:
        wrapped["$defs"] = schema["$defs"]
    return wrapped


def is_object_schema(schema: dict[str, Json]) -> bool:
    return schema.get("type") == "object"


def _model_schema(schema: dict[str, Json], owner: str, definitions: dict[str, str]) -> dict[str, dict[str, Json]]:
    """The schema as entries of the combined model document: the schema itself under `owner`,
    its own `$defs` hoisted under owner-qualified names, and refs rewritten to match."""
    local = schema.get("$defs") or {}
    local_names = {name: owner + naming.pascal(name) for name in local}

    def rewrite(ref: str) -> str:
        shared = ref_target(ref, DEFINITIONS_PREFIX)
        if shared is not None:
            return LOCAL_PREFIX + definitions[shared] + ref[len(DEFINITIONS_PREFIX) + len(shared) :]
        own = ref_target(ref, LOCAL_PREFIX)
        if own is not None:
            return LOCAL_PREFIX + local_names[own] + ref[len(LOCAL_PREFIX) + len(own) :]
        return LOCAL_PREFIX + owner if ref == "#" else ref

    body = {key: value for key, value in schema.items() if key not in _DOCUMENT_KEYWORDS and key != "$defs"}
    entries = {owner: rewrite_refs(body, rewrite)}
    for name, definition in local.items():
        entries[local_names[name]] = rewrite_refs(definition, rewrite)
    return entries


def _tool(tool: Any, spec: Spec, models: dict[str, Json], definition_names: dict[str, str]) -> ToolIR:
    input_model = naming.tool_input_model(tool.name)
    models.update(_model_schema(tool.input_schema, input_model, definition_names))
    output_schema = None
    output_model = None
    wrapped = False
    if tool.output_schema is not None:
        output_model = naming.tool_output_model(tool.name)
        models.update(_model_schema(tool.output_schema, output_model, definition_names))
        wrapped = not is_object_schema(tool.output_schema)
        served = bundle(tool.output_schema, spec.definitions)
        output_schema = wrap_output(served) if wrapped else served
    wire = _drop_none(
        {
            "name": tool.name,
            "title": tool.title,
            "description": tool.description,
            "inputSchema": bundle(tool.input_schema, spec.definitions),
            "outputSchema": output_schema,
            "annotations": copy.deepcopy(tool.annotations),
            "icons": copy.deepcopy(tool.icons),
            "_meta": copy.deepcopy(tool.meta),
        }
    )
    return ToolIR(tool.name, naming.tool_method(tool.name), input_model, output_model, wrapped, wire)


class _Assets:
    """Reads the files a spec names, remembering each one's hash for the manifest."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.hashes: dict[str, str] = {}

    def read(self, relative: str) -> bytes:
        data = read_asset(self.spec.file, relative)
        assert data is not None, "checks guarantee that every file exists"
        self.hashes[relative] = sha256(data)
        return data

    def base64(self, mapping: dict[str, Json], inline: str) -> str:
        """The base64 data of a `{inline: ...}` or `{file: ...}` mapping."""
        if "file" in mapping:
            return base64.b64encode(self.read(mapping["file"])).decode("ascii")
        return str(mapping[inline])


def _static(resource: Any, assets: _Assets) -> dict[str, str] | None:
    if resource.text is not None:
        return {"text": resource.text}
    if resource.blob is not None:
        return {"blob": resource.blob}
    if resource.file is not None:
        data = assets.read(resource.file)
        try:
            return {"text": data.decode("utf-8")} if _is_textual(resource.mime_type) else {"blob": _b64(data)}
        except UnicodeDecodeError:
            return {"blob": _b64(data)}
    return None


def _is_textual(mime_type: str | None) -> bool:
    kind = (mime_type or "text/plain").split(";")[0].strip()
    return kind.startswith("text/") or kind.endswith(("json", "xml", "yaml", "javascript"))


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _message_content(message: Any, assets: _Assets) -> dict[str, Json]:
    kind = message.kinds[0]
    body = message.body
    if kind == "text":
        return {"type": "text", "template": compile_template(body)}
    if kind in ("image", "audio"):
        return {"type": kind, "data": assets.base64(body, "data"), "mimeType": body["mimeType"]}
    contents: dict[str, Json] = {"uri": body["uri"]}
    if "mimeType" in body:
        contents["mimeType"] = body["mimeType"]
    if "text" in body:
        contents["text"] = body["text"]
    elif "blob" in body:
        contents["blob"] = body["blob"]
    else:
        data = assets.read(body["file"])
        if _is_textual(body.get("mimeType")):
            contents["text"] = data.decode("utf-8")
        else:
            contents["blob"] = _b64(data)
    return {"type": "resource", "resource": contents}


def _resource(
    resource: Any, spec: Spec, models: dict[str, Json], definition_names: dict[str, str], assets: _Assets
) -> ResourceIR:
    content_model = None
    content_schema = None
    if resource.schema is not None:
        content_schema = bundle(resource.schema, spec.definitions)
        content_model = naming.resource_content_model(resource.name)
        models.update(_model_schema(resource.schema, content_model, definition_names))
    variables: tuple[TemplateVariable, ...] = ()
    if resource.uri_template is not None:
        variables = tuple(
            TemplateVariable(name, naming.parameter(name)) for name in template_variables(resource.uri_template)
        )
    wire = _drop_none(
        {
            "uri": resource.uri,
            "uriTemplate": resource.uri_template,
            "name": resource.name,
            "title": resource.title,
            "description": resource.description,
            "mimeType": resource.mime_type,
            "size": resource.size,
            "annotations": copy.deepcopy(resource.annotations),
            "icons": copy.deepcopy(resource.icons),
            "_meta": copy.deepcopy(resource.meta),
        }
    )
    return ResourceIR(
        resource.name,
        naming.resource_method(resource.name),
        resource.uri,
        resource.uri_template,
        variables,
        resource.mime_type,
        content_model,
        content_schema,
        wire,
        _static(resource, assets),
    )


def _prompt(prompt: Any, models: dict[str, Json], assets: _Assets) -> PromptIR:
    arguments_model = None
    if prompt.arguments:
        arguments_model = naming.prompt_arguments_model(prompt.name)
        models[arguments_model] = _drop_none(
            {
                "type": "object",
                "properties": {
                    argument.name: _drop_none({"type": "string", "description": argument.description})
                    for argument in prompt.arguments
                },
                "required": [argument.name for argument in prompt.arguments if argument.required] or None,
            }
        )
    wire = _drop_none(
        {
            "name": prompt.name,
            "title": prompt.title,
            "description": prompt.description,
            "arguments": [
                _drop_none(
                    {
                        "name": argument.name,
                        "title": argument.title,
                        "description": argument.description,
                        "required": argument.required,
                    }
                )
                for argument in prompt.arguments
            ]
            or None,
            "icons": copy.deepcopy(prompt.icons),
            "_meta": copy.deepcopy(prompt.meta),
        }
    )
    messages = None
    if prompt.messages is not None:
        messages = tuple(
            PromptMessageIR(message.role, _message_content(message, assets), message.text)
            for message in prompt.messages
        )
    return PromptIR(
        prompt.name,
        naming.prompt_method(prompt.name),
        arguments_model,
        tuple(PromptArgumentIR(a.name, naming.parameter(a.name), a.required) for a in prompt.arguments),
        messages,
        wire,
    )


def resolve(spec: Spec, spec_text: bytes) -> Api:
    """The IR of a checked spec. `spec_text` is the spec's bytes, recorded by hash."""
    package = naming.package_of(spec.server)
    definition_names = {name: naming.definition_model(name) for name in spec.definitions}
    models: dict[str, Json] = {}
    for name, definition in spec.definitions.items():
        models.update(_model_schema(definition, definition_names[name], definition_names))
    tools = tuple(_tool(tool, spec, models, definition_names) for tool in spec.tools)
    assets = _Assets(spec)
    resources = tuple(_resource(resource, spec, models, definition_names, assets) for resource in spec.resources)
    prompts = tuple(_prompt(prompt, models, assets) for prompt in spec.prompts)

    declared = spec.server.capabilities
    capabilities: dict[str, Json] = {}
    completions = _completions(spec)
    if completions is not None:
        capabilities["completions"] = {}
    if "logging" in declared:
        capabilities["logging"] = {}
    if prompts:
        capabilities["prompts"] = {"listChanged": bool(declared.get("prompts", {}).get("listChanged"))}
    if resources:
        flags = declared.get("resources", {})
        capabilities["resources"] = {
            "subscribe": bool(flags.get("subscribe")),
            "listChanged": bool(flags.get("listChanged")),
        }
    if tools:
        capabilities["tools"] = {"listChanged": bool(declared.get("tools", {}).get("listChanged"))}

    server = spec.server
    return Api(
        spec_name=spec.file.name,
        # Line endings are normalised so that a checkout with CRLFs records the same hash.
        spec_sha256=spec_hash(spec_text),
        package=package,
        client_class=naming.client_class(server.name),
        invalid_arguments=server.invalid_arguments,
        page_size=server.page_size,
        server_info=_drop_none(
            {
                "name": server.name,
                "title": server.title,
                "version": server.version,
                "description": server.description,
                "websiteUrl": server.website_url,
                "icons": copy.deepcopy(server.icons),
            }
        ),
        instructions=server.instructions,
        capabilities=capabilities,
        tools=tools,
        resources=resources,
        prompts=prompts,
        model_schemas=models,
        inputs=dict(sorted(assets.hashes.items())),
        declared_capabilities=copy.deepcopy(declared),
        completions=completions,
    )


def _completions(spec: Spec) -> dict[tuple[str, str], dict[str, list[str]]] | None:
    """Completion is served when anything can be completed: a prompt argument or a template
    variable. Values come from the spec, or from the `complete` handler."""
    completable = [p for p in spec.prompts if p.arguments] + [r for r in spec.resources if r.uri_template]
    if not completable:
        return None
    values: dict[tuple[str, str], dict[str, list[str]]] = {}
    for prompt in spec.prompts:
        listed = {argument.name: list(argument.completion) for argument in prompt.arguments if argument.completion}
        if listed:
            values[("prompt", prompt.name)] = listed
    for resource in spec.resources:
        if resource.uri_template and resource.completion:
            values[("resource", resource.uri_template)] = {
                name: [str(value) for value in listed] for name, listed in resource.completion.items()
            }
    return values
