"""What a claim's bare count counts, and another count of the passage that counts it (pure:
standard library only).

A count names what it counts right after it ("averaged over 10 runs", "32 logical cores").
A changed count is often another count of the same passage: "averaged over 32 runs" where
the page says "runs on all 32 logical cores ... averaged over 10 runs". The check
(`counted_by_another`): a claim's bare count (no unit), stated on the page, whose noun
(the word after it) follows, within `NOUN_WORDS` words, another bare count of the
matching passage that the claim lacks, while no sentence of the page puts that noun
after the claim's figure: the page gives the other count to that noun. Unlike `slots`,
a count the page states in many sentences is checked too: "32 cores" all over a
benchmark page is exactly the count a writer picks up by mistake. Not read: a count
computed from the page's figures ("120 tickets each" of 1,440 tickets by 12 engineers: it
is no other count), nor a number that is part of a name ("RHEL 7", `names.after_name`).
The rule itself (`another_count`) is asked by `binding` too, of every sentence holding the
word after the claim's count (`slots.word_after`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence

from research.sources.figures import StatedNumber, claimed_values
from research.sources.names import after_name
from research.sources.pageindex import PageIndex
from research.sources.rawfigure import Value
from research.sources.slots import Given, counted_in

NOUN_WORDS = 2
"""A page's count counts one of the next this many words ("32 logical cores")."""


def counted_by_another(
    page: PageIndex,
    passage: range,
    norm: str,
    numbers: Sequence[StatedNumber],
    stating: Sequence[Collection[int]],
) -> Given | None:
    """The first of the claim's bare counts whose noun the matching passage (`passage`)
    puts after another count the claim lacks, and the page never after the claim's
    figure (see the module). `norm`: the claim's text its figures were read from;
    `stating`: the sentences stating each of `numbers`."""
    claimed = claimed_values(numbers)
    for number, mine in zip(numbers, stating, strict=True):
        if not mine or number.kind != "number" or number.quantity is not None:
            continue  # computed from the page's figures ("120 tickets each"), or no count
        if after_name(norm, number):
            continue  # "RHEL 7": part of a name, not a count
        noun = counted_in(norm, number, 1)
        if not noun:
            continue
        rival = another_count(page, passage, number, noun, claimed, mine)
        if rival is not None:
            return Given(number, rival[1], rival[0])
    return None


def _nouns_after(text: str, figure: StatedNumber) -> frozenset[str]:
    """What a page's count counts: one of the `NOUN_WORDS` words after it (`counted_in`)."""
    return counted_in(text, figure, NOUN_WORDS)


def another_count(
    page: PageIndex,
    scope: Iterable[int],
    number: StatedNumber,
    noun: frozenset[str],
    claimed: frozenset[Value],
    stating: Collection[int],
    reads: Callable[[str, StatedNumber], frozenset[str]] | None = None,
) -> tuple[int, StatedNumber] | None:
    """The first figure of the sentences `scope` that counts `noun` (as `reads` reads it;
    by default one of the `NOUN_WORDS` words after it), of the kind of the claim's
    `number`, that the claim lacks (`claimed`), when no sentence of `stating` (those
    stating the claim's figure) puts `noun` after the claim's figure: the page gives the
    claim's count's noun to another count."""
    reads = reads or _nouns_after
    rival = _rival(page, scope, number, noun, claimed, reads)
    if rival is None or _ever_counts(page, number, noun, stating, reads):
        return None
    return rival


def _rival(
    page: PageIndex,
    scope: Iterable[int],
    number: StatedNumber,
    noun: frozenset[str],
    claimed: frozenset[Value],
    reads: Callable[[str, StatedNumber], frozenset[str]],
) -> tuple[int, StatedNumber] | None:
    for index in scope:
        sentence = page.sentences[index]
        if not noun <= sentence.stems:
            continue
        for figure in sentence.numbers:
            if (
                figure.kind == number.kind
                and figure.candidates.isdisjoint(claimed)
                and not number.matches(figure)
            ):
                if noun <= reads(sentence.norm, figure):
                    return index, figure
    return None


def _ever_counts(
    page: PageIndex,
    number: StatedNumber,
    noun: frozenset[str],
    stating: Collection[int],
    reads: Callable[[str, StatedNumber], frozenset[str]],
) -> bool:
    """Whether a sentence of the page (of `stating`, those stating the claim's figure) puts
    `noun` after the claim's figure."""
    return any(
        noun <= reads(page.sentences[i].norm, figure)
        for i in stating
        for figure in page.sentences[i].numbers
        if number.matches(figure)
    )
