"""A claim's figure stated outside the matching passage that the sentence stating it binds
to the claim (pure: standard library only): the sentence holds enough of the claim's words,
each weighed by how rare it is on the page (`Weights`), and no sentence giving a figure of
its sort the claim lacks holds as much (`bound`); or, when the passage gives no rival, a
sentence stating it holds a quarter of them (`loosely_bound`). `research.sources.slots`
says when a figure is given to other words; this module, when it belongs to the claim's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Sequence

from research.sources.counted import another_count
from research.sources.figures import StatedNumber, claimed_values
from research.sources.figuretable import same_sort
from research.sources.pageindex import LEAD_SENTENCES, PageIndex, Sentence, holds, union
from research.sources.rawfigure import Value
from research.sources.slots import (
    SKIPPED_KINDS,
    introduced_with,
    sentence_context,
    word_after,
)

BOUND_SHARE = 0.5
"""A sentence stating a claim's figure binds it to the claim when, with its context, it
holds at least this share of the claim's words, each weighted by how rare it is on the
page (`_rarity`)."""


def _rarity(page: PageIndex, stem: str) -> float:
    """A word's weight: the fewer sentences of the page hold it, the more it tells them
    apart (log(1 + sentences / sentences holding it))."""
    found = page.memo.rarities.get(stem)
    if found is None:
        holding = max(1, len(page.sentence_postings.get(stem, ())))
        found = page.memo.rarities[stem] = math.log1p(len(page.sentences) / holding)
    return found


class Weights:
    """For one figure of one claim (its words on the page and its other figures), the
    weight of the claim's words a sentence holds with its context (`_window`), plus one
    rare word's weight per other claim figure it holds; each sentence's weight worked out
    once: `bound` and `loosely_bound` weigh many of the same sentences."""

    __slots__ = ("_done", "_held", "_read", "number", "others", "page", "total", "words")

    def __init__(
        self,
        page: PageIndex,
        number: StatedNumber,
        stems: frozenset[str],
        numbers: Sequence[StatedNumber],
    ) -> None:
        self.page, self.number = page, number
        self.words = frozenset(w for w in stems if w in page.sentence_postings)
        self.others = [n for n in numbers if n is not number]
        self.total = math.fsum(_rarity(page, w) for w in sorted(self.words))
        self._done: dict[int, float] = {}
        self._read: dict[int, tuple[list[int], float]] = {}
        self._held: dict[int, int] = {}

    def __call__(self, index: int) -> float:
        found = self._done.get(index)
        if found is None:
            near, words = self._words(index)
            found = self._done[index] = words + _figure_weight(self.page) * self._figures(near)
        return found

    def _figures(self, window: Iterable[int]) -> int:
        """How many of the claim's other figures the sentences `window` state (`holds`),
        each sentence asked once: the windows of nearby sentences overlap."""
        held = 0
        for index in window:
            found = self._held.get(index)
            if found is None:
                one = (self.page.sentences[index],)
                found = sum(1 << k for k, n in enumerate(self.others) if holds(one, n))
                self._held[index] = found
            held |= found
        return held.bit_count()

    def reaches(self, index: int, least: float) -> bool:
        """Whether sentence `index` weighs at least `least`; the claim's other figures are
        looked for in it only when its words fall short of it and could reach it with them
        (`_bound`)."""
        if index not in self._done and self._words(index)[1] >= least:
            return True  # its figures only add to that
        return self._bound(index) >= least and self(index) >= least

    def most(self, indexes: Iterable[int], least: float) -> float | None:
        """What the heaviest of `indexes` weighs when that is at least `least`, else None;
        each is weighed fully only while its `_bound` could still pass both `least` and
        the heaviest found so far."""
        best = -math.inf
        for bound, index in sorted(((self._bound(i), i) for i in indexes), key=_heaviest_first):
            if bound <= best or bound < least:
                break
            best = max(best, self(index))
        return best if best >= least else None

    def count(self, index: int) -> int:
        """How many of the claim's words and other figures sentence `index` holds with its
        context (`_window`), each counted once: its weight, unweighted."""
        near = self._words(index)[0]
        held = union(self.page.sentences[i].stems & self.words for i in near)
        return len(held) + self._figures(near)

    def _bound(self, index: int) -> float:
        """What sentence `index` weighs at most: its weight, or, until that is worked out,
        the weight of its words and of every other figure of the claim."""
        found = self._done.get(index)
        if found is not None:
            return found
        return self._words(index)[1] + _figure_weight(self.page) * len(self.others)

    def _words(self, index: int) -> tuple[list[int], float]:
        """The sentence with its context (`_window`) and the weight of its words."""
        found = self._read.get(index)
        if found is None:
            near = _window(self.page, index, self.number)
            found = self._read[index] = (near, _word_weight(self.page, near, self.words))
        return found


def _heaviest_first(item: tuple[float, int]) -> tuple[float, int]:
    """(weight, sentence) the heaviest first, then in page order."""
    return -item[0], item[1]


def _window(page: PageIndex, index: int, number: StatedNumber) -> list[int]:
    """A sentence with its context (`sentence_context`) and the sentences that introduce it."""
    return [*sentence_context(page, index, number), *page.sentences[index].lead]


def _word_weight(page: PageIndex, window: Sequence[int], words: frozenset[str]) -> float:
    """The weight of the claim's words a sentence holds with its context (`_window`)."""
    held: set[str] = set()
    for index in window:
        held |= page.sentences[index].stems & words
    return math.fsum(_rarity(page, w) for w in sorted(held))


