"""A figure as a quantity: its unit through pint, how exact it claims to be, and the hedges
that widen it (pure; pint is imported once, on the first unit read).

A unit after a figure ("1,950 MB/s", "0.25 seconds", "768 MiB", "20kWh") is looked up in
pint's registry once per spelling (`unit_of`, cached) and kept as a factor to pint's base
units and the name of those units, so comparing two quantities is float arithmetic, never
a pint call. Bytes and bits share one dimension (pint's base unit is the bit), as do GB/s
and Mbit/s. A prefix of data is read both ways ("512 MB" is 512,000,000 bytes or 512 MiB,
"45 KB" 45,000 or 46,080 bytes: `binary_ratio`), as writers use "MB" and "KB" for both.

How exact a figure claims to be (`step`): half a unit of its last written digit ("2 GB/s":
0.5 GB/s, "1,950 MB/s": 5 MB/s, "12,000": 500; a quantity's at most `STEP_SHARE` of it,
so "a fortnight" is no 10 days). A figure converted from another unit is
rounded by whoever converted it, so a page's figure in another unit matches when it is
nearer than the claim's step (90 minutes is no "2 hours": it is as near 1 hour); in the
same unit (or without a unit) the figure itself must be on the page. A hedge's band
replaces the step in every unit ("under a minute" is not 75 seconds).

`HEDGES` is the one table of words that mark a figure as approximate or as a bound, each
with its band: the page's figure may lie between low x and high x the claim's figure. A
claim's hedge is no content word the page must hold (`hedge_before` says where it starts).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Any

from research.sources import casefold

HEDGES: dict[str, tuple[float, float]] = {
    # approximately: within a tenth either way
    "about": (0.9, 1.1), "around": (0.9, 1.1), "roughly": (0.9, 1.1),
    "approximately": (0.9, 1.1), "approx": (0.9, 1.1), "circa": (0.9, 1.1), "ca": (0.9, 1.1),
    "some": (0.9, 1.1), "~": (0.9, 1.1), "\u2248": (0.9, 1.1), "an estimated": (0.9, 1.1),
    "estimated": (0.9, 1.1), "close to": (0.9, 1.1), "in the region of": (0.9, 1.1),
    "in the neighbourhood of": (0.9, 1.1), "in the neighborhood of": (0.9, 1.1),
    "of the order of": (0.5, 2.0), "on the order of": (0.5, 2.0),
    # a vague count, written by `research.sources.wordcounts` as "several" and twice its
    # unit ("thousands of", "several thousand", "a few thousand": "several 2000"): two
    # to ten of its unit
    "several": (1.0, 5.0),
    # just short of it
    "almost": (0.9, 1.0), "nearly": (0.9, 1.0), "just under": (0.9, 1.0),
    "just below": (0.9, 1.0), "not quite": (0.9, 1.0), "just shy of": (0.9, 1.0),
    "shy of": (0.9, 1.0), "a little under": (0.9, 1.0), "a little less than": (0.9, 1.0),
    "slightly under": (0.9, 1.0), "slightly below": (0.9, 1.0),
    "slightly less than": (0.9, 1.0), "just short of": (0.9, 1.0),
    # just past it
    "just over": (1.0, 1.1), "just above": (1.0, 1.1), "a little over": (1.0, 1.1),
    "a little more than": (1.0, 1.1), "slightly over": (1.0, 1.1),
    "slightly above": (1.0, 1.1), "slightly more than": (1.0, 1.1),
    "just more than": (1.0, 1.1),
    # a lower bound: past it, within half again (past that the writer would give a larger
    # figure); "well over" it, within three times
    "more than": (1.0, 1.5), "over": (1.0, 1.5), "above": (1.0, 1.5), "upwards of": (1.0, 1.5),
    "in excess of": (1.0, 1.5), "exceeding": (1.0, 1.5), "north of": (1.0, 1.5),
    "at least": (1.0, 1.5), "no fewer than": (1.0, 1.5), "no less than": (1.0, 1.5),
    "a minimum of": (1.0, 1.5),
    "well over": (1.0, 3.0), "well above": (1.0, 3.0), "far more than": (1.0, 3.0),
    "well in excess of": (1.0, 3.0),
    # an upper bound: the page's figure is below it, within a factor of five (past that
    # the writer would give a smaller bound: "under 1%" for 0.4%, not for 0.1%)
    "less than": (0.2, 1.0), "fewer than": (0.2, 1.0), "under": (0.2, 1.0),
    "below": (0.2, 1.0), "at most": (0.2, 1.0), "up to": (0.2, 1.0),
    "no more than": (0.2, 1.0), "not more than": (0.2, 1.0), "a maximum of": (0.2, 1.0),
    "well under": (0.2, 1.0), "well below": (0.2, 1.0), "far less than": (0.2, 1.0),
    "far fewer than": (0.2, 1.0),
}  # fmt: skip
"""Hedge -> (low, high): the page's figure may be from low x to high x the claim's."""

_SYMBOLS = frozenset({"~", "\u2248"})
_CURRENCY = "$\u20ac\u00a3\u00a5"
_HEDGE_BEFORE = re.compile(
    r"(?:(?<![\w-])(?P<word>"
    + "|".join(re.escape(w) for w in sorted(HEDGES, key=len, reverse=True) if w not in _SYMBOLS)
    + rf")\.?|(?P<symbol>[~\u2248]))\s*[{_CURRENCY}]?\s*$",
    re.IGNORECASE,
)
_TRAILING = _CURRENCY + "."


def last_word(text: str) -> str:
    """The letters `text` ends with, before any spaces, currency signs and dots, in lower
    case ("" when it ends otherwise): a cheap test before a pattern that must end the text
    with one of a list of words, which then ends it with that word's `last_word`."""
    end = len(text)
    while end and (text[end - 1].isspace() or text[end - 1] in _TRAILING):
        end -= 1
    start = end
    while start and text[start - 1].isalpha():
        start -= 1
    return text[start:end].lower()


