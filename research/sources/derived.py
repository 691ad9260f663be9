"""A figure derived from two figures of the page (pure): a share computed from a count
and a total ("21%" from 212 of 1,000), a change ("a third smaller" from 120 mm to 80 mm),
or a multiple ("nearly tripled" from 1.2 million to 3.5 million).

Only a claim's percentage or multiple ("3 times") is derived, a percentage only where the
passage gives none of its own, only from two figures of the same kind and dimension in
the passage that matches the claim (a page with many
figures would otherwise hold some pair for almost any figure), and only within the
claim's hedge band, or within half a unit of its last digit when it has none.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from decimal import Decimal
from itertools import permutations

from research.sources.figures import StatedNumber
from research.sources.quantities import step_of

MAX_FIGURES = 12
"""Figures of the passage paired at most (the first ones)."""


def _range(number: StatedNumber) -> tuple[float, float] | None:
    if not isinstance(number.value, Decimal):
        return None
    value = float(number.value)
    if number.band is not None:
        return number.band[0] * value, number.band[1] * value
    step = float(step_of(number.text, number.value))
    return value - step, value + step


def _pairs(figures: Sequence[StatedNumber]) -> Iterator[tuple[float, float]]:
    usable = [f for f in figures if f.kind in ("number", "percent") and (f.magnitude or 0) > 0][
        :MAX_FIGURES
    ]
    for a, b in permutations(usable, 2):
        same_kind = a.kind == b.kind
        dimension_a = a.quantity.unit.dimension if a.quantity else None
        dimension_b = b.quantity.unit.dimension if b.quantity else None
        if same_kind and dimension_a == dimension_b and a.magnitude and b.magnitude:
            yield a.magnitude, b.magnitude


def derivable(number: StatedNumber, figures: Sequence[StatedNumber], *, multiple: bool) -> bool:
    """Whether a claim's percentage (a share or a change) or multiple is computed from two
    of `figures` (see the module docstring)."""
    bounds = _range(number)
    if bounds is None or not (number.kind == "percent" or multiple):
        return False
    if not multiple and any(f.kind == "percent" for f in figures):
        return False  # the passage gives its own percentage: the claim's is not derived
    low, high = bounds
    for a, b in _pairs(figures):
        if multiple:
            derived = [a / b]
        else:
            derived = [100 * a / b, 100 * abs(a - b) / b] if a < b else [100 * (a - b) / b]
        if any(low <= value <= high for value in derived):
            return True
    return False
