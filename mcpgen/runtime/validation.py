"""Checking values against the spec's JSON Schemas and models, with readable violations.

A violation reads `<JSON path>: <message>`, e.g. `$.budget: 0 is less than or equal
to the minimum of 0`; paths start at `$`, with `.name` for properties and `[i]` for
array items.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jsonschema import Draft202012Validator
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


def schema_violations(validator: Draft202012Validator, instance: Any) -> list[str]:
    """Every way `instance` breaks the schema, each with its JSON path, in a stable order."""
    errors = sorted(
        validator.iter_errors(instance),
        key=lambda e: (list(map(str, e.absolute_path)), e.message),
    )
    return [f"{json_path(error.absolute_path)}: {error.message}" for error in errors]


def pydantic_violations(error: ValidationError) -> list[str]:
    """The violations of a pydantic validation error, in the same form as schema_violations."""
    return [f"{json_path(detail['loc'])}: {detail['msg']}" for detail in error.errors()]


def conform(
    model: type[BaseModel],
    validator: Draft202012Validator,
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
        data = to_json(model.model_validate(value))
    except ValidationError as exc:
        violations = pydantic_violations(exc)
    else:
        if wrap:
            data = {"result": data}
        violations = schema_violations(validator, data)
        if not violations:
            return data
    logger.error(
        "%s produced a value that breaks its schema: %s", what, "; ".join(violations)
    )
    raise MCPError(
        INTERNAL_ERROR, f"The {what} produced a result that does not match its schema."
    )
