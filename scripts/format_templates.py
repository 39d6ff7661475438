"""Reformat the preformatted runtime templates with mcpgen's fixed black settings.

    python scripts/format_templates.py

Builds do not run black on `_runtime`, `_context` and `_content` (they are the same for
every spec), so after editing one of their templates, run this; the golden test's black
check fails until you do.
"""

from __future__ import annotations

from pathlib import Path

from mcpgen.render.package import PREFORMATTED_MODULES
from mcpgen.render.environment import format_python

HEADER = '{% include "header.jinja" %}\n'
TEMPLATES = Path(__file__).resolve().parent.parent / "templates"

for module in PREFORMATTED_MODULES:
    path = TEMPLATES / f"{module}.jinja"
    text = path.read_text(encoding="utf-8")
    assert text.startswith(HEADER), f"{path} must start with {HEADER!r}"
    # The header is two comment lines; formatting the body alone gives the same result.
    formatted = HEADER + format_python("# header\n# header\n" + text[len(HEADER) :]).split("\n", 2)[2]
    if formatted != text:
        path.write_text(formatted, encoding="utf-8")
        print(f"{path}: reformatted")
