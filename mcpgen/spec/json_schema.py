"""JSON Schema plumbing: local `$ref`s, and bundling shared definitions into a schema."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote, unquote

from mcpgen.spec.source import JsonPath

DEFINITIONS_PREFIX = "#/definitions/"
LOCAL_PREFIX = "#/$defs/"

# Where JSON Schema keywords hold subschemas (2020-12, plus draft-07's spellings). Everything
# else is data or an unknown keyword, and a `$ref` or `type` inside it means nothing.
SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SCHEMA_VALUES = (
    "not",
    "if",
    "then",
    "else",
    "items",
    "additionalItems",
    "additionalProperties",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
)


# Every keyword above, to tell at C speed whether a schema has subschemas at all: most are
# leaves (`type: string`), and the walkers below run over every schema of a spec many times.
_SCHEMA_KEYWORDS = frozenset(SCHEMA_MAPS + SCHEMA_LISTS + SCHEMA_VALUES)
_SCHEMA_KEYWORD_ORDER = SCHEMA_MAPS + SCHEMA_LISTS + SCHEMA_VALUES
_LIST_KEYWORDS = frozenset(SCHEMA_LISTS + ("items",))  # draft-07's tuple `items` is a list


def _children(schema: dict[str, Any]) -> Iterator[tuple[JsonPath, Any]]:
    if _SCHEMA_KEYWORDS.isdisjoint(schema):
        return
    for key in _SCHEMA_KEYWORD_ORDER:
        if key not in schema:
            continue
        value = schema[key]
        if key in SCHEMA_MAPS:
            if isinstance(value, dict):
                for name, child in value.items():
                    yield (key, name), child
        elif isinstance(value, list) and key in _LIST_KEYWORDS:
            for index, item in enumerate(value):
                yield (key, index), item
        elif key in SCHEMA_VALUES:
            yield (key,), value


def _unescape(token: str) -> str:
    """A JSON Pointer token, already percent-decoded: `~1` and `~0` unescaped."""
    return token.replace("~1", "/").replace("~0", "~")


# Where a URI fragment's pointer token ends: a `/`, written or percent-encoded. A fragment is
# percent-decoded before it is split (RFC 6901, section 6), so `%2F` separates tokens too;
# a `/` inside a name is written `~1`.
_TOKEN_END = re.compile(r"/|%2[fF]")


def ref_target(ref: str, prefix: str) -> str | None:
    """The definition name that `ref` points into, if it starts with `prefix`."""
    split = split_ref(ref, prefix)
    return split[0] if split is not None else None


def split_ref(ref: str, prefix: str) -> tuple[str, str] | None:
    """The definition name that `ref` points into, if it starts with `prefix`, and the rest
    of the pointer after the name's token (`/properties/x`, or ""), as written. The token
    may be escaped and percent-encoded, so its length is not the name's."""
    if not ref.startswith(prefix):
        return None
    written = ref[len(prefix) :]
    end = _TOKEN_END.search(written)
    token, rest = (written[: end.start()], written[end.start() :]) if end else (written, "")
    return _unescape(unquote(token)), rest


def iter_subschemas(schema: Any, path: JsonPath = ()) -> Iterator[tuple[JsonPath, dict[str, Any]]]:
    """Every (sub)schema object in `schema`, with its path, the root first, then each
    child's in turn (depth first). A stack, not nested generators, which would pass each
    deep subschema up through every level above it."""
    if not isinstance(schema, dict):
        return
    pending = [(path, schema)]
    while pending:
        at, subschema = pending.pop()
        yield at, subschema
        children = [(at + relative, child) for relative, child in _children(subschema) if isinstance(child, dict)]
        pending += reversed(children)


def copy_json(value: Any) -> Any:
    """A deep copy of JSON data (dicts, lists and scalars), without the memo and the type
    dispatch `copy.deepcopy` needs to handle any object; anything else is copied by it."""
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    if value is None or isinstance(value, str | int | float):
        return value
    return copy.deepcopy(value)


