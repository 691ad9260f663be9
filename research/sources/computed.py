"""Where on a page a claim's figure that the page nowhere states may be computed from (pure:
standard library only): which figures `research.sources.derived` may combine.

A page with many figures holds some pair for almost any figure, so the inputs must be
tied to the claim:
- the figures of one sentence, of the DERIVING_SENTENCES sentences holding the most of
  the claim's words (at least half of them; a table row with the sentences that introduce
  its table), as `derived.derivable` and `derived.computed_in_sentence` combine them (a
  quotient, a sum or a product only when the claim's words say so);
- one figure of such a sentence (of the PAIRED_SENTENCES closest) and one of a sentence
  at most NEIGHBOURS sentences away that holds a word of the claim or of that sentence
  ("The index held 48,000 crates ..." and, a paragraph later, "By December it held 60,000
  crates"), or, for a duration, when no such sentence gives a date, of the very next or
  previous sentence (a date per sentence is how a history is told); neither of them a
  table row, whose neighbours are other columns' figures. A sentence with two figures of
  the sort the computation takes is where it was computed, or it was not ("less than
  0.5%" is no share of ~460 of 662,544 and one of the next paragraph's figures), unless
  the neighbour repeats one of its figures: then it continues the statement, and the
  figures they do not share are paired ("0.8 per 1,000 sessions in 2022", "in 2023 it
  was 0.2 per 1,000 sessions");
- two figures of one such neighbour when the anchor states another of the claim's
  figures, its context ("with eight threads"), no other neighbour with two figures holds
  more of the claim's words, and the claim says which way its figure goes ("cut by 4.3
  seconds": `_next_to_context`);
- two figures of one column of two rows of one table or listing that the claim names
  (`research.sources.namedrows`), each by a word the other lacks.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from decimal import Decimal

from research.sources.derived import (
    Cues,
    Reading,
    computed_in_sentence,
    cues_of,
    derivable,
    derived_values,
    is_duration,
    reading_of,
)
from research.sources.figures import StatedNumber
from research.sources.namedrows import named_rows, names_of
from research.sources.ownfigures import (
    base_of,
    converted,
    counted_words,
    flanked,
    left_over,
    part_of,
    share_with,
    taken_from,
)
from research.sources.pageindex import PageIndex, Sentence
from research.sources.points import is_points, listed, paired_between, points_between
from research.sources.quantities import step_of
from research.sources.rawfigure import Value

_PLUS = re.compile(r"\s*\+\s*")


def with_sums(sentence: Sentence) -> Sequence[StatedNumber]:
    """A sentence's figures and the sums of two bare counts it writes out ("the initial
    refcount were thus 2^30 + 2^29"), a figure it states without its digits."""
    numbers = sentence.inputs()
    if "+" not in sentence.norm:
        return numbers
    sums = [
        StatedNumber(
            text=f"{a.text} + {b.text}",
            value=a.value + b.value,
            kind="number",
            candidates=frozenset({a.value + b.value}),
            span=(a.span[0], b.span[1]),
        )
        for a, b in zip(numbers, numbers[1:], strict=False)
        if a.kind == b.kind == "number"
        and a.quantity is None is b.quantity
        and isinstance(a.value, Decimal)
        and isinstance(b.value, Decimal)
        and _PLUS.fullmatch(sentence.norm, a.span[1], b.span[0])
    ]
    return (*numbers, *sums)


