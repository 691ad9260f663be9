"""A figure derived from figures of the page (pure): a share computed from a count and a
total ("21%" from 212 of 1,000), a change ("a third smaller" from 120 mm to 80 mm), a
multiple ("nearly tripled" from 1.2 million to 3.5 million; "25% faster" from "1.25x",
"1.3 times faster" from "30% faster"; "doubled to 20%" from 10% and 20%), a
count from a total and a share ("roughly 370" from 1,495 and 25%), a difference ("2,049
did not complete" from 11,482 and 9,433; "added 0.6 seconds" from 1.664s and 1.064s), or
a difference in percentage points ("20 percentage points" from 77% and 57%), or a
duration of a day or more between two dates or two years ("supported for a little over
three years" from 2016-09-12 and 2019-09-11: `_durations`); a difference only for a
quantity with a unit or a figure of at least 100. When the claim's words say so
(`Cues`): the complement of a percentage ("63% did not" from "37% did"), and, of two
figures of one sentence (`computed_in_sentence`), a quotient ("120 tickets each" from
1,440 tickets and 12 engineers; "83 a second" from 7.2 million in 24 hours), a sum or a
product ("512 GB in total" from 8 nodes of 64 GB), a difference of any size or the
relative change of two percentages when they say which way ("added three" from 12 to 15,
"grew by a quarter" from 40% to 50%); a change in the direction they say ("rose 25%"
from 80 to 100, never "rose 20%"). A multiple of COUNTED_TIMES or more is a count
("downloaded 1.5 million times").

Only from figures of the passage that matches the claim, or, for a figure nowhere on the
page, of figures tied to the claim's words (`research.sources.computed`; a page with many
figures would otherwise hold some pair for almost any figure), of the same kind and
dimension where two are combined; a share or change of two figures only where the passage
gives no percentage of its own (it would be the figure to compare with); and only within
the claim's hedge band, or, when it has none, within half a unit of its last digit and
ROUNDING (5%) of it ("ten years" is not 8).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from functools import lru_cache
from itertools import chain, permutations

from research.sources import casefold
from research.sources.figures import StatedNumber
from research.sources.quantities import step_of

MAX_FIGURES = 12
"""Figures of the passage combined at most (the first ones)."""
DAY = 86_400.0
"""Seconds in a day: a duration computed from dates is a day or longer."""
YEAR = 365.25 * DAY
COUNTED_TIMES = 100
"""A multiple this large is a count of times, not a ratio."""
ROUNDING = 0.05
"""A computed figure without a hedge is at most this far (relatively) from the claim's, even
where the claim's last digit is a round one ("ten years" is not 8, "200" not 170)."""


@lru_cache(maxsize=4096)
def _step(text: str, value: Decimal) -> float:
    """`step_of`, kept: a claim's figure is ranged once per pair of figures tried."""
    return float(step_of(text, value))


def _range(number: StatedNumber) -> tuple[float, float] | None:
    if not isinstance(number.value, Decimal):
        return None
    value = float(number.value)
    if number.band is not None:
        return number.band[0] * value, number.band[1] * value
    step = min(_step(number.text, number.value), ROUNDING * abs(value))
    return value - step, value + step


def _in_base(number: StatedNumber, bounds: tuple[float, float]) -> tuple[float, float]:
    """`bounds` (in the figure's own unit) in base units, when it is a quantity."""
    if number.quantity is None:
        return bounds
    factor = number.quantity.unit.factor
    return bounds[0] * factor, bounds[1] * factor


def _counted(figure: StatedNumber) -> bool:
    """Whether a figure counts things: not a multiple, or a multiple of COUNTED_TIMES or
    more ("downloaded 1.5 million times", "ran 4,900 times" count downloads and runs)."""
    return not figure.multiple or (figure.magnitude or 0) >= COUNTED_TIMES


def _usable(figures: Sequence[StatedNumber]) -> list[StatedNumber]:
    return [f for f in figures if f.kind in ("number", "percent") and (f.magnitude or 0) > 0][
        :MAX_FIGURES
    ]