def _figure_weight(page: PageIndex) -> float:
    """What each other figure of the claim a sentence holds adds to its weight: a word
    that one sentence of the page holds."""
    return math.log1p(len(page.sentences))


def bound(
    page: PageIndex,
    number: StatedNumber,
    numbers: Sequence[StatedNumber],
    mine: Collection[int],
    weights: Weights,
) -> bool:
    """Whether a sentence stating a claim figure that is not in the matching passage binds
    it to the claim: one that gives no other figure of its sort the claim lacks (not a
    list) holds with its context at least BOUND_SHARE of the claim's words on the page
    (weighted by rarity, `Weights`), and no sentence giving a figure of that sort the
    claim lacks, whatever its magnitude (among those holding a claim word, and the other
    rows of its table), holds as much. `mine`: the sentences stating `number`; `weights`:
    the claim's words weighed for it (`Weights`)."""
    if number.kind in SKIPPED_KINDS:
        return False
    claimed = claimed_values(numbers)
    alone = [i for i in mine if not _lists_another(page.sentences[i], number, claimed)]
    return _binds(weights, claimed, (alone, mine), BOUND_SHARE)


LOOSE_SHARE = 0.25
"""With no rival in the matching passage, a sentence stating a claim's figure binds it
from this share of the claim's rarity-weighted words on (`loosely_bound`)."""


def loosely_bound(
    page: PageIndex,
    number: StatedNumber,
    norm: str,
    numbers: Sequence[StatedNumber],
    mine: Collection[int],
    weights: Weights,
) -> bool:
    """Whether a sentence stating a claim figure that is not in the matching passage,
    whose matching passage gives no figure of its sort instead (the caller's condition),
    binds it to the claim: a careful paraphrase may match another paragraph's words
    better than the sentence it restates, and nothing there contradicts it. That takes
    a sentence (not a table row: its cells belong to its first cell, `introduced`) that
    holds with its context at least LOOSE_SHARE of the claim's rarity-weighted words, and,
    for a bare count, no figure of its sort the claim lacks counting what the claim's
    counts ("16 entries" when the page has "4,096 entries" and "16 instances"). A
    version or a label is a name, which words do not bind. `weights`: the claim's words
    weighed for `number` (`Weights`, shared with `bound`)."""
    prose = [i for i in mine if not page.sentences[i].text.startswith("|")]
    if number.kind in ("version", "label") or not prose:
        return False
    if not weights.words:
        return False
    least = LOOSE_SHARE * weights.total
    if not any(weights.reaches(index, least) for index in prose):
        return False
    return not _counts_it_elsewhere(page, number, norm, numbers)


