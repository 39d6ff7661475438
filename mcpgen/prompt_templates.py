"""Prompt message templates: text with `{{ argument }}` placeholders.

Only plain placeholders are allowed. Generated servers substitute them in one pass,
so an argument value is always data: a `{{` inside a value is printed, never evaluated.
"""

from __future__ import annotations

import re

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_TEMPLATE_SYNTAX = re.compile(r"\{\{|\}\}|\{%|%\}|\{#|#\}")


class PromptTemplateError(ValueError):
    pass


def placeholders(text: str) -> list[str]:
    """The argument names a message template uses; raises PromptTemplateError on other syntax."""
    leftover = PLACEHOLDER.sub("", text)
    found = _TEMPLATE_SYNTAX.search(leftover)
    if found:
        raise PromptTemplateError(f"unsupported template syntax '{found.group()}'")
    return list(dict.fromkeys(PLACEHOLDER.findall(text)))
