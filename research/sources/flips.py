"""How a claim can keep the page's figures but flip their meaning (pure: standard library
only; no library reads meaning, so these are the project's own word lists).

Within the clause that holds a shared figure, the claim says the opposite direction
(increase/decrease, more/less, above/below), negates what the page says ("does not"), or
attaches two figures to each other's subjects.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from research.sources.words import stems_of

_UP = frozenset(
    """increase increased increases increasing rise rises rose risen rising grew grow grows
    growing growth up higher highest more above gain gained gains improve improved improves
    exceed exceeded exceeds exceeding expensive costlier larger largest bigger surge
    surged jump jumped climb climbed""".split()
)
_DOWN = frozenset(
    """decrease decreased decreases decreasing fall falls fell fallen falling drop dropped
    drops dropping decline declined declines declining down lower lowest less fewer below
    loss lost cut cuts reduce reduced reduces reduction shrank shrink cheaper smaller
    smallest missed miss""".split()
)
_NEGATION = frozenset({"not", "no", "never", "cannot"})
_CLAUSE_BREAK = re.compile(r"[;:()]|,(?!\d)|\s(?:while|whereas|but|compared with|against)\s", re.I)
_TOKEN = re.compile(r"[a-z]+(?:'t)?")


def clause_breaks(text: str) -> list[tuple[int, int]]:
    """Where `text` breaks into clauses (`clause_around`), for several spans of one text."""
    return [m.span() for m in _CLAUSE_BREAK.finditer(text)]


def clause_around(
    text: str, start: int, end: int, breaks: Sequence[tuple[int, int]] | None = None
) -> str:
    """The clause of `text` that holds the span start..end (split at , ; : and "while",
    "whereas", "but", "compared with"); `breaks`: `clause_breaks(text)`, if known."""
    if breaks is None:
        breaks = clause_breaks(text)
    left = max((b for _, b in breaks if b <= start), default=0)
    right = min((a for a, _ in breaks if a >= end), default=len(text))
    return text[left:right]


class Clauses:
    """The clauses of one text around its figures (`clause_around`) with their stems, each
    read once: the text of one claim, for the several rules that look at its clauses."""

    __slots__ = ("_breaks", "_read", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._breaks: list[tuple[int, int]] | None = None
        self._read: dict[tuple[int, int], tuple[str, frozenset[str]]] = {}

    def around(self, span: tuple[int, int]) -> tuple[str, frozenset[str]]:
        """The clause holding `span`, and its stems."""
        found = self._read.get(span)
        if found is None:
            if self._breaks is None:
                self._breaks = clause_breaks(self.text)
            clause = clause_around(self.text, *span, self._breaks)
            found = self._read[span] = (clause, stems_of(clause))
        return found


@dataclass(frozen=True, slots=True)
class Clause:
    """A clause read for `flipped`: its words, the direction it speaks of, a negation."""

    words: frozenset[str]
    direction: int
    """+1 when it speaks only of up (rose, more, above), -1 only of down, else 0."""
    negated: bool


def read_clause(clause: str) -> Clause:
    lower = clause.lower()
    words = frozenset(_TOKEN.findall(lower))
    up, down = bool(words & _UP), bool(words & _DOWN)
    way = (1 if up else 0) - (1 if down else 0) if up != down else 0
    # a token ends with "n't" exactly where the text holds "n't" ("n" is a letter, "'" none)
    return Clause(words, way, not words.isdisjoint(_NEGATION) or "n't" in lower)


def direction(clause: str) -> int:
    """+1 when the clause speaks only of up (rose, more, above), -1 only of down, else 0."""
    return read_clause(clause).direction


def negated(clause: str) -> bool:
    return read_clause(clause).negated


def flipped(claim_clause: str, page_clause: str) -> str | None:
    """How the claim's clause turns the page's around, or None."""
    return flipped_clauses(read_clause(claim_clause), read_clause(page_clause))


def flipped_clauses(mine: Clause, theirs: Clause) -> str | None:
    """`flipped` for clauses already read."""
    if mine.direction and theirs.direction and mine.direction != theirs.direction:
        words = sorted(theirs.words & (_UP if theirs.direction > 0 else _DOWN))
        return f"the page says {words[0]!r} where the claim says the opposite"
    if mine.negated != theirs.negated:
        side = "the claim" if mine.negated else "the page"
        return f"{side} negates what the other says"
    return None


def swapped(
    claim_clauses: Sequence[frozenset[str]], page_clauses: Sequence[frozenset[str]]
) -> bool:
    """Whether two figures are attached to each other's subjects: the words that set a
    claim clause apart from its page clause belong to the page clause of another figure,
    and back (clauses as sets of content stems, in the order of the claim's figures)."""
    pairs = list(zip(claim_clauses, page_clauses, strict=True))
    for index, (mine, theirs) in enumerate(pairs):
        own = mine - theirs
        for other, (mine_other, theirs_other) in enumerate(pairs):
            if other == index or theirs_other == theirs:
                continue
            if own & (theirs_other - theirs) and (mine_other - theirs_other) & (theirs - mine):
                return True
    return False