_CLAUSE_END = re.compile(r"\s*[,;:.]")


def _counts_it_elsewhere(
    page: PageIndex, number: StatedNumber, norm: str, numbers: Sequence[StatedNumber]
) -> bool:
    """Whether the page puts what the claim's bare count counts (`slots.word_after`, the
    word after it) after a figure of its kind the claim lacks, and never after the claim's
    figure: `counted.another_count` asked of every sentence holding the word
    (`counted_by_another` asks it of the matching passage, reading two words after the
    page's counts). A figure followed by a comma, colon, semicolon or period counts nothing
    ("On Windows 8.1, time.time() ...")."""
    counted = word_after(norm, number)
    if not counted or _CLAUSE_END.match(norm, number.span[1]):
        return False
    holding = sorted(set().union(*(page.sentence_postings.get(stem, ()) for stem in counted)))
    claimed = claimed_values(numbers)
    found = another_count(page, holding, number, counted, claimed, holding, word_after)
    return found is not None


def _binds(
    weights: Weights,
    claimed: frozenset[Value],
    stating: tuple[Sequence[int], Collection[int]],
    share: float,
) -> bool:
    """Whether one of the sentences `stating[0]` (some of those stating the figure,
    `stating[1]`) holds with its context at least `share` of the claim's weighted words,
    and no other sentence giving a figure of its sort that the claim lacks holds as much."""
    chosen, mine = stating
    if not weights.words or not chosen:
        return False
    page, number = weights.page, weights.number
    own = weights.most(chosen, share * weights.total)
    if own is None:
        return False
    could = _could_hold(page, weights.words, weights.others, chosen) & page.figures.of_sort(number)
    for index in sorted(could - set(mine)):  # `of_sort`: those that may list another
        if not _lists_another(page.sentences[index], number, claimed):
            continue
        if weights.reaches(index, own):
            return False
    return True


def _could_hold(
    page: PageIndex,
    words: frozenset[str],
    others: Sequence[StatedNumber],
    alone: Collection[int],
) -> set[int]:
    """The sentences whose context (`_window`) may hold some of the claim: those holding
    one of `words` and their neighbours, the rows their sentences introduce (`_reach`),
    those stating one of the claim's `others` figures, and the other rows of the tables of
    `alone`."""
    out: set[int] = set()
    for stem in words:
        out |= _reach(page, stem)
    for figure in others:
        out.update(page.figures.sentences_stating(figure))
    for index in alone:  # the other rows of its table, which its caption introduces too
        if page.sentences[index].lead:
            out.update(introduced_with(page, index))
    return out


def _reach(page: PageIndex, stem: str) -> frozenset[int]:
    """The sentences holding `stem`, their neighbours, and the rows they introduce (with
    the other rows of those tables), worked out once per page."""
    found = page.memo.reach.get(stem)
    if found is not None:
        return found
    count = len(page.sentences)
    holding = page.sentence_postings[stem]
    out = {near for index in holding for near in (index - 1, index, index + 1)}
    out &= set(range(count))
    for index in holding:  # the rows it introduces start within a caption's reach after it
        for row in range(index + 1, min(index + 1 + LEAD_SENTENCES, count)):
            if index in page.sentences[row].lead:
                out.add(row)
                out.update(introduced_with(page, row))
                break
    found = page.memo.reach[stem] = frozenset(out)
    return found


def _lists_another(sentence: Sentence, number: StatedNumber, claimed: frozenset[Value]) -> bool:
    """Whether a sentence stating `number` also gives a figure of its sort the claim lacks
    (a list: which figure is the claim's is for `told_the_other_way` to say)."""
    return any(same_sort(f, number) and f.candidates.isdisjoint(claimed) for f in sentence.numbers)
