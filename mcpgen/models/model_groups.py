"""Which models go in which module of the `models/` package, and what the generator is
given for each: the shared definitions form one group (`_shared`), and each tool, resource
and prompt another (`model_groups`), generated together with the models it references
(`referenced_models`). A shared class a group only points at reaches the generator as a
stand-in (`group_definitions`), so the definitions are not parsed again for every group.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from mcpgen.ir.model import Api
from mcpgen.names import naming
from mcpgen.spec.json_schema import LOCAL_PREFIX, iter_refs, iter_subschemas, ref_target
from mcpgen.utils.json_types import Json

SHARED_MODULE = "_shared"  # the shared definitions; no handler method starts with "_"


def referenced_models(names: Sequence[str], models: dict[str, Json], order: dict[str, int] | None = None) -> dict[str, Json]:
    """`names` and every model they use, directly or not, in the spec's order (`order`:
    each model's place in `models`, for callers that ask once per group)."""
    needed = set(names)
    pending = list(names)
    while pending:
        for _, ref in iter_refs(models[pending.pop()]):
            used = ref_target(ref, LOCAL_PREFIX)
            if used is not None and used in models and used not in needed:
                needed.add(used)
                pending.append(used)
    return {name: models[name] for name in _in_order(needed, models, order)}


def _in_order(names: set[str], models: dict[str, Json], order: dict[str, int] | None) -> list[str]:
    """`names` in the order of `models`, without walking all of `models` (once per group,
    that made 10,000 tools quadratic)."""
    if order is None:
        return [name for name in models if name in names]
    return sorted(names, key=order.__getitem__)


def model_groups(api: Api) -> dict[str, list[str]]:
    """The shared definitions, then each tool's, resource's and prompt's models, in spec
    order, by the module they go in."""
    methods = {("tools", tool.name): naming.model_module(tool.method) for tool in api.tools}
    methods |= {("resources", resource.name): naming.model_module(resource.method) for resource in api.resources}
    methods |= {("prompts", prompt.name): naming.model_module(prompt.method) for prompt in api.prompts}
    groups: dict[str, list[str]] = {SHARED_MODULE: []}
    for name in api.model_schemas:
        kind, owner = api.model_sources[name][:2]
        # A shared definition's own `$defs` go with it.
        module = SHARED_MODULE if kind == "definitions" else methods[(str(kind), str(owner))]
        groups.setdefault(module, []).append(name)
    return {module: names for module, names in groups.items() if names}

# A shared definition that a group's models only point at (a `$ref` with nothing beside it
# but annotations, where a field's type goes) reaches the generator as an empty object of
# the same name: the group's fields name its class either way, and the generator does not
# parse the definition, and what it uses, again for every group (about a fifth of the
# model generator's time on the benchmark spec). The stand-in's class is dropped like any copy.
STUB_MARK = "mcpgen: a stand-in for a shared definition"
_STUB: Json = {"type": "object", "description": STUB_MARK}
_PLAIN_REF_KEYS = frozenset({"$ref", "description", "title", "examples", "$comment", "deprecated"})
# Where a plain reference is a type: a property, an item, a branch of a union.
_TYPE_POSITIONS = frozenset({"properties", "patternProperties", "anyOf", "oneOf", "prefixItems"})


def shared_group(groups: dict[str, list[str]], models: dict[str, Json]) -> tuple[str, str]:
    """The generator's input for the shared definitions, and the name of the class to drop
    from its output. The generator folds a definition that is not an object (an enum, an
    array: a root model) into the fields that refer to it, and keeps its class only when
    nothing does; over the whole spec, a tool's reference counts too. So the definitions
    the other groups refer to are referred to here as well, by the properties of one more
    class (`referrer`), which then goes."""
    shared = groups.get(SHARED_MODULE, [])
    outside: dict[str, None] = {}
    for module, names in groups.items():
        if module != SHARED_MODULE:
            for name in names:
                for _, ref in iter_refs(models[name]):
                    used = ref_target(ref, LOCAL_PREFIX)
                    if used is not None and used in models and used not in outside:
                        outside[used] = None
    definitions = referenced_models(shared, models)
    referrer = "Referrer"
    while referrer in models:
        referrer += "_"
    refers = {f"p{index}": {"$ref": f"{LOCAL_PREFIX}{name}"} for index, name in enumerate(outside) if name in definitions}
    if refers:
        definitions[referrer] = {"type": "object", "properties": refers}
    return json.dumps({"$defs": definitions}), referrer


def group_definitions(
    names: Sequence[str],
    models: dict[str, Json],
    classes: set[str],
    order: dict[str, int] | None = None,
    stand_ins: bool = True,
) -> dict[str, Json]:
    """The generator's input for a group: its models and every model they use, in the spec's
    order; with `stand_ins`, a shared class (of `classes`) that is only pointed at, as a stand-in."""
    if stand_ins and classes:
        definitions = _with_stand_ins(names, models, classes, order)
        if definitions is not None:
            return definitions
    return referenced_models(names, models, order)


def _with_stand_ins(names: Sequence[str], models: dict[str, Json], classes: set[str], order: dict[str, int] | None) -> dict[str, Json] | None:
    full = dict.fromkeys(names)
    pointed: set[str] = set()
    pending = list(names)
    while pending:
        for path, subschema in iter_subschemas(models[pending.pop()]):
            if "discriminator" in subschema:
                return None  # the generator reads the branches' properties
            ref = subschema.get("$ref")
            used = ref_target(ref, LOCAL_PREFIX) if isinstance(ref, str) else None
            if used is None or used not in models or used in full:
                continue
            plain = subschema.keys() <= _PLAIN_REF_KEYS and (
                path[-1:] in (("items",), ("additionalProperties",)) or (len(path) > 1 and path[-2] in _TYPE_POSITIONS)
            )
            if plain and used in classes:
                pointed.add(used)
            else:
                full[used] = None
                pending.append(used)
    stand_ins = pointed - full.keys()
    return {name: _STUB if name in stand_ins else models[name] for name in _in_order({*full, *stand_ins}, models, order)}
