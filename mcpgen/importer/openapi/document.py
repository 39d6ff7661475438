"""An OpenAPI document, loaded from a file or an http(s) URL, JSON or YAML."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from mcpgen.spec.source import MAX_NODES, alias_bomb


class OpenApiError(Exception):
    """A document `import --openapi` cannot read; the message says why and what to do."""


@dataclass(frozen=True)
class Document:
    data: dict[str, Any]
    source: str  # the file or URL it came from
    version: str  # `openapi`, e.g. 3.0.3

    @property
    def is_30(self) -> bool:
        return self.version.startswith("3.0")

    @property
    def base_url(self) -> str | None:
        """The URL the document came from, against which relative server URLs resolve."""
        return self.source if urlsplit(self.source).scheme in ("http", "https") else None


def _read(source: str) -> str:
    if urlsplit(source).scheme in ("http", "https"):
        import httpx2

        try:
            response = httpx2.get(source, follow_redirects=True, timeout=60)
            response.raise_for_status()
        except httpx2.HTTPError as error:
            raise OpenApiError(f"{source}: error: cannot fetch the document: {error}") from None
        return response.text
    try:
        return Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise OpenApiError(f"{source}: error: cannot read the document: {error}") from None


def _parse(text: str, source: str) -> Any:
    import json

    if text.lstrip().startswith("{"):
        try:
            return json.loads(text)
        except ValueError:
            pass  # YAML's flow style starts with "{" too
    # The C loader when PyYAML has it: large documents load several times faster.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        # Aliases are expanded wherever the import copies a value: refuse a document they
        # would blow up, as the spec loader does (without aliases a document has fewer
        # values than characters).
        bomb = alias_bomb(root, max(MAX_NODES, len(text)), source, "a document")
        if bomb is not None:
            raise OpenApiError(bomb.render())
        return loader.construct_document(root)
    except yaml.YAMLError as error:
        raise OpenApiError(f"{source}: error: not JSON or YAML: {error}") from None
    except RecursionError:
        raise OpenApiError(f"{source}: error: the document is nested too deeply to read") from None
    finally:
        loader.dispose()


def load_document(source: str) -> Document:
    data = _parse(_read(source), source)
    if not isinstance(data, dict):
        raise OpenApiError(f"{source}: error: not an OpenAPI document (no mapping at the top)")
    if "swagger" in data:
        raise OpenApiError(
            f"{source}: error: this is Swagger {data['swagger']} (OpenAPI 2); mcpgen imports OpenAPI 3.0 and 3.1\n"
            "  hint: convert it first, e.g. `npx swagger2openapi doc.yaml -o doc3.yaml` "
            "(or https://converter.swagger.io), then import the result"
        )
    version = str(data.get("openapi", ""))
    if not version.startswith(("3.0", "3.1")):
        raise OpenApiError(
            f"{source}: error: openapi version '{version}' is not 3.0 or 3.1"
            if version
            else f"{source}: error: not an OpenAPI document (no `openapi` version)"
        )
    return Document(data, source, version)
