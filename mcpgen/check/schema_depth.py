"""Chains of `$ref`s too long to build: `D1: {items: {$ref: D2}}`, `D2: {items: {$ref: D3}}`...

Each definition on a chain is a model that the model generator resolves inside the one
before it. A chain of about 200 definitions through arrays overflows its stack after
minutes of work (and then the error names an arbitrary definition); 100 build in seconds.
So a chain is held to `MAX_REF_CHAIN` definitions, and the first `$ref` of one that is
longer is reported at once. A definition that refers to itself, or a group that refer to
one another (a tree, mutual recursion), counts once: a cycle is a single model family.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mcpgen.check.paths import label
from mcpgen.check.schema_cycles import ref_targets
from mcpgen.diagnostics import Diagnostic
from mcpgen.spec.source import JsonPath, SourceMap

MAX_REF_CHAIN = 100
"""Definitions one chain of `$ref`s may pass through."""


def long_ref_chains(roots: list[tuple[JsonPath, dict[str, Any]]], source: SourceMap) -> Iterator[Diagnostic]:
    """One error per chain of `$ref`s through more than `MAX_REF_CHAIN` definitions, at
    its first `$ref`, in the schema root where it starts."""
    found = ref_targets(roots)
    refs = {ref: target for ref, (target, _) in found.items()}  # `$ref` -> the schema it names
    # Which `$ref`s lie under each schema a `$ref` can name, so that a chain is walked
    # schema by schema, not subschema by subschema.
    targets = set(refs.values())
    under: dict[JsonPath, list[JsonPath]] = {target: [] for target in targets}
    for ref in refs:
        for length in range(len(ref) - 1, -1, -1):
            if ref[:length] in under:
                under[ref[:length]].append(ref)
                break
    longest = _longest_chains(refs, under)
    # A root that a `$ref` from elsewhere names is inside a chain, not at its start: the
    # chain is reported once, where it starts.
    named_from_elsewhere = {target for ref, target in refs.items() if ref[: len(target)] != target}
    firsts: dict[JsonPath, list[JsonPath]] = {}  # root -> its `$ref`s outside any named schema
    for ref, (_, root) in found.items():
        if _owner(ref, under) in (None, root):
            firsts.setdefault(root, []).append(ref)
    for root, _ in roots:
        if root in named_from_elsewhere:
            continue
        worst = max(firsts.get(root, ()), key=lambda ref: longest[ref], default=None)
        if worst is not None and longest[worst] > MAX_REF_CHAIN:
            yield source.error(
                worst,
                f"this $ref starts a chain through {longest[worst]} definitions "
                f"(at most {MAX_REF_CHAIN}): {label(worst[:-1])} -> {label(refs[worst])} -> ...",
                "the model generator resolves each definition inside the one before it and "
                "overflows its stack on chains this long; flatten the chain, or merge definitions",
                at_value=True,
            )


def _owner(ref: JsonPath, under: dict[JsonPath, list[JsonPath]]) -> JsonPath | None:
    for length in range(len(ref) - 1, -1, -1):
        if ref[:length] in under:
            return ref[:length]
    return None


def _longest_chains(refs: dict[JsonPath, JsonPath], under: dict[JsonPath, list[JsonPath]]) -> dict[JsonPath, int]:
    """For each `$ref`, how many definitions the longest chain from it passes through.
    Iterative, depth first; a `$ref` back into the current walk closes a cycle and adds
    nothing."""
    longest: dict[JsonPath, int] = {}
    on_walk: set[JsonPath] = set()
    for start in refs:
        if start in longest:
            continue
        stack: list[tuple[JsonPath, Iterator[JsonPath]]] = [(start, iter(under.get(refs[start], ())))]
        on_walk.add(start)
        while stack:
            ref, following = stack[-1]
            step = next(following, None)
            if step is None:
                stack.pop()
                on_walk.discard(ref)
                deepest = max((longest.get(after, 0) for after in under.get(refs[ref], ())), default=0)
                longest[ref] = 1 + deepest
            elif step not in longest and step not in on_walk:
                on_walk.add(step)
                stack.append((step, iter(under.get(refs[step], ()))))
    return longest
