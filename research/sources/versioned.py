"""A claim's figure that the page gives to another version than the claim's (pure: standard
library only).

A release schedule writes one item a line, each naming its version: "- 3.7.8 final:
2020-06-27", "- 3.7.9 final: 2020-08-17". The version names what the item's other
figures belong to, as a table row's label does. A changed date is usually the next
item's: "3.7.8 came out on 2020-08-17". The check (`other_version`): a claim that states a
dotted version ("3.7.8", kind "version"), and another figure that the page states only in
sentences naming other versions, none of the claim's, while a sentence nearby (within
`NEAR_SENTENCES`) that names the claim's version gives a figure of the same sort the
claim lacks: the page gives that figure to the claim's version.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from research.sources.figures import StatedNumber, claimed_values
from research.sources.pageindex import PageIndex, Sentence
from research.sources.slots import Given

NEAR_SENTENCES = 8
"""How far from the item stating the claim's figure an item of the claim's version is
looked for (one schedule, not the next release's)."""
_SORTS = frozenset({"date", "number", "percent"})


def other_version(
    page: PageIndex, numbers: Sequence[StatedNumber], stating: Sequence[Collection[int]]
) -> Given | None:
    """The first of the claim's figures the page gives to another version than the claim's,
    with the figure an item of the claim's version gives instead (see the module).
    `stating`: the sentences stating each of `numbers`."""
    versions = [n for n in numbers if n.kind == "version"]
    if not versions:
        return None
    claimed = claimed_values(numbers)
    sentences = page.sentences
    for number, mine in zip(numbers, stating, strict=True):
        if number.kind not in _SORTS or not mine:
            continue
        if not all(_names_another(sentences[i], versions) for i in mine):
            continue  # stated where no version, or the claim's, is named
        for index in sorted(mine):
            found = _item_of(page, index, number, versions, claimed)
            if found is not None:
                return found
    return None


def _names_another(sentence: Sentence, versions: Sequence[StatedNumber]) -> bool:
    """Whether a sentence names a version, and none of the claim's `versions`."""
    named = [f for f in sentence.numbers if f.kind == "version"]
    return bool(named) and not any(v.matches(f) for v in versions for f in named)


def _item_of(
    page: PageIndex,
    index: int,
    number: StatedNumber,
    versions: Sequence[StatedNumber],
    claimed: frozenset[object],
) -> Given | None:
    """The nearest sentence to `index` naming one of the claim's versions and giving a
    figure of `number`'s sort the claim lacks."""
    sentences = page.sentences
    for distance in range(1, NEAR_SENTENCES + 1):
        for other in (index - distance, index + distance):
            if not page.head <= other < len(sentences):
                continue
            sentence = sentences[other]
            if not any(v.matches(f) for v in versions for f in sentence.numbers):
                continue
            for figure in sentence.numbers:
                if (
                    figure.kind == number.kind
                    and (figure.quantity is None) == (number.quantity is None)
                    and figure.candidates.isdisjoint(claimed)
                    and not number.matches(figure)
                ):
                    return Given(number, figure, other)
    return None
