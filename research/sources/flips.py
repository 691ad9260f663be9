"""How a claim can keep the page's figures but flip their meaning (pure: standard library
only; no library reads meaning, so these are the project's own word lists).

Within the clause that holds a shared figure, the claim says the opposite direction
(increase/decrease, more/less, above/below), negates what the page says ("does not"), or
attaches two figures to each other's subjects.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

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


def clause_around(text: str, start: int, end: int) -> str:
    """The clause of `text` that holds the span start..end (split at , ; : and "while",
    "whereas", "but", "compared with")."""
    breaks = list(_CLAUSE_BREAK.finditer(text))
    left = max((m.end() for m in breaks if m.end() <= start), default=0)
    right = min((m.start() for m in breaks if m.start() >= end), default=len(text))
    return text[left:right]


def _tokens(clause: str) -> list[str]:
    return _TOKEN.findall(clause.lower())


def direction(clause: str) -> int:
    """+1 when the clause speaks only of up (rose, more, above), -1 only of down, else 0."""
    words = set(_tokens(clause))
    up, down = bool(words & _UP), bool(words & _DOWN)
    return (1 if up else 0) - (1 if down else 0) if up != down else 0


def negated(clause: str) -> bool:
    words = _tokens(clause)
    return any(w in _NEGATION or w.endswith("n't") for w in words)


def flipped(claim_clause: str, page_clause: str) -> str | None:
    """How the claim's clause turns the page's around, or None."""
    mine, theirs = direction(claim_clause), direction(page_clause)
    if mine and theirs and mine != theirs:
        words = sorted(set(_tokens(page_clause)) & (_UP if theirs > 0 else _DOWN))
        return f"the page says {words[0]!r} where the claim says the opposite"
    if negated(claim_clause) != negated(page_clause):
        side = "the claim" if negated(claim_clause) else "the page"
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
