"""Figures written in words, fractions and dates, rewritten as the figure reader reads them
(pure): `spell_numbers(text)`.

- Durations written as a clock ("8m30s", "1h2m") in seconds ("510 s"), and as a
  stopwatch: "1:30:00" 5,400 s, "0:01.23" 1.23 s, "1:30" also "90 s or 90 min" (m:ss or
  h:mm, and kept as written: it may be a ratio; not after "at", "from", "ratio", nor
  before "am"/"pm"/"UTC": a time of day or a ratio); a rate written "1.2 gigabytes a
  second" per second (a unit of data); "sub-millisecond" under 1 millisecond; "a
  fortnight", "a decade", "a century" one of it (not "a week later": only units that "a"
  always counts).
- A decimal without its leading zero (".85") with it; a hex literal ("0x2000000") as its
  value; scientific notation ("1e6", "2.5 \u00d7
  10^6") as its value.
- Counts, rates and changes in words ("twice a day", "cut in half", "thousands of",
  "two workers", "only one"): `research.sources.wordcounts`.
- Number words through text2num's `alpha2digit` ("twelve thousand" -> 12000, "forty-two"
  -> 42, "four hundred and five" -> 405); a figure already followed by a scale word
  ("1.5 million") is left to the figure reader; "one" and "two", which text2num leaves,
  before a unit ("two minutes") and at one end of a range of figures ("from one to 20",
  "from 16 workers to one").
- Fractions and ratios, the project's own small table (no library reads them): "a fifth",
  "two thirds", "one in six", "1 in 1,000", "one in a thousand", "three of every four",
  "one user in four", "two packages
  in every three", "half of", "used half the", "7/8"
  become a share marked as approximate ("about 20%"), or with the writer's own hedge
  when one comes before ("nearly half" -> "nearly 50%"); "the second half" names a part,
  no share; "three quarters of a GiB" becomes "about 0.75 GiB", "half a minute" 0.5
  minute, "half a million" and "a quarter of a million" "about 0.5 million" and "about
  0.25 million", "a tenth of a percent" "about 0.1 percent", "over a gigabyte" (a unit
  of time or data after a hedge) over 1 gigabyte; "two and a half" 2.5, "a year and a
  half" 1.5 year; "doubled", "tripled", "twice", "seven to one" 2, 3 or 7 times ("2×": a
  multiple, which a bare "times" may not be); "25 basis
  points" 0.25 percentage points; "an
  order of magnitude" and "two orders of magnitude" "of the order of" 10× and 100×
  (the hedge's band: 5 to 20 times).
- A fraction whose ordinal is past "tenth", which text2num writes in digits: "one
  thirty-second of the" about 3.1% ("a thirty-second delay" stays 30 seconds), "millionths
  of a second" microseconds, "a hundredth of a second" 1 centisecond.
- A score out of a scale after a rating word ("rated it 8 out of 10") stays a score (8,
  on a scale of 10), not a share; a micro sign alone after a figure ("374.5\u00b5", as
  benchstat writes its "sec/op" column) is microseconds.
- "a dozen" 12 ("half a dozen" 6), "tenfold" and "3-fold" 10× and 3×; two durations
  in a row, the second smaller ("1 minute 30 seconds", "2 hours, 15 minutes") one
  duration in the smaller unit; a date written "2021/03/05" (year first) a date.
- A power of two or ten ("2^32", "2**31 - 1", "10^6") as its value, as a man page or a
  PEP writes a limit that a report gives as "about 4.3 billion".
- Dates through python-dateutil's parser: "3 March 2021", "2021-03-03", "03-Mar-2021",
  "March 3, 2021" and "3rd March 2021" all become "3 March 2021", and "2021-03" "March
  2021", which the figure reader takes as one date; a weekday written before a date
  ("Tuesday, 2021-10-05") is part of it, not a word of the sentence (a schedule names the
  weekday of every date); an ISO timestamp ("2021-03-03T10:00:00Z") is its day and its
  time of day ("3 March 2021 10:00:00": `research.sources.timeofday`); a date in
  numbers only is read day first with dots ("05.03.2021": 5 March), and with slashes
  whichever way only one reading is a date ("15/03/2021", "03/15/2021"; "03/05/2021"
  stays as written).
"""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal
from functools import lru_cache

from dateutil import parser as dateparser  # type: ignore[import-untyped]
from text_to_num import alpha2digit, text2num  # type: ignore[import-untyped]

from research.sources import casefold
from research.sources.quantities import HEDGES, ends_with_hedge, unit_of
from research.sources.timeofday import (
    MONTH,
    MONTH_NAMES,
    WEEKDAY,
    both_readings,
    ctime_dates,
    time_of_day,
)
from research.sources.wordcounts import spell_after, spell_before

APPROX = "about"
"""The hedge written before a share made of a fraction (`HEDGES` gives its band)."""

