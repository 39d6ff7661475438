"""What GeneratedServer adds to the SDK's server: notifications for both eras, and log levels."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from toy_server.server import create_server

pytestmark = pytest.mark.anyio


@pytest.mark.filterwarnings("ignore:resources/subscribe is removed", "ignore:resources/unsubscribe is removed")
async def test_list_changes_and_resource_updates_reach_legacy_clients() -> None:
    toy = create_server()
    seen: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification):
            seen.append(message.method)

    async with Client(toy, mode="legacy", message_handler=on_message) as client:
        await client.subscribe_resource("toy://stats")
        await toy.notify_tools_changed()
        await toy.notify_resource_updated("toy://stats")
        await toy.notify_resource_updated("toy://note")  # not subscribed: not sent
        await client.unsubscribe_resource("toy://stats")
        await toy.notify_resource_updated("toy://stats")  # unsubscribed: not sent
        await anyio.sleep(0.1)
    assert seen.count("notifications/tools/list_changed") == 1
    assert seen.count("notifications/resources/updated") == 1


async def test_list_changes_reach_2026_listeners() -> None:
    toy = create_server()
    async with Client(toy, mode="auto") as client:
        async with client.listen(tools_list_changed=True, resource_subscriptions=["toy://stats"]) as events:
            await toy.notify_tools_changed()
            await toy.notify_resource_updated("toy://stats")
            received = []
            with anyio.fail_after(5):
                async for event in events:
                    received.append(type(event).__name__)
                    if len(received) == 2:
                        break
    assert received == ["ToolsListChanged", "ResourceUpdated"]


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated", "ignore:logging/setLevel")
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_log_messages_follow_the_level_the_client_asked_for(mode: str) -> None:
    received: list[tuple[str, Any]] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        received.append((params.level, params.data))

    async with Client(create_server(), mode=mode, logging_callback=on_log, log_level="info") as client:
        if mode == "legacy":
            await client.set_logging_level("warning")
            await client.call_tool("echo", {"text": "quiet"})
            await client.set_logging_level("info")
        await client.call_tool("echo", {"text": "loud"})
        await anyio.sleep(0.05)
    assert received == [("info", "echo loud")]
