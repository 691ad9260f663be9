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
nanoseconds, must be less than 2^63, a bound of roughly 290 years"); `left_over` a count
the claim says is left once another of its counts is taken from a page's count of the same
thing ("reserves two of them, programs have 31 of the kernel's real-time signals left":
33 different real-time signals less two; not the 32 of "numbered 32 to 64"); `flanked` a
multiple, share or difference the claim computes from the two of its figures either side
of it ("finished in 0.914 seconds, more than five times faster than PostgreSQL's 4.900
seconds"; "all segments (8 GB) were 256 times the size of one (32 MB)"): each of those is
checked against the page like any other figure of the claim.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from research.sources.derived import within
from research.sources.figures import StatedNumber
from research.sources.figuretable import dimension_of
from research.sources.quantities import readings, unit_of
from research.sources.words import stems_of

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


def _ratios(own: StatedNumber, figures: Sequence[StatedNumber], *, base: bool) -> Iterator[float]:
    """figure / own (`base`) or own / figure, of the figures of own's kind and dimension."""
    mine = own.magnitude
    if not mine:
        return
    for figure in figures:
        theirs = figure.magnitude
        if figure.kind != own.kind or dimension_of(figure) != dimension_of(own) or not theirs:
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


_LEFT = re.compile(
    r"\b(?:left|remain(?:s|ed|ing)?|the rest|spare|free|available|unused|leaving)\b", re.I
)
"""A count left over: "have 31 of them left", "the remaining 31"."""
_COUNTED = re.compile(r"[\s,]*((?:[^\W\d_][\w'-]*\s+){0,4}?[^\W\d_][\w'-]*)")
NOUN_WORDS = 5
"""The words after a count that may name what it counts ("33 different real-time
signals", "31 of the kernel's real-time signals")."""


def counted_words(text: str, figure: StatedNumber) -> frozenset[str]:
    """The stems of up to NOUN_WORDS words right after a count, up to punctuation: what it
    counts."""
    after = text[figure.span[1] :]
    words = re.split(r"[,.;:()\[\]]", after, maxsplit=1)[0].split()[:NOUN_WORDS]
    return stems_of(" ".join(words))


_SMALL = {"one": 1.0, "two": 2.0}
_SMALL_WORD = re.compile(r"\b(one|two)\b", re.IGNORECASE)
"""Counts text2num leaves in words ("reserves two of them")."""


def taken_from(
    number: StatedNumber, others: Sequence[StatedNumber], claim: str
) -> list[tuple[float, str]]:
    """The claim's bare counts (value, as written) that a bare count `number` is left over
    from when they are taken away, when the claim says it is left ("reserves two of them,
    programs have 31 ... left": two); "one" and "two" in words too."""
    if number.kind != "number" or number.quantity is not None or number.multiple:
        return []
    if not _LEFT.search(claim):
        return []
    out = [
        (o.magnitude, o.text)
        for o in others
        if o is not number
        and o.kind == "number"
        and o.quantity is None
        and not o.multiple
        and o.magnitude
    ]
    words = (m.group(1).lower() for m in _SMALL_WORD.finditer(claim))
    return out + [(_SMALL[word], word) for word in words]


def left_over(
    number: StatedNumber,
    taken: float,
    figures: Sequence[StatedNumber],
    text: str,
    counted: frozenset[str],
) -> bool:
    """Whether `number` is a count of `figures` (of a sentence whose text is `text`) that
    counts what the claim's `number` counts (`counted`), less `taken`."""
    if not counted:
        return False
    totals = [
        f.magnitude - taken
        for f in figures
        if f.kind == "number"
        and f.quantity is None
        and f.magnitude
        and counted & counted_words(text, f)
    ]
    return within(number, totals)


_COMPARED = re.compile(r"\b(?:than|of)\b", re.IGNORECASE)
"""Between a share or a difference and the figure it is of: "25% of", "1.8 seconds faster
than" (a multiple's "times" is part of its figure)."""
FLANK_AFTER = 2
"""The claim's figures right after a computed one that may be its second input."""


def _input(figure: StatedNumber, number: StatedNumber) -> bool:
    return (
        figure is not number
        and figure.kind in ("number", "percent")
        and not figure.multiple
        and bool(figure.magnitude)
    )


def _flanks(
    number: StatedNumber, others: Sequence[StatedNumber]
) -> Iterator[tuple[StatedNumber, StatedNumber]]:
    """(before, after): one of the FLANK_AFTER figures right after `number` and the last
    of the same kind and dimension before it."""
    after = [o for o in others if o.span[0] >= number.span[1] and _input(o, number)]
    for second in after[:FLANK_AFTER]:
        before = [
            o
            for o in others
            if o.span[1] <= number.span[0]
            and _input(o, number)
            and o.kind == second.kind
            and dimension_of(o) == dimension_of(second)
        ]
        if before:
            yield before[-1], second


def _both_read(a: StatedNumber, b: StatedNumber) -> Iterator[tuple[float, float]]:
    """(a, b) in base units, as written and with both prefixes of data read as binary
    (`quantities.readings`: "8 GB" over "32 MB" is 256 as a man page means it)."""
    mine, theirs = a.magnitude or 0.0, b.magnitude or 0.0
    yield mine, theirs
    if a.quantity is not None and b.quantity is not None:
        binary_a, binary_b = readings(a.quantity.unit)[-1], readings(b.quantity.unit)[-1]
        if (binary_a, binary_b) != (1.0, 1.0):
            yield mine * binary_a, theirs * binary_b


def _between(number: StatedNumber, a: StatedNumber, b: StatedNumber) -> Iterator[float]:
    """What `number` may be of `a` (before it) and `b` (after it): a multiple either way,
    a share of `b` or a change from it, or a difference in `number`'s dimension."""
    for x, y in _both_read(a, b):
        if number.multiple:
            yield from (x / y, y / x)
        elif number.kind == "percent":
            yield from (100 * x / y, 100 * abs(x - y) / y)
        elif number.quantity is not None and dimension_of(a) == dimension_of(number):
            yield abs(x - y)


def flanked(number: StatedNumber, others: Sequence[StatedNumber], claim: str) -> bool:
    """Whether `number` (a multiple, a share, or a quantity) is computed from the two of
    the claim's figures (`others`) either side of it, of one kind and dimension, within its
    precision (`derived.within`); a share or a difference only with "than" or "of" between
    it and the second."""
    if "point" in number.text.lower() or not (
        number.multiple or number.kind == "percent" or number.quantity is not None
    ):
        return False
    for a, b in _flanks(number, others):
        if not number.multiple and not _COMPARED.search(claim, number.span[1], b.span[0]):
            continue
        if within(number, _between(number, a, b)):
            return True
    return False
