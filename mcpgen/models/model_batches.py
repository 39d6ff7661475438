"""Groups of models generated in batches: one generator run over the definitions of several
groups, each group's part cut out of the batch's output again (`generate_groups`), the same
text a run of its own gives. A batch holds only groups that cannot change each other's
names (`_fits`), ends where the spec alone says (a hash of a group's document), and is
refused when its output does not cut cleanly (`_cut`): then its groups run one by one.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import json
from collections.abc import Sequence

from mcpgen.models.model_generator import GROUPS_PER_WORKER, CachedRuns
from mcpgen.models.model_statements import Generated
from mcpgen.utils.json_types import Json

# Groups are generated in batches: the generator's passes have a cost per run as well as per
# definition it is given, so one run over the definitions of eight groups costs less than
# eight runs (`benchmarks/model_batches.py` measures it; the README's benchmark section has
# the figures). Each group's part is cut out of its batch's output, and it is
# the output a run of its own gives (tests/test_black_style.py builds specs both ways),
# because a batch only holds groups that cannot change each other's names:
#   - a definition two groups both have is the same schema in both (a shared definition,
#     or its stand-in), so it is generated once for both;
#   - no group's definition name starts with another group's, and every class the
#     generator adds is named after the definition it is in (`NamingStrategy.FullPath`,
#     checked on the output), so no two classes of different groups can take one name;
#   - no import was renamed (`Field as Field_1`, for a model called Field), which would
#     change the text of every group.
# Where the output does not cut cleanly, its groups are generated one by one.
# Batches end where a group's document hashes to a multiple of BATCH_TARGET, so they are
# set by the spec alone, not by what the cache holds, and an edit changes one batch: the
# output is the same whatever was built before.
BATCH_TARGET = 8  # groups per batch, on average
BATCH_LIMIT = 16


def generate_groups(
    groups: Sequence[dict[str, Json]], runs: CachedRuns, batch_target: int | None = BATCH_TARGET
) -> list[Generated]:
    """`generate_models` on each group's definitions (a `$defs` mapping), taken apart: in
    batches of `batch_target` groups on average (see above; None: each group alone), from
    the cache where it can."""
    documents = [json.dumps({"$defs": group}) for group in groups]
    if batch_target is None:
        return runs.generated([(document, False) for document in documents])
    batches = _batches(groups, documents, batch_target)
    jobs = [(json.dumps({"$defs": merged}), False) for _, merged in batches]
    outputs: dict[int, Generated] = {}
    generated = runs.generated(jobs, max(1, GROUPS_PER_WORKER // batch_target))
    for (batch, _), output in zip(batches, generated, strict=True):
        parts = [output] if len(batch) == 1 else _cut(output, [groups[index] for index in batch])
        outputs.update(zip(batch, parts or (), strict=False))
    alone = [index for index in range(len(groups)) if index not in outputs]
    outputs.update(zip(alone, runs.generated([(documents[index], False) for index in alone]), strict=True))
    return [outputs[index] for index in range(len(groups))]


def _batches(
    groups: Sequence[dict[str, Json]], documents: Sequence[str], target: int
) -> list[tuple[list[int], dict[str, Json]]]:
    """The groups, by index and in order, in batches of groups that cannot interfere, each
    with its definitions merged (a batch of one: the group's own, in its order)."""
    batches: list[tuple[list[int], dict[str, Json]]] = []
    batch: list[int] = []
    merged: dict[str, Json] = {}
    for index, group in enumerate(groups):
        if batch and not _fits(group, merged):
            batches.append((batch, merged))
            batch, merged = [], {}
        batch.append(index)
        merged.update(group)
        ends = int.from_bytes(hashlib.sha256(documents[index].encode()).digest()[:4], "big") % target == 0
        if ends or len(batch) == BATCH_LIMIT:
            batches.append((batch, merged))
            batch, merged = [], {}
    return [*batches, (batch, merged)] if batch else batches


def _fits(group: dict[str, Json], merged: dict[str, Json]) -> bool:
    """Whether `group` can join the batch whose definitions are `merged`: the definitions
    both have are the same, and no new name starts with a name of the batch or the other
    way round."""
    if any(merged[name] != schema for name, schema in group.items() if name in merged):
        return False
    new = [name for name in group if name not in merged]
    others = [name for name in merged if name not in group]
    return not _prefix_across(new, others)


def _prefix_across(first: list[str], second: list[str]) -> bool:
    """Whether a name of `first` starts with a name of `second`, or the other way round
    (the lists share no name). In sorted order the names that start with a name follow it
    at once, so one count per name answers, in O(n log n): a pairwise test cost a batch
    of thousands of chained definitions millions of comparisons."""
    names = sorted([(name, 0) for name in first] + [(name, 1) for name in second])
    keys = [name for name, _ in names]
    seconds = [0, *itertools.accumulate(side for _, side in names)]  # of `second`, before i
    for index, (name, side) in enumerate(names):
        after = _after_prefix(name)
        end = len(keys) if after is None else bisect.bisect_left(keys, after, index + 1)
        below = seconds[end] - seconds[index + 1]  # names of `second` starting with `name`
        if below if side == 0 else end - index - 1 - below:
            return True
    return False


def _after_prefix(name: str) -> str | None:
    """The least string after every string that starts with `name`; None when there is
    none (`name` is all U+10FFFF)."""
    stem = name.rstrip("\U0010ffff")
    return stem[:-1] + chr(ord(stem[-1]) + 1) if stem else None


def _cut(output: Generated, groups: Sequence[dict[str, Json]]) -> list[Generated] | None:
    """Each group's part of its batch's output: the statements its definitions reach. None
    when that is not clean (see above): then the groups are generated one by one."""
    if any(" as " in name for _, names in output.imports for name in names):
        return None
    named = {statement.name: statement for statement in output.statements if statement.name is not None}
    definitions = set().union(*groups)
    parts: list[Generated] = []
    placed: set[int] = set()
    for group in groups:
        reached: set[str] = set()
        pending = [name for name in group if name in named]
        while pending:
            name = pending.pop()
            if name not in reached:
                reached.add(name)
                pending += [used for used in named[name].uses if used in named]
        added = reached - definitions
        if not (reached & definitions) <= group.keys() or not all(name.startswith(tuple(group)) for name in added):
            return None
        part = [
            index
            for index, statement in enumerate(output.statements)
            if (statement.name in reached if statement.name is not None else statement.uses & reached)
        ]
        placed.update(part)
        parts.append(Generated(output.imports, tuple(output.statements[index] for index in part)))
    return parts if len(placed) == len(output.statements) else None
