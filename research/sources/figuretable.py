"""A page's figures, read once, for a claim's figures to look up (pure): by value, by a
hedge's band (sorted floats, bisected), and by quantity in each dimension (base units,
sorted, bisected), so that no lookup scans the page or calls pint; and the one test of
two figures being of one sort (`sort_of`, `same_sort`, `dimension_of`: kind, multiple or
not, unit dimension) that every rule comparing figures uses."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType

from research.sources.figures import StatedNumber
from research.sources.quantities import readings
from research.sources.rawfigure import Value

_Sorted = tuple[tuple[float, ...], tuple[int, ...]]
"""Sorted values and, for each, the index of its figure."""
Sort = tuple[str, bool, str | None]
"""What a figure is a figure of (`sort_of`)."""


def dimension_of(figure: StatedNumber) -> str | None:
    """The dimension of a figure's unit (None: a bare figure)."""
    return None if figure.quantity is None else figure.quantity.unit.dimension


def sort_of(figure: StatedNumber) -> Sort:
    """A figure's kind, whether it is a multiple, and its unit's dimension (`dimension_of`):
    figures of one sort may stand in each other's place."""
    return figure.kind, figure.multiple, dimension_of(figure)


def same_sort(mine: StatedNumber, theirs: StatedNumber) -> bool:
    """Whether two figures are of one sort (`sort_of`), without building either's: the same
    kind, a multiple only for a multiple, the same dimension when both carry a unit (a bare
    figure for a bare one)."""
    if mine.kind != theirs.kind or mine.multiple != theirs.multiple:
        return False
    if mine.quantity is None or theirs.quantity is None:
        return mine.quantity is None and theirs.quantity is None
    return mine.quantity.unit.dimension == theirs.quantity.unit.dimension


def _sorted(pairs: list[tuple[float, int]]) -> _Sorted:
    pairs.sort()
    return tuple(v for v, _ in pairs), tuple(i for _, i in pairs)


def _between(table: _Sorted, low: float, high: float) -> Iterator[int]:
    values, refs = table
    yield from refs[bisect_left(values, low) : bisect_right(values, high)]


