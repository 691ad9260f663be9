"""A claim's difference in percentage points ("trailed AWS by 20 percentage points") computed
from two percentages of the page (pure: standard library only), only when they are the two
the claim compares, not any two percentages that happen to lie that far apart:
- neither is itself a change ("up 4% on last year", "an increase of 19%", "12% more"): a
  share less a change is no difference of two shares;
- they are one series: next to each other in one sentence, joined by "from", "to",
  "versus", "compared", "against" or an arrow ("31.5% of respondents, up from 27.6%";
  "from 25% → 46%"); or
- each is beside a word of the claim that the other's words lack: the words from the
  figure to the clause's edge (a comma, a semicolon, "while", "but") or to the sentence's
  next or previous percentage, on one side of it (after it, "58% develop on Linux, 27% on
  macOS"; or before it, "satisfaction with AWS was 77%", "Azure was lower (57%)"), the
  same side for two figures of one sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import combinations, permutations

from research.sources.derived import MAX_FIGURES, Cues, bounds_of, derivable, within
from research.sources.figures import StatedNumber
from research.sources.pageindex import Sentence
from research.sources.rawfigure import RawFigure
from research.sources.words import stems_of

_BREAK = re.compile(r"[;:.!?]\s|,(?!\d)|\s(?:while|whereas|but)\s", re.I)
_LINK = re.compile(r"\b(?:from|to|versus|vs|against|compared)\b|\u2192|->", re.I)
LINK_WORDS = 8
"""Two figures of a series are at most this many words apart ("44.5% of respondents use
the nightly toolchain, up from 39.1%")."""
_CHANGE_BEFORE = re.compile(
    r"(?:\b(?:(?<!made )(?<!make )(?<!makes )up|down|rose|fell|grew|gained|lost|jumped"
    r"|climbed|dropped|declined|increased"
    r"|decreased|increase|decrease|growth|rise|fall|drop|gain|decline|jump)(?:\s+(?:by|of))?"
    r"|\+)\s*$",
    re.I,
)
_CHANGE_AFTER = re.compile(
    r"\s*(?:more|less|fewer|higher|lower|increase|decrease|growth|rise|drop|gain|decline"
    r"|jump|year[- ]over[- ]year|yoy)\b",
    re.I,
)


_NO_COUNT_AFTER = re.compile(
    r"\s*(?:(?:percentage\s+|%\s*)?(?:points?|pts?|pp)|(?:th\s+)?percentiles?)\b", re.I
)


def counts_things(norm: str, raw: RawFigure) -> bool:
    """Whether a claim's figure (`raw`, read from `norm`) is a bare count, which a page's
    percentage never is ("12 nightly builds failed" is no "12% of nightly builds"), unless
    "points" follows it (a difference of two percentages: "gained 12 points") or
    "percentile" ("the 99 percentile" for "the 99%ile")."""
    bare = raw.kind == "number" and raw.quantity is None and not raw.multiple
    return bare and not raw.tokens and not _NO_COUNT_AFTER.match(norm, raw.end)


def is_points(number: StatedNumber) -> bool:
    """Whether a claim's figure is a difference in percentage points."""
    return number.kind == "percent" and "point" in number.text.lower()


@dataclass(frozen=True, slots=True)
class _Level:
    """A percentage of the page that is no change, with the words on each side of it."""

    value: float
    sentence: int
    order: int
    """Its place among the sentence's percentages."""
    before: frozenset[str]
    after: frozenset[str]
    linked: bool
    """Joined to the sentence's previous percentage as one series."""


def _of_kind(figure: StatedNumber, kind: str) -> bool:
    """Whether a figure is a percentage (no difference in points) or, for kind "number", a
    bare count (no quantity, no multiple)."""
    if figure.kind != kind or figure.as_float is None:
        return False
    if kind == "percent":
        return "point" not in figure.text.lower()
    return figure.quantity is None and not figure.multiple


def _levels(sentences: Sequence[Sentence], kind: str = "percent") -> Iterator[_Level]:
    for index, sentence in enumerate(sentences):
        for level in _sentence_levels(sentence, kind):
            yield replace(level, sentence=index) if index else level


def _sentence_levels(sentence: Sentence, kind: str) -> tuple[_Level, ...]:
    """The levels of one sentence (as its page's sentence 0)."""
    text = sentence.norm
    shares = sorted((f for f in sentence.inputs() if _of_kind(f, kind)), key=lambda f: f.span)
    if kind == "number":
        shares = shares[:MAX_FIGURES]  # as `derived` combines counts: a table row's are many
    out: list[_Level] = []
    for order, figure in enumerate(shares):
        start, end = figure.span
        left = shares[order - 1].span[1] if order else 0
        right = shares[order + 1].span[0] if order + 1 < len(shares) else len(text)
        before, after = text[left:start], text[end:right]
        if _CHANGE_BEFORE.search(before) or _CHANGE_AFTER.match(after):
            continue
        cut = [m.end() for m in _BREAK.finditer(before)]
        after_end = next((m.start() for m in _BREAK.finditer(after)), len(after))
        linked = bool(order) and len(before.split()) <= LINK_WORDS and bool(_LINK.search(before))
        out.append(
            _Level(
                value=figure.as_float or 0.0,
                sentence=0,
                order=order,
                before=stems_of(before[cut[-1] if cut else 0 :]),
                after=stems_of(after[:after_end]),
                linked=linked,
            )
        )
    return tuple(out)


def _own(mine: frozenset[str], theirs: frozenset[str], stems: frozenset[str]) -> bool:
    """Whether each side holds a word of the claim (`stems`) that the other lacks."""
    return bool((mine & stems) - theirs) and bool((theirs & stems) - mine)


def _paired(a: _Level, b: _Level, stems: frozenset[str]) -> bool:
    if a.sentence == b.sentence:
        if b.order == a.order + 1 and b.linked:
            return True
        return _own(a.before, b.before, stems) or _own(a.after, b.after, stems)
    return any(_own(x, y, stems) for x in (a.before, a.after) for y in (b.before, b.after))


def points_between(
    number: StatedNumber, sentences: Sequence[Sentence], stems: frozenset[str]
) -> bool:
    """Whether a claim's difference in percentage points (`is_points`) is the difference
    of two percentages of `sentences` that are the two the claim (its words: `stems`)
    compares (see the module docstring)."""
    levels = list(_levels(sentences))
    return any(
        within(number, [abs(a.value - b.value)]) and _paired(a, b, stems)
        for a, b in combinations(levels, 2)
    )


LISTED = 2
"""Sentences holding more than this many percentages (or bare counts) list them: a multiple
or a difference of two of them is of the two the claim compares (`paired_between`)."""


def _kinds(number: StatedNumber) -> tuple[str, ...]:
    """The kinds of figure whose lists a claim's figure is paired in: a multiple in a list
    of percentages, a difference in one of bare counts (a multiple of counts is not yet: the
    sums `computed.with_sums` reads are no list's items: "2^30 + 2^29" is 1.5 times 2^30)."""
    if number.multiple:
        return ("percent",)
    return ("number",) if number.kind == "number" and number.quantity is None else ()


def _some_pair(
    number: StatedNumber, sentences: Sequence[Sentence], kind: str, low: float, high: float
) -> bool:
    """Whether two figures of `kind` of `sentences` (of each, the first MAX_FIGURES) have a
    ratio (a difference, for a count) from `low` to `high`."""
    values = [
        f.as_float or 0.0
        for s in sentences
        for f in s.inputs()[:MAX_FIGURES]
        if f.kind == kind and _of_kind(f, kind)
    ]
    if number.multiple:
        return any(b > 0 and low <= a / b <= high for a, b in permutations(values, 2))
    return any(low <= a - b <= high for a, b in permutations(values, 2))


def _large(number: StatedNumber) -> bool:
    """Whether a claim's count is large enough to be a difference of any two (`derivable`)."""
    return (number.as_float or 0) >= 100


def listed(number: StatedNumber, sentences: Sequence[Sentence], cues: Cues) -> Cues:
    """`cues` for a claim's figure computed from `sentences`, with `Cues.listed` the kinds it
    is a multiple or a difference of that they hold more than LISTED of ("Linux 62%, macOS
    14% and Windows 9%": "seven to one" is Linux to Windows only)."""
    kinds = _kinds(number)
    if not kinds or not (number.multiple or cues.rise or cues.fall or _large(number)):
        return cues  # a small count with no change named is no difference (`derivable`)
    crowded = frozenset(kind for kind in kinds if _more_than(sentences, kind, LISTED))
    return replace(cues, listed=crowded) if crowded else cues


def _more_than(sentences: Sequence[Sentence], kind: str, count: int) -> bool:
    """Whether `sentences` hold more than `count` figures of `kind` (`_of_kind`)."""
    for sentence in sentences:
        for figure in sentence.inputs():
            if figure.kind == kind and _of_kind(figure, kind):
                count -= 1
                if count < 0:
                    return True
    return False


def paired_between(
    number: StatedNumber, sentences: Sequence[Sentence], stems: frozenset[str], cues: Cues
) -> bool:
    """Whether a claim's multiple (or difference of counts) is the ratio (difference) of two
    figures of a kind `cues` list (`Cues.listed`) that are the two the claim (its words:
    `stems`) compares (`_paired`, as `points_between`); a difference only of 100 or more,
    as `derived.derivable` computes one."""
    found = bounds_of(number)
    if found is None or not (number.multiple or _large(number)):
        return False
    low, high = found
    for kind in cues.listed:
        if not _some_pair(number, sentences, kind, low, high):
            continue  # no two figures of the kind make it: their words need not be read
        levels = list(_levels(sentences, kind))
        for a, b in permutations(levels, 2):
            if b.value <= 0:
                continue
            value = a.value / b.value if number.multiple else a.value - b.value
            if low <= value <= high and _paired(a, b, stems):
                return True
    return False


def derivable_as_read(
    number: StatedNumber, sentences: Sequence[Sentence], stems: frozenset[str]
) -> bool:
    """Whether a claim's figure (its words: `stems`) is computed from the figures of
    `sentences` (`derived.derivable`), a difference in percentage points only as
    `points_between` reads it."""
    if is_points(number):
        return points_between(number, sentences, stems)
    return derivable(number, [f for s in sentences for f in s.inputs()])
