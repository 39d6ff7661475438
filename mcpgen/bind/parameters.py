"""A model's fields as keyword arguments of a client method.

Optional fields without a default are left out unless given (`UNSET`); they take None
only where the model's schema lets the property be null, judged by JSON Schema itself
(the model says `| None` for every optional field). `int | float` is written `float`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from mcpgen.bind.api import Parameter, ParameterKind
from mcpgen.bind.types import ModelTypes
from mcpgen.models.model_index import Field
from mcpgen.utils.json_types import Json


class NullableProperties:
    """Which properties of an object schema accept null, judged by JSON Schema itself
    (refs, unions and `type` lists alike). A property the schema does not list by name,
    or a schema that is not plain properties, is taken to accept it: the server decides."""

    def __init__(self, schema: Mapping[str, Json]) -> None:
        self.schema = schema
        properties = schema.get("properties")
        self.properties: Mapping[str, Json] = properties if isinstance(properties, dict) else {}

    @functools.cached_property
    def _validator(self) -> Any:
        from jsonschema.validators import validator_for

        return validator_for(self.schema)(self.schema)

    def allowed(self, name: str) -> bool:
        if name not in self.properties:
            return True
        return bool(self._validator.evolve(schema=self.properties[name]).is_valid(None))


def _kind(field: Field) -> ParameterKind:
    if field.required:
        return "required"
    return "defaulted" if field.default not in (None, "None") else "optional"


def field_parameters(types: ModelTypes, model: str, schema: Mapping[str, Json]) -> list[Parameter]:
    """The fields of `model` as keyword arguments (named as the fields: the caller renames),
    required ones first."""
    nulls = NullableProperties(schema)
    parameters = []
    for field in types.index.models[model].fields:
        kind = _kind(field)
        type_ = types.of(field.annotation).numeric_tower()
        if kind == "optional":
            nullable = nulls.allowed(field.wire_name)
            type_ = type_ if nullable else type_.without_none()
            parameters.append(Parameter(field.name, field.name, type_, kind, None, nullable))
        else:
            default = field.default if kind == "defaulted" else None
            parameters.append(Parameter(field.name, field.name, type_, kind, default))
    return sorted(parameters, key=lambda p: p.kind != "required")
