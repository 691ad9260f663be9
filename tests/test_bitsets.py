"""Sets of integers held as ints (`research.sources.bitsets`), which the claim check counts
its passages with: the same answers as counting the members one by one."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from research.sources.bitsets import lowest, mask_of, most_covered


def _counted(sets: list[set[int]]) -> tuple[int, set[int]]:
    counts = Counter(member for group in sets for member in group)
    best = max(counts.values(), default=0)
    return best, {member for member, count in counts.items() if count == best and best}


@pytest.mark.parametrize("seed", range(40))
def test_most_covered_counts_like_a_counter(seed: int) -> None:
    rng = random.Random(seed)
    size = rng.choice([1, 5, 70, 1300])
    sets = [
        {rng.randrange(size) for _ in range(rng.randrange(0, size + 2))}
        for _ in range(rng.randrange(0, 20))
    ]
    best, chosen = most_covered(mask_of(group) for group in sets)
    expected_best, expected = _counted(sets)
    assert best == expected_best
    assert {i for i in range(size) if chosen >> i & 1} == expected


def test_nothing_covered() -> None:
    assert most_covered([]) == (0, 0)
    assert most_covered([0, 0]) == (0, 0)


def test_lowest_members_in_order() -> None:
    mask = mask_of([900, 3, 64, 0, 17])
    assert lowest(mask, 3) == [0, 3, 17]
    assert lowest(mask, 10) == [0, 3, 17, 64, 900]
    assert lowest(0, 4) == []
