"""The Redis task store across replicas: two stores (as two server processes would
have) on one real redis-server, each with its own runner.

The contract both stores share is tested in test_runtime_tasks_core.py; here, what only
a shared store does: a task seen, awaited and cancelled from another replica, leases
that end a lost replica's tasks, bounds that hold across replicas, messages relayed to
the replica running a task, ttls on every key, waiters that do not hang on a lost
message.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from services import RedisServer, redis_server

from mcpgen.runtime.redis_link import RedisLink
from mcpgen.runtime.task_runner import TaskRunner
from mcpgen.runtime.task_store import TaskLimits
from mcpgen.runtime.task_store_common import REPLICA_LOST
from mcpgen.runtime.task_store_redis import RedisTaskStore
from mcpgen.runtime.tasks import (
    SERVER_STOPPED,
    TaskAlreadyTerminal,
    TaskControl,
    TaskLimitReached,
    TaskNotFound,
    TaskOutcome,
)

pytestmark = pytest.mark.anyio

_namespaces = itertools.count()


class Replicas:
    """Stores of one namespace, each on a link (a client) of its own."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.namespace = f"replicas:{next(_namespaces)}"
        self.stores: list[RedisTaskStore] = []

    def store(self, limits: TaskLimits | None = None) -> RedisTaskStore:
        link = RedisLink(self.url, namespace=self.namespace)
        store = RedisTaskStore(link, limits)
        self.stores.append(store)
        return store

    async def close(self) -> None:
        for store in self.stores:
            await store.aclose()
            await store.link.close()


@pytest.fixture
async def replicas(shared_redis: RedisServer) -> AsyncIterator[Replicas]:
    made = Replicas(shared_redis.url)
    yield made
    await made.close()


@asynccontextmanager
async def waiting(
    store: RedisTaskStore, task_id: str, owner: str
) -> AsyncIterator[list[Any]]:
    """`store.wait` for the task in the background, begun before the body runs and
    ended before the block is left; the list gets what it returned (or the
    `TaskNotFound` it raised)."""
    ended: list[Any] = []

    async def wait() -> None:
        try:
            ended.append(await store.wait(task_id, owner))
        except TaskNotFound as error:
            ended.append(error)

    async with anyio.create_task_group() as group:
        group.start_soon(wait)
        await anyio.sleep(0.2)  # time to be waiting before the body acts
        yield ended


def _slow(started: anyio.Event, stopped: anyio.Event) -> Any:
    async def work(control: TaskControl) -> TaskOutcome:
        started.set()
        try:
            await asyncio.sleep(60)
        finally:
            stopped.set()
        return TaskOutcome(result={})

    return work


async def test_a_task_run_on_one_replica_is_read_and_awaited_on_another(
    replicas: Replicas,
) -> None:
    a, b = replicas.store(), replicas.store()
    go = anyio.Event()

    async def work(control: TaskControl) -> TaskOutcome:
        await control.set_message("half way")
        await go.wait()
        return TaskOutcome(result={"content": [{"type": "text", "text": "done"}]})

    task = await TaskRunner(a).start(work, owner="alice", ttl=None)
    seen = await b.get(task.task_id, "alice")
    assert seen is not None and seen.status == "working"
    assert await b.get(task.task_id, "bob") is None
    async with waiting(b, task.task_id, "alice") as ended:
        go.set()
    assert ended[0].status == "completed"
    outcome = await b.outcome(task.task_id, "alice")
    assert outcome is not None and outcome.result is not None
    assert outcome.result["content"][0]["text"] == "done"
    listed, _ = await b.list_page("alice", None, 10)
    assert [t.task_id for t in listed] == [task.task_id]


async def test_cancel_on_another_replica_stops_the_work_where_it_runs(
    replicas: Replicas,
) -> None:
    a, b = replicas.store(), replicas.store()
    started, stopped = anyio.Event(), anyio.Event()
    task = await TaskRunner(a).start(_slow(started, stopped), owner="", ttl=None)
    await started.wait()
    cancelled = await TaskRunner(b).cancel(task.task_id, "")
    assert cancelled.status == "cancelled"
    with anyio.fail_after(10):
        await stopped.wait()  # a's runner heard it over pub/sub
    assert (await a.wait(task.task_id, "")).status == "cancelled"
    with pytest.raises(TaskAlreadyTerminal):
        await b.cancel(task.task_id, "")


async def test_a_lost_replicas_tasks_fail_once_its_lease_lapses(
    replicas: Replicas,
) -> None:
    limits = TaskLimits(lease=0.5, poll_interval=100)
    a, b = replicas.store(limits), replicas.store(limits)
    started, stopped = anyio.Event(), anyio.Event()
    runner = TaskRunner(a)
    task = await runner.start(_slow(started, stopped), owner="", ttl=None)
    await started.wait()
    # The replica dies: nothing renews its lease any more, nothing ends its task.
    await a.aclose()
    for work in list(runner._running.values()):
        work.cancel()
    with anyio.fail_after(10):
        ended = await b.wait(task.task_id, "")
    assert ended.status == "failed" and ended.status_message == REPLICA_LOST
    outcome = await b.outcome(task.task_id, "")
    assert outcome is not None and outcome.error is not None
    assert outcome.error["code"] == -32603


