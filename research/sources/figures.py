"""The figures a text states (pure; units through `research.sources.quantities`).

Figures (`claim_numbers`): digits, with
- thousands separators "1,200", "1 200" (thin, narrow or no-break space only) and the
  European "1.200.000" / "1.200,5"; a single comma followed by one, two or four or more
  digits is a decimal comma ("2,5" = 2.5), while three digits after a comma are always
  thousands ("2,500" = 2500, never 2.5);
- scales "thousand", "million"/"mn"/"mln", "billion"/"bn", "trillion"/"tn", and the
  glued single letters "1.2k", "1.2M", "3.5b", which may also be a unit (metres), so they
  match either reading ("64K" also its binary reading, 65,536);
- percentages "12%", "12 %", "12 percent", "12 per cent", "12 pct", "0.25 percentage
  points"; a percentage in a claim must be a percentage on the page; a "%" after a space
  and before a letter starts a directive or a format ("four %TAG directives", "%d"), no
  percentage;
- ranges lend their scale or percent sign to their first figure ("1.2-1.5 million",
  "10 to 12%"), and "2019/20" also means 2020;
- no sign: "-5%" and "5%" are the same figure ("fell 5%" is how pages say it);
- numbered names ("phase 3") are kind "label" (see above);
- not figures: citation markers "[3]", list ordinals "1." at the start of a line,
  ordinals "21st", identifiers glued to letters ("CO2", "R290", "COVID-19", but
  "mid-2022", "pre-2020" are years); a figure
  glued to a unit ("20kWh") is a figure; dotted versions "3.12.1" compare as text;
- a unit after a figure ("1,950 MB/s", "0.25 seconds", "4.2-kilometre", "30s") makes it a
  quantity, compared in base units with the same quantity in another unit ("2048 KiB" is
  no year; "the 30s" and "1990s" are decades, not seconds);
- a claim's figure after a hedge ("about", "more than", "nearly") carries the hedge's band,
  and one written with a scale ("1.2 million", "12k") the band of its rounding at that
  scale (half a unit of its last digit);
- dates as `research.sources.spelling` writes them ("3 March 2021", "March 2021") are one
  figure each; a page's day also means its month and its year, and a claim's month its
  year (a page may name the month alone, its year in the dateline), but not a page's date
  in another month; a quarter ("Q1 2021", "the first quarter of 2021") is one figure too,
  a claim's any of its months;
- a count per unit of time ("180 requests per minute", "4 times a day") is a rate, a
  multiple shares a token with the percentage it is ("tripled", "rose 200%"), a period
  with its rate ("every 6 hours", "4 times a day"), and a claim's hedge that names a
  group's boundary ("children under 15") leaves its figure exact
  (`research.sources.equivalents`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from research.sources import casefold, datefigures
from research.sources.equivalents import (
    boundary,
    multiple_tokens,
    page_upper_token,
    percent_tokens,
    period_token,
    rate_after,
    rate_token,
    upper_boundary,
)
from research.sources.linemarks import LIST_MARK
from research.sources.quantities import (
    REACHES,
    Quantity,
    bound_meets,
    claim_side,
    ends_of,
    hedge_before,
    may_end_with,
    negated,
    page_bound,
    quantity,
    readings,
    step_of,
    unit_after,
)
from research.sources.rawfigure import RawFigure, Value
from research.sources.registry import _BARE_URL, _CITATION, _FILE_REF

_SEP = "\u00a0\u2007\u2009\u202f"  # no-break, figure, thin and narrow no-break spaces
_NOT_LETTER = r"(?![^\W\d_])"
_NUMBER = re.compile(
    rf"(?<![\w.,{_SEP}])(?P<glued>(?<=[^\W\d_][-\u2010\u2011]))?"
    rf"(?P<body>\d+(?:[.,{_SEP}]\d+)*)"
    rf"(?:(?P<pct>[ {_SEP}-]?(?:(?<=\d)%|%{_NOT_LETTER}"
    rf"|per[ -]?cent(?:age[ -]points?)?{_NOT_LETTER}|pct{_NOT_LETTER}"
    rf"|percentage[ -]points?{_NOT_LETTER}))"
    rf"|[ {_SEP}]?(?P<word>thousand|million|billion|trillion|mln|mn|bn|tn){_NOT_LETTER}"
    rf"|(?P<letter>[kmbKMB]){_NOT_LETTER})?"
    r"(?P<tail>[^\W\d_]*)"
)
_SCALES = {
    "thousand": 3, "k": 3, "million": 6, "mn": 6, "mln": 6, "m": 6,
    "billion": 9, "bn": 9, "b": 9, "trillion": 12, "tn": 12,
}  # fmt: skip
_BINARY = {3: Decimal(1024), 6: Decimal(1024**2)}
"""A scale letter's binary reading: k/K 1024, m/M 1024 squared."""
_ORDINALS = frozenset({"st", "nd", "rd", "th"})
_DATE_PREFIX = re.compile(
    r"(?<![^\W\d_])(?:mid|pre|post|early|late|end|start)[-\u2010\u2011]$", re.I
)
_SPACED_THOUSANDS = re.compile(rf"\d{{1,3}}(?:[{_SEP}]\d{{3}})+(?:[.,]\d+)?")
_COMMA_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_DOT_THOUSANDS = re.compile(r"\d{1,3}(?:\.\d{3})+,\d+|\d{1,3}(?:\.\d{3}){2,}")
_DECIMAL_POINT = re.compile(r"\d+\.\d+")
_DECIMAL_COMMA = re.compile(r"\d+,(?:\d{1,2}|\d{4,})")  # never three digits: 2,500 is thousands
_VERSION = re.compile(r"\d+(?:\.\d+){2,}")
_RANGE_JOIN = re.compile(r"\s*(?:-|\u2013|\u2014|to|and)\s*[$\u20ac\u00a3\u00a5]?\s*")
_YEAR_TAIL_JOIN = frozenset({"/", "-", "\u2013"})
_LIST_JOIN = re.compile(
    r"\s*(?:,\s*(?:or\s+|and\s+)?|\s(?:or|and|to)\s|[-\u2013]|\s[-\u2013]\s)\s*"
)
_MULTIPLE_AFTER = re.compile(r"\s*(?:times|fold|x|\u00d7)(?![^\W\d_])", re.IGNORECASE)
_COMPARED_AFTER = re.compile(
    r"\s+(?:as|the|that|those|what|more|less|fewer|over|"
    r"(?!(?:per|after|under|ever|other|never|either|whether|water|paper|number|user|"
    r"order|power|server|cluster|layer|year|hour|quarter|member|customer)s?\b)[a-z]{2,}er)\b",
    re.IGNORECASE,
)
_CHANGED_BEFORE = re.compile(
    r"\b(?:grew|grow|grows|growing|rose|rise|rises|increased?|increases|increasing|jumped|"
    r"fell|falls?|dropped|declined|decreased?|shrank|multiplied|expanded|improved|cut|"
    r"reduced|doubled|tripled|boosted|sped up|slowed down)\s+(?:by\s+)?(?:about\s+|some\s+|"
    r"nearly\s+|almost\s+|roughly\s+)?$",
    re.IGNORECASE,
)


