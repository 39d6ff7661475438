import keyword

import pytest

from mcpgen.names import naming


@pytest.mark.parametrize(
    ("name", "snake", "pascal"),
    [
        ("suggest_gifts", "suggest_gifts", "SuggestGifts"),
        ("suggest-gifts", "suggest_gifts", "SuggestGifts"),
        ("suggestGifts", "suggest_gifts", "SuggestGifts"),
        ("gift.catalog", "gift_catalog", "GiftCatalog"),
        ("GiftCard", "gift_card", "GiftCard"),
        ("HTTPServer", "http_server", "HTTPServer"),
        ("2fa", "n2fa", "N2fa"),
        ("class", "class_", "Class"),
        ("match", "match_", "Match"),
    ],
)
def test_snake_and_pascal(name: str, snake: str, pascal: str) -> None:
    assert naming.snake(name) == snake
    assert naming.pascal(name) == pascal
    assert naming.snake(name).isidentifier() and not keyword.iskeyword(naming.snake(name))


def test_parameters_avoid_the_methods_own_names() -> None:
    assert naming.parameter("self") == "self_"
    assert naming.parameter("ctx") == "ctx_"
    assert naming.parameter("id") == "id"
    assert naming.parameter("user-id") == "user_id"


def test_model_and_method_names() -> None:
    assert naming.tool_input_model("suggest_gifts") == "SuggestGiftsInput"
    assert naming.tool_output_model("suggest_gifts") == "SuggestGiftsOutput"
    assert naming.resource_content_model("gift_catalog") == "GiftCatalogContent"
    assert naming.prompt_arguments_model("gift_congrats_style") == "GiftCongratsStyleArguments"
    assert naming.resource_method("gift_catalog") == "read_gift_catalog"
    assert naming.prompt_method("gift_congrats_style") == "get_gift_congrats_style"
    assert naming.client_class("gift-server") == "GiftServerClient"
    assert naming.package("gift-server") == "gift_server"


def test_a_definition_never_takes_a_name_the_package_uses() -> None:
    assert naming.definition_model("context") == "ContextModel"
    assert naming.definition_model("Limits") == "LimitsModel"
    assert naming.definition_model("gift") == "Gift"


def test_a_models_module_is_the_method_name_cut_short_when_long() -> None:
    from mcpgen.names.naming import model_module

    assert model_module("suggest_gifts") == "suggest_gifts"
    long_a, long_b = "get_" + "a" * 300, "get_" + "a" * 299 + "b"
    assert len(model_module(long_a)) < 100 and model_module(long_a).isidentifier()
    assert model_module(long_a) != model_module(long_b)
    assert model_module(long_a) == model_module(long_a)
