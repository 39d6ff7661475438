"""The server surface beyond plain calls, tested in memory with the real client in both eras:
content types, progress, logging, asking the client (elicitation, sampling, roots) across
rounds, capabilities, resources and subscriptions, list changes, prompts, completion and
pagination. The fixture is the conformance server (tests/conformance)."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from helpers import CONFORMANCE_APP, built_package, load_module, write_spec
from mcp import Client
from mcp.shared.exceptions import MCPError

# Loading the app puts its folder, and so the generated conformance_server, on sys.path.
conformance_app = load_module("conformance_app", CONFORMANCE_APP)
from conformance_server import McpgenConformanceClient, create_server  # noqa: E402

MODES = ["auto", "legacy"]
pytestmark = pytest.mark.anyio


@pytest.fixture
def server() -> Any:
    return create_server(conformance_app.ConformanceFixtures())


async def _elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    properties = params.requested_schema["properties"]  # type: ignore[union-attr]
    answers = {"name": "Alice", "color": "blue", "ok": True, "username": "ann", "email": "ann@example.com"}
    return types.ElicitResult(action="accept", content={key: answers.get(key, "x") for key in properties})


async def _sample(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    question = params.messages[0].content.text  # type: ignore[union-attr]
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(text=f"answer to {question}"), model="m", stop_reason="endTurn"
    )


async def _roots(context: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="work")])


def _client(server: Any, mode: str, **callbacks: Any) -> Client:
    return Client(server, mode=mode, **callbacks)


def _text(result: types.CallToolResult) -> str:
    assert not result.is_error, result
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


@pytest.mark.parametrize("mode", MODES)
async def test_content_blocks(server: Any, mode: str) -> None:
    async with _client(server, mode) as client:
        image = (await client.call_tool("test_image_content", {})).content
        assert [type(block) for block in image] == [types.ImageContent]
        assert base64.b64decode(image[0].data)[:8] == b"\x89PNG\r\n\x1a\n"  # type: ignore[union-attr]
        audio = (await client.call_tool("test_audio_content", {})).content[0]
        assert isinstance(audio, types.AudioContent) and audio.mime_type == "audio/wav"
        mixed = (await client.call_tool("test_multiple_content_types", {})).content
        assert [block.type for block in mixed] == ["text", "image", "resource"]
        embedded = mixed[2]
        assert isinstance(embedded, types.EmbeddedResource)
        assert embedded.resource.uri == "test://mixed-content-resource"


@pytest.mark.parametrize("mode", MODES)
async def test_progress_reaches_the_caller(server: Any, mode: str) -> None:
    seen: list[tuple[float, float | None]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append((value, total))

    async with _client(server, mode) as client:
        await client.call_tool("test_tool_with_progress", {}, progress_callback=progress)
        assert seen == [(0, 100), (50, 100), (100, 100)]
    # ...and through the typed client's `on_progress`.
    seen.clear()
    async with McpgenConformanceClient.in_memory(server, mode=mode) as typed:
        await typed.test_tool_with_progress(on_progress=progress)
    assert seen == [(0, 100), (50, 100), (100, 100)]


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
@pytest.mark.parametrize("mode", MODES)
async def test_log_messages_follow_the_requested_level(server: Any, mode: str) -> None:
    received: list[tuple[str, Any]] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        received.append((params.level, params.data))

    async with _client(server, mode, logging_callback=on_log, log_level="info") as client:
        if mode == "legacy":
            await client.set_logging_level("info")
        await client.call_tool("test_tool_with_logging", {})
        await anyio.sleep(0.05)
        assert [data for _, data in received] == [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed",
        ]
        received.clear()
        if mode == "legacy":
            await client.set_logging_level("error")
            await client.call_tool("test_tool_with_logging", {})
            await anyio.sleep(0.05)
            assert received == []  # below the level the client asked for


@pytest.mark.parametrize("mode", MODES)
async def test_asking_the_client_works_in_both_eras(server: Any, mode: str) -> None:
    callbacks = {"elicitation_callback": _elicit, "sampling_callback": _sample, "list_roots_callback": _roots}
    async with _client(server, mode, **callbacks) as client:
        elicited = _text(await client.call_tool("test_elicitation", {"message": "Who are you?"}))
        assert elicited == 'User response: action=accept, content={"username": "ann", "email": "ann@example.com"}'
        sampled = _text(await client.call_tool("test_sampling", {"prompt": "2+2?"}))
        assert sampled == "LLM response: answer to 2+2?"
        rooted = _text(await client.call_tool("test_input_required_result_list_roots", {}))
        assert rooted == "Roots: file:///work"
        # Two questions in a row: on 2026-07-28, two input_required rounds with signed state.
        assert _text(await client.call_tool("test_input_required_result_multi_round", {})) == "Alice likes blue"
        together = _text(await client.call_tool("test_input_required_result_multiple_inputs", {}))
        assert together == "Got 3 answers: client_roots, greeting, user_name"
        # A prompt may ask too.
        prompt = await client.get_prompt("test_input_required_result_prompt")
        assert prompt.messages[0].content.text == "Use this context: x"  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", MODES)
async def test_a_missing_client_capability_is_error_32021(server: Any, mode: str) -> None:
    async with _client(server, mode) as client:  # no sampling callback: no sampling capability
        with pytest.raises(MCPError) as caught:
            await client.call_tool("test_missing_capability", {})
        assert caught.value.code == -32021
        assert caught.value.data == {"requiredCapabilities": {"sampling": {}}}


async def test_tampered_request_state_is_refused(server: Any) -> None:
    async with _client(server, "auto", elicitation_callback=_elicit) as client:
        first = await client.session.call_tool(
            "test_input_required_result_tampered_state", {}, allow_input_required=True
        )
        assert isinstance(first, types.InputRequiredResult) and first.request_state
        with pytest.raises(MCPError) as caught:
            await client.session.call_tool(
                "test_input_required_result_tampered_state",
                {},
                input_responses={"confirm": types.ElicitResult(action="accept", content={"ok": True})},
                request_state=first.request_state + "-TAMPERED",
                allow_input_required=True,
            )
        assert caught.value.code == -32602


@pytest.mark.parametrize("mode", MODES)
async def test_resources(server: Any, mode: str) -> None:
    async with _client(server, mode) as client:
        [blob] = (await client.read_resource("test://static-binary")).contents
        assert isinstance(blob, types.BlobResourceContents) and blob.mime_type == "image/png"
        [text] = (await client.read_resource("test://static-text")).contents
        assert text.text == "This is the content of the static text resource."  # type: ignore[union-attr]
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["test://template/{id}/data"]
        with pytest.raises(MCPError) as caught:
            await client.read_resource("test://nothing-here")
        assert (caught.value.code, caught.value.data) == (-32602, {"uri": "test://nothing-here"})
    async with McpgenConformanceClient.in_memory(server, mode=mode) as typed:
        data = await typed.read_template_data(id="42")
        assert (data.id, data.templateTest, data.data) == ("42", True, "Data for ID: 42")


@pytest.mark.filterwarnings("ignore:resources/subscribe is removed")
async def test_list_changes_and_resource_updates_reach_legacy_clients(server: Any) -> None:
    seen: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification):
            seen.append(message.root.method if hasattr(message, "root") else message.method)  # type: ignore[attr-defined]
        elif hasattr(message, "method"):
            seen.append(message.method)

    async with Client(server, mode="legacy", message_handler=on_message) as client:
        capabilities = client.server_capabilities
        assert capabilities.tools and capabilities.tools.list_changed
        assert capabilities.resources and capabilities.resources.subscribe
        await client.subscribe_resource("test://watched-resource")
        await client.call_tool("test_trigger_tool_change", {})
        await server.notify_resource_updated("test://watched-resource")
        await server.notify_resource_updated("test://static-text")  # not subscribed: not sent
        await client.unsubscribe_resource("test://watched-resource")
        await server.notify_resource_updated("test://watched-resource")  # unsubscribed: not sent
        await anyio.sleep(0.1)
    assert seen.count("notifications/tools/list_changed") == 1
    assert seen.count("notifications/resources/updated") == 1


async def test_list_changes_reach_2026_listeners(server: Any) -> None:
    async with Client(server, mode="auto") as client:
        async with client.listen(tools_list_changed=True, resource_subscriptions=["test://watched-resource"]) as events:
            await client.call_tool("test_trigger_prompt_change", {})  # not asked for
            await client.call_tool("test_trigger_tool_change", {})
            await server.notify_resource_updated("test://watched-resource")
            received = []
            with anyio.fail_after(5):
                async for event in events:
                    received.append(type(event).__name__)
                    if len(received) == 2:
                        break
    assert received == ["ToolsListChanged", "ResourceUpdated"]


@pytest.mark.parametrize("mode", MODES)
async def test_prompts(server: Any, mode: str) -> None:
    async with _client(server, mode) as client:
        hostile = "{{ arg2 }} {% if 1 %}"
        prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": hostile, "arg2": "b"})
        text = prompt.messages[0].content.text  # type: ignore[union-attr]
        assert text == "Prompt with arguments: arg1='{{ arg2 }} {% if 1 %}', arg2='b'"  # data, not a template
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("test_prompt_with_arguments", {"arg1": "a"})
        assert caught.value.code == -32602 and "arg2" in caught.value.message
        image = await client.get_prompt("test_prompt_with_image")
        assert [m.content.type for m in image.messages] == ["image", "text"]
        embedded = await client.get_prompt("test_prompt_with_embedded_resource", {"resourceUri": "test://x"})
        assert embedded.messages[0].content.resource.uri == "test://x"  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", MODES)
async def test_completion(server: Any, mode: str) -> None:
    async with McpgenConformanceClient.in_memory(server, mode=mode) as typed:
        assert await typed.complete_prompt_test_prompt_with_arguments("arg1", "teste") == ["tested"]
        assert await typed.complete_prompt_test_prompt_with_arguments("arg1", "") == ["test", "testing", "tested"]
        assert await typed.complete_prompt_test_prompt_with_arguments("arg2", "x") == []
        assert await typed.complete_resource_template_data("id", "12") == ["123", "124"]


@pytest.fixture
async def paged(tmp_path: Path) -> AsyncIterator[Any]:
    tools = "".join(f"  tool_{n}:\n    description: Tool {n}.\n    inputSchema: {{type: object}}\n" for n in range(5))
    spec = write_spec(
        tmp_path,
        'mcpgen: 1\nserver: {name: paged, version: "1", pageSize: 2}\ntools:\n' + tools,
    )
    with built_package(spec) as package:
        handlers = type("Paged", (package.Handlers,), {f"tool_{n}": None for n in range(5)})
        yield package.create_server(handlers())


@pytest.mark.slow  # builds a package
@pytest.mark.parametrize("mode", MODES)
async def test_pagination(paged: Any, mode: str) -> None:
    async with Client(paged, mode=mode) as client:
        names: list[str] = []
        cursor = None
        pages = 0
        while True:
            page = await client.list_tools(cursor=cursor, cache_mode="bypass")
            names += [tool.name for tool in page.tools]
            pages += 1
            cursor = page.next_cursor
            if cursor is None:
                break
        assert names == [f"tool_{n}" for n in range(5)] and pages == 3
        first = await client.list_tools(cache_mode="bypass")
        assert first.next_cursor is not None
        for bad in ("nonsense", first.next_cursor[:-4] + "AAAA", base64.urlsafe_b64encode(b"2.0").decode()):
            with pytest.raises(MCPError) as caught:
                await client.list_tools(cursor=bad, cache_mode="bypass")
            assert caught.value.code == -32602


EXTRAS = """\
mcpgen: 1
server: {name: extras, version: "1"}
tools:
  report:
    description: Structured data plus a link and a note.
    inputSchema: {type: object}
    outputSchema: {type: object, properties: {count: {type: integer}}, required: [count]}
  slow:
    description: Works until it is cancelled.
    inputSchema: {type: object}
