"""Import blocks for generated modules, collected as code is planned and printed isort-style.

The order is the one ruff's isort rules (I001) expect with default settings, so generated
packages pass `ruff check` as they are: `__future__`, standard library, third party and
the package's own modules, each section with plain imports first, modules compared
without case, and imported names as constants, then classes, then the rest.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field


def _name_key(name: str) -> tuple[int, str]:
    if name.isupper() and len(name) > 1:
        kind = 0
    elif name[:1].isupper():
        kind = 1
    else:
        kind = 2
    return kind, name.lower()


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
        for module in sorted(self._plain, key=str.lower):
            sections.setdefault(_section(module.split(" ")[0]), []).append(f"import {module}")
        for module in sorted(self._from, key=lambda m: m.lower()):
            names = ", ".join(sorted(self._from[module], key=_name_key))
            sections.setdefault(_section(module), []).append(f"from {module} import {names}")
        return "\n\n".join("\n".join(lines) for _, lines in sorted(sections.items()))
