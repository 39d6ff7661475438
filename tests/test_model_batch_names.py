"""Which model groups may share a datamodel-codegen batch: no new definition name may start
with a name already in the batch, or the other way round (the generator would rename one).
The sorted-order test must answer as the pairwise one did, without its quadratic cost."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgen.models.model_batches import _prefix_across


def _pairwise(first: list[str], second: list[str]) -> bool:
    return any(a.startswith(b) or b.startswith(a) for a in first for b in second)


names = st.text(alphabet="ab1_\U0010ffff", min_size=1, max_size=4)


@pytest.mark.slow  # 2,000 examples: about 4 s of CPU
@settings(max_examples=2000, deadline=None)
@given(pool=st.lists(names, unique=True, max_size=14), cut=st.integers(min_value=0, max_value=14))
def test_the_sorted_test_answers_as_the_pairwise_one(pool: list[str], cut: int) -> None:
    first, second = pool[:cut], pool[cut:]
    assert _prefix_across(first, second) == _pairwise(first, second)
    assert _prefix_across(second, first) == _pairwise(first, second)


def test_thousands_of_chained_names_take_milliseconds() -> None:
    first = [f"Definition{i}Item" for i in range(8000)]
    second = [f"Other{i}" for i in range(8000)]
    started = time.perf_counter()
    assert not _prefix_across(first, second)
    assert _prefix_across([*first, "Oth"], second)
    # The pairwise test took about 10 s here (64 million comparisons).
    assert time.perf_counter() - started < 1
