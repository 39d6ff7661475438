"""OpenAPI schemas as JSON Schema 2020-12, for one direction: arguments or answers.

3.1 schemas are 2020-12 already; 3.0's dialect differs, and is converted so that the tool
accepts exactly what the API does: `nullable: true` adds `null` to `type` (and to `enum`),
boolean `exclusiveMinimum`/`exclusiveMaximum` become the numbers they qualify, `example`
becomes `examples` (in 3.1 documents too, which often still spell them so). OpenAPI's own keywords (`discriminator`, `xml`, `externalDocs`) and
`x-` extensions are left out. A property marked `readOnly` is no argument (the server sets
it), one marked `writeOnly` is never in an answer: each is dropped in that direction, with
its `required` entry.

`#/components/schemas/X` becomes `#/definitions/X`, so shared and recursive schemas stay
references. A component that holds such a property (itself or through its references) is
written once per direction that changes it: `XInput` without its readOnly properties,
`XOutput` without its writeOnly ones; `X` is the component as written.
"""

from __future__ import annotations

from typing import Any, Literal

from mcpgen.importer.openapi.document import Document, OpenApiError
from mcpgen.importer.openapi.refs import SCHEMAS_PREFIX, dereferenced, pointed

Direction = Literal["input", "output"]
_HIDDEN = {"input": "readOnly", "output": "writeOnly"}
_SUFFIX = {"input": "Input", "output": "Output"}
_DROPPED = frozenset({"discriminator", "xml", "externalDocs", "example", "nullable", "$recursiveAnchor"})
_SCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas", "$defs")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_VALUES = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
)


