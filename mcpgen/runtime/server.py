"""The generated server: `build_server` and the `GeneratedServer` it returns.

The generated server.py calls `build_server(__package__, tools=..., ...)` with one
binding per item, by name; everything served on the wire (serverInfo, instructions,
capabilities, the four lists, resource content schemas) comes from the package's own
schema.json, which mcpgen writes beside server.py.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager, nullcontext
from typing import TYPE_CHECKING, Any, cast, get_args

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ServerEvent,
    SubscriptionBus,
    ToolsListChanged,
)

from .completions import CompletionHandler, CompletionTable, CompletionValues
from .keys import deployment_secret
from .legacy_connections import LegacyConnections
from .limits import Limits
from .package_data import schema_document
from .prompts import PromptBinding, PromptTable, prompt_messages_mismatches
from .redis_link import RedisLink
from .resources import ResourceBinding, ResourceTable, TemplateBinding
from .task_serving import ServedTasks, serve_tasks
from .task_store import TaskStore
from .tasks_legacy import CAPABILITY as LEGACY_TASKS_CAPABILITY
from .tools import InvalidArguments, ListFromSchema, ToolBinding, ToolTable

if TYPE_CHECKING:  # imported where used: only servers given a Redis need it
    from .redis_bus import RedisSubscriptionBus

LIST_KINDS = ("tools", "resources", "prompts")


class GeneratedServer(Server[Any]):
    """The SDK's low-level server, plus what a generated server adds: list-change and
    resource-update notifications that reach clients of both protocol eras, resource
    subscriptions and log levels for 2025-11-25 clients, and signed `requestState`.

    `declared` is the server's capabilities as schema.json has them: `logging`, and the
    `listChanged` / `subscribe` flags of `tools`, `resources` and `prompts`, turn on
    what they name. `limits` bound what handlers and clients may cost (see Limits);
    `redis` shares notifications with the other replicas (see `use_redis`);
    `options` are the SDK `Server`'s keyword arguments.
    """

    def __init__(
        self,
        name: str,
        *,
        declared: Mapping[str, Any],
        limits: Limits | None = None,
        redis: RedisLink | None = None,
        **options: Any,
    ) -> None:
        listen = any(
            (declared.get(kind) or {}).get(flag)
            for kind in LIST_KINDS
            for flag in ("listChanged", "subscribe")
        )
        # This process's listeners; a Redis bus (use_redis) wraps it, so the
        # ListenHandler made here hears the other replicas' events too.
        self._local_bus = InMemorySubscriptionBus()
        self.legacy = LegacyConnections()
        self.bus: SubscriptionBus = self._local_bus
        self.redis: RedisLink | None = None
        self._redis_bus: RedisSubscriptionBus | None = None
        if listen:
            # 2026-07-28 clients hear of changes through subscriptions/listen.
            options["on_subscriptions_listen"] = ListenHandler(self._local_bus)
        options.setdefault("lifespan", GeneratedServer._lifespan)
        if (declared.get("resources") or {}).get("subscribe"):
            options.update(
                on_subscribe_resource=self.legacy.subscribe,
                on_unsubscribe_resource=self.legacy.unsubscribe,
            )
        with warnings.catch_warnings():
            # logging/setLevel is deprecated in 2026-07-28; 2025-11-25 clients still send it.
            warnings.simplefilter("ignore")
            if "logging" in declared:
                options["on_set_logging_level"] = self.legacy.set_logging_level
            super().__init__(name, **options)
        self.declared = declared
        self.limits = limits or Limits()
        # Where tasks are kept, when some tool may run as one (see task_serving.py).
        self.task_store: TaskStore | None = None
        self.tasks: ServedTasks | None = None
        self.middleware.append(self.legacy.remember)
        self.middleware.append(
            RequestStateBoundary(_request_state_security(), default_audience=name)
        )
        if redis is not None:
            self.use_redis(redis)

    def use_redis(self, link: RedisLink, *, required: bool = True) -> None:
        """Share list changes and resource updates with every replica using `link`'s
        Redis, in both eras (see redis_bus.py, faults included). The server's lifespan
        subscribes; `required=False` lets it start while Redis is unreachable."""
        from .redis_bus import RedisSubscriptionBus

        self.redis = link
        self._redis_bus = RedisSubscriptionBus(
            link,
            local=self._local_bus,
            on_remote=self.legacy.send,
            required=required,
        )
        self.bus = self._redis_bus
        if self.tasks is not None:  # and tasks are kept there too
            self.task_store = self.tasks.use_redis(link, self.limits.tasks)

    @asynccontextmanager
    async def _lifespan(self) -> AsyncIterator[dict[str, Any]]:
        """While the server serves (stdio, or the HTTP app): its Redis subscriber."""
        async with self._redis_bus.running() if self._redis_bus else nullcontext():
            yield {}

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        if notification_options is None:
            # Advertise listChanged exactly as declared (the SDK's default is False).
            changed = {
                kind: bool((self.declared.get(kind) or {}).get("listChanged"))
                for kind in LIST_KINDS
            }
            notification_options = NotificationOptions(
                prompts_changed=changed["prompts"],
                resources_changed=changed["resources"],
                tools_changed=changed["tools"],
            )
        options = super().create_initialization_options(
            notification_options, experimental_capabilities, extensions
        )
        if self.task_store is not None:
            # 2025-11-25's tasks utility; 2026-07-28 clients never see initialize.
            options.capabilities.tasks = LEGACY_TASKS_CAPABILITY
        return options

    def log_level_allows(self, session: Any, level: types.LoggingLevel) -> bool:
        """Whether a 2025-11-25 client's `logging/setLevel` lets `level` through.

        (2026-07-28 clients choose a level per request; the SDK filters those.)
        """
        return self.legacy.log_level_allows(session, level)

    async def notify_tools_changed(self) -> None:
        """Tell clients the tool list changed: 2026 listeners and 2025 connections alike
        (and those of the other replicas, with a Redis)."""
        await self._announce(ToolsListChanged())

    async def notify_prompts_changed(self) -> None:
        """Tell clients the prompt list changed."""
        await self._announce(PromptsListChanged())

    async def notify_resources_changed(self) -> None:
        """Tell clients the resource list changed."""
        await self._announce(ResourcesListChanged())

    async def notify_resource_updated(self, uri: str) -> None:
        """Tell the clients subscribed to `uri` that it changed."""
        await self._announce(ResourceUpdated(uri=uri))

    async def _announce(self, event: ServerEvent) -> None:
        await self.bus.publish(event)
        await self.legacy.send(event)


def _request_state_security() -> RequestStateSecurity:
    """The key that seals `requestState` (AES-GCM). Replicas behind one load balancer must
    share it: set MCP_REQUEST_STATE_KEY to 32 or more random bytes (e.g. 64 hex digits).
    Without it, a key is made for this process alone (see keys.py)."""
    key = deployment_secret()
    return RequestStateSecurity(keys=[key]) if key else RequestStateSecurity.ephemeral()


def build_server(
    package: str | None,
    *,
    tools: Mapping[str, ToolBinding] | None = None,
    resources: Mapping[str, ResourceBinding] | None = None,
    templates: Mapping[str, TemplateBinding] | None = None,
    prompts: Mapping[str, PromptBinding] | None = None,
    completions: CompletionValues | None = None,
    complete: CompletionHandler | None = None,
    invalid_arguments: InvalidArguments = "tool_error",
    page_size: int | None = None,
    limits: Limits | None = None,
    task_store: TaskStore | None = None,
    redis: str | RedisLink | None = None,
) -> GeneratedServer:
    """The server of a generated package: its schema.json, answered by these bindings.

    `package` is the generated package (server.py passes `__package__`); its
    schema.json gives serverInfo, instructions, capabilities, the tools, resources,
    templates and prompts in the order they are listed, and `resourceSchemas`.
    Each mapping binds every item of schema.json, by name, and nothing else: a
    mismatch means the package was edited by hand, and is a ValueError here.

    `completions` holds the spec's completion values (None when nothing can be
    completed: then `completion/complete` is not served); `complete` is the handler
    that may compute them instead. `invalid_arguments` says how invalid tool
    arguments are answered; `page_size` splits the lists into pages (None: one page);
    `limits` bound what handlers and clients may cost (None: `Limits()`, the defaults).
    `task_store` keeps the tasks of tools that may run as tasks (their binding's
    `task_support`; None: a `RedisTaskStore` in `redis`, else an `InMemoryTaskStore`,
    bounded by `limits.tasks`; see task_serving.py).
    `redis` (a URL, or a `RedisLink`; None: $MCP_REDIS_URL, if set) is the Redis the
    server's replicas share notifications and tasks through (see
    `GeneratedServer.use_redis`).
    """
    if not package:
        raise ValueError("build_server() needs the generated package: pass __package__")
    if limits is not None and not isinstance(limits, Limits):
        raise TypeError(f"limits must be a Limits, not {limits!r}")
    if invalid_arguments not in get_args(InvalidArguments):
        raise ValueError(
            f"invalid_arguments must be one of {get_args(InvalidArguments)}"
        )
    document = schema_document(package)
    tools, resources = tools or {}, resources or {}
    templates, prompts = templates or {}, prompts or {}
    tool_list: list[Mapping[str, Any]] = document.get("tools/list", {}).get("tools", [])
    resource_list = [
        types.Resource.model_validate(resource)
        for resource in document.get("resources/list", {}).get("resources", [])
    ]
    template_list = [
        types.ResourceTemplate.model_validate(template)
        for template in document.get("resources/templates/list", {}).get(
            "resourceTemplates", []
        )
    ]
    prompt_list = [
        types.Prompt.model_validate(prompt)
        for prompt in document.get("prompts/list", {}).get("prompts", [])
    ]
    schemas: Mapping[str, Mapping[str, Any]] = document.get("resourceSchemas", {})
    capabilities: Mapping[str, Any] = document.get("capabilities", {})
    problems = [
        *_mismatches("tool", [t["name"] for t in tool_list], tools),
        *_mismatches("resource", [r.name for r in resource_list], resources),
        *_mismatches("resource template", [t.name for t in template_list], templates),
        *_mismatches("prompt", [p.name for p in prompt_list], prompts),
        *prompt_messages_mismatches(package, prompts),
    ]
    modelled = [
        name
        for bindings in (resources, templates)
        for name, binding in bindings.items()
        if binding.content_model is not None
    ]
    problems += [
        f"resource {name!r} has a content model but no resourceSchemas entry"
        for name in modelled
        if name not in schemas
    ]
    problems += [
        f"resourceSchemas has {name!r}, which is no resource with a content model"
        for name in schemas
        if name not in modelled
    ]
    problems += [
        f"{name!r} is both a resource and a resource template in schema.json"
        for name in sorted(
            {r.name for r in resource_list} & {t.name for t in template_list}
        )
    ]
    if completions is None and "completions" in capabilities:
        problems.append("schema.json declares completions, but none are given")
    if completions is not None and "completions" not in capabilities:
        problems.append("completions are given, but schema.json does not declare them")
    if problems:
        raise ValueError(
            f"package {package!r}: the bindings do not match schema.json: "
            + "; ".join(problems)
            + ". Was the generated package edited by hand? Rebuild it with mcpgen."
        )

    tables: list[ToolTable | ResourceTable | PromptTable | CompletionTable] = []
    handlers: dict[str, Any] = {}
    # A list capability in schema.json is served, even with no entries (empty lists).
    if tool_list or "tools" in capabilities:
        tool_table = ToolTable(tool_list, tools, invalid_arguments, page_size)
        tables.append(tool_table)
        handlers.update(
            # A dict result (schema.json's own); the SDK's annotation names the model.
            on_list_tools=cast(Any, tool_table.list_tools),
            on_call_tool=tool_table.call_tool,
            # Spares the SDK a tools/list per 2026-07-28 HTTP call to check headers.
            get_tool_input_schema=tool_table.input_schema,
        )
    if resource_list or template_list or "resources" in capabilities:
        resource_table = ResourceTable(
            package,
            resource_list,
            template_list,
            resources,
            templates,
            schemas,
            page_size,
        )
        tables.append(resource_table)
        handlers.update(
            on_list_resources=resource_table.list_resources,
            on_list_resource_templates=resource_table.list_templates,
            on_read_resource=resource_table.read_resource,
        )
    if prompt_list or "prompts" in capabilities:
        prompt_table = PromptTable(package, prompt_list, prompts, page_size)
        tables.append(prompt_table)
        handlers.update(
            on_list_prompts=prompt_table.list_prompts,
            on_get_prompt=prompt_table.get_prompt,
        )
    if completions is not None:
        completion_table = CompletionTable(completions, complete)
        tables.append(completion_table)
        handlers.update(on_completion=completion_table.complete)
    info = types.Implementation.model_validate(document["serverInfo"])
    server = GeneratedServer(
        info.name,
        declared=capabilities,
        limits=limits,
        version=info.version,
        title=info.title,
        description=info.description,
        instructions=document.get("instructions"),
        website_url=info.website_url,
        icons=info.icons,
        redis=(
            redis
            if isinstance(redis, RedisLink)
            else RedisLink.for_server(info.name, redis)
        ),
        **handlers,
    )
    for table in tables:
        table.server = server
    if tool_list or "tools" in capabilities:
        # Innermost, so the SDK's tracing and requestState middleware still see it.
        server.middleware.append(ListFromSchema(tool_table, server))
        if any(binding.task_support != "forbidden" for binding in tools.values()):
            server.tasks = serve_tasks(server, tool_table, page_size, task_store)
            server.task_store = server.tasks.store
    return server


def _mismatches(
    kind: str, listed: Iterable[str], bound: Mapping[str, Any]
) -> Sequence[str]:
    """What differs between the names schema.json lists and the names bound."""
    names = list(listed)
    listed_names = set(names)
    problems = [
        f"{kind} {name!r} is listed twice in schema.json"
        for name, count in sorted(Counter(names).items())
        if count > 1
    ]
    problems += [
        f"{kind} {name!r} is in schema.json but has no binding"
        for name in names
        if name not in bound
    ]
    problems += [
        f"{kind} {name!r} has a binding but is not in schema.json"
        for name in bound
        if name not in listed_names
    ]
    return problems