def _multiple(text: str, start: int, end: int) -> re.Match[str] | None:
    """The multiple word after a figure ("5 times faster", "2.5x", "tenfold"); "times"
    counts events instead ("ran 4,900 times", "run 5 times, and") unless a comparison
    follows it ("as", "the", "more", a comparative) or a change precedes the figure
    ("grew 4 times")."""
    found = _MULTIPLE_AFTER.match(text, end)
    if found is None or not found.group(0).strip().lower().startswith("times"):
        return found
    if _COMPARED_AFTER.match(text, found.end()) or _CHANGED_BEFORE.search(text, 0, start):
        return found
    return None


LINE_MARKER = re.compile(rf"^[ \t]*(?:{LIST_MARK}[ \t]+)+", re.MULTILINE)
# A figure right after one of these words names something ("phase 3", "round 5").
# After these it names the very thing the claim is about ("LGPL version 2.1", "page 48"):
# such a figure must be in the supporting passage, not just somewhere on the page.
_PINNED_BEFORE = re.compile(r"\b(version|section|level|page|table)\.?\s*$", re.IGNORECASE)
_LABEL_WORDS = (
    "phase round stage step tier level grade type version release wave category class article"
    " section chapter table figure fig page no number series generation"
).split()
_LABEL_BEFORE = re.compile(rf"\b(?:{'|'.join(_LABEL_WORDS)})\.?\s*$", re.IGNORECASE)
_LABEL_ENDS = ends_of(_LABEL_WORDS)