_DENOMINATORS = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4,
    "fourth": 4, "fourths": 4, "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6,
    "seventh": 7, "sevenths": 7, "eighth": 8, "eighths": 8, "ninth": 9, "ninths": 9,
    "tenth": 10, "tenths": 10,
}  # fmt: skip
_MULTIPLES = {
    "doubled": 2, "doubling": 2, "doubles": 2, "twice": 2, "tripled": 3, "trebled": 3,
    "tripling": 3, "triples": 3, "quadrupled": 4, "quadrupling": 4,
}  # fmt: skip
_NUMBER_WORD = r"[A-Za-z]+(?:-[A-Za-z]+)?"
_FRACTION = re.compile(
    rf"\b(?:(?P<count>{_NUMBER_WORD}|\d+)[ -])?(?P<part>{'|'.join(_DENOMINATORS)})\b(?!-\w)"
    r"(?P<of>(?: of)?(?: an?)? (?P<unit>[^\W\d_][^\W\d]*(?:/[^\W\d_]+)?))?",
    re.IGNORECASE,
)
_RATIO = re.compile(
    rf"\b(?P<a>{_NUMBER_WORD}|\d+) (?:in(?: every)?|(?:out )?of every|out of) "
    rf"(?P<b>an? (?:hundred|thousand)|{_NUMBER_WORD}|\d{{1,3}}(?:,\d{{3}})+|\d+)\b(?![.,]\d)",
    re.IGNORECASE,
)
_FUNCTION_WORDS = r"(?:of|in|and|or|the|an?|to|for|at|on|by|with)\b"
_NOUN_RATIO = re.compile(
    rf"\b(?P<a>{_NUMBER_WORD}|\d+) (?P<noun>(?:(?!{_FUNCTION_WORDS})[^\W\d_]+ )?[^\W\d_]+)"
    rf" in (?P<every>every )?"
    rf"(?P<b>{_NUMBER_WORD}|\d+)\b(?![.,]\d)(?P<next> [^\W\d_]+)?",
    re.IGNORECASE,
)
"""A ratio around what it counts: "two packages in every three", "one user in four", "one
CPU cycle in eleven" (not
"one file in three directories": without "every", only "one" and no plural after it)."""
_DOZEN = re.compile(rf"\b(?P<half>half )?(?P<n>{_NUMBER_WORD}|\d+) dozen\b", re.IGNORECASE)
_FOLD = re.compile(rf"\b(?P<n>{_NUMBER_WORD}?|\d+(?:\.\d+)?)-?fold\b", re.IGNORECASE)
_COMPOUND = re.compile(
    r"(?<![\d.,])\b(?P<a>\d+) (?P<unit_a>[^\W\d_]+),? (?:and )?(?P<b>\d+(?:\.\d+)?)"
    r" (?P<unit_b>[^\W\d_]+)\b"
)
"""Two durations in a row, the second smaller: "1 minute 30 seconds", "2 hours, 15
minutes", "3 years and 2 months"."""
_SLASH = re.compile(r"(?<![\w/.,-])(?P<a>\d{1,3})/(?P<b>\d{1,3})(?![\w/%]|[.,]\d)")
"""A fraction in digits ("7/8"), not a date, a path or a "24/7"."""
_HEDGED_ONE = re.compile(
    r"\b(?P<hedge>[a-z]+) an? (?P<unit>[^\W\d_]+(?:/[^\W\d_]+| per [^\W\d_]+)?)\b", re.IGNORECASE
)
_BARE_MICRO = re.compile(r"(\d)\s?[\u00b5\u03bc](?![\w/])")
"""A micro sign alone after a figure ("374.5\u00b5 \u00b1 1%", benchstat's "sec/op"
column): microseconds, the one unit it prefixes in such tables."""
_HALF_A = re.compile(r"\bhalf an? (?P<unit>[^\W\d_]+)\b", re.IGNORECASE)

