"""The models a generated package would have in models.py."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, RootModel


class DivideInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    a: float
    b: float


class DivideOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    quotient: float


class HalvesInput(BaseModel):
    values: list[float]


class HalvesOutput(RootModel[list[float]]):
    root: list[float]


class EchoInput(BaseModel):
    # Stricter than the JSON Schema, so that the model's own check shows.
    text: str = Field(max_length=20)


class AskNameInput(BaseModel):
    pass


class Stats(BaseModel):
    count: int


class Item(BaseModel):
    id: str
    name: str


class GreetArguments(BaseModel):
    name: str
    tone: str | None = None


class SummaryArguments(BaseModel):
    topic: str
