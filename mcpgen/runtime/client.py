"""What a generated typed client needs: argument JSON, and reading results.

This module imports nothing of the server stack (no `mcp` at all, only `mcp_types` and
pydantic), so a client does not pay for the server's import time.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, TypeVar, overload

import mcp_types as types
from pydantic import BaseModel

from .encoding import to_json

__all__ = [
    "ToolCallError",
    "present",
    "resource_value",
    "structured_result",
    "to_json",
    "tool_content",
]

M = TypeVar("M", bound=BaseModel)


class ToolCallError(Exception):
    """A tool answered with `isError: true`; `message` is the text it returned."""

    def __init__(self, tool: str, message: str, result: types.CallToolResult) -> None:
        super().__init__(f"{tool}: {message}")
        self.tool = tool
        self.message = message
        self.result = result


def present(values: Mapping[str, Any]) -> dict[str, Any]:
    """The optional arguments that were given: None means "leave it out" (the server's
    default applies)."""
    return {name: value for name, value in values.items() if value is not None}


def structured_result(tool: str, result: types.CallToolResult, wrapped: bool) -> Any:
    """The structured content of a successful call (unwrapped from `{"result": ...}`
    when `wrapped`); ToolCallError for an `isError` result or one without it."""
    if result.is_error:
        text = "\n".join(
            block.text
            for block in result.content
            if isinstance(block, types.TextContent)
        )
        raise ToolCallError(tool, text or "the tool reported an error", result)
    if result.structured_content is None:
        raise ToolCallError(tool, "the result has no structuredContent", result)
    return result.structured_content["result"] if wrapped else result.structured_content


def tool_content(tool: str, result: types.CallToolResult) -> list[types.ContentBlock]:
    """The content of a successful call to a tool without an outputSchema;
    ToolCallError for an `isError` result."""
    if result.is_error:
        structured_result(tool, result, wrapped=False)
    return list(result.content)


@overload
def resource_value(
    result: types.ReadResourceResult, content_model: None
) -> str | bytes: ...


@overload
def resource_value(result: types.ReadResourceResult, content_model: type[M]) -> M: ...


def resource_value(
    result: types.ReadResourceResult, content_model: type[BaseModel] | None
) -> Any:
    """The first content item of a read: parsed as JSON into the content model, or
    else `str` for text and `bytes` for a (base64) blob."""
    item = result.contents[0]
    if isinstance(item, types.BlobResourceContents):
        data = base64.b64decode(item.blob)
        return content_model.model_validate_json(data) if content_model else data
    return content_model.model_validate_json(item.text) if content_model else item.text