_AND_A_HALF = re.compile(rf"\b(?P<n>{_NUMBER_WORD}|\d+)(?P<noun>) and a half\b", re.IGNORECASE)
_NOUN_AND_A_HALF = re.compile(
    rf"\b(?P<n>{_NUMBER_WORD}|\d+)(?P<noun> [^\W\d_]+) and a half\b", re.IGNORECASE
)
_SMALL_UNIT = re.compile(r"(?<![\w-])(?P<n>zero|one|two) (?P<unit>[^\W\d_]+)\b", re.IGNORECASE)
_SMALL = {"zero": 0, "one": 1, "two": 2}
"""text2num leaves numbers under 3 as words ("one of them"); before a unit they are figures."""
_BY_HALF = re.compile(r"\bby (?P<hedge>(?:[a-z]+ ){0,2})half\b(?! of| an? )", re.IGNORECASE)
_WORD_UNIT = re.compile(rf"\b(?P<n>{_NUMBER_WORD})-(?P<unit>[A-Za-z]+)\b")
_TO_ONE = re.compile(rf"\b(?P<n>{_NUMBER_WORD}|\d+) to one\b", re.IGNORECASE)
_CLOCK = re.compile(
    r"\b(?:(?P<h>\d+)h(?P<m>\d+)m(?:(?P<s>\d+(?:\.\d+)?)s)?|(?P<m2>\d+)m(?P<s2>\d+(?:\.\d+)?)s)\b"
)
_A_TIME = re.compile(
    r"(?<=\d )(?P<unit>[^\W\d_]+) an? (?P<per>second|minute|hour|day|week|month|year)\b"
)
"""A rate written "1.2 gigabytes a second": per second."""
_SCALE_WORDS = frozenset({"thousand", "million", "billion", "trillion"})
_POWER = re.compile(
    r"(?<![\w.^*])(?P<base>2|10) ?(?:\^|\*\*) ?(?P<exp>\d{1,2})(?!\w|\.\d)"
    r"(?: ?[-\u2212] ?(?P<minus>1)(?!\w|\.\d))?"
)
_MULTIPLE = re.compile(rf"\b(?:{'|'.join(_MULTIPLES)})\b", re.IGNORECASE)
_SCALED_DIGITS = re.compile(
    r"\d[\d.,]*[ \u00a0-]?(?:thousand|million|billion|trillion)\b", re.IGNORECASE
)
_WEEKDAY = WEEKDAY + " "
_TIME = r"(?:T\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)"
"""The time of an ISO timestamp ("2021-03-03T10:00:00Z"): part of its date, written after it
as a time of day ("3 March 2021 10:00:00")."""
_ISO_CLOCK = re.compile(r"T(\d\d:\d\d(?::\d\d)?)")
_DATE = re.compile(
    rf"(?<![\w.-])(?:{_WEEKDAY})?(?:(?:18|19|20)\d\d-(?:0[1-9]|1[0-2])(?:-[0-3]\d{_TIME}?)?"
    r"(?![\w-])"
    rf"|(?<!/)(?:18|19|20)\d\d/(?:0[1-9]|1[0-2])/[0-3]\d(?![\w/])"
    rf"|[0-3]?\d(?:st|nd|rd|th)?[ -](?:of )?{MONTH}[ ,-]+(?:18|19|20)\d\d\b"
    rf"|{MONTH} [0-3]?\d(?:st|nd|rd|th)?,? (?:18|19|20)\d\d\b"
    rf"|{MONTH},? (?:18|19|20)\d\d\b)"
)
_WORDS = re.compile(r"[A-Za-z]")
_FRACTION_WORD = re.compile("|".join(_DENOMINATORS))
_MONTH_OR_ISO = re.compile(
    rf"(?=[{''.join(sorted({name[0] for name in MONTH_NAMES}))}\d])(?:{MONTH}|\d{{4}}[-/]\d\d)"
)
"""A month's name or an ISO date's year and month; the look-ahead, a first letter of them,
lets the search skip every other place quickly (it is tried on every claim and sentence)."""
_NUMERIC_DATE = re.compile(
    r"(?<![\w./-])(?P<a>[0-3]?\d)(?P<sep>[./])(?P<b>[0-3]?\d)(?P=sep)(?P<year>(?:18|19|20)\d\d)"
    r"(?![\w/]|\.\d)"
)
"""A date written with numbers only, day or month first: "05.03.2021" (dots: always the
day first), "15/03/2021" or "03/15/2021" (slashes: whichever part cannot be a month)."""
_HEX = re.compile(r"(?<![\w.])0[xX](?P<digits>[0-9a-fA-F]{1,16})(?![\w.])")
"""A hex literal ("0x2000000", as a man page writes a limit): its value."""
_LEADING_POINT = re.compile(r"(?<![\w.,])\.(?=\d)")
"""A decimal without its leading zero: ".85"."""
_EXPONENT = re.compile(
    r"(?<![\w.])(?P<m>\d+(?:\.\d+)?)(?:[eE](?P<e>[+-]?\d{1,2})"
    r"|\s?[x\u00d7*]\s?10\s?(?:\^|\*\*)\s?(?P<p>[+-]?\d{1,2}))(?![\w.]|\.\d)"
)
"""A figure in scientific notation: "1e6", "2.5e-3", "2.5 \u00d7 10^6"."""
_CLOCK_TIME = re.compile(
    r"(?<![\w:.,/])(?P<a>\d{1,2}):(?P<b>[0-5]\d)(?::(?P<c>[0-5]\d))?(?P<frac>\.\d+)?"
    r"(?![\w:]|\.\d|\s?(?:[ap]\.?m\b|UTC|GMT))"
)
"""A duration as a clock: "1:30:00" (hours, minutes, seconds), "0:01.23" (minutes and
seconds), "1:30" (minutes and seconds or hours and minutes: both)."""
_AT_TIME = re.compile(r"(?:\b(?:at|by|until|from|to|ratio(?: of)?)|[T-])\s*$", re.IGNORECASE)
"""Before a clock: a time of day ("at 10:30", "from 9:00") or a ratio ("ratio of 1:10")."""
_MAGNITUDE = re.compile(
    rf"\b(?P<n>{_NUMBER_WORD}|\d) orders? of magnitude\b",
    re.IGNORECASE,
)
"""A factor of ten: "an order of magnitude", "two orders of magnitude"."""
_BASIS_POINTS = re.compile(r"(?<![\w.,])(?P<n>\d+(?:\.\d+)?) basis points?\b", re.IGNORECASE)
"""A change of a rate in hundredths of a percentage point: "25 basis points"."""
_COUNTED_UNITS = ("fortnight", "decade", "century", "millennium")
_COUNTED_A = re.compile(
    rf"(?<!half )(?<!of )\ban? (?=(?:{'|'.join(_COUNTED_UNITS)})\b)", re.IGNORECASE
)
"""Units that "a" counts one of: "a fortnight", "a decade" (not "a week later")."""
# Cheap tests that the text holds what a costly pattern needs before it is tried (each is
# true of any text the pattern matches): most sentences hold none of these.
_COMPOUND_HINT = re.compile(r"\d [^\W\d_]+,? (?:and )?\d")
_DOT_DIGIT = re.compile(r"\.\d")
_DIGIT_E = re.compile(r"\d[eE][+-]?\d")
_NUMERIC_DATE_HINT = re.compile(r"\d[./][0-3]?\d[./](?:18|19|20)\d\d")
_CLOCK_HINT = re.compile(r"\d[hm]\d")
_A_TIME_HINT = re.compile(r" an? (?:second|minute|hour|day|week|month|year)")
_ORDINAL_DIGITS = re.compile(r"\d(?:st|nd|rd|th)s? of ")
_MULTIPLE_STEMS = ("doubl", "twice", "tripl", "trebl", "quadrupl")


