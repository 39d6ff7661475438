"""No spec text runs as code: a payload in every string-valued place of a spec.

The places are derived from the spec format itself (`spec_format_schema()`): every
property whose schema is a string (or a list of strings), every mapping whose keys are
names (tools, resources, prompts, definitions, completion variables), and every free-form
object (`_meta`). A JSON Schema place gets a schema whose own strings carry payloads
(property names, enum values, titles, descriptions, defaults, consts, examples, `$defs`
names, `$comment`, extension keywords), and so does the spec's own file name. A key the
format gains is planted automatically in the carrier spec below (in the first entity of
its kind); one the carrier cannot hold fails `test_every_format_place_is_planted`.

Each build plants the payload variants in rotation, so that across the builds every place
gets every variant. The built package is imported in a subprocess whose working directory
is an empty temporary directory; no `PWNED` may appear anywhere, the import must succeed,
the generated modules must pass `black --check` and `ruff check`, and the server must serve
every planted string byte-exact.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import mcp_types as types
import pytest
from helpers import ROOT, dumped, imported, stub_implementation
from mcp import Client

from mcpgen.services.pipeline import build
from mcpgen.services.project_starter import starter_app
from mcpgen.spec import format as spec_format
from mcpgen.spec.format import spec_format_schema
from mcpgen.utils.json_types import Json
from mcpgen.write.atomic import apply

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

Path_ = tuple[str, ...]  # a place: mapping keys, "*" for any name, "[]" for any list item, "{}" for a key

# --------------------------------------------------------------------------- payloads

PAYLOAD = '"""\'\'\'\\\\\n#{{ x }}{% if %} ; __import__("os").system("touch PWNED") ; "\x00\\N{\u2028'
VARIANTS = (
    PAYLOAD,
    PAYLOAD + '"',  # ends in a quote: closes a docstring if pasted
    PAYLOAD + "\\",  # ends in a backslash: escapes the closing quote if pasted
    "\r\n" + PAYLOAD + "\u2029\x85\x0b\x0c\x1c\x1d\x1e\x7f\x9f\r",  # every line break Python knows
    "{__import__('os').system('touch PWNED')}%s%(x)s{0!r}\\u2028\\x00\\N{BULLET}'''\"\"\"'",
    "x\n```\n| a | b |\n<!-- x -->\n<details>\n# heading\n1. - [a](b) `" + PAYLOAD + "\\N",  # Markdown
    "\ufeff\u202e\U0001f381\u200b\t" + PAYLOAD + "\t",  # BOM, bidi override, astral, zero width
    ("line " + PAYLOAD + "\n") * 40,  # long and multi-line (a parenthesised run of literals)
    # Payloads that would run if pasted into one context: a docstring, a literal, a comment.
    'x"""\n__import__("os").system("touch PWNED")\n"""',
    "x' + __import__('os').system('touch PWNED') + '",
    'x" + __import__("os").system("touch PWNED") + "',
    'x\n__import__("os").system("touch PWNED")  #',
)


def pwned(directory: Path) -> list[Path]:
    """Files the payload's command would create (other names may well contain PWNED)."""
    return [path for path in directory.rglob("PWNED")]


# --------------------------------------------------------------------------- the format's places


def format_places(schema: Json, path: Path_ = ()) -> Iterator[tuple[Path_, str]]:
    """Every place of the format that holds spec text: (place, kind), kind being "string"
    (a string value), "key" (a mapping whose keys are names), "object" (free-form JSON,
    whose keys and values are text) or "schema" (a JSON Schema)."""
    if schema == spec_format.JSON_SCHEMA_VALUE:
        yield path, "schema"
        return
    kind = schema.get("type")
    if kind == "string":
        yield path, "string"
    elif kind == "array" and isinstance(schema.get("items"), dict):
        yield from format_places(schema["items"], path + ("[]",))
    elif kind == "object" or "properties" in schema:
        for name, child in schema.get("properties", {}).items():
            yield from format_places(child, path + (name,))
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            yield path + ("{}",), "key"
            yield from format_places(extra, path + ("*",))
        elif "properties" not in schema and extra is None and schema.get("maxProperties") != 0:
            yield path, "object"


