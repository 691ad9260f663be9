"""The passage a claim's figures choose (pure): when the passage that holds the most of a
claim's words lacks one of its figures, the passage that holds every figure of the claim
is read instead, if there is one.

A careful writer restates a figure in words of their own, so the passage with the most of
the claim's words is sometimes a neighbour that describes the figure's subject ("Let's
search my home folder") while the figure sits in a terse line after it ("Time (mean):
854.8 ms"). Figures are rarer than words: a passage holding all of a claim's figures is
the one it restates, and the claim check then reads that passage like any other (its
coverage, the figures it gives instead, the slots). A figure alone, with no word of the
claim in its sentence, the sentence before it or those introducing it (a code line, the
next section's heading that happens to hold the number), chooses nothing.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Protocol

from research.sources.binding import Weights
from research.sources.figures import StatedNumber, claimed_values
from research.sources.figuretable import same_sort
from research.sources.pageindex import PageIndex, Sentence
from research.sources.rawfigure import Value
from research.sources.slots import same_slot

CONTEXT_KINDS = ("year", "date", "label")
"""Figures that are context rather than what a passage states (a year the page gives in a
heading): they need not be in the figure passage, unless the claim states nothing else."""
MAX_PASSAGES = 16
"""Passages holding every figure that are examined, at most."""
PARALLEL_SENTENCES = 10
"""Sentences either side of a figure that `bound_alone` looks at for a parallel entry
giving another figure of its sort (the next benchmark of a list of benchmarks)."""
WORDS_LEAD = 0.75
"""The passage holding every figure of a claim is read instead of the one holding the most
of its words only when it holds at least this share of as many of the claim's words."""


class Span(Protocol):
    """A run of sentences."""

    @property
    def first(self) -> int:
        """Its first sentence."""

    @property
    def end(self) -> int:
        """The sentence after its last."""


class Found(Protocol):
    """What the claim check found in the passage holding the most of the claim's words."""

    @property
    def run(self) -> Span:
        """That passage."""

    @property
    def absent(self) -> Sequence[StatedNumber]:
        """The claim's figures outside it that count against the claim."""

    @property
    def elsewhere(self) -> Sequence[StatedNumber]:
        """The claim's figures on the page but not in that passage."""

    @property
    def matched(self) -> int:
        """How many of the claim's words it holds (with the title block)."""


def figure_passage(
    page: PageIndex,
    stems: frozenset[str],
    numbers: Sequence[StatedNumber],
    stating: Sequence[Collection[int]],
    found: Found,
    least: tuple[float, float, int],
) -> tuple[int, int, frozenset[str]] | None:
    """`figure_window`, when the passage holding the most of the claim's words (`found`)
    lacks a figure the window is chosen for, and the window holds (with the title block)
    `least[0]` of the claim's words when a figure of it the page states in at most
    `least[2]` sentences may pin it, `least[1]` otherwise, and WORDS_LEAD of what `found`
    holds, and, unless the window holds more of the claim's words (with the captions of its
    rows: a program's output under the paragraph describing its test), that passage gives
    no rival to a figure of the claim outside it (a figure that could stand in its place,
    `slots.same_slot`: not the "June 1" of a passage about a survey's 5,752 responses; the
    caller reads any figure of its kind as a rival in a passage holding most of the claim's
    words); each figure it was chosen for and that it states (not its rows' caption) must
    be bound to the claim there (`bound_alone`)."""
    if not any(chosen_by(n, numbers) for n in found.elsewhere):
        return None
    pinnable = any(
        n.kind not in ("year", "label", "version") and 0 < len(s) <= least[2]
        for n, s in zip(numbers, stating, strict=True)
    )
    share = least[0] if pinnable else least[1]
    window = figure_window(page, stems, numbers, stating)
    if window is None:
        return None
    held = len(window[2] | (stems & page.head_stems))
    if held < share * len(stems) or held < WORDS_LEAD * found.matched:
        return None
    if held <= found.matched and _rival_in(page, found, numbers, stems & window[2]):
        return None
    inside = range(window[0], window[1])
    for number, sentences in zip(numbers, stating, strict=True):
        chosen = [i for i in sentences if i in inside]
        if not chosen_by(number, numbers) or not chosen:
            continue  # context, or stated by the caption of the window's rows
        weights = Weights(page, number, stems, numbers)
        if not bound_alone(page, number, numbers, chosen, weights):
            return None
    return window


