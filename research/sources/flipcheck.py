"""Whether a claim turns around what its passage says about the figures they share (pure:
standard library only; the clauses are read by `research.sources.flips`).

Each of the claim's figures is compared in the first sentence of the passage stating it
(the sentences holding most of the claim's figures first): the claim's clause around it
with the page's (the opposite direction or speed, an opposite bound, a negation), then the
clauses of all the shared figures for figures given to each other's subjects.

A change word is compared only with the page's change word about the same figure. A
version, a year, a date or a numbered name ("Version 3.2 cut memory use by 10%", "In 2023
the team cut its build time by 30%", "phase 2") says when or of what, never what changed:
the change of its clause is about the clause's subject and its quantity. So at such a figure
the changes of the two clauses are not compared when they are about other things: the
clauses share no word of their subject besides the word that names the figure ("startup
time improved" against "cut memory use"), or each gives its change a quantity of its own
that the other does not state ("improved by 6%" against "cut ... by 10%"). A negation or a
bound is still compared there, and a change always at a figure that is a quantity.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from research.sources.figures import StatedNumber
from research.sources.flips import Clauses, clause_span, flipped_clauses, read_clause, swapped
from research.sources.pageindex import PageIndex, Sentence, holds
from research.sources.words import token_stems

_NAMING = frozenset({"year", "date", "label", "pinned", "version"})
"""Kinds of figure that name when or what (`figures.StatedNumber.kind`), never a change."""
_QUANTITY = frozenset({"number", "percent"})
_WORD_BEFORE = re.compile(r"([^\W\d_]+)[^\w]*$")


def first_match(
    sentence: Sentence, number: StatedNumber, taken: Collection[int] = ()
) -> int | None:
    """Which figure of `sentence` states `number`, or None: the first of its kind with its
    very value, else the first it `matches` (within a hedge's band: "less than 100" is not
    read as the sentence's 27% when the sentence also says 100); one not `taken` by an
    earlier figure of the claim when there is one (a claim saying 100 twice)."""
    if not holds((sentence,), number):
        return None
    stated = sentence.numbers
    exact = [
        i
        for i, figure in enumerate(stated)
        if figure.kind == number.kind and not number.candidates.isdisjoint(figure.candidates)
    ]
    near = exact or [i for i, figure in enumerate(stated) if number.matches(figure)]
    return next((i for i in near if i not in taken), near[0] if near else None)


def matches(sentence: Sentence, numbers: Sequence[StatedNumber]) -> list[int | None]:
    """`first_match` of each of the claim's figures, in the claim's order."""
    out: list[int | None] = []
    for number in numbers:
        out.append(first_match(sentence, number, [i for i in out if i is not None]))
    return out


def meaning_flip(
    numbers: Sequence[StatedNumber], clauses: Clauses, page: PageIndex, run: range
) -> str | None:
    """How the claim (its figures, `clauses`: those of its text) turns around what the
    passage (`run`) says about the figures they share, or None (see the module docstring)."""
    mine: list[frozenset[str]] = []
    theirs: list[frozenset[str]] = []
    hits = {i: matches(page.sentences[i], numbers) for i in run}
    order = sorted(run, key=lambda i: -sum(hit is not None for hit in hits[i]))
    for position, number in enumerate(numbers):
        found = next(((i, hit) for i in order if (hit := hits[i][position]) is not None), None)
        if found is None:
            continue
        claim_clause, claim_stems = clauses.around(number.span)
        page_clause, page_stems = page.clause_of(*found)
        claim_read = read_clause(claim_clause)
        why = flipped_clauses(claim_read, page_clause)
        if (
            why is not None
            and number.kind in _NAMING
            and _about_other_things(numbers, number, clauses.text, page, found, claim_stems)
        ):
            why = flipped_clauses(claim_read, page_clause, changes=False)
        if why is not None:
            return why
        mine.append(claim_stems)
        theirs.append(page_stems)
    if len(mine) >= 2 and swapped(mine, theirs):
        return "the page gives these figures to each other's subjects"
    return None


def _about_other_things(
    numbers: Sequence[StatedNumber],
    number: StatedNumber,
    text: str,
    page: PageIndex,
    found: tuple[int, int],
    claim_stems: frozenset[str],
) -> bool:
    """Whether the changes of the claim's clause around a naming figure (`number`, in
    `text`) and of the page's (sentence and figure `found`) are about other things: no
    shared word of their subject, or a quantity of each that the other does not state."""
    sentence = page.sentences[found[0]]
    figure = sentence.numbers[found[1]]
    left, right = clause_span(sentence.norm, *figure.span)
    page_stems = page.clause_of(*found)[1]
    names = _named_by(text, number) | _named_by(sentence.norm, figure)
    if not (claim_stems & page_stems) - names:
        return True
    theirs = [
        f
        for f in sentence.numbers
        if f is not figure and f.kind in _QUANTITY and left <= f.span[0] and f.span[1] <= right
    ]
    start, end = clause_span(text, *number.span)
    own = [
        n
        for n in numbers
        if n is not number and n.kind in _QUANTITY and start <= n.span[0] and n.span[1] <= end
    ]
    return any(not any(n.matches(f) for n in numbers) for f in theirs) and any(
        not any(n.matches(f) for f in theirs) for n in own
    )


def _named_by(text: str, figure: StatedNumber) -> frozenset[str]:
    """The stems of the word right before a figure ("version" of "version 3.2")."""
    before = _WORD_BEFORE.search(text, 0, figure.span[0])
    return token_stems(before.group(1)) if before else frozenset()
