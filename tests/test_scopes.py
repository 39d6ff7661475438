"""Each generated module's `Scope` (mcpgen.bind) holds every name the module binds.

The scopes are what a name from the spec yields to (a shared definition's class, a client
method's keyword), so a name a template or the runtime binds that the scope misses could
be shadowed. These tests read the generated modules of the committed specs (tests may
parse output) and compare what they bind with the scopes the binding stage built.
"""

from __future__ import annotations

import ast

import pytest
from helpers import ROOT

from mcpgen.bind.api import PythonApi
from mcpgen.names import module_names, naming
from mcpgen.names.module_names import Scope
from mcpgen.services.pipeline import Build

SPECS = ("gift_server", "conformance", "kitchen_sink")


def _bound(statements: list[ast.stmt]) -> set[str]:
    """The names these statements bind at their level (imports inside `if TYPE_CHECKING:` too)."""
    names: set[str] = set()
    for node in statements:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(n.id for target in node.targets for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.If):
            names |= _bound(node.body) | _bound(node.orelse)
    return names


def _locals(function: ast.AsyncFunctionDef | ast.FunctionDef) -> set[str]:
    """What a method binds beside its arguments."""
    return {
        node.id
        for node in ast.walk(function)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }


@pytest.fixture(scope="module", params=SPECS)
def built(request: pytest.FixtureRequest) -> Build:
    built: Build = request.getfixturevalue(f"{request.param}_build")  # conftest.py: once a session
    return built


def _python(result: Build) -> PythonApi:
    assert result.python is not None
    return result.python


def _tree(result: Build, name: str) -> ast.Module:
    return ast.parse(result.files[name].decode())


@pytest.mark.parametrize("module", ["handlers.py", "client.py", "server.py", "__init__.py"])
def test_every_name_a_module_binds_is_in_its_scope(built: Build, module: str) -> None:
    scope = _python(built).scopes[module]
    assert _bound(_tree(built, module).body) - scope.names == set()


def test_every_name_the_models_bind_is_in_their_scope(built: Build) -> None:
    scope = _python(built).scopes["models"]
    modules = [name for name in built.files if name.startswith("models/")]
    assert modules
    for name in modules:
        assert _bound(_tree(built, name).body) - scope.names == set(), name


def test_client_methods_bind_only_their_arguments_and_the_scope_s_method_names(built: Build) -> None:
    python = _python(built)
    scope = python.scopes["client.py"]
    client = next(
        node for node in _tree(built, "client.py").body if isinstance(node, ast.ClassDef) and node.name == python.client_class
    )
    bound = {method.name: method for method in python.client}
    checked = 0
    for node in client.body:
        if isinstance(node, ast.AsyncFunctionDef) and node.name in bound:
            arguments = {p.name for p in bound[node.name].parameters}
            assert _locals(node) - arguments - scope.method_names == set(), node.name
            # No keyword takes a name the module binds: it would shadow it in the body.
            keywords = {p.name for p in bound[node.name].keywords}
            assert keywords & scope.names == set(), node.name
            checked += 1
    assert checked == len(python.client)


def test_a_keyword_that_would_take_a_bound_name_is_renamed() -> None:
    scope = Scope("client.py", frozenset({"Any", "result"}), frozenset({"self"}))
    assert scope.free("budget", set()) == "budget"
    assert scope.free("self", set()) == "self_"
    assert scope.free("result", {"result_"}) == "result__"


def test_the_reserved_model_names_are_what_generated_modules_bind() -> None:
    """A shared definition's class yields to every name a module may bind, and only to those."""
    every = frozenset().union(*(module.names for module in module_names.GENERATED_MODULES))
    assert naming.RESERVED_MODEL_NAMES == every
    assert {"Context", "Handlers", "BaseModel", "UriTemplate", "ToolBinding"} <= naming.RESERVED_MODEL_NAMES
    assert naming.definition_model("Handlers") == "HandlersModel"


def test_every_runtime_name_a_module_imports_is_one_the_runtime_defines() -> None:
    """The tables name the runtime's modules and names; each is bound where they say."""
    runtime = ROOT / "mcpgen" / "runtime"
    for names in module_names.GENERATED_MODULES:
        for item in names.imports:
            if item.module.startswith("._runtime."):
                source = (runtime / f"{item.module.removeprefix('._runtime.')}.py").read_text()
                assert item.name in _bound(ast.parse(source).body), f"{names.module}: {item}"
            elif item.module == "._runtime":
                assert (runtime / f"{item.name}.py").is_file(), f"{names.module}: {item}"