FORMAT_PLACES = dict(format_places(spec_format_schema()))

# What a JSON Schema holds as text: not the format's business, listed here once.
SCHEMA_PLACES = (
    ("title",),
    ("description",),
    ("$comment",),
    ("properties", "{}"),
    ("properties", "*", "description"),
    ("properties", "*", "title"),
    ("properties", "*", "default"),
    ("properties", "*", "enum", "[]"),
    ("properties", "*", "const"),
    ("properties", "*", "examples", "[]"),
    ("$defs", "{}"),
    ("x-annotation",),
)


# --------------------------------------------------------------------------- the carrier

# A marker for a place to plant a value.
HERE = "<plant>"


class Namer:
    """Planted names for mapping keys, by a tag of the carrier's (the same tag, the same
    name); values are planted later, where the carrier has HERE."""

    def __init__(self, rotation: int) -> None:
        self.rotation = rotation
        self.count = 0
        self.names: dict[str, str] = {}

    def payload(self) -> str:
        index = self.count
        self.count += 1
        return f"P{index}:" + VARIANTS[(index + self.rotation) % len(VARIANTS)]

    def __call__(self, tag: str, kind: str = "text") -> str:
        if tag not in self.names:
            text = self.payload()
            if kind == "tool":  # clients accept only ^[A-Za-z0-9_.-]{1,64}$
                text = "".join(c for c in text if c.isascii() and (c.isalnum() or c in "_.-"))[:64]
            elif kind == "variable":  # an RFC 6570 varname
                text = f"v{self.count}"
            self.names[tag] = text
        return self.names[tag]


def pointer(name: str) -> str:
    """A JSON Pointer token in a URI fragment: escaped, then percent-encoded."""
    return quote(name.replace("~", "~0").replace("/", "~1"), safe="")


def text_schema(n: Namer, tag: str) -> dict[str, Json]:
    """A JSON Schema with payloads in every place SCHEMA_PLACES lists."""
    local = n(f"{tag}.f")
    return {
        "type": "object",
        "title": HERE,
        "description": HERE,
        "$comment": HERE,
        "x-annotation": HERE,
        "properties": {
            n(f"{tag}.a"): {"type": "string", "title": HERE, "description": HERE, "default": HERE, "examples": [HERE]},
            n(f"{tag}.b"): {"enum": [HERE, HERE, "plain"], "description": HERE},
            n(f"{tag}.c"): {"const": HERE},
            n(f"{tag}.d"): {"type": "array", "items": {"$ref": "#/$defs/" + pointer(local)}},
            n(f"{tag}.e"): {"type": ["string", "null"], "default": HERE, "enum": [HERE, None]},
        },
        "required": [n(f"{tag}.a"), n(f"{tag}.c")],
        "$defs": {local: {"type": "object", "properties": {n(f"{tag}.g"): {"type": "integer"}}}},
    }