DERIVING_SENTENCES = 8
"""A figure nowhere on the page may be computed from the figures of one of this many
sentences that hold the most of the claim's words (at least half of them)."""
PAIRED_SENTENCES = 3
"""Of those, the closest this many may lend one figure to a pair with a neighbour's."""
NEIGHBOURS = 2
"""How many sentences away that neighbour may be (the next paragraph's first sentence)."""
PAIRED_FIGURES = 6
"""The figures of each sentence of such a pair combined at most (the first ones)."""
ROWS_PER_NAME = 2
"""A figure is computed from the rows of one table or listing the claim names, at most this
many per word of the claim that names them (the first)."""
APART_SENTENCES = 6
"""Of the sentences holding two or more of the claim's words, the most first, this many may
lend one figure each to a pair anywhere on the page (`_apart`)."""
APART_BAND = (0.9, 1.1)
"""A figure computed from sentences far apart is hedged at most this much ("about", not
"more than")."""
MAX_NAMED_ROWS = 64
"""The rows a word of the claim names that are looked at, at most (the first)."""


def derived_elsewhere(
    page: PageIndex,
    stems: frozenset[str],
    claim: str,
    number: StatedNumber,
    others: Sequence[StatedNumber] = (),
) -> frozenset[str] | None:
    """Whether a figure the page does not state is computed from figures tied to the
    claim's words (`claim`: its text, for its `derived.Cues`; see the module docstring):
    None when it is not, else the claim's words (`stems`) that the sentences it is computed
    from hold when they are far from each other (two rows a claim names, or `_apart`'s two
    sentences: their words are not one passage's, yet the claim restates them). A share or
    multiple of another of the claim's figures (`others`) as `_with_own` computes it; a
    quantity that is another of them in the unit the claim names (`ownfigures.converted`)."""
    if converted(number, others, claim) or flanked(number, others, claim):
        return frozenset()
    own = _with_own(page, stems, claim, number, others)
    if own is not None or base_of(number, others, claim) is not None:
        return own
    lent = _derived_from_rows(page, stems, claim, number)
    if lent is not None:
        return lent  # rows the claim names: before any sentence computing it by chance
    cues = cues_of(claim)
    counts = _word_counts(page, stems)
    closest = _closest(page, stems, counts)
    reading = reading_of(number)
    if not is_points(number) and any(
        _in_sentence(page, i, number, reading, stems, cues) for i in closest[:DERIVING_SENTENCES]
    ):
        return frozenset()
    if is_points(number):
        return _points_near(page, stems, number, closest)
    if reading is None:
        return None  # `derivable` computes no figure like it: no pair does
    pair_cues = replace(cues, complement=False)  # a complement takes one figure
    if any(
        _with_neighbour(page, stems, index, number, reading, pair_cues)
        or _next_to_context(page, stems, index, number, (reading, cues), others)
        for index in closest[:PAIRED_SENTENCES]
    ):
        return frozenset()
    return _apart(page, stems, number, reading, pair_cues, counts)


def _in_sentence(
    page: PageIndex,
    index: int,
    number: StatedNumber,
    reading: Reading | None,
    stems: frozenset[str],
    cues: Cues,
) -> bool:
    """Whether `number` (read as `reading`) is computed from the figures of sentence `index`
    (`derivable`, then `computed_in_sentence`; a multiple of two of the percentages it
    lists as `points.ratio_between` reads them)."""
    sentence = page.sentences[index]
    cues = _margined(listed(number, (sentence,), cues.against(sentence.norm)), (sentence,))
    if cues.listed and paired_between(number, (sentence,), stems, cues):
        return True
    figures = with_sums(sentence)
    if reading is not None:  # `derivable` first
        table = _derived(page, reading, cues)
        if _derives(table, reading, cues, ("one", index), [figures]):
            return True
    return computed_in_sentence(number, figures, cues)


def _margined(cues: Cues, sentences: Sequence[Sentence]) -> Cues:
    """`cues` with `Cues.margin` when `sentences` give a percentage that is an error margin."""
    if any(len(s.inputs()) < len(s.numbers) for s in sentences) and any(
        f.kind == "percent" for s in sentences for f in s.numbers
    ):
        return replace(cues, margin=True)
    return cues


