"""models/black_style/ writes generated code in black's style without running black.

Its claim has two halves, and black is the judge of both:
- what it writes is black-clean: black leaves it unchanged;
- it means what the input meant: the same syntax tree as black's own result.
Checked on hand-picked shapes (including those where black's choice is subtle), on random
model statements (hypothesis), on the example and benchmark packages, and on the models of
the JSON-Schema-Test-Suite's schemas. Where it can, it also writes exactly what black
would, which keeps the committed examples unchanged.
"""

from __future__ import annotations

import ast
import os
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import black
import pytest
from helpers import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpgen.models import black_style, model_batches, model_statements
from mcpgen.models.assembly import FastModelGenerator
from mcpgen.models.formatting import BLACK_MODE
from mcpgen.models.run import fast_context
from mcpgen.services import pipeline


def _black(text: str) -> str:
    return black.format_str(text, mode=BLACK_MODE)


def _written(text: str) -> tuple[str, list[str]]:
    """The module as black_style writes it, and what it left to black."""
    left: list[str] = []

    def fallback(piece: str) -> str:
        left.append(piece)
        return _black(piece)

    return black_style.format_module(text, fallback), left


def _assert_written_like_black(text: str, *, exactly: bool = True, by_black: int = 0) -> str:
    written, left = _written(text)
    assert len(left) == by_black, left
    assert _black(written) == written, f"black would change:\n{written}"
    assert ast.dump(ast.parse(written)) == ast.dump(ast.parse(_black(text)))
    if exactly:
        assert written == _black(text)
    return written


# --- shapes ------------------------------------------------------------------------------------

LONG = "A description long enough that the field line cannot fit in eighty-eight columns."


@pytest.mark.parametrize(
    "statement",
    [
        # fits: spacing and quotes as black writes them
        "x: Annotated[str, Field(description='short')] = None",
        "y: dict[str, list[int]] | None = {'a': [1, -2, 3.5, 1e-05]}",
        # a long annotation: the subscript's contents on one line below it
        f"note: Annotated[str | None, Field(description={'Shared team the owner linked.'!r})] = None",
        # ... unless the line up to `= (` fits: black wraps the default instead
        f"note: Annotated[str | None, Field(description={'The region recent owner.'!r})] = None",
        # contents too long for one line: one element per line, recursively
        f"name: Annotated[str | None, Field(description={LONG!r}, max_length=5, pattern='^a$')] = None",
        # a long union: black parenthesizes it
        "region: Literal['eu-west', 'eu-central', 'us-east', 'us-west', 'ap-south'] | None = None",
        # a lone long string: black cannot split it either
        f"value: Annotated[str, Field(description={(LONG * 2)!r})]",
        # a long call value with a lone argument: below the bracket, no comma
        "result = validate({'a': a, 'b': b, 'c': c, 'd': d, 'e': e, 'f': f, 'g': g, 'h': h, 'i': i, 'j': j})",
        # a magic trailing comma keeps a split that would fit
        "model_config = ConfigDict(\n    extra='allow',\n    populate_by_name=True,\n)",
    ],
)
def test_statements_are_written_as_black_writes_them(statement: str) -> None:
    _assert_written_like_black(f"class Model(BaseModel):\n{textwrap.indent(statement, '    ')}\n")


@pytest.mark.parametrize("length", [5, 38, 60, 90])
def test_a_long_call_then_an_attribute_is_split_at_the_call_s_bracket(length: int) -> None:
    """The typed client's `return _client.output_value(...).root`: without it a 1,000-tool
    package sent 750 statements to black."""
    name = "list_" + "x" * length
    _assert_written_like_black(
        f"def f():\n    return _client.output_value({name!r}, result, _models.Out, wrapped=True).root\n"
        f"    x = _client.output_value({name!r}, [1, 2], {{'a': {name!r}}}).root\n"
    )
    # A long chain of calls is black's to split: which bracket it picks there depends on more.
    chain = f"def f():\n    return a.b({name!r}).c({name!r}, d).root\n"
    _assert_written_like_black(chain, by_black=int(len(chain.splitlines()[1]) > 88))