def carrier(n: Namer) -> dict[str, Json]:
    """A spec with a plant marker in every place; entities that exclude each other (a
    resource's `text`, `blob` and `file`, a message's kinds) get one entity each."""
    icons = [{"src": HERE, "mimeType": HERE, "sizes": [HERE], "theme": "light"}]

    def meta(tag: str) -> dict[str, Json]:
        return {n(f"{tag}.m1"): HERE, n(f"{tag}.m2"): {n(f"{tag}.m3"): [HERE, 1, None]}}

    inputs = text_schema(n, "in")
    inputs["properties"][n("in.h")] = {"$ref": "#/definitions/" + pointer(n("D1"))}
    inputs["properties"][n("in.i")] = {"$ref": "#/definitions/" + pointer(n("D2"))}
    return {
        "mcpgen": 1,
        "output": HERE,
        "server": {
            "name": HERE,
            "title": HERE,
            "version": HERE,
            "description": HERE,
            "websiteUrl": HERE,
            "icons": icons,
            "instructions": HERE,
            "package": HERE,
            "authorization": {
                "metadata": {
                    "resource": HERE,
                    "authorization_servers": [HERE],
                    "scopes_supported": [HERE],
                    "resource_signing_alg_values_supported": [HERE],
                    "authorization_details_types_supported": [HERE],
                    "dpop_signing_alg_values_supported": [HERE],
                },
                "scopes": [HERE],
            },
            "upstream": {
                "url": HERE,
                "securitySchemes": {
                    n("s1"): {"type": "apiKey", "in": "header", "name": HERE, "description": HERE},
                    # `scheme` is basic or bearer for type http only; other types may say any.
                    n("s2"): {"type": "oauth2", "scheme": HERE, "bearerFormat": HERE, "description": HERE},
                },
                "security": [{n("s1"): [HERE]}, {n("s2"): [HERE, HERE]}],
            },
        },
        "definitions": {
            n("D1"): text_schema(n, "D1"),
            n("D2"): {"type": "string", "enum": [HERE, HERE], "description": HERE, "title": HERE},
        },
        "tools": {
            n("t1", "tool"): {
                "title": HERE,
                "description": HERE,
                "inputSchema": inputs,
                "outputSchema": text_schema(n, "out"),
                "annotations": {"title": HERE},
                "icons": icons,
                "_meta": meta("t1"),
                "scopes": [HERE],
            },
            n("t2", "tool"): {
                "description": HERE,
                "inputSchema": {"type": "object"},
                "outputSchema": {"type": "array", "items": {"enum": [HERE]}, "description": HERE},
            },
            n("t3", "tool"): {
                "description": HERE,
                "inputSchema": {
                    "type": "object",
                    "properties": {n(f"t3.{arg}"): {"type": "string", "description": HERE} for arg in "pqhb"},
                    "required": [n("t3.p")],
                },
                "upstream": {
                    "method": "POST",
                    "arguments": {
                        n("t3.p"): {"in": "path", "name": HERE},
                        n("t3.q"): {"in": "query", "name": HERE, "style": "form"},
                        n("t3.h"): {"in": "header", "name": HERE},
                        n("t3.b"): {"in": "body", "name": HERE},
                    },
                    "path": HERE,  # after `arguments`: it names the path argument
                    "body": "application/json",
                    "security": [{n("s2"): [HERE]}],
                    "response": {"contentType": HERE},
                },
            },
            # A binary answer (`mimeType`) excludes `contentType`, and an outputSchema.
            n("t4", "tool"): {
                "inputSchema": {"type": "object"},
                "upstream": {"method": "GET", "path": HERE, "response": {"binary": True, "mimeType": HERE}},
            },
            # A file goes only in a multipart body, as an argument its schema says is base64.
            n("t5", "tool"): {
                "inputSchema": {
                    "type": "object",
                    "properties": {n("t5.f"): {"type": "string", "contentEncoding": "base64", "description": HERE}},
                },
                "upstream": {
                    "method": "POST",
                    "path": HERE,
                    "arguments": {n("t5.f"): {"in": "body", "name": HERE, "file": HERE}},
                    "body": "multipart/form-data",
                    "response": {"contentType": HERE},
                },
            },
        },
        "resources": {
            n("r1"): {
                "uri": HERE,
                "title": HERE,
                "description": HERE,
                "mimeType": HERE,
                "annotations": {"lastModified": HERE},
                "icons": icons,
                "_meta": meta("r1"),
                "text": HERE,
                "scopes": [HERE],
            },
            n("r2"): {"uri": HERE, "mimeType": HERE, "blob": HERE},
            n("r3"): {"uri": HERE, "mimeType": HERE, "file": HERE},
            n("r4"): {"uri": HERE, "mimeType": HERE, "description": HERE, "schema": text_schema(n, "r4")},
            n("r5"): {
                "uriTemplate": HERE,
                "title": HERE,
                "description": HERE,
                "mimeType": HERE,
                "completion": {n("r5.v", "variable"): [HERE, HERE]},
            },
        },
        "prompts": {
            n("p1"): {
                "title": HERE,
                "description": HERE,
                "arguments": [
                    {"name": HERE, "title": HERE, "description": HERE, "required": True, "completion": [HERE]},
                    {"name": HERE, "description": HERE},
                ],
                "messages": [
                    {"role": "user", "text": HERE},
                    {"role": "assistant", "image": {"data": HERE, "mimeType": HERE}},
                    {"role": "assistant", "image": {"file": HERE, "mimeType": HERE}},
                    {"role": "user", "audio": {"data": HERE, "mimeType": HERE}},
                    {"role": "user", "audio": {"file": HERE, "mimeType": HERE}},
                    {"role": "user", "resource": {"uri": HERE, "mimeType": HERE, "text": HERE}},
                    {"role": "user", "resource": {"uri": HERE, "blob": HERE}},
                    {"role": "user", "resource": {"uri": HERE, "file": HERE}},
                ],
                "icons": icons,
                "_meta": meta("p1"),
                "scopes": [HERE],
            },
            n("p2"): {"description": HERE, "arguments": [{"name": HERE}]},
        },
    }