def _holds_any(text: str, words: tuple[str, ...]) -> bool:
    """Whether `text` may hold one of `words` (lower case ASCII) in any case, as a pattern
    that ignores case would find it."""
    folded = casefold.key(text)
    return any(word in folded for word in words)


_SUB_UNIT = re.compile(r"\bsub-(?P<unit>[a-z]+)\b", re.IGNORECASE)
"""An upper bound written as a prefix: "sub-millisecond", "sub-second"."""
_DAY_PROBES = (datetime(2000, 1, 1), datetime(2000, 1, 2))


@lru_cache(maxsize=4096)
def _count(word: str | None) -> int | None:
    """A small whole number written as digits or words ("six", "twenty-one", "a"); kept, as
    most words the patterns try are no number (text2num raises for each)."""
    if word is None or word.lower() in ("a", "an"):
        return 1
    if word.isdigit():
        return int(word)
    try:
        return int(text2num(casefold.key(word), "en"))
    except ValueError:
        return None


def _share(value: float) -> str:
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return f"{APPROX} {text}%"


_PLACES = frozenset(
    "first second other top bottom upper lower latter former last next back front".split()
)
"""Words before "half" that name a part, not a share ("the second half of the year")."""


_EVERY_QUARTER = re.compile(r"\b(?:once (?:a|per|every) quarter|every quarter)\b", re.I)
"""A period of a quarter of a year: "every 3 months", as a page writes it."""
_PERIOD_BEFORE = re.compile(r"\b(?:once|twice|thrice|times|every|each|per)\s+$", re.IGNORECASE)
"""Words before "(a) quarter" that make it three months, not a fourth."""


def _fraction(match: re.Match[str]) -> str:
    written = match.group("count")
    count = _count(written)
    part = casefold.key(match.group("part"))
    if count is None and part == "half" and written.lower() not in _PLACES:
        # "used half the memory", "nearly half of": the word before is no count
        keep = match.group(0)[: match.start("part") - match.start()]
        return keep + _fraction(_FRACTION.match(match.string, match.start("part")) or match)
    and_before = match.string[max(0, match.start() - 4) : match.start()].lower() == "and "
    if and_before and (written is None or written.lower() in ("a", "an")):
        return match.group(0)  # "a year and a half" not read as a noun: no share
    if part.startswith("quarter") and _PERIOD_BEFORE.search(match.string, 0, match.start()):
        return match.group(0)  # "once a quarter", "every quarter": a period, no share
    if count is None or (written is None and part not in ("half",)):
        return match.group(0)
    if written is None and not match.group("of"):
        return match.group(0)
    value = count / _DENOMINATORS[part]
    unit = match.group("unit")
    of = match.group("of") or ""
    scale = unit is not None and unit.lower() in _SCALE_WORDS | {"percent"}
    if unit and (scale or _fraction_of_unit(unit, of)):
        # "half a minute", "a quarter of a million", "a tenth of a percent", "half megabyte"
        return f"{APPROX} {value:.6g} {unit}"
    rest = match.group("of") or ""
    share = _share(value * 100)
    if ends_with_hedge(match.string[max(0, match.start() - 16) : match.start()]):
        share = share.removeprefix(f"{APPROX} ")  # "nearly half": the writer's own hedge
    return share + rest


def _fraction_of_unit(unit: str, of: str) -> bool:
    """Whether a fraction names part of `unit` ("half a minute", "a quarter of an hour"):
    a unit after "of" or "a", or right after the fraction when it measures time or data
    ("half megabyte", "a half second"; not "a third party")."""
    known = unit_of(unit)
    return known is not None and (of != f" {unit}" or known.dimension in _MEASURES)


_RATING = re.compile(r"\b(?:rat(?:e|es|ed|ing|ings)|scor(?:e|es|ed|ing)|grade[ds]?)\b[^.;:]*$")
"""A rating verb or noun before "8 out of 10", in the same clause: a score, not a share."""
RATING_REACH = 50
"""How many characters before a ratio are looked at for a rating word."""


def _ratio(match: re.Match[str]) -> str:
    written = match.group("b").replace(",", "")
    a, b = _count(match.group("a")), _count(_A_OR_AN.sub("one ", written))
    if a is None or b is None or not 0 < a < b <= 1000:
        return match.group(0)
    before = match.string[max(0, match.start() - RATING_REACH) : match.start()]
    if _RATING.search(before.lower()):
        return match.group(0)  # "rated it 8 out of 10": the score 8 on a scale of 10
    return _share(100 * a / b)


_A_OR_AN = re.compile(r"^an? ")