@dataclass(frozen=True, slots=True)
class StatedNumber:
    """A figure a text states."""

    text: str
    """As written, e.g. "1.2 million", "12 %"."""
    value: Value
    """The normalised value (1.2 million -> 1200000; a percentage keeps its number; a date
    its ISO form)."""
    kind: str
    """"percent", "year" (a bare 4-digit 1800-2100), "date" ("3 March 2021", "March
    2021"), "label" (a numbered name such as "phase 3"), "version" or "number"."""
    candidates: frozenset[Value]
    """Every value it may mean ("1.2m": 1200000 or 1.2; "2019/20": 20 or 2020)."""
    band: tuple[float, float] | None = field(default=None, compare=False)
    """A claim's hedge ("about", "more than"): the page's figure may lie from band[0] x to
    band[1] x this one (`research.sources.quantities.HEDGES`)."""
    quantity: Quantity | None = field(default=None, compare=False)
    """The figure with the unit written after it, in base units."""
    multiple: bool = field(default=False, compare=False)
    """A multiple: "3 times", "1.25x", "tripled" (written "3 times" by `spell_numbers`)."""
    span: tuple[int, int] = field(default=(0, 0), compare=False)
    """Where it is in the (normalised) text it was read from."""
    tokens: frozenset[str] = field(default=frozenset(), compare=False)
    """The same figure written another way (`research.sources.equivalents`: "× 3" for
    "tripled" and "rose 200%"); also among its candidates."""
    bound: int = field(default=0, compare=False)
    """A page's figure after a bound (`quantities.page_bound`): +1 "more than 50%", -1
    "under 2%" or "up to 50%", 0 none."""
    reach: bool = field(default=False, compare=False)
    """A claim's figure after a reach ("up to 50%": `quantities.REACHES`)."""
    side: int = field(default=0, compare=False)
    """A claim's figure after a hedge: the side of it the hedge puts the true value
    (`quantities.claim_side`: +1 "more than", -1 "under", "nearly", 0 "about" or none)."""
    count: bool = field(default=False, compare=False)
    """A claim's bare figure that counts things (`points.counts_things`): no percentage."""
    as_float: float | None = field(default=None, init=False, repr=False, compare=False)
    """Its value as a float, None when it is not a number (a date, a version)."""
    band_windows: tuple[tuple[float, float], ...] = field(
        default=(), init=False, repr=False, compare=False
    )
    """`windows()`, worked out once: a claim's figure is compared with many of a page's."""
    magnitude: float | None = field(default=None, init=False, repr=False, compare=False)
    """The figure as a float in base units (its unit's, if it has one), or None for a
    version or a date."""

    def __post_init__(self) -> None:
        number = float(self.value) if isinstance(self.value, Decimal) else None
        object.__setattr__(self, "as_float", number)
        base = self.quantity.base if self.quantity is not None else number
        object.__setattr__(self, "magnitude", base)
        if self.band is not None:  # else no windows, the default
            object.__setattr__(self, "band_windows", tuple(self._windows()))

    def matches(self, page: StatedNumber) -> bool:
        """Whether a page's figure may be this (a claim's) figure: the same value (a claim's
        percentage only as a percentage; a quantity only in its dimension), the same quantity
        in another unit within this figure's step, or within its hedge's band; or the
        same figure written another way (a token of `research.sources.equivalents`)."""
        if self.tokens and not self.tokens.isdisjoint(page.candidates):
            return True
        if page.bound and not self.meets_bound(page):
            return False
        percent = self.kind == "percent"
        if (percent or self.count) and (page.kind == "percent") != percent:
            return False  # a percentage only as a percentage, a count never as one
        if self.multiple and not page.multiple:
            return False  # "seven to one" is no count of seven things
        mine, theirs = self.quantity, page.quantity
        if mine is not None and theirs is not None:
            if mine.unit.dimension != theirs.unit.dimension:
                return False
            if mine.unit.name != theirs.unit.name:
                if self.band is not None:  # a hedge's band, not the rounding, says how near
                    return any(
                        self.within(theirs.base * t, mine.base * r)
                        for r in readings(mine.unit)
                        for t in readings(theirs.unit)
                    )
                return mine.same(theirs)
        if not self.candidates.isdisjoint(page.candidates):
            return True
        value = page.as_float
        if self.band is None or value is None:
            return False
        return any(low <= value <= high for low, high in self.band_windows)

    def meets_bound(self, page: StatedNumber) -> bool:
        """Whether this (a claim's) figure's hedge may be read from a page's figure given
        its bound (`quantities.bound_meets`)."""
        mine, theirs = self.magnitude, page.magnitude
        ratio = theirs / mine if mine and theirs is not None else 1.0
        return bound_meets(page.bound, self.side, self.reach, ratio)

    def within(self, value: float, mine: float) -> bool:
        """Whether `value` is in this figure's hedge band around `mine` (its own value)."""
        if self.band is None:
            return False
        low, high = self.band
        return low * mine - 1e-9 <= value <= high * mine + 1e-9

    def windows(self) -> list[tuple[float, float]]:
        """The ranges of page values (in the figure's own terms) it may match through its
        band, one per value it may mean; none without a band."""
        return list(self.band_windows)

    def _windows(self) -> list[tuple[float, float]]:
        if self.band is None:
            return []
        low, high = self.band
        return [
            (low * float(c) - 1e-9, high * float(c) + 1e-9)
            for c in self.candidates
            if isinstance(c, Decimal)
        ]


