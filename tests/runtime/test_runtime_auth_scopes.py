"""Which scopes each MCP method needs (issue 31, findings 2 and 6), below the wire tests
of tests/test_auth_entity_scopes.py:

- every method of both protocol revisions is classified (names a tool, prompt or
  resource; names a task; names nothing), so a method the SDK learns fails here until
  someone decides what it needs;
- the table of what each entity-naming method needs, for a spec with scoped entities;
- both task stores (memory, a real redis-server) keep a task's scopes.
"""

from __future__ import annotations

import inspect
import itertools
import typing
from collections.abc import AsyncIterator
from typing import Any

import mcp_types._v2025_11_25 as v2025
import mcp_types._v2026_07_28 as v2026
import pytest
from mcp_types import methods
from pydantic import BaseModel

from mcpgen.runtime.auth_http import Authorization
from mcpgen.runtime.auth_scopes import ENTITY_METHODS, NO_ENTITY_METHODS, TASK_METHODS
from mcpgen.runtime.redis_link import RedisLink
from mcpgen.runtime.task_store import TaskStore
from mcpgen.runtime.task_store_memory import InMemoryTaskStore
from mcpgen.runtime.task_store_redis import RedisTaskStore

SERVER_TO_CLIENT = frozenset(
    {method for method, _ in methods.SERVER_REQUESTS}
    | {method for method, _ in methods.SERVER_NOTIFICATIONS}
) - {method for method, _ in methods.CLIENT_NOTIFICATIONS} - {"ping"}
"""What only the server sends (ping and cancellations go both ways)."""

MODERN_TASK_EXTENSION = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
"""The 2026-07-28 tasks extension's methods (SEP-2663), which mcp_types does not model."""


def _wire_methods(module: Any) -> set[str]:
    """Every `method` literal of a revision's message models."""
    found: set[str] = set()
    for model in vars(module).values():
        if inspect.isclass(model) and issubclass(model, BaseModel) and "method" in model.model_fields:
            annotation = model.model_fields["method"].annotation
            if typing.get_origin(annotation) is typing.Literal:
                found |= set(typing.get_args(annotation))
    return found


def test_every_method_a_client_may_send_is_classified() -> None:
    sent_by_clients = (
        (_wire_methods(v2025) | _wire_methods(v2026) | methods.SPEC_CLIENT_METHODS) - SERVER_TO_CLIENT
    ) | MODERN_TASK_EXTENSION
    classified = [set(ENTITY_METHODS), set(TASK_METHODS), set(NO_ENTITY_METHODS)]
    assert sent_by_clients - set().union(*classified) == set(), "decide which scopes these need (auth_scopes.py)"
    for one, other in itertools.combinations(classified, 2):
        assert one & other == set()


AUTHORIZATION = Authorization.from_document(
    {
        "metadata": {"resource": "https://mcp.example.com/mcp", "authorization_servers": ["https://a.example"]},
        "scopes": ["read"],
        "tools": {"purge": ["admin"]},
        "prompts": {"summarise": ["admin"]},
        "resources": {"vault://secret": ["admin"]},
        "templates": {"notes://{id}": ["notes"]},
    }
)


def message(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


NEEDED: list[tuple[str, Any, list[str]]] = [
    ("tools/call", {"name": "purge"}, ["admin"]),
    ("tools/call", {"name": "other"}, []),
    ("prompts/get", {"name": "summarise"}, ["admin"]),
    ("resources/read", {"uri": "vault://secret"}, ["admin"]),
    ("resources/read", {"uri": "notes://7"}, ["notes"]),
    ("resources/subscribe", {"uri": "vault://secret"}, ["admin"]),
    ("resources/unsubscribe", {"uri": "notes://7"}, ["notes"]),
    ("completion/complete", {"ref": {"type": "ref/prompt", "name": "summarise"}}, ["admin"]),
    ("completion/complete", {"ref": {"type": "ref/resource", "uri": "notes://{id}"}}, ["notes"]),
    ("completion/complete", {"ref": {"type": "ref/resource", "uri": "notes://7"}}, ["notes"]),
    ("completion/complete", {"ref": {"type": "ref/resource", "uri": "vault://secret"}}, ["admin"]),
    ("subscriptions/listen", {"notifications": {"resourceSubscriptions": ["vault://secret", "notes://7"]}}, ["admin", "notes"]),
    ("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, []),
    # Malformed params name nothing (the SDK refuses them); nothing here raises.
    ("subscriptions/listen", {"notifications": {"resourceSubscriptions": "vault://secret"}}, []),
    ("completion/complete", {"ref": "summarise"}, []),
    ("tools/call", {"name": ["purge"]}, []),
    ("tools/list", {}, []),
]


@pytest.mark.parametrize(("method", "params", "needed"), NEEDED)
def test_what_each_method_needs(method: str, params: Any, needed: list[str]) -> None:
    assert AUTHORIZATION.needed_for(message(method, params)) == needed


def test_a_batch_needs_what_each_of_its_messages_needs() -> None:
    batch = [message(method, params) for method, params, _ in NEEDED]
    assert AUTHORIZATION.needed_for(batch) == ["admin", "notes"]


_namespaces = itertools.count()


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[TaskStore]:
    if request.param == "memory":
        kept: TaskStore = InMemoryTaskStore()
        yield kept
        await kept.aclose()
        return
    link = RedisLink(request.getfixturevalue("shared_redis").url, namespace=f"scopes:{next(_namespaces)}")
    kept = RedisTaskStore(link)
    yield kept
    await kept.aclose()
    await link.close()


@pytest.mark.anyio
async def test_both_stores_keep_a_tasks_scopes(store: TaskStore) -> None:
    made = await store.create("alice", None, scopes=["read", "admin"])
    plain = await store.create("alice", None)
    assert made.scopes == ("read", "admin") and plain.scopes == ()
    kept = await store.get(made.task_id, "alice")
    assert kept is not None and kept.scopes == ("read", "admin")
    listed, _ = await store.list_page("alice", None, 10)
    assert [task.scopes for task in listed] == [("read", "admin"), ()]
    cancelled = await store.cancel(made.task_id, "alice")
    assert cancelled.scopes == ("read", "admin")
