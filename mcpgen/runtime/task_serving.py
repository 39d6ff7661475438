"""Tasks on a generated server: where they are kept, both eras' wire, and what happens
when the server stops.

`serve_tasks` is what `build_server` does for a server with a tool that may run as a
task. The store is the one given, else the Redis the server's replicas share (its
`RedisLink`, from `redis_url=`, $MCP_REDIS_URL or `--redis`), else this process's
memory. With Redis, any replica answers `tasks/get`, `tasks/result`, `tasks/list` and
`tasks/cancel` for any task, and tasks outlive the replica that ran them (until their
ttl); in memory, they end with the process.

When the server stops (the end of its lifespan: stdio closed, or the HTTP app shut
down after draining), the tasks still running in this process end `failed`, with an
internal error saying the server stopped: their work cannot go on elsewhere, and a
caller polling another replica learns it at once rather than a lease later. A replica
killed outright (`kill -9`) ends nothing: its tasks fail once their lease lapses
(`TaskLimits.lease`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any

from .task_runner import TaskRunner
from .task_store import TaskLimits, TaskStore
from .task_store_memory import InMemoryTaskStore
from .tasks_legacy import LegacyTasks
from .tasks_modern import EXTENSION as MODERN_TASKS
from .tasks_modern import ModernTasks, owner_of

if TYPE_CHECKING:
    from mcp.server.auth.provider import AccessToken

    from .redis_link import RedisLink
    from .server import GeneratedServer
    from .tools import ToolTable

Lifespan = Callable[[Any], AbstractAsyncContextManager[Any]]


class ServedTasks:
    """A server's task store and the runners (one per era) that keep tasks in it."""

    def __init__(self, store: TaskStore, runners: list[TaskRunner], *, given: bool):
        self.store = store
        self.runners = runners
        self.given = given

    def use_redis(self, link: RedisLink, limits: TaskLimits) -> TaskStore:
        """Keep tasks in `link`'s Redis from now on, unless a store was given (the
        server got its Redis after it was built: `--redis`). The store now used."""
        from .task_store_redis import RedisTaskStore

        if not self.given and not isinstance(self.store, RedisTaskStore):
            self.store = RedisTaskStore(link, limits)
            for runner in self.runners:
                runner.use_store(self.store)
        return self.store

    async def scopes_of(self, task_id: str, access: AccessToken) -> tuple[str, ...]:
        """The scopes kept with a task (`Task.scopes`), if the caller with `access`
        owns it; () otherwise (the task methods answer it as not found). What the
        authorization guard asks before a request about a task runs."""
        task = await self.store.get(task_id, owner_of(access))
        return () if task is None else task.scopes

    async def aclose(self) -> None:
        """End the tasks running here `failed`, then stop the store's background work."""
        for runner in self.runners:
            await runner.aclose()
        await self.store.aclose()


def serve_tasks(
    server: GeneratedServer,
    table: ToolTable,
    page_size: int | None,
    task_store: TaskStore | None,
) -> ServedTasks:
    """Serve tasks on `server` (both eras), kept in `task_store` (None: see the module)."""
    store = task_store or _default_store(server.redis, server.limits.tasks)
    legacy = TaskRunner(store, is_error_status="failed")
    modern = TaskRunner(store, is_error_status="completed")
    server.middleware.append(LegacyTasks(table, server, legacy, page_size))
    server.extensions[MODERN_TASKS] = {}  # in 2026-07-28's server/discover
    server.middleware.append(ModernTasks(table, server, modern))
    served = ServedTasks(store, [legacy, modern], given=task_store is not None)
    server.lifespan = _stopping_tasks(server.lifespan, served)
    return served


def _default_store(link: RedisLink | None, limits: TaskLimits) -> TaskStore:
    if link is None:
        return InMemoryTaskStore(limits)
    from .task_store_redis import RedisTaskStore

    return RedisTaskStore(link, limits)


def _stopping_tasks(lifespan: Lifespan, served: ServedTasks) -> Lifespan:
    """`lifespan`, which also stops the tasks when the server stops: when the last of
    the lifespans entered at once ends (stdio enters one per connection)."""
    entered = 0

    @asynccontextmanager
    async def serving(server: Any) -> AsyncIterator[Any]:
        nonlocal entered
        async with lifespan(server) as state:
            entered += 1
            try:
                yield state
            finally:
                entered -= 1
                if entered == 0:
                    await served.aclose()

    return serving