SpecPath = tuple[str | int, ...]
NAMED = ("tools", "resources", "prompts", "definitions")


def place_of(path: SpecPath, is_key: bool = False) -> Path_:
    """The format place of a concrete path into a spec; inside a JSON Schema, the
    SCHEMA_PLACES place, after the schema's own place."""
    place: list[str] = []
    for index, part in enumerate(path):
        parent = path[index - 1] if index else None
        if isinstance(part, int):
            place.append("[]")
        elif (index == 1 and parent in NAMED) or parent in ("completion", "properties", "$defs"):
            place.append("*")
        elif parent in ("arguments", "securitySchemes") or (isinstance(parent, int) and path[index - 2] == "security"):
            place.append("*")  # an upstream argument, a security scheme, a requirement's scheme
        elif parent == "_meta" or (len(place) >= 2 and place[-2] == "_meta"):
            place.append("*")
        else:
            place.append(part)
    if is_key:
        place[-1] = "{}"
    return tuple(place)


def markers(data: Json, names: set[str], path: SpecPath = ()) -> Iterator[tuple[SpecPath, bool]]:
    """Every planted place in `data`: its path, and whether it is a mapping key (a planted
    name) rather than a value (a HERE marker)."""
    if isinstance(data, dict):
        for name, value in data.items():
            if name in names:
                yield path + (name,), True
            yield from markers(value, names, path + (name,))
    elif isinstance(data, list):
        for index, item in enumerate(data):
            yield from markers(item, names, path + (index,))
    elif data == HERE:
        yield path, False


def _first(data: Json, place: Path_) -> dict[str, Json] | None:
    """The first mapping in `data` at `place`."""
    if not place:
        return data if isinstance(data, dict) else None
    head, rest = place[0], place[1:]
    children: list[Json] = []
    if isinstance(data, dict):
        children = list(data.values()) if head == "*" else [data[head]] if head in data else []
    elif isinstance(data, list) and head == "[]":
        children = list(data)
    for child in children:
        found = _first(child, rest)
        if found is not None:
            return found
    return None


def completed_carrier(n: Namer) -> dict[str, Json]:
    """The carrier, plus a marker for each string place of the format it lacks, set in the
    first entity that has the place's parent: a key the format gains is planted too."""
    spec = carrier(n)
    have = {place_of(path, is_key) for path, is_key in markers(spec, set(n.names.values()))}
    for place, kind in FORMAT_PLACES.items():
        if kind == "string" and place not in have and place[-1] not in ("[]", "*", "{}"):
            parent = _first(spec, place[:-1])
            if parent is not None:
                parent[place[-1]] = HERE
    return spec


# --------------------------------------------------------------------------- planting

FILE_SAFE = str.maketrans({"\x00": "0", "/": "_"})


def file_name(text: str, suffix: str = ".txt") -> str:
    """A payload as a file name: no NUL or "/", at most 200 bytes."""
    name = text.translate(FILE_SAFE)
    while len(name.encode()) > 200:
        name = name[:-1]
    return name + suffix


@dataclass
class Planted:
    spec: dict[str, Json]
    spec_name: str
    files: dict[str, bytes]  # files the spec names, beside it
    values: dict[SpecPath, str]  # every planted value, as the spec holds it
    names: set[str]  # every planted mapping key
    served_text: dict[SpecPath, str]  # what the server serves for a place the spec adapts (a template)