def _pairs(
    figures: Sequence[StatedNumber], kind: str, dimension: str | None = None
) -> Iterator[tuple[float, float]]:
    """(a, b) of two figures of `kind` in one dimension, both orders (in `dimension` only,
    when given)."""
    for a, b in permutations([f for f in figures if f.kind == kind and _counted(f)], 2):
        dimension_a = a.quantity.unit.dimension if a.quantity else None
        dimension_b = b.quantity.unit.dimension if b.quantity else None
        if dimension is not None and dimension_a != dimension:
            continue
        if dimension_a == dimension_b and a.magnitude and b.magnitude:
            yield a.magnitude, b.magnitude


def _shares_and_changes(figures: Sequence[StatedNumber], cues: Cues) -> Iterator[float]:
    """Shares and changes; a change in the claim's direction only, when its words say one
    (`Cues.rise`, `Cues.fall`; both or neither: either); no share for a percentage a
    comparative follows (`Cues.compared`)."""
    rise, fall = not cues.fall or cues.rise, not cues.rise or cues.fall
    for m in (f.magnitude for f in figures if not _counted(f) and f.magnitude):
        yield from (100 * (m - 1), 100 * (1 - 1 / m))  # "1.25x": 25% more, 20% less
    if cues.margin or any(f.kind == "percent" for f in figures):
        return  # the passage gives its own percentage: the claim's is not computed
    for a, b in _pairs(figures, "number"):
        if a < b:
            yield from [] if cues.compared else [100 * a / b]
            yield from [100 * (b - a) / b] if fall and not cues.share else []
        elif rise and not cues.share:
            yield 100 * (a - b) / b


def _unlisted(figures: Sequence[StatedNumber], listed: frozenset[str]) -> list[StatedNumber]:
    """`figures` less the percentages and the bare counts of a list (`Cues.listed`): those
    are paired only by the claim's words."""
    return [
        f
        for f in figures
        if f.kind not in listed or (f.kind == "number" and f.quantity is not None)
    ]


def _multiples(
    figures: Sequence[StatedNumber], *, shrink: bool = False, listed: frozenset[str] = frozenset()
) -> Iterator[float]:
    """Multiples of two figures; `shrink` (a claim's multiple under 1: "halved") only of a
    later figure to an earlier, larger one ("from 60 to 30", never "from 30% to 60%");
    none of two figures of a list (`Cues.listed`)."""
    for p in (f.magnitude for f in figures if f.kind == "percent" and f.magnitude):
        yield from (1 + p / 100, 1 - p / 100)  # "30% faster": 1.3 times; "50% less": 0.5
    if listed:
        figures = _unlisted(figures, listed)
    if shrink:
        for kind in ("number", "percent"):
            ordered = [f.magnitude for f in figures if f.kind == kind and _counted(f)]
            for i, earlier in enumerate(ordered):
                yield from (later / earlier for later in ordered[i + 1 :] if later and earlier)
        return
    for a, b in _pairs(figures, "number"):
        yield a / b
    for a, b in _pairs(figures, "percent"):
        yield a / b  # a share that doubled, from 10% to 20%


def _counts(
    figures: Sequence[StatedNumber],
    unit: str | None,
    *,
    differences: bool,
    listed: frozenset[str] = frozenset(),
) -> Iterator[float]:
    """A count from a total and a share, or a difference of two figures (in `unit`'s
    dimension, compared in base units; not of two bare counts of a list: `Cues.listed`)."""
    totals = [f.magnitude for f in figures if f.kind == "number" and _counted(f)]
    shares = [f.magnitude for f in figures if f.kind == "percent"]
    for total in totals:
        for share in shares:
            if total and share:
                yield total * share / 100
    for a, b in _pairs(_unlisted(figures, listed), "number", unit) if differences else ():
        if a > b:
            yield a - b


def _points(figures: Sequence[StatedNumber]) -> Iterator[float]:
    for a, b in _pairs(figures, "percent"):
        if a > b:
            yield a - b


def _day(figure: StatedNumber) -> float | None:
    """A date's or a year's day, in seconds (a month or a year without a day: its first)."""
    if figure.kind == "year" and isinstance(figure.value, Decimal):
        return float(figure.value - 1970) * YEAR
    if figure.kind != "date" or not isinstance(figure.value, str):
        return None
    parts = (figure.value.split("-") + ["01", "01"])[:3]
    try:
        day = date(int(parts[0]), int(parts[1]), int(parts[2]))
    except ValueError:
        return None
    return (day - date(1970, 1, 1)).days * DAY


