"""Unknown keywords in JSON Schemas: legal (JSON Schema ignores them as annotations), so a
warning, but usually a typo that silently drops a constraint (`exclusiveMinimun: 0`).

The known keywords are read from the metaschemas of the schema's dialect (2020-12 unless
its `$schema` says otherwise), as `jsonschema` ships them, vocabularies included.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import jsonschema
import referencing
from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from jsonschema_specifications import REGISTRY  # type: ignore[import-untyped]

from mcpgen.diagnostics import Diagnostic, did_you_mean
from mcpgen.spec.json_schema import iter_subschemas
from mcpgen.spec.source import JsonPath, SourceMap

# Extensions by convention (OpenAPI's `x-`): never warned about.
EXTENSION_PREFIX = "x-"

# Keywords every dialect gets here: `$ref` (core, but not a property of draft-04's
# metaschema), `$defs` (mcpgen's local definitions in any dialect: refs to them are JSON
# pointers) and draft-07's `writeOnly` (in its specification, missing from its metaschema).
_ALWAYS = frozenset({"$ref", "$defs", "writeOnly"})

# Keywords from other schema languages, with what JSON Schema says instead.
_FOREIGN = {
    "nullable": "JSON Schema has no 'nullable' (it is OpenAPI 3.0's); write e.g. `type: [string, 'null']`",
}


def dialect(schema: dict[str, Any]) -> type[Validator]:
    """The validator class of a schema's dialect: its `$schema`, else 2020-12."""
    try:
        cls: type[Validator] = validator_for(schema, default=Draft202012Validator)
    except jsonschema.exceptions.SchemaError:
        cls = Draft202012Validator
    return cls


@functools.cache
def known_keywords(cls: type[Validator]) -> frozenset[str]:
    """Every keyword a dialect's metaschema declares, following its vocabularies (`allOf`)."""
    registry: referencing.Registry[Any] = REGISTRY
    keywords = set(_ALWAYS)

    def collect(metaschema: Any, resolver: Any) -> None:  # a referencing Resolver
        if not isinstance(metaschema, dict):
            return
        keywords.update(metaschema.get("properties") or {})
        for part in metaschema.get("allOf") or []:
            if isinstance(part, dict) and isinstance(part.get("$ref"), str):
                resolved = resolver.lookup(part["$ref"])
                collect(resolved.contents, resolved.resolver)

    meta = cls.META_SCHEMA
    collect(meta, registry.resolver(base_uri=str(meta.get("$id") or meta.get("id") or "")))
    return frozenset(keywords)


_DIALECTS: dict[type[Validator], str] = {Draft202012Validator: "2020-12", Draft7Validator: "draft-07"}


def _other_dialect(key: str, cls: type[Validator]) -> str | None:
    """A hint for a keyword of the other dialect mcpgen's users write (2020-12 or draft-07)."""
    for other, name in _DIALECTS.items():
        if other is not cls and key in known_keywords(other):
            here = _DIALECTS.get(cls, "its dialect")
            return f"'{key}' is a {name} keyword, and this schema is {here}"
    return None


def unknown_keywords(schema: dict[str, Any], path: JsonPath, source: SourceMap) -> Iterator[Diagnostic]:
    """A warning for each key of each (sub)schema that its dialect does not know, at the key."""
    cls = dialect(schema)
    known = known_keywords(cls)
    for at, subschema in iter_subschemas(schema, path):
        for key in subschema:
            if key in known or key.startswith(EXTENSION_PREFIX):
                continue
            hint = _FOREIGN.get(key) or _other_dialect(key, cls) or did_you_mean(key, known)
            yield source.warning(
                at + (key,),
                f"unknown JSON Schema keyword '{key}' is ignored",
                hint or f"an annotation of your own? name it '{EXTENSION_PREFIX}{key}' to say so",
            )
