"""Counts, rates and changes written in words that text2num does not read, rewritten as the
figure reader reads them (pure; called by `research.sources.spelling.spell_numbers`).

Before the number words are read (`spell_before`):
- how often a thing happens: "twice", "thrice" before "a day", "per hour", "every week"
  are 2 and 3 times ("twice a day" is no multiple; "once a day" stays words, as "daily"
  does); "every other day" every 2 days;
- a change as a multiple: "by a factor of three" 3× ("halved" and "cut in half" stay
  words: as a figure, "halved" must be on the page in a form the reading knows, "fell
  50%" or "from 10 to 5", and pages say it many other ways, "down to half", "a 2x
  reduction", "50% of its size"; measured with it, one more careful claim of the fresh
  corpus half was flagged);
- vague counts: "dozens of", "hundreds of", "thousands of", "millions of" (or "ran into
  millions"), "tens of thousands of", "several thousand", "a few hundred" become "several
  24", "several 200", "several 2000", ... (two to ten of the unit: "several" is a hedge of
  1 to 5 times, `research.sources.quantities.HEDGES`; text2num read "thousands of" as 1000
  and "tens of thousands" as 10 and 1000), "a couple of" about 2, "a quarter-million" a
  quarter of a million;
- a group named by its boundary: "the over-65s" and "under-18s" are "aged over 65",
  "aged under 18" (the figure reader reads a boundary as exact: `figures`);
- temperatures: "20 °C", "68 degrees Fahrenheit" in pint's spelling ("20 degC").

After them (`spell_after`), the small counts text2num leaves as words:
- "two" before what it counts ("two workers", "two new flags", "the two most common
  editors"; not "the two of them", "the two teams", "one or two", "two is", nor before
  the two items it names: "two platforms, Linux and macOS"): 2;
- "one" before a thing counted per unit of time ("one call per second", "about one issue
  a week"): 1. Any other "one" ("one of the fastest", "one reason", "a one-off", "the old
  one", and "only one maintainer", which a page says as "a single maintainer" or "one
  maintainer", neither of them a figure) counts nothing the page must hold.
"""

from __future__ import annotations

import re

from research.sources import casefold