def claimed_values(numbers: Iterable[StatedNumber]) -> frozenset[Value]:
    """Every value any of `numbers` may stand for: a page figure none of them matches is
    one the claim lacks (a page's month holding a day of them, "March 2013" for "26 March
    2013", it does not lack: that figure gives the day less exactly, no other day)."""
    values: set[Value] = set()
    for n in numbers:
        values.update(n.candidates)
        if (
            n.kind == "date"
            and isinstance(n.value, str)
            and len(n.value) == datefigures.DAY_KEY_LENGTH
        ):
            values.add(datefigures.month_token(n.value[:7]))
    return frozenset(values)


def _body_values(body: str) -> list[tuple[str, Value]]:
    """(text, value) of the figure(s) a run of digits and separators stands for."""
    if body.isdigit():
        return [(body, Decimal(body))]
    if any(ch in _SEP for ch in body):
        if _SPACED_THOUSANDS.fullmatch(body):
            return _body_values(re.sub(f"[{_SEP}]", "", body))
        return [pair for part in re.split(f"[{_SEP}]+", body) for pair in _body_values(part)]
    if _COMMA_THOUSANDS.fullmatch(body):
        return [(body, Decimal(body.replace(",", "")))]
    if _DOT_THOUSANDS.fullmatch(body):
        return [(body, Decimal(body.replace(".", "").replace(",", ".")))]
    if _DECIMAL_POINT.fullmatch(body):
        return [(body, Decimal(body))]
    if _DECIMAL_COMMA.fullmatch(body):
        whole, _, frac = body.partition(",")
        return [(body, Decimal(f"{whole}.{frac}"))]
    if _VERSION.fullmatch(body):
        return [(body, body)]
    parts = [part for part in re.split(r"[.,]", body) if part]
    return [(part, Decimal(part)) for part in parts]


def raw_numbers(text: str, *, claim: bool = False) -> list[RawFigure]:
    """The figures of `text`, in order (see the module docstring for the forms); a claim's
    also with their rounding and their values in other units."""
    dates = datefigures.dates(text, claim=claim)
    if "uarter" in text or "Q" in text:
        dates = sorted(dates + datefigures.quarters(text, claim=claim), key=lambda d: d.start)
    if ":" in text:
        dates = sorted(dates + datefigures.times(text, claim=claim), key=lambda d: d.start)
    found: list[RawFigure] = []
    taken = iter(dates)
    date = next(taken, None)
    for match in _NUMBER.finditer(text):
        while date is not None and date.end <= match.start():
            found.append(date)
            date = next(taken, None)
        if date is not None and date.start <= match.start() < date.end:
            continue
        if not _is_identifier(text, match):
            found.extend(_figures_of(text, match))
    found.extend([date] if date is not None else [])
    found.extend(taken)
    _join_ranges(text, found)
    if "%" in text or "per" in text:
        _percent_lists(text, found)
    _compared_counts(text, found)
    if not claim:
        _spaced_thousands(text, found)
    _pin(text, found, claim=claim)
    _read_quantities(text, found, claim=claim)
    return found