# The protected resource metadata's URLs (RFC 9728), and what an RFC 6749 scope-token may
# hold besides letters and digits (printable ASCII but space, `"` and `\\`).
AUTHORIZATION_URLS = ("resource", "jwks_uri", "resource_documentation", "resource_policy_uri", "resource_tos_uri")
SCOPE_TOKEN_SAFE = "!#$&'()*+,-./:;<=>?@[]^_`{|}~"


def plant(rotation: int) -> Planted:
    """The carrier with a payload in every place, adapted only where the format (or the
    protocol) requires a shape. Variant k of place i is (i + rotation) mod len(VARIANTS)."""
    n = Namer(rotation)
    spec = completed_carrier(n)
    values: dict[SpecPath, str] = {}
    files: dict[str, bytes] = {}
    served_text: dict[SpecPath, str] = {}
    for path, is_key in list(markers(spec, set(n.names.values()))):
        if is_key:
            continue
        place = place_of(path)
        parent = _get(spec, path[:-1])
        value = n.payload()
        if place == ("output",):
            value = file_name(value, "")  # a directory
        elif place == ("server", "package"):
            value = f"pwned_{n.count}"  # must be an identifier (checked as one)
        elif place == ("server", "upstream", "url"):
            value = "https://pwn.example/" + value  # an absolute http(s) URL
        elif place == ("tools", "*", "upstream", "path"):
            literal = value.replace("{", "%7B").replace("}", "%7D")  # literal text, then each path argument
            names = [argument["name"] for argument in parent.get("arguments", {}).values() if argument["in"] == "path"]
            value = "/" + literal + "".join(f"/{{{name}}}" for name in names)
        elif place[-1] == "name" and parent.get("in") == "path":
            value = value.replace("{", "%7B").replace("}", "%7D")  # named as {name} in the path
        elif place[-1] in AUTHORIZATION_URLS or place[-2:] == ("authorization_servers", "[]"):
            value = "https://pwn.example/" + quote(value, safe="")  # https, or http on loopback only
        elif place[-2:] == ("scopes_supported", "[]"):
            value = "s" + quote(value, safe=SCOPE_TOKEN_SAFE)  # an RFC 6749 scope-token
        elif place[-1] in ("uri", "websiteUrl", "src"):
            value = "x-pwn:" + value  # a URI needs a scheme
        elif place[-1] == "uriTemplate":
            variable = next(iter(parent["completion"]))
            value = f"tpl://{{{variable}}}/" + value.replace("{", "%7B").replace("}", "%7D")  # literal text
        elif place[-1] == "mimeType":
            media = "application/json" if "schema" in parent else "text/plain"
            value = f"{media}; x={json.dumps(value)}"  # the payload as a parameter
        elif place[-1] in ("blob", "data"):
            value = base64.b64encode(value.encode()).decode()
        elif place == ("tools", "*", "upstream", "arguments", "*", "file"):
            value = f"application/octet-stream; x={json.dumps(value)}"  # a media type: the payload as a parameter
        elif place[-1] == "file":
            data = value.encode()
            value = file_name(value)
            files[value] = data
        elif place[:2] == ("prompts", "*") and place[-1] == "text" and "role" in parent:
            served_text[path] = value  # a template: raw, so that it serves as written
            value = "{% raw %}" + value + "{% endraw %}"
        values[path] = value
        _set(spec, path, value)
    supported = [value for path, value in values.items() if path[-2:-1] == ("scopes_supported",)]
    for path in list(values):  # a scope used must be one the metadata supports
        if path[-2:-1] == ("scopes",):
            values[path] = supported[0]
            _set(spec, path, supported[0])
    for path in list(values):  # a default must be one of its enum's values
        if path[-1] == "default" and "enum" in (schema := _get(spec, path[:-1])):
            values[path] = schema["default"] = schema["enum"][0]
    spec_name = file_name(n.payload(), ".yaml")
    return Planted(spec, spec_name, files, values, set(n.names.values()), served_text)


def _get(data: Json, path: SpecPath) -> Json:
    for part in path:
        data = data[part]
    return data


