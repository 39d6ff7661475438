"""The JSON form of values, shared by the server and the client (it imports only pydantic)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel


def to_json(value: Any) -> Any:
    """The JSON form of a value: models by alias, with exactly the fields that were set.

    A field given as None is a JSON null (a nullable field); a field never set is left
    out. So what a client sent, or what a handler built, is what goes on the wire.
    Anything that is not a pydantic model is returned as it is.
    """
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return value


def json_path(path: Iterable[str | int]) -> str:
    """`$.gifts[0].price` for the path ("gifts", 0, "price")."""
    return "$" + "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}" for part in path
    )