def _noun_ratio(match: re.Match[str]) -> str:
    if not match.group("every") and match.group("a").lower() != "one":
        if " " not in match.group("noun"):
            return match.group(0)  # what the last test below says, without text2num
    a, b = _count(match.group("a")), _count(match.group("b"))
    if a is None and " " in match.group("noun"):  # "roughly one cycle in eleven": from "one"
        again = _NOUN_RATIO.match(match.string, match.start("noun"))
        if again is not None and again.end() == match.end():
            return match.group(0)[: match.start("noun") - match.start()] + _noun_ratio(again)
    after = match.group("next") or ""
    if a is None or b is None or not 0 < a < b <= 1000 or match.group("a").lower() == "a":
        return match.group(0)
    if not match.group("every") and (match.group("a").lower() != "one" or after.endswith("s")):
        return match.group(0)
    return f"{_share(100 * a / b)} {match.group('noun')}{after}"


def _dozen(match: re.Match[str]) -> str:
    """ "a dozen" -> 12, "two dozen" -> 24, "half a dozen" -> 6."""
    count = _count(match.group("n"))
    if count is None:
        return match.group(0)
    return str(count * 6 if match.group("half") else count * 12)


def _fold(match: re.Match[str]) -> str:
    """ "tenfold", "3-fold" -> "10×", "3×" (not "manifold"): a multiple, which a bare
    "times" may not be ("ran 4,900 times")."""
    written = match.group("n")
    if not written or written.lower() in ("a", "an"):
        return match.group(0)
    if written[0].isdigit():
        return f"{written}\u00d7"
    count = _count(written)
    return match.group(0) if count is None else f"{count}\u00d7"


def _compound(match: re.Match[str]) -> str:
    """ "1 minute 30 seconds" -> "90 seconds": two durations in a row, the second in a
    smaller unit and less than one of the first, are one duration in the smaller unit."""
    big, small = unit_of(match.group("unit_a")), unit_of(match.group("unit_b"))
    if big is None or small is None or big.dimension != "second" != small.dimension:
        return match.group(0)
    if small.dimension != "second" or big.factor <= small.factor:
        return match.group(0)
    per = big.factor / small.factor
    b = float(match.group("b"))
    if b >= per:
        return match.group(0)
    total = int(match.group("a")) * per + b
    written = f"{total:.3f}".rstrip("0").rstrip(".")
    return f"{written} {match.group('unit_b')}"


def _slash(match: re.Match[str]) -> str:
    a, b = int(match.group("a")), int(match.group("b"))
    return _share(100 * a / b) if 0 < a < b else match.group(0)


_MEASURES = frozenset({"second", "bit", "bit / second", "1 / second"})
"""The dimensions of a unit that "about a(n)" counts one of: time, data, rates ("over a
link" is no distance)."""


def _hedged_one(match: re.Match[str]) -> str:
    """ "more than a gigabyte" -> "more than 1 gigabyte", "about an hour" -> "about 1
    hour": a unit of time or data after a hedge is one of it (not "a second attempt")."""
    before = match.string[max(0, match.start() - 12) : match.start()] + match.group("hedge")
    unit = unit_of(match.group("unit").split("/")[0].split(" per ")[0])
    if not ends_with_hedge(before) or unit is None or unit.dimension not in _MEASURES:
        return match.group(0)
    return f"{match.group('hedge')} 1 {match.group('unit')}"


def _half_a(match: re.Match[str]) -> str:
    """ "half a minute" -> "0.5 minute", "half a percent" -> "0.5 percent"."""
    unit = match.group("unit")
    known = unit.lower() == "percent" or unit_of(unit) is not None
    return f"0.5 {unit}" if known else match.group(0)


def _and_a_half(match: re.Match[str]) -> str:
    """ "two and a half" -> 2.5; "a year and a half" -> "1.5 year"."""
    count = _count(match.group("n"))
    noun = match.group("noun") or ""
    if count is None or count < 1 or (noun and unit_of(noun.strip()) is None):
        return match.group(0)
    return f"{count}.5{noun}"


def _small_unit(match: re.Match[str]) -> str:
    """ "one millisecond" -> "1 millisecond", "two minutes" -> "2 minutes", "two times"
    -> "2 times" (text2num leaves numbers under 3 as words)."""
    unit = match.group("unit")
    if unit.lower() != "times" and unit_of(unit) is None:
        return match.group(0)
    return f"{_SMALL[casefold.key(match.group('n'))]} {unit}"


def _clock(match: re.Match[str]) -> str:
    """ "8m30s" -> "510 s", "1h2m3s" -> "3723 s", "1h2m" -> "3720 s"."""
    hours = int(match.group("h") or 0)
    minutes = int(match.group("m") or match.group("m2") or 0)
    seconds = float(match.group("s") or match.group("s2") or 0) + 60 * minutes + 3600 * hours
    return f"{seconds:g} s"


def _a_time(match: re.Match[str]) -> str:
    """ "1.2 gigabytes a second" -> "1.2 gigabytes per second" (a unit of data only: "8
    hours a day" stays a duration)."""
    unit = unit_of(match.group("unit"))
    if unit is None or unit.dimension != "bit":
        return match.group(0)
    return f"{match.group('unit')} per {match.group('per')}"


def _by_half(match: re.Match[str]) -> str:
    """A change "by half" is 50%: "rose by more than half" -> "rose by more than 50%",
    "cut by half" -> "cut by about 50%"; other words before "half" leave it as written."""
    hedge = match.group("hedge")
    if not hedge:
        return f"by {_share(50)}"
    return f"by {hedge}50%" if hedge.strip().lower() in HEDGES else match.group(0)


