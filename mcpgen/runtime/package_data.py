"""What a generated package ships beside its code: schema.json and static files.

Both are read with importlib.resources, so a package works from a wheel, a zip or a
folder alike.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib.resources import files
from typing import Any

SCHEMA_FILE = "schema.json"


@cache
def schema_document(package: str) -> Mapping[str, Any]:
    """The parsed schema.json of `package`, read once per process and package.

    It holds what the server serves, verbatim: `serverInfo`, `instructions`,
    `capabilities`, the payloads of `tools/list`, `resources/list`,
    `resources/templates/list` and `prompts/list`, and `resourceSchemas` (a resource's
    name -> the JSON Schema its JSON content satisfies). Treat it as read-only: it is
    shared by every server built from the package.
    """
    document: dict[str, Any] = json.loads(
        files(package).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    )
    return document


def read_bytes(package: str, path: str) -> bytes:
    """A file of `package`, by its `/`-separated path inside it (`_static/logo.png`)."""
    resource = files(package)
    for part in path.split("/"):
        resource = resource.joinpath(part)
    return resource.read_bytes()
