"""Checking values against the spec's JSON Schemas and models, with readable violations.

The served schemas are the contract, so they decide: values are checked with
jsonschema-rs, which implements JSON Schema 2020-12 (and the drafts a schema names with
`$schema`) with ECMA-262 regular expressions, as JSON Schema prescribes, and whose
regex engine does not backtrack catastrophically. The models only give handlers typed
access to what the schema accepted.

A violation reads `<JSON path>: <message>`, e.g. `$.budget: 0 is less than or equal
to the minimum of 0`; paths start at `$`, with `.name` for properties and `[i]` for
array items.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any, get_args

from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ValidationError

from .encoding import to_json
from .errors import INTERNAL_ERROR
from .log import logger


def json_path(path: Iterable[str | int]) -> str:
    """`$.gifts[0].price` for the path ("gifts", 0, "price")."""
    return "$" + "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}" for part in path
    )


class SchemaValidator:
    """One served JSON Schema, compiled once."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        # Imported with the first schema compiled, not with the server: 4 ms of a cold
        # start to the first `tools/list`, which needs no validator.
        import jsonschema_rs

        self._validator = jsonschema_rs.validator_for(dict(schema))

    def violations(self, instance: Any) -> list[str]:
        """Every way `instance` breaks the schema, each with its JSON path, in a stable
        order; [] when it is valid."""
        if self._validator.is_valid(instance):
            return []
        errors = [
            (json_path(error.instance_path), error.message)
            for error in self._validator.iter_errors(instance)
        ]
        return [f"{path}: {message}" for path, message in sorted(errors)]


class SchemaValidators:
    """Validators by name, each compiled when first used: a server with hundreds of tools
    starts without compiling hundreds of schemas (they were checked when it was built).
    """

    def __init__(self, schemas: Mapping[str, Mapping[str, Any]]) -> None:
        self._schemas = dict(schemas)
        self._compiled: dict[str, SchemaValidator] = {}

    def __getitem__(self, name: str) -> SchemaValidator:
        validator = self._compiled.get(name)
        if validator is None:
            validator = self._compiled[name] = SchemaValidator(self._schemas[name])
        return validator


def from_wire(model: type[BaseModel], value: Any) -> BaseModel:
    """`value`, JSON as it travels, as an instance of `model`: properties by their JSON names
    only, so an undeclared property spelt like a field's Python name (`my_field` beside
    `my-field`) stays an extra instead of filling the field."""
    if isinstance(value, BaseModel):
        return model.model_validate(value)
    instance = model.model_validate(value, by_alias=True, by_name=False)
    if _has_aliases(model):
        _set_fields_from(instance, value)
    return instance


def _set_fields_from(instance: Any, value: Any) -> None:
    """pydantic counts an extra whose key equals a field's Python name as that field set
    (and would then dump the field); which fields were set is what the JSON names say.
    """
    if isinstance(instance, BaseModel) and isinstance(value, dict):
        fields = type(instance).model_fields
        given = {
            name for name, field in fields.items() if (field.alias or name) in value
        }
        # The extras count as set, as pydantic has it, but for one named like a field.
        extras = {key for key in instance.__pydantic_extra__ or () if key not in fields}
        object.__setattr__(instance, "__pydantic_fields_set__", given | extras)
        for name in given:
            _set_fields_from(getattr(instance, name), value[fields[name].alias or name])
    elif isinstance(instance, list) and isinstance(value, list):
        for item, raw in zip(instance, value, strict=False):
            _set_fields_from(item, raw)


@cache
def _has_aliases(model: type[BaseModel]) -> bool:
    """Whether a field of `model`, or of a model inside it, has a JSON name other than its
    Python name: only then can an extra pass for a field. Most models have none, and
    their calls skip `_set_fields_from` (8 us of a ten-argument call)."""
    seen: set[type[BaseModel]] = set()
    pending = [model]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        for name, field in current.model_fields.items():
            if (field.alias or name) != name:
                return True
            pending += _models_in(field.annotation)
    return False


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in get_args(annotation) for model in _models_in(arg)]


def typed(model: type[BaseModel], value: Any, what: str) -> BaseModel:
    """`value`, which its JSON Schema accepted, as an instance of `model`.

    The schema decides what is valid; the model only gives types. Where the model is
    narrower than the schema (a construct with no precise Python type), the value is
    still accepted: it is passed on unvalidated, and the gap is logged for mcpgen's
    maintainers rather than turned into an error the client did not cause.
    """
    try:
        return from_wire(model, value)
    except ValidationError as exc:
        logger.warning(
            "%s: %s cannot type a value its schema accepts (%s); passed on as is",
            what,
            model.__name__,
            "; ".join(pydantic_violations(exc)),
        )
        values = value if isinstance(value, dict) else {"root": value}
        return model.model_construct(**values)


def pydantic_violations(error: ValidationError) -> list[str]:
    """The violations of a pydantic validation error, in the same form as schema_violations."""
    return [f"{json_path(detail['loc'])}: {detail['msg']}" for detail in error.errors()]


def conform(
    model: type[BaseModel],
    validator: SchemaValidator,
    value: Any,
    what: str,
    *,
    wrap: bool = False,
) -> Any:
    """The JSON of a handler's value, checked against the model and the spec's schema.

    `what` names the source for messages ("tool 'x'"); `wrap` serves the JSON as
    `{"result": ...}` (a non-object tool output). A value of the wrong shape is logged
    and becomes an internal error (-32603): it never reaches the client, so one tool
    always answers in one shape.
    """
    try:
        data = to_json(from_wire(model, value))
    except ValidationError as exc:
        violations = pydantic_violations(exc)
    else:
        if wrap:
            data = {"result": data}
        violations = validator.violations(data)
        if not violations:
            return data
    logger.error(
        "%s produced a value that breaks its schema: %s", what, "; ".join(violations)
    )
    raise MCPError(
        INTERNAL_ERROR, f"The {what} produced a result that does not match its schema."
    )