def map_subschemas(schema: Any, change: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
    """A copy of `schema` with `change` applied to every subschema object, innermost first.
    Each part is copied once, so `change` may mutate the mapping it is given."""
    if not isinstance(schema, dict):
        return copy_json(schema)
    if _SCHEMA_KEYWORDS.isdisjoint(schema):
        return change(copy_json(schema))
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key in SCHEMA_MAPS and isinstance(value, dict):
            result[key] = {name: map_subschemas(child, change) for name, child in value.items()}
        elif key in _LIST_KEYWORDS and isinstance(value, list):
            result[key] = [map_subschemas(item, change) for item in value]
        elif key in SCHEMA_VALUES:
            result[key] = map_subschemas(value, change)
        else:
            result[key] = copy_json(value)
    return change(result)


def map_children(schema: dict[str, Any], change: Callable[[Any], Any]) -> dict[str, Any]:
    """A new mapping of `schema` with `change` applied to each of its direct subschemas;
    every other value (data: `enum`, `const`, `default`, `examples`, unknown keywords) is
    kept as it is, never looked into."""
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key in SCHEMA_MAPS and isinstance(value, dict):
            result[key] = {name: change(child) for name, child in value.items()}
        elif key in _LIST_KEYWORDS and isinstance(value, list):
            result[key] = [change(item) for item in value]
        elif key in SCHEMA_VALUES:
            result[key] = change(value)
        else:
            result[key] = value
    return result


def iter_refs(schema: Any, path: JsonPath = ()) -> Iterator[tuple[JsonPath, str]]:
    """Every `$ref` in a schema, with its path."""
    for at, subschema in iter_subschemas(schema, path):
        if isinstance(subschema.get("$ref"), str):
            yield at + ("$ref",), subschema["$ref"]


def rewrite_refs(schema: Any, rewrite: Callable[[str], str]) -> Any:
    """A copy of `schema` with every `$ref` passed through `rewrite`."""

    def change(subschema: dict[str, Any]) -> dict[str, Any]:
        if isinstance(subschema.get("$ref"), str):
            subschema["$ref"] = rewrite(subschema["$ref"])
        return subschema

    return map_subschemas(schema, change)


_MISSING = object()


def pointed(document: Any, pointer: str) -> Any:
    """What a JSON Pointer ("/a/0/b", "" for the root) names in `document`, or None."""
    found = _follow(document, pointer)
    return None if found is _MISSING else found


def resolve_pointer(document: Any, pointer: str) -> bool:
    """Whether a JSON Pointer ("/a/0/b", "" for the root) names something in `document`."""
    return _follow(document, pointer) is not _MISSING


def _follow(document: Any, pointer: str) -> Any:
    if pointer == "":
        return document
    if not unquote(pointer).startswith("/"):
        return _MISSING
    node = document
    for token in unquote(pointer)[1:].split("/"):
        token = _unescape(token)
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return _MISSING
    return node


def _to_local(ref: str) -> str:
    return LOCAL_PREFIX + ref[len(DEFINITIONS_PREFIX) :] if ref.startswith(DEFINITIONS_PREFIX) else ref


def pointer_token(name: str) -> str:
    """`name` as one JSON Pointer token in a URI fragment: escaped, then percent-encoded
    (a plain name such as `Gift` or `gift_card` stays as it is)."""
    return quote(name.replace("~", "~0").replace("/", "~1"), safe="")


def _bundled_definition(name: str) -> Callable[[str], str]:
    """How the refs of definition `name` read once it sits under the bundle's `$defs`: shared
    refs as for the schema itself; a pointer into the definition itself (`#`, `#/$defs/X`,
    `#/properties/x`), which meant the definition as a document of its own, now under it."""

    def rewrite(ref: str) -> str:
        if ref.startswith(DEFINITIONS_PREFIX):
            return _to_local(ref)
        if ref == "#" or ref.startswith("#/"):
            return LOCAL_PREFIX + pointer_token(name) + ref[1:]
        return ref

    return rewrite


def used_definitions(schema: Any, definitions: dict[str, Any]) -> list[str]:
    """The shared definitions `schema` needs, directly or through other definitions, sorted."""
    return Bundles(definitions).used(schema)


def bundle(schema: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    """A self-contained copy of `schema`: the shared definitions it uses are copied under its
    own `$defs` and `#/definitions/X` refs become `#/$defs/X`. Without such refs it is returned
    unchanged (as a copy), so what the spec says is what is served."""
    return Bundles(definitions).bundle(schema)


class Bundles:
    """The bundles (see `bundle`) of the schemas of one spec, each made once: the checks
    validate against them and the IR serves them, and a shared definition is rewritten
    once, not again for every schema that uses it. What `of` returns is shared by all who
    ask, so it is read, never changed; `bundle` gives a copy of one's own."""

    def __init__(self, definitions: dict[str, Any]) -> None:
        self.definitions = definitions
        self._refers_to: dict[str, list[str]] = {}  # definition -> the definitions its refs name
        self._bundled_definitions: dict[str, Any] = {}  # definition -> as it reads under $defs
        self._bundles: dict[int, tuple[Any, dict[str, Any]]] = {}  # id(schema) -> (schema, bundle)

    def of(self, schema: dict[str, Any]) -> dict[str, Any]:
        """The bundle of `schema`, made the first time it is asked for (shared: read only)."""
        known = self._bundles.get(id(schema))
        if known is not None and known[0] is schema:
            return known[1]
        bundled = self._bundle(schema, own=False)
        self._bundles[id(schema)] = (schema, bundled)  # holding `schema` keeps its id unique
        return bundled

    def bundle(self, schema: dict[str, Any]) -> dict[str, Any]:
        """A new bundle of `schema`, all of it the caller's own."""
        return self._bundle(schema, own=True)

    def _bundle(self, schema: dict[str, Any], own: bool) -> dict[str, Any]:
        """A bundle whose parts are all new; or, unless `own`, whose shared definitions are
        the ones every read-only bundle of this spec holds."""
        needed = self.used(schema)
        if not needed:
            return copy_json(schema)  # type: ignore[no-any-return]
        bundled: dict[str, Any] = rewrite_refs(schema, _to_local)
        local = dict(bundled.get("$defs") or {})
        for name in needed:
            definition = self._bundled_definition(name)
            local[name] = copy_json(definition) if own else definition
        bundled["$defs"] = local
        return bundled

    def used(self, schema: Any) -> list[str]:
        """The shared definitions `schema` needs, directly or through other definitions, sorted."""
        needed: set[str] = set()
        pending = self._names(schema)
        while pending:
            name = pending.pop()
            if name not in needed:
                needed.add(name)
                pending += self._definition_names(name)
        return sorted(needed)

    def _names(self, schema: Any) -> list[str]:
        """The shared definitions that the refs of `schema` name, as written."""
        names = (ref_target(ref, DEFINITIONS_PREFIX) for _, ref in iter_refs(schema))
        return [name for name in names if name is not None and name in self.definitions]

    def _definition_names(self, name: str) -> list[str]:
        if name not in self._refers_to:
            self._refers_to[name] = self._names(self.definitions[name])
        return self._refers_to[name]

    def _bundled_definition(self, name: str) -> Any:
        if name not in self._bundled_definitions:
            self._bundled_definitions[name] = rewrite_refs(self.definitions[name], _bundled_definition(name))
        return self._bundled_definitions[name]
