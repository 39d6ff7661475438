"""Fixtures of the runtime tests that more than one module uses."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from services import RedisServer, redis_server


@pytest.fixture(scope="module")
def shared_redis() -> Iterator[RedisServer]:
    """A redis-server for one test module; its tests keep apart by namespace."""
    with redis_server() as server:
        yield server
