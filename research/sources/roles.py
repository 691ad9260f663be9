"""A claim's figure that the parallel parts of its passage give to other words (pure:
standard library only).

A passage often states figures of one sort in parallel parts, the clauses of a sentence
(`_PART_BREAK`: a semicolon, ", and", "while", a comma or an "and" starting a phrase) or
its sentences: "In release 4.1, the default was 64; since release 5.0, it is 256", "For
versions 2.3.1 and earlier the size is at most 8192. Beginning with version 2.4.0, 16384
is accepted". What the claim puts with its figure says which part it restates:
- `crossed`: the claim pairs two of its figures of different sorts, a and b, that no part
  holds together, while a's part gives a figure of b's kind the claim lacks and b's part a
  figure of a's sort the claim lacks, after the same word as a and in the same order: the
  page pairs them the other way ("since release 4.1, 256"; not a machine's specifications,
  "3.6Ghz (4.4Ghz boost), with 16GiB memory at 3200Mhz").
- `contrasted`: the parts tell their figures apart by the word before a noun both use
  ("datagram sockets" / "stream sockets", "usable size" / "page size") or after a
  preposition both use ("on x86" / "on Alpha"), and the claim writes the other part's
  pair of words, not its figure's ("stream sockets since 3.18");
  the other part's figure is of the same kind, whatever its magnitude ("the minimum page
  size is 512 bytes and the maximum page size is 65536 bytes").
Two releases named after the same word are of one sort whichever kind each reads as
("Linux 2.6.18", a version, and "Linux 4.2", a number: `_alike`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

from research.sources.figures import StatedNumber, claimed_values
from research.sources.pageindex import PageIndex
from research.sources.rawfigure import Value
from research.sources.slots import Given, same_slot
from research.sources.words import token_stems

_PART_BREAK = re.compile(
    r";\s|,\s+(?:and|while|whereas|but)\s|\s(?:while|whereas)\s"
    r"|,\s(?=(?:with|on|in|for|since|from|under|at)\s)"
    r"|\sand\s(?=(?:the|a|an|for|in|on|since|from|with|its|their|before|after|until)\s)",
    re.IGNORECASE,
)
"""Where a sentence's parallel parts meet: a semicolon, a contrast, a comma or an "and"
starting a phrase of its own ("... 64, and since release 5.0 ...", "... 30 seconds and the
read timeout ...", "... 80 seconds, with 8 threads ...": not the "and" of a range, "between
512 and 65536")."""
_SEGMENT = re.compile(r"[^,;:()\[\]]+")
_WORD = re.compile(r"[^\W\d_][\w'-]*")
_QUALIFIERS = frozenset(
    f"_{word}" for word in ("on", "in", "for", "with", "without", "under", "using", "via")
)
"""The prepositions whose next word names what a part's figures hold for ("on x86", "with
clang"), as `_pairs` writes them; not "per" ("per kWh", "per kilowatt-hour": a unit)."""
_DETERMINERS = frozenset(
    {"the", "a", "an", "this", "that", "these", "those", "its", "their", "our", "his", "her"}
)


class _Part:
    """A clause of a passage sentence (split at `_PART_BREAK`) that states figures: its sentence,
    figures, text, their spans in it, and what is read from it on demand."""

    __slots__ = ("_named", "_pairs", "figures", "sentence", "spans", "text", "values")

    def __init__(self, sentence: int, figures: tuple[StatedNumber, ...], text: str, start: int):
        self.sentence, self.figures, self.text = sentence, figures, text
        self.spans = tuple((f.span[0] - start, f.span[1] - start) for f in figures)
        self.values = frozenset().union(*(f.candidates for f in figures))
        self._named: tuple[str, ...] | None = None
        self._pairs: frozenset[tuple[str, str]] | None = None

    @property
    def named(self) -> tuple[str, ...]:
        """For each figure, the stem of the word right before it ("" for none): what names
        it (`_name_of`)."""
        if self._named is None:
            self._named = tuple(_name_of(self.text, span) for span in self.spans)
        return self._named

    @property
    def pairs(self) -> frozenset[tuple[str, str]]:
        """Its pairs of words (`_pairs`)."""
        if self._pairs is None:
            self._pairs = frozenset(_pairs(self.text, self.spans))
        return self._pairs


def given_by_parts(
    page: PageIndex, passage: range, norm: str, numbers: Sequence[StatedNumber]
) -> Given | None:
    """The first of the claim's figures that the parallel parts of its matching passage
    (`passage`) give to other words (`crossed`, `contrasted`: see the module), with the
    figure they give instead. `norm`: the claim's text its `numbers` were read from."""
    if not numbers:
        return None
    parts = _parts(page, passage)
    if len(parts) < 2:
        return None
    held = [[p for p in parts if _holds(p, n)] for n in numbers]
    if not any(held):
        return None
    claimed = claimed_values(numbers)
    claim = _Claim(norm, numbers, held, claimed)
    return crossed(parts, claim) or contrasted(parts, claim)


class _Claim:
    """The claim as the parts read it: its text, its figures, the parts holding each, every
    value they may mean, and its pairs of words (`_pairs`), read on demand."""

    __slots__ = ("_said", "_words", "claimed", "held", "norm", "numbers", "spans")

    def __init__(
        self,
        norm: str,
        numbers: Sequence[StatedNumber],
        held: Sequence[Sequence[_Part]],
        claimed: frozenset[Value],
    ) -> None:
        self.norm, self.numbers, self.held, self.claimed = norm, numbers, held, claimed
        self.spans = [n.span for n in numbers]
        self._said: dict[tuple[str, str], int] | None = None
        self._words: frozenset[str] | None = None

    @property
    def words(self) -> frozenset[str]:
        """The stems of its words."""
        if self._words is None:
            self._words = frozenset(s for w in _WORD.findall(self.norm) for s in token_stems(w))
        return self._words

    @property
    def said(self) -> dict[tuple[str, str], int]:
        if self._said is None:
            self._said = _pairs(self.norm, self.spans)
        return self._said


def _parts(page: PageIndex, passage: range) -> list[_Part]:
    """The clauses (split at `_PART_BREAK`) of the passage's sentences that state a figure, each
    sentence's read once per page (`PageMemo.parts`)."""
    out: list[_Part] = []
    memo = page.memo.parts
    for index in passage:
        found = memo.get(index)
        if found is None:
            found = memo[index] = _sentence_parts(page, index)
        out.extend(cast("tuple[_Part, ...]", found))
    return out


def _sentence_parts(page: PageIndex, index: int) -> tuple[_Part, ...]:
    sentence = page.sentences[index]
    if not sentence.numbers or sentence.text.startswith("|"):
        return ()
    out: list[_Part] = []
    norm, start = sentence.norm, 0
    bounds = [(m.start(), m.end()) for m in _PART_BREAK.finditer(norm)]
    for end, after in [*bounds, (len(norm), len(norm))]:
        figures = tuple(f for f in sentence.numbers if start <= f.span[0] < end)
        if figures:
            out.append(_Part(index, figures, norm[start:end], start))
        start = after
    return tuple(out)


_LAST_WORD = re.compile(r"([^\W\d_][\w'-]*)\s*$")
_RELEASES = frozenset({"version", "number", "label"})


def _word_run_start(text: str, end: int) -> int:
    """Where the run of word characters (and ' -) before the spaces that end at `end`
    starts: `_LAST_WORD` matches nowhere before it (tried from the text's start, it tried
    every word of the sentence)."""
    at = end
    while at > 0 and text[at - 1].isspace():
        at -= 1
    while at > 0 and (text[at - 1].isalnum() or text[at - 1] in "_'-"):
        at -= 1
    return at


def _name_of(text: str, span: tuple[int, int]) -> str:
    """The stem of the word right before a figure ("linux" for "Linux 4.2"), or ""."""
    found = _LAST_WORD.search(text, _word_run_start(text, span[0]), span[0])
    stems = sorted(token_stems(found.group(1))) if found else []
    return stems[0] if stems else ""


def _alike(mine: StatedNumber, name: str, theirs: StatedNumber, their_name: str) -> bool:
    """Whether a page figure could stand where the claim's does (`same_slot`), or both name
    a release after the same word, whichever kind each reads as ("Linux 2.6.18", "Linux
    4.2")."""
    if same_slot(mine, theirs, lenient=True):
        return True
    return bool(name) and name == their_name and {mine.kind, theirs.kind} <= _RELEASES


def _holds(part: _Part, number: StatedNumber) -> bool:
    """Whether a part states the claim's `number` (a plain figure only where one of the
    values it may mean is one of the part's, looked for first)."""
    plain = number.quantity is None and number.band is None and not number.multiple
    if plain and number.candidates.isdisjoint(part.values):
        return False
    return any(number.matches(f) for f in part.figures)


def _lacked(part: _Part, claimed: frozenset[Value]) -> list[StatedNumber]:
    return [f for f in part.figures if f.candidates.isdisjoint(claimed)]


def _kin(mine: StatedNumber, theirs: StatedNumber) -> bool:
    """The same kind, and dimension when both carry a unit, whatever the magnitude."""
    if mine.kind != theirs.kind:
        return False
    if mine.quantity is None or theirs.quantity is None:
        return True  # one sentence may write the unit once
    return mine.quantity.unit.dimension == theirs.quantity.unit.dimension


def crossed(parts: Sequence[_Part], claim: _Claim) -> Given | None:
    """A claim figure b that the claim pairs with its figure a (in one clause of the claim:
    no "; " between them), of another sort, where no part holds both, and the parts are
    parallel the other way (`_crossing`: see the module)."""
    numbers, held = claim.numbers, claim.held
    for a, at in zip(numbers, held, strict=True):
        for b, bt in zip(numbers, held, strict=True):
            if not at or not bt or a is b or any(p in bt for p in at):
                continue
            if same_slot(a, b) or not _paired(claim.norm, a, b):
                continue
            name = _name_of(claim.norm, a.span)
            for mine in bt:
                for other in at:
                    found = _crossing((mine, b), (other, a), name, claim.claimed)
                    if found is not None:
                        return Given(b, found, other.sentence)
    return None


def _crossing(
    mine: tuple[_Part, StatedNumber],
    other: tuple[_Part, StatedNumber],
    name: str,
    claimed: frozenset[Value],
) -> StatedNumber | None:
    """The figure b' of b's kind, of a's sort no more, the claim lacks, that a's part gives
    where b's part gives b, when b's part gives a figure a' of a's sort the claim lacks in
    the same order ("a' ... b" and "a ... b'", or "b ... a'" and "b' ... a") and after the
    same word as a ("Linux 2.2", "Linux 2.4"; "with 4 threads", "with 8 threads"): the page
    pairs a with b' and a' with b. `mine`: b's part and b; `other`: a's part and a; `name`: the
    word before a in the claim."""
    part, b = mine
    a_part, a = other
    b_at = next(i for i, f in enumerate(part.figures) if b.matches(f))
    a_at = next(i for i, f in enumerate(a_part.figures) if a.matches(f))
    named = a_part.named[a_at]
    for i, (f, their) in enumerate(zip(part.figures, part.named, strict=True)):
        if their != named or not f.candidates.isdisjoint(claimed) or not _alike(a, name, f, their):
            continue
        for j, g in enumerate(a_part.figures):
            if (
                g.candidates.isdisjoint(claimed)
                and _kin(b, g)
                and not same_slot(a, g)
                and (i < b_at) == (a_at < j)
            ):
                return g
    return None


def _paired(norm: str, a: StatedNumber, b: StatedNumber) -> bool:
    """Whether no "; " or sentence end parts two claim figures."""
    first, second = sorted((a.span, b.span))
    between = norm[first[1] : second[0]]
    return ";" not in between and ". " not in between


def _pairs(text: str, spans: Sequence[tuple[int, int]]) -> dict[tuple[str, str], int]:
    """Each pair of words right next to each other in `text` (no figure (`spans`) or
    clause mark , ; : parentheses between them), the second a content word, as stems, with
    where it starts: a noun and the word that tells it apart ("stream sockets", "usable
    size"), or a stopword, "_" and itself, and the word after it past any article ("_on"
    and "x86" for "on x86", "on the x86")."""
    out: dict[tuple[str, str], int] = {}
    edges = [0, *(x for span in spans for x in span), len(text)]
    for start, end in zip(edges[::2], edges[1::2], strict=True):
        for segment in _SEGMENT.finditer(text, start, end):
            last: tuple[str, int] | None = None
            for word in _WORD.finditer(segment.group()):
                stems = sorted(token_stems(word.group()))
                here = segment.start() + word.start()
                if stems and last is not None:
                    out.setdefault((last[0], stems[0]), last[1])
                if stems:
                    last = (stems[0], here)
                elif word.group().lower() not in _DETERMINERS:
                    last = ("_" + word.group().lower(), here)
    return out


def _nearest(spans: Sequence[tuple[int, int]], at: int) -> tuple[int, int]:
    """Of the claim's figures (`spans`), the one nearest to position `at`."""
    return min(spans, key=lambda s: min(abs(at - s[0]), abs(at - s[1])))


def contrasted(parts: Sequence[_Part], claim: _Claim) -> Given | None:
    """A claim figure whose part writes a noun after one word ("datagram sockets") while
    another part, giving a figure of its sort the claim lacks and not the claim's, writes
    it after another word ("stream sockets"), and the claim writes the other part's pair
    of words and not its figure's part's (see the module)."""
    for number, mine in zip(claim.numbers, claim.held, strict=True):
        if not mine:
            continue
        name = _name_of(claim.norm, number.span)
        for other in parts:
            if other in mine:
                continue
            rivals = [
                f
                for f, their in zip(other.figures, other.named, strict=True)
                if f.candidates.isdisjoint(claim.claimed)
                and (_kin(number, f) or _alike(number, name, f, their))
                and not number.matches(f)
            ]
            if rivals and _told_apart(claim, number, mine, other.pairs):
                return Given(number, rivals[0], other.sentence)
    return None


def _told_apart(
    claim: _Claim,
    number: StatedNumber,
    mine: Sequence[_Part],
    theirs: frozenset[tuple[str, str]],
) -> bool:
    """Whether the claim writes, nearer its figure `number` than any other, a pair of words
    (x, w) of the other part (`theirs`) where the figure's parts (`mine`) write w after
    another word y ("stream sockets" / "datagram sockets"), or, x a preposition of
    `_QUALIFIERS`, write another word z after x ("on x86" / "on Alpha"), and never writes y
    or z ("a median of 120 ms, below the mean response time" names its own part's "median"
    too)."""
    said, spans = claim.said, claim.spans
    own = frozenset().union(*(p.pairs for p in mine))
    for (x, w), at in said.items():
        if (x, w) not in theirs or (x, w) in own or _nearest(spans, at) != number.span:
            continue
        ys = {y for y, n in own if n == w and y != x and not y.startswith("_")}
        if x in _QUALIFIERS:  # a preposition naming where or how (`_pairs`)
            ys |= {z for a, z in own if a == x and z != w}
        if ys and ys.isdisjoint(claim.words):
            return True
    return False
