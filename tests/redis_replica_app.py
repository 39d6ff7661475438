"""A replica for the scale-out tests: the conformance fixtures (tests/conformance/app.py),
where `test_trigger_prompt_change` also says that `test://watched-resource` changed, so a
call made on one replica updates a resource its subscribers on another hear of.

    python tests/redis_replica_app.py --http 127.0.0.1:PORT --redis redis://127.0.0.1:6379/0
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "conformance"))

from app import ConformanceFixtures  # noqa: E402
from conformance_server import Context, ToolContent, run  # noqa: E402
from conformance_server.models import TestTriggerPromptChangeInput  # noqa: E402

WATCHED = "test://watched-resource"


class Replica(ConformanceFixtures):
    async def test_trigger_prompt_change(
        self, args: TestTriggerPromptChangeInput, ctx: Context
    ) -> ToolContent:
        await ctx.notify_prompts_changed()
        await ctx.notify_resource_updated(WATCHED)
        return "Prompt list change and an update of test://watched-resource announced."


if __name__ == "__main__":
    run(Replica())
