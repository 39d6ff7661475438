"""Spec model -> resolved API (the IR).

List entries are the spec's served keys as written, with the name first and the schemas
bundled; nothing is rebuilt key by key. Python names come from `naming` only.
"""

from __future__ import annotations

import base64
import copy

from mcpgen.ir.model import (
    Api,
    AuthorizationIR,
    PromptArgumentIR,
    PromptIR,
    PromptMessageIR,
    ResourceIR,
    StaticContent,
    TemplateVariable,
    ToolIR,
    UpstreamIR,
)
from mcpgen.ir.model_schema import model_schema
from mcpgen.ir.served import served_output
from mcpgen.names import naming
from mcpgen.spec.assets import read_asset
from mcpgen.spec.json_schema import (
    DEFINITIONS_PREFIX,
    LOCAL_PREFIX,
    map_children,
    pointed,
    ref_target,
    rewrite_refs,
    split_ref,
)
from mcpgen.spec.model import Prompt, PromptMessage, Resource, Spec, Tool
from mcpgen.spec.source import JsonPath
from mcpgen.spec.upstream import ServerUpstream
from mcpgen.spec.uri_templates import template_variables
from mcpgen.utils.hashing import sha256, spec_hash
from mcpgen.utils.json_types import Json

# Keywords that would change how a model generator resolves refs in the combined document.
_DOCUMENT_KEYWORDS = ("$schema", "$id")

# Where files that a spec names are put inside the package, as package data.
STATIC_DIRECTORY = "_static"


def _inline_pointers(node: Json, root: dict[str, Json], depth: int = 0) -> Json:
    """`{$ref: "#/properties/start"}` replaced by a copy of what it points to, for the model
    generator, which would otherwise make the pointer a wrapper class of its own. A pointer
    inside an inlined copy becomes "anything" rather than expand without end. Only schema
    positions are walked: a `$ref` inside an `enum`, `const`, `default` or `examples` value
    is data, and stays as written."""
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if (
        isinstance(ref, str)
        and ref.startswith("#/")
        and ref_target(ref, LOCAL_PREFIX) is None
        and ref_target(ref, DEFINITIONS_PREFIX) is None
    ):
        target = pointed(root, ref[1:])
        if depth > 0 or not isinstance(target, dict | bool):
            return {}
        rest = {key: value for key, value in node.items() if key != "$ref"}
        inlined = _inline_pointers(target, root, depth + 1)
        return {**inlined, **rest} if isinstance(inlined, dict) else inlined
    return map_children(node, lambda child: _inline_pointers(child, root, depth))


class _Models:
    """Every model class to generate, as entries of one JSON Schema `$defs` document."""

    def __init__(self, spec: Spec) -> None:
        self.definition_names = {name: naming.definition_model(name) for name in spec.definitions}
        self.schemas: dict[str, Json] = {}
        self.sources: dict[str, JsonPath] = {}  # model -> where the spec writes its schema
        for name, definition in spec.definitions.items():
            self.add(definition, self.definition_names[name], ("definitions", name))

    def add(self, schema: dict[str, Json], owner: str, source: JsonPath) -> str:
        """The schema under `owner`, its own `$defs` hoisted under owner-qualified names, and
        refs rewritten to match. `source` is where the spec writes it."""
        local = schema.get("$defs") or {}
        local_names = {name: owner + naming.pascal(name) for name in local}

        def rewrite(ref: str) -> str:
            shared = split_ref(ref, DEFINITIONS_PREFIX)
            if shared is not None:
                return LOCAL_PREFIX + self.definition_names[shared[0]] + shared[1]
            own = split_ref(ref, LOCAL_PREFIX)
            if own is not None:
                return LOCAL_PREFIX + local_names[own[0]] + own[1]
            return LOCAL_PREFIX + owner if ref == "#" else ref

        body = {key: value for key, value in schema.items() if key not in _DOCUMENT_KEYWORDS and key != "$defs"}
        body = _inline_pointers(body, schema)
        self.schemas[owner] = model_schema(rewrite_refs(body, rewrite))
        self.sources[owner] = source
        for name, definition in local.items():
            self.schemas[local_names[name]] = model_schema(rewrite_refs(definition, rewrite))
            self.sources[local_names[name]] = source + ("$defs", name)
        return owner


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
            return _b64(self.read(mapping["file"]))
        return str(mapping[inline])


