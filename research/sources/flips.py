"""How a claim can keep the page's figures but flip their meaning (pure: standard library
only; no library reads meaning, so these are the project's own word lists).

Within the clause that holds a shared figure, the claim says the opposite direction
(increase/decrease, more/less, above/below), negates what the page says ("does not"), or
attaches two figures to each other's subjects.

A direction is read on three axes, and a flip is the opposite way on one of them: a change
or comparison (`_UP`/`_DOWN`), a speed (faster/slower: "2.5x slower" for "2.5x faster"; not
the opposite of "less time"), and a bound on the figure ("more than 30%", "fewer than 10%",
"up to", "at least", "above 5", "capped at", "no more than": how exact the figure is, not a
change nor a negation, so "fewer than 10% used Windows" does not turn "Windows use rose to
9%" around and "no more than 100" (or "never more than 100") agrees with "at most 100",
while "more than 100" does turn "less than 100"). A negation counts only when it is about
what the other clause says: the first content word after it ("do not *use* Rust") is among
the other clause's words (`words.stems_of`, so "did not fall" reaches "fell"), and the other
clause does not take that word away ("does not support Python 2" says what "dropped Python 2
support" says); "3,000 who answered the 2023 survey do not use Rust" does not negate "the
2023 survey of Rust users ran for six weeks".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from research.sources import merits
from research.sources.words import stems_of, token_stems

_UP = frozenset(
    """increase increased increases increasing rise rises rose risen rising grew grow grows
    growing growth up higher highest more above gain gained gains improve improved improves
    exceed exceeded exceeds exceeding expensive costlier larger largest bigger surge
    surged surges jump jumped jumps climb climbed climbs raise raised raises raising soared
    doubled tripled""".split()
)
_DOWN = frozenset(
    """decrease decreased decreases decreasing fall falls fell fallen falling drop dropped
    drops dropping decline declined declines declining down lower lowered lowers lowering
    lowest less fewer below loss lost cut cuts reduce reduced reduces reduction shrank
    shrink shrinks shrunk cheaper smaller smallest missed miss halved plunged slashed""".split()
)
_FAST = frozenset("faster fastest quicker speedup speedups sped".split())
_SLOW = frozenset("slower slowest slowdown slowdowns slowed".split())
_BOUND = re.compile(
    r"\b(?:(?:no|not)\s+(?:more|greater|higher|less|fewer|lower)\s+than|(?:more|greater"
    r"|higher|less|fewer|lower)\s+than|up\s+to|at\s+(?:least|most)|above|over|below|under"
    r"|capped\s+at|limited\s+to|(?:a\s+)?(?:maximum|minimum)\s+of)"
    r"\s+(?=[~\u2248<>$\u20ac\u00a3]?\d)"
)
"""Words that bound the figure after them ("more than 30%", "up to 40%", "capped at 100")."""
_BOUND_UP = re.compile(r"(?:more|greater|higher|at least|above|over|minimum|a minimum)\b")
_BOUND_CUES = frozenset(
    "than up least most above below over under capped limited maximum minimum".split()
)
_SPEED = _FAST | _SLOW
_MERIT_WORDS = merits.BETTER | merits.WORSE | _SPEED | _UP | _DOWN
"""The words a clause says better or worse with (`merits`)."""
_JOINED = re.compile(r"\b(speed|slow)(?:ed)?[- ](up|down)\b")
_NEGATION = frozenset({"not", "no", "never", "cannot"})
_NEGATOR = re.compile(r"\b(?:not|no|never|cannot)\b|n't\b")
_CLAUSE_BREAK = re.compile(r"[;:()]|,(?!\d)|\s(?:while|whereas|but|compared with|against)\s", re.I)
_TOKEN = re.compile(r"[a-z]+(?:'t)?")


_TAKEN_AWAY = 3
"""A word that a change down is at most this many words from is what it takes away."""
_BARE_CHARS = 40
"""A clause without a content word is short ("In 2023", "On 3 May 2021"): longer ones are
not looked at for one."""


def clause_breaks(text: str) -> list[tuple[int, int]]:
    """Where `text` breaks into clauses (`clause_around`), for several spans of one text."""
    return [m.span() for m in _CLAUSE_BREAK.finditer(text)]


def clause_around(
    text: str, start: int, end: int, breaks: Sequence[tuple[int, int]] | None = None
) -> str:
    """The clause of `text` that holds the span start..end (split at , ; : and "while",
    "whereas", "but", "compared with"); `breaks`: `clause_breaks(text)`, if known. A
    clause without a content word ("In 2023, compile times fell") is read with the clause
    it introduces (or, last in its text, the one before it): that one says what happened."""
    left, right = clause_span(text, start, end, breaks)
    return text[left:right]


def clause_span(
    text: str, start: int, end: int, breaks: Sequence[tuple[int, int]] | None = None
) -> tuple[int, int]:
    """Where `clause_around`'s clause is in `text`."""
    if breaks is None:
        breaks = clause_breaks(text)
    left = max((b for _, b in breaks if b <= start), default=0)
    right = min((a for a, _ in breaks if a >= end), default=len(text))
    if right - left <= _BARE_CHARS and not any(
        token_stems(token) for token in _TOKEN.findall(text[left:right].lower())
    ):
        if right < len(text):
            after = next(b for a, b in breaks if a == right)
            right = min((a for a, _ in breaks if a >= after), default=len(text))
        elif left > 0:
            before = next(a for a, b in breaks if b == left)
            left = max((b for _, b in breaks if b <= before), default=0)
    return left, right


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
    """A clause read for `flipped_clauses`: its words, the direction it speaks of, a negation."""

    words: frozenset[str]
    direction: int
    """+1 when it speaks only of up (rose, more, above), -1 only of down, else 0."""
    negated: bool
    speed: int = 0
    """+1 when it speaks only of faster, -1 only of slower, else 0."""
    bound: int = 0
    """+1 when it bounds its figures only from below ("more than 30%"), -1 only from above
    ("up to", "fewer than", "no more than"), else 0."""
    bounds: tuple[str, ...] = ()
    """Its bounds as written ("more than", "at most")."""
    negates: str = ""
    """The first content word after its negation ("" when none)."""
    text: str = ""
    """The clause as read (its words are compared only when it is negated)."""
    merit: int = 0
    """+1 when it says only that a measure got better, -1 only worse, else 0
    (`research.sources.merits`: "improved", "6% slower", "cut latency")."""


