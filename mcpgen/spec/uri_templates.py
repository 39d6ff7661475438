"""The variables of an RFC 6570 URI template, for checking specs and naming parameters."""

from __future__ import annotations

import re

_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_OPERATORS = "+#./;?&"
_VARNAME = re.compile(r"^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$")
_MODIFIER = re.compile(r"(?::[1-9][0-9]{0,3}|\*)$")


class UriTemplateError(ValueError):
    pass


def template_variables(template: str) -> list[str]:
    """The variable names of `template`, in order; raises UriTemplateError if it is malformed."""
    stripped = _EXPRESSION.sub("", template)
    if "{" in stripped or "}" in stripped:
        raise UriTemplateError("unbalanced '{' or '}'")
    names: list[str] = []
    for expression in _EXPRESSION.findall(template):
        if expression[:1] in _OPERATORS:
            expression = expression[1:]
        if not expression:
            raise UriTemplateError("empty expression '{}'")
        for spec in expression.split(","):
            name = _MODIFIER.sub("", spec)
            if not _VARNAME.match(name):
                raise UriTemplateError(f"'{spec}' is not a valid variable")
            if name in names:
                raise UriTemplateError(f"variable '{name}' appears twice")
            names.append(name)
    if not names:
        raise UriTemplateError("it has no variables; use `uri` for a fixed address")
    return names