@dataclass(frozen=True, slots=True)
class FigureTable:
    """The figures of a page's sentences, looked up by what a claim's figure may match."""

    figures: tuple[StatedNumber, ...]
    owner: tuple[int, ...]
    """Figure -> the sentence that states it."""
    exact: Mapping[Value, tuple[int, ...]]
    """Value (any candidate) -> the figures that may mean it."""
    numbers: _Sorted
    """The numeric figures by value."""
    dimensions: Mapping[str, _Sorted]
    """Dimension -> the quantities in it, by value in base units (a prefix of data in both
    readings: `quantities.readings`)."""
    by_value: Mapping[Value, frozenset[int]]
    """Value -> the sentences with a figure that may mean it (a plain figure's lookup)."""
    percents_by_value: Mapping[Value, frozenset[int]]
    """The same, of percentages only."""
    counts_by_value: Mapping[Value, frozenset[int]]
    """The same, of figures that are no percentage (a claim's count: `StatedNumber.count`)."""
    by_sort: Mapping[Sort, frozenset[int]]
    """Sort (`sort_of`) -> the sentences with a figure of that sort."""

    @classmethod
    def of(cls, sentences: Sequence[Sequence[StatedNumber]]) -> FigureTable:
        """The table of the figures of `sentences` (each sentence's figures in order)."""
        figures: list[StatedNumber] = []
        owner: list[int] = []
        exact: dict[Value, list[int]] = {}
        numbers: list[tuple[float, int]] = []
        dimensions: dict[str, list[tuple[float, int]]] = {}
        for sentence, stated in enumerate(sentences):
            for figure in stated:
                index = len(figures)
                figures.append(figure)
                owner.append(sentence)
                for value in figure.candidates:
                    exact.setdefault(value, []).append(index)
                if isinstance(figure.value, Decimal):
                    numbers.append((float(figure.value), index))
                if figure.quantity is not None:  # a prefix of data read both ways
                    table = dimensions.setdefault(figure.quantity.unit.dimension, [])
                    table.extend(
                        (figure.quantity.base * ratio, index)
                        for ratio in readings(figure.quantity.unit)
                    )
        by_value: dict[Value, set[int]] = {}
        percents: dict[Value, set[int]] = {}
        counts: dict[Value, set[int]] = {}
        sorts: dict[Sort, set[int]] = {}
        for index, figure in enumerate(figures):
            sorts.setdefault(sort_of(figure), set()).add(owner[index])
        for value, indexes in exact.items():
            for index in indexes:
                by_value.setdefault(value, set()).add(owner[index])
                token = value in figures[index].tokens
                if figures[index].kind == "percent" or token:
                    percents.setdefault(value, set()).add(owner[index])
                if figures[index].kind != "percent" or token:
                    counts.setdefault(value, set()).add(owner[index])
        return cls(
            by_value=MappingProxyType({k: frozenset(v) for k, v in by_value.items()}),
            percents_by_value=MappingProxyType({k: frozenset(v) for k, v in percents.items()}),
            counts_by_value=MappingProxyType({k: frozenset(v) for k, v in counts.items()}),
            by_sort=MappingProxyType({k: frozenset(v) for k, v in sorts.items()}),
            figures=tuple(figures),
            owner=tuple(owner),
            exact=MappingProxyType({k: tuple(v) for k, v in exact.items()}),
            numbers=_sorted(numbers),
            dimensions=MappingProxyType({k: _sorted(v) for k, v in dimensions.items()}),
        )

    def _candidates(self, number: StatedNumber, *, windows: bool = True) -> set[int]:
        found: set[int] = set()
        for value in number.candidates:
            found.update(self.exact.get(value, ()))
        for window in number.windows() if windows else ():
            found.update(_between(self.numbers, *window))
        mine = number.quantity
        if mine is not None and mine.unit.dimension in self.dimensions:
            table = self.dimensions[mine.unit.dimension]
            for ratio in readings(mine.unit):  # a prefix of data read both ways
                base, step = mine.base * ratio, mine.step * ratio
                low, high = base - step, base + step
                if number.band is not None:
                    low, high = min(low, number.band[0] * base), max(high, number.band[1] * base)
                found.update(_between(table, low * (1 - 1e-9), high * (1 + 1e-9)))
        return found

    def of_sort(self, number: StatedNumber) -> frozenset[int]:
        """The sentences with a figure of the sort of `number` (`sort_of`)."""
        return self.by_sort.get(sort_of(number), frozenset())

    def sentences_stating(self, number: StatedNumber) -> set[int]:
        """The sentences with a figure that may be `number` (`StatedNumber.matches`)."""
        found: set[int] = set()
        if number.quantity is None and number.band is None and not number.multiple:
            pool = self.percents_by_value if number.kind == "percent" else self.by_value
            pool = self.counts_by_value if number.count else pool
            for value in number.candidates:
                found.update(pool.get(value, ()))
            return found
        bare = number.quantity is None and not number.multiple
        if bare:
            # a bare figure with a band: a page figure in its window matches it when it is a
            # percentage like it (`StatedNumber.matches`, without a call per figure); one
            # that is not, or whose bound the band does not meet, matches it only by a
            # value (a token) it may mean, which the exact lookup below finds, so the
            # window's figures are not asked again (a wide band, "up to 15%", holds hundreds)
            percent = number.kind == "percent"  # a count's is none (`StatedNumber.count`)
            kinds = (True,) if percent else (False,) if number.count else (True, False)
            for window in number.windows():
                for index in _between(self.numbers, *window):
                    figure = self.figures[index]
                    if (figure.kind == "percent") in kinds and (
                        not figure.bound or number.meets_bound(figure)
                    ):
                        found.add(self.owner[index])
        for index in self._candidates(number, windows=not bare):
            owner = self.owner[index]
            if owner not in found and number.matches(self.figures[index]):
                found.add(owner)
        return found