def ends_of(words: Iterable[str]) -> frozenset[str] | None:
    """The `last_word` of each of `words`, or None when one is not ASCII (a pattern's
    letter may then match another letter in any case, which `last_word` cannot tell)."""
    ends = frozenset(last_word(word) for word in words)
    return ends if all(end.isascii() for end in ends) else None


def may_end_with(text: str, ends: frozenset[str] | None) -> bool:
    """Whether `text` may end with a word whose `last_word` is among `ends` (from
    `ends_of`; None: it may)."""
    if ends is None:
        return True
    end = last_word(text)
    return not end.isascii() or end in ends


_HEDGE_ENDS = ends_of(HEDGES)

# Spellings pint reads as something a page rarely means after a figure ("5 in", "3 a",
# "2 at", "10 K users", "5B dollars", "2019 as", "Python 2 has", "at 5 pm", "100,000 blobs"
# (a slinch), "one cycle in eleven" (a turn), "361,828,925 rd" (reads, no rutherfords)), and the
# computing sizes pint spells otherwise.
_NOT_UNITS = frozenset(
    """in a at are point points quarter quarters b B K k M pint pints cup
    cups bar bars turn turns line lines hand hands degree degrees count counts percent ppm
    ppb x times fold ha mil gal tons ton as am pm me he has ca rc cd pt dr gr ct sr au pc ly
    mi rd blob blobs cycle cycles""".split()
)
_UNIT_ALIASES = {
    "KB": "kilobyte", "kb": "kilobit", "Kb": "kilobit", "Mb": "megabit", "Gb": "gigabit",
    "Tb": "terabit", "kbps": "kilobit/second", "Mbps": "megabit/second",
    "Gbps": "gigabit/second", "Kbps": "kilobit/second", "decade": "decayear",
    "decades": "decayear",
}  # fmt: skip
_RATE_ALIASES = {"B": "byte"}
"""Spellings that are units only before "/" ("B/s"; "5 B" alone is no unit)."""
_UNIT_TOKEN = re.compile(
    r"[ \u00a0-]?(?P<unit>[^\W\d_][^\W\d]*(?:-[^\W\d_]+)?(?:[\u00b2\u00b3]|\^?[23])?"
    r"(?:(?:/| per )[^\W\d_][^\W\d]*)?)"
)
_SHORT_OK = frozenset({"s", "h", "d", "t", "m", "g", "l", "L", "W", "J", "V", "A", "B"})


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit as pint reads it: the factor to the base units and their name."""

    name: str
    """pint's name for it ("megabyte / second")."""
    dimension: str
    """pint's base units ("bit / second"): two quantities compare only in one dimension."""
    factor: float


@dataclass(frozen=True, slots=True)
class Quantity:
    """A figure with a unit, in base units."""

    unit: Unit
    base: float
    """The figure in base units."""
    step: float
    """Half a unit of its last written digit, in base units (how exact it claims to be)."""

    def same(self, page: Quantity) -> bool:
        """Whether the page's quantity is this one: the same value in the same unit, or,
        in another unit of the dimension, within this figure's step (in either reading of
        a prefix of data, the claim's and the page's: `binary_ratio`; "33,554,432 bytes"
        for a page's "32 MB")."""
        if page.unit.dimension != self.unit.dimension:
            return False
        if page.unit.name == self.unit.name:
            return _close(page.base, self.base)
        return any(
            abs(page.base * theirs - self.base * ratio) < self.step * ratio * (1 - 1e-9)
            for ratio in readings(self.unit)
            for theirs in readings(page.unit)
        )