def computed_elsewhere(
    page: PageIndex,
    stems: frozenset[str],
    claim: str,
    number: StatedNumber,
    lent: list[frozenset[str]],
    others: Sequence[StatedNumber] = (),
) -> bool:
    """`derived_elsewhere` as a test, adding the claim's words it lends to `lent`."""
    found = derived_elsewhere(page, stems, claim, number, others)
    if found is not None:
        lent.append(found)
    return found is not None


_COMPARATIVE_AFTER = re.compile(
    r"[\s,]*(?:[^\W\d_]+\s+){0,2}?(?:longer|shorter|more|less|fewer|faster|slower|higher"
    r"|lower|larger|smaller|bigger|sooner|later|earlier)\b",
    re.IGNORECASE,
)
"""A comparative right after a figure and its unit: the figure is a difference ("50 seconds
longer", "12 ms faster")."""


def computed_from_rows(
    page: PageIndex,
    stems: frozenset[str],
    claim: str,
    number: StatedNumber,
    lent: list[frozenset[str]],
) -> bool:
    """Whether `number`, which the page states somewhere, is computed from two rows of one
    table or listing that the claim names (`_derived_from_rows`), adding the claim's words
    they hold to `lent`: a "50 seconds longer" of two rows' compile times is no other
    column's "50". Only a figure the claim says it computed: a multiple, a percentage, a
    duration between two dates, or a difference a comparative follows ("50 seconds
    longer"); "read twitter.json at 0.26 GB/s" and "fell by a fifth, to 115 dollars" are
    no difference of two rows."""
    if not (
        number.multiple
        or number.kind == "percent"
        or is_duration(number)
        or _COMPARATIVE_AFTER.match(claim, number.span[1])
    ):
        return False
    found = _derived_from_rows(page, stems, claim, number)
    if found is not None:
        lent.append(found)
    return found is not None


NEXT_ROWS = 2
"""Rows of a table right before or after the passage that it may compute with, at most."""


def rows_next_to(
    page: PageIndex, first: int, end: int, stems: frozenset[str]
) -> tuple[Sentence, ...]:
    """The rows of the table right before sentence `first` or right after `end` (a
    passage's) whose first cell the claim names (at most NEXT_ROWS of each): what "in the
    above benchmark, passing -n increases the times to 1.664s for ripgrep" changes ("added
    about 0.6 seconds" from ripgrep's row's 1.042s)."""
    sentences = page.sentences
    out: list[Sentence] = []
    for start, step in ((first - 1, -1), (end, 1)):
        index, taken = start, 0
        while page.head <= index < len(sentences) and sentences[index].label and taken < NEXT_ROWS:
            if sentences[index].label & stems:
                out.append(sentences[index])
                taken += 1
            index += step
    return tuple(out)


def derived_here(
    number: StatedNumber,
    sentences: Sequence[Sentence],
    claim: str,
    stems: frozenset[str],
    others: Sequence[StatedNumber] = (),
) -> bool:
    """Whether `number` is computed (`derivable`) from the figures of `sentences` (the
    matching passage and the title block), a complement only where they do not say "not"
    themselves (`derived.Cues.against`), or from those of one of them as
    `computed_in_sentence` computes it (a quotient, a sum, a change the claim names). A
    duration only between dates (or years) of sentences holding the claim's words when
    they give two: "four years after the project began" is not the years of a logo and of
    Windows support in the sentences between. A share or multiple of another of the
    claim's figures (`others`) only as `ownfigures` reads it ("65% of the 557,686,925": a
    figure of the passage over 557,686,925, nothing else); one the claim computes from
    the two of its figures either side of it (`ownfigures.flanked`)."""
    if flanked(number, others, claim):
        return True
    base = base_of(number, others, claim)
    figures = [f for s in sentences for f in s.inputs()]
    if base is not None:
        return share_with(number, base, figures, base=True)
    part = part_of(number, others, claim)
    if part is not None and share_with(number, part, figures, base=False):
        return True
    if _left_in(number, sentences, claim, others):
        return True
    if is_points(number):
        return points_between(number, sentences, stems)
    cues = _margined(listed(number, sentences, cues_of(claim)), sentences)
    if cues.listed and paired_between(number, sentences, stems, cues):
        return True
    if is_duration(number):
        worded = [s for s in sentences if s.stems & stems]
        for kind in ("date", "year"):
            if sum(f.kind == kind for s in worded for f in s.numbers) >= 2:
                sentences = worded
                break
    if derivable(
        number,
        [f for s in sentences for f in with_sums(s)],
        cues.against(" ".join(s.norm for s in sentences)),
    ):
        return True
    return any(computed_in_sentence(number, s.inputs(), cues) for s in sentences)


