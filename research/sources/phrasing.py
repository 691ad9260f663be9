"""How careful writers phrase figures, and how a claim can keep the figures but flip their
meaning (pure: standard library only).

Careful phrasing (never a reason to call a claim unsupported):
- number words in the forms pages and claims use for figures: "two thirds", "a quarter",
  "one in five", "two and a half times", "three million", "twelve percent"; they are
  written as figures (`spell_numbers`) and count as rounded;
- rounding marked as such: "about 12%" for 11.8% (`rounding_before`, `tolerance`);
- unit formats: 5 km and 5,000 m (`unit_values`); ISO dates: 2021-03 and March 2021.

Meaning flips (`flip`): within the clause that holds a shared figure, the claim says the
opposite direction (increase/decrease, more/less, above/below), negates what the page
says ("does not"), or attaches two figures to each other's subjects.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal

_UNITS = {
        "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
        "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
        "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
        "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
        "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
}  # fmt: skip
_FRACTIONS = {
    "half": Decimal(1) / 2, "halves": Decimal(1) / 2, "third": Decimal(1) / 3,
    "thirds": Decimal(1) / 3, "quarter": Decimal(1) / 4, "quarters": Decimal(1) / 4,
    "fourth": Decimal(1) / 4, "fourths": Decimal(1) / 4, "fifth": Decimal(1) / 5,
    "fifths": Decimal(1) / 5, "tenth": Decimal(1) / 10, "tenths": Decimal(1) / 10,
}  # fmt: skip
_WORD = "|".join(sorted(_UNITS, key=len, reverse=True))
_COUNT = rf"(?:a|an|one|{_WORD})"
_FRACTION = re.compile(
    rf"\b(?P<count>{_COUNT})[ -](?P<part>{'|'.join(_FRACTIONS)})\b(?! of a (?:percent|per ?cent))",
    re.IGNORECASE,
)
_RATIO = re.compile(rf"\b(?P<a>{_WORD}) (?:in|out of) (?P<b>{_WORD})\b", re.IGNORECASE)
_AND_A_HALF = re.compile(rf"\b(?P<n>{_WORD}) and a half\b", re.IGNORECASE)
_SCALED = re.compile(
    rf"\b(?P<n>{_WORD})(?:[ -](?P<n2>{_WORD}))? (?P<scale>thousand|million|billion|trillion"
    r"|percent|per cent)\b",
    re.IGNORECASE,
)
_ANY_NUMBER_WORD = re.compile(rf"\b(?:{_WORD}|{'|'.join(_FRACTIONS)})\b", re.IGNORECASE)
_ISO_DATE = re.compile(
    r"(?<![\w.-])(?P<y>(?:18|19|20)\d\d)-(?P<m>0[1-9]|1[0-2])(?:-(?P<d>\d\d))?(?![\w-])"
)
_MONTHS = (
    "January February March April May June July August September October November December"
).split()
ROUNDED = "about"
"""The word `spell_numbers` writes before a figure it made of number words."""
_ROUNDING = re.compile(
    r"(?:\b(?:about|around|roughly|approximately|approx\.?|nearly|almost|some|circa|ca\."
    r"|close to|an estimated|estimated|just over|just under|just above|just below)|~)\s*"
    r"[$\u20ac\u00a3\u00a5]?\s*$",
    re.IGNORECASE,
)


def _value(word: str) -> int:
    return _UNITS[word.lower()]


def _number(*words: str | None) -> int:
    return sum(_value(w) for w in words if w)


def _decimal_text(value: Decimal) -> str:
    text = format(value.quantize(Decimal("0.1")) if value != value.to_integral() else value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def spell_numbers(text: str) -> str:
    """`text` with number words written as figures, marked as rounded ("about 20%" for "a
    fifth", "about 2.5" for "two and a half"), and ISO dates as "March 2021"."""
    if not _ANY_NUMBER_WORD.search(text):
        return _ISO_DATE.sub(_date_words, text) if "-" in text else text

    def fraction(match: re.Match[str]) -> str:
        count = match.group("count").lower()
        share = (1 if count in ("a", "an", "one") else _value(count)) * _FRACTIONS[
            match.group("part").lower()
        ]
        return f"{ROUNDED} {_decimal_text(share * 100)}%"

    def ratio(match: re.Match[str]) -> str:
        share = Decimal(_value(match.group("a"))) / _value(match.group("b")) * 100
        return f"{ROUNDED} {_decimal_text(share)}%"

    def scaled(match: re.Match[str]) -> str:
        scale = match.group("scale").lower()
        value = _number(match.group("n"), match.group("n2"))
        return f"{ROUNDED} {value}" + ("%" if scale.startswith("per") else f" {scale}")

    text = _AND_A_HALF.sub(lambda m: f"{ROUNDED} {_value(m.group('n'))}.5", text)
    text = _FRACTION.sub(fraction, text)
    text = _RATIO.sub(ratio, text)
    text = _SCALED.sub(scaled, text)
    return _ISO_DATE.sub(_date_words, text)


def _date_words(match: re.Match[str]) -> str:
    month = _MONTHS[int(match.group("m")) - 1]
    day = f"{int(match.group('d'))} " if match.group("d") else ""
    return f"{day}{month} {match.group('y')}"


def rounding_before(text: str, start: int) -> bool:
    """Whether the figure at `start` is marked as rounded ("about", "roughly", "~", ...)."""
    return _ROUNDING.search(text, max(0, start - 24), start) is not None


def tolerance(written: str, value: Decimal, *, percent: bool = False) -> Decimal:
    """How far a figure marked as rounded may be from the page's: half a unit of its last
    significant digit ("about 1,200": 50; "roughly 6.8 million": 50,000), and for a
    percentage at least a tenth of it ("about 20%" for 21.4%, "a third" for 31%)."""
    digits = re.sub(r"[^\d.]", "", written.split("%")[0]) or "0"
    whole, _, frac = digits.partition(".")
    if frac:
        unit = Decimal(1).scaleb(-len(frac))
    else:
        stripped = whole.rstrip("0")
        unit = Decimal(1).scaleb(len(whole) - len(stripped)) if stripped else Decimal(1)
    base = Decimal(digits) if digits.replace(".", "").isdigit() else Decimal(0)
    scale = value / base if base else Decimal(1)
    return max(unit * scale / 2, abs(value) / 10 if percent else Decimal(0))


# --- units ------------------------------------------------------------------------------------

_UNIT_FACTORS: dict[str, tuple[str, int]] = {
    "mm": ("m", -3), "millimetre": ("m", -3), "millimeter": ("m", -3),
    "cm": ("m", -2), "centimetre": ("m", -2), "centimeter": ("m", -2),
    "m": ("m", 0), "metre": ("m", 0), "meter": ("m", 0),
    "km": ("m", 3), "kilometre": ("m", 3), "kilometer": ("m", 3),
    "g": ("g", 0), "gram": ("g", 0), "kg": ("g", 3), "kilogram": ("g", 3),
    "t": ("g", 6), "tonne": ("g", 6),
    "wh": ("wh", 0), "kwh": ("wh", 3), "mwh": ("wh", 6), "gwh": ("wh", 9), "twh": ("wh", 12),
    "kilowatt-hour": ("wh", 3), "megawatt-hour": ("wh", 6), "gigawatt-hour": ("wh", 9),
    "terawatt-hour": ("wh", 12),
    "w": ("w", 0), "kw": ("w", 3), "mw": ("w", 6), "gw": ("w", 9), "tw": ("w", 12),
    "kilowatt": ("w", 3), "megawatt": ("w", 6), "gigawatt": ("w", 9),
}  # fmt: skip
_UNIT = re.compile(
    r"[ \u00a0-]?(?P<unit>" + "|".join(sorted(_UNIT_FACTORS, key=len, reverse=True)) + r")s?\b",
    re.IGNORECASE,
)


def unit_values(text: str, end: int, value: Decimal) -> set[Decimal]:
    """The same quantity in the other units of its kind when a unit follows the figure at
    `end` ("4,200 m" is also 4.2 (km) and 420,000 (cm))."""
    match = _UNIT.match(text, end)
    if match is None:
        return set()
    kind, power = _UNIT_FACTORS[match.group("unit").lower()]
    return {
        value.scaleb(power - other)
        for _, (other_kind, other) in _UNIT_FACTORS.items()
        if other_kind == kind and other != power
    }


# --- meaning flips ----------------------------------------------------------------------------

_UP = frozenset(
    """increase increased increases increasing rise rises rose risen rising grew grow grows
    growing growth up higher highest more above gain gained gains improve improved improves
    exceed exceeded exceeds exceeding expensive costlier larger largest bigger surge
    surged jump jumped climb climbed""".split()
)
_DOWN = frozenset(
    """decrease decreased decreases decreasing fall falls fell fallen falling drop dropped
    drops dropping decline declined declines declining down lower lowest less fewer below
    loss lost cut cuts reduce reduced reduces reduction shrank shrink cheaper smaller
    smallest missed miss""".split()
)
_NEGATION = frozenset({"not", "no", "never", "cannot"})
_CLAUSE_BREAK = re.compile(r"[;:()]|,(?!\d)|\s(?:while|whereas|but|compared with|against)\s", re.I)
_TOKEN = re.compile(r"[a-z]+(?:'t)?")


def clause_around(text: str, start: int, end: int) -> str:
    """The clause of `text` that holds the span start..end (split at , ; : and "while",
    "whereas", "but", "compared with")."""
    breaks = list(_CLAUSE_BREAK.finditer(text))
    left = max((m.end() for m in breaks if m.end() <= start), default=0)
    right = min((m.start() for m in breaks if m.start() >= end), default=len(text))
    return text[left:right]


def _tokens(clause: str) -> list[str]:
    return _TOKEN.findall(clause.lower())


def direction(clause: str) -> int:
    """+1 when the clause speaks only of up (rose, more, above), -1 only of down, else 0."""
    words = set(_tokens(clause))
    up, down = bool(words & _UP), bool(words & _DOWN)
    return (1 if up else 0) - (1 if down else 0) if up != down else 0


def negated(clause: str) -> bool:
    words = _tokens(clause)
    return any(w in _NEGATION or w.endswith("n't") for w in words)


def flipped(claim_clause: str, page_clause: str) -> str | None:
    """How the claim's clause turns the page's around, or None."""
    mine, theirs = direction(claim_clause), direction(page_clause)
    if mine and theirs and mine != theirs:
        words = sorted(set(_tokens(page_clause)) & (_UP if theirs > 0 else _DOWN))
        return f"the page says {words[0]!r} where the claim says the opposite"
    if negated(claim_clause) != negated(page_clause):
        side = "the claim" if negated(claim_clause) else "the page"
        return f"{side} negates what the other says"
    return None


def swapped(
    claim_clauses: Sequence[frozenset[str]], page_clauses: Sequence[frozenset[str]]
) -> bool:
    """Whether two figures are attached to each other's subjects: the words that set a
    claim clause apart from its page clause belong to the page clause of another figure,
    and back (clauses as sets of content stems, in the order of the claim's figures)."""
    pairs = list(zip(claim_clauses, page_clauses, strict=True))
    for index, (mine, theirs) in enumerate(pairs):
        own = mine - theirs
        for other, (mine_other, theirs_other) in enumerate(pairs):
            if other == index or theirs_other == theirs:
                continue
            if own & (theirs_other - theirs) and (mine_other - theirs_other) & (theirs - mine):
                return True
    return False
