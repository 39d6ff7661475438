"""The gift server's business logic, on top of the generated gift_server package.

    python generated_example/app.py                       # stdio
    python generated_example/app.py --http 127.0.0.1:8000 # Streamable HTTP at /mcp
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import mcp_types as types

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # so `python generated_example/app.py` finds the package beside it

from gift_server import (  # noqa: E402
    Context,
    Gift,
    GiftCatalogContent,
    GiftThankYouArguments,
    Handlers,
    NotFoundError,
    SuggestGiftCardsInput,
    SuggestGiftsInput,
    SuggestGiftsOutput,
    ToolError,
    run,
)

# Common gift card values, in euros.
CARD_AMOUNTS = (10.0, 15.0, 20.0, 25.0, 30.0, 50.0, 75.0, 100.0, 150.0, 200.0)


class GiftShop(Handlers):
    """Suggests gifts from a catalog kept in a JSON file."""

    def __init__(self, catalog_path: Path = HERE / "catalog.json") -> None:
        self.catalog = GiftCatalogContent.model_validate_json(catalog_path.read_text(encoding="utf-8"))

    async def suggest_gifts(self, args: SuggestGiftsInput, ctx: Context) -> SuggestGiftsOutput:
        matches = [
            gift
            for gift in self.catalog.gifts
            if args.occasion in gift.occasions and gift.price <= args.budget
        ]
        if not matches:
            raise ToolError(
                f"No gifts for a {args.occasion.replace('_', ' ')} within {args.budget:.2f} EUR; "
                "try a larger budget."
            )
        matches.sort(key=lambda gift: gift.price, reverse=True)
        return SuggestGiftsOutput(gifts=matches, total=len(matches))

    async def suggest_gift_cards(self, args: SuggestGiftCardsInput, ctx: Context) -> list[float]:
        amounts = [amount for amount in CARD_AMOUNTS if amount <= args.budget]
        if not amounts:
            raise ToolError(f"The smallest gift card is {CARD_AMOUNTS[0]:.2f} EUR.")
        return sorted(amounts, reverse=True)[: args.count]

    async def read_gift_catalog(self, ctx: Context) -> GiftCatalogContent:
        return self.catalog

    async def read_gift(self, id: str, ctx: Context) -> Gift:
        for gift in self.catalog.gifts:
            if gift.id == id:
                return gift
        raise NotFoundError(id)

    async def complete(
        self, ref_type: str, ref: str, argument: str, value: str, context: dict[str, str], ctx: Context
    ) -> Sequence[str] | None:
        if (ref_type, ref, argument) == ("resource", "gifts://{id}", "id"):
            return [gift.id for gift in self.catalog.gifts if gift.id.startswith(value)]
        return None  # the values the spec lists

    async def get_gift_thank_you(
        self, args: GiftThankYouArguments, ctx: Context
    ) -> list[types.PromptMessage]:
        text = f"Write a warm, two-sentence thank-you note for the {args.gift} I received."
        return [types.PromptMessage(role="user", content=types.TextContent(text=text))]


if __name__ == "__main__":
    run(GiftShop())
