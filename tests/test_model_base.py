"""One base class carries the configuration every model shares (models/model_base.py):
each model keeps the properties its schema allows without declaring them, and takes its
fields by Python name as well as by alias, without saying so in every class."""

from __future__ import annotations

import ast
import textwrap

from helpers import imported

from mcpgen.models.model_base import BASE_CLASS, on_shared_base
from mcpgen.services.pipeline import Build


def test_no_model_repeats_the_shared_configuration(kitchen_sink_build: Build) -> None:
    files = kitchen_sink_build.files
    models = {name: data.decode() for name, data in files.items() if name.startswith("models/")}
    assert f"class {BASE_CLASS}(BaseModel):" in models["models/_base.py"]
    classes = 0
    for name, source in models.items():
        if name == "models/_base.py":
            continue
        assert 'extra="allow"' not in source, name
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef):
                classes += 1
                bases = [ast.unparse(base) for base in node.bases]
                assert "BaseModel" not in bases, f"{name}: {node.name}"
    assert classes > 20


def test_the_models_behave_as_when_each_class_said_it(kitchen_sink_build: Build) -> None:
    with imported("kitchen_sink", kitchen_sink_build.directory.parent) as package:
        models = package.models
        by_name = models.PythonNamesInput(from_="a", class_=1)  # populate_by_name
        by_alias = models.PythonNamesInput.model_validate({"from": "a", "class": 1, "undeclared": True})
        assert by_name.from_ == by_alias.from_ == "a" and by_alias.class_ == 1
        assert by_alias.model_extra == {"undeclared": True}  # extra="allow"
        assert by_alias.model_dump(by_alias=True, exclude_unset=True) == {"from": "a", "class": 1, "undeclared": True}


def test_a_class_keeps_the_settings_of_its_own() -> None:
    """As the generator lays a class out: its docstring, then its config, a setting a line."""
    source = textwrap.dedent(
        """\
        from pydantic import BaseModel, ConfigDict, RootModel


        class Plain(BaseModel):
            model_config = ConfigDict(
                extra='allow',
                populate_by_name=True,
            )
            x: int


        class Empty(BaseModel):
            model_config = ConfigDict(
                extra='allow',
                populate_by_name=True,
            )


        class Documented(BaseModel):
            \"\"\"
            Mine: model_config = ConfigDict(
            \"\"\"
            model_config = ConfigDict(
                extra='allow',
                populate_by_name=True,
            )


        class Own(BaseModel):
            model_config = ConfigDict(
                extra='allow',
                populate_by_name=True,
                regex_engine="python-re",
            )
            y: str


        class Child(Plain):
            model_config = ConfigDict(
                extra='allow',
                populate_by_name=True,
            )
            z: int


        class Numbers(RootModel[list[int]]):
            root: list[int]
        """
    )
    classes = {node.name: node for node in ast.parse(on_shared_base(source)).body if isinstance(node, ast.ClassDef)}
    body = {name: [ast.unparse(statement) for statement in node.body] for name, node in classes.items()}
    bases = {name: [ast.unparse(base) for base in node.bases] for name, node in classes.items()}
    assert body == {
        "Plain": ["x: int"],
        "Empty": ["pass"],
        "Documented": ["'\\n    Mine: model_config = ConfigDict(\\n    '"],
        "Own": ["model_config = ConfigDict(regex_engine='python-re')", "y: str"],
        "Child": ["z: int"],
        "Numbers": ["root: list[int]"],
    }
    assert bases == {
        "Plain": [BASE_CLASS],
        "Empty": [BASE_CLASS],
        "Documented": [BASE_CLASS],
        "Own": [BASE_CLASS],
        "Child": ["Plain"],
        "Numbers": ["RootModel[list[int]]"],
    }