def _durations(figures: Sequence[StatedNumber]) -> Iterator[float]:
    """The time between two dates, or two years, of `figures` (in seconds; dates with
    dates, years with years: "2015" is no day of 2015)."""
    for kind in ("date", "year"):
        days = [d for f in figures[: MAX_FIGURES * 2] if f.kind == kind and (d := _day(f))]
        for i, a in enumerate(days):
            for b in days[i + 1 :]:
                if a != b:
                    yield abs(a - b)


_COMPLEMENT = re.compile(
    r"\b(?:not|never|no longer|without|the rest|remaining|the others|other than)\b|n't", re.I
)
_PER_UNIT = re.compile(
    r"\b(?:each|per|apiece|on average|an average|average of)\b"
    r"|\ban? (?:second|minute|hour|day|week|month|year)\b",
    re.I,
)
_PER_TIME = re.compile(r"\b(?:an?|per|each) (second|minute|hour|day|week|month|year)\b", re.I)
_SECONDS = {
    "second": 1.0, "minute": 60.0, "hour": 3600.0, "day": DAY, "week": 7 * DAY,
    "month": YEAR / 12, "year": YEAR,
}  # fmt: skip
_RISE = re.compile(
    r"\b(?:rose|rise[sn]?|rising|grew|grow[sn]?|growth|increase[sd]?|increasing|gain(?:ed|s)?"
    r"|jump(?:ed|s)?|climb(?:ed|s)?|add(?:ed|s|ing)?|more|higher|larger|bigger|up)\b",
    re.I,
)
_FALL = re.compile(
    r"\b(?:fell|fall(?:s|en)?|drop(?:ped|s)?|decline[sd]?|decrease[sd]?|shr[aiu]nk|cut"
    r"|reduc(?:ed|es|tion)|lost|los(?:es|ing)|fewer|less|lower|smaller|down)\b",
    re.I,
)
_COMPARED = re.compile(
    r"\d\s?%\s+(?:[^\W\d_]+\s+)?(?:faster|slower|more|less|fewer|higher|lower|larger"
    r"|smaller|bigger|longer|shorter|cheaper|better|worse)\b",
    re.I,
)
_TOTAL = re.compile(r"\b(?:in total|a total|combined|together|altogether|in all|all told)\b", re.I)


@dataclass(frozen=True, slots=True)
class Cues:
    """What the claim's words say it computed, beyond what its figure's kind says: the
    computations that any pair of figures would too often yield by chance are tried only
    when the claim says so."""

    complement: bool = False
    """"did not", "never", "the rest": a share may be 100% less the page's."""
    per_unit: bool = False
    """"each", "per", "on average", "an hour": a quotient of two figures of one sentence."""
    per_time: float = 0.0
    """"a second", "per hour": the seconds of the time a rate is per (0: none), so that a
    count over a duration is a rate in the claim's unit ("83 a second" from 7.2 million in
    24 hours)."""
    total: bool = False
    """"in total", "combined", "together": a sum or a product of two figures of one
    sentence."""
    rise: bool = False
    """"rose", "grew", "more": a change is counted from the smaller figure (80 to 100 is
    25% more, never 20%)."""
    fall: bool = False
    """"fell", "less", "smaller": a change is counted from the larger figure (100 to 80 is
    20% less, never 25%)."""
    margin: bool = False
    """The text the figures are of gives a percentage that is no input (an error margin:
    `pageindex.Sentence.inputs`): it is the percentage of its own that a share or a change
    computed from two of them would be compared with, so none is."""
    listed: frozenset[str] = frozenset()
    """The kinds ("percent", "number": bare counts) of which the figures hold more than two:
    a multiple or a difference of two of them is of the two the claim compares
    (`research.sources.points.paired_between`), never of any pair."""
    share: bool = False
    """A percentage is a share of the larger figure, never the change between them (of two
    rows of a table, 41% of one is no "60% of" it, 59% less): set by whoever combines
    figures that are no part and whole, when the claim names no change."""

    compared: bool = False
    """A percentage is followed by a comparative ("35% faster than", "20% more"): it is a
    change of two figures, never the share of one in the other (0.44 s is 67% of 0.66 s,
    no "67% faster")."""

    def against(self, page: str) -> Cues:
        """These cues for figures of `page` (a passage's text): no complement where the
        page says "not" too ("4 in 5 speak a language other than ..." is no complement
        of "1 in 5 ... other than ...")."""
        if self.complement and _COMPLEMENT.search(page):
            return replace(self, complement=False)
        return self


