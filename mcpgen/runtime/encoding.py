"""The JSON form of values, shared by the server and the client (it imports only pydantic)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


def to_json(value: Any) -> Any:
    """The JSON form of a value: models by alias, unset optional fields left out.

    Anything that is not a pydantic model is returned as it is.
    """
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value
