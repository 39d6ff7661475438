"""The conformance fixture server: tests/conformance/conformance_server, implemented.

    python tests/conformance/app.py --http 127.0.0.1:PORT    # what the conformance suite drives

Literal values are the ones the official suite's scenarios check.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the generated package lives beside this file

from conformance_server import (  # noqa: E402
    Context,
    Handlers,
    TemplateDataContent,
    ToolContent,
    ToolError,
    audio,
    elicitation,
    embedded_resource,
    image,
    roots,
    run,
    sampling,
)
from conformance_server.models import (  # noqa: E402
    ConfirmDeleteInput,
    FailingJobInput,
    GreetInput,
    JsonSchema202012ToolInput,
    MultiInputInput,
    ProtocolErrorJobInput,
    SlowComputeInput,
    TestAudioContentInput,
    TestCustomHeaderInput,
    TestElicitationInput,
    TestElicitationSep1034DefaultsInput,
    TestElicitationSep1330EnumsInput,
    TestEmbeddedResourceInput,
    TestErrorHandlingInput,
    TestImageContentInput,
    TestInputRequiredResultCapabilitiesInput,
    TestInputRequiredResultElicitationInput,
    TestInputRequiredResultListRootsInput,
    TestInputRequiredResultMultipleInputsInput,
    TestInputRequiredResultMultiRoundInput,
    TestInputRequiredResultRequestStateInput,
    TestInputRequiredResultSamplingInput,
    TestInputRequiredResultTamperedStateInput,
    TestLoggingToolInput,
    TestMissingCapabilityInput,
    TestMultipleContentTypesInput,
    TestPromptWithEmbeddedResourceArguments,
    TestSamplingInput,
    TestSimpleTextInput,
    TestStreamingElicitationInput,
    TestToolWithLoggingInput,
    TestToolWithProgressInput,
    TestToolWithTaskInput,
    TestTriggerPromptChangeInput,
    TestTriggerToolChangeInput,
)

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
WAV = base64.b64decode("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")
CONFIRM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
CONFIRM_DELETE = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
INTERNAL_ERROR = -32603


def _text(result: types.CreateMessageResult) -> str:
    return result.content.text if isinstance(result.content, types.TextContent) else ""


class ConformanceFixtures(Handlers):
    async def test_simple_text(self, args: TestSimpleTextInput, ctx: Context) -> ToolContent:
        return "This is a simple text response for testing."

    async def test_image_content(self, args: TestImageContentInput, ctx: Context) -> ToolContent:
        return image(PNG, "image/png")

    async def test_audio_content(self, args: TestAudioContentInput, ctx: Context) -> ToolContent:
        return audio(WAV, "audio/wav")

    async def test_embedded_resource(self, args: TestEmbeddedResourceInput, ctx: Context) -> ToolContent:
        return embedded_resource("test://embedded-resource", "This is an embedded resource content.", "text/plain")

    async def test_multiple_content_types(self, args: TestMultipleContentTypesInput, ctx: Context) -> ToolContent:
        data = json.dumps({"test": "data", "value": 123}, separators=(",", ":"))
        return [
            "Multiple content types test:",
            image(PNG, "image/png"),
            embedded_resource("test://mixed-content-resource", data, "application/json"),
        ]

    async def test_error_handling(self, args: TestErrorHandlingInput, ctx: Context) -> ToolContent:
        raise ToolError("This tool intentionally returns an error for testing")

    async def test_tool_with_progress(self, args: TestToolWithProgressInput, ctx: Context) -> ToolContent:
        for progress in (0, 50, 100):
            await ctx.report_progress(progress, 100)
            await anyio.sleep(0.05)
        return f"Progress test completed for {ctx.protocol_version}"

    async def test_tool_with_logging(self, args: TestToolWithLoggingInput, ctx: Context) -> ToolContent:
        for message in ("Tool execution started", "Tool processing data", "Tool execution completed"):
            await ctx.log("info", message)
            await anyio.sleep(0.05)
        return "Logging test completed"

    async def test_sampling(self, args: TestSamplingInput, ctx: Context) -> ToolContent:
        answer = await ctx.sample(args.prompt, max_tokens=100)
        return f"LLM response: {_text(answer)}"

    async def test_elicitation(self, args: TestElicitationInput, ctx: Context) -> ToolContent:
        schema = {
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"},
            },
            "required": ["username", "email"],
        }
        answer = await ctx.elicit(args.message, schema)
        return f"User response: action={answer.action}, content={json.dumps(answer.content)}"

    async def test_elicitation_sep1034_defaults(
        self, args: TestElicitationSep1034DefaultsInput, ctx: Context
    ) -> ToolContent:
        schema = {
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "default": True},
            },
        }
        answer = await ctx.elicit("Please review and update the form fields with defaults", schema)
        return f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}"

    async def test_elicitation_sep1330_enums(self, args: TestElicitationSep1330EnumsInput, ctx: Context) -> ToolContent:
        def titled(*pairs: tuple[str, str]) -> list[dict[str, str]]:
            return [{"const": value, "title": title} for value, title in pairs]

        choices = ["option1", "option2", "option3"]
        schema = {
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "enum": choices},
                "titledSingle": {
                    "type": "string",
                    "oneOf": titled(("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")),
                },
                "legacyEnum": {
                    "type": "string",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"],
                },
                "untitledMulti": {"type": "array", "items": {"type": "string", "enum": choices}},
                "titledMulti": {
                    "type": "array",
                    "items": {
                        "anyOf": titled(
                            ("value1", "First Choice"), ("value2", "Second Choice"), ("value3", "Third Choice")
                        )
                    },
                },
            },
        }
        answer = await ctx.elicit("Please select options from the enum fields", schema)
        return f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}"

    async def json_schema_2020_12_tool(self, args: JsonSchema202012ToolInput, ctx: Context) -> ToolContent:
        return f"Received: {args.model_dump_json(exclude_none=True)}"

    async def test_custom_header(self, args: TestCustomHeaderInput, ctx: Context) -> ToolContent:
        return f"Region: {args.region}"

    async def test_input_required_result_elicitation(
        self, args: TestInputRequiredResultElicitationInput, ctx: Context
    ) -> ToolContent:
        answer = await ctx.elicit("What is your name?", NAME, key="user_name")
        return f"Hello, {(answer.content or {}).get('name', 'stranger')}!"

    async def test_input_required_result_sampling(
        self, args: TestInputRequiredResultSamplingInput, ctx: Context
    ) -> ToolContent:
        answer = await ctx.sample("What is the capital of France?", max_tokens=100, key="capital_question")
        return f"The model said: {_text(answer)}"

    async def test_input_required_result_list_roots(
        self, args: TestInputRequiredResultListRootsInput, ctx: Context
    ) -> ToolContent:
        answer = await ctx.list_roots(key="client_roots")
        return "Roots: " + ", ".join(str(root.uri) for root in answer.roots)

    async def test_input_required_result_request_state(
        self, args: TestInputRequiredResultRequestStateInput, ctx: Context
    ) -> ToolContent:
        answer = await ctx.elicit("Please confirm", CONFIRM, key="confirm")
        return f"state-ok: confirmed={(answer.content or {}).get('ok')}"

    async def test_input_required_result_multiple_inputs(
        self, args: TestInputRequiredResultMultipleInputsInput, ctx: Context
    ) -> ToolContent:
        answers = await ctx.ask(
            {
                "user_name": elicitation("What is your name?", NAME),
                "greeting": sampling("Write a one-line greeting.", max_tokens=100),
                "client_roots": roots(),
            }
        )
        return f"Got {len(answers)} answers: {', '.join(sorted(answers))}"

    async def test_input_required_result_multi_round(
        self, args: TestInputRequiredResultMultiRoundInput, ctx: Context
    ) -> ToolContent:
        first = await ctx.elicit("What is your name?", NAME, key="step1")
        color = {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}
        second = await ctx.elicit("What is your favourite colour?", color, key="step2")
        name = (first.content or {}).get("name")
        return f"{name} likes {(second.content or {}).get('color')}"

    async def test_input_required_result_tampered_state(
        self, args: TestInputRequiredResultTamperedStateInput, ctx: Context
    ) -> ToolContent:
        answer = await ctx.elicit("Please confirm", CONFIRM, key="confirm")
        return f"confirmed={(answer.content or {}).get('ok')}"

    async def test_input_required_result_capabilities(
        self, args: TestInputRequiredResultCapabilitiesInput, ctx: Context
    ) -> ToolContent:
        if ctx.client_supports("elicitation"):
            answer = await ctx.elicit("What is your name?", NAME, key="user_name")
            return f"Hello, {(answer.content or {}).get('name')}!"
        reply = await ctx.sample("Suggest a name.", max_tokens=50, key="suggested_name")
        return f"Suggested: {_text(reply)}"

    async def test_missing_capability(self, args: TestMissingCapabilityInput, ctx: Context) -> ToolContent:
        ctx.require("sampling")
        return "The client can sample."

    async def test_streaming_elicitation(self, args: TestStreamingElicitationInput, ctx: Context) -> ToolContent:
        answer = await ctx.elicit("What is your name?", NAME, key="user_name")
        return f"Hello, {(answer.content or {}).get('name')}!"

    async def test_logging_tool(self, args: TestLoggingToolInput, ctx: Context) -> ToolContent:
        await ctx.log("info", "test_logging_tool ran")
        return "Logged, if the client asked for logs."

    async def test_trigger_tool_change(self, args: TestTriggerToolChangeInput, ctx: Context) -> ToolContent:
        await ctx.notify_tools_changed()
        return "Tool list change announced."

    async def test_trigger_prompt_change(self, args: TestTriggerPromptChangeInput, ctx: Context) -> ToolContent:
        await ctx.notify_prompts_changed()
        return "Prompt list change announced."

    # The tasks extension's fixtures (SEP-2663). The same handlers serve plain calls.
    async def greet(self, args: GreetInput, ctx: Context) -> ToolContent:
        return f"Hello, {args.name}!"

    async def slow_compute(self, args: SlowComputeInput, ctx: Context) -> ToolContent:
        await ctx.report_progress(0, args.seconds, f"Computing {args.label or 'something'}")
        await anyio.sleep(args.seconds)
        return f"Computed {args.label or 'something'} in {args.seconds:g} s"

    async def failing_job(self, args: FailingJobInput, ctx: Context) -> ToolContent:
        await anyio.sleep(1)
        raise ToolError("The job failed after a second of work")

    async def protocol_error_job(self, args: ProtocolErrorJobInput, ctx: Context) -> ToolContent:
        raise MCPError(INTERNAL_ERROR, "The job hit an internal error")

    async def confirm_delete(self, args: ConfirmDeleteInput, ctx: Context) -> ToolContent:
        answer = await ctx.elicit(f"Delete {args.filename}?", CONFIRM_DELETE, key="confirm")
        confirmed = answer.action == "accept" and (answer.content or {}).get("confirm") is True
        return f"{args.filename}: {'deleted' if confirmed else 'kept'}"

    async def multi_input(self, args: MultiInputInput, ctx: Context) -> ToolContent:
        questions = {"first_name": elicitation("Your first name?", NAME), "last_name": elicitation("Your last name?", NAME)}
        answers = await ctx.ask(questions)
        return "Got " + " and ".join(json.dumps(getattr(answer, "content", None)) for answer in answers.values())

    async def test_tool_with_task(self, args: TestToolWithTaskInput, ctx: Context) -> ToolContent:
        answer = await ctx.elicit("What is your name?", NAME, key="user_name", before_task=True)
        await anyio.sleep(0.2)  # the work of the task the call becomes
        return f"Hello, {(answer.content or {}).get('name', 'stranger')}, from a task!"

    async def read_template_data(self, id: str, ctx: Context) -> TemplateDataContent:
        return TemplateDataContent(id=id, templateTest=True, data=f"Data for ID: {id}")

    async def get_test_prompt_with_embedded_resource(
        self, args: TestPromptWithEmbeddedResourceArguments, ctx: Context
    ) -> list[types.PromptMessage]:
        resource = embedded_resource(args.resourceUri, "Embedded resource content for testing.", "text/plain")
        return [
            types.PromptMessage(role="user", content=resource),
            types.PromptMessage(role="user", content=types.TextContent(text="Please process the embedded resource above.")),
        ]

    async def get_test_input_required_result_prompt(self, args: None, ctx: Context) -> list[types.PromptMessage]:
        schema = {"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]}
        answer = await ctx.elicit("What context should the prompt use?", schema, key="user_context")
        context = (answer.content or {}).get("context", "none")
        return [types.PromptMessage(role="user", content=types.TextContent(text=f"Use this context: {context}"))]


if __name__ == "__main__":
    run(ConformanceFixtures())
