"""Import blocks for generated modules, collected as code is planned and printed isort-style.

The order is the one ruff's isort rules (I001) expect with default settings, so generated
packages pass `ruff check` as they are: `__future__`, standard library, third party and
the package's own modules, each section with plain imports first, modules compared
without case, and imported names as constants, then classes, then the rest; a name
imported under an alias in a statement of its own.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass, field

# A token of `_natural_key`: a character, or a run of digits. A run's first item is a digit
# (`"0"` for a run with a leading zero, else `"1"`), so it compares with a character exactly
# as its own first digit would: no other character lies between "0" and "1".
_Token = tuple[str] | tuple[str, int, str]
_RUN = re.compile(r"[0-9]+|\S")


@functools.cache
def _natural_key(text: str) -> tuple[_Token, ...]:
    """Ruff's string order (the `natord` crate, after strnatcmp) as a sort key: runs of
    digits compare as numbers (`P7` before `P18`), a run with a leading zero digit by digit
    (as text, so before any run without one); whitespace is skipped. Computed once per name,
    where comparing pairs would walk both strings at every step of a sort."""
    tokens: list[_Token] = []
    for match in _RUN.finditer(text):
        token = match[0]
        if not token.isdigit() or not "0" <= token[0] <= "9":
            tokens.append((token,))
        elif token[0] == "0":
            tokens.append(("0", 0, token))
        else:
            tokens.append(("1", len(token), token))
    return tuple(tokens)


def _kind(name: str) -> int:
    if name.isupper() and len(name) > 1:
        return 0  # a constant
    return 1 if name[:1].isupper() else 2  # a class, or anything else


def _name_key(name: str) -> tuple[int, tuple[_Token, ...], tuple[_Token, ...]]:
    """Imported names as ruff orders them: constants, classes, the rest; each without case, then with."""
    return _kind(name), _natural_key(name.lower()), _natural_key(name)


def _module_key(module: str) -> tuple[tuple[_Token, ...], tuple[_Token, ...]]:
    return _natural_key(module.lower()), _natural_key(module)


def _statements(names: set[str]) -> list[str]:
    """The names imported from one module, as ruff groups them (`combine-as-imports` off):
    the plain names in one statement, each `name as alias` in one of its own, the statements
    ordered by their first name (a plain one before an alias of the same name)."""
    plain = sorted((name for name in names if " as " not in name), key=_name_key)
    statements = [(plain[0], "", ", ".join(plain))] if plain else []
    for name in names:
        if " as " in name:
            original, _, alias = name.partition(" as ")
            statements.append((original, alias, name))
    statements.sort(key=lambda statement: (_name_key(statement[0]), _module_key(statement[1])))
    return [text for _, _, text in statements]


def _section(module: str) -> int:
    if module == "__future__":
        return 0
    if module.startswith("."):
        return 3
    return 1 if module.split(".")[0] in sys.stdlib_module_names else 2


@dataclass
class Imports:
    # module -> names imported from it; "" stands for a plain `import module [as alias]`
    _from: dict[str, set[str]] = field(default_factory=dict)
    _plain: set[str] = field(default_factory=set)

    def add(self, module: str, *names: str) -> Imports:
        """`from module import names`; without names, `import module` (`"mcp_types as types"` works)."""
        if names:
            self._from.setdefault(module, set()).update(names)
        else:
            self._plain.add(module)
        return self

    def render(self) -> str:
        sections: dict[int, list[str]] = {}
        for module in sorted(self._plain, key=_module_key):
            sections.setdefault(_section(module.split(" ")[0]), []).append(f"import {module}")
        for module in sorted(self._from, key=_module_key):
            lines = sections.setdefault(_section(module), [])
            lines += [f"from {module} import {names}" for names in _statements(self._from[module])]
        return "\n\n".join("\n".join(lines) for _, lines in sorted(sections.items()))

    def render_for_type_checking(self) -> str:
        """The imports only a type checker reads (annotations, under `from __future__ import
        annotations`), in an `if TYPE_CHECKING:` block; empty when there are none."""
        if not self._from and not self._plain:
            return ""
        lines = self.render().split("\n")
        return "if TYPE_CHECKING:\n" + "\n".join(f"    {line}" if line else "" for line in lines)
