"""Where on a page a claim's figure that the page nowhere states may be computed from (pure:
standard library only): which figures `research.sources.derived` may combine.

A page with many figures holds some pair for almost any figure, so the inputs must be
tied to the claim:
- the figures of one sentence, of the DERIVING_SENTENCES sentences holding the most of
  the claim's words (at least half of them; a table row with the sentences that introduce
  its table), as `derived.derivable_in_sentence` combines them (a quotient, a sum or a
  product only when the claim's words say so);
- the one figure of such a sentence (of the PAIRED_SENTENCES closest; with two figures of
  the sort the computation takes, the sentence itself is where it was computed, or it was
  not: "less than 0.5%" is no share of ~460 of 662,544 and one of the next paragraph's
  figures) and one of a sentence
  at most NEIGHBOURS sentences away that holds a word of the claim or of that sentence
  ("The index held 48,000 crates ..." and, a paragraph later, "By December it held 60,000
  crates"), or, for a duration, of the very next or previous sentence (a date per
  sentence is how a history is told); neither of them a table row, whose neighbours are
  other columns' figures;
- two figures of one column of two rows of one table whose first cells the claim names.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from research.sources.derived import (
    DAY,
    Cues,
    cues_of,
    derivable,
    derivable_in_sentence,
)
from research.sources.figures import StatedNumber
from research.sources.pageindex import PageIndex, Sentence

DERIVING_SENTENCES = 8
"""A figure nowhere on the page may be computed from the figures of one of this many
sentences that hold the most of the claim's words (at least half of them)."""
PAIRED_SENTENCES = 3
"""Of those, the closest this many may lend one figure to a pair with a neighbour's."""
NEIGHBOURS = 2
"""How many sentences away that neighbour may be (the next paragraph's first sentence)."""
PAIRED_FIGURES = 6
"""The figures of each sentence of such a pair combined at most (the first ones)."""
MAX_NAMED_ROWS = 4
"""A figure is computed from the rows of one table the claim names, at most this many."""


def derived_elsewhere(
    page: PageIndex, stems: frozenset[str], claim: str, number: StatedNumber
) -> bool:
    """Whether a figure the page does not state is computed from figures tied to the
    claim's words (`claim`: its text, for its `derived.Cues`; see the module docstring)."""
    cues = cues_of(claim)
    closest = _closest(page, stems)
    sentences = page.sentences
    return (
        any(
            derivable_in_sentence(number, sentences[i].numbers, cues.against(sentences[i].norm))
            for i in closest[:DERIVING_SENTENCES]
        )
        or _derived_from_rows(page, stems, number)
        or any(
            _with_neighbour(page, stems, index, number, cues)
            for index in closest[:PAIRED_SENTENCES]
        )
    )


def derived_here(number: StatedNumber, sentences: Sequence[Sentence], claim: str) -> bool:
    """Whether `number` is computed (`derivable`) from the figures of `sentences` (the
    matching passage and the title block), a complement only where they do not say "not"
    themselves (`derived.Cues.against`)."""
    cues = cues_of(claim).against(" ".join(s.norm for s in sentences))
    return derivable(number, [f for s in sentences for f in s.numbers], cues)


def _closest(page: PageIndex, stems: frozenset[str]) -> list[int]:
    """The sentences holding at least half of `stems` (and two), the most first, then the
    first on the page; a table row the claim names counts its table's introduction's."""
    counts: Counter[int] = Counter()
    for stem in stems:
        counts.update(page.sentence_postings.get(stem, ()))
    for index in {i for stem in stems for i in page.label_postings.get(stem, ())}:
        row = page.sentences[index]
        lead = frozenset().union(*(page.sentences[i].stems for i in row.lead))
        counts[index] = len((row.stems | lead) & stems)
    least = max(2, (len(stems) + 1) // 2)
    return [i for _, i in sorted((-c, i) for i, c in counts.items() if c >= least)]


def _row(sentence: Sentence) -> bool:
    return sentence.text.startswith("|")


def _with_neighbour(
    page: PageIndex, stems: frozenset[str], anchor: int, number: StatedNumber, cues: Cues
) -> bool:
    """Whether `number` is computed from one figure of sentence `anchor` and one of a
    neighbour tied to it (see the module docstring)."""
    sentences = page.sentences
    mine = sentences[anchor]
    unit = number.quantity.unit if number.quantity else None
    duration = unit is not None and unit.dimension == "second" and unit.factor >= DAY
    kinds = ("date", "year") if duration else ("number", "percent")
    inputs = sum(f.kind in kinds for f in mine.numbers)
    if _row(mine) or inputs != 1:
        return False  # with two figures of its own the sentence is where it was computed
    pair_cues = replace(cues, complement=False)  # a complement takes one figure: the anchor's
    for index in range(max(page.head, anchor - NEIGHBOURS), anchor + NEIGHBOURS + 1):
        if index == anchor or index >= len(sentences):
            continue
        theirs = sentences[index]
        tied = bool(theirs.stems & (stems | mine.stems)) or (duration and abs(index - anchor) == 1)
        if not tied or _row(theirs):
            continue
        for x in mine.numbers[:PAIRED_FIGURES]:
            for y in theirs.numbers[:PAIRED_FIGURES]:
                if derivable(number, [x, y], pair_cues):
                    return True
    return False


def _derived_from_rows(page: PageIndex, stems: frozenset[str], number: StatedNumber) -> bool:
    """Whether `number` is computed (`derivable`) from two figures of one column of two
    rows of one table whose first cells the claim names ("LZ4 HC at level 9 compresses
    nineteen times more slowly than LZ4's default mode" from their compression speeds)."""
    named: dict[tuple[int, ...], list[int]] = {}
    for index in sorted({i for stem in stems for i in page.label_postings.get(stem, ())}):
        sentence = page.sentences[index]
        if sentence.stems & stems:  # as a sentence holding one of the claim's words
            named.setdefault(sentence.lead, []).append(index)
    for rows in named.values():
        rows = rows[:MAX_NAMED_ROWS]
        for i, a in enumerate(rows):
            for b in rows[i + 1 :]:
                cells = _cells(page.sentences[a])
                for cell, y in _cells(page.sentences[b]).items():
                    x = cells.get(cell)
                    if x is not None and derivable(number, [x, y]):
                        return True
    return False


def _cells(row: Sentence) -> dict[int, StatedNumber]:
    """A table row's figures by the column of their cell (one per cell: its last)."""
    return {row.norm.count("|", 0, f.span[0]): f for f in row.numbers}
