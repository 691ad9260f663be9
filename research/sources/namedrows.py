"""The rows of a page that a claim may name, to compute a figure from two of them (pure:
standard library only): a table's rows, named by their first cell, and the lines of a
listing that label their figures ("- 3.7.0 final: 2018-06-27", or a benchmark's output
"netlib : 271.18 MB/s ... abseil : 430.45 MB/s" read as one sentence). Rows come in groups
(one table; one listing: labelled lines no more than LISTING_GAP sentences apart, or the
labels of one sentence), each with the words of its caption or of the heading right above
it, so that "On canada.json, json's median latency was 27.3 ms higher than orjson's" is
computed in the table under "canada.json serialization", not in the one under
"twitter.json serialization".

A row's names are its label's stems and its label's words squashed to letters and digits
("fastfloat" names the row a claim calls "fast_float"), and the rank a bare count up to ten
of its label gives ("beta 2": "#2", as a claim's "second beta" names it; a rank tells rows
apart but names none alone: `research.sources.computed`). Built once per page
(`named_rows`, kept in the page's memo).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from research.sources import casefold
from research.sources.figures import StatedNumber
from research.sources.pageindex import PageIndex, Sentence
from research.sources.rowlines import cell_index, first_cell
from research.sources.words import stems_of

LISTING_GAP = 2
"""Labelled lines at most this many sentences apart are one listing (a schedule's note
"(No new features beyond this point.)" between two of its lines)."""
LABEL_WORDS = 8
"""A line's label before its colon has at most this many words (longer: prose)."""
SQUASHED_LETTERS = 4
"""A squashed word names a row only with at least this many letters and digits."""


@dataclass(frozen=True, slots=True)
class Row:
    """One row: its group, its names, and its figures by column."""

    group: int
    sentence: int
    """The sentence it is (or is part of)."""
    names: frozenset[str]
    cells: Mapping[int, StatedNumber]
    """Column -> figure: a table cell's (its last figure), a listing line's figures in order."""


@dataclass(frozen=True, slots=True)
class Rows:
    """A page's rows that a claim may name."""

    rows: tuple[Row, ...]
    titles: tuple[frozenset[str], ...]
    """Group -> the stems of its caption or of the heading right above it (and of a
    table's header row: words every table of a page has weigh little)."""
    postings: Mapping[str, tuple[int, ...]]
    """Name -> the rows it names, in page order."""
    spread: Mapping[str, int]
    """Stem -> how many groups' titles hold it."""

    def title_weight(self, group: int, stems: frozenset[str]) -> float:
        """How much of a claim's words (`stems`) a group's title holds, each word weighed by
        how few titles hold it ("canada" names one table, "json" every one)."""
        return sum(1 / self.spread[stem] for stem in self.titles[group] & stems)


_WORD = re.compile(r"\S+?(?=['\u2019]s\b|[^\w'\u2019]*(?:\s|$))")
"""A word, less a possessive's "'s" and the punctuation after it."""
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


_ORDINALS = {
    "first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5", "sixth": "6",
    "seventh": "7", "eighth": "8", "ninth": "9", "tenth": "10",
}  # fmt: skip
_ORDINAL = re.compile(rf"\b(?:{'|'.join(_ORDINALS)})\b", re.IGNORECASE)
_COUNT = re.compile(r"(?<![\w.,-])(?:[1-9]|10)(?![\w.,-])")
"""A bare count up to ten in a label, not part of a version or another figure ("beta 2",
not "3.7.1")."""


@lru_cache(maxsize=1024)
def names_of(text: str) -> frozenset[str]:
    """The names a text gives: its stems, its words squashed ("fast_float": "fastfloat"),
    and the rank its ordinal words give ("the second beta": "#2")."""
    squashed = (_NOT_ALNUM.sub("", word.lower()) for word in _WORD.findall(text))
    ranks = {"#" + _ORDINALS[casefold.key(m.group(0))] for m in _ORDINAL.finditer(text)}
    return (
        stems_of(text)
        | {word for word in squashed if len(word) >= SQUASHED_LETTERS and not word.isdigit()}
        | ranks
    )


