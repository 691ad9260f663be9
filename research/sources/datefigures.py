"""The dates, quarters and times of day a text states, each one figure (pure): "3 March
2021" and "March 2021" as `research.sources.spelling` writes them, "Q1 2021", and a clock
`research.sources.timeofday` tells is a time of day. What each may match: a page's day
also means its month and its year, and its month its year; a claim's month also its year
(a page may name the month alone), a claim's quarter any of its months."""

from __future__ import annotations

import re
from decimal import Decimal

from research.sources import casefold
from research.sources.rawfigure import RawFigure, Value
from research.sources.timeofday import CLOCK, clock_key, time_of_day

_MONTHS = (
    "January February March April May June July August September October November December"
).split()
_DATE = re.compile(
    rf"(?<![\w.,])(?:(?P<day>[0-3]?\d) )?(?P<month>{'|'.join(_MONTHS)})"
    r" (?P<year>(?:18|19|20)\d\d)\b"
)

DAY_KEY_LENGTH = len("2013-03-26")
"""A date's value with its day (a month's is "2013-03", a quarter's "2013-Q1")."""


def month_token(month: str) -> str:
    """The candidate a page's month alone ("March 2013") shares with the claimed values of
    a claim's day in it (`claimed_values`), and with nothing a claim's figure may mean."""
    return f"month {month}"


def year_token(year: int) -> str:
    """The candidate a year shares with a page's date in it: a claim's "2021" matches "3
    March 2021", a claim's "April 2021" (whose other candidate is the bare year) does not."""
    return f"year {year}"


_QUARTER = re.compile(
    r"(?<![\w.,])(?:Q(?P<q>[1-4])|(?P<nth>first|second|third|fourth|1st|2nd|3rd|4th) quarter"
    r"(?: of)?) (?P<year>(?:18|19|20)\d\d)\b",
    re.IGNORECASE,
)
_NTH = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}


def quarters(text: str, *, claim: bool) -> list[RawFigure]:
    """A quarter of a year ("Q1 2021", "the first quarter of 2021"), one figure: a claim's
    is any of its months (and its year, as a month is); a page's is the quarter."""
    out: list[RawFigure] = []
    for match in _QUARTER.finditer(text):
        year = int(match.group("year"))
        quarter = int(match.group("q") or _NTH[casefold.key(match.group("nth"))])
        key = f"{year:04d}-Q{quarter}"
        candidates: set[Value] = {key}
        if claim:
            months = range(3 * quarter - 2, 3 * quarter + 1)
            candidates |= {f"{year:04d}-{m:02d}" for m in months} | {Decimal(year)}
        else:
            candidates.add(year_token(year))
        out.append(date_figure(match, key, candidates))
    return out


def date_figure(
    match: re.Match[str], key: str, candidates: set[Value], blank_end: int = 0, kind: str = "date"
) -> RawFigure:
    """A date (or a time of day, `kind` "time") read from `match`: its key ("2021-03",
    "2021-Q1", "08:13") and what it may match."""
    return RawFigure(
        start=match.start(),
        end=match.end(),
        text=match.group(0),
        value=key,
        kind=kind,
        scale=None,
        letter=False,
        candidates=candidates,
        blank_end=blank_end,
    )


def dates(text: str, *, claim: bool) -> list[RawFigure]:
    """The dates of `text` as `spell_numbers` writes them ("3 March 2021", "March 2021"),
    each one figure; a page's day also gives its month and year, and its month its year."""
    out: list[RawFigure] = []
    if not any(month in text for month in _MONTHS):
        return out  # the pattern needs a month's name
    for match in _DATE.finditer(text):
        year, month = int(match.group("year")), _MONTHS.index(match.group("month")) + 1
        day = match.group("day")
        key = f"{year:04d}-{month:02d}" + (f"-{int(day):02d}" if day else "")
        candidates: set[Value] = {key}
        if not claim:
            candidates |= {key[:7], year_token(year)}  # a claim's year, not its month
            if not day:
                candidates.add(month_token(key))
        elif not day:
            candidates.add(Decimal(year))  # "in September 2022": a page may name the month alone
        out.append(date_figure(match, key, candidates, blank_end=-1))
    return out


def times(text: str, *, claim: bool) -> list[RawFigure]:
    """The times of day of `text` ("at 08:13", "2017-10-12 08:13:07 CEST": `timeofday`),
    each one figure of kind "time"; a page's with seconds also gives its minute."""
    out: list[RawFigure] = []
    for match in CLOCK.finditer(text):
        key = clock_key(match)
        if key is None or not time_of_day(text, match.start(), match.end()):
            continue
        candidates: set[Value] = {key} if claim else {key, key[:5]}
        out.append(date_figure(match, key, candidates, kind="time"))
    return out