_VERSUS = re.compile(r"(?:\s+[^\W\d_]+)?\s+(?:vs\.?|versus)\s+", re.IGNORECASE)


def _compared_counts(text: str, found: list[RawFigure]) -> None:
    """A year compared ("vs", "versus") with a figure that is no year is a count like it:
    "23449 vs 1969 words", "14210 lines vs 1987 lines"."""
    for first, second in zip(found, found[1:], strict=False):
        if not _VERSUS.fullmatch(text, first.end, second.start):
            continue
        kinds = (first.kind, second.kind)
        if kinds in (("year", "number"), ("number", "year")):
            year = first if first.kind == "year" else second
            year.kind = "number"
            year.candidates.discard(datefigures.year_token(int(year.value)))


# A page's short option of digits ("gzip -9", "| zstd -19 |") is a tool's level: it also
# matches a claim's "level 9".
_OPTION_BEFORE = re.compile(r"(?:^|(?<=\s))-$")
_OPTION_LEVEL = re.compile(r"(?=\s|$|[|,;)])")


def _pin(text: str, found: list[RawFigure], *, claim: bool) -> None:
    """A figure after version, section, level, page or table means "<word> <figure>": a
    claim's matches only the page's figure after the same word (a page's also matches the
    bare figure, "GPL 3" for "GPL version 3")."""
    for raw in found:
        if not isinstance(raw.value, Decimal):
            continue
        if not claim and raw.kind == "number" and _OPTION_LEVEL.match(text, raw.end):
            if _OPTION_BEFORE.search(text, max(0, raw.start - 2), raw.start):
                raw.candidates = raw.candidates | {f"level {_normal(raw.value)}"}
            continue
        if raw.kind != "pinned":
            continue
        label = _PINNED_BEFORE.search(text, max(0, raw.start - 24), raw.start)
        if label is None:
            continue
        pinned = f"{label.group(1).lower()} {_normal(raw.value)}"
        raw.candidates = {pinned} if claim else raw.candidates | {pinned}


def _is_identifier(text: str, match: re.Match[str]) -> bool:
    """An ordinal ("21st") or a figure glued to letters (COVID-19, Scope-3; not mid-2022)."""
    if match.group("tail").lower() in _ORDINALS and not (match.group("pct") or match.group("word")):
        return True
    return match.group("glued") is not None and not _DATE_PREFIX.search(
        text, max(0, match.start() - 8), match.start()
    )


def _kind(text: str, match: re.Match[str], part: str, value: Value, index: int, last: bool) -> str:
    """The kind of the `index`-th figure a number match stands for."""
    scale = match.group("word") or match.group("letter")
    if isinstance(value, str):
        return "version"
    if match.group("pct") is not None and last:
        return "percent"
    if part.isdigit() and len(part) == 4 and 1800 <= value <= 2100 and not scale:
        return "year"
    before = text[max(0, match.start() - 24) : match.start()]
    if (
        index == 0
        and not scale
        and may_end_with(before, _LABEL_ENDS)
        and _LABEL_BEFORE.search(before)
    ):
        return "pinned" if _PINNED_BEFORE.search(before) else "label"
    return "number"


