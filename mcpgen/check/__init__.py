"""Stage 3, check: every rule a spec must satisfy before it is built.

Each problem is one diagnostic. The format's schema catches shape (`structure`); the rest is
what a schema alone cannot say: embedded JSON Schemas, tools, resources, prompts,
authorization, upstream, and the Python names a spec yields (`names`).
"""

from __future__ import annotations

from mcpgen.check.authorization import check_authorization
from mcpgen.check.prompts import check_completions_off, check_prompts
from mcpgen.check.resources import check_resources
from mcpgen.check.schemas import check_schemas
from mcpgen.check.structure import check_structure
from mcpgen.check.tools import check_tools
from mcpgen.check.upstream import check_upstream
from mcpgen.diagnostics import Diagnostic
from mcpgen.spec.model import Spec

__all__ = ["check_semantics", "check_structure"]


def check_semantics(spec: Spec) -> list[Diagnostic]:
    """Schemas, references, addresses and templates: what the format's schema cannot say."""
    return [
        *check_schemas(spec),
        *check_tools(spec),
        *check_resources(spec),
        *check_prompts(spec),
        *check_completions_off(spec),
        *check_authorization(spec),
        *check_upstream(spec),
    ]