def _escaped(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _component_name(ref: str) -> str:
    return ref[len(SCHEMAS_PREFIX) :].replace("~1", "/").replace("~0", "~")


class Schemas:
    """Converts the document's schemas, collecting the definitions they refer to."""

    def __init__(self, document: Document) -> None:
        self._data = document.data
        self._is_30 = document.is_30
        components = self._data.get("components")
        schemas = components.get("schemas") if isinstance(components, dict) else None
        self._components: dict[str, Any] = schemas if isinstance(schemas, dict) else {}
        self.definitions: dict[str, Any] = {}
        self._names: dict[tuple[str, Direction], str] = {}
        self._hides: dict[tuple[str, str], bool] = {}
        self._inlining: list[str] = []
        self._defining: list[str] = []  # the definitions being converted, innermost last

    # --- which components change with the direction -------------------------------------

    def _holds(self, schema: Any, flag: str, visiting: set[str]) -> bool:
        """Whether `schema` has a property marked `flag`, itself or through its references."""
        if isinstance(schema, list):
            return any(self._holds(item, flag, visiting) for item in schema)
        if not isinstance(schema, dict):
            return False
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith(SCHEMAS_PREFIX):
            return self._component_holds(_component_name(ref), flag, visiting)
        properties = schema.get("properties")
        if isinstance(properties, dict) and any(
            isinstance(prop, dict) and prop.get(flag) is True for prop in properties.values()
        ):
            return True
        return any(self._holds(value, flag, visiting) for key, value in schema.items() if key != "enum")

    def _component_holds(self, name: str, flag: str, visiting: set[str]) -> bool:
        if (name, flag) in self._hides:
            return self._hides[name, flag]
        if name in visiting:
            return False  # the cycle's other members decide
        found = self._holds(self._components.get(name), flag, visiting | {name})
        if not visiting:
            self._hides[name, flag] = found
        return found

    # --- definitions ------------------------------------------------------------------------

    def _definition(self, name: str, direction: Direction) -> str:
        """The definition a component is in this direction, converted on first use."""
        if (name, direction) in self._names:
            return self._names[name, direction]
        if name not in self._components:
            raise OpenApiError(f"error: the $ref '{SCHEMAS_PREFIX}{name}' names no schema of the document")
        changed = self._component_holds(name, _HIDDEN[direction], set())
        chosen = name + _SUFFIX[direction] if changed else name
        while chosen != name and chosen in self._components:
            chosen += "_"  # a component of the document already has the name
        self._names[name, direction] = chosen
        for key in ("input", "output"):
            if not self._component_holds(name, _HIDDEN[key], set()):
                self._names[name, key] = name  # both directions share the plain one
        if chosen not in self.definitions:
            self.definitions[chosen] = {}  # reserved first: a recursive schema refers to itself
            self._defining.append(chosen)
            try:
                self.definitions[chosen] = self.convert(self._components[name], direction)
            finally:
                self._defining.pop()
        return chosen

    # --- conversion ------------------------------------------------------------------------

    def _ref(self, schema: dict[str, Any], direction: Direction) -> Any:
        ref = schema["$ref"]
        if ref.startswith(SCHEMAS_PREFIX):
            converted: dict[str, Any] = {
                "$ref": "#/definitions/" + _escaped(self._definition(_component_name(ref), direction))
            }
        elif ref in self._inlining:
            raise OpenApiError(f"error: the $ref '{ref}' is recursive outside components/schemas; move it there")
        else:
            self._inlining.append(ref)
            try:
                converted = self.convert(pointed(self._data, ref), direction)
            finally:
                self._inlining.pop()
            if not isinstance(converted, dict):
                return converted
        if not self._is_30:  # 3.1: keywords beside $ref apply too
            siblings = self.convert({k: v for k, v in schema.items() if k != "$ref"}, direction)
            return {**converted, **siblings} if "$ref" not in siblings else converted
        if schema.get("nullable") is True:
            return {"anyOf": [converted, {"type": "null"}]}
        return converted

    def _hidden(self, schema: Any, direction: Direction) -> bool:
        target = dereferenced(self._data, schema) if isinstance(schema, dict) else schema
        return isinstance(target, dict) and target.get(_HIDDEN[direction]) is True

    def convert(self, schema: Any, direction: Direction) -> Any:
        """`schema` as 2020-12, for arguments (`input`) or answers (`output`)."""
        if not isinstance(schema, dict):
            return schema
        if schema.get("$recursiveRef") == "#" and self._defining:
            # 2019-09's recursion to the enclosing component: a reference to its definition.
            others = {key: value for key, value in schema.items() if key != "$recursiveRef"}
            return {"$ref": "#/definitions/" + _escaped(self._defining[-1]), **self.convert(others, direction)}
        if isinstance(schema.get("$ref"), str):
            return self._ref(schema, direction)
        all_of = schema.get("allOf")
        if isinstance(all_of, list) and any(_only_nullable(member) for member in all_of):
            # 3.0's idiom for a nullable reference, `allOf: [{$ref}, {nullable: true}]`: a bare
            # `nullable` means nothing in 3.0, but the APIs that write it do answer null.
            rest = [member for member in all_of if not _only_nullable(member)]
            inner = {**schema, "allOf": rest} if rest else {k: v for k, v in schema.items() if k != "allOf"}
            return {"anyOf": [self.convert(inner, direction), {"type": "null"}]}
        converted: dict[str, Any] = {}
        dropped: set[str] = set()
        for key, value in schema.items():
            if key in _DROPPED or key.startswith("x-"):
                continue
            if key == "properties" and isinstance(value, dict):
                dropped = {name for name, prop in value.items() if self._hidden(prop, direction)}
                converted[key] = {
                    name: self.convert(prop, direction) for name, prop in value.items() if name not in dropped
                }
            elif key in _SCHEMA_MAPS and isinstance(value, dict):
                converted[key] = {name: self.convert(item, direction) for name, item in value.items()}
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                converted[key] = [self.convert(item, direction) for item in value]
            elif key in _SCHEMA_VALUES:
                converted[key] = self.convert(value, direction)
            else:
                converted[key] = value
        if isinstance(converted.get("required"), list):
            # Listed once each (documents repeat names, which 2020-12 forbids), hidden ones left out.
            kept = [name for name in dict.fromkeys(converted["required"]) if name not in dropped]
            if kept:
                converted["required"] = kept
            else:
                del converted["required"]
        if "example" in schema and "examples" not in schema and schema.get("example") is not None:
            converted["examples"] = [schema["example"]]
        # 3.0's spellings have no other meaning in 2020-12, and 3.1 documents still use them.
        return _integer_range(_from_30(schema, converted))


_FORMAT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def _integer_range(converted: dict[str, Any]) -> dict[str, Any]:
    """An integer of format int32 or int64 bounded to its range: JSON Schema leaves
    `format` unchecked, but the API refuses what its type cannot hold. A bound the
    document states wins where it is tighter."""
    kind = converted.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    limits = _FORMAT_RANGES.get(converted.get("format"))  # type: ignore[arg-type]
    if limits is None or "integer" not in kinds:
        return converted
    low, high = limits
    if not _bounded(converted, "minimum", "exclusiveMinimum", low, lambda given, limit: given >= limit):
        converted["minimum"] = low
    if not _bounded(converted, "maximum", "exclusiveMaximum", high, lambda given, limit: given <= limit):
        converted["maximum"] = high
    return converted


def _bounded(schema: dict[str, Any], inclusive: str, exclusive: str, limit: int, within: Any) -> bool:
    """Whether `schema` already bounds that side at least as tightly as `limit`."""
    for key in (inclusive, exclusive):
        given = schema.get(key)
        if isinstance(given, (int, float)) and not isinstance(given, bool) and within(given, limit):
            return True
    return False


def _only_nullable(member: Any) -> bool:
    return (
        isinstance(member, dict)
        and member.get("nullable") is True
        and set(member) <= {"nullable", "description", "title"}
    )


def _from_30(schema: dict[str, Any], converted: dict[str, Any]) -> dict[str, Any]:
    """3.0's keywords that 2020-12 spells otherwise, in a schema already converted."""
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if schema.get(exclusive) is True and bound in schema:
            converted[exclusive] = converted.pop(bound)
        elif isinstance(schema.get(exclusive), bool):
            del converted[exclusive]
    if schema.get("nullable") is True:
        kind = converted.get("type")
        if isinstance(kind, str):
            converted["type"] = [kind, "null"]
        if isinstance(converted.get("enum"), list) and None not in converted["enum"]:
            converted["enum"] = [*converted["enum"], None]
        if kind is None and "enum" not in converted and any(k in converted for k in ("allOf", "anyOf", "oneOf")):
            return {"anyOf": [converted, {"type": "null"}]}
    return converted