def _word_unit(match: re.Match[str]) -> str:
    """A number word hyphened to its unit: "thirteen-gigabyte" -> "13-gigabyte",
    "twenty-five-minute" -> "25-minute" (text2num reads neither)."""
    count = _count(match.group("n"))
    unit = match.group("unit")
    if match.group("n").lower() in ("a", "an") or count is None or unit_of(unit) is None:
        return match.group(0)
    if unit.lower() == "second" and match.string.startswith(" of ", match.end()):
        return match.group(0)  # "one thirty-second of the pages": a fraction, 1/32
    return f"{count}-{unit}"


_ORDINAL_PART = re.compile(
    r"\b(?:(?P<count>\d+|an?|one) )?(?P<den>[1-9]\d+)(?:st|nd|rd|th)(?P<plural>s)?"
    r" of(?: an?)? (?P<unit>[^\W\d_]+)",
    re.IGNORECASE,
)
"""A fraction whose ordinal text2num wrote in digits ("one 32nd of the", "1000000ths of a
second"): past "tenth", which the fraction table reads before text2num runs."""
_PREFIXES = {100: "centi", 1000: "milli", 10**6: "micro", 10**9: "nano"}
"""A unit's part that is a power of ten, as the prefix pint names it."""


def _ordinal_part(match: re.Match[str]) -> str:
    """ "one 32nd of the" -> "about 3.1% of the", "1000000ths of a second" ->
    "microseconds", "three 1000ths of a second" -> "3 milliseconds"; "the 5th of November"
    (no count, one) stays."""
    written, den, unit = match.group("count"), int(match.group("den")), match.group("unit")
    prefix = _PREFIXES.get(den)
    named = prefix is not None and unit_of(f"{prefix}{unit}") is not None
    if written is None:  # "thousandths of a second": a unit; "the 25th of December" stays
        return f"{prefix}{unit}s" if named and match.group("plural") else match.group(0)
    count = _count(written)
    if count is None or not 0 < count < den:
        return match.group(0)
    if named:
        return f"{count} {prefix}{unit}"
    return f"{_share(100 * count / den)} of {unit}"


def _to_one(match: re.Match[str]) -> str:
    count = _count(match.group("n"))
    return match.group(0) if count is None or count < 2 else f"{count}\u00d7"


def _power(match: re.Match[str]) -> str:
    """ "2^32" -> "4294967296", "2**31 - 1" -> "2147483647", "10^6" -> "1000000"."""
    value = int(match.group("base")) ** int(match.group("exp"))
    return str(value - 1 if match.group("minus") else value)


_SCALE_NAMES = ("hundred", "thousand", "million", "billion", "trillion")
_A_SCALE = re.compile(rf"\ban? (?=(?:{'|'.join(_SCALE_NAMES)})\b)", re.I)


_TWO_THOUSAND = re.compile(
    r"\btwo thousand\b(?![\s-]+(?:and|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
    r"twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|"
    r"fifty|sixty|seventy|eighty|ninety|hundred)\b)",
    re.IGNORECASE,
)
"""A count of two thousand in words, no year ("roughly two thousand words"): "2,000"."""


def _words_to_digits(text: str) -> str:
    """Number words as digits (text2num), leaving "1.5 million" to the figure reader; "a
    million" is "one million" (text2num keeps the "a"); "two thousand" is "2,000" (a count
    in words is no year)."""
    if not _holds_any(text, _SCALE_NAMES):  # no scale word: one reading of the whole text
        return alpha2digit(text, "en") if text else ""
    text = _A_SCALE.sub("one ", text)
    if "thousand" in text:
        text = _TWO_THOUSAND.sub("2,000", text)
    out: list[str] = []
    pos = 0
    for match in _SCALED_DIGITS.finditer(text):
        out.append(alpha2digit(text[pos : match.start()], "en") if match.start() > pos else "")
        out.append(match.group(0))
        pos = match.end()
    out.append(alpha2digit(text[pos:], "en") if pos < len(text) else "")
    return "".join(out)


def _number_words(text: str) -> str:
    """Number words as digits (`_words_to_digits`), then the fractions whose ordinal that
    wrote in digits ("one 32nd of the": `_ordinal_part`)."""
    text = _words_to_digits(text)
    if " of " in text and _ORDINAL_DIGITS.search(text):
        text = _ORDINAL_PART.sub(_ordinal_part, text)
    if "from " in text or "From " in text:
        text = _FROM_SMALL.sub(lambda m: f"{m.group(1)}{_SMALL[casefold.key(m.group(2))]}", text)
        text = _TO_SMALL.sub(lambda m: f"{m.group(1)}{_SMALL[casefold.key(m.group(2))]}", text)
    return text


_FROM_SMALL = re.compile(
    r"(\bfrom )(zero|one|two)\b(?=,?[^.;:]{0,60}?\bto (?:minus )?\d)", re.IGNORECASE
)
_TO_SMALL = re.compile(
    r"(\bfrom (?:minus )?\d[\d.,]*(?![.,]?\d)[^.;:]{0,60}?\bto )(zero|one|two)\b", re.IGNORECASE
)
"""The end of a range of figures that text2num leaves as a word ("from one to 20", "from
16 workers to one"): a figure like the other end."""