def _is_textual(mime_type: str | None) -> bool:
    kind = (mime_type or "text/plain").split(";")[0].strip()
    return kind.startswith("text/") or kind.endswith(("json", "xml", "yaml", "javascript"))


def _is_text(data: bytes, mime_type: str | None) -> bool:
    if not _is_textual(mime_type):
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _tool(tool: Tool, spec: Spec, models: _Models) -> ToolIR:
    input_model = models.add(tool.input_schema, naming.tool_input_model(tool.name), tool.path + ("inputSchema",))
    wire: dict[str, Json] = {"name": tool.name, **tool.served, "inputSchema": spec.bundles.of(tool.input_schema)}
    output_model = None
    wrapped = False
    if tool.output_schema is not None:
        output_model = models.add(tool.output_schema, naming.tool_output_model(tool.name), tool.path + ("outputSchema",))
        wire["outputSchema"], wrapped = served_output(tool.output_schema, spec)
    return ToolIR(
        tool.name,
        naming.tool_method(tool.name),
        input_model,
        output_model,
        wrapped,
        wire,
        tool.task_support,
        tool.scopes,
        tool.upstream,
    )


def _static(resource: Resource, assets: _Assets) -> StaticContent | None:
    if resource.text is not None:
        return StaticContent(text=resource.text)
    if resource.blob is not None:
        return StaticContent(blob=resource.blob)
    if resource.file is not None:
        data = assets.read(resource.file)
        path = f"{STATIC_DIRECTORY}/{naming.static_file(resource.name, resource.file)}"
        return StaticContent(package_file=path, data=data, binary=not _is_text(data, resource.mime_type))
    return None


def _resource(resource: Resource, spec: Spec, models: _Models, assets: _Assets) -> ResourceIR:
    content_model = None
    content_schema = None
    if resource.schema is not None:
        content_schema = spec.bundles.of(resource.schema)
        content_model = models.add(resource.schema, naming.resource_content_model(resource.name), resource.path + ("schema",))
    variables: tuple[TemplateVariable, ...] = ()
    if resource.uri_template is not None:
        variables = tuple(
            TemplateVariable(name, naming.parameter(name)) for name in template_variables(resource.uri_template)
        )
    return ResourceIR(
        name=resource.name,
        method=naming.resource_method(resource.name),
        uri=resource.uri,
        uri_template=resource.uri_template,
        variables=variables,
        mime_type=resource.mime_type,
        content_model=content_model,
        content_schema=content_schema,
        wire={"name": resource.name, **resource.served},
        static=_static(resource, assets),
        scopes=resource.scopes,
    )


def _message_content(message: PromptMessage, assets: _Assets) -> dict[str, Json]:
    kind = message.kinds[0]
    body = message.body
    if kind == "text":
        return {"type": "text", "template": body}
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
        if _is_text(data, body.get("mimeType")):
            contents["text"] = data.decode("utf-8")
        else:
            contents["blob"] = _b64(data)
    return {"type": "resource", "resource": contents}


def _arguments_schema(prompt: Prompt) -> dict[str, Json]:
    """Prompt arguments are strings; the model makes them typed keyword arguments."""
    properties: dict[str, Json] = {}
    for argument in prompt.arguments:
        properties[argument.name] = {"type": "string"}
        if argument.description is not None:
            properties[argument.name]["description"] = argument.description
    schema: dict[str, Json] = {"type": "object", "properties": properties}
    required = [argument.name for argument in prompt.arguments if argument.required]
    if required:
        schema["required"] = required
    return schema


def _prompt(prompt: Prompt, models: _Models, assets: _Assets) -> PromptIR:
    arguments_model = None
    if prompt.arguments:
        arguments_model = models.add(
            _arguments_schema(prompt), naming.prompt_arguments_model(prompt.name), prompt.path + ("arguments",)
        )
    messages = None
    if prompt.messages is not None:
        messages = tuple(
            PromptMessageIR(message.role, _message_content(message, assets))
            for message in prompt.messages
        )
    return PromptIR(
        name=prompt.name,
        method=naming.prompt_method(prompt.name),
        arguments_model=arguments_model,
        arguments=tuple(PromptArgumentIR(a.name, naming.parameter(a.name), a.required) for a in prompt.arguments),
        messages=messages,
        wire={"name": prompt.name, **prompt.served},
        scopes=prompt.scopes,
    )


