"""Helpers that build tool content: text, images, audio, links and embedded resources."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import mcp_types as types

T = TypeVar("T")


@dataclass(frozen=True)
class ToolResult(Generic[T]):
    """A structured result plus content blocks for the model, e.g. an image beside the data.

    The client gets `value` as `structuredContent`, a text block with the same JSON, and then
    `content`.
    """

    value: T
    content: Sequence[str | types.ContentBlock] = ()


def text(
    value: str, *, annotations: types.Annotations | None = None
) -> types.TextContent:
    return types.TextContent(text=value, annotations=annotations)


def image(
    data: bytes, mime_type: str, *, annotations: types.Annotations | None = None
) -> types.ImageContent:
    """An image content block; `data` is the raw bytes (sent base64-encoded)."""
    return types.ImageContent(
        data=_base64(data), mime_type=mime_type, annotations=annotations
    )


def audio(
    data: bytes, mime_type: str, *, annotations: types.Annotations | None = None
) -> types.AudioContent:
    """An audio content block; `data` is the raw bytes (sent base64-encoded)."""
    return types.AudioContent(
        data=_base64(data), mime_type=mime_type, annotations=annotations
    )


def resource_link(
    uri: str,
    name: str,
    *,
    title: str | None = None,
    description: str | None = None,
    mime_type: str | None = None,
    size: int | None = None,
) -> types.ResourceLink:
    """A link to a resource the client can read later."""
    return types.ResourceLink(
        uri=uri,
        name=name,
        title=title,
        description=description,
        mime_type=mime_type,
        size=size,
    )


def embedded_resource(
    uri: str,
    content: str | bytes,
    mime_type: str | None = None,
    *,
    annotations: types.Annotations | None = None,
) -> types.EmbeddedResource:
    """A resource's contents inline: text for `str`, a base64 blob for `bytes`."""
    contents: types.TextResourceContents | types.BlobResourceContents
    if isinstance(content, bytes):
        contents = types.BlobResourceContents(
            uri=uri, mime_type=mime_type, blob=_base64(content)
        )
    else:
        contents = types.TextResourceContents(
            uri=uri, mime_type=mime_type, text=content
        )
    return types.EmbeddedResource(resource=contents, annotations=annotations)


def _base64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


ToolContent = str | types.ContentBlock | Sequence[str | types.ContentBlock]
"""What a tool without an outputSchema returns: text, a content block, or a list of them."""

ResourceContent = str | bytes
"""What a resource without a schema returns: text, or bytes (sent base64-encoded)."""
