"""A figure derived from figures of the page (pure): a share computed from a count and a
total ("21%" from 212 of 1,000), a change ("a third smaller" from 120 mm to 80 mm), a
multiple ("nearly tripled" from 1.2 million to 3.5 million; "25% faster" from "1.25x"), a
count from a total and a share ("roughly 370" from 1,495 and 25%), or a difference in
percentage points ("20 percentage points" from 77% and 57%).

Only from figures of the passage that matches the claim (a page with many figures would
otherwise hold some pair for almost any figure), of the same kind and dimension where two
are combined; a share or change of two figures only where the passage gives no percentage
of its own (it would be the figure to compare with); and only within the claim's hedge band, or
within half a unit of its last digit when it has none.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from decimal import Decimal
from itertools import permutations

from research.sources.figures import StatedNumber
from research.sources.quantities import step_of

MAX_FIGURES = 12
"""Figures of the passage combined at most (the first ones)."""


def _range(number: StatedNumber) -> tuple[float, float] | None:
    if not isinstance(number.value, Decimal):
        return None
    value = float(number.value)
    if number.band is not None:
        return number.band[0] * value, number.band[1] * value
    step = float(step_of(number.text, number.value))
    return value - step, value + step


def _usable(figures: Sequence[StatedNumber]) -> list[StatedNumber]:
    return [f for f in figures if f.kind in ("number", "percent") and (f.magnitude or 0) > 0][
        :MAX_FIGURES
    ]


def _pairs(figures: Sequence[StatedNumber], kind: str) -> Iterator[tuple[float, float]]:
    """(a, b) of two figures of `kind` in one dimension, both orders."""
    for a, b in permutations([f for f in figures if f.kind == kind and not f.multiple], 2):
        dimension_a = a.quantity.unit.dimension if a.quantity else None
        dimension_b = b.quantity.unit.dimension if b.quantity else None
        if dimension_a == dimension_b and a.magnitude and b.magnitude:
            yield a.magnitude, b.magnitude


def _shares_and_changes(figures: Sequence[StatedNumber]) -> Iterator[float]:
    for m in (f.magnitude for f in figures if f.multiple and f.magnitude):
        yield from (100 * (m - 1), 100 * (1 - 1 / m))  # "1.25x": 25% more, 20% less
    if any(f.kind == "percent" for f in figures):
        return  # the passage gives its own percentage: the claim's is not computed
    for a, b in _pairs(figures, "number"):
        yield from ([100 * a / b, 100 * (b - a) / b] if a < b else [100 * (a - b) / b])


def _multiples(figures: Sequence[StatedNumber]) -> Iterator[float]:
    for a, b in _pairs(figures, "number"):
        yield a / b


def _counts(figures: Sequence[StatedNumber]) -> Iterator[float]:
    totals = [f.magnitude for f in figures if f.kind == "number" and not f.multiple]
    shares = [f.magnitude for f in figures if f.kind == "percent"]
    for total in totals:
        for share in shares:
            if total and share:
                yield total * share / 100


def _points(figures: Sequence[StatedNumber]) -> Iterator[float]:
    for a, b in _pairs(figures, "percent"):
        if a > b:
            yield a - b


def derivable(number: StatedNumber, figures: Sequence[StatedNumber]) -> bool:
    """Whether a claim's figure is computed from `figures` (see the module docstring)."""
    bounds = _range(number)
    if bounds is None or number.kind not in ("number", "percent"):
        return False
    usable = _usable(figures)
    if number.kind == "percent":
        points = "point" in number.text.lower()
        derived = _points(usable) if points else _shares_and_changes(usable)
    elif number.multiple:
        derived = _multiples(usable)
    else:
        derived = _counts(usable)
    low, high = bounds
    return any(low <= value <= high for value in derived)