_DECIMAL_PREFIXES = {"kilo": 1, "mega": 2, "giga": 3, "tera": 4, "peta": 5}
_BINARY_PREFIXES = {"kibi": 1, "mebi": 2, "gibi": 3, "tebi": 4, "pebi": 5}
_DATA = frozenset({"bit", "bit / second"})


def binary_ratio(unit: Unit) -> float | None:
    """For a unit of data (or a rate of it) with a decimal prefix ("MB", "kilobytes"), how
    much larger its binary twin is (MiB: 1.048576), which writers often mean by it; for a
    binary prefix, the inverse; else None."""
    if unit.dimension not in _DATA:
        return None
    for prefix, power in _DECIMAL_PREFIXES.items():
        if unit.name.startswith(prefix):
            return float((1024 / 1000) ** power)
    for prefix, power in _BINARY_PREFIXES.items():
        if unit.name.startswith(prefix):
            return float((1000 / 1024) ** power)
    return None


def readings(unit: Unit) -> tuple[float, ...]:
    """The factors a figure in `unit` may be multiplied by for what it means: 1, and its
    `binary_ratio` when it has one."""
    ratio = binary_ratio(unit)
    return (1.0,) if ratio is None else (1.0, ratio)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300)


_REGISTRY: Any = None


def _registry() -> Any:
    """pint's default registry, built on first use (about 0.2 s)."""
    global _REGISTRY
    if _REGISTRY is None:
        import pint

        _REGISTRY = pint.UnitRegistry()
    return _REGISTRY


@lru_cache(maxsize=4096)
def unit_of(spelling: str) -> Unit | None:
    """The unit a spelling names ("MB/s", "milliseconds", "kWh"), or None for a word pint
    does not know as a unit or that rarely means one after a figure ("in", "a", "K")."""
    parts = re.split(r"/| per ", spelling)
    first = parts[0]
    if len(parts) == 2 and first in _RATE_ALIASES:
        first = _RATE_ALIASES[first]
    elif spelling in _NOT_UNITS or first in _NOT_UNITS:
        return None
    if len(first) == 1 and first not in _SHORT_OK:
        return None
    if " per " in spelling and parts[1].isupper():
        return None  # "per GC cycle", "per CPU": a thing counted, no unit of charge
    if spelling in _UNIT_ALIASES:
        text = _UNIT_ALIASES[spelling]
    else:
        text = "/".join([_UNIT_ALIASES.get(first, first), *parts[1:]])
    try:
        registry = _registry()
        quantity = registry.Quantity(1.0, registry.parse_units(text))
        base = quantity.to_base_units()
        if registry.Quantity(0.0, quantity.units).to_base_units().magnitude != 0:
            return None  # an offset unit (degrees Celsius): no factor
    except Exception:  # noqa: BLE001 - pint raises many kinds for a word that is no unit
        return None
    return Unit(name=str(quantity.units), dimension=str(base.units), factor=float(base.magnitude))


def unit_after(text: str, end: int) -> tuple[Unit, int] | None:
    """The unit written right after the figure that ends at `end`, and where it ends."""
    match = _UNIT_TOKEN.match(text, end)
    if match is None:
        return None
    spelling = match.group("unit")
    if "-" in spelling:  # "terawatt-hours"; else only "4.2-kilometre"'s first word
        joined = unit_of(spelling.replace("-", "_"))
        if joined is not None:
            return joined, match.end()
        spelling = spelling.split("-")[0]
        unit = unit_of(spelling)
        return (unit, match.start("unit") + len(spelling)) if unit else None
    unit = unit_of(spelling)
    if unit is None and ("/" in spelling or " per " in spelling):
        spelling = re.split(r"/| per ", spelling)[0]
        unit = unit_of(spelling)
        return (unit, match.start("unit") + len(spelling)) if unit else None
    return (unit, match.end()) if unit else None


_NOT_DIGITS = re.compile(r"[^\d.]")


def step_of(written: str, value: Decimal) -> Decimal:
    """Half a unit of the last written digit of a figure as written ("1,950" -> 5, "2" ->
    0.5, "0.25" -> 0.005, "12,000" -> 500), scaled like `value` ("1.2 million" -> 50,000)."""
    digits = _NOT_DIGITS.sub("", written.replace(",", "")).strip(".") or "0"
    whole, _, frac = digits.partition(".")
    if frac:
        unit = Decimal(1).scaleb(-len(frac))
    else:
        stripped = whole.rstrip("0")
        unit = Decimal(1).scaleb(len(whole) - len(stripped)) if stripped else Decimal(1)
    base = Decimal(digits) if digits.replace(".", "").isdigit() else Decimal(0)
    scale = value / base if base else Decimal(1)
    return abs(unit * scale / 2)


