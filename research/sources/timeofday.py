"""A time of day, told from a duration written the same way ("08:13:07" after a date is
when, "1:30:00" alone how long), and a timestamp's date (pure).

- `time_of_day(text, start, end)`: whether the clock at text[start:end] is a time of day:
  after "at", "by", "until", "from", "to", "since" or a date (ISO "2017-10-12", "October
  12, 2017", "12 Oct 2017", "Mar 26", a weekday), or before "am"/"pm", a zone ("UTC",
  "CEST", "+0100") or a year (a ctime string: "Tue Mar 26 08:27:18 2013").
- `both_readings(clock, value)`: a clock nothing tells, as both durations it may be; a
  time of day too (so "at 10:30" matches "10:30\u201311:00").
- `clock_key(match)`: its canonical "HH:MM" or "HH:MM:SS" (24 hours; "9:42 pm" 21:42), the
  figure `research.sources.figures` reads it as; a page's with seconds also matches the
  claim's minute ("at 08:13" for "08:13:07").
- `ctime_dates(text)`: "Mar 26 08:27:18 2013" (as `date` and `go version` print it) as
  "Mar 26 2013 08:27:18", so that the date reader (python-dateutil) reads its date and its
  time stays a time of day.
"""

from __future__ import annotations

import re

from dateutil import parser as dateparser  # type: ignore[import-untyped]

MONTH_NAMES = sorted(
    (name for names in dateparser.parserinfo.MONTHS for name in names), key=len, reverse=True
)
"""The months' names and abbreviations python-dateutil reads, the longest first."""
MONTH = "(?:" + "|".join(MONTH_NAMES) + r")\.?"
"""A month's name or abbreviation (a pattern's text; `research.sources.spelling`'s too)."""
WEEKDAY = r"(?:(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day|Mon|Tue|Wed|Thu|Fri|Sat|Sun)\.?,?"
"""A weekday's name or abbreviation (a pattern's text)."""
_YEAR = r"(?:18|19|20)\d\d"
CLOCK = re.compile(
    r"(?<![\w:.,/])(?P<h>[0-2]?\d):(?P<m>[0-5]\d)(?::(?P<s>[0-5]\d))?(?:\.\d+)?"
    r"(?:\s?(?P<ampm>[ap])\.?m\b\.?)?(?![\w:]|\.\d)",
    re.IGNORECASE,
)
"""A clock: "08:13", "08:13:07", "9:42 pm"."""
_BEFORE = re.compile(
    rf"(?:\b(?:at|by|until|till|from|to|since)"
    rf"|(?<![\w-]){_YEAR}-[01]\d-[0-3]\d"
    rf"|\b{MONTH} [0-3]?\d(?:st|nd|rd|th)?(?:,? {_YEAR})?"
    rf"|\b[0-3]?\d(?:st|nd|rd|th)? (?:of )?{MONTH},? {_YEAR}"
    rf"|\b{WEEKDAY})"
    r",?(?: at)?\s+$",
    re.IGNORECASE,
)
"""What a time of day follows: a word of time, a date, a weekday."""
_AFTER = re.compile(
    rf"\s?(?:(?i:[ap]\.?m)\b|UTC\b|GMT\b|Z\b|[A-Z]{{1,4}}T\b|[+-][01]\d:?[0-5]\d\b|{_YEAR}\b)"
)
"""What a time of day precedes: am/pm, a zone, or a year (a ctime string)."""
_REACH = 40
"""How many characters before a clock are looked at for a date or a word of time."""
_CTIME = re.compile(
    rf"\b(?P<day>{MONTH} [0-3]?\d) (?P<time>[0-2]?\d:[0-5]\d(?::[0-5]\d)?) (?P<year>{_YEAR})\b"
)


_BOTH_AFTER = re.compile(r" \(\d+ s or \d+ min\)")
"""What `both_readings` writes after a clock."""


def both_readings(clock: str, value: int) -> str:
    """A clock that nothing around it tells ("runs 1:30", "10:30\u201311:00") with both its
    readings as a duration, m:ss and h:mm: "1:30 (90 s or 90 min)". It may also be a time
    of day (`time_of_day`)."""
    return f"{clock} ({value} s or {value} min)"


def time_of_day(text: str, start: int, end: int) -> bool:
    """Whether the clock at text[start:end] may tell a time of day (see the module
    docstring): not a duration nor a ratio; one written with `both_readings` may be."""
    if _BEFORE.search(text, max(0, start - _REACH), start):
        return True
    return _AFTER.match(text, end) is not None or _BOTH_AFTER.match(text, end) is not None


def clock_key(match: re.Match[str]) -> str | None:
    """ "08:13", "08:13:07", "21:42" for a `CLOCK` match that is a valid time of day."""
    hour, minute, second = int(match.group("h")), match.group("m"), match.group("s")
    ampm = (match.group("ampm") or "").lower()
    if ampm:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm == "p" else 0)
    elif hour > 23:
        return None
    return f"{hour:02d}:{minute}" + (f":{second}" if second else "")


def ctime_dates(text: str) -> str:
    """ "Tue Mar 26 08:27:18 2013" -> "Tue Mar 26 2013 08:27:18" (its date in one piece)."""
    return _CTIME.sub(r"\g<day> \g<year> \g<time>", text)
