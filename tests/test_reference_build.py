"""The fast build equals the reference build, byte for byte.

The reference build (`mcpgen build --reference`, mcpgen/models/context.py) formats with black
on each whole module and makes the models with one datamodel-code-generator run over every
schema of the spec; the fast build writes black's style itself and generates the models in
cached batches of groups, with stand-ins, on worker processes. Both must give the same
files and manifest for every committed spec, the corpus servers' specs, specs written to
make the generator's names clash, and random valid specs.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import CORPUS, ROOT, corpus_spec, run_mcpgen, write_spec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fuzz import specs as valid_specs
from test_jsonschema_suite import yaml_json

from mcpgen.models.assembly import FastModelGenerator
from mcpgen.models.context import BuildContext
from mcpgen.models.run import fast_context, reference_context
from mcpgen.services import pipeline

Json = Any

COMMITTED_SPECS = sorted(
    [
        *(ROOT / "specs").glob("*.yaml"),
        *(ROOT / "tests" / "model_stand_ins").glob("*.yaml"),
        *(ROOT / "tests" / "lint_cases").glob("*/*.yaml"),
    ]
)


def _built(spec: Path, context: BuildContext) -> pipeline.Build | None:
    """The build of `spec`, None when the spec does not build (a lint case may not)."""
    try:
        return pipeline.build(spec, allow_outside=True, context=context)
    except (pipeline.SpecError, pipeline.UsageError):
        return None


def assert_same_build(spec: Path, fast: BuildContext | None = None) -> bool:
    """The fast build of `spec` and its reference build are the same bytes; False when the
    spec does not build (then the reference build must refuse it too)."""
    built = _built(spec, fast or fast_context())
    reference = _built(spec, reference_context())
    if built is None or reference is None:
        assert built is reference is None, f"{spec.name}: only one of the builds refused the spec"
        return False
    assert built.files.keys() == reference.files.keys()
    differ = [name for name in built.files if built.files[name] != reference.files[name]]
    assert differ == [], f"{spec.name}: {differ}"
    assert built.manifest == reference.manifest
    return True


@pytest.fixture(autouse=True)
def _own_cache(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A cache of this module's own, so that the fast build really generates and formats."""
    monkeypatch.setenv("MCPGEN_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "reference-build-cache"))


@pytest.mark.slow
@pytest.mark.parametrize("spec", COMMITTED_SPECS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_committed_spec_builds_the_same_both_ways(spec: Path) -> None:
    built = assert_same_build(spec)
    assert built or "lint_cases" in spec.parts


def test_the_example_builds_the_same_both_ways_with_no_cache_and_no_workers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MCPGEN_CACHE_DIR", str(tmp_path / "cache"))
    assert assert_same_build(ROOT / "specs" / "gift_server.yaml", fast_context().with_options(use_cache=False, workers=False))
    # Only where the package goes, for the next no-op rebuild: no models, no formatted text.
    assert sorted(path.name for path in (tmp_path / "cache").iterdir()) == ["package-directories"]


@pytest.mark.slow
@pytest.mark.parametrize("server", sorted(path.stem for path in CORPUS.glob("*.json")))
def test_the_corpus_servers_specs_build_the_same_both_ways(server: str, tmp_path: Path) -> None:
    capture = json.loads((CORPUS / f"{server}.json").read_text(encoding="utf-8"))
    spec = tmp_path / f"{server}.yaml"
    spec.write_text(yaml.safe_dump(corpus_spec(capture, f"corpus_{server}"), sort_keys=False, allow_unicode=True), encoding="utf-8")
    assert assert_same_build(spec)


# Where one run over the whole spec makes one class for equal schemas of two tools (a class
# named after a property, for an `allOf` merged into the property's object), the reference
# build puts every model in `_shared` (models/model_owners.py); the fast build, whose groups
# each make their own, gives each tool its module.
SHARED_ACROSS_TOOLS = {"unevaluatedProperties.json"}


@pytest.mark.slow
def test_the_json_schema_suites_specs_build_the_same_both_ways(tmp_path: Path) -> None:
    from test_jsonschema_suite import FILES, load_suite_file, spec_text

    compared = 0
    for name in FILES:
        spec = tmp_path / name.replace("/", "_").replace(".json", ".yaml")
        spec.write_text(spec_text(load_suite_file(name)), encoding="utf-8")
        if name in SHARED_ACROSS_TOOLS:
            shared = pipeline.build(spec, allow_outside=True, context=reference_context()).files["models/_shared.py"]
            assert b"generated together" in shared
        else:
            compared += assert_same_build(spec)
    assert compared >= len(FILES) - 6  # the specs the build refuses are test_jsonschema_suite's business


@pytest.mark.slow
def test_the_benchmark_spec_builds_the_same_both_ways(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from specs import write_spec as write_benchmark_spec
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert assert_same_build(write_benchmark_spec(tmp_path, 100))


class WholeRunAlways(FastModelGenerator):
    """The fast generator as it is where its groups do not join (model_owners.py), on specs
    where they do."""

    def _joined_groups(self, *arguments: Any) -> None:
        return None


@pytest.mark.slow
@pytest.mark.parametrize(
    "generator",
    [
        FastModelGenerator(stand_ins=False),
        FastModelGenerator(batch_target=None),
        FastModelGenerator(batch_target=10**9),
        WholeRunAlways(),
    ],
    ids=["no stand-ins", "no batches", "batches as large as they fit", "groups that do not join"],
)
def test_every_way_of_the_fast_generator_builds_the_reference_models(generator: FastModelGenerator) -> None:
    fast = fast_context()
    for spec in ("tests/model_stand_ins/batches.yaml", "tests/model_stand_ins/references.yaml", "specs/kitchen_sink.yaml"):
        assert assert_same_build(ROOT / spec, BuildContext(fast.formatter, generator))


def test_a_nested_class_yields_its_name_to_the_model_the_ir_names(tmp_path: Path) -> None:
    """One run over the whole spec names tool `a`'s nested `b_input` AInputBInput before it
    meets tool `a_input_b`'s input, and its own class for that schema AInputBInput1; the
    reference build gives the IR's names back, as the fast one does."""
    spec = write_spec(
        tmp_path,
        """\
        mcpgen: 1
        server: {name: clash, version: "1"}
        tools:
          a:
            inputSchema:
              type: object
              properties:
                b_input: {type: object, properties: {x: {type: integer}}, required: [x]}
          a_input_b:
            inputSchema: {type: object, properties: {y: {type: string}}, required: [y]}
        """,
    )
    assert assert_same_build(spec)
    built = pipeline.build(spec, allow_outside=True, context=reference_context())
    assert "class AInputBInput(_Model):\n" in built.files["models/a_input_b.py"].decode()
    assert "class AInputBInput1(_Model):\n" in built.files["models/a.py"].decode()


def test_a_definition_only_tools_use_is_an_alias_both_ways(tmp_path: Path) -> None:
    """The generator folds a referred-to enum into the fields; over the whole spec a tool's
    reference counts, so the definition is a type alias, not a root model class."""
    spec = write_spec(
        tmp_path,
        """\
        mcpgen: 1
        server: {name: level, version: "1"}
        definitions:
          Level: {type: string, enum: [low, high]}
          Unused: {type: string, enum: [a, b]}
        tools:
          search:
            inputSchema: {type: object, properties: {level: {$ref: "#/definitions/Level"}}}
        """,
    )
    assert assert_same_build(spec)
    shared = pipeline.build(spec, allow_outside=True).files["models/_shared.py"].decode()
    assert 'Level: TypeAlias = Literal["low", "high"]' in shared
    assert "class Unused(RootModel[" in shared


# --- random specs --------------------------------------------------------------------------

# Names chosen to clash: a tool's nested object and another tool's model (a + b_input, a_input_b),
# a definition and a nested class (AInputB), prefixes of each other.
TOOL_NAMES = ["a", "a_input", "a_input_b", "b", "ab"]
PROPERTY_NAMES = ["b", "b_input", "input", "x", "items"]
DEFINITION_NAMES = ["AInputB", "B", "Input", "Level", "AInputBInput"]


def _schemas(definitions: list[str]) -> st.SearchStrategy[Json]:
    leaves = st.one_of(
        st.sampled_from([{"type": "string"}, {"type": "integer"}, {"type": "string", "enum": ["x", "y"]}]),
        *([st.sampled_from([{"$ref": f"#/definitions/{name}"} for name in definitions])] if definitions else []),
    )
    return st.recursive(
        leaves,
        lambda children: st.one_of(
            st.builds(lambda props: {"type": "object", "properties": props}, st.dictionaries(st.sampled_from(PROPERTY_NAMES), children, max_size=3)),
            st.builds(lambda items: {"type": "array", "items": items}, children),
            st.builds(lambda branches: {"anyOf": branches}, st.lists(children, min_size=2, max_size=2)),
        ),
        max_leaves=6,
    )


@st.composite
def clashing_specs(draw: Any) -> dict[str, Json]:
    definitions: dict[str, Json] = {}
    for name in draw(st.lists(st.sampled_from(DEFINITION_NAMES), unique=True, max_size=3)):
        definitions[name] = draw(_schemas(list(definitions)))
    tools: dict[str, Json] = {}
    for name in draw(st.lists(st.sampled_from(TOOL_NAMES), unique=True, min_size=1, max_size=4)):
        properties = draw(st.dictionaries(st.sampled_from(PROPERTY_NAMES), _schemas(list(definitions)), max_size=3))
        tool: dict[str, Json] = {"inputSchema": {"type": "object", "properties": properties}}
        if draw(st.booleans()):
            tool["outputSchema"] = draw(_schemas(list(definitions)))
        tools[name] = tool
    return {"mcpgen": 1, "server": {"name": "clashes", "version": "1"}, "definitions": definitions, "tools": tools}


def _examples(default: int) -> int:
    return int(os.environ.get("MCPGEN_FUZZ_EXAMPLES", default))


RANDOM = settings(
    max_examples=_examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    database=None,
)


@pytest.mark.slow
@RANDOM
@given(spec=clashing_specs())
def test_random_specs_with_clashing_names_build_the_same_both_ways(spec: dict[str, Json], tmp_path: Path) -> None:
    path = tmp_path / "clashes.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    assert_same_build(path)


@pytest.mark.slow
@RANDOM
@given(spec=valid_specs())
def test_random_valid_specs_build_the_same_both_ways(spec: dict[str, Json], tmp_path: Path) -> None:
    path = tmp_path / "fuzz.yaml"
    # JSON, which YAML 1.2 reads back exactly: PyYAML's dump (YAML 1.1) leaves a key such as
    # `1e100` plain, which a YAML 1.2 loader reads as a number.
    path.write_text(yaml_json(spec), encoding="utf-8")
    assert assert_same_build(path)


@pytest.mark.slow  # builds with the reference generator
def test_build_and_check_take_reference(tmp_path: Path) -> None:
    """`mcpgen build --reference` writes what `mcpgen build` writes; `check --reference` agrees."""
    spec = ROOT / "specs" / "gift_server.yaml"
    for name, options in (("fast", []), ("reference", ["--reference"])):
        result = run_mcpgen("build", str(spec), "-o", str(tmp_path / name), "--allow-outside-project", *options)
        assert result.returncode == 0, result.stderr
    fast, reference = (sorted((tmp_path / name).rglob("*")) for name in ("fast", "reference"))
    assert [path.relative_to(tmp_path / "fast") for path in fast] == [path.relative_to(tmp_path / "reference") for path in reference]
    for path in fast:
        if path.is_file():
            assert path.read_bytes() == (tmp_path / "reference" / path.relative_to(tmp_path / "fast")).read_bytes(), path
    check = run_mcpgen("check", str(spec), "-o", str(tmp_path / "fast"), "--allow-outside-project", "--reference")
    assert check.returncode == 0, check.stdout + check.stderr
