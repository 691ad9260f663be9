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

MAX_PASSAGES = 3
PASSAGE_CHARS = 700
"""A passage is widened only while it stays this short."""
SENTENCE_CHARS = 1_200
"""A longer "sentence" (a run-on line, a table flattened into text) is cut into pieces."""
STEM = 6
FIGURE_WEIGHT = 2.0
"""A figure of the claim found in a sentence counts this many times the rarest word."""

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_FIGURE = re.compile(r"\d+(?:[.,\u00a0\u2009\u202f]\d+)*")
_ENDER = re.compile(r"(?<=[.!?;:])[\"'\u201d\u2019)\]]*\s+(?=[\"'\u201c\u2018(\[]?[A-Z0-9])")


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
TITLE_WORDS = 6


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


class PassageIndex:
    """One page split into sentences once, for all the claims that cite it."""

    def __init__(self, text: str) -> None:
        sentences: list[_Sentence] = []
        for number, paragraph in enumerate(_paragraphs(text)):
            for piece in _pieces(paragraph):
                sentences.append(_Sentence(piece, number, _stems(piece), _figures(piece)))
        self.sentences: Sequence[_Sentence] = sentences
        df: dict[str, int] = {}
        for sentence in sentences:
            for stem in sentence.stems:
                df[stem] = df.get(stem, 0) + 1
        total = max(1, len(sentences))
        self.idf = {stem: math.log(1.0 + total / count) for stem, count in df.items()}
        self.top_idf = max(self.idf.values(), default=1.0)

    def score(self, index: int, stems: frozenset[str], figures: frozenset[str]) -> float:
        sentence = self.sentences[index]
        words = sum(self.idf.get(stem, 0.0) for stem in stems & sentence.stems)
        return words + FIGURE_WEIGHT * self.top_idf * len(figures & sentence.figures)

    def best(self, claim: str, limit: int = MAX_PASSAGES) -> list[str]:
        """Up to `limit` passages for `claim`, best first; [] for a page with no text."""
        stems, figures = _stems(claim), _figures(claim)
        scores = [self.score(i, stems, figures) for i in range(len(self.sentences))]
        windows = sorted(
            ((self._window_score(i, scores, stems, figures), i) for i in range(len(scores))),
            key=lambda pair: (-pair[0], pair[1]),
        )
        taken: list[tuple[int, int]] = []
        for value, start in windows:
            if len(taken) >= limit or (value <= 0 and taken):
                break
            span = self._span(start, scores)
            if any(not (span[1] <= a or b <= span[0]) for a, b in taken):
                continue
            taken.append(self._widen(span))
        return [" ".join(s.text for s in self.sentences[a:b]) for a, b in taken]

    def _window_score(
        self, index: int, scores: list[float], stems: frozenset[str], figures: frozenset[str]
    ) -> float:
        """A sentence with its next one in the same paragraph, words counted once."""
        here = self.sentences[index]
        if index + 1 >= len(self.sentences) or self.sentences[index + 1].paragraph != (
            here.paragraph
        ):
            return scores[index]
        after = self.sentences[index + 1]
        joined = (here.stems | after.stems) & stems
        words = sum(self.idf.get(stem, 0.0) for stem in joined)
        found = (here.figures | after.figures) & figures
        return max(scores[index], words + FIGURE_WEIGHT * self.top_idf * len(found))

    def _span(self, start: int, scores: list[float]) -> tuple[int, int]:
        """The window at `start`: two sentences when the second adds to the score."""
        end = start + 1
        if (
            end < len(self.sentences)
            and self.sentences[end].paragraph == self.sentences[start].paragraph
            and scores[end] > 0
        ):
            end += 1
        return start, end

    def _widen(self, span: tuple[int, int]) -> tuple[int, int]:
        start, end = span
        paragraph = self.sentences[start].paragraph

        def length(a: int, b: int) -> int:
            return sum(len(s.text) + 1 for s in self.sentences[a:b])

        if start > 0 and self.sentences[start - 1].paragraph == paragraph:
            if length(start - 1, end) <= PASSAGE_CHARS:
                start -= 1
        if end < len(self.sentences) and self.sentences[end].paragraph == paragraph:
            if length(start, end + 1) <= PASSAGE_CHARS:
                end += 1
        return start, end


def best_passages(claim: str, text: str, limit: int = MAX_PASSAGES) -> list[str]:
    """Up to `limit` passages of `text` for `claim` (one page, one claim)."""
    return PassageIndex(text).best(claim, limit)
