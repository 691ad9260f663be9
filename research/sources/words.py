"""A text's content words and sentences (pure: standard library only).

Words: `research.core.similarity.content_words` (lowercase, stopwords and one-letter tokens
dropped, plurals folded), pure digits dropped, a few hedges ("approximately", "according")
dropped, then a light stem: "-ing"/"-ed" and a final "e" removed, a doubled final
consonant undoubled, "y" -> "i", and the result cut to `STEM_CHARS` characters, so
"installed"/"installation" and "increase"/"increasing" match.

Sentences (`split_sentences`): a period after an abbreviation or an initial does not end
one; a sentence starts with a capital, a digit, a quote or a bracket.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from research.core.similarity import content_words
from research.sources.figures import RawFigure

STEM_CHARS = 6


_HEDGES = frozenset(
    {"according", "approximately", "roughly", "around", "nearly", "almost", "reportedly",
     "respectively", "percent", "cent", "percentage", "pct", "some", "circa", "approx",
     "report", "reports", "reported", "say", "says", "said", "find", "finds", "found",
     "show", "shows", "showed", "shown"}
)  # fmt: skip


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """A light stem: -ing/-ed and a final e off, doubled consonant undoubled, y -> i, cut."""
    stem = word
    if len(stem) > 5 and stem.endswith("ing"):
        stem = stem[:-3]
    elif len(stem) > 4 and stem.endswith("ed"):
        stem = stem[:-2]
    if stem != word and len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        stem = stem[:-1]
    if len(stem) > 3 and stem.endswith("e"):
        stem = stem[:-1]
    if len(stem) > 3 and stem.endswith("y"):
        stem = stem[:-1] + "i"
    return stem[:STEM_CHARS]


def stems_of(text: str) -> frozenset[str]:
    """Stems of the content words of `text` (figures already blanked out)."""
    return frozenset(
        _stem(word) for word in content_words(text) if not word.isdigit() and word not in _HEDGES
    )


@lru_cache(maxsize=65536)
def token_stems(token: str) -> frozenset[str]:
    """`stems_of` one word (empty for a stopword, a hedge or a figure), cached: a page
    repeats its words."""
    return stems_of(token)


def blank_numbers(text: str, numbers: Sequence[RawFigure]) -> str:
    if not numbers:
        return text
    out: list[str] = []
    pos = 0
    for raw in numbers:
        start = raw.start if raw.blank_start == -1 else raw.blank_start
        if raw.blank_end == -1 or start < pos:
            continue
        out.append(text[pos:start])
        out.append(" ")
        pos = max(pos, raw.end, raw.blank_end)
    out.append(text[pos:])
    return "".join(out)


# --- Sentences ----------------------------------------------------------------------------

_ENDER = re.compile(r"[.!?\u3002\uff01\uff1f]+[\"'\u201d\u2019)\]]*(?:\s*\[[^\[\]\n]{1,40}\])*")
_ABBREVIATIONS = frozenset(
    """e.g i.e etc al vs cf fig figs no nos dr mr mrs ms prof st inc ltd co corp approx
    jan feb mar apr jun jul aug sep sept oct nov dec vol pp ca est dept gov univ""".split()
)
_INITIALS = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")


def split_sentences(text: str) -> list[str]:
    """Sentences of one line or paragraph; a period after an abbreviation does not end one."""
    sentences: list[str] = []
    start = 0
    for match in _ENDER.finditer(text):
        end = match.end()
        if match.group(0)[0] not in "\u3002\uff01\uff1f" and end < len(text):
            rest = text[end:]
            if not (rest[0].isspace() and _starts_sentence(rest.lstrip())):
                continue
            if match.group(0)[0] == "." and _abbreviation(text, match.start()):
                continue
        piece = text[start:end].strip()
        if piece:
            sentences.append(piece)
        start = end
    rest = text[start:].strip()
    if rest:
        sentences.append(rest)
    return sentences


def _starts_sentence(text: str) -> bool:
    first = text[:1]
    return bool(first) and (first.isupper() or first.isdigit() or first in "\"'\u201c\u2018([*_")


def _abbreviation(text: str, period: int) -> bool:
    word = text[:period].rsplit(None, 1)[-1] if text[:period].strip() else ""
    word = word.lstrip("(\"'\u201c")
    if not word:
        return False
    if len(word) == 1 and word.isalpha():
        return True
    return word.lower() in _ABBREVIATIONS or _INITIALS.fullmatch(word) is not None
