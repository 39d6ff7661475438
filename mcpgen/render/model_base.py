"""One base class carries the configuration every model shares (`models/_base.py`).

datamodel-code-generator, told that every model keeps undeclared properties and takes
fields by name (`extra_fields="allow"`, `allow_population_by_field_name`), repeats
`model_config = ConfigDict(extra="allow", populate_by_name=True)` in each class. Its own
option for a common base (`use_generic_base_class`) defines the base in every module it
writes, and then lets `additionalProperties: false` forbid extra fields again. So its
output is changed before anything else reads it (`on_shared_base`): a class based on
`BaseModel` is based on `_Model` instead, and those two settings leave each class's
`model_config`, which goes when nothing else is in it (pydantic merges a class's config
with its bases'). A root model (`RootModel[...]`) has no such config and keeps its base.
"""

from __future__ import annotations

import ast

BASE_MODULE = "_base"
BASE_CLASS = "_Model"  # private: no name of the spec's, nor one the generator makes, starts with "_"

# What the base says once for every model.
_SHARED_SETTINGS = {"extra": "allow", "populate_by_name": True}


def base_module(header: str) -> str:
    """`models/_base.py`, black-clean as it is."""
    return (
        f"{header}\n"
        '"""The base of every model class of the package: the configuration they share."""\n'
        "\n"
        "from __future__ import annotations\n"
        "\n"
        "from pydantic import BaseModel, ConfigDict\n"
        "\n"
        "\n"
        f"class {BASE_CLASS}(BaseModel):\n"
        '    """Keeps the properties a schema allows but does not declare (the server checks\n'
        "    arguments against the spec's own schema), and takes each field by its Python name\n"
        '    as well as by its name on the wire."""\n'
        "\n"
        '    model_config = ConfigDict(extra="allow", populate_by_name=True)\n'
    )


def on_shared_base(source: str) -> str:
    """The generator's module with its classes on the shared base (see above)."""
    if "BaseModel" not in source:
        return source
    lines = source.split("\n")
    for node in reversed(ast.parse(source).body):
        if isinstance(node, ast.ClassDef):
            _drop_shared_settings(node, lines)  # below the class line: done first
            _rebase(node, lines)
    return "\n".join(lines)


def _column(line: str, byte_offset: int) -> int:
    """A position the syntax tree gives in UTF-8 bytes, in characters of `line`."""
    return len(line.encode()[:byte_offset].decode())


def _rebase(node: ast.ClassDef, lines: list[str]) -> None:
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id == "BaseModel" and base.lineno == base.end_lineno:
            line = lines[base.lineno - 1]
            start, end = _column(line, base.col_offset), _column(line, base.end_col_offset or 0)
            lines[base.lineno - 1] = line[:start] + BASE_CLASS + line[end:]


def _is_shared(keyword: ast.keyword) -> bool:
    value = keyword.value
    return (
        keyword.arg in _SHARED_SETTINGS
        and isinstance(value, ast.Constant)
        and value.value == _SHARED_SETTINGS[keyword.arg]
    )


def _drop_shared_settings(node: ast.ClassDef, lines: list[str]) -> None:
    """The class's `model_config` without the shared settings: gone when nothing else is in
    it (`pass` when the class then has no statement left)."""
    for statement in node.body:
        if not (
            isinstance(statement, ast.Assign)
            and [ast.unparse(target) for target in statement.targets] == ["model_config"]
            and isinstance(statement.value, ast.Call)
            and ast.unparse(statement.value.func) == "ConfigDict"
            and not statement.value.args
        ):
            continue
        kept = [keyword for keyword in statement.value.keywords if not _is_shared(keyword)]
        if len(kept) == len(statement.value.keywords):
            return
        indent = " " * statement.col_offset
        if kept:
            replacement = [f"{indent}model_config = ConfigDict({', '.join(ast.unparse(each) for each in kept)})"]
        else:  # a class with nothing else in it (a docstring will do) still needs a statement
            replacement = [] if len(node.body) > 1 else [f"{indent}pass"]
        lines[statement.lineno - 1 : statement.end_lineno or statement.lineno] = replacement
        return

