"""The era-independent task core: the stores' bounds and the runner.

Every test runs against both stores, the in-memory one and the Redis one (a real
redis-server of the module's own, a namespace per test): they must answer alike. The
wire of each era is tested against generated servers (tests/test_tasks_legacy.py,
tests/test_tasks_replicas.py); here the stores and the runner are driven directly, on a
real event loop.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from mcpgen.runtime.redis_link import RedisLink
from mcpgen.runtime.task_runner import TaskRunner
from mcpgen.runtime.task_store import TaskLimits, TaskStore
from mcpgen.runtime.task_store_memory import InMemoryTaskStore
from mcpgen.runtime.task_store_redis import RedisTaskStore
from mcpgen.runtime.tasks import (
    InvalidTaskCursor,
    TaskAlreadyTerminal,
    TaskControl,
    TaskLimitReached,
    TaskNotFound,
    TaskOutcome,
)

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


Stores = Callable[..., TaskStore]
"""Makes a store: `stores(limits=None, clock=None)`."""

_namespaces = itertools.count()
HOUR = 60 * 60 * 1000
DAY = 24 * HOUR


@pytest.fixture(params=["memory", "redis"])
async def new_store(
    request: pytest.FixtureRequest,
) -> AsyncIterator[Stores]:
    made: list[TaskStore] = []
    links: list[RedisLink] = []

    def make(limits: TaskLimits | None = None, clock: Any = None) -> TaskStore:
        store: TaskStore
        if request.param == "memory":
            store = InMemoryTaskStore(limits, clock=clock)
        else:
            url = request.getfixturevalue("shared_redis").url
            link = RedisLink(url, namespace=f"test:{next(_namespaces)}")
            links.append(link)
            store = RedisTaskStore(link, limits, clock=clock)
        made.append(store)
        return store

    yield make
    for store in made:
        await store.aclose()
    for link in links:
        await link.close()


async def test_ids_are_unguessable_and_tasks_belong_to_their_owner(
    new_store: Stores,
) -> None:
    store = new_store()
    first = await store.create("alice", None)
    second = await store.create("alice", None)
    assert first.task_id != second.task_id and len(first.task_id) >= 32
    assert await store.get(first.task_id, "alice") == first
    assert await store.get(first.task_id, "bob") is None
    with pytest.raises(TaskNotFound):
        await store.cancel(first.task_id, "bob")
    wire = first.to_wire()
    assert wire["status"] == "working" and wire["ttl"] == TaskLimits().default_ttl
    assert wire["createdAt"].endswith("Z") and wire["pollInterval"] == 1000


async def test_ttl_is_bounded_and_ends_the_task(new_store: Stores) -> None:
    clock = Clock()
    store = new_store(TaskLimits(max_ttl=5000), clock=clock)
    task = await store.create("", 60_000)
    assert task.ttl == 5000
    clock.now += 4.9
    assert await store.get(task.task_id, "") is not None
    clock.now += 0.2
    assert await store.get(task.task_id, "") is None
    assert await store.expire() == []  # already purged by the lookup


async def test_list_pages_behind_signed_cursors_per_owner(new_store: Stores) -> None:
    store = new_store()
    made = [(await store.create("alice", None)).task_id for _ in range(5)]
    await store.create("bob", None)
    seen: list[str] = []
    cursor = None
    while True:
        page, cursor = await store.list_page("alice", cursor, 2)
        seen += [task.task_id for task in page]
        if cursor is None:
            break
        with pytest.raises(InvalidTaskCursor):
            await store.list_page("bob", cursor, 2)  # issued to alice only
    assert seen == made
    for forged in ("MTAuYWJj", "x" * 200, "!!"):
        with pytest.raises(InvalidTaskCursor):
            await store.list_page("alice", forged, 2)


async def test_per_owner_and_global_limits(new_store: Stores) -> None:
    limits = TaskLimits(max_tasks=4, max_tasks_per_owner=3, max_working_per_owner=2)
    store = new_store(limits)
    one = await store.create("a", None)
    two = await store.create("a", None)
    with pytest.raises(TaskLimitReached, match="running at once"):
        await store.create("a", None)
    await store.cancel(one.task_id, "a")
    three = await store.create("a", None)
    for done in (two, three):
        await store.finish(done.task_id, "completed", TaskOutcome(result={}))
    # Three kept, one of them cancelled: the new task takes the cancelled one's place.
    await store.create("a", None)
    assert await store.get(one.task_id, "a") is None
    with pytest.raises(TaskLimitReached, match="at most 3 tasks kept"):
        await store.create("a", None)  # none cancelled: a finished result stays
    await store.create("b", None)
    # The store is full: c's task takes the place of a finished task of a's, who
    # keeps the most (the one whose ttl ends first: all here end at once).
    await store.create("c", None)
    assert [await store.get(done.task_id, "a") is None for done in (two, three)].count(
        True
    ) == 1


async def _keep_finished(
    store: TaskStore, clock: Clock, owner: str, count: int
) -> list[str]:
    """`count` finished tasks of `owner`'s, a second apart (their ttls end in order)."""
    made = []
    for _ in range(count):
        task = await store.create(owner, None)
        await store.finish(task.task_id, "completed", TaskOutcome(result={}))
        made.append(task.task_id)
        clock.now += 1
    return made