def _figures_of(text: str, match: re.Match[str]) -> list[RawFigure]:
    """The figure(s) one number match stands for ("1.200,5"; "3.12.1"; "1 200 and 300")."""
    tail = match.group("tail")
    pairs = _body_values(match.group("body"))
    scale_word = match.group("word") or match.group("letter")
    scale = _SCALES[casefold.key(scale_word)] if scale_word else None
    written = match.group(0)[: match.end() - match.start() - len(tail)].strip()
    out: list[RawFigure] = []
    for index, (part, value) in enumerate(pairs):
        last = index == len(pairs) - 1
        kind = _kind(text, match, part, value, index, last)
        candidates: set[Value] = {value}
        if kind == "year":
            candidates.add(datefigures.year_token(int(value)))
        if scale is not None and last and isinstance(value, Decimal):
            candidates = {value.scaleb(scale)}
            if match.group("letter"):
                candidates.add(value)
                if scale in _BINARY:  # "64K" is 65,536 in a man page
                    candidates.add(_normal(value * _BINARY[scale]))
            value = value.scaleb(scale)
        out.append(
            RawFigure(
                start=match.start(),
                end=match.end() - len(tail),
                text=written if len(pairs) == 1 else part,
                value=value,
                kind=kind,
                scale=scale if last else None,
                letter=bool(match.group("letter")) and last,
                candidates=candidates,
            )
        )
    return out


def _read_quantities(text: str, found: list[RawFigure], *, claim: bool) -> None:
    """A figure followed by a unit is a quantity (pint reads the unit); a claim's figure
    after a hedge ("about 12%", "more than 400") gets the hedge's band."""
    for raw in found:
        if raw.blank_end != -1:
            raw.blank_end = raw.end
        if raw.kind == "year" and _sized(text, raw.end):
            raw.kind = "number"  # "2048 KiB", "1900 MB/s": a quantity, not a year
        if not isinstance(raw.value, Decimal) or raw.kind not in ("number", "percent"):
            continue
        if claim:
            _hedge(text, raw)
        else:
            _page_bound(text, raw)
        times = _multiple(text, raw.start, raw.end) if raw.kind == "number" else None
        raw.multiple = times is not None
        if times is not None:
            raw.blank_end = times.end()  # "times" is part of the figure, not a content word
        if raw.kind == "number" and not (raw.letter or _decade(text, raw)):
            unit = unit_after(text, raw.end)
            if unit is not None:
                raw.quantity = quantity(raw.value, raw.text, unit[0])
                raw.blank_end = unit[1]
        _equivalents(text, raw, claim=claim)
    _lend_units(text, found)


NEAR_REACH = 0.15
"""How far past (or short of) its figure a hedge such as "just over" reaches at most."""


def _near_band(band: tuple[float, float], raw: RawFigure) -> tuple[float, float]:
    """A hedge just past or short of a figure ("just over 2%") reaches half a unit of its
    last digit, where that is more than its tenth, up to NEAR_REACH (2.24%, not 2.4%;
    "just under 3%": 2.6%; "just under 1,000 MB" is no 700 MB, "just over two hours" no
    2:21:09)."""
    low, high = band
    if not isinstance(raw.value, Decimal) or raw.value <= 0 or (low < 1.0) == (high > 1.0):
        return band
    reach = min(NEAR_REACH, float(step_of(raw.text, raw.value) / raw.value))
    return (low, max(high, 1 + reach)) if low == 1.0 else (min(low, 1 - reach), high)


def _hedge(text: str, raw: RawFigure) -> None:
    """A claim's figure after a hedge gets its band, unless the hedge names a group's
    boundary ("children under 15": exact, `equivalents.boundary`)."""
    hedge = hedge_before(text, raw.start)
    raw.band = _near_band(hedge[0], raw) if hedge else _scale_rounding(raw)
    raw.blank_start = hedge[1] if hedge else raw.start
    if hedge is not None and isinstance(raw.value, Decimal) and boundary(text, hedge[1], hedge[0]):
        raw.band = None
        token = upper_boundary(hedge[0], raw.value)
        raw.tokens.update([token] if token else [])
    elif hedge is not None:
        raw.reach = text[hedge[1] : hedge[1] + 16].lower().startswith(REACHES)
        raw.side = claim_side(text, hedge[1], hedge[0])


def _page_bound(text: str, raw: RawFigure) -> None:
    """A page's figure after a bound ("up to 50%", "more than 50%") is bounded
    (`quantities.page_bound`), unless the bound names a group's boundary ("children under
    15") or is negated ("don't add up to 100%", "never more than 100": read as written)."""
    hedge = hedge_before(text, raw.start)
    if hedge is not None and not boundary(text, hedge[1], hedge[0]):
        raw.bound = 0 if negated(text, hedge[1]) else page_bound(hedge[0])


