"""Fixtures for the runtime's tests: the toy package (toy_server/) and both protocol eras."""

from __future__ import annotations

import pytest
from toy_server.handlers import Toy

from mcpgen.runtime.server import GeneratedServer

MODES = ["auto", "legacy"]
"""`auto` speaks 2026-07-28 in process, `legacy` runs the 2025-11-25 handshake."""


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


@pytest.fixture
def toy() -> GeneratedServer:
    from toy_server.server import create_server

    return create_server(Toy())