async def test_callers_at_their_quota_do_not_lock_out_another(
    new_store: Stores,
) -> None:
    """Issue 31: the store's bound was ten callers' quotas; ten callers keeping their
    finished tasks for a day locked everyone else out."""
    clock = Clock()
    limits = TaskLimits(max_tasks=30, max_tasks_per_owner=3)
    store = new_store(limits, clock=clock)
    kept = {}
    for caller in range(10):
        kept[f"hog{caller}"] = await _keep_finished(store, clock, f"hog{caller}", 3)
    newcomer = [await store.create("newcomer", None) for _ in range(3)]
    assert all(task.status == "working" for task in newcomer)
    # The places taken: one hog's each (all kept as many), the task of it whose ttl
    # ends first.
    gone = [
        (owner, task_ids.index(task_id))
        for owner, task_ids in kept.items()
        for task_id in task_ids
        if await store.get(task_id, owner) is None
    ]
    assert len(gone) == len({owner for owner, _ in gone}) == 3
    assert all(index == 0 for _, index in gone)
    with pytest.raises(TaskLimitReached, match="at most 3 tasks kept"):
        await store.create("newcomer", None)
    # Working tasks are never taken: a store full of them refuses.
    for task in newcomer:
        await store.cancel(task.task_id, "newcomer")


async def test_a_store_full_of_running_tasks_refuses(new_store: Stores) -> None:
    store = new_store(TaskLimits(max_tasks=4, max_tasks_per_owner=4))
    running = [await store.create("hog", None) for _ in range(4)]
    with pytest.raises(TaskLimitReached, match="at most 4 tasks"):
        await store.create("newcomer", None)
    assert [await store.get(task.task_id, "hog") for task in running] == running


async def test_cancel_frees_a_place(new_store: Stores) -> None:
    store = new_store(TaskLimits(max_tasks_per_owner=2))
    first, second = [await store.create("alice", None) for _ in range(2)]
    with pytest.raises(TaskLimitReached, match="at most 2 tasks kept"):
        await store.create("alice", None)
    cancelled = await store.cancel(first.task_id, "alice")
    assert (await store.get(first.task_id, "alice")) == cancelled  # still readable
    third = await store.create("alice", None)
    assert await store.get(first.task_id, "alice") is None
    assert await store.get(second.task_id, "alice") == second
    assert await store.get(third.task_id, "alice") == third


async def test_an_anonymous_callers_ttl_is_capped(new_store: Stores) -> None:
    limits = TaskLimits(default_ttl=2 * HOUR, max_anonymous_ttl=HOUR)
    store = new_store(limits)
    nearby = {"quota_key": "address:192.0.2.7", "network": "network:192.0.2.0/24"}
    assert (await store.create("", DAY, **nearby)).ttl == HOUR
    assert (await store.create("", None, **nearby)).ttl == HOUR
    assert (await store.create("", 1000, **nearby)).ttl == 1000
    assert (await store.create("principal:x", DAY)).ttl == DAY
    assert (await store.create("principal:x", None)).ttl == 2 * HOUR


async def test_anonymous_callers_of_one_network_share_a_running_bound(
    new_store: Stores,
) -> None:
    store = new_store(TaskLimits(max_working_per_network=3))
    network = "network:2001:db8:1::/48"
    running = [
        await store.create(
            "", None, quota_key=f"address:2001:db8:1:{n}::/64", network=network
        )
        for n in range(3)
    ]
    with pytest.raises(TaskLimitReached, match="one network may have at most 3"):
        await store.create(
            "", None, quota_key="address:2001:db8:1:9::/64", network=network
        )
    await store.create(
        "", None, quota_key="address:2001:db8:2::/64", network="network:2001:db8:2::/48"
    )
    await store.finish(running[0].task_id, "completed", TaskOutcome(result={}))
    await store.create("", None, quota_key="address:2001:db8:1:9::/64", network=network)


async def test_terminal_states_never_change(new_store: Stores) -> None:
    store = new_store()
    task = await store.create("", None)
    cancelled = await store.cancel(task.task_id, "")
    assert cancelled.status == "cancelled"
    late = await store.finish(task.task_id, "completed", TaskOutcome(result={}))
    assert late is not None and late.status == "cancelled"
    assert (await store.set_status(task.task_id, "working")) == late
    with pytest.raises(TaskAlreadyTerminal, match="'cancelled'"):
        await store.cancel(task.task_id, "")


