"""Which entity each MCP request names, for the scopes calling it needs (auth_http.py).

A spec gives scopes to tools, resources, resource templates and prompts; a request
needs the scopes of every one it names. That is more methods than calling them: a
caller that completes a prompt's arguments, or subscribes to a resource, learns what
only a caller with the entity's scopes may learn. `ENTITY_METHODS` says, for each
method of both protocol revisions, which entities its params name;
`TASK_METHODS` name a task, which needs the scopes the request that made it needed
(kept with the task: `tasks.Task.scopes`); `NO_ENTITY_METHODS` name none. A method in
none of the three is unknown here: the tests fail when the SDK learns a method that
is not classified (tests/runtime/test_runtime_auth_scopes.py).

The guard also leaves what it required of a request where the request's handlers
see it (`required_scopes()`), so that a task made by the request keeps it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, Literal

EntityKind = Literal["tool", "prompt", "resource"]
Named = tuple[EntityKind, str]
"""An entity a request names: a tool or prompt by name, a resource by URI (a
resource's, one a template matches, or a template's own `uriTemplate`)."""


def _named(kind: EntityKind, value: Any) -> list[Named]:
    # A malformed value names nothing: the SDK refuses the request's params anyway.
    return [(kind, value)] if isinstance(value, str) else []


def _completion_ref(params: Mapping[str, Any]) -> list[Named]:
    """`completion/complete`'s `ref`: a prompt by name, or a resource (template) by URI."""
    ref = params.get("ref")
    if not isinstance(ref, Mapping):
        return []
    if ref.get("type") == "ref/prompt":
        return _named("prompt", ref.get("name"))
    if ref.get("type") == "ref/resource":
        return _named("resource", ref.get("uri"))
    return []


def _listened_resources(params: Mapping[str, Any]) -> list[Named]:
    """2026-07-28 `subscriptions/listen`: the resources in
    `notifications.resourceSubscriptions`."""
    wanted = params.get("notifications")
    uris = wanted.get("resourceSubscriptions") if isinstance(wanted, Mapping) else None
    if not isinstance(uris, Sequence) or isinstance(uris, str):
        return []
    return [named for uri in uris for named in _named("resource", uri)]


ENTITY_METHODS: Mapping[str, Callable[[Mapping[str, Any]], list[Named]]] = {
    "tools/call": lambda params: _named("tool", params.get("name")),
    "prompts/get": lambda params: _named("prompt", params.get("name")),
    "resources/read": lambda params: _named("resource", params.get("uri")),
    "resources/subscribe": lambda params: _named("resource", params.get("uri")),
    "resources/unsubscribe": lambda params: _named("resource", params.get("uri")),
    "completion/complete": _completion_ref,
    "subscriptions/listen": _listened_resources,
}
"""Methods whose params name tools, prompts or resources (both revisions)."""

TASK_METHODS = frozenset({"tasks/get", "tasks/result", "tasks/cancel", "tasks/update"})
"""Methods whose `params.taskId` names a task (2025-11-25's tasks utility: get, result,
cancel; 2026-07-28's tasks extension: get, update, cancel)."""

NO_ENTITY_METHODS = frozenset(
    {
        "initialize",
        "ping",
        "logging/setLevel",
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        # Lists only the tasks the caller's token may see (see tasks_legacy.py).
        "tasks/list",
        "notifications/initialized",
        "notifications/cancelled",
        "notifications/progress",
        "notifications/roots/list_changed",
        # A client may tell a task's status (2025-11-25): the server answers nothing.
        "notifications/tasks/status",
    }
)
"""Methods that name no entity: the server-wide scopes are all they need."""


def named_entities(message: Mapping[str, Any]) -> list[Named]:
    """The entities one JSON-RPC message names (none for a response, or a method
    that names none)."""
    params = message.get("params")
    method = message.get("method")
    if not isinstance(params, Mapping) or not isinstance(method, str):
        return []
    names = ENTITY_METHODS.get(method)
    return names(params) if names is not None else []


def named_task(message: Mapping[str, Any]) -> str | None:
    """The task id a `tasks/*` message names, if it is one that names a task."""
    params = message.get("params")
    if message.get("method") not in TASK_METHODS or not isinstance(params, Mapping):
        return None
    task_id = params.get("taskId")
    return task_id if isinstance(task_id, str) else None


_required: ContextVar[tuple[str, ...]] = ContextVar(
    "mcpgen_required_scopes", default=()
)


def required_scopes() -> tuple[str, ...]:
    """The scopes the authorization guard required of the request being served (the
    server-wide ones and those of what it names); () on stdio, or without
    authorization."""
    return _required.get()


def requiring(scopes: Sequence[str]) -> Any:
    """Set `required_scopes()` for the request being served; returns the reset token."""
    return _required.set(tuple(scopes))


def reset_required(token: Any) -> None:
    _required.reset(token)
