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

BASE_MODULE = "_base"
BASE_CLASS = "_Model"  # private: no name of the spec's, nor one the generator makes, starts with "_"


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
    """The generator's module with its classes on the shared base (see above).

    Read line by line, as the generator lays a class out (no parse: this runs on every
    generator run): a class line at the start of a line (nothing else in the module
    starts one: docstrings and field lines are indented, other strings are on one line),
    its docstring if any, then its `model_config = ConfigDict(` with one setting a line.
    A class laid out otherwise keeps its config, which is then merely repeated."""
    if "(BaseModel):" not in source:
        return source
    lines = source.split("\n")
    kept: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line.startswith("class "):
            kept.append(line)
            continue
        line = line.removesuffix("(BaseModel):") + f"({BASE_CLASS}):" if line.endswith("(BaseModel):") else line
        kept.append(line)
        if index < len(lines) and lines[index].startswith(_INDENT + '"""'):
            end = index if lines[index].count('"""') > 1 else _closing(lines, index + 1)
            kept += lines[index : end + 1]
            index = end + 1
        if index < len(lines) and lines[index] == _CONFIG_OPENS:
            closes = lines.index(_CONFIG_CLOSES, index)
            own = [setting for setting in lines[index + 1 : closes] if setting not in _SHARED_LINES]
            if own:
                kept += [_CONFIG_OPENS, *own, _CONFIG_CLOSES]
            empty = not own and kept[-1] is line  # no docstring, no setting of its own
            index = closes + 1
            if empty and (index == len(lines) or not lines[index].startswith(_INDENT)):
                kept.append(_INDENT + "pass")  # nothing else in the class
    return "\n".join(kept)


_INDENT = "    "
_CONFIG_OPENS = "    model_config = ConfigDict("
_CONFIG_CLOSES = "    )"
# The two settings as the generator writes them, one a line.
_SHARED_LINES = frozenset({"        extra='allow',", "        populate_by_name=True,"})


def _closing(lines: list[str], start: int) -> int:
    """The line that closes a docstring opened on the line before `start`."""
    for index in range(start, len(lines)):
        if '"""' in lines[index]:
            return index
    raise ValueError("a docstring the generator did not close")