async def test_a_result_too_large_fails_the_task(new_store: Stores) -> None:
    store = new_store(TaskLimits(max_result_bytes=100))
    task = await store.create("", None)
    big = TaskOutcome(result={"content": [{"type": "text", "text": "x" * 200}]})
    ended = await store.finish(task.task_id, "completed", big)
    assert ended is not None and ended.status == "failed"
    outcome = await store.outcome(task.task_id, "")
    assert outcome is not None and outcome.error is not None
    assert outcome.error["code"] == -32603


async def _result(control: TaskControl) -> TaskOutcome:
    await control.set_status("input_required", "waiting")
    await control.set_status("working")
    await control.set_message("half way")
    return TaskOutcome(result={"content": [], "isError": False})


async def test_the_runner_records_the_outcome_and_tells_each_status(
    new_store: Stores,
) -> None:
    runner = TaskRunner(new_store())
    heard: list[str] = []

    async def listener(task: Any) -> None:
        heard.append(task.status)

    task = await runner.start(_result, owner="", ttl=None, listener=listener)
    ended = await runner.store.wait(task.task_id, "")
    assert ended.status == "completed"
    assert heard == ["input_required", "working", "completed"]
    outcome = await runner.store.outcome(task.task_id, "")
    assert outcome is not None and outcome.raise_or_return()["isError"] is False


@pytest.mark.parametrize("is_error_status", ["completed", "failed"])
async def test_an_is_error_result_ends_as_the_era_says(
    new_store: Stores, is_error_status: Any
) -> None:
    runner = TaskRunner(new_store(), is_error_status=is_error_status)

    async def business_error(control: TaskControl) -> TaskOutcome:
        return TaskOutcome(
            result={"content": [{"type": "text", "text": "No gifts"}], "isError": True}
        )

    task = await runner.start(business_error, owner="", ttl=None)
    ended = await runner.store.wait(task.task_id, "")
    assert ended.status == is_error_status and ended.status_message == "No gifts"


async def test_protocol_errors_and_crashes_fail_the_task(new_store: Stores) -> None:
    runner = TaskRunner(new_store())

    async def refused(control: TaskControl) -> TaskOutcome:
        raise MCPError(-32602, "Unknown tool: x")

    async def crashed(control: TaskControl) -> TaskOutcome:
        raise RuntimeError("secret detail")

    for work, code in ((refused, -32602), (crashed, -32603)):
        task = await runner.start(work, owner="", ttl=None)
        ended = await runner.store.wait(task.task_id, "")
        assert ended.status == "failed"
        outcome = await runner.store.outcome(task.task_id, "")
        assert outcome is not None
        with pytest.raises(MCPError) as raised:
            outcome.raise_or_return()
        assert raised.value.error.code == code
        assert "secret" not in raised.value.error.message


async def test_cancel_stops_the_work(new_store: Stores) -> None:
    runner = TaskRunner(new_store())
    started, stopped = anyio.Event(), anyio.Event()

    async def slow(control: TaskControl) -> TaskOutcome:
        started.set()
        try:
            await asyncio.sleep(60)
        finally:
            stopped.set()
        return TaskOutcome(result={})

    task = await runner.start(slow, owner="me", ttl=None)
    await started.wait()
    cancelled = await runner.cancel(task.task_id, "me")
    assert cancelled.status == "cancelled"
    with anyio.fail_after(5):
        await stopped.wait()
    assert (await runner.store.wait(task.task_id, "me")).status == "cancelled"


async def test_a_task_whose_ttl_ends_is_deleted_and_its_work_stopped(
    new_store: Stores,
) -> None:
    runner = TaskRunner(new_store())
    stopped = anyio.Event()

    async def slow(control: TaskControl) -> TaskOutcome:
        try:
            await asyncio.sleep(60)
        finally:
            stopped.set()
        return TaskOutcome(result={})

    task = await runner.start(slow, owner="", ttl=50)
    with anyio.fail_after(5):
        await stopped.wait()
    with pytest.raises(TaskNotFound):
        await runner.store.wait(task.task_id, "")


async def test_the_results_kept_together_are_bounded(new_store: Stores) -> None:
    clock = Clock()
    store = new_store(TaskLimits(max_stored_bytes=300, max_ttl=1000), clock=clock)
    result = TaskOutcome(result={"content": [{"type": "text", "text": "x" * 100}]})

    async def ended_as() -> tuple[str, str | None]:
        task = await store.create("", None)
        ended = await store.finish(task.task_id, "completed", result)
        assert ended is not None
        return ended.status, ended.status_message

    assert [await ended_as(), await ended_as()] == [("completed", None)] * 2
    status, message = await ended_as()
    assert (
        status == "failed"
        and message is not None
        and "too many task results" in message
    )
    clock.now += 2  # every ttl is over: their room is free again
    assert await ended_as() == ("completed", None)