_TIME_UNITS = r"(?:second|minute|hour|day|week|fortnight|month|quarter|year)s?"
_TIMES = re.compile(
    rf"\b(?P<n>twice|thrice)(?= (?:a|an|per|every|each) {_TIME_UNITS}\b)", re.IGNORECASE
)
_TIMES_COUNT = {"twice": "2 times", "thrice": "3 times"}
_EVERY_OTHER = re.compile(
    r"\bevery other (?P<unit>second|minute|hour|day|week|month|year)\b", re.IGNORECASE
)
_FACTOR = re.compile(
    r"\ba factor of (?P<n>\d+(?:\.\d+)?|two|three|four|five|six|seven|eight|nine|ten)\b",
    re.IGNORECASE,
)
_FACTOR_WORDS = {
    "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10",
}  # fmt: skip
_VAGUE = re.compile(
    r"(?<![\d.,] )\b(?:(?P<tens>tens|hundreds) of )?"
    r"(?P<many>dozens|hundreds|thousands|millions|billions)\b(?: of\b)?",
    re.IGNORECASE,
)
"""A vague count: "thousands of users", "ran into millions", "tens of thousands of"."""
_SCALE_SIZE = {"dozen": 12, "hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_VAGUE_SIZE = {f"{scale}s": size for scale, size in _SCALE_SIZE.items()}
_SEVERAL = re.compile(
    r"\b(?:several|a few) (?P<scale>dozen|hundred|thousand|million|billion)\b(?! of\b)",
    re.IGNORECASE,
)
_TENS = {"tens": 10, "hundreds": 100}
VAGUE_HEDGE = "several"
"""The hedge a vague count is written with (its band: `quantities.HEDGES`)."""
_COUPLE = re.compile(r"\ba couple of\b", re.IGNORECASE)
_HYPHEN_SCALE = re.compile(
    r"\b(?P<a>an? )?(?P<part>quarter|half)-(?P<scale>thousand|million|billion)\b", re.IGNORECASE
)
_GROUP_AGE = re.compile(r"\b(?P<side>over|under)-(?P<n>\d{1,3})s\b", re.IGNORECASE)
_DEGREES = re.compile(
    r"(?<=\d)\s?(?:\u00b0|\u00ba|degrees?\s)\s?(?P<scale>C|F|Celsius|Fahrenheit|centigrade)\b"
)


def _vague(match: re.Match[str]) -> str:
    """ "thousands of" -> "several 1000", "tens of thousands of" -> "several 10000"."""
    size = _VAGUE_SIZE[casefold.key(match.group("many"))]
    tens = match.group("tens")
    if tens is not None:
        if size < 1000:
            return match.group(0)  # "hundreds of dozens of": no count
        size *= _TENS[casefold.key(tens)]
    return f"{VAGUE_HEDGE} {2 * size:,}"  # "2,000": no year


def _several(match: re.Match[str]) -> str:
    """ "several thousand", "a few hundred" -> "several 2000", "several 200"."""
    return f"{VAGUE_HEDGE} {2 * _SCALE_SIZE[casefold.key(match.group('scale'))]:,}"


def _hyphen_scale(match: re.Match[str]) -> str:
    """ "a quarter-million" -> "a quarter of a million", "half-million" -> "half a million"."""
    scale = match.group("scale")
    if match.group("part").lower() == "half":
        return f"half a {scale}"
    return f"{match.group('a') or 'a '}quarter of a {scale}"


def _degrees(match: re.Match[str]) -> str:
    celsius = match.group("scale")[0].upper() == "C"
    return " degC" if celsius else " degF"


def spell_before(text: str, lower: str) -> str:
    """`text` with the counts, rates and changes above written for text2num and the figure
    reader (`lower`: `text` in lower case, to run only the rewrites whose words are there)."""
    if "twice" in lower or "thrice" in lower:
        text = _TIMES.sub(lambda m: _TIMES_COUNT[casefold.key(m.group("n"))], text)
    if "every other" in lower:
        text = _EVERY_OTHER.sub(lambda m: f"every 2 {m.group('unit')}s", text)
    if "factor of" in lower:
        text = _FACTOR.sub(
            lambda m: f"{_FACTOR_WORDS.get(m.group('n').lower(), m.group('n'))}\u00d7", text
        )
    if "dozens" in lower or "hundreds" in lower or "sands" in lower or "illions" in lower:
        text = _VAGUE.sub(_vague, text)
    if "several " in lower or "a few " in lower:
        text = _SEVERAL.sub(_several, text)
    if "couple of" in lower:
        text = _COUPLE.sub("about 2", text)
    if "-thousand" in lower or "-million" in lower or "-billion" in lower:
        text = _HYPHEN_SCALE.sub(_hyphen_scale, text)
    if "over-" in lower or "under-" in lower:
        text = _GROUP_AGE.sub(lambda m: f"aged {m.group('side')} {m.group('n')}", text)
    if "\u00b0" in text or "\u00ba" in text or "degree" in lower:
        text = _DEGREES.sub(_degrees, text)
    return text


_FUNCTION_WORDS = (
    "of or and to nor is was were are be been has have had will would can could may might "
    "must shall should do does did more less fewer than as at in on by for from with into "
    "about over under per times"
)
_STOP = frozenset(_FUNCTION_WORDS.split())
_TWO = re.compile(
    r"(?<![\w-])(?P<before>\w+ )?two (?P<next>[a-z][a-z'-]*)(?: (?P<then>[a-z][a-z'-]*))?",
    re.IGNORECASE,
)
_DETERMINERS = frozenset(
    "the these those its their our your his her my both all of or and one every".split()
)
_ONE_PER = re.compile(
    rf"(?<![\w-])one (?=[a-z]+(?: [a-z]+)? (?:a|an|per|every|each) {_TIME_UNITS}\b)",
    re.IGNORECASE,
)


_LISTED = re.compile(r"\s*[,:(\u2013\u2014]\s*[^,.;:()]{1,40}?\s(?:and|or)\s")
"""The items a count names right after it: a page that lists them need not count them."""
_RANKS = frozenset("most least top main leading first last".split())
"""Words after "the two" that make it a count ("the two most common editors")."""
_IRREGULAR_PLURALS = frozenset("people men women children".split())


def _plural(word: str) -> bool:
    return word in _IRREGULAR_PLURALS or (word.endswith("s") and not word.endswith("ss"))


def _two(match: re.Match[str]) -> str:
    """ "two workers", "two new flags" -> 2; left as written after a determiner ("the two
    teams") or before a word that counts nothing ("two of", "two is")."""
    before = (match.group("before") or "").strip().lower()
    nxt, then = match.group("next").lower(), (match.group("then") or "").lower()
    ranked = before == "the" and (nxt in _RANKS or nxt.endswith("est"))  # "the two largest"
    if (before in _DETERMINERS and not ranked) or nxt in _STOP or "-" in nxt:
        return match.group(0)
    if not _plural(nxt) and not (then not in _STOP and _plural(then)):
        return match.group(0)
    if _LISTED.match(match.string, match.end("then") if _plural(then) else match.end("next")):
        return match.group(0)  # "two platforms, Linux and macOS": the list counts them
    start = match.start("next") - match.start() - len("two ")
    return match.group(0)[:start] + "2 " + match.group(0)[start + len("two ") :]


def spell_after(text: str, lower: str) -> str:
    """`text` with "two" and "one" as figures where they count something (see above)."""
    if "two " in lower:
        text = _TWO.sub(_two, text)
    if "one " in lower:
        text = _ONE_PER.sub("1 ", text)
    return text
