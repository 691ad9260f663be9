"""One figure written two ways, for the figure reader (pure): the tokens a figure shares
with its other spelling, a count per unit of time as a rate, and a group's boundary.

- A multiple and the percentage it is (`tokens`): "3×" or "tripled" is "rose 200%", "2×"
  ("twice the baseline") is "200% of", "1.5 times as fast" is "50% faster", "0.5×"
  ("halved", "cut in half") is "fell 50%". Both get the token "× 3" (`TIMES`), which
  `StatedNumber.matches` compares before the kinds (a percentage is otherwise only a
  percentage).
- A count per unit of time is a rate (`rate_after`): "180 requests per minute", "7.2
  million pages a day", "4 times a day", "50 jobs/s" are quantities of pint's dimension
  "1 / second" ("3 requests per second" is 180 a minute); a period is one per its length:
  "every 6 hours" shares its token ("/s 4.63e-05") with "4 times a day".
- A group named by its boundary ("children under 15", "people aged over 65", "firms with
  fewer than 50 staff", "incomes over 60,000 euros"): the hedge before the figure names the
  group's edge, no approximate figure, so the figure is exact (`boundary`): "under 14" is
  another group. "Under 15" also shares a token with a page's "0-14" and "14 and under".
"""

from __future__ import annotations

import re
from decimal import Decimal

from research.sources.quantities import Unit, unit_of

TIMES = "\u00d7 "
"""The prefix of a multiple's token."""
PER_SECOND = "/s "
"""The prefix of a rate's token."""
UNDER = "under "
"""The prefix of an upper boundary's token."""

_OF_AFTER = re.compile(r"\s+of\b")
_MORE_AFTER = re.compile(
    r"\s+(?:more|faster|larger|bigger|higher|greater|quicker|longer|heavier)\b", re.IGNORECASE
)
_LESS_AFTER = re.compile(
    r"\s+(?:less|fewer|smaller|lower|slower|shorter|cheaper|lighter)\b", re.IGNORECASE
)
_UP = frozenset(
    "rose rise rises risen grew grow grows grown increased increase increases jumped climbed "
    "gained up".split()
)
_DOWN = frozenset(
    "fell fall falls fallen dropped drop drops declined decline declines decreased decrease "
    "decreases shrank shrunk cut reduced slashed down lost".split()
)
_BETWEEN = frozenset("by about some nearly almost roughly around over more than just".split())
"""Words between a change's verb and its percentage ("rose by about 20%")."""
REACH = 48
"""How many characters before a figure are looked at for a change's verb."""


def _change_before(text: str, start: int) -> str | None:
    """ "up" or "down" when a verb of change comes right before a figure ("rose by 20%",
    "fell about 50%"), else None."""
    words = text[max(0, start - REACH) : start].lower().split()
    while words and words[-1] in _BETWEEN:
        words.pop()
    if not words:
        return None
    return "up" if words[-1] in _UP else "down" if words[-1] in _DOWN else None


def _times(value: Decimal) -> str:
    return TIMES + format(value.normalize(), "f")


def percent_tokens(text: str, start: int, end: int, value: Decimal) -> set[str]:
    """The multiple a percentage stands for, when its words say: "200% of" (2×), "50%
    faster" (1.5×), "rose 200%" (3×), "fell 50%" (0.5×)."""
    out: set[str] = set()
    share = value / 100
    if share > 1 and _OF_AFTER.match(text, end):
        out.add(_times(share))
    change = _change_before(text, start)
    if change == "up" or _MORE_AFTER.match(text, end):
        out.add(_times(1 + share))
    elif (change == "down" or _LESS_AFTER.match(text, end)) and share < 1:
        out.add(_times(1 - share))
        if HALF_BAND[0] <= share <= HALF_BAND[1]:
            out.add(HALF)
    return out


def multiple_tokens(text: str, start: int, value: Decimal, *, hedged: bool) -> set[str]:
    """The tokens of a multiple ("3×", "tripled"): shared with "rose 200%"; after a fall's
    verb ("dropped by 2×", "fell by a factor of 4") the share it leaves (0.5, 0.25); a
    hedged half ("halved": "about 0.5×") or a fall by 2× also shares any fall of 45% to
    55% (`HALF`)."""
    out = {_times(value)}
    if value > 1 and _change_before(text, start) == "down":
        out.add(_times(1 / value))
        out.update([HALF] if value == 2 else [])
    return out | ({HALF} if hedged and value == Decimal("0.5") else set())


HALF = TIMES + "~0.5"
"""The token of about half: a fall of 45% to 55%, or "halved"."""
HALF_BAND = (0.45, 0.55)