@lru_cache(maxsize=4096)
def _canonical_date(written: str) -> str:
    """ "3 March 2021" or "March 2021" for a date as written (python-dateutil reads it)."""
    try:
        first, second = (dateparser.parse(written, default=d) for d in _DAY_PROBES)
    except (ValueError, OverflowError):
        return written
    if first.day != second.day:
        return f"{first:%B %Y}"
    clock = _ISO_CLOCK.search(written)  # "2021-03-03T10:00:00Z": its time of day too
    return f"{first.day} {first:%B %Y}" + (f" {clock.group(1)}" if clock else "")


def _numeric_date(match: re.Match[str]) -> str:
    """ "05.03.2021" -> "5 March 2021"; "15/03/2021" and "03/15/2021" -> "15 March 2021";
    "03/05/2021" (either way a date) stays as written."""
    a, b = int(match.group("a")), int(match.group("b"))
    if match.group("sep") == "." or (b <= 12 < a):
        day, month = a, b
    elif a <= 12 < b:
        day, month = b, a
    else:
        return match.group(0)
    try:
        when = datetime(int(match.group("year")), month, day)
    except ValueError:
        return match.group(0)
    return f"{when.day} {when:%B %Y}"


def _exponent(match: re.Match[str]) -> str:
    """ "1e6" -> "1000000", "2.5 \u00d7 10^6" -> "2500000", "2.5e-3" -> "0.0025"."""
    power = match.group("e") or match.group("p")
    value = Decimal(match.group("m")).scaleb(int(power))
    return format(value.normalize(), "f")


def _clock_time(match: re.Match[str]) -> str:
    """A clock as a duration: "1:30:00" -> "5400 s", "0:01.23" -> "1.23 s", "1:30" -> "1:30
    (90 s or 90 min)": both readings, and the ratio it may be ("1:20" is one in twenty)."""
    if _AT_TIME.search(match.string, max(0, match.start() - 12), match.start()):
        return match.group(0)  # a time of day or a ratio
    if time_of_day(match.string, match.start(), match.end()):
        return match.group(0)  # "2017-10-12 08:13:07": when, not how long
    a, b = int(match.group("a")), int(match.group("b"))
    frac = match.group("frac") or ""
    if match.group("c") is not None:
        return f"{a * 3600 + b * 60 + int(match.group('c'))}{frac} s"
    if frac:
        return f"{a * 60 + b}{frac} s"
    return both_readings(match.group(0), a * 60 + b)  # or a ratio or a time of day: kept


def _sub_unit(match: re.Match[str]) -> str:
    """ "sub-millisecond" -> "under 1 millisecond" (a unit of time or data)."""
    unit = unit_of(match.group("unit"))
    if unit is None or unit.dimension not in _MEASURES:
        return match.group(0)
    return f"under 1 {match.group('unit')}"


def _basis_points(match: re.Match[str]) -> str:
    """ "25 basis points" -> "0.25 percentage points"."""
    points = Decimal(match.group("n")).scaleb(-2)
    return f"{format(points.normalize(), 'f')} percentage points"


def _magnitude(match: re.Match[str]) -> str:
    """ "an order of magnitude" -> "of the order of 10×", "two orders of magnitude" ->
    "of the order of 100×" (a factor of ten each, as roughly as `HEDGES` says)."""
    count = _count(match.group("n"))
    if count is None or not 0 < count < 10:
        return match.group(0)
    return f"of the order of {10**count}\u00d7"


def _fractions(text: str, lower: str) -> str:
    """ "once a quarter" as "every 3 months", then fractions as shares."""
    if "quarter" in lower:
        text = _EVERY_QUARTER.sub("every 3 months", text)
    return _FRACTION.sub(_fraction, text)


def _ratios(text: str, lower: str) -> str:
    text = _RATIO.sub(_ratio, text)
    # `_noun_ratio` rewrites only a ratio of "one" or of "every" (a rewrite before this one
    # may have written "every": `lower` is the text as it came)
    if " in " in lower and _holds_any(text, ("one", "every")):
        return _NOUN_RATIO.sub(_noun_ratio, text)
    return text


def _dozens_and_folds(text: str, lower: str) -> str:
    if "dozen" in lower:
        text = _DOZEN.sub(_dozen, text)  # before "half a ..." reads "half a dozen"
    return _FOLD.sub(_fold, text) if "fold" in lower else text


def _units_in_words(text: str, lower: str) -> str:
    """ "two minutes", "8m30s", "sub-millisecond", "a fortnight" as figures with units."""
    if "one " in lower or "two " in lower or "zero " in lower:
        text = _SMALL_UNIT.sub(_small_unit, text)
    if "m" in lower and _CLOCK_HINT.search(text):
        text = _CLOCK.sub(_clock, text)
    if "sub-" in lower:
        text = _SUB_UNIT.sub(_sub_unit, text)
    if "a " in lower and _holds_any(text, _COUNTED_UNITS):
        text = _COUNTED_A.sub("1 ", text)
    return text