def _label_names(label: str) -> frozenset[str]:
    """`names_of` a row's label, with the rank a bare count up to ten gives ("beta 2":
    "#2", which "the second beta" names)."""
    return names_of(label) | {"#" + m.group(0) for m in _COUNT.finditer(label)}


def named_rows(page: PageIndex) -> Rows:
    """The page's `Rows`, built on first use and kept in its memo."""
    found = page.memo.rows
    if isinstance(found, Rows):
        return found
    rows: list[Row] = []
    titles: list[frozenset[str]] = []
    _table_rows(page.sentences, rows, titles)
    _listing_rows(page.sentences, rows, titles)
    postings: dict[str, list[int]] = {}
    for index, row in enumerate(rows):
        for name in row.names:
            postings.setdefault(name, []).append(index)
    spread: dict[str, int] = {}
    for title in titles:
        for stem in title:
            spread[stem] = spread.get(stem, 0) + 1
    built = Rows(
        rows=tuple(rows),
        titles=tuple(titles),
        postings=MappingProxyType({name: tuple(ids) for name, ids in postings.items()}),
        spread=MappingProxyType(spread),
    )
    page.memo.rows = built
    return built


def _table(text: str) -> bool:
    return text.startswith("|")


def _title(sentences: Sequence[Sentence], first: int) -> frozenset[str]:
    """The stems of what introduces the group starting at sentence `first`: its caption
    (`Sentence.lead`) and the sentence right above it (a heading)."""
    stems = set(sentences[first - 1].stems) if first > 0 else set()
    for index in sentences[first].lead:
        stems |= sentences[index].stems
    return frozenset(stems)


def _table_rows(
    sentences: Sequence[Sentence], rows: list[Row], titles: list[frozenset[str]]
) -> None:
    """Every table row with a first cell of words, a group per table."""
    for index, sentence in enumerate(sentences):
        if not _table(sentence.text):
            continue
        if index == 0 or not _table(sentences[index - 1].text):
            titles.append(_title(sentences, index) | sentence.stems)  # with its header's
        if not sentence.label:
            continue
        cells = {cell_index(sentence.norm, f.span[0]): f for f in sentence.numbers}
        label = first_cell(sentence.text)
        rows.append(Row(len(titles) - 1, index, sentence.label | _label_names(label), cells))


_COLON = re.compile(r"\s?:\s+")


def _segments(sentence: Sentence) -> list[tuple[str, list[StatedNumber]]]:
    """The (label, figures) of a sentence whose colons each come right before a figure: the
    words before the one colon, or, of several, the word before each."""
    norm, numbers = sentence.norm, sentence.numbers
    starts = {f.span[0] for f in numbers}
    colons = [m for m in _COLON.finditer(norm) if m.end() in starts]
    if not colons:
        return []
    if len(colons) == 1:
        label = norm[: colons[0].start()]
        if len(label.split()) > LABEL_WORDS or not label.strip():
            return []
        return [(label, [f for f in numbers if f.span[0] >= colons[0].end()])]
    out: list[tuple[str, list[StatedNumber]]] = []
    for colon, after in zip(colons, [*colons[1:], None], strict=True):
        words = norm[: colon.start()].split()
        end = after.start() - len(norm[: after.start()].split()[-1]) if after else len(norm)
        figures = [f for f in numbers if colon.end() <= f.span[0] < end]
        out.append((words[-1] if words else "", figures))
    return out


def _listing_rows(
    sentences: Sequence[Sentence], rows: list[Row], titles: list[frozenset[str]]
) -> None:
    """The labelled lines of the page's listings (see the module docstring)."""
    last = -LISTING_GAP - 2  # the last labelled line, a listing of its own when of several
    for index, sentence in enumerate(sentences):
        if _table(sentence.text) or ":" not in sentence.norm:
            continue
        segments = _segments(sentence)
        if not segments:
            continue
        if len(segments) > 1 or index - last > LISTING_GAP + 1:
            titles.append(_title(sentences, index))
        for label, figures in segments:
            names = _label_names(label)
            if names and figures:
                rows.append(Row(len(titles) - 1, index, names, dict(enumerate(figures))))
        last = index if len(segments) == 1 else -LISTING_GAP - 2