def test_a_long_signature_goes_below_the_parenthesis_or_one_parameter_per_line() -> None:
    text = textwrap.dedent(
        """\
        class Client:
            async def short(self, *, a: int, b: str | None = None) -> Output:
                return await self.call('short', a=a, b=b)

            async def together(self, arguments: SuggestGiftsInputArguments, context: Context) -> Out:
                \"\"\"Call tool `together`.\"\"\"

            async def apart(self, *, invoice_id: str, title: str, mode: Literal['thorough', 'batch', 'lenient'], amount: int | float, region: Literal['eu-west', 'eu-central', 'us-east', 'us-west', 'ap-south'] | None = None, on_progress: ProgressFnT | None = None) -> CreateInvoice00000Output:
                arguments = _models.CreateInvoice00000Input.model_validate({'invoice_id': invoice_id, 'title': title, 'mode': mode, 'amount': amount, **_client.present({'region': region})})
                result = await self.client.call_tool('create_invoice_00000', _client.to_json(arguments), progress_callback=on_progress)
                return _models.CreateInvoice00000Output.model_validate(value)

            def alone(self, a_single_parameter_with_a_long_name_and_annotation: SomeVeryLongTypeName) -> None:
                pass
        """
    )
    _assert_written_like_black(text)


def test_module_layout_comments_docstrings_and_blank_lines() -> None:
    text = textwrap.dedent(
        '''\
        # Generated by mcpgen. DO NOT EDIT.
        """The module docstring.

        More text, and a line that is long enough to push the closing quotes past the limit ok
        """

        from __future__ import annotations
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from .models import Address, ApproveCustomer00026Input, ApproveCustomer00026Output, Money
        # Where each name is defined.
        _MODULES = {'Address': '_shared', 'Money': '_shared'}
        __all__ = ['Address', 'Money']
        def __getattr__(name: str) -> object:
            module = _MODULES.get(name)
            if module is None:
                raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
            return getattr(_import_module(f"{__name__}.{module}"), name)
        class Handlers(ABC):
            """Business logic."""
            @abstractmethod
            async def suggest(self, args: SuggestInput, ctx: Context) -> SuggestOutput:
                """Tool `suggest`.

                Raise `ToolError` for a business failure.
                """
        '''
    )
    _assert_written_like_black(text)


def test_what_it_does_not_write_goes_to_black_statement_by_statement() -> None:
    text = textwrap.dedent(
        """\
        def f(value: object) -> None:
            globals()['x'] = value  # a comment after code
            y = value[1:2]
            return None
        """
    )
    written = _assert_written_like_black(text, by_black=2)
    assert "# a comment after code" in written


def test_strings_keep_their_meaning() -> None:
    values = ["it's", 'say "hi"', "both ' and \"", "back\\slash", "tab\tnew\nline", "\u2028", "日本語", "\x00"]
    text = "".join(f"v{index} = {value!r}\n" for index, value in enumerate(values))
    _assert_written_like_black(text)


# --- random model statements -------------------------------------------------------------------

_names = st.sampled_from(["name", "value", "a", "very_long_field_name_for_a_field", "x1"])
_texts = st.text(
    alphabet=st.sampled_from([*"abc xyz-.", "'", '"', "\\", "\n", "é", "日", "\u2028", "#"]), max_size=120
)
_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**12), 10**12), st.floats(allow_nan=False, allow_infinity=False), _texts
)


def _type() -> st.SearchStrategy[str]:
    base = st.sampled_from(["str", "int", "float", "Money", "AddressWithAVeryLongName", "Any"])
    literal = st.lists(_texts, min_size=1, max_size=6).map(lambda items: f"Literal[{', '.join(map(repr, items))}]")
    return st.recursive(
        st.one_of(base, literal),
        lambda inner: st.one_of(
            inner.map(lambda t: f"list[{t}]"),
            st.tuples(inner, inner).map(lambda pair: f"dict[{pair[0]}, {pair[1]}]"),
            inner.map(lambda t: f"{t} | None"),
        ),
        max_leaves=4,
    )


@st.composite
def _field(draw: st.DrawFn) -> str:
    annotation = draw(_type())
    keywords = draw(
        st.dictionaries(
            st.sampled_from(["description", "alias", "pattern", "max_length", "ge", "examples"]),
            st.one_of(_scalars, st.lists(_scalars, max_size=4)),
            max_size=3,
        )
    )
    if keywords:
        annotation = f"Annotated[{annotation}, Field({', '.join(f'{key}={value!r}' for key, value in keywords.items())})]"
    default = draw(st.one_of(st.just(""), _scalars.map(lambda value: f" = {value!r}")))
    return f"    {draw(_names)}: {annotation}{default}"