_TIME_DIMENSION = "second"
_RATE_DIMENSION = "1 / second"
_NOT_A_NOUN = (
    r"(?!(?:a|an|per|every|each|the|for|in|of|on|at|to|with|by|from|and|or|than|over|under|"
    r"about|that|which|this|is|was|are|were|has|had|have)\b)"
)
_RATE_AFTER = re.compile(
    rf"(?: (?P<noun>{_NOT_A_NOUN}[^\W\d_][\w'-]*(?: {_NOT_A_NOUN}[^\W\d_][\w'-]*)?))?"
    r"(?: (?:a|an|per|every|each) |/)(?P<unit>[^\W\d_]+)\b",
    re.IGNORECASE,
)


_COUNT_PREFIXES = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}
_PREFIXED = re.compile(r"\s?([kKMG])[a-z]{2,6}")
"""A count with a metric prefix right before "/" ("20.52 Mfloat/s", "3 kreq/s", "1.2
Gflop/s"): millions, thousands, billions of it."""


def rate_unit(per: Unit) -> Unit:
    """One per `per` (a unit of time) as a rate."""
    return Unit(name=f"1 / {per.name}", dimension=_RATE_DIMENSION, factor=1 / per.factor)


def rate_after(text: str, end: int) -> Unit | None:
    """The rate a count ending at `end` is written as: "180 requests per minute", "4 times
    a day", "7.2 million pages a day", "50 jobs/s", "20 a month" (one or two words of what
    is counted, then "a", "per", "every", "each" or "/" and a unit of time), or None."""
    match = _RATE_AFTER.match(text, end)
    if match is None:
        return None
    per = unit_of(match.group("unit"))
    if per is None or per.dimension != _TIME_DIMENSION:
        return None
    rate = rate_unit(per)
    prefix = _PREFIXED.fullmatch(match.group("noun") or "")
    if prefix is None or text[match.end("noun") : match.end("noun") + 1] != "/":
        return rate
    scale = _COUNT_PREFIXES[prefix.group(1)]
    return Unit(name=f"{scale:g} {rate.name}", dimension=rate.dimension, factor=scale * rate.factor)


def rate_token(per_second: float) -> str:
    """The token of a rate in base units ("4 times a day", "every 6 hours" alike)."""
    return f"{PER_SECOND}{per_second:.4g}"


_EVERY_BEFORE = re.compile(r"\bevery\s+$", re.IGNORECASE)


def period_token(text: str, start: int, seconds: float) -> str | None:
    """The rate a period after "every" stands for ("every 6 hours": 4 a day), or None."""
    if seconds <= 0 or not _EVERY_BEFORE.search(text, max(0, start - 8), start):
        return None
    return rate_token(1 / seconds)


_GROUPS = (
    "children|kids|people|persons|adults|men|women|boys|girls|users|patients|individuals|"
    "residents|workers|employees|staff|teens|teenagers|pupils|students|households|families|"
    "respondents|citizens|voters|drivers|infants|babies|those|anyone|everyone|firms|"
    "companies|businesses|incomes|income|earnings|salaries|wages|aged|age|ages|ageing"
)
_GROUP_BEFORE = re.compile(rf"\b(?:{_GROUPS})(?:\s+(?:with|earning|making))?\s+$", re.I)
"""The words before a bound hedge that make it a group's boundary ("children under",
"aged over", "firms with fewer than", "incomes over")."""


def boundary(text: str, hedge_start: int, band: tuple[float, float]) -> bool:
    """Whether the bound hedge starting at `hedge_start` ("under", "more than") names the
    edge of a group ("children under 15") rather than an approximate figure ("has under
    100 users"): a word of `_GROUPS` right before it."""
    low, high = band
    if not (high == 1.0 and low < 1.0) and not (low == 1.0 and high > 1.0):
        return False
    return _GROUP_BEFORE.search(text, max(0, hedge_start - 40), hedge_start) is not None


def upper_boundary(band: tuple[float, float], value: Decimal) -> str | None:
    """The token of an upper boundary ("under 15"), which a page's "0-14" shares."""
    return f"{UNDER}{value}" if band[1] == 1.0 and value == value.to_integral() else None


_AND_UNDER_AFTER = re.compile(r"\s+(?:and|or)\s+(?:under|younger|below|less)\b", re.I)
_FROM_ZERO = re.compile(r"(?<![\w.,])0\s*(?:-|\u2013|to)\s*$")


def page_upper_token(text: str, start: int, end: int, value: Decimal) -> str | None:
    """A page's last figure of a group from 0 ("aged 0-14") or "14 and under": the token
    of "under 15"."""
    if value != value.to_integral() or not 0 < value < 200:
        return None
    if text[end : end + 4] not in (" and", " or ") and "0" not in text[max(0, start - 6) : start]:
        return None
    if _AND_UNDER_AFTER.match(text, end) or _FROM_ZERO.search(text, max(0, start - 8), start):
        return f"{UNDER}{value + 1}"
    return None