def _rival_in(
    page: PageIndex, found: Found, numbers: Sequence[StatedNumber], held: frozenset[str]
) -> bool:
    """Whether the passage `found` gives a rival to a figure of the claim outside it (a
    figure that could stand in its place, `slots.same_slot`), other than in a table row
    that holds, with its caption, fewer of the claim's words than the figure window
    (`held`): the last rows of another test's output before the caption of the claim's."""
    claimed = claimed_values(numbers)
    sentences = page.sentences
    for index in range(found.run.first, found.run.end):
        sentence = sentences[index]
        if sentence.label and len(_with_caption(page, index) & held) < len(held):
            continue
        for figure in sentence.numbers:
            if figure.candidates.isdisjoint(claimed) and any(
                same_slot(n, figure) for n in found.absent
            ):
                return True
    return False


def _with_caption(page: PageIndex, index: int) -> frozenset[str]:
    """The stems of sentence `index` and of those introducing it."""
    sentences = page.sentences
    return sentences[index].stems.union(*(sentences[i].stems for i in sentences[index].lead))


def chosen_by(number: StatedNumber, numbers: Sequence[StatedNumber]) -> bool:
    """Whether `number`, a figure of the claim stating `numbers`, is one the figure passage
    must hold: any but the context kinds, or a date when the claim states nothing else."""
    if number.kind not in CONTEXT_KINDS:
        return True
    return number.kind == "date" and all(n.kind in CONTEXT_KINDS for n in numbers)


class _Words:
    """The claim's words each sentence holds with the sentences introducing it, kept."""

    def __init__(self, page: PageIndex, stems: frozenset[str]) -> None:
        self.page, self.stems = page, stems
        self.own: dict[int, frozenset[str]] = {}

    def of(self, index: int) -> frozenset[str]:
        found = self.own.get(index)
        if found is None:
            found = self.own[index] = self.page.sentences[index].stems & self.stems
        return found

    def held(self, first: int, end: int) -> frozenset[str]:
        """The claim's words in sentences first..end and those introducing them."""
        out: set[str] = set()
        for index in range(first, end):
            out |= self.of(index)
            for lead in self.page.sentences[index].lead:
                out |= self.of(lead)
        return frozenset(out)

    def worded(self, index: int) -> bool:
        """Whether sentence `index`, the one before it or one introducing it holds a word
        of the claim."""
        around = (index, *self.page.sentences[index].lead, *((index - 1,) if index else ()))
        return any(self.of(i) for i in around)


def figure_window(
    page: PageIndex,
    stems: frozenset[str],
    numbers: Sequence[StatedNumber],
    stating: Sequence[Collection[int]],
) -> tuple[int, int, frozenset[str]] | None:
    """(first, end, the claim's stems held) of the passage that holds every figure of the
    claim but its context ones (`CONTEXT_KINDS`), each in a sentence with words of the
    claim around it, and the most of its words; cut to its shortest run that still holds
    them. Its words include those of the sentences that introduce its sentences
    (`Sentence.lead`: a table's caption, the line ending with a colon before an output).
    None when no passage holds them all."""
    need = [
        _with_rows(page, s, stems)
        for n, s in zip(numbers, stating, strict=True)
        if chosen_by(n, numbers)
    ]
    if not need or any(not s for s in need):
        return None
    pids = set.intersection(*(page.passages_of(s) for s in need))
    if not pids:
        return None
    words = _Words(page, stems)
    inside = {i for pid in pids for i in range(*page.passages[pid])}
    need = [{i for i in s if i in inside and words.worded(i)} for s in need]
    if any(not s for s in need):
        return None
    pids = set.intersection(*(page.passages_of(s) for s in need))
    best: tuple[int, int, int, int, frozenset[str]] | None = None
    for pid in sorted(pids)[:MAX_PASSAGES]:
        first, end = page.passages[pid]
        target = words.held(first, end)
        first, end = _shrunk(words, first, end, need, target)
        size = sum(s.words for s in page.sentences[first:end])
        key = (-len(target), size, first, end, target)
        if best is None or key[:4] < best[:4]:
            best = key
    return None if best is None else (best[2], best[3], best[4])


