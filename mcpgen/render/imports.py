"""Import blocks for generated modules, collected as code is planned and printed isort-style.

The order is the one ruff's isort rules (I001) expect with default settings, so generated
packages pass `ruff check` as they are: `__future__`, standard library, third party and
the package's own modules, each section with plain imports first, modules compared
without case, and imported names as constants, then classes, then the rest; a name
imported under an alias in a statement of its own.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field


def _natural(a: str, b: str) -> int:
    """Ruff's string order (the `natord` crate, after strnatcmp): runs of digits compare as
    numbers (`P7` before `P18`), a run with a leading zero digit by digit; whitespace is skipped."""
    i = j = 0
    while True:
        while i < len(a) and a[i].isspace():
            i += 1
        while j < len(b) and b[j].isspace():
            j += 1
        if i < len(a) and j < len(b) and _digit(a[i]) and _digit(b[j]):
            end_a, end_b = _digits_end(a, i), _digits_end(b, j)
            run_a, run_b = a[i:end_a], b[j:end_b]
            if a[i] == "0" or b[j] == "0":  # fractional: digit by digit, the shorter run first
                for x, y in zip(run_a, run_b, strict=False):
                    if x != y:
                        return -1 if x < y else 1
                if len(run_a) != len(run_b):
                    return -1 if len(run_a) < len(run_b) else 1
            elif len(run_a) != len(run_b):  # whole numbers: the longer run is bigger
                return -1 if len(run_a) < len(run_b) else 1
            elif run_a != run_b:
                return -1 if run_a < run_b else 1
            i, j = end_a, end_b
            continue
        if i >= len(a) or j >= len(b):
            return (i < len(a)) - (j < len(b))
        if a[i] != b[j]:
            return -1 if a[i] < b[j] else 1
        i += 1
        j += 1


def _digit(char: str) -> bool:
    return "0" <= char <= "9"


def _digits_end(text: str, start: int) -> int:
    end = start
    while end < len(text) and _digit(text[end]):
        end += 1
    return end


def _kind(name: str) -> int:
    if name.isupper() and len(name) > 1:
        return 0  # a constant
    return 1 if name[:1].isupper() else 2  # a class, or anything else


def _compare_names(a: str, b: str) -> int:
    """Imported names as ruff orders them: constants, classes, the rest; each without case, then with."""
    return _kind(a) - _kind(b) or _natural(a.lower(), b.lower()) or _natural(a, b)


def _compare_modules(a: str, b: str) -> int:
    return _natural(a.lower(), b.lower()) or _natural(a, b)


_NAME_KEY = functools.cmp_to_key(_compare_names)


def _statements(names: set[str]) -> list[str]:
    """The names imported from one module, as ruff groups them (`combine-as-imports` off):
    the plain names in one statement, each `name as alias` in one of its own, the statements
    ordered by their first name (a plain one before an alias of the same name)."""
    plain = sorted((name for name in names if " as " not in name), key=_NAME_KEY)
    statements = [(plain[0], "", ", ".join(plain))] if plain else []
    for name in names:
        if " as " in name:
            original, _, alias = name.partition(" as ")
            statements.append((original, alias, name))
    statements.sort(key=lambda statement: (_NAME_KEY(statement[0]), _MODULE_KEY(statement[1])))
    return [text for _, _, text in statements]
_MODULE_KEY = functools.cmp_to_key(_compare_modules)


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
        for module in sorted(self._plain, key=_MODULE_KEY):
            sections.setdefault(_section(module.split(" ")[0]), []).append(f"import {module}")
        for module in sorted(self._from, key=_MODULE_KEY):
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