OWN_SENTENCES = 2
"""A share of the claim's own figure is computed in this many of the sentences stating it
(those holding the most of the claim's words) and their neighbours."""


def _with_own(
    page: PageIndex,
    stems: frozenset[str],
    claim: str,
    number: StatedNumber,
    others: Sequence[StatedNumber],
) -> frozenset[str] | None:
    """The claim's words held where `number` is a share or multiple of another of the
    claim's figures (`ownfigures`), or None: with a figure of a sentence stating that
    figure, or of the sentence before or after it that holds a word of the claim it lacks
    ("a solid 5% reduction ..." and "... far from the 20% improvement cited in the Clang
    documentation" for "the 5% cut is a quarter of the improvement cited in Clang's
    documentation")."""
    base = base_of(number, others, claim)
    own = base or part_of(number, others, claim)
    if own is None:
        return _left_over(page, stems, claim, number, others)
    sentences = page.sentences
    stating = sorted(
        page.figures.sentences_stating(own), key=lambda i: (-len(sentences[i].stems & stems), i)
    )
    for index in stating[:OWN_SENTENCES]:
        mine = sentences[index].stems
        near = [
            i
            for i in (index - 1, index + 1)
            if page.head <= i < len(sentences) and (sentences[i].stems & stems) - mine
        ]
        for i in (index, *near):
            if share_with(number, own, sentences[i].inputs(), base=base is not None):
                return (mine | sentences[i].stems) & stems
    return None


def _points_near(
    page: PageIndex, stems: frozenset[str], number: StatedNumber, closest: Sequence[int]
) -> frozenset[str] | None:
    """A difference in percentage points (`points.points_between`) of two percentages of
    the DERIVING_SENTENCES closest sentences and the NEIGHBOURS of the PAIRED_SENTENCES
    closest: frozenset() when it is one, else None."""
    near = set(closest[:DERIVING_SENTENCES])
    for anchor in closest[:PAIRED_SENTENCES]:
        start = max(page.head, anchor - NEIGHBOURS)
        near.update(range(start, min(len(page.sentences), anchor + NEIGHBOURS + 1)))
    chosen = [page.sentences[i] for i in sorted(near)]
    return frozenset() if points_between(number, chosen, stems) else None


def _left_in(
    number: StatedNumber, sentences: Sequence[Sentence], claim: str, others: Sequence[StatedNumber]
) -> bool:
    """Whether `number` is left over once another of the claim's counts, which `sentences`
    state, is taken from a count of the same thing of one of them (`ownfigures.left_over`)."""
    taken = taken_from(number, others, claim)
    if not taken:
        return False
    counted = counted_words(claim, number)
    text = " ".join(s.norm.lower() for s in sentences)
    return any(
        (written.lower() in text.split() or written in text)
        and left_over(number, value, s.numbers, s.norm, counted)
        for value, written in taken
        for s in sentences
    )


