"""A claim whose own two figures contradict the comparison it makes (pure: standard library
only): "simdjson parsed it faster than yyjson, at 1.52 GB/s against 1.72 GB/s", "printf
took longer to compile than {fmt}, 1.4 seconds against 4.7 seconds". A careful writer
restating two cells of a table gives each subject its own figure; a comparison turned
around keeps the figures and flips the word, so the page holds both figures and the rules
that look for them find nothing wrong. The claim says the opposite of its own figures.

Read only in one shape: a comparative ("faster", "longer", "more", ...) followed by
"than", then, later in the same sentence, two figures of one dimension joined by
"against", "versus", "vs" or "compared with/to" (the first the compared subject's, the
second the other's): quantities of one dimension, or two percentages. "Faster" and
"slower" are read by the dimension: a smaller time is faster, a larger rate is. Any other
shape says nothing, nor does a comparative bounding a figure ("more than 30%").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from research.sources.figures import StatedNumber

_COMPARATIVE = re.compile(
    r"\b(faster|quicker|slower|longer|shorter|more|less|fewer|higher|lower|larger|smaller"
    r"|bigger)\b(?=[^.;]*?\bthan\s+(?P<bound>[~$\d])?)",
    re.IGNORECASE,
)
"""A comparative with its "than"; `bound`: a figure right after "than" ("more than 30%"
bounds a figure, it compares no two subjects)."""
_JOIN = re.compile(r"\b(?:against|versus|vs\.?|compared (?:with|to))\s", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.;!?](?:\s|$)")
_MORE = frozenset({"more", "higher", "larger", "bigger", "longer"})
_LESS = frozenset({"less", "fewer", "lower", "smaller", "shorter"})
_TIME = "second"


def contradicted(text: str, numbers: Sequence[StatedNumber]) -> str | None:
    """What the claim (`text`, as its figures were read; `numbers`, its figures in order)
    compares the wrong way round with its own figures, or None (see the module)."""
    for found in _COMPARATIVE.finditer(text):
        if found.group("bound"):
            continue
        end = _SENTENCE_END.search(text, found.end())
        stop = end.start() if end else len(text)
        after = [n for n in numbers if found.end() <= n.span[0] < stop]
        for first, second in zip(after, after[1:], strict=False):
            between = text[first.span[1] : second.span[0]]
            if not _JOIN.search(between):
                continue
            way = _expected(found.group(1).lower(), first, second)
            if way is None:
                continue
            a, b = _base(first), _base(second)
            if a is not None and b is not None and a != b and (a > b) != (way > 0):
                word = found.group(1)
                return f"'{word}' with {first.text} against {second.text}"
    return None


def _expected(word: str, first: StatedNumber, second: StatedNumber) -> int | None:
    """+1 when the comparative says the first figure is the larger, -1 the smaller, None
    when the figures are of no one dimension or the word says nothing about them."""
    if first.kind == second.kind == "percent" and word in _MORE | _LESS:
        return 1 if word in _MORE else -1
    if first.quantity is None or second.quantity is None:
        return None
    dimension = first.quantity.unit.dimension
    if dimension != second.quantity.unit.dimension:
        return None
    if word in _MORE:
        return 1
    if word in _LESS:
        return -1
    if dimension == _TIME:
        return -1 if word in ("faster", "quicker") else 1
    if dimension.endswith(f"/ {_TIME}"):
        return 1 if word in ("faster", "quicker") else -1
    return None


def _base(number: StatedNumber) -> float | None:
    """A figure's size to compare: its quantity in base units, a percentage's value."""
    if number.quantity is not None:
        return number.quantity.base
    return float(number.value) if number.kind == "percent" and number.value is not None else None
