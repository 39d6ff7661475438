"""The kitchen-sink server (specs/kitchen_sink.yaml) implemented: typed logic for every tool.

    python tests/kitchen_sink/app.py                        # stdio
    python tests/kitchen_sink/app.py --http 127.0.0.1:8000  # Streamable HTTP at /mcp

Most tools echo what they were given, so that a value makes the whole trip (the schema
check, the typed model, the handler, the output model, the schema check again); the others
compute something from their typed arguments.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the generated package lives beside this file

from kitchen_sink import (  # noqa: E402
    AdditionalPropertiesInput,
    AdditionalPropertiesOutput,
    Address,
    ArrayOutputInput,
    BigNumbersInput,
    BigNumbersOutput,
    BooleanSchemasInput,
    BooleanSchemasOutput,
    CombinatorsInput,
    CombinatorsOutput,
    ConditionalsInput,
    ConditionalsOutput,
    Context,
    DefaultsInput,
    DefaultsOutput,
    Handlers,
    LettersInput,
    LettersOutput,
    LettersOutputInput,
    LettersOutputOutput,
    LocalRefsInput,
    LocalRefsOutput,
    LocalRefsOutputPoint,
    NullablesInput,
    NullablesOutput,
    PatternPropertiesInput,
    PatternPropertiesOutput,
    PythonNamesInput,
    PythonNamesOutput,
    RecursiveRefInput,
    RecursiveRefOutput,
    RefOutputInput,
    ShapesInput,
    ShapesInputShape,
    ShapesOutput,
    SharedDefinitionsInput,
    SharedDefinitionsOutput,
    TextOnlyInput,
    ToolError,
    TuplesInput,
    TuplesOutput,
    TypeArraysInput,
    TypeArraysOutput,
    UnevaluatedInput,
    UnevaluatedOutput,
    run,
)

Out = TypeVar("Out", bound=BaseModel)

COLORS: tuple[Literal["red", "green", "blue"], ...] = ("red", "green", "blue")


def echo(output: type[Out], args: BaseModel) -> Out:
    """The arguments as the output model: the properties that were sent, and only those
    (an explicit null stays null; an absent property stays absent)."""
    return output.model_validate(args.model_dump(mode="json", by_alias=True, exclude_unset=True))


def depth(node: RecursiveRefInput) -> int:
    return 1 + max((depth(child) for child in node.children or []), default=0)


def labels(node: RecursiveRefInput) -> list[str]:
    return [node.label] + [label for child in node.children or [] for label in labels(child)]


class KitchenSink(Handlers):
    async def nullables(self, args: NullablesInput, ctx: Context) -> NullablesOutput:
        return echo(NullablesOutput, args)

    async def type_arrays(self, args: TypeArraysInput, ctx: Context) -> TypeArraysOutput:
        return echo(TypeArraysOutput, args)

    async def boolean_schemas(self, args: BooleanSchemasInput, ctx: Context) -> BooleanSchemasOutput:
        return echo(BooleanSchemasOutput, args)

    async def letters(self, args: LettersInput, ctx: Context) -> LettersOutput:
        return LettersOutput(word=args.word, length=len(args.word))

    async def letters_output(self, args: LettersOutputInput, ctx: Context) -> LettersOutputOutput:
        return LettersOutputOutput(word=args.word)

    async def pattern_properties(self, args: PatternPropertiesInput, ctx: Context) -> PatternPropertiesOutput:
        given = args.model_extra or {}
        total = sum(value for key, value in given.items() if key.startswith("n_"))
        found = {key: value for key, value in given.items() if key.startswith("label_")}
        return PatternPropertiesOutput(total=total, labels=found)

    async def local_refs(self, args: LocalRefsInput, ctx: Context) -> LocalRefsOutput:
        end = LocalRefsOutputPoint.model_validate(args.end.model_dump())  # '#/properties/start', typed as start
        return LocalRefsOutput(points=2 + len(args.via or []), end=end)

    async def recursive_ref(self, args: RecursiveRefInput, ctx: Context) -> RecursiveRefOutput:
        return RecursiveRefOutput(depth=depth(args), labels=labels(args))

    async def shared_definitions(self, args: SharedDefinitionsInput, ctx: Context) -> SharedDefinitionsOutput:
        result = SharedDefinitionsOutput(contact=args.contact, favourite=args.favourite, size=args.size)
        if args.palette is not None:
            result.palette = args.palette
        return result

    async def ref_output(self, args: RefOutputInput, ctx: Context) -> Address:
        given = args.address
        return Address(street=given.street, city=given.city, zip=given.zip, country=given.country)

    async def array_output(self, args: ArrayOutputInput, ctx: Context) -> list[Literal["red", "green", "blue"]]:
        return [color for color in COLORS if color != args.without] * args.repeat

    async def combinators(self, args: CombinatorsInput, ctx: Context) -> CombinatorsOutput:
        return echo(CombinatorsOutput, args)

    async def shapes(self, args: ShapesInput, ctx: Context) -> ShapesOutput:
        shape = args.shape
        if isinstance(shape, ShapesInputShape):
            return ShapesOutput(kind="circle", area=math.pi * shape.radius**2)
        return ShapesOutput(kind="rectangle", area=shape.width * shape.height)

    async def conditionals(self, args: ConditionalsInput, ctx: Context) -> ConditionalsOutput:
        where = f"to {args.address}" if args.method == "post" else f"for pickup at {args.store}"
        paid = f", paid by card (billing address {args.billing_address})" if args.card_number else ""
        gift = f', as a gift: "{args.message}"' if args.gift else ""
        return ConditionalsOutput(summary=f"{args.method} {where}{paid}{gift}")

    async def unevaluated(self, args: UnevaluatedInput, ctx: Context) -> UnevaluatedOutput:
        return echo(UnevaluatedOutput, args)

    async def tuples(self, args: TuplesInput, ctx: Context) -> TuplesOutput:
        return echo(TuplesOutput, args)

    async def big_numbers(self, args: BigNumbersInput, ctx: Context) -> BigNumbersOutput:
        result = BigNumbersOutput(next=args.value + 1)
        if args.ratio is not None:
            result.ratio = args.ratio
        return result

    async def defaults(self, args: DefaultsInput, ctx: Context) -> DefaultsOutput:
        if args.retries > 100:
            raise ToolError("At most 100 retries.")
        return DefaultsOutput(
            title=args.title, retries=args.retries, ratio=args.ratio, verbose=args.verbose, level=args.level
        )

    async def additional_properties(
        self, args: AdditionalPropertiesInput, ctx: Context
    ) -> AdditionalPropertiesOutput:
        return echo(AdditionalPropertiesOutput, args)

    async def python_names(self, args: PythonNamesInput, ctx: Context) -> PythonNamesOutput:
        return echo(PythonNamesOutput, args)

    async def text_only(self, args: TextOnlyInput, ctx: Context) -> str:
        count = len(args.model_extra or {})
        return f"{count} argument{'' if count == 1 else 's'}"


if __name__ == "__main__":
    run(KitchenSink())
