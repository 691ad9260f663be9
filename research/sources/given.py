"""A figure of a supported claim that the page gives to other words: every rule that reads
one, in the order the check asks them (pure: standard library only).

`slots` (another sentence holds more of the claim's words and gives another figure; a
parenthesis or the words next to a figure tie it to other words), `rows` (a table gives it
to another row or column than the claim names), `counted` (the passage puts the claim's
count's noun after another count), `versioned` (a schedule gives it to another version),
`roles` (the parallel parts of the matching passage pair it with other figures or words).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from research.sources.counted import counted_by_another
from research.sources.figures import StatedNumber
from research.sources.flips import Clauses
from research.sources.pageindex import PageIndex
from research.sources.roles import given_by_parts
from research.sources.rows import given_by_table
from research.sources.slots import MAX_SLOT_SENTENCES, Given, given_to_others, told_the_other_way
from research.sources.versioned import other_version


def given_elsewhere(
    page: PageIndex,
    clauses: Clauses,
    stems: frozenset[str],
    numbers: Sequence[StatedNumber],
    stating: Sequence[Collection[int]],
    outside: Collection[StatedNumber],
    passage: range,
) -> Given | None:
    """The first figure of a supported claim that the page gives to other words, with the
    figure it gives there instead: checked in the matching passage (`passage`) and, for a
    figure stated only outside it (`outside`, in at most MAX_SLOT_SENTENCES sentences: one
    stated more often is context), in the sentences stating it. `clauses`: those of the
    claim's text; `stating`: the sentences stating each of `numbers`."""
    stated = {
        i
        for n, sentences in zip(numbers, stating, strict=True)
        if n in outside and len(sentences) <= MAX_SLOT_SENTENCES
        for i in sentences
    }
    where = [*passage, *sorted(stated - set(passage))]
    return (
        given_to_others(page, clauses, stems, numbers, stating)
        or told_the_other_way(page, where, clauses, stems, numbers)
        or given_by_table(page, passage, (clauses.text, stems), numbers, stating)
        or counted_by_another(page, passage, clauses.text, numbers, stating)
        or other_version(page, numbers, stating)
        or given_by_parts(page, passage, clauses.text, numbers)
    )