HEDGE_REACH = 32
"""How many characters before a figure are looked at for its hedge."""


REACHES = ("up to", "a maximum of")
"""Upper bounds that say the figure reaches them, not only that it stays below: "cuts build
times by up to 50%" says some builds are cut by 50%."""
REACH_ROUNDING = 0.95
"""A claim's reach restates a page's upper bound when the page's is at least this share of
it (and no more than it)."""


def hedge_side(band: tuple[float, float]) -> int:
    """Which side of its figure a hedge puts the true value: +1 at or above ("more than",
    "just over"), -1 at or below ("under", "up to", "nearly"), 0 either ("about")."""
    low, high = band
    if low >= 1.0 and high > 1.0:
        return 1
    if high <= 1.0 and low < 1.0:
        return -1
    return 0


def page_bound(band: tuple[float, float]) -> int:
    """A page's hedge read as a bound: +1 a lower bound ("more than 50%", "at least 50%":
    past it by any amount), -1 an upper bound ("under 2%", "up to 50%"), 0 no bound (an
    approximation, "about", "nearly", "just over": the page's figure is read as written)."""
    low, high = band
    if low == 1.0 and high >= 1.5:
        return 1
    if high == 1.0 and low <= 0.2:
        return -1
    return 0


_NEGATED = re.compile(r"(?:\b(?:not|never|no)\b|n't)[^.,;:]{0,24}$", re.IGNORECASE)


def claim_side(text: str, hedge_start: int, band: tuple[float, float]) -> int:
    """`hedge_side` of a claim's hedge starting at `hedge_start`, the other way when a
    negation comes shortly before it ("never holds more than 100": at or below 100)."""
    side = hedge_side(band)
    if side and negated(text, hedge_start):
        return -side
    return side


def negated(text: str, hedge_start: int) -> bool:
    """Whether a negation comes shortly before the hedge starting at `hedge_start`."""
    return _NEGATED.search(text, max(0, hedge_start - 32), hedge_start) is not None


def bound_meets(bound: int, side: int, reach: bool, ratio: float) -> bool:
    """Whether a claim's figure (`side`: its hedge's `claim_side`, 0 without a hedge;
    `reach`: its hedge is one of `REACHES`) may be read from a page's figure that the page
    bounds (`bound`: `page_bound`; `ratio`: the page's figure over the claim's). A bound on
    the page is a bound:

    | page's figure | claim's hedge | the page's figure P, the claim's C |
    |---|---|---|
    | no bound | any | P in C's band (`HEDGES`) or rounding |
    | any | none, or "about" | P in C's band or rounding |
    | upper ("up to 50%") | a reach ("up to") | P is C: not "up to 60%" |
    | upper | upper or below ("under") | P in C's band: "under 60%" |
    | upper | above ("more than") | never |
    | lower ("over 50%") | below ("up to", "nearly") | never |
    | lower | above ("at least") | P in C's band: "over 40%" |

    A claim without a hedge ("cuts build times by 50%" for "by up to 50%") drops the page's
    bound; the figure is the page's, and what the bound says is the judge's to weigh."""
    if not bound or not side:
        return True
    if side == -bound:
        return False
    if reach and bound < 0:
        return REACH_ROUNDING - 1e-9 <= ratio <= 1.0 + 1e-9
    return True


def ends_with_hedge(text: str) -> bool:
    """Whether `text` ends with a hedge (`HEDGES`: "nearly", "more than", "~"), as a whole
    word, before any spaces and currency sign."""
    return may_end_with(text, _HEDGE_ENDS) and _HEDGE_BEFORE.search(text) is not None


def hedge_before(text: str, start: int) -> tuple[tuple[float, float], int] | None:
    """The band of the hedge right before the figure at `start` ("about", "more than",
    "~") and where the hedge starts, or None."""
    reach = max(0, start - HEDGE_REACH)
    if not may_end_with(text[reach:start], _HEDGE_ENDS):
        return None  # no hedge ends there: the pattern need not be tried
    match = _HEDGE_BEFORE.search(text, reach, start)
    if match is None:
        return None
    word = match.group("symbol") or casefold.key(match.group("word"))
    return HEDGES[word], match.start()


STEP_SHARE = 0.25
"""A converted figure's step is at most this share of it: "a fortnight" (1 of its unit,
step 0.5) is not 10 days, "1 GB" not 1,500 MB."""


def quantity(value: Decimal, written: str, unit: Unit) -> Quantity:
    """The figure `value` (as `written`) in `unit`, in base units."""
    step = min(float(step_of(written, value)), STEP_SHARE * abs(float(value)))
    return Quantity(unit=unit, base=float(value) * unit.factor, step=step * unit.factor)