NO_CUES = Cues()


@lru_cache(maxsize=1024)
def cues_of(claim: str) -> Cues:
    """The `Cues` of a claim's text (asked once per figure: kept)."""
    per_time = _PER_TIME.search(claim)
    return Cues(
        complement=bool(_COMPLEMENT.search(claim)),
        per_unit=bool(_PER_UNIT.search(claim)),
        per_time=_SECONDS[casefold.key(per_time.group(1))] if per_time else 0.0,
        total=bool(_TOTAL.search(claim)),
        rise=bool(_RISE.search(claim)),
        fall=bool(_FALL.search(claim)),
        compared=bool(_COMPARED.search(claim)),
    )


def _written(figure: StatedNumber) -> float | None:
    """A figure's value as written (24 for "24 hours"), or None for a date or a version."""
    return float(figure.value) if isinstance(figure.value, Decimal) else None


RATE = "1 / second"
"""The dimension of a count per unit of time (`research.sources.equivalents.rate_after`)."""


def _per_units_and_totals(
    figures: Sequence[StatedNumber], number: StatedNumber, cues: Cues
) -> Iterator[float]:
    """Quotients ("120 tickets each" from 1,440 tickets and 12 engineers; "300,000 requests
    an hour" from 7.2 million in 24 hours), sums ("200 in Europe and North America
    combined" from 120 and 80) and products ("512 GB in total" from 8 nodes of 64 GB) of
    two figures of `figures` (one sentence's): the first in the claim's dimension, the
    second a bare count (any figure for a quotient: its value as written)."""
    dimension = number.quantity.unit.dimension if number.quantity else None
    rate = dimension == RATE  # "83 requests a second": in base units, per second
    usable = [f for f in _usable(figures) if not f.multiple]
    for a, b in permutations(usable, 2):
        dimension_a = a.quantity.unit.dimension if a.quantity else None
        if rate and dimension_a is None:
            dimension_a = RATE  # a count over a duration is the claim's rate
        if dimension_a != dimension or a.kind != number.kind or not a.magnitude:
            continue
        written = _written(b)
        if cues.per_unit and written and not rate:
            yield a.magnitude / written
        time = b.quantity.base if b.quantity and b.quantity.unit.dimension == "second" else 0
        if rate and time:
            yield a.magnitude / time  # 7.2 million in 24 hours: 83 a second
        elif cues.per_time and time:
            yield a.magnitude * cues.per_time / time
        if cues.total and b.quantity is None and b.kind == "number" and written:
            yield a.magnitude * written
        if cues.total and b.kind == a.kind and b.quantity is None and a.quantity is None:
            yield a.magnitude + (b.magnitude or 0)


def _sentence_changes(
    figures: Sequence[StatedNumber], number: StatedNumber, cues: Cues
) -> Iterator[float]:
    """Changes of two figures of one sentence when the claim says which way (`Cues.rise`,
    `Cues.fall`): a difference of two counts of any size ("added three maintainers" from
    "grew from 12 to 15"), and the relative change of two percentages ("grew by a quarter"
    from 40% to 50%)."""
    if not (cues.rise or cues.fall) or number.quantity is not None:
        return
    rise, fall = not cues.fall or cues.rise, not cues.rise or cues.fall
    kind = "percent" if number.kind == "percent" else "number"
    for a, b in _pairs(_unlisted(_usable(figures), cues.listed), kind):
        if a <= b:
            continue
        if kind == "number":
            yield a - b
        else:
            yield from [100 * (a - b) / b] if rise else []
            yield from [100 * (a - b) / a] if fall else []


def _complements(figures: Sequence[StatedNumber]) -> Iterator[float]:
    for p in (f.magnitude for f in figures if f.kind == "percent" and f.magnitude):
        if p < 100:
            yield 100 - p  # "63% did not" from "37% did"