def _set(data: Json, path: SpecPath, value: Json) -> None:
    _get(data, path[:-1])[path[-1]] = value


# --------------------------------------------------------------------------- writing


def yaml_json(data: Json, indent: str = "") -> str:
    """`data` as JSON text, which is YAML, with every character YAML cannot hold raw escaped
    (YAML 1.1, as PyYAML reads it, also breaks lines at NEL, LS and PS, and eats a BOM).
    A key longer than YAML's 1024 characters for an implicit key is made explicit (`? key`)."""
    inner = indent + " "
    if isinstance(data, dict):
        if not data:
            return "{}"
        items = []
        for name, value in data.items():
            written = _yaml_string(name)
            explicit = "? " if len(written) > 1000 else ""
            items.append(f"{inner}{explicit}{written}: {yaml_json(value, inner)}")
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(data, list):
        if not data:
            return "[]"
        return "[\n" + ",\n".join(inner + yaml_json(item, inner) for item in data) + f"\n{indent}]"
    return _yaml_string(data) if isinstance(data, str) else json.dumps(data)


def _yaml_string(text: str) -> str:
    out = []
    for char in json.dumps(text, ensure_ascii=False):
        code = ord(char)
        printable = char == "\t" or 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD
        printable = printable or code > 0xFFFF
        out.append(char if printable and char not in "\x85\u2028\u2029\ufeff" else f"\\u{code:04x}")
    return "".join(out)


