"""A claim's share or multiple computed with another figure of the claim itself (pure:
standard library only).

A writer who gives both figures of a computation says which is which:
- "about 65% of the 557,686,925 data references": the figure right after "of (the)" or
  "times (the)" is the base (`base_of`); the share is a page's figure over it, never it
  over another (557,686,925 is 53% of 1,060,925,768 instruction references, which "about
  55% of the 557,686,925" does not say);
- "the roughly 5% cut ... is a quarter of the improvement": a percentage before it is the
  part (`part_of`); the share is it over a page's percentage (5% of 20%).

`share_with` computes the claim's figure from that own figure and the page's figures of
its kind and dimension, within the claim's precision (`derived.within`). `converted` finds
a claim's quantity to be another of its figures in the unit it names ("given in
nanoseconds, must be less than 2^63, a bound of roughly 290 years").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from research.sources.derived import within
from research.sources.figures import StatedNumber
from research.sources.quantities import unit_of

_OF_BASE = re.compile(r"\s*(?:times\s+)?(?:of\s+)?(?:the|all(?: the)?|its|their)?\s*")
"""Between a share or multiple and its base: " of the ", " times the ", " of "."""


_IS = re.compile(
    r"\b(?:is|was|are|were|amounts? to|amounted to|represents?|represented|equals?|equalled"
    r"|equaled|comes? to|came to|makes? up|made up)\b",
    re.IGNORECASE,
)
"""A verb between a part and its share ("the 5% cut ... is a quarter of")."""


def _computed(number: StatedNumber) -> bool:
    """Whether a claim's figure is a share or a multiple (no percentage point)."""
    if "point" in number.text.lower():
        return False
    return number.kind == "percent" or (number.kind == "number" and number.multiple)


def base_of(
    number: StatedNumber, others: Sequence[StatedNumber], claim: str
) -> StatedNumber | None:
    """The claim's figure that `number` is a share or multiple of: right after it, past
    "of (the)" ("65% of the 557,686,925"), or None."""
    if not _computed(number):
        return None
    for other in others:
        if other is number or other.kind not in ("number", "percent") or other.multiple:
            continue
        between = claim[number.span[1] : other.span[0]]
        if other.span[0] >= number.span[1] and "of" in between and _OF_BASE.fullmatch(between):
            return other
    return None


def part_of(
    number: StatedNumber, others: Sequence[StatedNumber], claim: str
) -> StatedNumber | None:
    """The claim's percentage that a percentage `number` followed by "of" is the share of
    another of ("the 5% cut is a quarter of the improvement": 5%): the last before it,
    with "is" (or another verb saying so) between them, or None."""
    if number.kind != "percent" or not _computed(number):
        return None
    if not claim.startswith(" of ", number.span[1]):
        return None
    before = [o for o in others if o.kind == "percent" and o.span[1] <= number.span[0]]
    if not before or not _IS.search(claim, before[-1].span[1], number.span[0]):
        return None  # "between 70% and 80% of the load": a range, no part of a whole
    return before[-1]


def _dimension(figure: StatedNumber) -> str | None:
    return figure.quantity.unit.dimension if figure.quantity else None


def _ratios(own: StatedNumber, figures: Sequence[StatedNumber], *, base: bool) -> Iterator[float]:
    """figure / own (`base`) or own / figure, of the figures of own's kind and dimension."""
    mine = own.magnitude
    if not mine:
        return
    for figure in figures:
        theirs = figure.magnitude
        if figure.kind != own.kind or _dimension(figure) != _dimension(own) or not theirs:
            continue
        if figure.multiple:
            continue
        yield theirs / mine if base else mine / theirs


def share_with(
    number: StatedNumber, own: StatedNumber, figures: Sequence[StatedNumber], *, base: bool
) -> bool:
    """Whether `number` (a share or a multiple) is a figure of `figures` over `own`
    (`base`), or `own` over one of them."""
    scale = 100.0 if number.kind == "percent" else 1.0
    return within(number, (scale * r for r in _ratios(own, figures, base=base)))


_IN_UNIT = re.compile(r"\b(?:in|as)\s+([^\W\d_]+)")
"""The unit a claim says its figures are in: "given in nanoseconds"."""


def converted(number: StatedNumber, others: Sequence[StatedNumber], claim: str) -> bool:
    """Whether a quantity `number` is another, bare, figure of the claim in the unit the
    claim says it is in ("given in nanoseconds, must be less than 2^63, a bound of roughly
    290 years": 2^63 ns is 292 years), within `number`'s precision: the claim's own
    conversion."""
    if number.quantity is None:
        return False
    dimension = number.quantity.unit.dimension
    factors = [
        unit.factor
        for word in _IN_UNIT.findall(claim)
        if (unit := unit_of(word)) is not None and unit.dimension == dimension
    ]
    bare = [
        o.magnitude
        for o in others
        if o is not number and o.kind == "number" and o.quantity is None and o.magnitude
    ]
    return within(number, (value * factor for value in bare for factor in factors))
