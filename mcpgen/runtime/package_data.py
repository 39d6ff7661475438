"""What a generated package ships beside its code: schema.json and static files.

Both are read with importlib.resources, so a package works from a wheel, a zip or a
folder alike.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Mapping
from functools import cache
from importlib.resources import files
from typing import Any

from pydantic_core import from_json

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
    text = files(package).joinpath(SCHEMA_FILE).read_bytes()
    # At 500 tools the parse makes 33,000 dicts and lists, which set the garbage
    # collector off again and again; its full passes walk the 80,000 objects the SDK's
    # imports made, and took 50 ms of 70. Parsed JSON holds no cycles to collect.
    collecting = gc.isenabled()
    gc.disable()
    try:
        # pydantic's parser (Rust): the same values as json's, in 60 % of the time.
        document: dict[str, Any] = from_json(text)
    except ValueError:
        document = json.loads(text)  # what it refuses, such as a lone surrogate escape
    finally:
        if collecting:
            gc.enable()
    return document


def read_bytes(package: str, path: str) -> bytes:
    """A file of `package`, by its `/`-separated path inside it (`_static/logo.png`)."""
    resource = files(package)
    for part in path.split("/"):
        resource = resource.joinpath(part)
    return resource.read_bytes()