def spell_numbers(text: str) -> str:
    """`text` with number words, fractions, multiples and dates written as figures (see
    the module docstring)."""
    if _WORDS.search(text):
        lower = text.lower()  # each rewrite runs only where its words are (it is per sentence)
        text = spell_before(text, lower)
        if "dozen" in lower or "fold" in lower:
            text = _dozens_and_folds(text, lower)
        if "and a half" in lower:
            text = _AND_A_HALF.sub(_and_a_half, text)
            text = _NOUN_AND_A_HALF.sub(_and_a_half, text)
        if "by " in lower and "half" in lower:
            text = _BY_HALF.sub(_by_half, text)
        if "-" in lower:
            text = _WORD_UNIT.sub(_word_unit, text)
        if " to one" in lower:
            text = _TO_ONE.sub(_to_one, text)
        text = _units_in_words(text, lower)
        if (" a " in lower or " an " in lower) and _A_TIME_HINT.search(text):
            text = _A_TIME.sub(_a_time, text)
        if "half a" in lower:
            text = _HALF_A.sub(_half_a, text)
        if _FRACTION_WORD.search(lower):
            text = _fractions(text, lower)
        if " in " in lower or " of every " in lower or " out of " in lower:
            text = _ratios(text, lower)
        if " a " in lower or " an " in lower:
            text = _HEDGED_ONE.sub(_hedged_one, text)
        if "basis point" in lower:
            text = _BASIS_POINTS.sub(_basis_points, text)
        if "magnitude" in lower:
            text = _MAGNITUDE.sub(_magnitude, text)
        if _holds_any(text, _MULTIPLE_STEMS):
            text = _MULTIPLE.sub(lambda m: f"{_MULTIPLES[casefold.key(m.group(0))]}\u00d7", text)
        text = spell_after(_number_words(text), lower)
    return _written_with_symbols(text)


def _written_with_symbols(text: str) -> str:
    """Powers ("2^32"), fractions in digits ("7/8"), two durations in a row and dates as
    figures."""
    if _COMPOUND_HINT.search(text):
        text = _COMPOUND.sub(_compound, text)
    if _DOT_DIGIT.search(text):
        text = _LEADING_POINT.sub("0.", text)
    if "0x" in text or "0X" in text:
        text = _HEX.sub(lambda m: str(int(m.group("digits"), 16)), text)
    if "^" in text or "**" in text or _DIGIT_E.search(text):
        text = _EXPONENT.sub(_exponent, text)
    if ":" in text:
        text = _CLOCK_TIME.sub(_clock_time, ctime_dates(text))
    if _NUMERIC_DATE_HINT.search(text):
        text = _NUMERIC_DATE.sub(_numeric_date, text)
    if "^" in text or "**" in text:
        text = _POWER.sub(_power, text)
    if "/" in text:
        text = _SLASH.sub(_slash, text)
    if "\u00b5" in text or "\u03bc" in text:
        text = _BARE_MICRO.sub(lambda m: m.group(1) + "\u00b5s", text)
    if _MONTH_OR_ISO.search(text):
        if "-" in text:
            text = _NAMED_ISO_DATE.sub(" ", text)
        text = _YEARLESS.sub(r"\g<first> \g<year>\g<rest>", text)
        text = _DAY_RANGE.sub(_day_range, text)
        text = _DATE.sub(lambda m: _canonical_date(m.group(0)), text)
    return text


_NAMED_ISO_DATE = re.compile(r"(?<=[A-Za-z])-(?=(?:18|19|20)\d\d-(?:0[1-9]|1[0-2])-[0-3]\d\b)")
"""The hyphen between a name and the ISO date it carries ("nightly-2025-12-01")."""
_YEARLESS = re.compile(
    rf"\b(?P<first>{MONTH} [0-3]?\d|[0-3]?\d {MONTH})(?!\d|,? (?:18|19|20)\d\d)"
    rf"(?P<rest>[^.;\d]{{1,40}}?\b(?:{MONTH} [0-3]?\d,?|[0-3]?\d {MONTH}) "
    r"(?P<year>(?:18|19|20)\d\d))\b"
)
"""A day without its year before another day of the same sentence with one: "opened on
December 5 and ran until December 22, 2022" (the first is a day of 2022 too)."""
_DAY_RANGE = re.compile(
    rf"\b(?:(?P<month>{MONTH}) (?P<a>[0-3]?\d)\s?(?P<sep>[-\u2013]|to|until|through)\s?"
    r"(?P<b>[0-3]?\d),? (?P<year>(?:18|19|20)\d\d)"
    r"|(?P<a2>[0-3]?\d)\s?(?P<sep2>[-\u2013]|to|and|until|through)\s?(?P<b2>[0-3]?\d)"
    rf" (?P<month2>{MONTH}),? (?P<year2>(?:18|19|20)\d\d))\b"
)
"""A range of days of one month: "September 9\u201323, 2024", "from 9 to 23 September 2024"."""


def _day_range(match: re.Match[str]) -> str:
    """Both ends of a range of days as dates: "September 9\u201323, 2024" -> "9 September
    2024 to 23 September 2024" (the first day is as much a date as the last)."""
    month = match.group("month") or match.group("month2")
    year = match.group("year") or match.group("year2")
    a, b = int(match.group("a") or match.group("a2")), int(match.group("b") or match.group("b2"))
    if not 1 <= a < b <= 31:
        return match.group(0)
    sep = match.group("sep") or match.group("sep2")
    sep = "to" if sep in ("-", "\u2013") else sep
    return f"{a} {month} {year} {sep} {b} {month} {year}"
