"""Where the words of a claim's figures may come from in a passage (pure: standard library
only). A passage runs across paragraph breaks, so a claim could borrow a subject from the
paragraph after its figure's: "The conference had 4,000 respondents" from "The survey had
4,000 participants." and, a paragraph later, "The conference drew 900 attendees.". A
finished paragraph (its last sentence ends with '.', '!' or '?') is where what its figures
count is said; a later paragraph is read with it only when it continues it: it starts in
lowercase, as a list item, a table row or a numbered step, or with a conjunction or a word
that points back ("and", "but", "this", "it", "these", "they"). A paragraph before the
figure's is context and stays ("In the 2023 survey ..." above the paragraph giving its
counts).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from research.sources.figures import StatedNumber
from research.sources.figuretable import sort_of
from research.sources.linemarks import BULLETS, NUMBERED, SENTENCE_ENDS
from research.sources.pageindex import Sentence

_CONTINUES = re.compile(
    rf"[{BULLETS}|(\[]|{NUMBERED}\s"
    r"|(?:and|but|or|nor|so|yet|also|then|while|whereas|which|this|these|that|those|it|its"
    r"|they|their|there|here|such|both|each|either|neither|same)\b",
    re.IGNORECASE,
)


def _continues(before: Sentence, after: Sentence) -> bool:
    """Whether the line of `after` continues the paragraph `before` ends."""
    if not before.text.rstrip().endswith(SENTENCE_ENDS):
        return True  # a heading, a row, a line ending with a colon: not a finished paragraph
    text = after.text.lstrip()
    return text[:1].islower() or _CONTINUES.match(text) is not None


def own_paragraphs_end(sentences: Sequence[Sentence], end: int, last: int) -> int:
    """Where a run of `sentences` ending before `end` is cut so that it ends with the
    paragraph of its sentence `last` (the last one stating a figure of the claim) or with the
    later paragraphs that continue it (see the module docstring): `end` when none is cut off."""
    for index in range(last + 1, end):
        before, after = sentences[index - 1], sentences[index]
        if after.line != before.line and not _continues(before, after):
            return index
    return end


def lent_by_later(
    sentences: Sequence[Sentence],
    stems: frozenset[str],
    numbers: Sequence[StatedNumber],
    stating: Sequence[Collection[int]],
    first: int,
    end: int,
    held: frozenset[str],
) -> tuple[int, frozenset[str], int] | None:
    """Where the run first..end of a claim (its `stems` and `numbers`, the sentences
    `stating` each, the stems it `held`) is cut, the stems and words it then holds, when a later
    paragraph that does not continue its figures' (`own_paragraphs_end`) lends it words
    and gives a figure of its own of the sort of one of the claim's: those words are that
    figure's ("The conference drew 900 attendees." after "The survey had 4,000
    participants." is no "conference had 4,000 respondents"); None when it is not."""
    if end - first < 2 or sentences[first].line == sentences[end - 1].line:
        return None
    last = max((i for s in stating for i in s if first <= i < end), default=-1)
    cut = own_paragraphs_end(sentences, end, last) if last >= 0 else end
    if cut == end:
        return None
    kept = frozenset().union(*(s.stems & stems for s in sentences[first:cut]))
    sorts = {sort_of(n) for n in numbers}
    if kept == held or not any(sort_of(f) in sorts for s in sentences[cut:end] for f in s.numbers):
        return None
    return cut, kept, sum(s.words for s in sentences[first:cut])
