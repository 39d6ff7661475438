"""Local `$ref`s of an OpenAPI document: `#/components/parameters/limit` and the like.

Only references inside the document are followed; a reference to another file is an error
the import reports (bundle the document first, e.g. with `redocly bundle`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from mcpgen.importer.openapi.document import OpenApiError

SCHEMAS_PREFIX = "#/components/schemas/"


def pointed(data: Any, ref: str) -> Any:
    """The value a local JSON pointer reference names."""
    if not ref.startswith("#"):
        raise OpenApiError(f"error: the $ref '{ref}' points outside the document; bundle it into one file first")
    value = data
    for part in ref[1:].split("/")[1:]:
        key = unquote(part).replace("~1", "/").replace("~0", "~")
        if isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        elif isinstance(value, dict) and key in value:
            value = value[key]
        else:
            raise OpenApiError(f"error: the $ref '{ref}' names nothing in the document")
    return value


def dereferenced(data: Any, value: Any) -> Any:
    """`value`, with a `$ref` at its top followed (through chains of them) to what it names."""
    seen: set[str] = set()
    while isinstance(value, dict) and isinstance(value.get("$ref"), str):
        ref = value["$ref"]
        if ref in seen:
            raise OpenApiError(f"error: the $ref '{ref}' refers to itself")
        seen.add(ref)
        value = pointed(data, ref)
    return value


def mapping(value: Any) -> dict[str, Any]:
    """`value` if it is a mapping, else empty: the document's optional objects, read safely."""
    return value if isinstance(value, dict) else {}