def _left_over(
    page: PageIndex,
    stems: frozenset[str],
    claim: str,
    number: StatedNumber,
    others: Sequence[StatedNumber],
) -> frozenset[str] | None:
    """The claim's words held where `number` is left over once another of the claim's
    counts, which the sentence or the one after it states, is taken from a count of the
    same thing (`ownfigures.left_over`) in one of the APART_SENTENCES holding the most of
    the claim's words, or None."""
    taken = taken_from(number, others, claim)
    if not taken:
        return None
    counted = counted_words(claim, number)
    sentences = page.sentences
    ranked = [
        i
        for _, i in sorted((-c, i) for i, c in _word_counts(page, stems).items() if c >= 2)
        if i >= page.head and sentences[i].numbers and not _row(sentences[i])
    ]
    for index in ranked[:APART_SENTENCES]:
        sentence = sentences[index]
        near = " ".join(s.norm.lower() for s in sentences[index : index + 2])
        for value, written in taken:
            stated = written.lower() in near.split() or written in near
            if stated and left_over(number, value, sentence.numbers, sentence.norm, counted):
                return sentence.stems & stems
    return None


def _word_counts(page: PageIndex, stems: frozenset[str]) -> Counter[int]:
    """Sentence -> how many of `stems` it holds (the sentences holding any)."""
    counts: Counter[int] = Counter()
    for stem in stems:
        counts.update(page.sentence_postings.get(stem, ()))
    return counts