def write_planted(planted: Planted, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, data in planted.files.items():
        (directory / name).write_bytes(data)
    spec = directory / planted.spec_name
    spec.write_text(yaml_json(planted.spec), encoding="utf-8")
    return spec


def strings(data: Json) -> set[str]:
    """Every string in JSON data, keys and values."""
    found: set[str] = set()
    if isinstance(data, dict):
        for name, value in data.items():
            found.add(name)
            found |= strings(value)
    elif isinstance(data, list):
        for item in data:
            found |= strings(item)
    elif isinstance(data, str):
        found.add(data)
    return found


def served_strings(entity: dict[str, Json], keys: tuple[spec_format.Key, ...]) -> set[str]:
    """The strings of an entity's served keys (the format says which), but `$ref`s, which
    bundling rewrites."""
    found: set[str] = set()
    for entry in keys:
        if entry.served and entry.name in entity:
            if entry.item_keys:  # a list of entities with served keys of their own
                for item in entity[entry.name]:
                    found |= served_strings(item, entry.item_keys)
            else:
                found |= strings(entity[entry.name])
    refs = {value for value in found if value.startswith("#/")}
    return found - refs


# --------------------------------------------------------------------------- the tests


def test_every_format_place_is_planted() -> None:
    """Every place the format has for text holds a payload in the planted spec: a key the
    format gains that the carrier cannot hold (a new entity kind) fails here."""
    planted = plant(0)
    have: dict[Path_, list[SpecPath]] = {}
    for path in planted.values:
        have.setdefault(place_of(path), []).append(path)
    for name in planted.names:
        for path, is_key in markers(planted.spec, {name}):
            if is_key:
                have.setdefault(place_of(path, True), []).append(path)
    missing = []
    for place, kind in FORMAT_PLACES.items():
        if kind in ("string", "key") and place not in have:
            missing.append(place)
        if kind == "object" and not any(found[: len(place)] == place for found in have):
            missing.append(place)
        if kind == "schema":
            inside = {found[len(place) :] for found in have if found[: len(place)] == place}
            missing += [place + inner for inner in SCHEMA_PLACES if inner not in inside]
    assert not missing, f"places of the format without a payload: {missing}"
    assert len(planted.values) + len(planted.names) > 150


IMPORT_SCRIPT = """
import importlib, sys
sys.path.insert(0, sys.argv[1])
package = importlib.import_module(sys.argv[2])
for module in ("models", "handlers", "server", "client"):
    importlib.import_module(sys.argv[2] + "." + module)
async def stub(*args, **kwargs):
    raise NotImplementedError
handlers = type("Stub", (package.Handlers,), dict.fromkeys(package.Handlers.__abstractmethods__, stub))
package.create_server(handlers())
importlib.import_module("app")
print("imported")
"""


@dataclass
class Built:
    planted: Planted
    spec: Path
    directory: Path  # the package
    package: str


def build_planted(rotation: int, directory: Path) -> Built:
    planted = plant(rotation)
    spec = write_planted(planted, directory / "spec")
    result = build(spec)
    apply(result.plan())
    # The starter app `mcpgen init` writes is generated code too.
    (result.directory.parent / "app.py").write_text(starter_app(result), encoding="utf-8")
    return Built(planted, spec, result.directory, result.directory.name)


@pytest.fixture(params=range(len(VARIANTS)), ids=lambda rotation: f"rotation{rotation}")
def built(request: pytest.FixtureRequest, tmp_path: Path) -> Built:
    return build_planted(request.param, tmp_path)


async def test_planted_spec_builds_imports_runs_nothing_and_serves_it_exactly(built: Built, tmp_path: Path) -> None:
    """The package imports in a fresh interpreter (in an empty working directory) without
    running a payload, is black- and ruff-clean, and serves every planted string exactly."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    parent = built.directory.parent
    process = subprocess.run(
        [sys.executable, "-c", IMPORT_SCRIPT, str(parent), built.package],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert not pwned(tmp_path) and not pwned(Path.cwd()) and not pwned(ROOT)
    assert process.returncode == 0 and process.stdout.strip() == "imported", process.stderr[-5000:]
    modules = [str(path) for path in built.directory.rglob("*.py")] + [str(parent / "app.py")]
    black = subprocess.run([sys.executable, "-m", "black", "--check", "-q", *modules], capture_output=True, text=True)
    assert black.returncode == 0, black.stderr[-5000:]
    ruff = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), *modules],
        capture_output=True,
        text=True,
    )
    assert ruff.returncode == 0, ruff.stdout[-5000:]
    for module in modules:  # no character hides what the source says (bidi overrides, CR, NEL...)
        source = Path(module).read_text(encoding="utf-8")
        hidden = {hex(ord(c)) for c in source if not c.isprintable() and c not in "\n\t"}
        assert not hidden, f"{module}: {sorted(hidden)}"
    assert_schema_md_holds_together(built)
    assert_upstream_json_exact(built)
    with imported(built.package, parent) as package:
        for mode in ("auto", "legacy"):
            await assert_serves_exactly(package, built, mode)
    assert not pwned(tmp_path) and not pwned(Path.cwd())


async def assert_serves_exactly(package: Any, built: Built, mode: str) -> None:
    spec = built.planted.spec
    document = json.loads((built.directory / "schema.json").read_text(encoding="utf-8"))
    async with Client(package.create_server(stub_implementation(package.Handlers)), mode=mode) as client:
        info = dumped(client.server_info)
        for entry in spec_format.SERVER_KEYS:
            if entry.served and entry.name in spec["server"]:
                assert info[entry.name] == spec["server"][entry.name], entry.name
        assert client.instructions == spec["server"]["instructions"]

        tools = [dumped(tool) for tool in (await client.list_tools()).tools]
        resources = [dumped(r) for r in (await client.list_resources()).resources]
        templates = [dumped(t) for t in (await client.list_resource_templates()).resource_templates]
        prompts = [dumped(p) for p in (await client.list_prompts()).prompts]
        assert tools == document["tools/list"]["tools"]
        assert resources == document["resources/list"]["resources"]
        assert templates == document["resources/templates/list"]["resourceTemplates"]
        assert prompts == document["prompts/list"]["prompts"]
        # Every string of every served key, as the spec holds it, is served byte for byte.
        served = strings([tools, resources, templates, prompts])
        for kind, keys in (
            ("tools", spec_format.TOOL_KEYS),
            ("resources", spec_format.RESOURCE_KEYS),
            ("prompts", spec_format.PROMPT_KEYS),
        ):
            for name, entity in spec[kind].items():
                expected = served_strings(entity, keys) | {name}
                assert not expected - served, f"{kind}.{name}: not served exactly: {sorted(expected - served)[:3]}"
        definitions = set().union(*(served_strings({"d": d}, (spec_format.Key("d", {}, served=True),)) for d in spec["definitions"].values()))
        assert not (definitions | set(spec["definitions"])) - served

        # Static content, message text and completion values.
        for resource in spec["resources"].values():
            if "text" in resource or "blob" in resource:
                contents = dumped((await client.read_resource(resource["uri"])).contents[0])
                key_ = "text" if "text" in resource else "blob"
                assert contents[key_] == resource[key_]
            elif "file" in resource:
                contents = dumped((await client.read_resource(resource["uri"])).contents[0])
                data = built.planted.files[resource["file"]]
                assert contents.get("text", "").encode() == data or base64.b64decode(contents.get("blob", "")) == data
        for name, prompt in spec["prompts"].items():
            if "messages" not in prompt:
                continue
            arguments = {argument["name"]: "value" for argument in prompt["arguments"]}
            result = dumped(await client.get_prompt(name, arguments))
            texts = strings(result["messages"])
            for index, message in enumerate(prompt["messages"]):
                path = ("prompts", name, "messages", index, "text")
                if path in built.planted.served_text:
                    assert built.planted.served_text[path] in texts
                elif "resource" in message and "text" in message["resource"]:
                    assert message["resource"]["text"] in texts
            for argument in prompt["arguments"]:
                if argument.get("completion"):
                    reference = types.PromptReference(name=name)
                    completion = await client.complete(reference, {"name": argument["name"], "value": ""})
                    assert completion.completion.values == argument["completion"]
        for resource in spec["resources"].values():
            for variable, values in resource.get("completion", {}).items():
                reference = types.ResourceTemplateReference(uri=resource["uriTemplate"])
                completion = await client.complete(reference, {"name": variable, "value": ""})
                assert completion.completion.values == values


def assert_upstream_json_exact(built: Built) -> None:
    """upstream.json, which the forwarding handlers read, holds the spec's upstream
    mappings byte for byte (the carrier spells out what the model would default)."""
    spec = built.planted.spec
    document = json.loads((built.directory / "upstream.json").read_text(encoding="utf-8"))
    tools = {name: {"arguments": {}, **tool["upstream"]} for name, tool in spec["tools"].items() if "upstream" in tool}
    assert document == {**spec["server"]["upstream"], "tools": tools}


def assert_schema_md_holds_together(built: Built) -> None:
    """SCHEMA.md is for people, but spec text must not reshape it: every planted line break
    stays inside its line, code fences pair up, tables keep their rows, and the only HTML
    comment is the header."""
    text = (built.directory / "SCHEMA.md").read_text(encoding="utf-8")
    spec = built.planted.spec
    lines, inside, fences = [], False, []
    for line in text.split("\n"):  # lines outside code fences; fences must pair up
        if line.startswith("```"):
            fences.append(line)
            inside = not inside
        elif not inside:
            lines.append(line)
    assert fences == ["```json", "```"] * (len(fences) // 2), fences
    header, lines = lines[:2], lines[2:]
    for line in header:  # the header comments end where they should
        assert line.startswith("<!-- ") and line.endswith(" -->") and "--" not in line[4:-3], line
    outside = re.sub(r"\\.", "", "\n".join(lines))  # what backslash escapes leave as markup
    assert "<!--" not in outside and "<details" not in outside and "\x00" not in outside
    headings = [line for line in lines if line.startswith("#")]
    expected = 1 + sum(1 for kind in ("tools", "resources", "prompts") if spec[kind])
    expected += len(spec["tools"]) + len(spec["prompts"])
    expected += 1 if "authorization" in spec["server"] else 0  # its own section
    expected += 1 if "upstream" in spec["server"] else 0  # its own section
    assert len(headings) == expected, headings
    tables = [line for line in lines if line.startswith("|")]
    rows = sum(len(tool["inputSchema"].get("properties", {})) + 2 for tool in spec["tools"].values() if tool["inputSchema"].get("properties"))
    rows += len(spec["resources"]) + 2
    rows += sum(len(p.get("arguments", [])) + 2 for p in spec["prompts"].values() if p.get("arguments"))
    assert len(tables) == rows
    for line in tables:
        assert line.endswith(" |"), line