def _with_rows(page: PageIndex, stating: Collection[int], stems: frozenset[str]) -> set[int]:
    """The sentences stating a figure and the table rows they introduce that the claim
    names (all their label's words among its `stems`): a figure of a program's output's
    caption ("sums the primes below 100000::") is its rows' too, for a claim naming one
    ("eight threads"); one naming none chooses no row by its figure alone."""
    out = set(stating)
    for index in stating:
        out.update(
            row for row in page.rows_introduced_by(index) if page.sentences[row].label <= stems
        )
    return out


def _shrunk(
    words: _Words,
    first: int,
    end: int,
    need: Sequence[Collection[int]],
    target: frozenset[str],
) -> tuple[int, int]:
    """The shortest run of first..end (the first of the shortest) that still holds every
    figure of `need` and the claim words `target` the passage holds."""
    for size in range(1, end - first + 1):
        for a in range(first, end - size + 1):
            b = a + size
            if all(any(a <= i < b for i in s) for s in need) and words.held(a, b) == target:
                return a, b
    return first, end


def bound_alone(
    page: PageIndex,
    number: StatedNumber,
    numbers: Sequence[StatedNumber],
    chosen: Collection[int],
    weights: Weights,
) -> bool:
    """Whether one of the sentences `chosen` (some of those stating the claim's `number`)
    binds it to the claim when figures, not words, chose the passage: it gives no other
    figure of its sort the claim lacks (not a list, nor a line of output listing counts:
    which of them the claim restates is for words to say; the spread after a "±" is no
    such figure), and no sentence within PARALLEL_SENTENCES giving one that could stand
    in its place (`slots.same_slot`) holds more of the claim's words with its context,
    by count and by rarity (`binding.Weights`: "Benchmark 2: quickscan" over "Benchmark 1:
    oldscan" for a claim about quickscan)."""
    claimed = claimed_values(numbers)
    alone = [i for i in chosen if not _gives_another(page.sentences[i], number, claimed)]
    if not alone:
        return False
    own = max(weights(index) for index in alone)
    count = max(weights.count(index) for index in alone)
    mine = page.figures.sentences_stating(number)
    near = range(min(alone) - PARALLEL_SENTENCES, max(alone) + PARALLEL_SENTENCES + 1)
    rivals = sorted(page.figures.of_sort(number).intersection(near) - mine)
    return not any(
        any(same_slot(number, f) for f in page.sentences[index].numbers)
        and _gives_another(page.sentences[index], number, claimed)
        and weights(index) > own
        and weights.count(index) > count
        for index in rivals
    )


def _gives_another(sentence: Sentence, number: StatedNumber, claimed: frozenset[Value]) -> bool:
    """Whether `sentence` gives a figure of the sort of the claim's `number` (any
    magnitude) that is none of the claim's, the spread after a "±" ("854.8 ms ± 10.0 ms")
    aside."""
    return any(
        same_sort(f, number)
        and f.candidates.isdisjoint(claimed)
        and not number.matches(f)
        and not _SPREAD.search(sentence.norm, 0, f.span[0])
        for f in sentence.numbers
    )


_SPREAD = re.compile(r"(?:\u00b1|\+/-|\+-)\s*$")