def _closest(page: PageIndex, stems: frozenset[str], counts: Counter[int]) -> list[int]:
    """The sentences holding at least half of `stems` (and two), the most first, then those
    whose words are the rarest on the page (`_rarity`: "data cleaning" before "Go survey"
    on a survey's page), then the first on the page; a table row the claim names counts its
    table's introduction's (`counts`: `_word_counts`, which this changes for such rows)."""
    least = max(2, (len(stems) + 1) // 2)
    leads: dict[tuple[int, ...], frozenset[str]] = {}  # a table's introduction's claim words
    for index in {i for stem in stems for i in page.label_postings.get(stem, ())}:
        row = page.sentences[index]
        if counts[index] >= least:
            continue
        lead = leads.get(row.lead)
        if lead is None:
            introduction = [page.sentences[i].stems for i in row.lead]
            lead = leads[row.lead] = frozenset(
                stem for stem in stems if any(stem in words for words in introduction)
            )
        counts[index] = len((row.stems & stems) | lead)
    held = [(c, i) for i, c in counts.items() if c >= least]
    rarity = _rarity(page, stems)
    sentences = page.sentences
    return [
        i
        for _, _, i in sorted(
            (-c, -sum(w for stem, w in rarity if stem in sentences[i].stems), i) for c, i in held
        )
    ]


def _rarity(page: PageIndex, stems: frozenset[str]) -> list[tuple[str, float]]:
    """Each of `stems` the page holds, weighed by how few sentences hold it."""
    postings = page.sentence_postings
    return [(stem, 1 / len(postings[stem])) for stem in stems if postings.get(stem)]


def _row(sentence: Sentence) -> bool:
    return sentence.text.startswith("|")


def _with_neighbour(
    page: PageIndex,
    stems: frozenset[str],
    anchor: int,
    number: StatedNumber,
    reading: Reading,
    pair_cues: Cues,
) -> bool:
    """Whether `number` (read as `reading`) is computed from one figure of sentence `anchor`
    and one of a neighbour tied to it (see the module docstring; `pair_cues`: the claim's,
    less a complement, which takes one figure)."""
    sentences = page.sentences
    mine = sentences[anchor]
    duration = is_duration(number)
    kinds = ("date", "year") if duration else ("number", "percent")
    inputs = sum(f.kind in kinds for f in mine.numbers)
    if _row(mine) or not inputs:
        return False
    near = [
        i
        for i in range(max(page.head, anchor - NEIGHBOURS), anchor + NEIGHBOURS + 1)
        if i != anchor and i < len(sentences) and not _row(sentences[i])
    ]
    worded = [i for i in near if sentences[i].stems & (stems | mine.stems)]
    if duration and not any(f.kind in kinds for i in worded for f in sentences[i].numbers):
        worded += [i for i in near if abs(i - anchor) == 1]  # the next date of a history
    table = _derived(page, reading, pair_cues)
    for index in worded:
        theirs = sentences[index]
        shared = _measures(mine) & _measures(theirs)
        if inputs > 1 and not shared:
            continue  # with two figures of its own the anchor is where it was computed
        pairs = ([x, y] for x in _unshared(mine, shared) for y in _unshared(theirs, shared))
        if _derives(table, reading, pair_cues, ("near", anchor, index), pairs):
            return True
    return False


def _next_to_context(
    page: PageIndex,
    stems: frozenset[str],
    anchor: int,
    number: StatedNumber,
    read: tuple[Reading, Cues],
    others: Sequence[StatedNumber],
) -> bool:
    """Whether `number` is computed from the figures of one sentence at most NEIGHBOURS
    away from sentence `anchor` (`_in_sentence`) when the anchor states another of the
    claim's figures, the context the claim gives it ("When ... configured to use eight
    threads, we get the following profile" and, two lines on, "Front-end execution takes
    5.9 seconds (down from 10.2 seconds)" for "With eight threads, ... cut front-end
    execution time by 4.3 seconds"): of the neighbours with two figures or more, none of
    them the context's, those holding the most of the claim's words (one at least); only
    when the claim says which way its figure goes (`Cues.rise`, `Cues.fall`: "cut",
    "longer"), a difference of two figures of a sentence being too often some figure.
    Neither is a table row. `read`: `number`'s reading and the claim's cues."""
    reading, cues = read
    if not (cues.rise or cues.fall):
        return False
    sentences = page.sentences
    mine = sentences[anchor]
    context = frozenset(
        v
        for o in others
        if o is not number and o.kind in ("number", "percent")
        for v in o.candidates
    )
    if _row(mine) or not context & _measures(mine):
        return False
    near = [
        (len(sentences[i].stems & stems), i)
        for i in range(max(page.head, anchor - NEIGHBOURS), anchor + NEIGHBOURS + 1)
        if i != anchor
        and i < len(sentences)
        and not _row(sentences[i])
        and len(sentences[i].inputs()) > 1
        and not context & _measures(sentences[i])
    ]
    most = max((held for held, _ in near), default=0)
    return most > 0 and any(
        _in_sentence(page, i, number, reading, stems, cues) for held, i in near if held == most
    )


def _undominated(named: dict[int, frozenset[str]]) -> dict[int, frozenset[str]]:
    """`named` (row -> the claim's words naming it) less the rows another row is named by
    more of the claim's words than, all of theirs among them: "the second beta" names
    "beta 2" (#2, beta) rather than "beta 1" (beta)."""
    return {
        row: names
        for row, names in named.items()
        if not any(names < other for other in named.values())
    }


def _named_pairs(named: dict[int, frozenset[str]]) -> list[tuple[int, int]]:
    """The pairs of rows (of `named`: row -> the claim's words naming it) that the claim
    names each by a word the other lacks."""
    rows = sorted(named.items())
    return [
        (a, b)
        for i, (a, names_a) in enumerate(rows)
        for b, names_b in rows[i + 1 :]
        if not (names_a <= names_b or names_b <= names_a)
    ]


def _apart(
    page: PageIndex,
    stems: frozenset[str],
    number: StatedNumber,
    reading: Reading,
    pair_cues: Cues,
    counts: Counter[int],
) -> frozenset[str] | None:
    """Whether `number` (unhedged, or hedged within a tenth either way) is computed from
    one figure each, of one kind (no count from a share of another sentence's total), of
    two sentences, anywhere on the page, among the APART_SENTENCES holding the most of the
    claim's words (two or more; no table row), that share a word of the claim, each hold
    one the other lacks, and together hold at least half of them ("sun_path is 108 bytes"
    and "some implementations have sun_path as short as 92 bytes", far apart, for "16
    bytes longer than the shortest"), or, for a `_precise` figure, from two figures of
    one of the PRECISE_SENTENCES holding the most of them ("204,288,000 bytes more" from a
    sentence holding 1,228,800,000 and 1,024,512,000 bytes and three of the claim's eleven
    words): the claim's words they hold, or None."""
    if number.band is not None and (
        number.band[0] < APART_BAND[0] or number.band[1] > APART_BAND[1]
    ):
        return None
    kinds = ("date", "year") if is_duration(number) else ("number", "percent")
    precise = _precise(number)
    ranked: list[tuple[int, frozenset[str]]] = []
    for _, index in sorted((-c, i) for i, c in counts.items() if c >= 2):
        if _prose_with(page, index, kinds):
            ranked.append((index, page.sentences[index].stems & stems))
            if len(ranked) == (PRECISE_SENTENCES if precise else APART_SENTENCES):
                break
    least = max(2, (len(stems) + 1) // 2)
    sentences = page.sentences
    table = _derived(page, reading, pair_cues)
    if precise:
        for index, words in ranked:
            figures = sentences[index].inputs()[:PAIRED_FIGURES]
            groups = ([f for f in figures if f.kind == k] for k in kinds)
            if _derives(table, reading, pair_cues, ("kinds", index, kinds), groups):
                return words
    for position, (a, words_a) in enumerate(ranked[:APART_SENTENCES]):
        for b, words_b in ranked[position + 1 : APART_SENTENCES]:
            if len(words_a | words_b) < least or not words_a & words_b:
                continue
            if words_a <= words_b or words_b <= words_a:
                continue
            pairs = _figure_pairs(sentences[a], sentences[b])
            if _derives(table, reading, pair_cues, ("two", a, b), pairs):
                return words_a | words_b
    return None


def _prose_with(page: PageIndex, index: int, kinds: tuple[str, ...]) -> bool:
    """Whether sentence `index` is after the title block, no table row, and gives a figure
    of one of `kinds` (kept in the page's memo: many claims rank the same sentences)."""
    known = page.memo.prose_with.setdefault(kinds, {})
    found = known.get(index)
    if found is None:
        sentence = page.sentences[index]
        found = known[index] = (
            index >= page.head
            and not _row(sentence)
            and any(f.kind in kinds for f in sentence.numbers)
        )
    return found


def _figure_pairs(a: Sentence, b: Sentence) -> Iterable[list[StatedNumber]]:
    """One figure of each sentence (the first PAIRED_FIGURES), of one kind."""
    for x in a.inputs()[:PAIRED_FIGURES]:
        for y in b.inputs()[:PAIRED_FIGURES]:
            if x.kind == y.kind:
                yield [x, y]


def _derived(page: PageIndex, reading: Reading, cues: Cues) -> dict[object, tuple[float, ...]]:
    """The page's values `derivable` computes for a figure read as `reading` with `cues`, by
    the sentences they are of (`PageMemo.derived`; `_derives` fills it)."""
    return page.memo.derived.setdefault((reading.way, cues), {})


def _derives(
    table: dict[object, tuple[float, ...]],
    reading: Reading,
    cues: Cues,
    where: tuple[object, ...],
    groups: Iterable[Sequence[StatedNumber]],
) -> bool:
    """Whether `derivable` computes the figure `reading` reads from one of `groups` of
    figures (those of the sentences `where` names): the values they give a figure read this
    way are worked out once per page (`table`: `_derived`'s for `reading` and `cues`), the
    bounds of each claim's figure looked up in them. `groups` is read only the first time."""
    values = table.get(where)
    if values is None:
        found = {v for group in groups for v in derived_values(reading.way, group, cues)}
        values = table[where] = tuple(sorted(v for v in found if v == v))  # no NaN
    low, high = reading.bounds
    at = bisect_left(values, low)
    return at < len(values) and values[at] <= high


PRECISE = 1e-3
"""A figure written to within this share of itself (four significant digits or more,
unhedged) is a coincidence of almost no pair of a page's figures."""


PRECISE_SENTENCES = 40
"""For a `_precise` figure, this many of the sentences holding two or more of the claim's
words may each compute it from two of their own figures."""


def _precise(number: StatedNumber) -> bool:
    """Whether `number` is unhedged and written to within PRECISE of itself."""
    if number.band is not None or not isinstance(number.value, Decimal) or not number.value:
        return False
    return step_of(number.text, number.value) <= Decimal(PRECISE) * abs(number.value)


def _measures(sentence: Sentence) -> frozenset[Value]:
    """The values of a sentence's counts and percentages (not its dates: "3 May 2021" also
    means May 2021, which "17 May 2021" repeats)."""
    return frozenset(
        v for f in sentence.numbers if f.kind in ("number", "percent") for v in f.candidates
    )


def _unshared(sentence: Sentence, shared: frozenset[Value]) -> list[StatedNumber]:
    """A sentence's figures (the first PAIRED_FIGURES) but those the other sentence of the
    pair repeats ("0.8 per 1,000 sessions" and "0.2 per 1,000 sessions": 0.8 and 0.2)."""
    return [f for f in sentence.inputs()[:PAIRED_FIGURES] if f.candidates.isdisjoint(shared)]


def _derived_from_rows(
    page: PageIndex, stems: frozenset[str], claim: str, number: StatedNumber
) -> frozenset[str] | None:
    """The claim's words the two rows and their group's title hold (None if none) when
    `number` is computed (`derivable`) from two figures of one column of two
    rows of one table or listing that the claim names each by a word the other lacks ("LZ4
    HC at level 9 compresses nineteen times more slowly than LZ4's default mode" from their
    compression speeds; "nine months separated the first alpha from the final release" from
    a schedule's lines), of the groups whose captions hold the most of the claim's words,
    each weighed by how few captions hold it (`namedrows.Rows.title_weight`); at most
    ROWS_PER_NAME rows per name and group, the first, less those another names by more
    of the claim's words (`_undominated`: "the second beta" is "beta 2", whose rank
    `namedrows` reads). Rows are no part and whole: a
    percentage is a share of one of the other (`derived.Cues.share`) unless the claim names
    a change."""
    reading = reading_of(number)
    if reading is None:
        return None  # `derivable` computes no figure like it
    found = named_rows(page)
    if len(found.rows) < 2:
        return None
    names = stems | names_of(claim)
    named: dict[int, dict[int, frozenset[str]]] = {}  # group -> row -> the claim's names
    for name in names:
        ids = found.postings.get(name)
        if not ids or name.startswith("#"):
            continue  # a rank ("the second beta") tells rows apart, it names none alone
        taken: dict[int, int] = {}  # group -> rows this name took there
        for index in ids[:MAX_NAMED_ROWS]:
            row = found.rows[index]
            taken[row.group] = taken.get(row.group, 0) + 1
            if taken[row.group] <= ROWS_PER_NAME:
                named.setdefault(row.group, {})[index] = row.names & names
    pairs = {g: _named_pairs(_undominated(rows)) for g, rows in named.items()}
    weights = {g: found.title_weight(g, stems) for g, found_pairs in pairs.items() if found_pairs}
    if not weights:
        return None
    best = max(weights.values())
    cues = cues_of(claim)
    cues = replace(cues, share=not (cues.rise or cues.fall or cues.complement))  # no part/whole
    table = _derived(page, reading, cues)
    for group, weight in weights.items():
        if weight < best - 1e-9:
            continue
        for a, b in pairs[group]:
            cells = found.rows[a].cells
            column = (
                [x, y] for c, y in found.rows[b].cells.items() if (x := cells.get(c)) is not None
            )
            if _derives(table, reading, cues, ("rows", a, b), column):
                rows = (found.rows[a].sentence, found.rows[b].sentence)
                held = stems & found.titles[group]
                return held.union(*(page.sentences[i].stems & stems for i in rows))
    return None