def _way(words: frozenset[str], up: frozenset[str], down: frozenset[str]) -> int:
    """+1 when `words` hold only `up` words, -1 only `down` words, else 0."""
    is_up, is_down = not words.isdisjoint(up), not words.isdisjoint(down)
    return 0 if is_up == is_down else (1 if is_up else -1)


def read_clause(clause: str) -> Clause:
    lower = clause.lower()
    if "speed" in lower or "slow" in lower:
        lower = _JOINED.sub(r"\1\2", lower)
    words = frozenset(_TOKEN.findall(lower))
    bounds: list[str] = []
    changes, rest = words, lower
    if not words.isdisjoint(_BOUND_CUES):
        bounds = [" ".join(m.group(0).split()) for m in _BOUND.finditer(lower)]
        if bounds:
            rest = _BOUND.sub(" ", lower)  # "no more than" is a bound, not a negation
            changes = frozenset(_TOKEN.findall(rest))
    # a token ends with "n't" exactly where the text holds "n't" ("n" is a letter, "'" none)
    negation = _NEGATOR.search(rest) if not changes.isdisjoint(_NEGATION) or "n't" in rest else None
    bound = _bound_way(bounds)
    if negation is not None and bound:  # "never holds more than 100": at most 100
        bound, negation = -bound, None
    speed = _way(words, _FAST, _SLOW) if words & _SPEED else 0
    merit = 0
    if not words.isdisjoint(merits.CUES) or speed:
        change = _way(changes - merits.BETTER, _UP, _DOWN)
        merit = merits.merit(lower, words, change, speed)
    return Clause(
        words,
        _way(changes, _UP, _DOWN),
        negation is not None,
        speed=speed,
        bound=bound,
        bounds=tuple(bounds),
        negates=_negated_word(rest[negation.end() :]) if negation else "",
        text=clause,
        merit=merit,
    )


def _bound_way(bounds: Sequence[str]) -> int:
    """+1 when every bound is from below ("more than", "no less than"), -1 when every one is
    from above, else 0."""
    ways = set()
    for bound in bounds:
        plain = bound.removeprefix("no ").removeprefix("not ")
        way = 1 if _BOUND_UP.match(plain) else -1
        ways.add(-way if plain != bound else way)
    return ways.pop() if len(ways) == 1 else 0


def _negated_word(rest: str) -> str:
    """The first content word of `rest` (not an adverb in -ly)."""
    return next((t for t in _TOKEN.findall(rest) if token_stems(t) and not t.endswith("ly")), "")


def flipped_clauses(mine: Clause, theirs: Clause, *, changes: bool = True) -> str | None:
    """How the claim's clause turns the page's around, or None (clauses read by
    `read_clause`); `changes`: whether their changes (direction, speed) are about the same
    figure and so compared (`research.sources.flipcheck`)."""
    axes = (
        (mine.direction, theirs.direction, _UP, _DOWN),
        (mine.speed, theirs.speed, _FAST, _SLOW),
        (mine.merit, theirs.merit, _MERIT_WORDS, _MERIT_WORDS),
    )
    for my_way, their_way, up, down in axes if changes else ():
        if my_way and their_way and my_way != their_way:
            words = sorted(theirs.words & (up if their_way > 0 else down))
            return f"the page says {words[0]!r} where the claim says the opposite"
    if mine.bound and theirs.bound and mine.bound != theirs.bound:
        return f"the page says {theirs.bounds[0]!r} where the claim says the opposite"
    if mine.negated != theirs.negated and not _agree(
        *((mine, theirs) if mine.negated else (theirs, mine))
    ):
        side = "the claim" if mine.negated else "the page"
        return f"{side} negates what the other says"
    return None


def _agree(negated: Clause, other: Clause) -> bool:
    """Whether a negated clause says what the other says after all: its negation is about
    a word the other does not say, or the other takes that word away: a change down within
    `_TAKEN_AWAY` words of it ("does not support Python 2" and "dropped Python 2 support";
    "did not fall" and "fell" do not agree, nor "does not require 3.9" and "requires 3.9
    and drops support for 3.8")."""
    if not negated.negates or not other.text:
        return False
    if token_stems(negated.negates).isdisjoint(stems_of(other.text)):
        return True
    if other.direction >= 0 or negated.negates in _UP or negated.negates in _DOWN:
        return False
    tokens = _TOKEN.findall(other.text.lower())
    target = token_stems(negated.negates)
    downs = [i for i, token in enumerate(tokens) if token in _DOWN]
    return any(
        abs(i - j) <= _TAKEN_AWAY and not target.isdisjoint(token_stems(token))
        for j, token in enumerate(tokens)
        for i in downs
    )


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
