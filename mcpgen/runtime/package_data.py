"""What a generated package ships beside its code: schema.json, prompts.json,
authorization.json and static files.

All are read with importlib.resources, so a package works from a wheel, a zip or a
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
PROMPTS_FILE = "prompts.json"
AUTHORIZATION_FILE = "authorization.json"


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
    # The parse makes a container per schema node, which sets the garbage collector off
    # again and again; its full passes walk every object the SDK's imports made, and were
    # most of the parse's time. Parsed JSON holds no cycles to collect.
    collecting = gc.isenabled()
    gc.disable()
    try:
        # pydantic's parser (Rust): the same values as json's, in less time.
        document: dict[str, Any] = from_json(text)
    except ValueError:
        document = json.loads(text)  # what it refuses, such as a lone surrogate escape
    finally:
        if collecting:
            _to_the_oldest_generation()
            gc.enable()
    return document


def _to_the_oldest_generation() -> None:
    """Move every object the collector tracks to its oldest generation, unexamined.

    Left young, the containers the parse made with the collector off would set off a
    collection of all of them at the next allocation (in `create_server`), and later
    ones would examine them again on their way to the oldest generation, where they
    belong: they live as long as the process. `gc.unfreeze()` puts what `gc.freeze()`
    took into the oldest generation, so the two do it at once;
    young garbage moved along is collected by the next full pass. Skipped where objects
    are frozen already, by whoever froze them, since the unfreeze would undo that.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


@cache
def prompt_messages(package: str) -> Mapping[str, Any]:
    """The parsed prompts.json of `package` ({} without one): a prompt's name -> the
    messages the spec wrote for it, their templates as written. Read once per process
    and package, and shared, as schema.json is."""
    resource = files(package).joinpath(PROMPTS_FILE)
    if not resource.is_file():
        return {}
    document: dict[str, Any] = json.loads(resource.read_bytes())
    return document


@cache
def authorization_document(package: str) -> Mapping[str, Any] | None:
    """The parsed authorization.json of `package`, or None when the spec has no
    `server.authorization` (anyone who reaches the server may call it). Read once per
    process and package, and shared, as schema.json is. Its keys:

    - `metadata`: the RFC 9728 protected resource metadata, as the spec writes it;
    - `scopes`: the OAuth scopes every request needs, initialize included;
    - `tools`, `prompts`: a name -> the scopes a call needs on top of `scopes`;
    - `resources`: a static resource's URI -> the same, for resources/read;
    - `templates`: a resource template's uriTemplate -> the same, for a URI it matches.

    The four maps hold only what asks for scopes of its own.
    """
    resource = files(package).joinpath(AUTHORIZATION_FILE)
    if not resource.is_file():
        return None
    document: dict[str, Any] = json.loads(resource.read_bytes())
    return document


def read_bytes(package: str, path: str) -> bytes:
    """A file of `package`, by its `/`-separated path inside it (`_static/logo.png`)."""
    resource = files(package)
    for part in path.split("/"):
        resource = resource.joinpath(part)
    return resource.read_bytes()
