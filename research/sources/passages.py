"""The passages of a page a judge is shown for one claim: the one to three stretches of the
snapshot most likely to decide it, verbatim (whitespace collapsed).

The judge reads only these, so the decisive passage must be among them. Every sentence of
the page is scored by the claim's words it holds, each weighted by how rare it is on the
page (a word on every line tells nothing), and by the claim's figures it holds; the best
windows of one or two neighbouring sentences are taken, never overlapping, and each is
widened by a sentence on either side for context while it stays short.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from research.core.similarity import STOPWORDS
from research.sources.claims import (
    PageIndex,
    StatedNumber,
    check_claim,
    claim_numbers,
    index_page,
)
from research.sources.spelling import spell_numbers

MAX_PASSAGES = 3
PASSAGE_CHARS = 700
"""A passage is widened only while it stays this short."""
SENTENCE_CHARS = 1_200
"""A longer "sentence" (a run-on line, a table flattened into text) is cut into pieces."""
STEM = 6
FIGURE_WEIGHT = 1.0
KIND_WEIGHT = 2.0
"""A sentence with a figure of what the claim's figure measures (a duration, a rate, a
percentage) counts at least this much (a changed figure's passage has no equal figure)."""
"""A figure of the claim found in a sentence counts this many times the rarest word."""
PICKS = ("rules", "both", "both")
"""The order the passages are chosen in (see `PassageIndex.best`)."""
FIND_CHARS = 60
PAIR_SHARE = 0.5
"""A window's second sentence counts this share of its own score."""
MIN_EVIDENCE_CHARS = 12
"""A sentence of the claim check's index is found among these by its first characters."""

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_FIGURE = re.compile(r"(?<![^\W\d_])\d+(?:[.,\u00a0\u2009\u202f]\d+)*(?![^\W\d_])")
_ENDER = re.compile(r"(?<=[.!?;])[\"'\u201d\u2019)\]]*\s+(?=[\"'\u201c\u2018(\[]?[A-Z0-9])")


@dataclass(frozen=True)
class _Sentence:
    text: str
    paragraph: int
    stems: frozenset[str]
    figures: frozenset[str]


def _stems(text: str) -> frozenset[str]:
    words = (w.lower() for w in _WORD.findall(text))
    return frozenset(w[:STEM] for w in words if len(w) > 1 and w not in STOPWORDS)


def _figures(text: str) -> frozenset[str]:
    found: set[str] = set()
    for match in _FIGURE.finditer(text):
        digits = re.sub(r"[,\u00a0\u2009\u202f]", "", match.group(0))
        found.add(digits)
        if "." in digits:
            found.add(digits.rstrip("0").rstrip("."))
    return frozenset(found)


_BLOCK_START = re.compile(r"\s*(?:[|*\-#>\u2022]|\d+[.)]\s)")
_BLOCK_END = re.compile(r"[.!?:;|]\W*$")
_LIST_ITEM = re.compile(r"(?:[-*\u2022]|\d+[.)])\s")
TITLE_WORDS = 6
SHORT_WORDS = 8
"""A line this short (a label, a heading, a table row) is read with its neighbours."""


def _paragraphs(text: str) -> list[str]:
    """The page's blocks: a blank line, a line that ends a sentence, a short (title) line
    or a list or table line ends one; other line breaks are a wrapped line's (a PDF's)."""
    blocks: list[list[str]] = []
    ended = True
    for line in text.splitlines():
        if not line.strip():
            ended = True
            continue
        if ended or _BLOCK_START.match(line):
            blocks.append([])
        blocks[-1].append(line.strip())
        ended = bool(_BLOCK_END.search(line)) or len(line.split()) <= TITLE_WORDS
    return [" ".join(block) for block in blocks]


def _pieces(paragraph: str) -> list[str]:
    out: list[str] = []
    for sentence in _ENDER.split(paragraph):
        sentence = " ".join(sentence.split())
        while len(sentence) > SENTENCE_CHARS:
            cut = sentence.rfind(" ", 0, SENTENCE_CHARS)
            cut = cut if cut > SENTENCE_CHARS // 2 else SENTENCE_CHARS
            out.append(sentence[:cut])
            sentence = sentence[cut:].strip()
        if sentence:
            out.append(sentence)
    return out


def _kind_of(number: StatedNumber) -> str | None:
    """What a figure measures, when it says: a unit's dimension, or a percentage."""
    if number.quantity is not None:
        return number.quantity.unit.dimension
    return "percent" if number.kind == "percent" else None


class PassageIndex:
    """One page split into sentences once, for all the claims that cite it."""

    def __init__(self, text: str) -> None:
        sentences: list[_Sentence] = []
        for number, paragraph in enumerate(_paragraphs(text)):
            for piece in _pieces(paragraph):
                sentences.append(_Sentence(piece, number, _stems(piece), _figures(piece)))
        self.text = text
        self.sentences: Sequence[_Sentence] = sentences
        self.squeezed = [s.text.casefold() for s in sentences]
        df: dict[str, int] = {}
        for sentence in sentences:
            for stem in sentence.stems:
                df[stem] = df.get(stem, 0) + 1
        total = max(1, len(sentences))
        self.idf = {stem: math.log(1.0 + total / count) for stem, count in df.items()}
        self.top_idf = max(self.idf.values(), default=1.0)
        self._rules: PageIndex | None = None
        self._mapped: dict[int, list[int]] = {}

    @property
    def rules(self) -> PageIndex:
        """The claim check's own index of the page (its figures read as quantities)."""
        if self._rules is None:
            self._rules = index_page(self.text)
        return self._rules

    def figure_hits(self, claim: str) -> list[float]:
        """Per sentence, the weight of the claim's figures it states (the same digits, or
        the same quantity as the claim check reads it: another unit, number words, a
        hedge's band), each figure weighted by how few sentences state it."""
        total = max(1, len(self.sentences))
        holders: list[set[int]] = []
        for digits in _figures(claim):
            holders.append({i for i, s in enumerate(self.sentences) if digits in s.figures})
        numbers = claim_numbers(spell_numbers(claim))
        for number in numbers:
            found: set[int] = set()
            for index in self.rules.figures.sentences_stating(number):
                key = " ".join(self.rules.sentences[index].text.split()).casefold()[:FIND_CHARS]
                found.update(i for i, mine in enumerate(self.squeezed) if key and key in mine)
            holders.append(found)
        hits = [0.0] * len(self.sentences)
        for found in holders:
            weight = math.log(1.0 + total / len(found)) if found else 0.0
            for index in found:
                hits[index] += weight
        kinds = {_kind_of(n) for n in numbers} - {None}
        if kinds:
            for index, sentence in enumerate(self.rules.sentences):
                if kinds & {_kind_of(n) for n in sentence.numbers}:
                    for mine in self._mine(index):
                        hits[mine] = max(hits[mine], KIND_WEIGHT)
        return hits

    def _mine(self, index: int) -> list[int]:
        """Which of this index's sentences hold the claim check's sentence `index`."""
        if index not in self._mapped:
            text = self.rules.sentences[index].text
            key = " ".join(text.split()).casefold()[:FIND_CHARS]
            self._mapped[index] = [i for i, mine in enumerate(self.squeezed) if key and key in mine]
        return self._mapped[index]

    def best(self, claim: str, limit: int = MAX_PASSAGES, evidence: str | None = None) -> list[str]:
        """Up to `limit` passages for `claim`, best first; [] for a page with no text: the
        best by words and figures, the claim check's own best passage (`evidence`, or
        found again here), the best by words alone (a claim whose figure was changed has
        its decisive passage without it), then the next best by words and figures."""
        if not self.sentences:
            return []
        stems = _stems(claim)
        words = [sum(self.idf.get(stem, 0.0) for stem in stems & s.stems) for s in self.sentences]
        hits = self.figure_hits(claim)
        both = [w + FIGURE_WEIGHT * h for w, h in zip(words, hits, strict=True)]
        if evidence is None:
            evidence = check_claim(claim, self.rules, "").evidence
        taken: list[tuple[int, int]] = []
        for pick in PICKS:
            if len(taken) >= limit:
                break
            if pick == "rules":
                span = self._evidence_span(evidence, taken)
            else:
                span = self._best_span(both if pick == "both" else words, taken)
            if span is not None:
                taken.append(self._widen(span))
        return [" ".join(s.text for s in self.sentences[a:b]) for a, b in taken]

    def _evidence_span(self, evidence: str, taken: list[tuple[int, int]]) -> tuple[int, int] | None:
        """The sentences that hold the claim check's passage (its lines joined, cut with
        "…"), if they are not taken already."""
        text = " ".join(evidence.replace("\u2026", " ").split()).casefold()
        if len(text) < MIN_EVIDENCE_CHARS:
            return None
        found = [
            i
            for i, mine in enumerate(self.squeezed)
            if len(mine) >= MIN_EVIDENCE_CHARS and mine in text
        ]
        head = text[:FIND_CHARS]
        found += [i for i, mine in enumerate(self.squeezed) if head in mine][:1]
        if not found:
            return None
        found.sort()
        start = end = found[0]
        for index in found[1:]:  # the first run of neighbouring sentences
            if index > end + 1:
                break
            end = index
        span = (start, min(end + 1, start + 4))
        if any(not (span[1] <= a or b <= span[0]) for a, b in taken):
            return None
        return span

    def _best_span(
        self, scores: list[float], taken: list[tuple[int, int]]
    ) -> tuple[int, int] | None:
        """The best window (a sentence, or two of one paragraph) not overlapping `taken`."""
        best: tuple[float, int, int] | None = None
        for start in range(len(scores)):
            end = start + 1
            value = scores[start]
            pair = end < len(scores) and self._continues(start)
            if pair and scores[end] > 0:
                end, value = end + 1, value + PAIR_SHARE * scores[end]
            if any(not (end <= a or b <= start) for a, b in taken):
                continue
            if value > 0 and (best is None or value > best[0]):
                best = (value, start, end)
        if best is None:
            return None if taken else (0, 1)
        return best[1], best[2]

    def _continues(self, index: int) -> bool:
        """Whether the next sentence goes on from sentence `index`: the same block, or the
        list, table or command output a sentence ending in a colon announces."""
        here, after = self.sentences[index], self.sentences[index + 1]
        return after.paragraph == here.paragraph or here.text.endswith(":")

    def _in_list(self, index: int) -> bool:
        """Whether sentence `index` is part of a list item (its block starts with a marker)."""
        first = index
        while first > 0 and self.sentences[first - 1].paragraph == self.sentences[index].paragraph:
            first -= 1
        return bool(_LIST_ITEM.match(self.sentences[first].text))

    def _widen(self, span: tuple[int, int]) -> tuple[int, int]:
        start, end = span
        paragraph = self.sentences[start].paragraph

        def length(a: int, b: int) -> int:
            return sum(len(s.text) + 1 for s in self.sentences[a:b])

        def joins(index: int) -> bool:
            """A neighbour of the same block, or a short line (a label, a table row)."""
            neighbour = self.sentences[index]
            return neighbour.paragraph == paragraph or len(neighbour.text.split()) <= SHORT_WORDS

        if start > 0 and joins(start - 1) and length(start - 1, end) <= PASSAGE_CHARS:
            start -= 1
        if (
            end < len(self.sentences)
            and (joins(end) or self._continues(end - 1))
            and length(start, end + 1) <= PASSAGE_CHARS
        ):
            end += 1
        while (  # a list goes on to its last item while the passage stays short
            end < len(self.sentences)
            and self._in_list(end - 1)
            and self._in_list(end)
            and length(start, end + 1) <= PASSAGE_CHARS
        ):
            end += 1
        return start, end


def best_passages(claim: str, text: str, limit: int = MAX_PASSAGES) -> list[str]:
    """Up to `limit` passages of `text` for `claim` (one page, one claim)."""
    return PassageIndex(text).best(claim, limit)
