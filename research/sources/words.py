"""A text's content words and sentences (pure: standard library only).

Words: `research.core.similarity.content_words` (lowercase, stopwords and one-letter tokens
dropped, plurals folded), pure digits dropped, a few hedges ("approximately", "according")
and verbs of reporting ("said", "saying", "showed", "argued": a report's, not the page's
content) and of having ("carries", "holds", "contains": the page's "has" is a stopword)
dropped, then a light stem: "-ing"/"-ed" and a final "e" removed, a doubled final
consonant undoubled, "y" -> "i", and the result cut to `STEM_CHARS` characters, so
"installed"/"installation" and "increase"/"increasing" match. A careful writer's other
words count as the page's (`SAME_WORDS`, whole words, each group one stem): a change up
("grew" for "rose", "a 25% increase" for "grew 25%", "raised"), a change down ("fell" for
"dropped", "shrank", "reduced"), a speed-up and "faster", a slowdown and "slower",
"respondents" for "participants" (and "answers"), a survey for a poll, "developers" for
"programmers", "organizations" for "companies", "most common" for "most popular", "usage"
for "use", "began" for "started", "shipped" for "released", "monthly" for "a month" (and
days, weeks, hours, years). They keep their direction where
it matters: `research.sources.flips` reads the words themselves, so "grew" for "fell" is
still a flipped meaning. No library gives these: WordNet needs data it downloads, and its
synonym sets do not know the sense ("fell" a tree, a "rose" garden would match a change),
so the table is the project's own, kept to words reports swap for one another.

Sentences (`split_sentences`): a period after an abbreviation or an initial does not end
one; a sentence starts with a capital, a digit, a quote or a bracket.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from research.core.similarity import content_word, distinct_tokens
from research.sources.rawfigure import RawFigure

STEM_CHARS = 6

SAME_WORDS: tuple[tuple[str, ...], ...] = (
    ("increase", "increased", "increasing", "rise", "rose", "risen", "rising", "grow", "grew",
     "grown", "growing", "growth", "climb", "climbed", "climbing", "jump", "jumped", "surge",
     "surged", "raise", "raised", "raising"),
    ("decrease", "decreased", "decreasing", "decline", "declined", "declining", "fall", "fell",
     "fallen", "falling", "drop", "dropped", "dropping", "shrink", "shrank", "shrunk",
     "shrinking", "reduce", "reduced", "reducing", "reduction", "cut", "cutting"),
    ("faster", "quicker", "speedup", "sped"),
    ("slower", "slowdown", "slowed"),
    ("respondent", "participant", "answer", "answered"),
    ("survey", "poll", "polled", "questionnaire"),
    ("developer", "programmer"),
    ("organization", "organisation", "company"),
    ("common", "commonly", "popular", "widespread", "prevalent"),
    ("use", "usage", "used", "using", "uses"),
    ("start", "started", "starting", "begin", "began", "begun", "beginning"),
    ("release", "released", "releasing", "ship", "shipped", "shipping"),
    ("month", "monthly"),
    ("week", "weekly"),
    ("day", "daily"),
    ("hour", "hourly"),
    ("year", "yearly", "annual", "annually"),
)  # fmt: skip
"""Words (lowercase, plurals folded as `content_words` folds them) that count as one: each
has the stem of the first of its group."""


_HEDGES = frozenset(
    {"according", "approximately", "roughly", "around", "nearly", "almost", "reportedly",
     "respectively", "percent", "cent", "percentage", "pct", "some", "circa", "approx",
     "report", "reports", "reported", "say", "says", "said", "saying", "find", "finds",
     "found", "finding", "show", "shows", "showed", "shown", "showing", "argue", "argues",
     "argued", "arguing", "carry", "carries", "carried", "carrying", "hold", "holds",
     "held", "holding", "contain", "contains", "contained", "containing"}
)  # fmt: skip


def _light_stem(word: str) -> str:
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


_SAME = {word: _light_stem(group[0]) for group in SAME_WORDS for word in group}
_JOINED = re.compile(r"\b(speed|slow)(?:ed)?[- ](up|down)\b", re.I)
"""'speed-up', 'slow down': one word ('speedup', 'slowdown'), not 'speed' and a stopword."""


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """`_light_stem`, or the stem a word of `SAME_WORDS` counts as."""
    return _SAME.get(word) or _light_stem(word)


def stems_of(text: str) -> frozenset[str]:
    """Stems of the content words of `text` (figures already blanked out)."""
    if ("up" in text or "down" in text) and ("peed" in text or "low" in text):
        text = _JOINED.sub(r"\1\2", text)
    return frozenset(
        stem for token in distinct_tokens(text) if (stem := _token_stem(token)) is not None
    )


@lru_cache(maxsize=65536)
def _token_stem(token: str) -> str | None:
    """The stem of one of a text's tokens (`distinct_tokens`), or None for no content word,
    a figure or a hedge: `content_words` and `_stem` in one step, cached."""
    word = content_word(token)
    if word is None or word.isdigit() or word in _HEDGES:
        return None
    return _stem(word)


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