def computed_in_sentence(number: StatedNumber, figures: Sequence[StatedNumber], cues: Cues) -> bool:
    """Whether a claim's figure is one of the computations of two figures of one sentence
    (`figures`) that only its words call for, beyond what `derivable` computes: a quotient,
    a sum or a product of two of them (`_per_units_and_totals`), or a change the way they
    say (`_sentence_changes`)."""
    if not (cues.per_unit or cues.total or cues.rise or cues.fall) or len(figures) < 2:
        return False
    bounds = _range(number)
    if bounds is None or number.multiple or "point" in number.text.lower():
        return False
    low, high = _in_base(number, bounds)
    derived = chain(
        _per_units_and_totals(figures, number, cues), _sentence_changes(figures, number, cues)
    )
    return any(low <= value <= high for value in derived)


def within(number: StatedNumber, values: Iterable[float]) -> bool:
    """Whether one of `values` (in base units) is a claim's figure, within its hedge's band
    or, without one, its rounding (see the module docstring)."""
    found = bounds_of(number)
    return found is not None and any(found[0] <= value <= found[1] for value in values)


def bounds_of(number: StatedNumber) -> tuple[float, float] | None:
    """The values (in base units) `within` takes for a claim's figure, or None."""
    bounds = _range(number)
    return None if bounds is None else _in_base(number, bounds)


def is_duration(number: StatedNumber) -> bool:
    """Whether a claim's figure is a duration of a day or more (computed from dates)."""
    unit = number.quantity.unit if number.quantity else None
    return unit is not None and unit.dimension == "second" and unit.factor >= DAY


def derivable(number: StatedNumber, figures: Sequence[StatedNumber], cues: Cues = NO_CUES) -> bool:
    """Whether a claim's figure is computed from `figures` (see the module docstring); the
    complement of a percentage ("63% did not" from "37% did") only when `cues` say so."""
    if not figures:
        return False  # nothing to compute it from
    reading = reading_of(number)
    if reading is None:
        return False
    low, high = reading.bounds
    return any(low <= value <= high for value in derived_values(reading.way, figures, cues))


@dataclass(frozen=True, slots=True)
class Way:
    """How `derivable` computes a claim's figure from a page's, whatever its value: the
    values it derives depend on this, the figures and the cues alone (so that they may be
    worked out once for many figures: `computed._derives`)."""

    duration: bool
    """A duration of a day or more: also the time between two dates (`_durations`)."""
    kind: str
    """"points", "percent", "multiple" or "count"."""
    shrink: bool = False
    """A multiple under 1 ("halved")."""
    unit: str | None = None
    """A count's dimension (None: a bare count)."""
    differences: bool = False
    """A count may be the difference of two figures."""


@dataclass(frozen=True, slots=True)
class Reading:
    """A claim's figure as `derivable` reads it: its `Way` and its bounds in base units."""

    way: Way
    bounds: tuple[float, float]


def reading_of(number: StatedNumber) -> Reading | None:
    """How `derivable` reads a claim's figure, or None when it computes none like it."""
    bounds = _range(number)
    if bounds is None or number.kind not in ("number", "percent"):
        return None
    duration = is_duration(number)
    if number.kind == "percent":
        way = Way(duration, "points" if "point" in number.text.lower() else "percent")
    elif number.multiple:
        shrink = number.magnitude is not None and number.magnitude < 1
        way = Way(duration, "multiple", shrink=shrink)
    else:
        unit = number.quantity.unit.dimension if number.quantity else None
        # a small bare figure is the difference of too many pairs to mean anything
        large = isinstance(number.value, Decimal) and number.value >= 100
        way = Way(duration, "count", unit=unit, differences=unit is not None or large)
    return Reading(way, _in_base(number, bounds))


def derived_values(way: Way, figures: Sequence[StatedNumber], cues: Cues) -> Iterator[float]:
    """The values (in base units) `derivable` computes from `figures` for a figure read
    `way`."""
    if way.duration:
        yield from _durations(figures)
    usable = _usable(figures)
    if way.kind == "points":
        yield from _points(usable)
    elif way.kind == "percent":
        yield from _shares_and_changes(usable, cues)
        if cues.complement:
            yield from _complements(usable)
    elif way.kind == "multiple":
        yield from _multiples(usable, shrink=way.shrink, listed=cues.listed)
    else:
        yield from _counts(usable, way.unit, differences=way.differences, listed=cues.listed)
