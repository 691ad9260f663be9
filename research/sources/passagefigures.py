"""Where a claim's figures are on a page, for the passages a judge is shown
(`research.sources.passages`; pure): the sentences stating a figure as the claim check
reads it (`FigureTable.sentences_stating`) or as rounded as the claim writes it ("83.5
million" for 83,499,915), and those it is computed from: a share, a change or a
difference of a sentence's figures (`derivable`), or a duration between two dates or
years of one sentence ("a little over three years" from "released: 2016-08 end of
lifetime: 2019-09"). Looser than the claim check: they choose what the judge reads, never
a verdict.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Sequence
from datetime import date
from decimal import Decimal
from itertools import combinations

from research.sources.derived import DAY, derivable
from research.sources.figures import StatedNumber
from research.sources.figuretable import dimension_of
from research.sources.pageindex import PageIndex, Sentence
from research.sources.quantities import step_of

KIND_WEIGHT = 2.0
"""A sentence with a figure of what the claim's figure measures (a duration, a rate, a
percentage) counts at least this much (a changed figure's passage has no equal figure)."""
Ways = list[tuple[int, ...]]
"""The ways a page gives one figure of a claim: each one sentence, or two whose figures it
is computed from."""
BLOCK_ROWS = 60
"""Rows of one table (or block of row lines) paired with a row holding the claim's words,
at most."""
NEAR_SENTENCES = 8
"""Sentences with the claim's words whose figures are combined in pairs."""


def _day(figure: StatedNumber) -> int | None:
    """A date or a year as a day number (a month or a year: its first day)."""
    value = str(figure.value)
    if figure.kind not in ("date", "year") or not re.fullmatch(r"\d{4}(-\d\d){0,2}", value):
        return None
    parts = [int(part) for part in value.split("-")] + [1, 1]
    try:
        return date(parts[0], parts[1], parts[2]).toordinal()
    except ValueError:
        return None


def _duration_window(number: StatedNumber) -> tuple[float, float]:
    """The durations in seconds a claim's figure of at least a day may mean (its step, or
    its hedge's band); (0, 0) for any other figure."""
    mine = number.quantity
    if mine is None or mine.unit.dimension != "second" or mine.base < DAY:
        return 0.0, 0.0
    low, high = mine.base - mine.step, mine.base + mine.step
    if number.band is not None:
        low, high = min(low, number.band[0] * mine.base), max(high, number.band[1] * mine.base)
    return low, high


def _kind_of(number: StatedNumber) -> str | None:
    """What a figure measures, when it says: a unit's dimension, or a percentage."""
    if number.quantity is not None:
        return number.quantity.unit.dimension
    return "percent" if number.kind == "percent" else None


def stating(page: PageIndex, number: StatedNumber) -> set[int]:
    """The sentences stating `number` as the claim check reads it, or as rounded as the
    claim writes it (a plain figure)."""
    found = page.figures.sentences_stating(number)
    if number.quantity is not None or number.kind not in ("number", "percent"):
        return found
    if not isinstance(number.value, Decimal):
        return found
    table = page.figures
    step, value = float(step_of(number.text, number.value)), float(number.value)
    values, refs = table.numbers
    low = bisect_left(values, (value - step) * (1 - 1e-9))
    high = bisect_right(values, (value + step) * (1 + 1e-9))
    for ref in refs[low:high]:
        if (table.figures[ref].kind == "percent") == (number.kind == "percent"):
            found.add(table.owner[ref])
    return found


def _computes(number: StatedNumber, sentences: Sequence[Sentence]) -> bool:
    """Whether the claim's figure is computed from the figures of `sentences`
    (`derivable`: a share, a change, a difference), or, for a duration, is the distance
    between two of their dates or years."""
    figures = [f for sentence in sentences for f in sentence.numbers]
    if len(figures) >= 2 and derivable(number, figures):
        return True
    low, high = _duration_window(number)
    if high <= 0:
        return False
    days = sorted(day for f in figures if (day := _day(f)))
    return any(low <= (b - a) * DAY <= high for a, b in combinations(days, 2))


def derived(
    page: PageIndex, number: StatedNumber, worded: Collection[int] = (), near: Sequence[int] = ()
) -> Ways:
    """The ways the claim's figure is computed from the page's (`_computes`): from one
    sentence; from figures of two neighbouring sentences, one of them `worded` (holding
    words of the claim; not for a duration: a list of dates has too many pairs); or from
    two of the sentences `near` (two rows of a table, a date in one paragraph and another
    further down)."""
    sentences = page.sentences
    figured = [i for i, s in enumerate(sentences) if s.numbers]
    ways: Ways = [(i,) for i in figured if _computes(number, sentences[i : i + 1])]
    ways += [
        (i, i + 1)
        for i in figured
        if i + 1 < len(sentences)
        and (i in worded or i + 1 in worded)
        and sentences[i + 1].numbers
        and derivable(number, [*sentences[i].numbers, *sentences[i + 1].numbers])
    ]
    pairs = combinations(sorted(near), 2)
    ways += [(a, b) for a, b in pairs if _computes(number, (sentences[a], sentences[b]))]
    return ways + _row_pairs(page, number, worded)


def _row_pairs(page: PageIndex, number: StatedNumber, worded: Collection[int]) -> Ways:
    """The ways the claim's figure is computed from two rows of one table or block of row
    lines (the same `lead`), one of them `worded`: "five times as fast as strtod" from
    the strtod row and the fastest's, which the claim names another way."""
    sentences = page.sentences
    found: set[tuple[int, int]] = set()
    for index in worded:
        lead = sentences[index].lead
        if not lead:
            continue
        first = lead[-1] + 1
        for other in range(first, min(len(sentences), first + BLOCK_ROWS)):
            if sentences[other].lead != lead:
                break
            pair = (min(index, other), max(index, other))
            if other != index and sentences[other].numbers and pair not in found:
                if _computes(number, (sentences[pair[0]], sentences[pair[1]])):
                    found.add(pair)
    return sorted(found)


def of_sort(page: PageIndex, numbers: Sequence[StatedNumber]) -> set[int]:
    """The sentences giving a figure of the kind and dimension of one of `numbers`, a
    multiple or not (`figuretable.sort_of` but for the multiple)."""
    sorts = {(n.kind, dimension_of(n)) for n in numbers}
    return {
        index
        for (kind, _, dimension), found in page.figures.by_sort.items()
        if (kind, dimension) in sorts
        for index in found
    }


def figure_hits(
    page: PageIndex, numbers: Sequence[StatedNumber], holders: Sequence[Ways]
) -> list[float]:
    """Per sentence, the weight of the claim's figures it states, each figure weighted
    by how few sentences state it; at least KIND_WEIGHT for a figure of a kind the
    claim's figures measure."""
    total = max(1, len(page.sentences))
    hits = [0.0] * len(page.sentences)
    for ways in holders:
        found = {index for way in ways for index in way}
        weight = math.log(1.0 + total / len(found)) if found else 0.0
        for index in found:
            hits[index] += weight
    kinds = {_kind_of(n) for n in numbers} - {None}
    if kinds:
        for index, sentence in enumerate(page.sentences):
            if kinds & {_kind_of(n) for n in sentence.numbers}:
                hits[index] = max(hits[index], KIND_WEIGHT)
    return hits


def claim_figures(
    page: PageIndex, numbers: Sequence[StatedNumber], words: Sequence[float]
) -> list[Ways]:
    """For each figure of the claim, the sentences stating it; then, for each figure no
    sentence states, each hedged one ("close to", "about": often computed by whoever
    wrote the claim) and each duration, the ways it is computed (`derived`; two sentences
    among the NEAR_SENTENCES with figures that score best by the claim's `words`)."""
    stated = [stating(page, n) for n in numbers]
    worded = {i for i, s in enumerate(page.sentences) if s.numbers and words[i] > 0}
    near = sorted(worded, key=lambda i: (-words[i], i))[:NEAR_SENTENCES]
    ways: list[Ways] = [[(i,) for i in sorted(found)] for found in stated]
    return ways + [
        derived(page, n, worded, near)
        for n, found in zip(numbers, stated, strict=True)
        if not found or n.band is not None or _duration_window(n)[1] > 0
    ]