def _capabilities(spec: Spec, completions: bool) -> dict[str, Json]:
    """What the server announces: what its contents imply, plus what the spec declares (a
    list capability declared without entries is announced, and its list served empty, as
    servers written with the SDKs do)."""
    declared = spec.server.capabilities
    capabilities: dict[str, Json] = {}
    if completions:
        capabilities["completions"] = {}
    if "logging" in declared:
        capabilities["logging"] = {}
    if spec.prompts or "prompts" in declared:
        capabilities["prompts"] = {"listChanged": bool(declared.get("prompts", {}).get("listChanged"))}
    if spec.resources or "resources" in declared:
        flags = declared.get("resources", {})
        capabilities["resources"] = {
            "subscribe": bool(flags.get("subscribe")),
            "listChanged": bool(flags.get("listChanged")),
        }
    if spec.tools or "tools" in declared:
        capabilities["tools"] = {"listChanged": bool(declared.get("tools", {}).get("listChanged"))}
    if any(tool.task_support in ("optional", "required") for tool in spec.tools):
        capabilities["tasks"] = copy.deepcopy(TASKS_CAPABILITY)
    return capabilities


# What 2025-11-25's `initialize` announces when a tool may run as a task: the runtime serves
# tasks/list, tasks/cancel and task-augmented tools/call (2026-07-28 names its tasks extension
# in server/discover instead).
TASKS_CAPABILITY: dict[str, Json] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}


def served_capabilities(spec: Spec) -> dict[str, Json]:
    """The capabilities the server built from `spec` announces (`diff` compares these)."""
    return _capabilities(spec, _completions(spec) is not None)


def _completions(spec: Spec) -> dict[tuple[str, str], dict[str, list[str]]] | None:
    """Completion is served when anything can be completed: a prompt argument or a template
    variable, or when the spec declares it (`completions: {}`), and never under `completions:
    false`. Values come from the spec, or from the `complete` handler."""
    declared = spec.server.capabilities.get("completions")
    completable = [p for p in spec.prompts if p.arguments] + [r for r in spec.resources if r.uri_template]
    if declared is False or not (completable or declared == {}):
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


def _upstream(upstream: ServerUpstream | None) -> UpstreamIR | None:
    if upstream is None:
        return None
    return UpstreamIR(upstream.url, copy.deepcopy(upstream.security_schemes), copy.deepcopy(upstream.security))


def resolve(spec: Spec, spec_text: bytes) -> Api:
    """The IR of a checked spec. `spec_text` is the spec's bytes, recorded by hash."""
    models = _Models(spec)
    assets = _Assets(spec)
    tools = tuple(_tool(tool, spec, models) for tool in spec.tools)
    resources = tuple(_resource(resource, spec, models, assets) for resource in spec.resources)
    prompts = tuple(_prompt(prompt, models, assets) for prompt in spec.prompts)
    completions = _completions(spec)
    server = spec.server
    return Api(
        # Only the spec's file name is recorded, never a path: output must not depend on where it is built.
        spec_name=spec.file.name,
        spec_sha256=spec_hash(spec_text),
        package=naming.package_of(server),
        client_class=naming.client_class(server.name),
        invalid_arguments=server.invalid_arguments,
        page_size=server.page_size,
        server_info=dict(server.served),
        instructions=server.instructions,
        capabilities=_capabilities(spec, completions is not None),
        tools=tools,
        resources=resources,
        prompts=prompts,
        model_schemas=models.schemas,
        definition_models=tuple(models.definition_names.values()),
        model_sources=models.sources,
        inputs=dict(sorted(assets.hashes.items())),
        declared_capabilities=copy.deepcopy(server.capabilities),
        completions=completions,
        authorization=(
            AuthorizationIR(copy.deepcopy(server.authorization.metadata), server.authorization.scopes)
            if server.authorization is not None
            else None
        ),
        upstream=_upstream(server.upstream),
    )