def _equivalents(text: str, raw: RawFigure, *, claim: bool) -> None:
    """The tokens of the figure written another way (`research.sources.equivalents`), and
    a count per unit of time as a rate."""
    if not isinstance(raw.value, Decimal):
        return
    if raw.kind == "percent":
        raw.tokens |= percent_tokens(text, raw.start, raw.end, raw.value)
    elif raw.multiple:
        hedged = claim and raw.band is not None
        raw.tokens |= multiple_tokens(text, raw.start, raw.value, hedged=hedged)
    elif raw.kind == "number":
        if raw.quantity is None and not raw.letter:
            rate = rate_after(text, raw.end)
            raw.quantity = quantity(raw.value, raw.text, rate) if rate else None
        dimension = raw.quantity.unit.dimension if raw.quantity else None
        if raw.quantity is not None and dimension == "1 / second":
            raw.tokens.add(rate_token(raw.quantity.base))
        elif raw.quantity is not None and dimension == "second":
            period = period_token(text, raw.start, raw.quantity.base)
            raw.tokens.update([period] if period else [])
        upper = None if claim else page_upper_token(text, raw.start, raw.end, raw.value)
        raw.tokens.update([upper] if upper else [])
    raw.candidates |= raw.tokens


_SIZES = frozenset({"bit", "bit / second", "1 / second"})


def _sized(text: str, end: int) -> bool:
    """Whether a unit of data, a data rate or a frequency follows (a year never has one)."""
    unit = unit_after(text, end)
    return unit is not None and unit[0].dimension in _SIZES


def _scale_rounding(raw: RawFigure) -> tuple[float, float] | None:
    """A claim's figure written with a scale ("1.2 million", "12k") is rounded at that
    scale: the band of half a unit of its last digit ("1.2 million": 1.15 to 1.25 million)."""
    if raw.scale is None or not isinstance(raw.value, Decimal) or raw.value <= 0:
        return None
    half = float(step_of(raw.text, raw.value)) / float(raw.value)
    return 1 - half, 1 + half


def _lend_units(text: str, found: list[RawFigure]) -> None:
    """In a list or range of figures whose last one has a unit ("0.01, 0.004, or 0.001
    seconds", "5 to 10 km"), the others have it too; a range whose first has one and
    whose bare second counts nothing ("from four bytes to eight.") lends it forward."""
    for index in range(len(found) - 2, -1, -1):
        first, second = found[index], found[index + 1]
        unit = second.quantity.unit if second.quantity else None
        if (
            unit is not None
            and first.quantity is None
            and first.kind == "number"
            and isinstance(first.value, Decimal)
            and _LIST_JOIN.fullmatch(text, first.end, second.start)
        ):
            first.quantity = quantity(first.value, first.text, unit)
    for first, second in zip(found, found[1:], strict=False):
        if (
            first.quantity is not None
            and second.quantity is None
            and second.kind == "number"
            and isinstance(second.value, Decimal)
            and _RANGE_JOIN.fullmatch(text, max(first.end, first.blank_end), second.start)
            and _NO_NOUN.match(text, second.end)
        ):
            second.quantity = quantity(second.value, second.text, first.quantity.unit)


_NO_NOUN = re.compile(r"\s*(?:[^\w\s]|$)")
"""After a range's bare second figure: nothing it counts ("from 4 bytes to 8.", not "from
4 bytes to 8 fields")."""
_DECADE_BEFORE = re.compile(r"(?:\bthe|\bearly|\blate|\bmid-?|')\s*$", re.IGNORECASE)


def _decade(text: str, raw: RawFigure) -> bool:
    """A whole figure ending in 0 with a glued "s" that is a year ("1990s") or follows
    "the", "early", "late", "mid" or an apostrophe ("the 20s", "'90s"): a decade, not
    seconds ("a 30s timeout" is seconds)."""
    if text[raw.end : raw.end + 1] != "s" or text[raw.end + 1 : raw.end + 2].isalpha():
        return False
    if not raw.text.isdigit() or not raw.text.endswith("0"):
        return False
    return len(raw.text) == 4 or bool(_DECADE_BEFORE.search(text, 0, raw.start))


