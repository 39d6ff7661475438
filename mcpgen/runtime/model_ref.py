"""Models bound by reference: a generated server passes `lambda: models.Name`, so the
module that defines a tool's models is imported when the tool is first called, not when
the server starts (a spec with hundreds of tools would otherwise import them all)."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel

ModelRef = type[BaseModel] | Callable[[], type[BaseModel]]
"""A model class, or a function of no arguments that returns it."""


def model_of(ref: ModelRef) -> type[BaseModel]:
    return ref if isinstance(ref, type) else ref()
