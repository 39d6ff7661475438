"""The fixtures the tests share; plain helper functions are in helpers.py.

The committed example (`generated_example/`) is importable as `gift_server`; the
hand-written `generated_example/app.py` is importable as `gift_example_app`
(`helpers.load_example_app()`).

The tiers (see `tiers.py`): every test not marked `slow` is in the unit tier, and one that
spends more than its budget of CPU fails the run.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from helpers import EXAMPLE, EXAMPLE_APP, ROOT, build_and_write, http_server
from tiers import pytest_configure, pytest_runtest_call  # noqa: F401  (hooks: pytest finds them here)

from mcpgen.services.pipeline import Build

if str(EXAMPLE) not in sys.path:
    sys.path.insert(0, str(EXAMPLE))


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


# The committed specs built with the real generator and written, once per session (once per
# xdist worker), in the fixture's setup, for every test that asks. Shared: read the Build and
# its package (`.directory`), never change them; a test that edits one builds its own.
def _committed_build(name: str, factory: pytest.TempPathFactory) -> Build:
    return build_and_write(ROOT / "specs" / f"{name}.yaml", factory.mktemp(f"built-{name}"))


@pytest.fixture(scope="session")
def gift_server_build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    return _committed_build("gift_server", tmp_path_factory)


@pytest.fixture(scope="session")
def conformance_build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    return _committed_build("conformance", tmp_path_factory)


@pytest.fixture(scope="session")
def kitchen_sink_build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    return _committed_build("kitchen_sink", tmp_path_factory)


@pytest.fixture(scope="module")
def gift_http_server() -> Iterator[str]:
    """`generated_example/app.py --http` in a subprocess; yields its URL (…/mcp)."""
    with http_server([sys.executable, str(EXAMPLE_APP)], cwd=ROOT) as url:
        yield url

# The committed generated packages are code under test, not tests: a module of their
# models named after a tool such as `test_trigger_tool_change` is not a test file.
collect_ignore_glob = ["conformance/conformance_server/*", "kitchen_sink/kitchen_sink/*"]