"""


@pytest.fixture
async def extras(tmp_path: Path) -> AsyncIterator[Any]:
    with built_package(write_spec(tmp_path, EXTRAS)) as package:

        class Extras(package.Handlers):  # type: ignore[misc, name-defined]
            started = anyio.Event()
            cancelled = False

            async def report(self, args: Any, ctx: Any) -> Any:
                link = package.resource_link("test://report", "report", mime_type="text/csv")
                return package.ToolResult(package.models.ReportOutput(count=2), content=[link, "note"])

            async def slow(self, args: Any, ctx: Any) -> Any:
                self.started.set()
                try:
                    await anyio.sleep(30)
                except anyio.get_cancelled_exc_class():
                    type(self).cancelled = True
                    raise
                return "finished"

        yield package, Extras


@pytest.mark.slow  # builds a package
@pytest.mark.parametrize("mode", MODES)
async def test_structured_output_with_extra_content(extras: Any, mode: str) -> None:
    package, handlers = extras
    async with Client(package.create_server(handlers()), mode=mode) as client:
        result = await client.call_tool("report", {})
        assert result.structured_content == {"count": 2}
        assert [block.type for block in result.content] == ["text", "resource_link", "text"]
        assert result.content[0].text == '{"count": 2}'  # type: ignore[union-attr]
        assert result.content[1].uri == "test://report"  # type: ignore[union-attr]


@pytest.mark.slow  # builds a package
@pytest.mark.parametrize("mode", MODES)
async def test_cancelling_a_call_cancels_the_handler(extras: Any, mode: str) -> None:
    package, handlers = extras
    handlers.started = anyio.Event()
    handlers.cancelled = False
    instance = handlers()
    async with Client(package.create_server(instance), mode=mode) as client:
        with anyio.move_on_after(5) as deadline:
            async with anyio.create_task_group() as calls:
                calls.start_soon(client.call_tool, "slow", {})
                await instance.started.wait()
                calls.cancel_scope.cancel()
        assert not deadline.cancelled_caught
        with anyio.fail_after(5):
            while not handlers.cancelled:
                await anyio.sleep(0.01)


def test_prompt_templates_compile_to_a_safe_subset() -> None:
    from mcpgen.runtime.prompt_templates import (
        TemplateError,
        parse_template,
        render_template,
        used_arguments,
    )

    parts = parse_template("A{% if tone %} {{ tone }}{% endif %} card{% if not x %}!{% elif y %}?{% else %}.{% endif %}")
    assert used_arguments(parts) == ["tone", "x", "y"]
    assert render_template(parts, {"tone": "warm"}) == "A warm card!"
    assert render_template(parts, {"x": "1"}) == "A card."
    assert render_template(parts, {"x": "1", "y": "1"}) == "A card?"
    assert render_template(parse_template('Hi {{ n | default("you") }}'), {}) == "Hi you"
    assert render_template(parse_template("{{ a }}"), {"a": "{{ b }}{% if c %}"}) == "{{ b }}{% if c %}"
    for unsafe in ("{{ a.__class__ }}", "{% for x in y %}{% endfor %}", "{{ a | upper }}", "{{ 7 * 7 }}", "{% if a == 1 %}{% endif %}"):
        with pytest.raises(TemplateError):
            parse_template(unsafe)