@st.composite
def _model(draw: st.DrawFn) -> str:
    docstring = draw(st.one_of(st.just(""), _texts.filter(lambda t: '"""' not in t and "\\" not in t and t.strip())))
    lines = [f"class {draw(st.sampled_from(['Model', 'SuggestGiftsInputOptionsFilter']))}(BaseModel):"]
    if docstring:
        lines.append(f'    """\n    {docstring.strip()}\n    """')
    lines += draw(st.lists(_field(), min_size=1, max_size=5))
    return "\n".join(lines) + "\n"


@pytest.mark.slow  # 300 random modules through black: about 10 s of CPU
@settings(
    max_examples=int(os.environ.get("MCPGEN_BLACK_STYLE_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(_model())
def test_random_models_are_black_clean_and_mean_the_same(text: str) -> None:
    written, _ = _written(text)
    assert _black(written) == written, f"black would change:\n{written}"
    # The same syntax tree as black's own result (black re-indents docstrings, too).
    assert ast.dump(ast.parse(written)) == ast.dump(ast.parse(_black(text)))


# --- whole packages ------------------------------------------------------------------------------


def _python_files(files: dict[str, bytes]) -> dict[str, str]:
    return {name: content.decode() for name, content in files.items() if name.endswith(".py")}


@pytest.mark.slow
@pytest.mark.parametrize("tools", [100, 500])
def test_benchmark_packages_are_black_clean(tmp_path: Path, tools: int) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from specs import write_spec
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    built = pipeline.build(write_spec(tmp_path, tools), allow_outside=True)
    for name, text in _python_files(built.files).items():
        assert _black(text) == text, name


@pytest.mark.slow
def test_the_json_schema_suites_packages_are_black_clean(tmp_path: Path) -> None:
    """The suite's specs, as tests/test_jsonschema_suite.py builds them: odd names, values
    and shapes. A file whose spec the build refuses is that test's business."""
    from test_jsonschema_suite import FILES, load_suite_file, spec_text

    checked = 0
    for name in FILES:
        spec = tmp_path / name.replace("/", "_").replace(".json", ".yaml")
        spec.write_text(spec_text(load_suite_file(name)), encoding="utf-8")
        try:
            built = pipeline.build(spec, allow_outside=True)
        except (pipeline.SpecError, pipeline.UsageError):
            continue
        for module, text in _python_files(built.files).items():
            assert _black(text) == text, f"{name}: {module}"
        checked += 1
    assert checked >= len(FILES) - 5


@pytest.mark.slow  # builds two specs both ways
def test_stand_ins_for_shared_definitions_leave_the_models_unchanged(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Groups see shared classes they only point at as stand-ins (models/model_groups.py); the
    models must be those made from the definitions themselves, for every way to point."""
    monkeypatch.setenv("MCPGEN_CACHE_DIR", str(tmp_path / "cache"))
    for spec in [ROOT / "tests" / "model_stand_ins" / "references.yaml", ROOT / "specs" / "kitchen_sink.yaml"]:
        built = {}
        for stand_ins in (True, False):
            context = replace(fast_context(), model_generator=FastModelGenerator(stand_ins=stand_ins))
            built[stand_ins] = pipeline.build(spec, allow_outside=True, context=context).files
        assert built[True].keys() == built[False].keys()
        differ = [name for name in built[True] if built[True][name] != built[False][name]]
        assert differ == [], f"{spec.name}: {differ}"


@pytest.mark.slow  # four builds of each spec: 1 to 3 s of CPU a spec, 20 s for the benchmark's
@pytest.mark.parametrize("spec", ["tests/model_stand_ins/batches.yaml", "tests/model_stand_ins/references.yaml", "specs/kitchen_sink.yaml", "specs/conformance.yaml", "benchmark:100"])
def test_batched_groups_leave_the_models_unchanged(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, spec: str) -> None:
    """Groups are generated in batches and cut apart again (models/model_batches.py); the models must
    be those of a run per group: with batches as the spec sets them, with everything that
    fits in one batch, and when no batch cuts cleanly (every group then runs alone)."""
    if spec.startswith("benchmark:"):
        sys.path.insert(0, str(ROOT / "benchmarks"))
        try:
            from specs import write_spec
        finally:
            sys.path.remove(str(ROOT / "benchmarks"))
        path = write_spec(tmp_path, int(spec.partition(":")[2]))
    else:
        path = ROOT / spec
    cuts: list[bool] = []
    cut = model_batches._cut

    def recorded(output: model_statements.Generated, groups: list[dict[str, object]]) -> list[model_statements.Generated] | None:
        parts = cut(output, groups)  # type: ignore[arg-type]
        cuts.append(parts is not None)
        return parts

    monkeypatch.setattr(model_batches, "_cut", recorded)
    variants: dict[str, tuple[int | None, bool]] = {  # groups per batch, and whether batches may be cut
        "alone": (None, True),
        "by the spec": (model_batches.BATCH_TARGET, True),
        "as large as they fit": (10**9, True),
        "never cut": (10**9, False),
    }
    built = {}
    for variant, (batch_target, cut_apart) in variants.items():
        with monkeypatch.context() as patch:
            patch.setenv("MCPGEN_CACHE_DIR", str(tmp_path / variant))
            if not cut_apart:  # every batch refused: its groups then run one by one
                patch.setattr(model_batches, "_cut", lambda output, groups: None)
            context = replace(fast_context(), model_generator=FastModelGenerator(batch_target=batch_target))
            built[variant] = pipeline.build(path, allow_outside=True, context=context).files
    for variant in variants:
        assert built[variant].keys() == built["alone"].keys()
        differ = [name for name in built[variant] if built[variant][name] != built["alone"][name]]
        assert differ == [], f"{spec}, {variant}: {differ}"
    assert any(cuts), "no batch of several groups was cut apart"


def test_a_batch_that_does_not_cut_cleanly_is_refused() -> None:
    """What the batch output must show for its groups' parts to be theirs alone."""
    class_ = "class {0}(BaseModel):\n    x: int"
    statement = lambda name, uses=(): model_statements.Statement(name, class_.format(name), frozenset(uses))  # noqa: E731
    groups: list[dict[str, object]] = [{"AInput": {}}, {"BInput": {}}]
    imports = (("pydantic", ("BaseModel",)),)
    clean = model_statements.Generated(imports, (statement("AInputX"), statement("AInput", ["AInputX"]), statement("BInput")))
    parts = model_batches._cut(clean, groups)  # type: ignore[arg-type]
    assert parts is not None and [[s.name for s in part.statements] for part in parts] == [["AInputX", "AInput"], ["BInput"]]
    renamed_import = model_statements.Generated((("pydantic", ("BaseModel", "Field as Field_1")),), clean.statements)
    not_named_after_its_definition = model_statements.Generated(imports, (statement("Other"), statement("AInput", ["Other"]), statement("BInput")))
    reaching_another_group = model_statements.Generated(imports, (statement("AInput", ["BInput"]), statement("BInput")))
    nobody_s = model_statements.Generated(imports, (*clean.statements, statement("Orphan")))
    for output in (renamed_import, not_named_after_its_definition, reaching_another_group, nobody_s):
        assert model_batches._cut(output, groups) is None  # type: ignore[arg-type]


@pytest.mark.slow
def test_hostile_spec_text_stays_black_clean(tmp_path: Path) -> None:
    """Spec text that ends in quotes, holds triple quotes, backslashes, line breaks of every
    kind, wide characters, `#` and NUL reaches docstrings, `Field(description=...)`,
    defaults, enums and examples; every module stays black-clean and compiles."""
    import json

    texts = [
        'ends with a quote"', '"starts with a quote', 'triple """ inside', "back\\slash\\",
        "tab\tand\nnewline\r\nCR", "\u2028separator", "日本語の説明" * 20, "# not a comment",
        "x" * 200, "'single' and \"double\"", "\\N{BULLET}", "\x00nul", "' or 1=1 --",
    ]  # fmt: skip
    tools = {
        f"t{index}": {
            "description": text,
            "inputSchema": {
                "type": "object",
                "description": text,
                "properties": {
                    "a": {"type": "string", "description": text, "default": text, "enum": [text, "b"]},
                    "c": {"type": "string", "examples": [text]},
                },
            },
            "outputSchema": {"type": "object", "title": text[:10], "properties": {"r": {"type": "string", "description": text}}},
        }
        for index, text in enumerate(texts)
    }
    spec = tmp_path / "spec.yaml"
    document = {
        "mcpgen": 1,
        "server": {"name": "hostile", "version": "1.0.0", "instructions": texts[0]},
        "definitions": {"D": {"type": "object", "description": texts[2], "properties": {"x": {"type": "integer", "description": texts[3]}}}},
        "tools": tools,
    }
    spec.write_text(json.dumps(document), encoding="utf-8")
    built = pipeline.build(spec, allow_outside=True)
    for name, text in _python_files(built.files).items():
        compile(text, name, "exec")
        assert _black(text) == text, name