def _spaced_thousands(text: str, found: list[RawFigure]) -> None:
    """A page's "3 700" (thousands after a plain space) may also be 3700: the first figure
    gets that value too (a claim's figures are not read so loosely)."""
    for first, second in zip(found, found[1:], strict=False):
        if (
            text[first.end : second.start] == " "
            and first.kind == "number"
            and first.text.isdigit()
            and len(first.text) <= 3
            and second.text.isdigit()
            and len(second.text) == 3
        ):
            first.candidates.add(Decimal(first.text + second.text))


def _join_ranges(text: str, found: list[RawFigure]) -> None:
    """Ranges lend their scale or percent sign to their first figure; "2019/20" is 2020 too.
    A year keeps its reading: "from 41% in 2022 to 53%" holds no 2022%."""
    for first, second in zip(found, found[1:], strict=False):
        between = text[first.end : second.start]
        bare = first.scale is None and first.kind in ("number", "year")
        if bare and _RANGE_JOIN.fullmatch(between) and isinstance(first.value, Decimal):
            if second.kind == "percent":
                first.kind = "percent" if first.kind == "number" else first.kind
            elif second.scale is not None:
                scaled = first.value.scaleb(second.scale)
                first.candidates = {scaled, first.value}
                first.value = scaled
                first.kind = "number"
        if (
            first.kind == "year"
            and between in _YEAR_TAIL_JOIN
            and second.text.isdigit()
            and len(second.text) == 2
            and isinstance(first.value, Decimal)
        ):
            century = int(first.value) // 100 * 100
            second.candidates.add(Decimal(century + int(second.text)))


_LIST_LAST = re.compile(r"\s*,?\s+(?:or|and)\s+")
_LIST_COMMA = re.compile(r"\s*,\s*")


def _percent_lists(text: str, found: list[RawFigure]) -> None:
    """A list of bare figures ending in a percentage is a list of percentages ("41, 46 and
    53%", "3, 4 or 5%"): back from the written percentage through "and"/"or", then through
    commas only to a figure that took the sign so ("Of the 500, 41% and 20%": 500 is none)."""
    for index in range(len(found) - 2, -1, -1):
        first, second = found[index], found[index + 1]
        if first.kind != "number" or first.scale is not None or second.kind != "percent":
            continue
        lent = not any(mark in second.text for mark in "%pP")
        join = _LIST_COMMA if lent else _LIST_LAST
        if join.fullmatch(text, first.end, second.start):
            first.kind = "percent"


def without_references(text: str) -> str:
    """`text` without URLs, file references and citation markers."""
    if "://" in text:
        text = _BARE_URL.sub(" ", text)
    if "file:" in text:
        text = _FILE_REF.sub(" ", text)
    if "[" in text:
        text = _CITATION.sub(" ", text)
    return text


def _clean_for_numbers(text: str) -> str:
    """`text` without URLs, file references, citation markers and list markers."""
    return LINE_MARKER.sub(" ", without_references(text))


def _normal(value: Value) -> Value:
    """1200.0 -> 1200, 1.50 -> 1.5 (no exponent notation)."""
    return Decimal(format(value.normalize(), "f")) if isinstance(value, Decimal) else value


def claim_numbers(text: str) -> list[StatedNumber]:
    """The figures `text` states, normalised (see the module docstring for the forms)."""
    return [stated_number(raw) for raw in raw_numbers(_clean_for_numbers(text), claim=True)]


def stated_number(raw: RawFigure, *, count: bool = False) -> StatedNumber:
    return StatedNumber(
        text=raw.text,
        value=_normal(raw.value),
        kind=raw.kind,
        candidates=frozenset(raw.candidates),
        band=raw.band,
        bound=raw.bound,
        reach=raw.reach,
        side=raw.side,
        quantity=raw.quantity,
        multiple=raw.multiple,
        span=(raw.start, raw.end),
        tokens=frozenset(raw.tokens),
        count=count,
    )


def claim_text(text: str) -> str:
    """The claim as checked: without URLs, file references and citation markers."""
    return " ".join(without_references(text).split())  # runs of spaces as one, none at the ends