async def test_a_live_replica_keeps_its_lease_and_ends_its_tasks_when_it_stops(
    replicas: Replicas,
) -> None:
    limits = TaskLimits(lease=0.3)
    a, b = replicas.store(limits), replicas.store(limits)
    started, stopped = anyio.Event(), anyio.Event()
    runner = TaskRunner(a)
    task = await runner.start(_slow(started, stopped), owner="", ttl=None)
    await anyio.sleep(1.2)  # four leases: renewed all along
    seen = await b.get(task.task_id, "")
    assert seen is not None and seen.status == "working"
    # A replica that stops on purpose ends its tasks at once, not a lease later.
    await runner.aclose()
    assert stopped.is_set()
    ended = await b.get(task.task_id, "")
    assert ended is not None and ended.status == "failed"
    assert ended.status_message == SERVER_STOPPED


async def test_bounds_hold_across_replicas(replicas: Replicas) -> None:
    limits = TaskLimits(max_working_per_owner=5)
    stores = [replicas.store(limits) for _ in range(3)]

    async def create(index: int) -> bool:
        try:
            await stores[index % 3].create("alice", None)
        except TaskLimitReached:
            return False
        return True

    made = await asyncio.gather(*(create(index) for index in range(30)))
    assert sum(made) == 5


async def test_replicas_agree_on_the_places_a_full_store_gives_up(
    replicas: Replicas,
) -> None:
    """Issue 31: ten callers at their quota fill the store; newcomers on three replicas
    at once each take one finished task's place, and the store never holds more."""
    limits = TaskLimits(max_tasks=30, max_tasks_per_owner=3)
    stores = [replicas.store(limits) for _ in range(3)]
    for index in range(30):
        store = stores[index % 3]
        task = await store.create(f"hog{index % 10}", None)
        await store.finish(task.task_id, "completed", TaskOutcome(result={}))
    made = await asyncio.gather(
        *(stores[index % 3].create(f"newcomer{index}", None) for index in range(9))
    )
    assert len({task.task_id for task in made}) == 9
    client = stores[0].link.client()
    assert await client.zcard(stores[0].link.key("tasks") + ":all") == 30
    hogs_left = [
        len((await stores[2].list_page(f"hog{hog}", None, 10))[0]) for hog in range(10)
    ]
    assert sum(hogs_left) == 21 and max(hogs_left) - min(hogs_left) <= 1


async def test_a_message_reaches_the_replica_that_runs_the_task(
    replicas: Replicas,
) -> None:
    a, b = replicas.store(), replicas.store()
    heard: list[tuple[str, Mapping[str, Any]]] = []
    arrived = anyio.Event()

    def relayed(task_id: str, message: Mapping[str, Any]) -> None:
        heard.append((task_id, message))
        arrived.set()

    a.signals.on_relayed(relayed)
    b.signals.on_relayed(relayed)
    task = await a.create("", None)
    assert await b.relay(task.task_id, {"inputResponses": {"ok": 1}})
    with anyio.fail_after(10):
        await arrived.wait()
    await anyio.sleep(0.1)
    assert heard == [(task.task_id, {"inputResponses": {"ok": 1}})]  # a alone


async def test_every_key_has_a_ttl(
    replicas: Replicas, shared_redis: RedisServer
) -> None:
    a = replicas.store()
    task = await a.create("alice", 1000)
    await a.finish(task.task_id, "completed", TaskOutcome(result={"content": []}))
    client = a.link.client()
    keys = [key async for key in client.scan_iter(match=f"{replicas.namespace}:*")]
    assert len(keys) >= 6
    for key in keys:
        assert await client.pttl(key) > 0, key


async def test_a_waiter_polls_when_the_ended_message_is_lost(
    replicas: Replicas,
) -> None:
    limits = TaskLimits(poll_interval=100)
    a, b = replicas.store(limits), replicas.store(limits)
    task = await a.create("", None)
    b._heard = lambda data: None  # type: ignore[method-assign]  # every message lost
    with anyio.fail_after(10):
        async with waiting(b, task.task_id, "") as ended:
            await a.finish(task.task_id, "completed", TaskOutcome(result={}))
    assert ended[0].status == "completed"


async def test_the_stores_go_on_after_redis_restarts() -> None:
    """Redis restarted without persistence: the tasks it kept are gone (a waiter hears
    so, and does not hang); the stores reconnect, and the events channel is heard
    again."""
    limits = TaskLimits(poll_interval=100)
    with redis_server() as server:
        made = Replicas(server.url)
        try:
            a, b = made.store(limits), made.store(limits)
            lost = await a.create("", None)
            with anyio.fail_after(20):
                async with waiting(b, lost.task_id, "") as outcome:
                    server.restart()
            assert isinstance(outcome[0], TaskNotFound)
            kept = await a.create("", None)  # redis-py reconnects its pool itself
            async with waiting(b, kept.task_id, "") as ended:
                await a.finish(kept.task_id, "completed", TaskOutcome(result={}))
            assert ended[0].status == "completed"
        finally:
            await made.close()
